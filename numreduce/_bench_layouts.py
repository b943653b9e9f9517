"""``python -m numreduce bench --layouts``: every user function over ten
common memory layouts, float64 and float32, one thread, against the call it
replaces.  Same-run ratios (the reference's time over numreduce's, min of
repeats, the contenders' batches interleaved: ``_bench.best_times``).  A
measurement tool, never a test.

The layouts (about ``n`` = 1e7 elements each, 1e5 with ``--quick``):

* ``1-D``: a contiguous vector, ``axis=None``;
* ``C axis 0`` / ``C axis 1``: a C-ordered (4000, 2500) matrix;
* ``F axis 0`` / ``F axis 1``: the same matrix F-ordered (what pandas'
  ``df.to_numpy()`` often gives);
* ``3-D axis 1``: a C-ordered (200, 200, 250) block along its middle axis;
* ``3-D axes (0, 2)``: the same block over an axis pair (not for argminmax
  and nanargminmax: NumPy's argmin takes one axis, as they do);
* ``strided``: every other element of a 2n vector, ``x[::2]``;
* ``wide axis 0``: a (100, n / 100) matrix along its short axis (many short
  columns);
* ``tall axis 1``: a (n / 100, 100) matrix along its short axis (many short
  rows).

The nan-functions get the same data with every 97th element NaN.
"""

from __future__ import annotations

import math

import numpy as np

from ._bench import _fmt_time, best_times

__all__ = ["LAYOUT_HEAD", "LAYOUTS", "NAMES", "TARGETS", "layout_line", "layout_rows",
           "layout_summary"]

NAMES = ["minmax", "nanminmax", "argminmax", "nanargminmax", "meanvar", "meanstd",
         "nanmeanvar", "logsumexp", "fsum"]

# The target of every cell: the reference's time over numreduce's.  The
# moments and argminmax as the layouts issue set them; minmax, nanminmax and
# nanargminmax replace two passes by one as argminmax does (the main bench
# asks 1.8x-1.9x of their contiguous rows, where one pass over memory is
# the whole cost); fsum, a compensated sum, at most 1.5x np.sum's time.
TARGETS = {"minmax": 1.5, "nanminmax": 1.5, "argminmax": 1.5, "nanargminmax": 1.5,
           "meanvar": 1.5, "meanstd": 1.5, "nanmeanvar": 1.5, "logsumexp": 3.0,
           "fsum": 0.67}

REFERENCE = {"minmax": "np.min+np.max", "nanminmax": "np.nanmin+np.nanmax",
             "argminmax": "np.argmin+np.argmax", "nanargminmax": "np.nanargmin+np.nanargmax",
             "meanvar": "np.mean+np.var", "meanstd": "np.mean+np.std",
             "nanmeanvar": "np.nanmean+np.nanvar", "logsumexp": "scipy logsumexp",
             "fsum": "np.sum"}

LAYOUTS = ["1-D", "C axis 0", "C axis 1", "F axis 0", "F axis 1", "3-D axis 1",
           "3-D axes (0, 2)", "strided", "wide axis 0", "tall axis 1"]

_ONE_AXIS = ("argminmax", "nanargminmax")  # no axis pair (nor has NumPy's argmin)


