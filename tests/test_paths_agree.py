"""Every internal path of ``numreduce.reduce`` gives the same answer.

One 2-D array ``X`` (rows x columns, each column its own stream, with the
special values NaN, +-inf, +-1e308, -0.0, subnormals, NaT and the integer
extremes) is reduced over its rows through every path the engine has:

- ``1-D``: each column alone, contiguous (``_reduce_all``);
- ``rows``: ``X`` C-ordered, ``axis=0`` (column tiles / ``_reduce_rows``);
- ``trailing``: ``X.T`` C-ordered, ``axis=1`` (``_reduce_trailing``);
- ``F order``, ``strided columns`` (``[:, ::2]``), ``strided rows``
  (``[::2]``), ``byte-swapped``: the general ``NpyIter`` path with the
  stream contiguous, gathered, or per-element accumulators;
- ``iter out=`` and ``iter where=``: the ``NpyIter`` path forced by an
  ``out`` tuple or an all-True ``where`` (only for reductions with
  initials: NumPy needs an ``initial`` for ``where`` otherwise);
- threads (the ``two_threads`` fixture, streams beyond 2**21 elements) and
  the native ``ufunc.reduce`` where the running NumPy has it
  (``reduce_path``).

Tolerances.  Min/max (``minimummaximum``, ``fminfmax``) and every count are
exact: no rounding, so every path must give the same value (NaN/NaT where
one does; a zero's sign is not compared -- min/max of 0.0 and -0.0 are
equal values, see the note in ``_same_exact``).  The sums round, and the
paths group the additions differently, so:

- ``moments``: mean within 1e-14 max|x| (a few ulp of the largest value)
  plus 8 subnormal steps (a mean of subnormals is rounded to one);
  M2 within 1e-13 relative on the two-pass paths, within ``n eps
  |mean| / std`` (4e-11 here) on the paths that step Welford's update on
  per-element accumulators -- its documented bound (docs/accuracy.md);
  non-finite results identical (inf with its sign, NaN where one is NaN);
- ``twosum``: ``s + e`` within ``2 (eps |sum| + n eps^2 sum|x|)``, the
  compensated sum's bound, twice; non-finite ``s`` identical;
- ``maxsumexp``: the max exact; the sum within 1e-13 relative.
"""

import numpy as np
import pytest

import numreduce as nr

R = 1100  # > one 1024-element block, > 64-row blocks: every blocking boundary
EPS = np.finfo(np.float64).eps
TINY = np.finfo(np.float64).smallest_subnormal


def _float_columns(rng):
    cols = {
        "normal+1e3": rng.standard_normal(R) + 1e3,
        "nan inside": rng.standard_normal(R),
        "nan first": rng.standard_normal(R),
        "+inf": rng.standard_normal(R),
        "-inf late": rng.standard_normal(R),
        "+inf and -inf": rng.standard_normal(R),
        "all nan": np.full(R, np.nan),
        "+-1e308": np.where(np.arange(R) % 3 == 0, -1e308, 1e308),
        "1e308 const": np.full(R, 1e308),
        "-1.7e308 then 1.7e308": np.where(np.arange(R) < 200, -1.7e308, 1.7e308),
        "zeros, -0.0": np.where(np.arange(R) % 2 == 0, -0.0, 0.0),
        "all -0.0": np.full(R, -0.0),
        "subnormal": rng.integers(-5, 6, R) * 5e-324,
        "1e-300 scale": rng.standard_normal(R) * 1e-300,
        "1e300 scale": rng.standard_normal(R) * 1e300,
        "ramp": np.arange(R, dtype=np.float64) * 1e5,
    }
    cols["nan inside"][300] = np.nan
    cols["nan first"][0] = np.nan
    cols["+inf"][5] = np.inf
    cols["-inf late"][600] = -np.inf
    cols["+inf and -inf"][[10, 650]] = [np.inf, -np.inf]
    return cols


