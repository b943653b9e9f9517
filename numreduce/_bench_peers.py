"""``python -m numreduce bench --peers``: numreduce beside bottleneck and
numbagg (where installed) and NumPy/SciPy, every row with its target
(issue 15).  Same-run ratios, the contenders' batches interleaved, minimum
over repeats (``_bench.best_times``).  A measurement tool, never a test.

Rows:

* small 1-D arrays (n = 1e2, 1e3): the whole numreduce call against the
  peer's single-output call for the first output alone (bottleneck's, or
  NumPy's/SciPy's where bottleneck has none); target ratio >= 1.
* 2-D 1000x100 and 100x1000 along each axis: against the fastest installed
  peer pair (bottleneck's, numbagg's, NumPy's two calls); target >= 1.
* n = 1e5 and 1e7: the C fast path against the general Python path of the
  same function (``numreduce._api.<name>``, the call as it ran before the
  fast path), target "no slower" (ratio >= 0.97: the timing noise of one
  run); the bottleneck pair beside it for information.

ratio = reference time / numreduce time: above 1 means numreduce is faster.
"""

from __future__ import annotations

import math

import numpy as np

from . import _api
from ._bench import _fmt_time, best_times

__all__ = ["PEER_HEAD", "peer_line", "peer_rows", "peers_available"]

NAMES = ["nanmeanvar", "meanvar", "nanminmax", "minmax", "argminmax", "nanargminmax",
         "logsumexp", "fsum"]


def _optional(name):
    try:
        return __import__(name)
    except ImportError:
        return None


def peers_available():
    """{'bottleneck': module or None, 'numbagg': ..., 'scipy.special': ...}"""
    sp = _optional("scipy.special")
    if sp is not None:
        import scipy.special as sp
    return {"bottleneck": _optional("bottleneck"), "numbagg": _optional("numbagg"),
            "scipy.special": sp}


def _first_output_peer(name, a, mods):
    """(label, call) of the single-output call for `name`'s first output."""
    bn, sp = mods["bottleneck"], mods["scipy.special"]
    if name == "nanmeanvar":
        return ("bn.nanmean", lambda: bn.nanmean(a)) if bn else ("np.nanmean",
                                                                 lambda: np.nanmean(a))
    if name == "meanvar":
        return "np.mean", lambda: np.mean(a)
    if name == "nanminmax":
        return ("bn.nanmin", lambda: bn.nanmin(a)) if bn else ("np.nanmin", lambda: np.nanmin(a))
    if name == "minmax":
        return "np.min", lambda: np.min(a)
    if name == "argminmax":
        return "np.argmin", lambda: np.argmin(a)
    if name == "nanargminmax":
        return ("bn.nanargmin", lambda: bn.nanargmin(a)) if bn else \
            ("np.nanargmin", lambda: np.nanargmin(a))
    if name == "logsumexp":
        return ("scipy logsumexp", lambda: sp.logsumexp(a)) if sp else None
    if name == "fsum":
        return "np.sum", lambda: np.sum(a)
    raise ValueError(name)


def _pairs(name, a, axis, mods):
    """[(label, call)] of the peers computing both outputs (one for fsum and
    logsumexp, which have one)."""
    bn, nb, sp = mods["bottleneck"], mods["numbagg"], mods["scipy.special"]
    kw = {} if axis is None else {"axis": axis}
    out = []

    def add(label, f, g=None):
        out.append((label, (lambda: (f(a, **kw), g(a, **kw))) if g else (lambda: f(a, **kw))))

    if name in ("nanmeanvar", "meanvar"):
        if name == "meanvar":
            add("np.mean+np.var", np.mean, np.var)
        if bn is not None:
            add("bn.nanmean+nanvar", bn.nanmean, bn.nanvar)
        if nb is not None:  # numbagg's nanvar defaults to ddof=1
            add("numbagg.nanmean+nanvar", nb.nanmean,
                lambda x, **k: nb.nanvar(x, ddof=0, **k))
    elif name in ("nanminmax", "minmax"):
        if name == "minmax":
            add("np.min+np.max", np.min, np.max)
        for mod, label in ((bn, "bn"), (nb, "numbagg")):
            if mod is not None:
                add(f"{label}.nanmin+nanmax", mod.nanmin, mod.nanmax)
    elif name in ("argminmax", "nanargminmax"):
        if name == "argminmax":
            add("np.argmin+np.argmax", np.argmin, np.argmax)
        for mod, label in ((bn, "bn"), (nb, "numbagg")):
            if mod is not None:
                add(f"{label}.nanargmin+nanargmax", mod.nanargmin, mod.nanargmax)
    elif name == "logsumexp":
        if sp is not None:
            add("scipy logsumexp", sp.logsumexp)
    elif name == "fsum":
        add("np.sum", np.sum)
        for mod, label in ((bn, "bn"), (nb, "numbagg")):
            if mod is not None:
                add(f"{label}.nansum", mod.nansum)
    return out


