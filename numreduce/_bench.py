"""Side-by-side benchmarks: numreduce against the NumPy calls users write today.

Every row times both contenders in the same process run, interleaved, and
reports the minimum over repeats (the least-disturbed run).  Ratios > 1 mean
numreduce is faster.  This is a measurement tool, never a test.
"""

from __future__ import annotations

import os
import time
from collections.abc import Callable

import numpy as np

from . import minmax


def _calibrate(fn: Callable[[], object], min_total: float, repeats: int) -> int:
    """Calls per batch so that one batch lasts about min_total / repeats."""
    fn()  # warm-up (page faults, lazy imports)
    number = 1
    while True:
        t0 = time.perf_counter()
        for _ in range(number):
            fn()
        if time.perf_counter() - t0 >= min_total / repeats or number >= 1 << 20:
            return number
        number *= 4


def best_times(*fns: Callable[[], object], min_total: float = 0.05,
               repeats: int = 7) -> list[float]:
    """Seconds per call of each contender: the minimum over `repeats`
    batches, the contenders' batches interleaved (A B C A B C ...) so that a
    slow spell of a shared machine falls on all of them alike."""
    numbers = [_calibrate(fn, min_total, repeats) for fn in fns]
    best = [float("inf")] * len(fns)
    for _ in range(repeats):
        for i, (fn, number) in enumerate(zip(fns, numbers)):
            t0 = time.perf_counter()
            for _ in range(number):
                fn()
            best[i] = min(best[i], (time.perf_counter() - t0) / number)
    return best


def _data(dtype, n: int, rng) -> np.ndarray:
    dt = np.dtype(dtype)
    if dt.kind == "f":
        return rng.standard_normal(n).astype(dt)
    info = np.iinfo(dt)
    return rng.integers(info.min, info.max, size=n, dtype=dt, endpoint=True)


def _minmax_times(a, quick: bool):
    """Seconds per call of nr.minmax(a), (np.min(a), np.max(a)) and np.max(a)."""
    kw = {"min_total": 0.02, "repeats": 3} if quick else {}
    return tuple(best_times(lambda: minmax(a), lambda: (np.min(a), np.max(a)),
                            lambda: np.max(a), **kw))


def minmax_rows(sizes=(10**3, 10**5, 10**7), dtypes=("float32", "float64", "int32", "int64"),
                quick: bool = False, on_row=None, measured=None):
    """Rows of (dtype, n, t_numreduce, t_min_plus_max, t_max_alone); ``on_row``
    is called with each row as soon as it is measured.  ``measured``: times
    of this run already taken (the headline's), keyed ``("minmax", dtype,
    n)``, printed as they were rather than measured twice."""
    rng = np.random.default_rng(0)
    rows = []
    for dtype in dtypes:
        for n in sizes:
            a = _data(dtype, n, rng)
            times = (measured or {}).get(("minmax", dtype, n))
            t_nr, t_two, t_max = times if times is not None else _minmax_times(a, quick)
            rows.append((dtype, n, t_nr, t_two, t_max))
            if on_row is not None:
                on_row(rows[-1])
    return rows


def _fmt_time(t: float) -> str:
    for unit, scale in (("s", 1.0), ("ms", 1e-3), ("us", 1e-6), ("ns", 1e-9)):
        if t >= scale:
            return f"{t / scale:7.2f} {unit}"
    return f"{t / 1e-9:7.2f} ns"


_MINMAX_HEAD = (f"{'dtype':>8} {'n':>9} {'nr.minmax':>11} {'np.min+np.max':>14} {'np.max':>11}"
                f" {'speedup vs min+max':>19} {'speedup vs max alone':>21}")


def _minmax_line(row) -> str:
    """Both ratio columns are speedups (reference time / numreduce time):
    higher is better, > 1 means numreduce is faster."""
    dtype, n, t_nr, t_two, t_max = row
    return (f"{dtype:>8} {n:>9.0e} {_fmt_time(t_nr):>11} {_fmt_time(t_two):>14} "
            f"{_fmt_time(t_max):>11} {t_two / t_nr:>18.2f}x {t_max / t_nr:>20.2f}x")


def minmax_table(rows) -> str:
    return "\n".join([_MINMAX_HEAD, "-" * len(_MINMAX_HEAD)] + [_minmax_line(r) for r in rows])


def _say(line: str = "") -> None:
    """Print one line now (the tables stream row by row, even into a pipe)."""
    print(line, flush=True)


def main(quick: bool = False, measured=None) -> None:
    _say("minmax: numreduce.minmax(a) vs (np.min(a), np.max(a)) and np.max(a) alone")
    _say("(1-D contiguous; min of repeats; every ratio is a speedup, the reference's time over")
    _say(" numreduce's: higher is better, > 1 means numreduce is faster; `vs max alone` near 1")
    _say(" means both results for the time of one)\n")
    _say(_MINMAX_HEAD)
    _say("-" * len(_MINMAX_HEAD))
    minmax_rows(quick=quick, on_row=lambda row: _say(_minmax_line(row)), measured=measured)


if __name__ == "__main__":
    main()


# ---------------------------------------------------------------------------
# The family: one-pass reductions against the calls users write today
# ---------------------------------------------------------------------------

def family_cases(n: int = 10**7, quick: bool = False):
    """(label, numreduce call, reference call) triples, data built once."""
    from . import argminmax, fsum, logsumexp, meanvar, nanminmax

    rng = np.random.default_rng(1)
    a = rng.standard_normal(n)
    a_nan = a.copy()
    a_nan[:: 97] = np.nan
    side = int(round(np.sqrt(n if not quick else 10**6)))
    m = rng.standard_normal((side, side))
    cases = [
        (f"nanminmax 1-D f64 {n:.0e}", lambda: nanminmax(a_nan),
         lambda: (np.nanmin(a_nan), np.nanmax(a_nan)), "np.nanmin+np.nanmax"),
        (f"argminmax 1-D f64 {n:.0e}", lambda: argminmax(a),
         lambda: (np.argmin(a), np.argmax(a)), "np.argmin+np.argmax"),
        (f"meanvar 1-D f64 {n:.0e}", lambda: meanvar(a), lambda: (np.mean(a), np.var(a)),
         "np.mean+np.var"),
        (f"meanvar {side}x{side} axis=0", lambda: meanvar(m, axis=0),
         lambda: (np.mean(m, axis=0), np.var(m, axis=0)), "np.mean+np.var"),
        (f"meanvar {side}x{side} axis=1", lambda: meanvar(m, axis=1),
         lambda: (np.mean(m, axis=1), np.var(m, axis=1)), "np.mean+np.var"),
        (f"fsum 1-D f64 {n:.0e}", lambda: fsum(a), lambda: np.sum(a), "np.sum"),
    ]
    try:
        from scipy.special import logsumexp as sp_lse
    except ImportError:  # pragma: no cover - scipy is optional
        sp_lse = None
    if sp_lse is not None:
        cases += [
            (f"logsumexp 1-D f64 {n:.0e}", lambda: logsumexp(a), lambda: sp_lse(a),
             "scipy logsumexp"),
            (f"logsumexp {side}x{side} axis=0", lambda: logsumexp(m, axis=0),
             lambda: sp_lse(m, axis=0), "scipy logsumexp"),
            (f"logsumexp {side}x{side} axis=1", lambda: logsumexp(m, axis=1),
             lambda: sp_lse(m, axis=1), "scipy logsumexp"),
        ]
    return cases


