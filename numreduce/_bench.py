"""Side-by-side benchmarks: numreduce against the NumPy calls users write today.

Every row times both contenders in the same process run, interleaved, and
reports the minimum over repeats (the least-disturbed run).  Ratios > 1 mean
numreduce is faster.  This is a measurement tool, never a test.
"""

from __future__ import annotations

import time
from collections.abc import Callable

import numpy as np

from . import minmax


def best_time(fn: Callable[[], object], *, min_total: float = 0.05, repeats: int = 7) -> float:
    """Seconds per call: the minimum over `repeats` batches of calls."""
    fn()  # warm-up (page faults, lazy imports)
    number = 1
    while True:
        t0 = time.perf_counter()
        for _ in range(number):
            fn()
        dt = time.perf_counter() - t0
        if dt >= min_total / repeats or number >= 1 << 20:
            break
        number *= 4
    best = dt / number
    for _ in range(repeats - 1):
        t0 = time.perf_counter()
        for _ in range(number):
            fn()
        best = min(best, (time.perf_counter() - t0) / number)
    return best


def _data(dtype, n: int, rng) -> np.ndarray:
    dt = np.dtype(dtype)
    if dt.kind == "f":
        return rng.standard_normal(n).astype(dt)
    info = np.iinfo(dt)
    return rng.integers(info.min, info.max, size=n, dtype=dt, endpoint=True)


def minmax_rows(sizes=(10**3, 10**5, 10**7), dtypes=("float32", "float64", "int32", "int64"),
                quick: bool = False):
    """Rows of (dtype, n, t_numreduce, t_min_plus_max, t_max_alone)."""
    rng = np.random.default_rng(0)
    rows = []
    for dtype in dtypes:
        for n in sizes:
            a = _data(dtype, n, rng)
            kw = {"min_total": 0.02, "repeats": 3} if quick else {}
            t_nr = best_time(lambda: minmax(a), **kw)
            t_two = best_time(lambda: (np.min(a), np.max(a)), **kw)
            t_max = best_time(lambda: np.max(a), **kw)
            rows.append((dtype, n, t_nr, t_two, t_max))
    return rows


def _fmt_time(t: float) -> str:
    for unit, scale in (("s", 1.0), ("ms", 1e-3), ("us", 1e-6), ("ns", 1e-9)):
        if t >= scale:
            return f"{t / scale:7.2f} {unit}"
    return f"{t / 1e-9:7.2f} ns"


def minmax_table(rows) -> str:
    head = (f"{'dtype':>8} {'n':>9} {'nr.minmax':>11} {'np.min+np.max':>14} {'np.max':>11}"
            f" {'speedup vs min+max':>19} {'time / np.max':>14}")
    lines = [head, "-" * len(head)]
    for dtype, n, t_nr, t_two, t_max in rows:
        lines.append(
            f"{dtype:>8} {n:>9.0e} {_fmt_time(t_nr):>11} {_fmt_time(t_two):>14} "
            f"{_fmt_time(t_max):>11} {t_two / t_nr:>18.2f}x {t_nr / t_max:>13.2f}x"
        )
    return "\n".join(lines)


def main(quick: bool = False) -> None:
    print("minmax: numreduce.minmax(a) vs (np.min(a), np.max(a)) and np.max(a) alone")
    print("(1-D contiguous; min of repeats; speedup > 1 means numreduce is faster)\n")
    print(minmax_table(minmax_rows(quick=quick)))


if __name__ == "__main__":
    main()