def _int_columns(rng, dtype):
    info = np.iinfo(dtype)
    cols = {
        "random": rng.integers(info.min // 4, info.max // 4, R, dtype=dtype, endpoint=True),
        "max": np.full(R, info.max, dtype),
        "min": np.full(R, info.min, dtype),
        # typed extremes: NumPy 2.5's np.where cannot take uint64's max as a Python int
        "min and max": np.where(np.arange(R) % 2 == 0, np.array(info.min, dtype),
                                np.array(info.max, dtype)),
        "extremes inside": rng.integers(0, 1000, R, dtype=dtype),
    }
    cols["extremes inside"][[3, 400]] = [info.max, info.min]
    return cols


def _time_columns(rng, dtype):
    nat = np.iinfo(np.int64).min
    ticks = {
        "random": rng.integers(-10**9, 10**9, R),
        "NaT inside": rng.integers(-10**9, 10**9, R),
        "NaT first": rng.integers(-10**9, 10**9, R),
        "all NaT": np.full(R, nat),
        "extremes": rng.integers(-10**9, 10**9, R),
    }
    ticks["NaT inside"][350] = nat
    ticks["NaT first"][0] = nat
    ticks["extremes"][[1, 500]] = [np.iinfo(np.int64).max, nat + 1]
    return {k: v.view(dtype) for k, v in ticks.items()}


def _array(dtype):
    rng = np.random.default_rng(10)
    dt = np.dtype(dtype)
    if dt.kind == "f":
        cols = _float_columns(rng)
        with np.errstate(over="ignore"):
            cols = {k: v.astype(dt) for k, v in cols.items()}
    elif dt.kind in "iu":
        cols = _int_columns(rng, dt)
    else:
        cols = _time_columns(rng, dt)
    return list(cols), np.stack(list(cols.values()), axis=1)


# ufunc, dtypes, has initials (where= works without initial), comparison kind
REDUCTIONS = [
    ("minimummaximum", ["f8", "f4", "i8", "u8", "M8[s]", "m8[ms]"], False, "exact"),
    ("fminfmax", ["f8", "f4", "i8", "u8", "M8[s]"], False, "exact"),
    ("moments", ["f8", "f4", "i8", "u8"], True, "moments"),
    ("nanmoments", ["f8", "f4"], True, "moments"),
    ("summary", ["f8", "f4", "i8", "u8"], True, "summary"),
    ("nansummary", ["f8", "f4"], True, "summary"),
    ("twosum", ["f8", "f4", "i8"], True, "twosum"),
]
# maxsumexp is one more entry of REDUCTIONS, MAXSUMEXP, to add there once its
# all-NaN rule is one rule on every path (issue 10, item 5:
# today the max of an all-NaN stream is NaN on the 1-D path and -inf on the
# column path; being fixed with the logsumexp numerics).
MAXSUMEXP = ("maxsumexp", ["f8", "f4"], True, "maxsumexp")
CASES = [pytest.param(name, dt, ident, kind, id=f"{name}-{dt}")
         for name, dts, ident, kind in REDUCTIONS for dt in dts]


def _paths(uf, X, has_initials):
    """(path name, per-column results) through every engine path."""
    C = X.shape[1]
    cols = [np.ascontiguousarray(X[:, j]) for j in range(C)]
    per_col = [nr.reduce(uf, c) for c in cols]
    yield "1-D", tuple(np.array([r[i] for r in per_col]) for i in range(uf.nout))
    yield "rows", nr.reduce(uf, X, axis=0)
    yield "trailing", nr.reduce(uf, X.T.copy(), axis=1)
    yield "F order", nr.reduce(uf, np.asfortranarray(X), axis=0)
    yield "strided columns", nr.reduce(uf, np.repeat(X, 2, axis=1)[:, ::2], axis=0)
    yield "strided rows", nr.reduce(uf, np.repeat(X, 2, axis=0)[::2], axis=0)
    yield "byte-swapped", nr.reduce(uf, X.astype(X.dtype.newbyteorder()), axis=0)
    ref = nr.reduce(uf, X, axis=0)
    outs = tuple(np.empty_like(r) for r in ref)
    yield "iter out=", nr.reduce(uf, X, axis=0, out=outs)
    if has_initials:
        yield "iter where=", nr.reduce(uf, X, axis=0, where=np.ones(X.shape, bool))


def _same_exact(a, b):
    """Bit-for-bit up to NaN payloads and the sign of zero.

    Note: the sign of a zero min/max is *not* the same on every path today:
    min/max of equal zeros are equal values and np.minimum's own result
    depends on the order of operands, and numreduce's 1-D SIMD kernel picks
    the other zero than the row paths (reported with issue 10)."""
    a, b = np.asarray(a), np.asarray(b)
    if a.dtype.kind in "mM":
        return np.array_equal(a.view(np.int64), b.view(np.int64))
    return a.dtype == b.dtype and np.array_equal(a, b, equal_nan=a.dtype.kind in "fc")


def _same_nonfinite(a, b):
    fa, fb = np.isfinite(a), np.isfinite(b)
    return np.array_equal(fa, fb) and np.array_equal(a[~fa], b[~fb], equal_nan=True)


def _summary7(st):
    """The summary's 8 outputs as (n, min, max, mean, M2, M3, M4)."""
    n, lo, hi, K, m, m2, m3, m4 = (np.asarray(v) for v in st)
    with np.errstate(all="ignore"):
        return n, lo, hi, np.where(m == 0, K, K + m), m2, m3, m4


def _check(kind, X, got, want, path, names):
    where = lambda bad: [names[j] for j in np.flatnonzero(bad)]  # noqa: E731
    if kind == "exact":
        for g, w in zip(got, want):
            assert _same_exact(g, w), (path, where(~((g == w) | ((g != g) & (w != w)))))
        return
    Xf = X.astype(np.float64)
    with np.errstate(all="ignore"):
        absmax = np.nanmax(np.where(np.isinf(Xf), np.nan, np.abs(Xf)), axis=0, initial=0)
    if kind == "moments":
        n, m, m2 = (np.asarray(v, np.float64) for v in got)
        wn, wm, wm2 = (np.asarray(v, np.float64) for v in want)
        assert np.array_equal(n, wn), (path, where(n != wn))
        assert _same_nonfinite(m, wm), (path, "mean", where(np.isfinite(m) != np.isfinite(wm)))
        assert _same_nonfinite(m2, wm2), (path, "M2", where(np.isfinite(m2) != np.isfinite(wm2)))
        ok = np.isfinite(m)
        bad = ok & ~(np.abs(m - wm) <= 1e-14 * absmax + 8 * TINY)
        assert not bad.any(), (path, "mean", where(bad))
        with np.errstate(all="ignore"):
            std = np.sqrt(wm2 / np.maximum(wn, 1))
            rel = np.where(std > 0, np.abs(wm) / std, 0)
        welford = path.startswith("iter") or path.startswith("strided columns")
        rtol = np.maximum(1e-13, n * EPS * rel) if welford else 1e-13
        ok = np.isfinite(m2)
        bad = ok & ~(np.abs(m2 - wm2) <= rtol * np.abs(wm2))
        assert not bad.any(), (path, "M2", where(bad))
    elif kind == "summary":
        # the extremes exact, (n, mean, M2)
        # as the moments, M3 and M4 to the same tolerance of their scale
        # n * std**k (M3 may cancel to ~0)
        # (the outputs (n, min, max, K, m, M2, M3, M4), the mean K + m: the
        # origin K may differ between paths, the mean may not)
        n, lo, hi, m, m2, m3, m4 = (np.asarray(v, np.float64) for v in _summary7(got))
        wn, wlo, whi, wm, wm2, wm3, wm4 = (np.asarray(v, np.float64) for v in _summary7(want))
        for g, w, what in ((lo, wlo, "min"), (hi, whi, "max")):
            assert _same_exact(g, w), (path, what, where(~((g == w) | ((g != g) & (w != w)))))
        _check("moments", X, (n, m, m2), (wn, wm, wm2), path, names)
        with np.errstate(all="ignore"):
            std = np.sqrt(wm2 / np.maximum(wn, 1))
            rel = np.where(std > 0, np.abs(wm) / std, 0)
        # (strided rows and byte-swapped data: the summary's engine paths
        # update element by element there, the moments' do not)
        welford = path.startswith(("iter", "strided columns", "strided rows", "byte-swapped"))
        rtol = np.maximum(1e-13, 4 * n * EPS * rel) if welford else 1e-13
        for g, w, k in ((m3, wm3, 3), (m4, wm4, 4)):
            assert _same_nonfinite(g, w), (path, f"M{k}", where(np.isfinite(g) != np.isfinite(w)))
            with np.errstate(all="ignore"):
                scale = np.maximum(wn * std ** k, np.abs(w))
                bad = np.isfinite(g) & ~(np.abs(g - w) <= rtol * scale + 8 * TINY)
            assert not bad.any(), (path, f"M{k}", where(bad))
    elif kind == "twosum":
        s, e = (np.asarray(v, np.float64) for v in got)
        ws, we = (np.asarray(v, np.float64) for v in want)
        assert _same_nonfinite(s, ws), (path, where(np.isfinite(s) != np.isfinite(ws)))
        ok = np.isfinite(s)
        with np.errstate(all="ignore"):
            total = ws + we
            sumabs = np.nansum(np.where(np.isfinite(Xf), np.abs(Xf), 0), axis=0)
        bound = 2 * (EPS * np.abs(total) + X.shape[0] * EPS**2 * sumabs)
        bad = ok & ~(np.abs((s + e) - total) <= bound)
        assert not bad.any(), (path, where(bad))
    elif kind == "maxsumexp":
        mx, sm = (np.asarray(v, np.float64) for v in got)
        wmx, wsm = (np.asarray(v, np.float64) for v in want)
        assert _same_exact(mx, wmx), (path, "max", where(~((mx == wmx) | ((mx != mx) & (wmx != wmx)))))
        assert _same_nonfinite(sm, wsm), (path, "sum", where(np.isfinite(sm) != np.isfinite(wsm)))
        ok = np.isfinite(sm)
        bad = ok & ~(np.abs(sm - wsm) <= 1e-13 * np.abs(wsm))
        assert not bad.any(), (path, "sum", where(bad))


@pytest.mark.parametrize("name,dtype,has_initials,kind", CASES)
def test_every_engine_path_agrees(name, dtype, has_initials, kind):
    uf = getattr(nr, name)
    names, X = _array(dtype)
    with np.errstate(all="ignore"):
        paths = list(_paths(uf, X, has_initials))
    want = paths[0][1]
    with np.errstate(invalid="ignore"):
        for path, got in paths[1:]:
            _check(kind, X, got, want, path, names)


@pytest.mark.parametrize("name,dtype,has_initials,kind", CASES)
def test_native_agrees_with_engine(reduce_path, name, dtype, has_initials, kind):
    uf = getattr(nr, name)
    names, X = _array(dtype)
    with np.errstate(all="ignore"):
        want = nr.reduce(uf, X, axis=0)
        for axis, arr in ((0, X), (1, X.T.copy()), (0, np.asfortranarray(X))):
            _check(kind, X, reduce_path(uf, arr, axis=axis), want, f"reduce_path axis={axis}", names)


THREAD_CASES = [pytest.param(name, dt, kind, id=f"{name}-{dt}")
                for name, dts, _, kind in REDUCTIONS for dt in dts if dt in ("f8", "i8")]


@pytest.mark.parametrize("name,dtype,kind", THREAD_CASES)
def test_threaded_stream_agrees_with_one_stream(two_threads, name, dtype, kind):
    """A stream beyond 2**21 elements: the whole-array path (fixed chunks,
    two threads) against the same stream as one row (``_reduce_trailing``,
    no chunks) and one column (``_reduce_rows``)."""
    uf = getattr(nr, name)
    names, X = _array(dtype)
    reps = (2**21) // R + 3  # three chunks, the last one short
    pick = list(range(0, X.shape[1], 2))  # half the columns: keep it quick
    streams = [np.tile(X[:, j], reps) for j in pick]
    with np.errstate(all="ignore"):
        one = [nr.reduce(uf, s) for s in streams]
        got = tuple(np.array([r[i] for r in one]) for i in range(uf.nout))
        for path, f in (("one row", lambda s: nr.reduce(uf, s[None, :], axis=1)),
                        ("one column", lambda s: nr.reduce(uf, s[:, None], axis=0))):
            res = [f(s) for s in streams]
            want = tuple(np.array([r[i][0] for r in res]) for i in range(uf.nout))
            Xt = np.tile(X[:, pick], (reps, 1))
            _check(kind, Xt, got, want, "threads vs " + path, [names[j] for j in pick])