def _family_n(quick: bool) -> int:
    return 10**6 if quick else 10**7


def _family_kw(quick: bool) -> dict:
    return {"min_total": 0.05, "repeats": 3} if quick else {"min_total": 0.2, "repeats": 5}


def family_table(quick: bool = False, on_line=None, measured=None, cases=None) -> str:
    """The family table; ``on_line`` is called with each line as it is ready.
    ``cases``: the family's cases if already built (family_cases);
    ``measured``: times of this run already taken (the headline's), keyed by
    the case's label, printed as they were rather than measured twice."""
    n = _family_n(quick)
    kw = _family_kw(quick)
    head = f"{'case':<32} {'numreduce':>11} {'reference':>11} {'speedup':>7}  reference call"
    lines = []
    notes = []

    def add(line):
        lines.append(line)
        if on_line is not None:
            on_line(line)

    add(head)
    add("-" * len(head))
    for label, nr_call, ref_call, ref_name in (cases if cases is not None
                                               else family_cases(n, quick)):
        times = (measured or {}).get(label)
        t_nr, t_ref = times if times is not None else best_times(nr_call, ref_call, **kw)
        slower = t_ref / t_nr < 1 and label.split()[0] in SLOWER_BECAUSE
        add(f"{label:<32} {_fmt_time(t_nr):>11} {_fmt_time(t_ref):>11} "
            f"{t_ref / t_nr:>6.2f}x  {ref_name}" + (" (*)" if slower else ""))
        if slower:
            notes.append(f"(*) {label.split()[0]} below 1: {SLOWER_BECAUSE[label.split()[0]]}")
    for note in notes:
        add(note)
    return "\n".join(lines)


# Why a family row may be slower than its reference (printed under the
# table when it is).
SLOWER_BECAUSE = {
    "fsum": "the compensation's cost -- about 1 ulp of math.fsum, where np.sum's "
            "pairwise error grows with the data's condition number (accuracy table)",
}


def accuracy_table() -> str:
    """Relative errors against exact references (fractions, mpmath where
    installed, math.fsum), numreduce's beside the usual implementation's."""
    import math
    from fractions import Fraction

    from . import fsum, logsumexp, meanvar

    rng = np.random.default_rng(2)
    lines = [f"{'case':<44} {'numreduce':>10} {'reference impl':>15}  reference"]
    # variance of offset data, exact by fractions
    x = 1e8 + rng.standard_normal(20000)
    fr = [Fraction(float(v)) for v in x]
    mean = sum(fr) / len(fr)
    var = sum((v - mean) ** 2 for v in fr) / len(fr)
    nr_var = Fraction(float(meanvar(x)[1]))
    np_var = Fraction(float(np.var(x)))
    lines.append(f"{'var, 1e8 + N(0,1), n=2e4 (exact: fractions)':<44} "
                 f"{float(abs(nr_var - var) / var):>10.1e} {float(abs(np_var - var) / var):>15.1e}"
                 "  np.var")
    # logsumexp: the reference from mpmath at 40 digits where installed
    # (in the test extra), else math.fsum of the float64 exp terms (each
    # within half an ulp, the sum correctly rounded: about 1e-16); the
    # other implementation is SciPy's where installed, else the NumPy
    # expression users write without it
    y = rng.standard_normal(100000) * 30
    ref, ref_name = _logsumexp_reference(y)
    try:
        from scipy.special import logsumexp as sp_lse
        other, other_name = float(sp_lse(y)), "scipy"
    except ImportError:
        m = np.max(y)
        other, other_name = float(m + np.log(np.sum(np.exp(y - m)))), "np.max+log(np.sum(exp))"
    lines.append(f"{f'logsumexp, 30*N(0,1), n=1e5 (ref: {ref_name})':<44} "
                 f"{abs(float(logsumexp(y)) - ref) / abs(ref):>10.1e} "
                 f"{abs(other - ref) / abs(ref):>15.1e}  {other_name}")
    # compensated sum on ill-conditioned data: big values that cancel
    # exactly in exact arithmetic, shuffled among small ones (cond ~ 1e10)
    big = rng.standard_normal(5000) * 1e8
    z = np.concatenate([big, -big, rng.standard_normal(5000)])
    rng.shuffle(z)
    exact = math.fsum(z)
    cond = math.fsum(abs(v) for v in z) / abs(exact)
    lines.append(f"{f'fsum, cond={cond:.0e}, n={z.size} (ref: math.fsum)':<44} "
                 f"{abs(float(fsum(z)) - exact) / abs(exact):>10.1e} "
                 f"{abs(float(np.sum(z)) - exact) / abs(exact):>15.1e}  np.sum")
    return "\n".join(lines)


def _logsumexp_reference(y):
    """log(sum(exp(y))) as exactly as what is installed allows, and its name."""
    import math

    try:
        import mpmath
    except ImportError:
        mx = float(np.max(y))
        return mx + math.log(math.fsum(math.exp(float(v) - mx) for v in y)), "math.fsum"
    with mpmath.workdps(40):
        total = mpmath.fsum(mpmath.exp(mpmath.mpf(float(v))) for v in y)
        return float(mpmath.log(total)), "mpmath"


def _power(n: int) -> str:
    """10**7 -> '1e7' (a power of ten as people write it)."""
    return f"{n:.0e}".replace("e+0", "e").replace("e+", "e")


class Headline:
    """The headline rows of the main job, measured before the full tables;
    the tables print these rows' times as they were (one measurement per
    case and run)."""

    HEAD = f"{'numreduce call':<22} {'replaces':<38} {'data':<18} {'speedup':>7}"

    def __init__(self, quick: bool = False):
        self.quick = quick
        self.measured = {}
        self.cases = None

    def rows(self, on_line=None):
        """Measure the headline rows (minmax and meanvar against the NumPy
        calls they replace, float64), calling ``on_line`` with each line."""
        say = on_line or (lambda line: None)
        say(self.HEAD)
        say("-" * len(self.HEAD))
        rng = np.random.default_rng(4)
        for n in (10**5, 10**7):
            t_nr, t_two, t_max = _minmax_times(_data("float64", n, rng), self.quick)
            self.measured[("minmax", "float64", n)] = (t_nr, t_two, t_max)
            say(self._line("nr.minmax(a)", "np.min(a), np.max(a)", f"float64, n={_power(n)}",
                           t_nr, t_two))
        n = _family_n(self.quick)
        self.cases = family_cases(n, self.quick)
        for label, nr_call, ref_call, _ in self.cases:
            if not label.startswith("meanvar"):
                continue
            times = best_times(nr_call, ref_call, **_family_kw(self.quick))
            self.measured[label] = times
            if "axis" in label:
                shape, axis = label.split()[1], label.split()[-1]
                call = f"nr.meanvar(m, {axis})"
                ref = f"np.mean(m, {axis}), np.var(m, {axis})"
                data = f"float64, {shape}"
            else:
                call, ref = "nr.meanvar(a)", "np.mean(a), np.var(a)"
                data = f"float64, n={_power(n)}"
            say(self._line(call, ref, data, *times))

    @staticmethod
    def _line(call, ref, data, t_nr, t_ref):
        """A headline row: the speedup alone (the tables below give the
        times)."""
        return f"{call:<22} {ref:<38} {data:<18} {t_ref / t_nr:>6.2f}x"