def _shapes(n: int):
    """The shapes of the layouts for about n elements: (4000, 2500),
    (200, 200, 250), (100, 100000) and (100000, 100) at n = 1e7."""
    rows = max(1, round(math.sqrt(n * 1.6)))
    side = max(1, round((n / 1.25) ** (1 / 3)))
    return {"2-D": (rows, max(1, n // rows)), "3-D": (side, side, max(1, n // (side * side))),
            "wide": (100, max(1, n // 100)), "tall": (max(1, n // 100), 100)}


def layouts(n: int, dtype, rng):
    """[(layout, shape text, array, axis)] of one dtype: each array built
    when its layout is reached (so that one or two live at a time)."""
    dt = np.dtype(dtype)
    s = _shapes(n)

    def normal(shape):
        return rng.standard_normal(shape).astype(dt)

    def c2():
        return normal(s["2-D"])

    yield "1-D", f"({n},)", normal(n), None
    m = c2()
    yield "C axis 0", str(s["2-D"]), m, 0
    yield "C axis 1", str(s["2-D"]), m, 1
    f = np.asfortranarray(m)
    del m
    yield "F axis 0", f"{s['2-D']} F", f, 0
    yield "F axis 1", f"{s['2-D']} F", f, 1
    del f
    b = normal(s["3-D"])
    yield "3-D axis 1", str(s["3-D"]), b, 1
    yield "3-D axes (0, 2)", str(s["3-D"]), b, (0, 2)
    del b
    yield "strided", f"({2 * n},)[::2]", normal(2 * n)[::2], None
    yield "wide axis 0", str(s["wide"]), normal(s["wide"]), 0
    yield "tall axis 1", str(s["tall"]), normal(s["tall"]), 1


def _with_nans(a):
    """A copy of `a` with every 97th element (in memory order) NaN."""
    b = a.copy(order="A")  # contiguous, F-ordered where `a` is
    b.reshape(-1, order="A")[::97] = np.nan  # a view: b is contiguous
    return b


def _calls(name, a, axis, sp_lse):
    """(numreduce call, reference call) of one cell; the reference is None
    where it is not installed (SciPy for logsumexp)."""
    import numreduce as nr

    f = getattr(nr, name)
    kw = {} if axis is None else {"axis": axis}
    ours = lambda: f(a, **kw)  # noqa: E731
    two = {"minmax": (np.min, np.max), "nanminmax": (np.nanmin, np.nanmax),
           "argminmax": (np.argmin, np.argmax), "nanargminmax": (np.nanargmin, np.nanargmax),
           "meanvar": (np.mean, np.var), "meanstd": (np.mean, np.std),
           "nanmeanvar": (np.nanmean, np.nanvar)}
    if name in two:
        g, h = two[name]
        return ours, lambda: (g(a, **kw), h(a, **kw))
    if name == "logsumexp":
        return ours, (None if sp_lse is None else lambda: sp_lse(a, **kw))
    if name == "fsum":
        return ours, lambda: np.sum(a, **kw)
    raise ValueError(name)


def layout_rows(quick: bool = False, n: int | None = None, names=None, on_row=None,
                timing: dict | None = None):
    """Rows (layout, shape text, function, reference, {dtype: (t_numreduce,
    t_reference, ratio)}, target) of every cell, float64 and float32, at
    one thread (restored after); ``on_row`` is called with each row (both
    dtypes of a function and layout) as soon as it is measured.  A cell
    whose reference is not installed (SciPy) has no row.  ``n``: elements
    per layout (default 1e7, 1e5 with ``quick``); ``timing``: best_times'
    min_total and repeats, in place of the defaults."""
    import numreduce as nr

    try:
        from scipy.special import logsumexp as sp_lse
    except ImportError:  # pragma: no cover - scipy is optional
        sp_lse = None
    n = n if n is not None else (10**5 if quick else 10**7)
    names = list(NAMES if names is None else names)
    kw = {"min_total": 0.02, "repeats": 3} if quick else {"min_total": 0.2, "repeats": 5}
    kw.update(timing or {})
    dtypes = ("float64", "float32")
    rows = []
    previous = nr.set_num_threads(1)
    try:
        # both dtypes of a layout side by side: one generator per dtype
        gens = [layouts(n, dt, np.random.default_rng(27)) for dt in dtypes]
        for cases in zip(*gens):
            layout, shape = cases[0][0], cases[0][1]
            nan_data = [None] * len(dtypes)
            for name in names:
                if name in _ONE_AXIS and isinstance(cases[0][3], tuple):
                    continue
                cells = {}
                for k, (dt, (_, _, a, axis)) in enumerate(zip(dtypes, cases)):
                    if name.startswith("nan"):
                        if nan_data[k] is None:
                            nan_data[k] = _with_nans(a)
                        a = nan_data[k]
                    ours, ref = _calls(name, a, axis, sp_lse)
                    if ref is None:
                        break
                    t_nr, t_ref = best_times(ours, ref, **kw)
                    cells[dt] = (t_nr, t_ref, t_ref / t_nr)
                if len(cells) < len(dtypes):
                    continue
                row = (layout, shape, name, REFERENCE[name], cells, TARGETS[name])
                rows.append(row)
                if on_row is not None:
                    on_row(row)
    finally:
        nr.set_num_threads(previous)
    return rows


def cell_ok(ratio: float, target: float) -> bool:
    return ratio >= target


LAYOUT_HEAD = (f"{'layout':<16} {'shape':<24} {'function':<13} {'reference':<24} "
               f"{'f8 ratio':>13} {'f4 ratio':>13}  target")


def layout_line(row) -> str:
    """One row: both dtypes' ratios, each with ok or MISS."""
    layout, shape, name, ref, cells, target = row

    def cell(dt):
        r = cells[dt][2]
        return f"{r:6.2f}x {'ok' if cell_ok(r, target) else 'MISS':<4}"

    return (f"{layout:<16} {shape:<24} {name:<13} {ref:<24} {cell('float64'):>13} "
            f"{cell('float32'):>13}  >= {target:.2f}x")


def layout_summary(rows) -> list[str]:
    """'N of M cells meet their targets' and the misses, worst first."""
    cells = [(c[2] / row[5], row, dt, c[2]) for row in rows for dt, c in row[4].items()]
    met = sum(cell_ok(r, row[5]) for _, row, _, r in cells)
    out = [f"{met} of {len(cells)} cells meet their targets"]
    misses = sorted((c for c in cells if not cell_ok(c[3], c[1][5])), key=lambda c: c[0])
    for _, row, dt, r in misses:
        out.append(f"  MISS {row[2]} {'f8' if dt == 'float64' else 'f4'} {row[0]} "
                   f"{row[1]}: {r:.2f}x (target >= {row[5]:.2f}x, numreduce "
                   f"{_fmt_time(row[4][dt][0]).strip()}, {row[3]} "
                   f"{_fmt_time(row[4][dt][1]).strip()})")
    return out


def save_layout_rows(rows, path: str, *, quick: bool, note: str = "") -> None:
    """Store a layouts run as JSON (docs/_data/bench-layouts.json: the docs
    build makes the layouts table of the benchmarks page from it)."""
    import json

    from ._bench import run_header

    doc = run_header("python -m numreduce bench --layouts" + (" --quick" if quick else ""),
                     note)
    doc["config"]["threads"] = 1  # the sweep's setting (restored before the run is stored)
    doc["rows"] = [{"layout": layout, "shape": shape, "function": name, "reference": ref,
                    "target": target,
                    "cells": {dt: {"t_numreduce": c[0], "t_reference": c[1], "ratio": c[2]}
                              for dt, c in cells.items()}}
                   for layout, shape, name, ref, cells, target in rows]
    with open(path, "w", encoding="utf-8") as f:
        json.dump(doc, f, indent=1)
        f.write("\n")
