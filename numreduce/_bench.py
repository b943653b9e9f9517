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


def family_table(quick: bool = False) -> str:
    n = 10**6 if quick else 10**7
    kw = {"min_total": 0.05, "repeats": 3} if quick else {"min_total": 0.2, "repeats": 5}
    head = f"{'case':<32} {'numreduce':>11} {'reference':>11} {'ratio':>7}  reference call"
    lines = [head, "-" * len(head)]
    for label, nr_call, ref_call, ref_name in family_cases(n, quick):
        t_nr = best_time(nr_call, **kw)
        t_ref = best_time(ref_call, **kw)
        lines.append(f"{label:<32} {_fmt_time(t_nr):>11} {_fmt_time(t_ref):>11} "
                     f"{t_ref / t_nr:>6.2f}x  {ref_name}")
    return "\n".join(lines)


def accuracy_table() -> str:
    """Relative errors against exact references (fractions / math.fsum)."""
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
    # logsumexp vs math.fsum reference
    y = rng.standard_normal(100000) * 30
    mx = float(np.max(y))
    ref = mx + math.log(math.fsum(math.exp(float(v) - mx) for v in y))
    try:
        from scipy.special import logsumexp as sp_lse
        sp_err = f"{abs(float(sp_lse(y)) - ref) / abs(ref):>15.1e}"
    except ImportError:  # pragma: no cover
        sp_err = f"{'n/a':>15}"
    lines.append(f"{'logsumexp, 30*N(0,1), n=1e5 (ref: math.fsum)':<44} "
                 f"{abs(float(logsumexp(y)) - ref) / abs(ref):>10.1e} {sp_err}  scipy")
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


def bench_all(quick: bool = False) -> None:
    main(quick=quick)
    print("\nThe family: one pass vs the calls users write today (ratio > 1: numreduce faster)\n")
    print(family_table(quick=quick))
    print("\nAccuracy: relative error against exact references\n")
    print(accuracy_table())