def bench_all(quick: bool = False, headline: Headline | None = None) -> None:
    """The minmax, family and accuracy tables; the rows of ``headline``
    (already measured) are printed with the times it took."""
    measured = headline.measured if headline is not None else None
    main(quick=quick, measured=measured)
    _say("\nThe family: one pass vs the calls users write today (speedup: the reference's time"
         "\nover numreduce's, > 1: numreduce faster)\n")
    family_table(quick=quick, on_line=_say, measured=measured,
                 cases=headline.cases if headline is not None else None)
    _say("\nAccuracy: relative error against exact references\n")
    _say(accuracy_table())


# ---------------------------------------------------------------------------
# The performance targets, side by side (python -m numreduce bench)
# ---------------------------------------------------------------------------

def _cpu_time(fn, repeat: int = 5) -> float:
    """The least CPU time (seconds, every thread of this process) of
    ``repeat`` calls of ``fn``."""
    best = float("inf")
    for _ in range(repeat):
        c0 = time.process_time()
        fn()
        best = min(best, time.process_time() - c0)
    return best


def _ratio_row(label, t_nr, t_ref, target, kind):
    """kind 'faster': t_ref / t_nr >= target; 'at_most': t_nr / t_ref <= target."""
    if kind == "faster":
        value, ok = t_ref / t_nr, t_ref / t_nr >= target
        goal = f">= {target:.2f}x faster"
    else:
        value, ok = t_nr / t_ref, t_nr / t_ref <= target
        goal = f"<= {target:.2f}x the time"
    return (label, t_nr, t_ref, value, goal, "ok" if ok else "MISS")


def _group_var_errors(x, ids, ngroups, var_nr, var_ref_peer):
    """Max relative error of two grouped variances (ddof=0) against a
    long double two-pass reference (numpy.add.at in long double)."""
    xl = x.astype(np.longdouble)
    cnt = np.bincount(ids, minlength=ngroups).astype(np.longdouble)
    s = np.zeros(ngroups, dtype=np.longdouble)
    np.add.at(s, ids, xl)
    mean = s / cnt
    d = xl - mean[ids]
    m2 = np.zeros(ngroups, dtype=np.longdouble)
    np.add.at(m2, ids, d * d)
    ref = m2 / cnt

    def err(v):
        return float(np.max(np.abs(np.asarray(v, dtype=np.longdouble) - ref) / ref))

    return err(var_nr), err(var_ref_peer)