def _call(name, a, axis):
    import numreduce as nr

    f = getattr(nr, name)
    return (lambda: f(a)) if axis is None else (lambda: f(a, axis=axis))


def peer_rows(quick: bool = False, on_row=None):
    """Rows (case, t_numreduce, ref_label, t_ref, ratio, target_text, ok)."""
    mods = peers_available()
    rng = np.random.default_rng(15)
    kw = {"min_total": 0.02, "repeats": 3} if quick else {"min_total": 0.05, "repeats": 7}
    rows = []

    def emit(row):
        rows.append(row)
        if on_row is not None:
            on_row(row)

    # small 1-D: the first output's single call
    for n in (10**2, 10**3):
        for dt in ("float32", "float64"):
            a = rng.standard_normal(n).astype(dt)
            for name in NAMES:
                peer = _first_output_peer(name, a, mods)
                if peer is None:
                    continue
                label, ref = peer
                t_nr, t_ref = best_times(_call(name, a, None), ref, **kw)
                r = t_ref / t_nr
                emit((f"{name} f{np.dtype(dt).itemsize} n={n:.0e}", t_nr,
                      label, t_ref, r, f"<= {label} alone", r >= 1.0))
    # 2-D along each axis: the fastest peer pair
    shapes = ((1000, 100), (100, 1000))
    for shape in shapes:
        for dt in ("float32", "float64"):
            m = rng.standard_normal(shape).astype(dt)
            for axis in (0, 1):
                for name in NAMES:
                    pairs = _pairs(name, m, axis, mods)
                    if not pairs:
                        continue
                    times = best_times(_call(name, m, axis), *(p[1] for p in pairs), **kw)
                    t_nr, t_peers = times[0], times[1:]
                    i = int(np.argmin(t_peers))
                    r = t_peers[i] / t_nr
                    emit((f"{name} f{np.dtype(dt).itemsize} {shape[0]}x{shape[1]} axis={axis}",
                          t_nr, pairs[i][0], t_peers[i], r, ">= 1.0x fastest pair", r >= 1.0))
    # large 1-D: the fast path against the general path (before), no slower
    for n in ((10**5,) if quick else (10**5, 10**7)):
        for dt in ("float32", "float64"):
            a = rng.standard_normal(n).astype(dt)
            for name in NAMES:
                general = getattr(_api, name)
                t_nr, t_gen = best_times(_call(name, a, None), lambda: general(a), **kw)
                r = t_gen / t_nr
                emit((f"{name} f{np.dtype(dt).itemsize} n={n:.0e}", t_nr, "general path",
                      t_gen, r, "no slower (>= 0.97)", r >= 0.97))
    return rows


PEER_HEAD = (f"{'case':<36} {'numreduce':>11} {'reference':<24} {'ref time':>11} "
             f"{'ratio':>7}  {'target':<22} status")


def peer_line(row) -> str:
    case, t_nr, label, t_ref, r, target, ok = row
    ratio = f"{r:6.2f}x" if math.isfinite(r) else "    n/a"
    return (f"{case:<36} {_fmt_time(t_nr):>11} {label:<24} {_fmt_time(t_ref):>11} "
            f"{ratio:>7}  {target:<22} {'ok' if ok else 'MISS'}")


def describe_peers() -> str:
    mods = peers_available()
    scipy = _optional("scipy") if mods["scipy.special"] is not None else None
    versions = {"bottleneck": mods["bottleneck"], "numbagg": mods["numbagg"], "scipy": scipy}
    return ", ".join(f"{k} {m.__version__}" if m is not None else f"{k} not installed"
                     for k, m in versions.items())