def target_rows(quick: bool = False, on_row=None):
    """Every row of the performance issue's table, measured in this run;
    ``on_row`` is called with each row as soon as it is measured."""
    import numreduce as nr

    rng = np.random.default_rng(3)
    kw = {"min_total": 0.05, "repeats": 3} if quick else {"min_total": 0.3, "repeats": 5}
    big = 10**6 if quick else 10**7
    side = 1000 if quick else 4000

    class _Rows(list):
        def append(self, row):
            super().append(row)
            if on_row is not None:
                on_row(row)

    rows = _Rows()
    t = lambda *fns: best_times(*fns, **kw)  # noqa: E731
    for dtype in ("float32", "float64", "int16", "int32", "int64"):
        for n in (10**5, big):
            a = _data(dtype, n, rng)
            t_nr, t_two, t_max = t(lambda: nr.minmax(a), lambda: (np.min(a), np.max(a)),
                                   lambda: np.max(a))
            rows.append(_ratio_row(f"minmax {dtype} {n:.0e} vs min+max", t_nr, t_two, 1.9, "faster"))
            rows.append(_ratio_row(f"minmax {dtype} {n:.0e} vs max", t_nr, t_max, 1.05, "at_most"))
    # the rest of the 1-D min/max family at np.max's / np.argmax's speed
    # (one pass over memory is the whole cost)
    for dtype in ("float32", "float64", "int32", "int64"):
        a = _data(dtype, big, rng)
        fl = dtype.startswith("float")
        if fl:
            rows.append(_ratio_row(f"nanminmax {dtype} {big:.0e} vs max",
                                   *t(lambda: nr.nanminmax(a), lambda: np.max(a)), 1.05, "at_most"))
            rows.append(_ratio_row(f"fminfmax {dtype} {big:.0e} vs max",
                                   *t(lambda: nr.reduce(nr.fminfmax, a), lambda: np.max(a)), 1.05,
                                   "at_most"))
        rows.append(_ratio_row(f"argminmax {dtype} {big:.0e} vs argmax",
                               *t(lambda: nr.argminmax(a), lambda: np.argmax(a)), 1.10, "at_most"))
        if fl:
            rows.append(_ratio_row(f"nanargminmax {dtype} {big:.0e} vs argmax",
                                   *t(lambda: nr.nanargminmax(a), lambda: np.argmax(a)), 1.10,
                                   "at_most"))
    for dtype in ("float32", "float64", "int32", "int64"):
        a = _data(dtype, 1000, rng)
        rows.append(_ratio_row(f"minmax {dtype} 1e3 vs max",
                               *t(lambda: nr.minmax(a), lambda: np.max(a)), 1.0, "at_most"))
    for dtype in ("float32", "float64"):
        m = rng.standard_normal((side, side)).astype(dtype)
        for axis in (0, 1):
            rows.append(_ratio_row(f"minmax {dtype} {side}^2 axis={axis}",
                                   *t(lambda: nr.minmax(m, axis=axis),
                                      lambda: (np.min(m, axis=axis), np.max(m, axis=axis))),
                                   1.8, "faster"))
    a = rng.standard_normal(big)
    a_nan = a.copy()
    a_nan[::97] = np.nan
    rows.append(_ratio_row(f"nanminmax f64 {big:.0e}", *t(lambda: nr.nanminmax(a_nan),
                                                          lambda: (np.nanmin(a_nan), np.nanmax(a_nan))),
                           1.8, "faster"))
    rows.append(_ratio_row(f"argminmax f64 {big:.0e}", *t(lambda: nr.argminmax(a),
                                                          lambda: (np.argmin(a), np.argmax(a))),
                           1.8, "faster"))
    rows.append(_ratio_row(f"meanvar f64 {big:.0e}", *t(lambda: nr.meanvar(a),
                                                        lambda: (np.mean(a), np.var(a))),
                           4.0, "faster"))
    m = rng.standard_normal((side, side))
    for axis in (0, 1):
        rows.append(_ratio_row(f"meanvar f64 {side}^2 axis={axis}",
                               *t(lambda: nr.meanvar(m, axis=axis),
                                  lambda: (np.mean(m, axis=axis), np.var(m, axis=axis))),
                               4.0, "faster"))
    try:
        from scipy.special import logsumexp as sp_lse
    except ImportError:  # pragma: no cover
        sp_lse = None
    if sp_lse is not None:
        rows.append(_ratio_row(f"logsumexp f64 {big:.0e}",
                               *t(lambda: nr.logsumexp(a), lambda: sp_lse(a)), 5.0, "faster"))
        for axis in (0, 1):
            rows.append(_ratio_row(f"logsumexp f64 {side}^2 axis={axis}",
                                   *t(lambda: nr.logsumexp(m, axis=axis),
                                      lambda: sp_lse(m, axis=axis)), 5.0, "faster"))
    rows.append(_ratio_row(f"fsum f64 {big:.0e} vs np.sum",
                           *t(lambda: nr.fsum(a), lambda: np.sum(a)), 2.0, "at_most"))
    # axis 0 of a C-ordered block: the column kernel (per-column (s, e) in
    # registers, row blocks) against NumPy's row-after-row adds
    rows.append(_ratio_row(f"fsum f64 {side}^2 axis=0 vs np.sum",
                           *t(lambda: nr.fsum(m, axis=0), lambda: np.sum(m, axis=0)),
                           1.5, "at_most"))
    rows.append(_ratio_row(f"cumminmax f64 {big:.0e}",
                           *t(lambda: nr.cumminmax(a),
                              lambda: (np.minimum.accumulate(a), np.maximum.accumulate(a))),
                           1.8, "faster"))
    rows.append(_logcumsumexp_row(nr, a, big, t))
    idx = np.sort(rng.choice(big, 10**4, replace=False))
    idx[0] = 0
    rows.append(_ratio_row(f"reduceat minmax f64 {big:.0e} 1e4 segments",
                           *t(lambda: nr.reduceat(nr.minimummaximum, a, idx),
                              lambda: (np.minimum.reduceat(a, idx), np.maximum.reduceat(a, idx))),
                           1.8, "faster"))
    if nr.HAVE_NATIVE_REDUCE:
        for n, target in ((10**6, 1.1), (100, 1.5)):
            x = rng.standard_normal(n)
            rows.append(_ratio_row(f"engine vs native reduce {n:.0e}",
                                   *t(lambda: nr.reduce(nr.minimummaximum, x),
                                      lambda: nr.minimummaximum.reduce(x)), target, "at_most"))
    # Grouped reductions: 1e7 float64 values in 1e4 unsorted groups.
    ngroups = 10**4
    gx = rng.standard_normal(big)
    gids = rng.integers(0, ngroups, big)

    def np_at_minmax(ids=gids):
        lo, hi = np.full(ngroups, np.inf), np.full(ngroups, -np.inf)
        np.minimum.at(lo, ids, gx)
        np.maximum.at(hi, ids, gx)
        return lo, hi

    group_mm = lambda: nr.group_minmax(gx, gids, ngroups)  # noqa: E731
    group_mv = lambda: nr.group_meanvar(gx, gids, ngroups)  # noqa: E731
    # The bound: any grouped reduction reads the values and ids and updates
    # a random slot per element (1e4 minmax slots of 16 bytes: 160 KB, more
    # than an L1); the same pass with one add per element
    # (_core._scatter_floor) is the least it can take.  The target is 3x,
    # or 90% of a lower bound measured in the same run.
    t_mm, t_at, t_floor = t(group_mm, np_at_minmax,
                            lambda: nr._core._scatter_floor(gx, gids, ngroups))
    bound = t_at / t_floor
    print(f"(group_minmax {big:.0e}/1e4 bound: its reads and random slot updates with one add "
          f"each {_fmt_time(t_floor)}, np.at {_fmt_time(t_at)}: at most {bound:.2f}x faster)")
    rows.append(_ratio_row(f"group_minmax f64 {big:.0e}/1e4 vs np.at", t_mm, t_at,
                           round(min(3.0, 0.9 * bound), 2), "faster"))
    # sorted keys (resampled time, pre-sorted tables): runs of equal ids
    sids = np.sort(gids)
    rows.append(_ratio_row(f"group_minmax f64 {big:.0e}/1e4 sorted ids vs np.at",
                           *t(lambda: nr.group_minmax(gx, sids, ngroups),
                              lambda: np_at_minmax(sids)),
                           3.0, "faster"))
    try:
        import pandas as pd
    except ImportError:
        print("(grouped rows vs pandas skipped: pandas is not installed)")
        pd = None
    if pd is not None:
        ser = pd.Series(gx)
        rows.append(_ratio_row(f"group_minmax f64 {big:.0e}/1e4 vs pandas",
                               *t(group_mm, lambda: ser.groupby(gids).agg(["min", "max"])),
                               3.0, "faster"))
        err_nr, err_pd = _group_var_errors(gx, gids, ngroups, group_mv()[1],
                                           ser.groupby(gids).var(ddof=0).to_numpy())
        rows.append(_ratio_row(f"group_meanvar f64 {big:.0e}/1e4 vs pandas "
                               f"(var err {err_nr:.1e} vs {err_pd:.1e}"
                               f"{' ok' if err_nr <= err_pd else ' MISS'})",
                               *t(group_mv, lambda: (ser.groupby(gids).mean(),
                                                     ser.groupby(gids).var(ddof=0))),
                               3.0, "faster"))
    try:
        import numbagg
        numbagg.group_nanmin(gx[:10], gids[:10] % 2, num_labels=2)  # compiles, or fails
    except Exception as e:  # noqa: BLE001 - any failure: the optional peer is absent
        print(f"(grouped rows vs numbagg skipped: numbagg unavailable: {type(e).__name__})")
        numbagg = None
    if numbagg is not None:
        kwl = {"num_labels": ngroups}
        rows.append(_ratio_row(
            f"group_minmax f64 {big:.0e}/1e4 vs numbagg",
            *t(group_mm, lambda: (numbagg.group_nanmin(gx, gids, **kwl),
                                  numbagg.group_nanmax(gx, gids, **kwl))), 1.5, "faster"))
        rows.append(_ratio_row(
            f"group_meanvar f64 {big:.0e}/1e4 vs numbagg",
            *t(group_mv, lambda: (numbagg.group_nanmean(gx, gids, **kwl),
                                  numbagg.group_nanvar(gx, gids, **kwl))), 1.5, "faster"))
    gw = rng.random(big)

    def bincount_weighted():  # the weighted grouped mean and variance users write
        sw = np.bincount(gids, gw, ngroups)
        m = np.bincount(gids, gw * gx, ngroups) / sw
        d = gx - m[gids]
        return m, np.bincount(gids, gw * d * d, ngroups) / sw

    rows.append(_ratio_row(f"group_meanvar f64 {big:.0e}/1e4 weights= vs np.bincount x3",
                           *t(lambda: nr.group_meanvar(gx, gids, ngroups, weights=gw),
                              bincount_weighted), 2.0, "faster"))
    multisource_rows(rows, t, rng, big, side)
    summary_rows(rows, t, rng, big, side)
    if not quick:
        huge = rng.standard_normal(10**8)
        old = nr.set_num_threads(1)
        try:
            for name, fn in (("logsumexp", nr.logsumexp), ("meanvar", nr.meanvar)):
                # The bound: two threads cannot beat two halves of one
                # thread's time, nor the memory's speed -- the time of the
                # cheapest read of the same data on two threads (minmax).
                # The target is 1.7x, or 90% of a lower bound measured in
                # the same run.
                t1, t2, t_read = t(_threaded(nr, 1, fn, huge), _threaded(nr, 2, fn, huge),
                                   _threaded(nr, 2, nr.minmax, huge))
                bound = t1 / max(t_read, t1 / 2)
                print(f"({name} 1e8 bound: 1 thread {_fmt_time(t1)}, a read of the data on 2 "
                      f"threads (minmax) {_fmt_time(t_read)}: 2 threads at most {bound:.2f}x "
                      "faster)")
                rows.append(_ratio_row(f"{name} 1e8, 2 threads vs 1", t2, t1,
                                       round(min(1.7, 0.9 * bound), 2), "faster"))
        finally:
            nr.set_num_threads(old)
    dask_rows(rows, kw, quick)
    accessor_rows(rows, kw, quick)
    return list(rows)


def _threaded(nr, k, fn, *args):
    """A call of fn(*args) on k numreduce threads."""
    def call():
        nr.set_num_threads(k)
        return fn(*args)
    return call


def accessor_rows(rows, kw, quick: bool = False):
    """The grouped-statistics rows of issue 26: the xarray ``.nr.groupby`` /
    ``.nr.resample`` and pandas ``.nr.groupby`` accessors against the
    idioms they replace (xarray's groupby/resample with flox where it is
    installed; pandas' ``groupby().agg([...])``).  A daily (3650, 100, 100)
    float32 field (3650, 20, 20 with ``quick``); 1e7 rows, 1e4 integer keys,
    4 float64 columns (1e6 with ``quick``).  Skipped, with the reason
    printed, where xarray or pandas is not importable."""
    t = lambda *fns: best_times(*fns, **kw)  # noqa: E731
    try:
        import pandas as pd
        import xarray as xr
    except ImportError as e:
        print(f"(xarray/pandas accessor rows skipped: {e})")
        return rows
    import numreduce.pandas  # noqa: F401
    import numreduce.xarray  # noqa: F401
    try:
        import flox  # noqa: F401
        how = "flox"
    except ImportError:
        how = "no flox"
    side = 20 if quick else 100
    rng = np.random.default_rng(26)
    time_ = pd.date_range("2000-01-01", periods=3650, freq="D")
    field = xr.DataArray(rng.standard_normal((3650, side, side), dtype=np.float32),
                         dims=("time", "lat", "lon"), coords={"time": time_}, name="tas")
    label = f"3650x{side}x{side}"  # float32, daily
    rows.append(_ratio_row(
        f"xr month meanstd {label} ({how})",
        *t(lambda: field.nr.groupby("time.month").meanstd(),
           lambda: (field.groupby("time.month").mean(), field.groupby("time.month").std())),
        3.0, "faster"))
    rows.append(_ratio_row(
        f"xr resample minmax {label} ({how})",
        *t(lambda: field.nr.resample(time="1MS").minmax(),
           lambda: (field.resample(time="1MS").min(), field.resample(time="1MS").max())),
        3.0, "faster"))
    try:
        import dask
    except ImportError as e:
        print(f"(xarray dask accessor row skipped: {e})")
    else:
        lazy = field.chunk({"time": 365})
        thr = {"scheduler": "threads"}
        rows.append(_ratio_row(
            f"xr dask month meanstd {label}",
            *t(lambda: dask.compute(*lazy.nr.groupby("time.month").meanstd(), **thr),
               lambda: dask.compute(lazy.groupby("time.month").mean(),
                                    lazy.groupby("time.month").std(), **thr)),
            2.0, "faster"))
    n = 10**6 if quick else 10**7
    df = pd.DataFrame({"k": rng.integers(0, 10**4, n),
                       **{c: rng.standard_normal(n) for c in "abcd"}})
    rows.append(_ratio_row(
        f"pd groupby meanvar {n:.0e}/1e4 x4",
        *t(lambda: df.nr.groupby("k").meanvar(), lambda: df.groupby("k").agg(["mean", "var"])),
        5.0, "faster"))
    rows.append(_ratio_row(
        f"pd groupby minmax {n:.0e}/1e4 x4",
        *t(lambda: df.nr.groupby("k").minmax(), lambda: df.groupby("k").agg(["min", "max"])),
        5.0, "faster"))
    # describe: the statistics one pass gives (quantiles are not one-pass)
    stats = ["count", "mean", "std", "min", "max", "skew", "kurt"]
    rows.append(_ratio_row(
        f"pd groupby describe {n:.0e}/1e4 x4 vs agg(7 stats)",
        *t(lambda: df.nr.groupby("k").describe(), lambda: df.groupby("k").agg(stats)),
        5.0, "faster"))
    m = n // 10
    wide = pd.DataFrame(rng.standard_normal((m, 8)), columns=list("abcdefgh"))
    rows.append(_ratio_row(
        f"pd describe {m:.0e}x8 vs agg(7 stats)",
        *t(lambda: wide.nr.describe(), lambda: wide.agg(stats)), 5.0, "faster"))
    return rows


def summary_rows(rows, t, rng, big, side):
    """describe, skew and kurtosis (one pass of the summary ufunc) against
    scipy.stats' functions, which walk the data once per statistic with
    temporaries, and describe against meanvar (the cost of the third and
    fourth moments and the extremes in the same pass)."""
    import numreduce as nr

    try:
        import scipy.stats as sps
    except ImportError:  # pragma: no cover
        print("(describe rows skipped: scipy is not installed)")
        return
    x = rng.standard_normal(big)
    rows.append(_ratio_row(f"describe f64 {big:.0e} vs scipy.stats.describe",
                           *t(lambda: nr.describe(x), lambda: sps.describe(x)), 20.0, "faster"))
    for name, fn, ref in (("skew", nr.skew, sps.skew), ("kurtosis", nr.kurtosis, sps.kurtosis)):
        rows.append(_ratio_row(f"{name} f64 {big:.0e} vs scipy.stats.{name}",
                               *t(lambda: fn(x), lambda: ref(x)), 10.0, "faster"))
    X = rng.standard_normal((side, side * 5 // 8))
    rows.append(_ratio_row(f"describe f64 {side}x{side * 5 // 8} axis=0 vs scipy",
                           *t(lambda: nr.describe(X, axis=0), lambda: sps.describe(X, axis=0)),
                           20.0, "faster"))
    rows.append(_ratio_row(f"describe f64 {big:.0e} vs meanvar (time)",
                           *t(lambda: nr.describe(x), lambda: nr.meanvar(x)), 2.0, "at_most"))


def multisource_rows(rows, t, rng, big, side):
    """Reductions of several arrays and of a mapped array against what users
    write today: np.average twice, np.cov, np.corrcoef, scipy.stats.pearsonr,
    scipy.special.logsumexp(b=), np.dot (one BLAS thread), np.square(X).sum(0)
    and einsum, temporaries then a reduction."""
    import numreduce as nr

    x = rng.standard_normal(big)
    y = 0.5 * x + rng.standard_normal(big)
    w = rng.random(big)

    def weighted():
        m = np.average(x, weights=w)
        return m, np.average((x - m) ** 2, weights=w)

    rows.append(_ratio_row(f"meanvar f64 {big:.0e} weights= vs np.average x2",
                           *t(lambda: nr.meanvar(x, weights=w), weighted), 4.0, "faster"))
    rows.append(_ratio_row(f"covariance f64 {big:.0e} vs np.cov",
                           *t(lambda: nr.covariance(x, y), lambda: np.cov(x, y)), 4.0, "faster"))
    rows.append(_ratio_row(f"correlation f64 {big:.0e} vs np.corrcoef",
                           *t(lambda: nr.correlation(x, y), lambda: np.corrcoef(x, y)), 4.0,
                           "faster"))
    try:
        from scipy.special import logsumexp as sp_lse
        from scipy.stats import pearsonr
    except ImportError:  # pragma: no cover
        sp_lse = pearsonr = None
    if pearsonr is not None:
        rows.append(_ratio_row(f"correlation f64 {big:.0e} vs pearsonr",
                               *t(lambda: nr.correlation(x, y), lambda: pearsonr(x, y)), 5.0,
                               "faster"))
        rows.append(_ratio_row(f"logsumexp f64 {big:.0e} b= vs SciPy",
                               *t(lambda: nr.logsumexp(x, b=w), lambda: sp_lse(x, b=w)), 5.0,
                               "faster"))
    try:
        from threadpoolctl import threadpool_limits
    except ImportError:  # pragma: no cover
        threadpool_limits = None
    if threadpool_limits is not None:
        with threadpool_limits(limits=1, user_api="blas"):
            rows.append(_ratio_row(f"sumprod f64 {big:.0e} vs np.dot (1 BLAS thread)",
                                   *t(lambda: nr.sumprod(x, y), lambda: np.dot(x, y)), 2.0,
                                   "at_most"))
    X = rng.standard_normal((side, side))
    t_nr, t_sq, t_es = t(lambda: nr.mapreduce(np.square, nr.fsum, X, axis=0),
                         lambda: np.square(X).sum(0), lambda: np.einsum("ij,ij->j", X, X))
    rows.append(_ratio_row(f"mapreduce square,fsum {side}^2 axis=0 vs square.sum", t_nr, t_sq,
                           1.3, "faster"))
    rows.append(_ratio_row(f"mapreduce square,fsum {side}^2 axis=0 vs einsum", t_nr, t_es, 1.0,
                           "faster"))
    rows.append(_ratio_row(f"mapreduce subtract,minmax {big:.0e} vs minmax(x - y)",
                           *t(lambda: nr.mapreduce(np.subtract, nr.minmax, x, y),
                              lambda: nr.minmax(x - y)), 1.2, "faster"))
    rows.append(_ratio_row(f"mapreduce abs,meanvar {big:.0e} vs mean,var of abs",
                           *t(lambda: nr.mapreduce(np.abs, nr.meanvar, x),
                              lambda: (np.mean(np.abs(x)), np.var(np.abs(x)))), 3.0, "faster"))


def logcumsumexp_reference(a, chunk=1000):
    """log(cumsum(exp(a))) of float64 data, accurate to about 1e-19 relative
    to the sum: exp in long double, split exactly into two float64 parts;
    the sums of whole chunks by math.fsum (correctly rounded), within a
    chunk a long double cumulative sum of at most ``chunk`` terms.  Returns
    long double (where long double is wider than float64)."""
    import math

    ld = np.longdouble
    top = np.max(a)
    e = np.exp(a.astype(ld) - ld(top))
    hi = e.astype(np.float64)
    lo = (e - hi.astype(ld)).astype(np.float64)
    n = a.size
    bounds = np.empty(-(-n // chunk) + 1, dtype=ld)
    bounds[0] = 0
    done = []  # the exact partial sums of whole chunks, as fsum inputs
    for k, s in enumerate(range(0, n, chunk)):
        done.extend((math.fsum(hi[s:s + chunk]), math.fsum(lo[s:s + chunk])))
        bounds[k + 1] = ld(math.fsum(done))
    within = np.empty(n, dtype=ld)
    for k, s in enumerate(range(0, n, chunk)):
        within[s:s + chunk] = bounds[k] + np.cumsum(e[s:s + chunk])
    return ld(top) + np.log(within)


def max_rel_error(got, ref) -> float:
    finite = np.isfinite(ref) & (ref != 0)
    d = np.abs(got.astype(ref.dtype)[finite] - ref[finite]) / np.abs(ref[finite])
    return float(np.max(d)) if d.size else 0.0


def _logcumsumexp_row(nr, a, big, t):
    """Faster than np.logaddexp.accumulate, and no less accurate (max
    relative error against logcumsumexp_reference)."""
    t_nr, t_ref = t(lambda: nr.logcumsumexp(a), lambda: np.logaddexp.accumulate(a))
    ref = logcumsumexp_reference(a)
    e_nr = max_rel_error(nr.logcumsumexp(a), ref)
    e_np = max_rel_error(np.logaddexp.accumulate(a), ref)
    ok = t_ref / t_nr > 1.0 and e_nr <= e_np
    return (f"logcumsumexp {big:.0e} err {e_nr:.1e}/{e_np:.1e}", t_nr, t_ref, t_ref / t_nr,
            "faster, err <= np's", "ok" if ok else "MISS")


TARGET_HEAD = (f"{'case':<38} {'numreduce':>11} {'reference':>11} {'measured':>16}  "
               f"{'target':<22} status")


def target_line(row) -> str:
    """A row of the targets table; its measured ratio says its direction, as
    its target does: `2.10x faster` (reference time / numreduce's, higher is
    better) or `1.02x the time` (numreduce's time / the reference's, lower is
    better)."""
    label, t_nr, t_ref, value, goal, status = row
    measured = f"{value:.2f}x " + ("the time" if goal.endswith("the time") else "faster")
    return (f"{label:<38} {_fmt_time(t_nr):>11} {_fmt_time(t_ref):>11} {measured:>16}"
            f"  {goal:<22} {status}")


def target_table(rows) -> str:
    return "\n".join([TARGET_HEAD, "-" * len(TARGET_HEAD)] + [target_line(r) for r in rows])


def run_header(command: str, note: str = "") -> dict:
    """What a stored run says of itself: the command, the date, the CPU, a
    note and the configuration it ran with."""
    import datetime

    from ._config import config

    cpu = ""
    try:
        with open("/proc/cpuinfo", encoding="utf-8") as f:
            cpu = next((line.split(":", 1)[1].strip() for line in f
                        if line.startswith("model name")), "")
    except OSError:
        pass
    return {
        "command": command,
        "date": datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%d %H:%M UTC"),
        "cpu": cpu,
        "note": note,
        "config": {k: (v if isinstance(v, (str, int, float, bool)) else str(v))
                   for k, v in config().items()},
    }


def save_rows(rows, path: str, *, quick: bool, note: str = "") -> None:
    """Store a targets run as JSON (what the docs site plots: docs/_data/):
    the configuration it ran with, the date, and every row."""
    import json

    doc = run_header("python -m numreduce bench" + (" --quick" if quick else ""), note)
    doc["rows"] = [dict(zip(("case", "t_numreduce", "t_reference", "ratio", "target", "status"),
                            row)) for row in rows]
    with open(path, "w", encoding="utf-8") as f:
        json.dump(doc, f, indent=1)
        f.write("\n")


def load_rows(path: str):
    """The rows of a run stored by save_rows, as target_rows gives them,
    and the stored document."""
    import json

    with open(path, encoding="utf-8") as f:
        doc = json.load(f)
    keys = ("case", "t_numreduce", "t_reference", "ratio", "target", "status")
    return [tuple(r[k] for k in keys) for r in doc["rows"]], doc


def target_direction(target: str):
    """A target string -> (kind, value): ``'>= 1.90x faster'`` ->
    ``('faster', 1.9)`` (a speed-up: higher is better), ``'<= 1.05x the
    time'`` -> ``('time', 1.05)`` (a time relative to the reference: lower
    is better); a target without a number (``'faster, err <= np's'``) is
    ``('faster', 1.0)``."""
    import re

    m = re.match(r"([<>]=) ([\d.]+)x (faster|the time)", target)
    if m:
        return ("faster" if m[3] == "faster" else "time"), float(m[2])
    return "faster", 1.0


_MET, _MISSED = "#2a7d2a", "#c03030"


def _plot_panel(ax, rows, labels, kind, legend="lower right"):
    """Bars of the rows' ratios, a dashed line at 1.0, a diamond at each
    row's target and the value beside each bar; green where the target is
    met, red where it is missed."""
    from matplotlib.patches import Patch

    values = [r[3] for r in rows]
    targets = [target_direction(r[4])[1] for r in rows]
    y = list(range(len(rows)))
    ax.barh(y, values, color=[_MET if r[5] == "ok" else _MISSED for r in rows], height=0.7)
    ax.set_yticks(y, labels, fontsize=8)
    ax.invert_yaxis()
    ax.axvline(1.0, color="black", linewidth=1.2, linestyle="--")
    marks = ax.scatter(targets, y, marker="D", s=14, color="black", zorder=3, label="target")
    top = max(values + targets)
    for k, (v, t) in enumerate(zip(values, targets)):
        ax.text(max(v, t) + top * 0.015, k, f"{v:.2f}x", va="center", fontsize=7.5)
    ax.set_xlim(0, top * 1.12)
    if kind == "faster":
        ax.set_xlabel("speed-up over the reference call (higher is better; "
                      "dashed: 1.0, same speed)", fontsize=8.5)
    else:
        ax.set_xlabel("time relative to the reference call (lower is better; "
                      "dashed: 1.0, same time)", fontsize=8.5)
    ax.tick_params(axis="x", labelsize=8)
    ax.grid(axis="x", alpha=0.3)
    handles = [Patch(color=_MET, label="target met"), Patch(color=_MISSED, label="target missed"),
               marks]
    if legend == "above":
        ax.legend(handles=handles, fontsize=7.5, loc="lower center", ncol=3,
                  bbox_to_anchor=(0.5, 1.0), frameon=False)
    else:
        ax.legend(handles=handles, fontsize=7.5, loc=legend)


def plot_rows(rows, path: str, kind=None, labels=None, legend=None) -> bool:
    """Plot the rows' ratios (needs matplotlib); False if unavailable.

    ``kind=None``: two panels in one figure, the speed-ups (targets
    ``'... faster'``, higher is better) above the times relative to the
    reference (targets ``'... the time'``, lower is better), so that the two
    directions never share an axis.  ``kind='faster'`` or ``'time'``: that
    panel alone, of the rows given (``labels``: one per row, default the
    case names).  Each panel has a dashed line at 1.0, the targets and the
    values (the docs site draws its plots with this function,
    docs/_benchdocs.py)."""
    try:
        import matplotlib

        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:
        return False
    labels = list(labels) if labels is not None else [r[0] for r in rows]
    if kind is None:
        panels = []
        for k in ("faster", "time"):
            sel = [i for i, r in enumerate(rows) if target_direction(r[4])[0] == k]
            if sel:
                panels.append((k, [rows[i] for i in sel], [labels[i] for i in sel]))
    else:
        panels = [(kind, list(rows), labels)]
    heights = [0.2 * len(p[1]) + 1.0 for p in panels]
    width = 7.6 if kind is not None else 9.0
    fig, axes = plt.subplots(len(panels), 1, figsize=(width, sum(heights)), dpi=110,
                             gridspec_kw={"height_ratios": heights}, squeeze=False)
    for ax, (k, prow, plab) in zip(axes[:, 0], panels):
        # the legend where the bars leave room: the long speed-ups end at the
        # bottom, the times (mostly <= 1) leave the upper right free
        _plot_panel(ax, prow, plab, k, legend or ("lower right" if k == "faster" else "upper right"))
    fig.tight_layout()
    fig.savefig(path)
    plt.close(fig)
    return True


# ---------------------------------------------------------------------------
# Dask (issue 12): rows shown when dask is importable
# ---------------------------------------------------------------------------

def _var_error(v, ref) -> float:
    return float(abs(np.longdouble(v) - ref) / ref)


def _readers(results, source):
    """The most tasks of the graph of ``results`` that read one chunk of the
    Dask array ``source`` (1: each chunk is loaded once)."""
    from dask.core import flatten, get_dependencies

    graph = {}
    for r in results:
        graph.update(dict(r.__dask_graph__()))
    chunks = set(flatten(source.__dask_keys__()))
    count = dict.fromkeys(chunks, 0)
    for key in graph:
        for dep in get_dependencies(graph, key):
            if dep in count:
                count[dep] += 1
    return max(count.values())


def _xarray_describe_row(rows, t, x, label, thr):
    """xarray on Dask: ``da.nr.describe("time")`` (one tree reduction of
    the summary) against xarray's min, max, mean and std computed together
    with ``dask.compute``; the label says how many tasks read each chunk."""
    try:
        import dask
        import xarray as xr
    except ImportError as e:
        print(f"(xarray describe row skipped: {e})")
        return
    import numreduce.xarray  # noqa: F401

    xa = xr.DataArray(x, dims="time", name="v")

    def ref():
        return (xa.min(), xa.max(), xa.mean(), xa.std())

    reads = _readers([xa.nr.describe("time")[v].data for v in ("min", "mean", "kurtosis")], x)
    rows.append(_ratio_row(
        f"xr dask describe {label} vs min,max,mean,std (chunks read by {reads} task"
        f"{'' if reads == 1 else 's'}{' ok' if reads == 1 else ' MISS'})",
        *t(lambda: xa.nr.describe("time").compute(**thr),
           lambda: dask.compute(*ref(), **thr)), 3.0, "faster"))


def dask_rows(rows, kw, quick: bool = False, n=None, distributed=True):
    """The Dask rows of issue 12: float32 data in 100 chunks (1e8 values,
    1e6 with ``quick``), threaded scheduler; minmax on a 2-worker
    ``dask.distributed`` LocalCluster (data persisted on the workers first;
    not with ``quick``).
    Skipped, with the reason printed, where dask is not importable."""
    try:
        import dask
        import dask.array as da
    except ImportError as e:
        print(f"(dask rows skipped: dask is not installed: {e})")
        return rows
    import numreduce as nr

    n = n or (10**6 if quick else 10**8)
    rng = np.random.default_rng(12)
    a = (rng.standard_normal(n, dtype=np.float32) * 3 + 100).astype(np.float32)
    x = da.from_array(a, chunks=n // 100)
    t = lambda *fns: best_times(*fns, **kw)  # noqa: E731
    thr = {"scheduler": "threads"}
    label = f"{n:.0e}/100"  # float32 values / chunks
    rows.append(_ratio_row(f"dask minmax {label} vs min,max",
                           *t(lambda: dask.compute(*nr.minmax(x), **thr),
                              lambda: dask.compute(x.min(), x.max(), **thr)), 1.6, "faster"))
    rows.append(_ratio_row(f"dask meanvar {label} vs mean,var",
                           *t(lambda: dask.compute(*nr.meanvar(x), **thr),
                              lambda: dask.compute(x.mean(), x.var(), **thr)), 3.0, "faster"))
    al = a.astype(np.longdouble)
    ref = np.mean((al - np.mean(al)) ** 2)
    # float64 results (dtype=), so that the accumulation error shows, not
    # the float32 rounding of the result
    e_nr = _var_error(dask.compute(*nr.meanvar(x, dtype=np.float64), **thr)[1], ref)
    e_da = _var_error(dask.compute(x.var(dtype=np.float64), **thr)[0], ref)
    print(f"(dask meanvar {label}, float64 results: variance error vs long double two-pass: numreduce "
          f"{e_nr:.1e}, dask {e_da:.1e}: {'ok' if e_nr <= e_da else 'MISS'})")
    del al

    def lse_two_pass():
        m = x.max()
        return (da.log(da.exp(x - m).sum()) + m).compute(**thr)

    # The bound of this row: numreduce's graph takes at least the longest
    # of a graph of its shape that does no work (Dask's cost per task: one
    # task per chunk, a tree of merges), one pass of the kernel over the
    # same data in memory on the same threads, and the CPU time of both
    # spread over the cores (the scheduler's thread and the workers share
    # them: on 2 cores the no-work graph's 22 ms of CPU and the pass's 85
    # need 54 ms); the reference's time over that is the most any one-pass
    # graph can gain.  The target is 80% of the bound measured in the same
    # run (at most 3x).
    def noop_chunk(b, axis, keepdims):
        return np.zeros((1,), dtype=np.float64)

    def noop_merge(b, axis, keepdims):
        return np.zeros((1,), dtype=np.float64) if keepdims else np.float64(0)

    noop = da.reduction(x, noop_chunk, noop_merge, combine=noop_merge, dtype=np.float64,
                        concatenate=False, split_every=10)
    t_nr, t_ref, t_noop = t(lambda: nr.logsumexp(x).compute(**thr), lse_two_pass,
                            lambda: noop.compute(**thr))
    # one pass in memory on as many threads as the threaded scheduler runs
    # (its pool: the usable cores), whatever this run's setting
    workers = len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else os.cpu_count()
    workers = workers or 1
    previous = nr.set_num_threads(workers)
    try:
        t_pass = t(lambda: nr.logsumexp(a))[0]
        cpu_pass = _cpu_time(lambda: nr.logsumexp(a))
    finally:
        nr.set_num_threads(previous)
    cpu_noop = _cpu_time(lambda: noop.compute(**thr))
    t_cores = (cpu_noop + cpu_pass) / workers
    bound = t_ref / max(t_noop, t_pass, t_cores)
    print(f"(dask logsumexp {label} bound: a no-work graph of its shape {_fmt_time(t_noop)} "
          f"(CPU {_fmt_time(cpu_noop)}), one pass in memory on {workers} threads "
          f"{_fmt_time(t_pass)} (CPU {_fmt_time(cpu_pass)}), both on {workers} cores "
          f"{_fmt_time(t_cores)}, the 2-pass reference {_fmt_time(t_ref)}: at most "
          f"{bound:.2f}x faster)")
    rows.append(_ratio_row(f"dask logsumexp {label} vs 2-pass", t_nr, t_ref,
                           round(min(3.0, 0.8 * bound), 2), "faster"))
    _xarray_describe_row(rows, t, x, label, thr)
    if not distributed or quick:
        print("(dask.distributed row skipped" + (" in --quick: a cluster takes seconds to "
                                                 "start)" if quick else ")"))
        return rows
    try:
        from distributed import Client, LocalCluster, wait
    except ImportError as e:
        print(f"(dask.distributed row skipped: distributed is not installed: {e})")
        return rows
    # ":0": a free port for the scheduler's HTTP server (None still binds 8787,
    # which a running dashboard may hold)
    with LocalCluster(n_workers=2, threads_per_worker=1, processes=True,
                      dashboard_address=":0", silence_logs=40) as cluster, \
            Client(cluster) as client:
        y = da.random.default_rng(12).standard_normal(n, chunks=n // 100, dtype=np.float32)
        y = client.persist(y)
        wait(y)
        rows.append(_ratio_row(f"dist. minmax {label} vs min,max",
                               *t(lambda: client.compute(list(nr.minmax(y)), sync=True),
                                  lambda: client.compute([y.min(), y.max()], sync=True)),
                               1.5, "faster"))
    return rows
