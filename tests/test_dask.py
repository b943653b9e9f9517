"""numreduce on Dask arrays (numreduce/_dask.py): differential tests against
the NumPy path and NumPy's and Dask's own reductions, graph tests, build-time
errors, pickling, and the synchronous, threaded, multiprocessing and
dask.distributed schedulers."""

import contextlib
import math
import os
import pickle
import subprocess
import sys
import warnings

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

da = pytest.importorskip("dask.array", reason="dask[array] is not installed (the 'dask' extra)")
import dask  # noqa: E402

import numreduce as nr  # noqa: E402

SYNC = {"scheduler": "synchronous"}
FAST = settings(max_examples=int(os.environ.get("NR_DASK_EXAMPLES", "30")), deadline=None)


def assert_same(got, ref, exact=True, rtol=1e-12, atol=0.0):
    got, ref = np.asarray(got), np.asarray(ref)
    assert got.shape == ref.shape, (got.shape, ref.shape)
    assert got.dtype == ref.dtype, (got.dtype, ref.dtype)
    if exact:
        np.testing.assert_array_equal(got, ref)
    else:
        np.testing.assert_allclose(got, ref, rtol=rtol, atol=atol, equal_nan=True)


def outcome(f):
    """(result, None) or (None, exception type) of f(), warnings held back."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        try:
            return f(), None
        except (ValueError, TypeError, IndexError) as e:
            return None, type(e)


# ---------------------------------------------------------------------------
# strategies: shapes, chunkings with empty and size-1 chunks, axes, NaNs
# ---------------------------------------------------------------------------

@st.composite
def chunking(draw, n):
    """A partition of n into chunks, with empty chunks sprinkled in."""
    sizes, left = [], n
    while left:
        k = draw(st.integers(1, left))
        sizes.append(k)
        left -= k
    for _ in range(draw(st.integers(0, 2))):
        sizes.insert(draw(st.integers(0, len(sizes))), 0)
    return tuple(sizes) or (0,)


@st.composite
def arrays(draw, dtypes=("float64", "float32", "int64", "int16"), max_ndim=3, nans=True):
    ndim = draw(st.integers(1, max_ndim))
    shape = tuple(draw(st.lists(st.integers(0, 7), min_size=ndim, max_size=ndim)))
    dtype = np.dtype(draw(st.sampled_from(dtypes)))
    rng = np.random.default_rng(draw(st.integers(0, 2**32 - 1)))
    if dtype.kind == "f":
        a = (rng.standard_normal(shape) * 10).astype(dtype)
        if nans and a.size and draw(st.booleans()):
            a.flat[rng.integers(0, a.size, rng.integers(1, a.size + 1))] = np.nan
    elif dtype.kind == "c":
        a = (rng.standard_normal(shape) + 1j * rng.standard_normal(shape)).astype(dtype)
    else:
        a = rng.integers(-5, 5, shape).astype(dtype)  # ties
    chunks = tuple(draw(chunking(n)) for n in shape)
    return a, chunks


@st.composite
def axes(draw, ndim, single=False):
    if single:
        return draw(st.one_of(st.none(), st.integers(-ndim, ndim - 1)))
    return draw(st.one_of(st.none(), st.integers(-ndim, ndim - 1),
                          st.lists(st.integers(0, ndim - 1), unique=True).map(tuple)))


def tree(se):
    """dask.config's split_every (None: Dask's default)."""
    return contextlib.nullcontext() if se is None else dask.config.set(split_every=se)


def has_empty_chunk(chunks):
    return any(0 in c for c in chunks)


split_every = st.sampled_from([None, 2, 3, 16])


# ---------------------------------------------------------------------------
# differential: the NumPy path, NumPy and Dask
# ---------------------------------------------------------------------------

@FAST
@given(data=st.data(), case=arrays(), se=split_every)
def test_minmax_nanminmax_differential(data, case, se):
    a, chunks = case
    x = da.from_array(a, chunks=chunks)
    axis = data.draw(axes(a.ndim))
    keepdims = data.draw(st.booleans())
    for f, np_lo, np_hi in ((nr.minmax, np.min, np.max), (nr.nanminmax, np.nanmin, np.nanmax)):
        ref, err = outcome(lambda: f(a, axis=axis, keepdims=keepdims))
        with tree(se):
            if err is not None:
                with pytest.raises(err):
                    dask.compute(*f(x, axis=axis, keepdims=keepdims), **SYNC)
                continue
            got, _ = outcome(lambda: dask.compute(*f(x, axis=axis, keepdims=keepdims), **SYNC))
        assert got is not None
        for g, r, npf in zip(got, ref, (np_lo, np_hi)):
            assert_same(g, r)
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                assert_same(g, npf(a, axis=axis, keepdims=keepdims))
        if f is nr.minmax and not has_empty_chunk(chunks):
            # Dask's own min / max agree where they work (no empty chunks)
            lo, hi = dask.compute(x.min(axis=axis, keepdims=keepdims),
                                  x.max(axis=axis, keepdims=keepdims), **SYNC)
            assert_same(got[0], lo)
            assert_same(got[1], hi)


@FAST
@given(data=st.data(), case=arrays(dtypes=("float64", "float32", "int32", "complex128")),
       se=split_every)
def test_meanvar_family_differential(data, case, se):
    a, chunks = case
    x = da.from_array(a, chunks=chunks)
    axis = data.draw(axes(a.ndim))
    ddof = data.draw(st.sampled_from([0, 1]))
    keepdims = data.draw(st.booleans())
    tol = 1e-5 if a.dtype in (np.float32, np.complex64) else 1e-10
    # Absolute tolerances from the data (a relative one cannot hold near 0):
    # two sums of the same n terms differ by at most about 2 n eps sum|x|, so
    # two means by 2 n eps max|x|, two variances (ddof <= 1: at most twice
    # M2 / n) by 4 n eps max (x - mean)**2 <= 16 n eps max|x|**2, two stds
    # by the means' difference plus n eps std.  numreduce accumulates in
    # float64 on both paths (float32 rounded once, within rtol); NumPy's and
    # Dask's own float32 mean and var run in float32.
    fin = np.abs(a[np.isfinite(a)]).astype(np.float64)
    big, n = float(np.max(fin, initial=0.0)), max(a.size, 1)

    def atols(eps):  # (mean or std, variance)
        return 4 * n * eps * big, 16 * n * eps * big**2

    ours = atols(np.finfo(np.float64).eps)
    theirs = atols(np.finfo(np.float32 if a.dtype == np.float32 else np.float64).eps)
    for f in (nr.meanvar, nr.meanstd, nr.nanmeanvar):
        ref, err = outcome(lambda: f(a, axis=axis, ddof=ddof, keepdims=keepdims))
        with tree(se):
            if err is not None:
                with pytest.raises(err):
                    dask.compute(*f(x, axis=axis, ddof=ddof, keepdims=keepdims), **SYNC)
                continue
            got, _ = outcome(lambda: dask.compute(*f(x, axis=axis, ddof=ddof,
                                                     keepdims=keepdims), **SYNC))
        second = ours[0] if f is nr.meanstd else ours[1]
        for g, r, atol in zip(got, ref, (ours[0], second)):
            assert_same(g, r, exact=False, rtol=tol, atol=atol)
        if f is nr.meanvar:
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                assert_same(got[1], np.var(a, axis=axis, ddof=ddof, keepdims=keepdims),
                            exact=False, rtol=tol, atol=ours[1] + theirs[1])
                if not has_empty_chunk(chunks) and a.size:
                    m, v = dask.compute(x.mean(axis=axis, keepdims=keepdims),
                                        x.var(axis=axis, ddof=ddof, keepdims=keepdims), **SYNC)
                    assert_same(got[0], m, exact=False, rtol=tol, atol=ours[0] + theirs[0])
                    assert_same(got[1], v, exact=False, rtol=tol * 10, atol=ours[1] + theirs[1])


@FAST
@given(data=st.data(),
       case=arrays(dtypes=("float64", "float32", "int64", "int8", "complex128")),
       se=split_every)
def test_argminmax_differential(data, case, se):
    a, chunks = case
    x = da.from_array(a, chunks=chunks)
    axis = data.draw(axes(a.ndim, single=True))
    keepdims = data.draw(st.booleans())
    cases = ((nr.argminmax, np.argmin, np.argmax), (nr.nanargminmax, np.nanargmin, np.nanargmax))
    for f, np_lo, np_hi in cases:
        with tree(se):
            lo_ref, err = outcome(lambda: np_lo(a, axis=axis, keepdims=keepdims))
            hi_ref, _ = outcome(lambda: np_hi(a, axis=axis, keepdims=keepdims))
            if err is not None:
                with pytest.raises(err):
                    dask.compute(*f(x, axis=axis, keepdims=keepdims), **SYNC)
                continue
            lo, hi = dask.compute(*f(x, axis=axis, keepdims=keepdims), **SYNC)
        assert_same(lo, lo_ref)  # NumPy's tie rule: the first in C order
        assert_same(hi, hi_ref)
        assert_same(lo, f(a, axis=axis, keepdims=keepdims)[0])


@FAST
@given(data=st.data(), case=arrays(dtypes=("float64", "float32", "int64")), se=split_every)
def test_logsumexp_fsum_reduce_differential(data, case, se):
    a, chunks = case
    x = da.from_array(a, chunks=chunks)
    axis = data.draw(axes(a.ndim))
    tol = 1e-5 if a.dtype == np.float32 else 1e-12
    with tree(se):
        for f in (nr.logsumexp, nr.fsum):
            ref = f(a, axis=axis)
            # fsum: the compensated sum's bound, eps * sum|x| (float32 sums in float32)
            atol = tol * (1 + float(np.nansum(np.abs(a.astype(np.float64)))))
            assert_same(f(x, axis=axis).compute(**SYNC), ref, exact=False, rtol=tol, atol=atol)
        for u in (nr.moments, nr.twosum, nr.maxsumexp, nr.minimummaximum):
            ref, err = outcome(lambda: nr.reduce(u, a, axis=axis))
            if err is not None:
                with pytest.raises(err):
                    dask.compute(*nr.reduce(u, x, axis=axis), **SYNC)
                continue
            got = dask.compute(*nr.reduce(u, x, axis=axis), **SYNC)
            if u is nr.twosum:  # s and e depend on the order; s + e does not
                got, ref = [np.add(*got, dtype=np.float64)], [np.add(*ref, dtype=np.float64)]
            # the states' scales: sum |x| (sums, means), sum x**2 (M2)
            big = float(np.nansum(np.abs(a.astype(np.float64)) + a.astype(np.float64) ** 2))
            for g, r in zip(got, ref):
                assert_same(g, r, exact=u is nr.minimummaximum, rtol=tol, atol=tol * (1 + big))


def test_where_and_initial():
    rng = np.random.default_rng(1)
    a = rng.standard_normal((13, 9))
    w = rng.random((13, 9)) < 0.4
    x = da.from_array(a, chunks=((4, 0, 9), (2, 7)))
    for where in (w, da.from_array(w, chunks=5), w[0]):
        got = dask.compute(*nr.minmax(x, axis=0, where=where, initial=(5.0, -5.0)), **SYNC)
        ref = nr.minmax(a, axis=0, where=np.asarray(where), initial=(5.0, -5.0))
        for g, r in zip(got, ref):
            assert_same(g, r)
        got = dask.compute(*nr.meanvar(x, axis=1, where=where), **SYNC)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            ref = (np.mean(a, axis=1, where=np.asarray(where)),
                   np.var(a, axis=1, where=np.asarray(where)))
        for g, r in zip(got, ref):
            assert_same(g, r, exact=False)


def test_dtype_argument():
    a = np.arange(24, dtype=np.int16).reshape(4, 6)
    x = da.from_array(a, chunks=(3, 4))
    m, v = dask.compute(*nr.meanvar(x, axis=1, dtype=np.float32), **SYNC)
    assert_same(m, np.mean(a, axis=1, dtype=np.float32), exact=False, rtol=1e-6)
    assert_same(v, np.var(a, axis=1, dtype=np.float32), exact=False, rtol=1e-6)
    s = nr.fsum(x, dtype=np.float32).compute(**SYNC)
    assert_same(s, nr.fsum(a, dtype=np.float32))
    lo, hi = dask.compute(*nr.reduce(nr.minimummaximum, x, axis=0, dtype=np.float64), **SYNC)
    assert_same(lo, a.min(axis=0).astype(np.float64))


def test_unknown_chunk_sizes():
    a = np.arange(-10.0, 30.0)
    x = da.from_array(a, chunks=7)
    y = x[x > 0]
    assert any(math.isnan(n) for n in y.chunks[0])
    assert_same(dask.compute(*nr.minmax(y), **SYNC), (1.0, 29.0))
    m, v = dask.compute(*nr.meanvar(y), **SYNC)
    assert_same(v, np.var(a[a > 0]), exact=False)
    with pytest.raises(ValueError, match="unknown chunk sizes"):
        nr.argminmax(y)
    empty = x[x > 100]
    with pytest.raises(ValueError, match="zero-size array"):
        dask.compute(*nr.minmax(empty), **SYNC)



def _unknown(a, chunks):
    """``a`` as a dask array whose chunk sizes Dask does not know (a boolean
    selection keeping every row), and its row selection's own array."""
    x = da.from_array(a, chunks=chunks)
    y = x[(x if x.ndim == 1 else x[:, 0]) > -np.inf]
    assert all(math.isnan(n) for n in y.chunks[0])
    return y


_SOURCES = [  # several sources (issue 36 class 4): (name, call, NumPy reference)
    ("covariance", lambda x, y: nr.covariance(x, y), lambda x, y: np.cov(x, y)[0, 1]),
    ("correlation", lambda x, y: nr.correlation(x, y), lambda x, y: np.corrcoef(x, y)[0, 1]),
    ("sumprod", lambda x, y: nr.sumprod(x, y), lambda x, y: np.sum(x * y)),
    ("meanvar weights", lambda x, y: nr.meanvar(x, weights=y),
     lambda x, y: (np.average(x, weights=y), np.cov(x, aweights=y, ddof=0))),
    ("nanmeanvar weights", lambda x, y: nr.nanmeanvar(x, weights=y),
     lambda x, y: (np.average(x, weights=y), np.cov(x, aweights=y, ddof=0))),
    ("logsumexp b", lambda x, y: nr.logsumexp(x, b=y),
     lambda x, y: np.log(np.sum(y * np.exp(x)))),
    ("logsumexp sign", lambda x, y: nr.logsumexp(x, return_sign=True),
     lambda x, y: (np.log(np.sum(np.exp(x))), 1.0)),
    ("sumprod scalar", lambda x, y: nr.sumprod(x, 2.0), lambda x, y: 2 * np.sum(x)),
    ("fsum where", lambda x, y: nr.fsum(x, where=y > 0.7), lambda x, y: np.sum(x[y > 0.7])),
    ("meanvar where", lambda x, y: nr.meanvar(x, where=y > 0.7),
     lambda x, y: (np.mean(x[y > 0.7]), np.var(x[y > 0.7]))),
]


@pytest.mark.parametrize("name, call, ref", _SOURCES, ids=[c[0] for c in _SOURCES])
def test_several_sources_unknown_chunks(name, call, ref):
    """Several sources of unknown chunk sizes (x[x > 0], issue 36 class 4):
    the functions work where Dask's own elementwise operations would (the
    sources of one chunk structure, a scalar), with the NumPy result; they
    raised an internal TypeError (broadcasting NaN shapes), fsum(where=) a
    misleading 'Weights with shape (nan,)'."""
    rng = np.random.default_rng(36)
    a, b = rng.standard_normal(40) + 5, rng.random(40) + 0.5
    keep = a > 4.5
    x = da.from_array(a, chunks=7)
    u, v = x[x > 4.5], da.from_array(b, chunks=7)[x > 4.5]
    assert all(math.isnan(n) for n in u.chunks[0])
    got = dask.compute(call(u, v), **SYNC)[0]
    want = ref(a[keep], b[keep])
    for g, r in zip(got if isinstance(got, tuple) else (got,),
                    want if isinstance(want, tuple) else (want,)):
        np.testing.assert_allclose(g, r, rtol=1e-12)
    # and the NumPy path's result on the same values
    host = call(a[keep], b[keep])
    for g, h in zip(got if isinstance(got, tuple) else (got,),
                    host if isinstance(host, tuple) else (host,)):
        np.testing.assert_allclose(g, h, rtol=1e-14)


def test_several_sources_unknown_chunks_2d():
    """Unknown chunk sizes along one axis of 2-d sources, a (1, n) operand
    broadcast along it; grouped and segment reductions along the known axis
    of an array with unknown rows (they raised the internal TypeError)."""
    rng = np.random.default_rng(7)
    a, b = rng.standard_normal((30, 4)) + 3, rng.random((30, 4)) + 0.5
    keep = a[:, 0] > 2.5
    x = da.from_array(a, chunks=(7, 2))
    u, v = x[x[:, 0] > 2.5], da.from_array(b, chunks=(7, 2))[x[:, 0] > 2.5]
    row = b[:1]  # a (1, 4) NumPy operand: broadcast along the unknown axis
    for got, want in [
        (nr.correlation(u, v, axis=0), nr.correlation(a[keep], b[keep], axis=0)),
        (nr.logsumexp(u, b=v, axis=1), nr.logsumexp(a[keep], b=b[keep], axis=1)),
        (nr.meanvar(u, weights=row, axis=0)[1],
         nr.meanvar(a[keep], weights=np.broadcast_to(row, a[keep].shape), axis=0)[1]),
        (nr.group_meanvar(u, [0, 1, 0, 1], axis=1)[1],
         nr.group_meanvar(a[keep], [0, 1, 0, 1], axis=1)[1]),
        (nr.group_minmax(u, [0, 1, 0, 1], axis=1, where=v > 0.6, initial=0.0)[0],
         nr.group_minmax(a[keep], [0, 1, 0, 1], axis=1, where=b[keep] > 0.6, initial=0.0)[0]),
        (nr.reduceat(nr.minimummaximum, u, [0, 2], axis=1)[1],
         nr.reduceat(nr.minimummaximum, a[keep], [0, 2], axis=1)[1]),
    ]:
        np.testing.assert_allclose(got.compute(**SYNC), want, rtol=1e-13)


def test_several_sources_unknown_chunks_refused():
    """Where Dask cannot line the blocks up, Dask's advice (ValueError naming
    compute_chunk_sizes()): at graph-build time for another chunk structure
    or a known length against an unknown one; at compute time where blocks
    of unknown size turn out to differ in length (Dask's own u * v
    broadcasts such blocks silently)."""
    a = np.arange(-10.0, 30.0)
    x = da.from_array(a, chunks=7)
    u, v = x[x > 0], x[x > 3]
    w = da.from_array(a, chunks=5)[da.from_array(a, chunks=5) > 0]
    for f in (nr.covariance, nr.correlation, nr.sumprod,
              lambda p, q: nr.meanvar(p, weights=q), lambda p, q: nr.logsumexp(p, b=q),
              lambda p, q: nr.fsum(p, where=q > 3)):
        with pytest.raises(ValueError, match=r"compute_chunk_sizes\(\)"):
            f(u, w)  # another chunk structure
        with pytest.raises(ValueError, match=r"compute_chunk_sizes\(\)"):
            f(u, a[a > 0])  # 29 elements against an unknown number
        with pytest.raises(ValueError, match=r"compute_chunk_sizes\(\)"):
            f(x, v)  # the other way round
        res = f(u, v)  # the same structure: built, checked per block
        with pytest.raises(ValueError, match=r"different lengths.*compute_chunk_sizes\(\)"):
            dask.compute(res, **SYNC)
    with pytest.raises(ValueError, match=r"compute_chunk_sizes\(\)"):
        nr.minmax(u, where=a > 0, initial=0.0)


def test_argminmax_bad_dtype_at_build_time():
    """argminmax of strings, bytes or objects raises the NumPy path's
    TypeError when the graph is built, as every other dtype error does (it
    came at compute time)."""
    for a in (np.array(["a", "b", "c"]), np.array([b"a", b"b"]),
              np.array([1, "a"], dtype=object)):
        x, calls = _counting_source(a, 1)
        for f in (nr.argminmax, nr.nanargminmax):
            for kw in ({}, {"axis": 0}):
                with pytest.raises(TypeError, match="unsupported dtype"):
                    f(x, **kw)
                with pytest.raises(TypeError, match="unsupported dtype"):
                    f(a, **kw)  # the NumPy path's error
        assert calls == []


def _exact_moments(col, w=None):
    """(mean, var) of float64 values (weighted: frequency weights) in exact
    fractions, rounded once."""
    from fractions import Fraction
    xs = [Fraction(float(v)) for v in col]
    ws = [Fraction(1)] * len(xs) if w is None else [Fraction(float(v)) for v in w]
    n = sum(ws)
    m = sum(q * v for q, v in zip(ws, xs)) / n
    return float(m), float(sum(q * (v - m) ** 2 for q, v in zip(ws, xs)) / n)


def _exact_cov(c1, c2):
    from fractions import Fraction
    f1, f2 = [Fraction(float(v)) for v in c1], [Fraction(float(v)) for v in c2]
    m1, m2 = sum(f1) / len(f1), sum(f2) / len(f2)
    return float(sum((p - m1) * (q - m2) for p, q in zip(f1, f2)) / (len(f1) - 1))


def _ulps(got, want):
    got, want = np.asarray(got, float), np.asarray(want, float)
    return np.max(np.abs(got - want) / np.spacing(np.abs(want)))


def test_dask_moments_as_accurate_as_the_host():
    """1e8 + N(0, 1), (3000, 8) in blocks of 1000 rows (issue 36): each
    block's moments in a frame and merged in it, so the Dask meanvar family
    is within a few ulps of the exact variance and of the NumPy path (it
    was 2.4e-10 relative, the blocks' means rounded at 1e8 entering every
    merge); grouped too; the weighted and co-moments (their states carry
    their own origin) stay so."""
    rng = np.random.default_rng(36)
    a = 1e8 + rng.standard_normal((3000, 8))
    b = 1e8 + rng.standard_normal((3000, 8))
    w = rng.integers(1, 5, (3000, 8)).astype(float)
    x, y, wd = (da.from_array(v, chunks=(1000, 8)) for v in (a, b, w))
    exact = np.array([_exact_moments(a[:, j]) for j in range(8)])
    for f, finish in [(nr.meanvar, lambda r: r), (nr.nanmeanvar, lambda r: r),
                      (nr.meanstd, lambda r: (r[0], r[1] ** 2))]:
        mean, var = finish(dask.compute(*f(x, axis=0), **SYNC))
        assert _ulps(var, exact[:, 1]) <= 4 and _ulps(mean, exact[:, 0]) <= 1
        host = finish(f(a, axis=0))
        assert _ulps(var, host[1]) <= 4 and _ulps(mean, host[0]) <= 1
    flat = _exact_moments(a.ravel())
    mean, var = dask.compute(*nr.meanvar(x), **SYNC)
    assert _ulps(var, flat[1]) <= 4 and _ulps(mean, flat[0]) <= 1
    # integer data far from 0, a where mask, long double data
    ints = rng.integers(-1000, 1000, (3000, 2)) + 10**15
    got = dask.compute(*nr.meanvar(da.from_array(ints, chunks=(1000, 2)), axis=0), **SYNC)[1]
    assert _ulps(got, [_exact_moments(ints[:, j].astype(float))[1] for j in range(2)]) <= 4
    sel = a[:, 0] > 1e8 - 0.5
    got = dask.compute(*nr.meanvar(x[:, 0], where=sel), **SYNC)[1]
    assert _ulps(got, _exact_moments(a[sel, 0])[1]) <= 4
    # grouped: along the rows, 1-d and 2-d (against the exact values: the
    # NumPy path's 2-d grouped moments along axis 0 step element by element,
    # 8e-9 here; in the frame, the blocks' steps are on small values)
    ids = rng.permutation(np.repeat(np.arange(3), 1000))
    ge = np.array([[_exact_moments(a[ids == g, j])[1] for j in range(8)] for g in range(3)])
    got = dask.compute(*nr.group_meanvar(x, ids, axis=0), **SYNC)[1]
    assert _ulps(got, ge) <= 16
    got = dask.compute(*nr.group_meanvar(x[:, 3], da.from_array(ids, chunks=700),
                                         num_groups=3), **SYNC)[1]
    assert _ulps(got, ge[:, 3]) <= 16  # (the NumPy path: 10 ulps on such data)
    # weighted moments and co-moments (their states carry their origin):
    # as accurate as the NumPy path, within a few ulps
    ew = np.array([_exact_moments(a[:, j], w[:, j])[1] for j in range(8)])
    host = _ulps(nr.meanvar(a, axis=0, weights=w)[1], ew)
    assert _ulps(nr.meanvar(x, axis=0, weights=wd)[1].compute(**SYNC), ew) <= max(8, host)
    gw = np.array([[_exact_moments(a[ids == g, j], w[ids == g, j])[1] for j in range(8)]
                   for g in range(3)])
    host = _ulps(nr.group_meanvar(a, ids, weights=w)[1], gw)
    assert _ulps(nr.group_meanvar(x, ids, weights=wd)[1].compute(**SYNC), gw) <= max(8, host)
    ec = np.array([_exact_cov(a[:, j], b[:, j]) for j in range(8)])
    got = nr.covariance(x, y, axis=0).compute(**SYNC)
    scale = np.sqrt(exact[:, 1] * np.var(b, axis=0))  # the co-moment's own magnitude
    assert np.all(np.abs(got - ec) <= 4 * np.spacing(scale))


def test_dask_framed_moments_edges():
    """The frame keeps the NumPy path's answers where a block's shifted
    values are not finite (inf/NaN data, x - K overflowing near 1e308),
    for empty chunks, integers, long double and complex data."""
    rng = np.random.default_rng(3)
    cases = [np.array([1e8, 1e8 + 1, np.inf, 1e8, 2e8, 3.0]),
             np.array([1e8, -np.inf, np.inf, 1e8, 2e8, 3.0]),
             np.array([1e8, 1e8 + 1, np.nan, 1e8, 2e8, 3.0]),
             np.array([1.7e308, -1.7e308, 1e308, -1e308, 1.5e308, 1.0]),
             np.arange(10**15, 10**15 + 6),
             (1e8 + rng.standard_normal(6)).astype(np.longdouble),
             1e8 + rng.standard_normal(6) + 1j * (1e8 + rng.standard_normal(6)),
             np.full(6, np.nan)]
    ids = np.array([0, 1, 0, 2, 1, 2])
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        for a in cases:
            for chunks in (2, ((0, 3, 0, 3),), 1):
                x = da.from_array(a, chunks=chunks)
                sel = np.array([True, False] * 3)
                for f, kw, ref in [(nr.meanvar, {}, a), (nr.nanmeanvar, {}, a),
                                   (nr.meanstd, {"ddof": 1}, a),
                                   # (the NumPy path's where= steps element by
                                   # element: its selection without a mask)
                                   (nr.meanvar, {"where": sel}, a[sel])]:
                    want = f(ref, **{k: v for k, v in kw.items() if k != "where"})
                    for g, r in zip(dask.compute(*f(x, **kw), **SYNC), want):
                        assert_same(g, r, exact=False, rtol=4e-16)
                got = dask.compute(*nr.group_meanvar(x, ids), **SYNC)
                for g, r in zip(got, nr.group_meanvar(a, ids)):
                    assert_same(g, r, exact=False, rtol=4e-16)


@pytest.mark.parametrize("f, np_pair", [
    (nr.argminmax, (np.argmin, np.argmax)),
    (nr.nanargminmax, (np.nanargmin, np.nanargmax)),
])
def test_argminmax_unknown_chunks_off_the_reduced_axis(f, np_pair):
    """The global indices need the chunk offsets along the reduced axis
    only: unknown chunk sizes elsewhere (a boolean row selection) work, as
    for da.argmin; along the reduced axis (or every axis for axis=None)
    they are a ValueError."""
    rng = np.random.default_rng(21)
    a = rng.standard_normal((40, 9))
    a[3, 4] = np.nan
    x = da.from_array(a, chunks=(7, 4))
    keep = a[:, 0] > 0
    y = x[x[:, 0] > 0]
    assert all(math.isnan(n) for n in y.chunks[0])
    for kw in ({"axis": 1}, {"axis": -1, "keepdims": True}):
        lo, hi = f(y, **kw)
        got = dask.compute(lo, hi, **SYNC)
        ref = tuple(g(a[keep], axis=1, keepdims=kw.get("keepdims", False)) for g in np_pair)
        for g, r in zip(got, ref):
            assert g.dtype == np.intp and g.shape == r.shape
            np.testing.assert_array_equal(g, r)
        ref_da = da.argmin(y, axis=1).compute(**SYNC)  # Dask's own works there too
        np.testing.assert_array_equal(ref_da, np.argmin(a[keep], axis=1))
    for kw in ({"axis": 0}, {}):
        with pytest.raises(ValueError, match="unknown chunk sizes"):
            f(y, **kw)

# ---------------------------------------------------------------------------
# NumPy's answers where Dask's own reductions differ (issue 12's examples)
# ---------------------------------------------------------------------------

def test_numpy_answers_not_dask_quirks():
    a = np.arange(12.0).reshape(4, 3)
    x = da.from_array(a, chunks=((2, 0, 2), (1, 2)))
    mean, var = dask.compute(*nr.meanvar(x), **SYNC)
    assert var == np.var(a) and mean == np.mean(a)          # Dask's x.var() is NaN here
    assert dask.compute(*nr.minmax(x, axis=0), **SYNC)[0].tolist() == a.min(axis=0).tolist()
    lo, hi = dask.compute(*nr.argminmax(x, axis=0), **SYNC)  # Dask's argmin raises here
    assert_same(lo, np.argmin(a, axis=0))
    b = np.array([[5, 5, 5, 0], [0, 5, 5, 5]])
    lo, hi = dask.compute(*nr.argminmax(da.from_array(b, chunks=2)), **SYNC)
    assert (lo, hi) == (np.argmin(b), np.argmax(b)) == (3, 0)  # Dask's argmin gives 4
    c = np.array([[1.0, np.nan], [np.nan, 0.0]])
    lo, hi = dask.compute(*nr.argminmax(da.from_array(c, chunks=1)), **SYNC)
    assert (lo, hi) == (np.argmin(c), np.argmax(c)) == (1, 1)  # the first NaN wins
    t = np.array(["2020-01-01", "NaT", "2019-01-01", "NaT"], dtype="datetime64[D]")
    lo, hi = dask.compute(*nr.argminmax(da.from_array(t, chunks=1)), **SYNC)
    assert (lo, hi) == (np.argmin(t), np.argmax(t)) == (1, 1)  # the first NaT wins
    z = np.array([[1 + 1j, 1 + 0j], [0 + 5j, 2 + 0j]])
    lo, hi = dask.compute(*nr.argminmax(da.from_array(z, chunks=1), axis=0), **SYNC)
    assert_same(lo, np.argmin(z, axis=0))  # complex: NumPy's lexicographic order
    assert_same(hi, np.argmax(z, axis=0))
    x0 = da.from_array(np.array(3.0))  # 0-d
    assert dask.compute(*nr.argminmax(x0), **SYNC) == (0, 0)
    assert dask.compute(*nr.minmax(x0), **SYNC) == (3.0, 3.0)


# ---------------------------------------------------------------------------
# graphs: one task per chunk, each chunk read once, lazy until compute
# ---------------------------------------------------------------------------

def _counting_source(a, chunks):
    calls = []

    def source(block):
        calls.append(1)
        return block

    x = da.from_array(a, chunks=chunks).map_blocks(source, meta=np.empty((0,) * a.ndim,
                                                                            a.dtype))
    return x, calls


def _chunk_layers(arrays, prefix):
    layers = {}
    for arr in arrays:
        layers.update(arr.__dask_graph__().layers)
    return {k: v for k, v in layers.items() if k.startswith(prefix) and
            not k.endswith(("-partial", "-aggregate")) and "-partial-" not in k
            and "-aggregate-" not in k and "-out" not in k}


def test_graph_one_task_per_chunk():
    x = da.from_array(np.random.default_rng(0).random((40, 30)), chunks=(10, 7))
    lo, hi = nr.minmax(x)
    layers = _chunk_layers((lo, hi), "numreduce-minimummaximum")
    assert len(layers) == 1
    assert len(next(iter(layers.values()))) == x.npartitions  # one reduction task per chunk
    graph = dict(lo.__dask_graph__())
    graph.update(hi.__dask_graph__())
    own = [k for k in graph if not str(k[0] if isinstance(k, tuple) else k).startswith("array")]
    dask_own = dict(x.min().__dask_graph__())
    dask_own.update(x.max().__dask_graph__())
    dask_tasks = [k for k in dask_own if not str(k[0]).startswith("array")]
    # numreduce: one chunk task per chunk + the tree; Dask: two of each
    assert len(own) < len(dask_tasks) and len(dask_tasks) >= 2 * x.npartitions


@pytest.mark.parametrize("func", [nr.minmax, nr.meanvar, nr.argminmax, nr.nanminmax])
def test_each_chunk_read_once_and_lazy(func):
    x, calls = _counting_source(np.random.default_rng(2).random((30, 20)), (7, 6))
    outs = func(x, axis=0)
    assert calls == []  # nothing computed while the graph is built
    assert all(isinstance(o, da.Array) for o in outs)
    res = dask.compute(*outs, scheduler="synchronous")
    assert len(calls) == x.npartitions  # both outputs together: every chunk read once
    for r, ref in zip(res, func(x.compute(), axis=0)):
        assert_same(r, ref, exact=func is not nr.meanvar)


def _executed_graph(outs):
    """The graph the scheduler gets from dask.compute (optimised: culled
    and fused), through a custom scheduler callable, and the results."""
    seen = {}

    def get(dsk, keys, **kwargs):
        # (newer Dask hands over an expression that holds the graph)
        seen["dsk"] = dict(dsk.__dask_graph__() if hasattr(dsk, "__dask_graph__") else dsk)
        return dask.get(dsk, keys, **kwargs)

    res = dask.compute(*outs, scheduler=get)
    return seen["dsk"], res


def _task_funcs(graph):
    funcs = []
    for v in graph.values():
        f = getattr(v, "func", None)
        f = getattr(f, "func", f)  # functools.partial
        funcs.append(getattr(f, "__name__", type(f).__name__))
    return funcs


@pytest.mark.parametrize("ufunc, dtype", [
    (u, dt) for u in (nr.minimummaximum, nr.fminfmax, nr.moments, nr.nanmoments, nr.maxsumexp,
                      nr.twosum) for dt in ("float32", "float64")
] + [(u, "int64") for u in (nr.minimummaximum, nr.moments, nr.twosum)])
def test_graph_merge_same_as_public_merge(ufunc, dtype):
    """The combine tasks' merge (the core merge once the first pair resolved
    the loop) gives bit for bit what the public nr.merge gives, over many
    states, and the public merge's errors stay."""
    from numreduce._dask import merge_pair as _merge2

    rng = np.random.default_rng(11)
    a = (rng.standard_normal((40, 6)) * 50).astype(dtype)
    if dtype != "int64":
        a[3, 2] = np.nan
    states = [nr.reduce(ufunc, a[i:i + 5], axis=0, keepdims=True) for i in range(0, 40, 5)]
    got, ref = states[0], states[0]
    for st_ in states[1:]:
        got = _merge2(ufunc, got, st_)
        ref = nr.merge(ufunc, ref, st_)
    for g, r in zip(got, ref):
        assert_same(g, r)
    # 0-d states: scalars back, as from the public merge
    s0 = [nr.reduce(ufunc, a[i:i + 5].ravel(), axis=None) for i in range(0, 20, 5)]
    got0 = _merge2(ufunc, _merge2(ufunc, s0[0], s0[1]), s0[2])
    ref0 = nr.merge(ufunc, nr.merge(ufunc, s0[0], s0[1]), s0[2])
    for g, r in zip(got0, ref0):
        assert type(g) is type(r)
        assert_same(g, r)
    with pytest.raises(ValueError):
        _merge2(ufunc, states[0], tuple(np.zeros((1, 5)) for _ in range(ufunc.nout)))


@pytest.mark.parametrize("func", [nr.minmax, nr.meanvar, nr.logsumexp])
@pytest.mark.parametrize("source", ["from_array", "rechunk"])
def test_block_tasks_not_fused_into_subgraphs(func, source):
    """Each block's reduction stays one plain task after Dask's optimisation:
    the block function is one shared key, so linear fusion does not wrap
    every block's task and its source task (a NumPy block, a rechunk) into a
    subgraph run by _execute_subgraph (an inner dask.order per task).
    (A Blockwise source, map_blocks, is still fused with the block's task
    by Dask's layer-level blockwise fusion, as Dask's own reductions are.)"""
    from dask.array.core import Array

    a = np.random.default_rng(7).random(1000)
    x = da.from_array(a, chunks=10)
    if source == "rechunk":
        x = da.from_array(a, chunks=5).rechunk(10)
    outs = func(x)
    outs = outs if isinstance(outs, tuple) else (outs,)
    graph, res = _executed_graph(outs)
    funcs = _task_funcs(graph)
    assert funcs.count("_apply_block") == x.npartitions  # one plain task per block
    # the shared block function: one key, every block's task depends on it
    fn_keys = [k for k in graph if str(k).startswith("numreduce-fn-")]
    assert len(fn_keys) == 1
    # only the outputs' finalize steps are fused subgraphs, not the blocks
    assert funcs.count("_execute_subgraph") <= len(outs)
    refs = func(x.compute())
    refs = refs if isinstance(refs, tuple) else (refs,)
    for r, ref in zip(res, refs):
        assert_same(r, ref, exact=func is nr.minmax)
    assert all(isinstance(o, Array) for o in outs)


# ---------------------------------------------------------------------------
# errors at graph-build time
# ---------------------------------------------------------------------------

def test_errors_at_build_time():
    a = np.arange(24.0).reshape(4, 6)
    x, calls = _counting_source(a, 2)
    with pytest.raises(np.exceptions.AxisError):
        nr.minmax(x, axis=2)
    with pytest.raises(np.exceptions.AxisError):
        nr.meanvar(x, axis=(0, 5))
    with pytest.raises(np.exceptions.AxisError):
        nr.argminmax(x, axis=-3)
    with pytest.raises(TypeError, match="axis"):
        nr.argminmax(x, axis=(0, 1))
    with pytest.raises(ValueError, match="does not broadcast"):
        nr.minmax(x, where=np.ones(4, bool), initial=0.0)
    with pytest.raises(ValueError, match="does not broadcast"):
        nr.meanvar(x, where=da.ones(5, dtype=bool))
    with pytest.raises(TypeError, match="boolean"):
        nr.meanvar(x, where=da.ones(6, dtype=float))
    with pytest.raises(ValueError, match="initial"):
        nr.minmax(x, where=np.ones(6, bool))  # no identity: NumPy's rule
    with pytest.raises(TypeError, match="dtype"):
        nr.meanvar(x.astype("datetime64[s]"))
    with pytest.raises(TypeError, match="dtype"):
        nr.meanvar(x, dtype=np.int32)
    with pytest.raises(TypeError, match="ddof"):
        nr.meanvar(x, ddof="1")
    with pytest.raises(TypeError, match="out="):
        nr.minmax(x, out=(np.empty(()), np.empty(())))
    with pytest.raises(ValueError, match="zero-size"):
        nr.minmax(da.zeros((0, 3), chunks=2))
    with pytest.raises(ValueError, match="empty sequence"):
        nr.argminmax(da.zeros((3, 0), chunks=2), axis=1)
    with pytest.raises(ValueError, match="axis"):
        nr.cumminmax(x)  # 2-d: axis is required, as on the NumPy path
    with pytest.raises(TypeError, match="ndarray"):
        nr.at(nr.minimummaximum, (x, x), [0], 1.0)  # in place: not on dask
    assert isinstance(nr.logsumexp(x.astype(complex)), da.Array)  # complex: lazy too
    with pytest.raises(TypeError, match="masked"):
        nr.minmax(da.ma.masked_greater(x, 3))
    assert calls == []
    # Dask's own reductions raise there too
    with pytest.raises(np.exceptions.AxisError):
        x.min(axis=2)


def test_all_nan_slice_at_compute():
    a = np.array([[np.nan, 1.0], [np.nan, 2.0]])
    x = da.from_array(a, chunks=1)
    lo, hi = nr.nanargminmax(x, axis=1)  # fine: every row has a number
    assert_same(lo.compute(**SYNC), np.nanargmin(a, axis=1))
    with pytest.raises(ValueError, match="All-NaN slice"):
        dask.compute(*nr.nanargminmax(x, axis=0), **SYNC)
    with pytest.warns(RuntimeWarning, match="All-NaN"):
        lo, hi = dask.compute(*nr.nanminmax(x, axis=0), **SYNC)
    assert np.isnan(lo[0]) and lo[1] == 1.0


def test_import_does_not_import_dask():
    code = ("import sys, numpy as np, numreduce as nr; nr.minmax(np.arange(3.0)); "
            "nr.meanvar([1.0, 2.0]); "
            "assert not any(m == 'dask' or m.startswith('dask.') for m in sys.modules), "
            "sorted(m for m in sys.modules if m.startswith('dask'))")
    subprocess.run([sys.executable, "-P", "-c", code], check=True, cwd="/")


# ---------------------------------------------------------------------------
# pickling, schedulers
# ---------------------------------------------------------------------------

def test_pickle_ufuncs_states_and_graphs():
    for u in (nr.minimummaximum, nr.fminfmax, nr.moments, nr.nanmoments, nr.maxsumexp,
              nr.twosum):
        assert pickle.loads(pickle.dumps(u)) is u
    a = np.random.default_rng(3).random((9, 8))
    states = nr.reduce(nr.moments, a, axis=0, keepdims=True)
    back = pickle.loads(pickle.dumps(states))
    assert all(np.array_equal(s, b) for s, b in zip(states, back))
    x = da.from_array(a, chunks=(4, 3))
    for outs in (nr.minmax(x, axis=1), nr.meanvar(x), nr.argminmax(x, axis=0),
                 (nr.logsumexp(x),), (nr.fsum(x, axis=0),)):
        got = dask.compute(*pickle.loads(pickle.dumps(outs)), **SYNC)
        ref = dask.compute(*outs, **SYNC)
        for g, r in zip(got, ref):
            assert_same(g, r)


def _scheduler_cases():
    rng = np.random.default_rng(4)
    a = rng.standard_normal((23, 17)).astype(np.float32)
    a[3, :5] = np.nan
    chunks = ((5, 0, 1, 17), (8, 9))
    return a, chunks


def _check_all(compute, a, chunks):
    x = da.from_array(a, chunks=chunks)
    calls = [
        (nr.minmax, {"axis": 0}), (nr.nanminmax, {"axis": None}), (nr.meanvar, {"axis": 1}),
        (nr.nanmeanvar, {"axis": 0, "ddof": 1}), (nr.argminmax, {"axis": 1}),
        (nr.nanargminmax, {"axis": None}),
    ]
    graphs = [f(x, **kw) for f, kw in calls] + [(nr.logsumexp(x, axis=0),),
                                                 (nr.fsum(x, axis=1),)]
    flat = [o for g in graphs for o in g]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        got = compute(flat)
        refs = [r for f, kw in calls for r in f(a, **kw)] + [nr.logsumexp(a, axis=0),
                                                              nr.fsum(a, axis=1)]
    for g, r in zip(got, refs):
        assert_same(g, r, exact=False, rtol=1e-6, atol=1e-6)


@pytest.mark.parametrize("scheduler", ["synchronous", "threads", "processes"])
def test_schedulers(scheduler):
    a, chunks = _scheduler_cases()
    _check_all(lambda outs: dask.compute(*outs, scheduler=scheduler), a, chunks)


@pytest.fixture(scope="module")
def client():
    distributed = pytest.importorskip("distributed",
                                      reason="dask.distributed is not installed")
    # dashboard_address=None still binds the scheduler's HTTP server to port
    # 8787; ":0" lets the OS pick a free port, so that this module-scoped
    # cluster and test_distributed_worker_tasks_take_one_thread's do not
    # collide (distributed's "Port 8787 is already in use" warning)
    with distributed.LocalCluster(n_workers=2, threads_per_worker=1, processes=True,
                                  dashboard_address=":0", silence_logs=40) as cluster, \
            distributed.Client(cluster) as c:
        yield c


def test_distributed_cluster(client):
    a, chunks = _scheduler_cases()
    _check_all(lambda outs: client.compute(list(outs), sync=True), a, chunks)
    # the chunk tasks ran on both worker processes' side of the wire
    x = da.from_array(np.random.default_rng(5).random((400, 300)), chunks=(50, 100))
    lo, hi = client.compute(list(nr.minmax(x, axis=0)), sync=True)
    assert_same(lo, x.compute().min(axis=0))
    assert len(client.scheduler_info()["workers"]) == 2


# ---------------------------------------------------------------------------
# grouped reductions
# ---------------------------------------------------------------------------

@FAST
@given(data=st.data(), case=arrays(dtypes=("float64", "float32", "int32", "complex128"),
                                   max_ndim=2, nans=True), se=split_every)
def test_grouped_differential(data, case, se):
    a, chunks = case
    x = da.from_array(a, chunks=chunks)
    axis = data.draw(st.integers(-a.ndim, a.ndim - 1))
    n = a.shape[axis]
    g = data.draw(st.integers(1, 5))
    ids = np.asarray(data.draw(st.lists(st.integers(0, g - 1), min_size=n, max_size=n)),
                     dtype=np.int64)
    as_dask = data.draw(st.booleans())
    gids = da.from_array(ids, chunks=max(1, n // 2)) if as_dask and n else ids
    initial = data.draw(st.sampled_from([NOT_GIVEN, 0]))
    kw = {} if initial is NOT_GIVEN else {"initial": initial}
    # where=: none, a full NumPy mask, the same as a dask array in other
    # chunks, or a mask of the last axis that broadcasts
    wmode = data.draw(st.sampled_from(["none", "numpy", "dask", "bcast"]))
    mask_rng = np.random.default_rng(data.draw(st.integers(0, 2**32 - 1)))
    wkw, wkw_np = {}, {}
    if wmode != "none":
        m = mask_rng.random(a.shape if wmode != "bcast" else a.shape[-1:]) < 0.7
        wkw_np = {"where": m}
        wkw = {"where": da.from_array(m, chunks=max(1, max(m.shape, default=1) // 3))
               if wmode == "dask" else m}
    calls = [(nr.group_minmax, dict(kw)),
             (nr.group_meanvar, {"ddof": data.draw(st.sampled_from([0, 1]))})]
    if a.dtype.kind != "c":
        calls += [(nr.group_logsumexp, {}), (nr.group_fsum, {})]
    with tree(se):
        for f, extra in calls:
            if f is nr.group_minmax and a.dtype.kind == "c":
                continue
            wx, wn = (wkw, wkw_np) if f in (nr.group_minmax, nr.group_meanvar) else ({}, {})
            ref, err = outcome(lambda: f(a, ids, num_groups=g, axis=axis, **extra, **wn))
            if err is not None:
                with pytest.raises(err):
                    out = f(x, gids, num_groups=g, axis=axis, **extra, **wx)
                    dask.compute(*(out if isinstance(out, tuple) else (out,)), **SYNC)
                continue
            out = f(x, gids, num_groups=g, axis=axis, **extra, **wx)
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                got = dask.compute(*(out if isinstance(out, tuple) else (out,)), **SYNC)
            ref = ref if isinstance(ref, tuple) else (ref,)
            for gt, r in zip(got, ref):
                assert_same(gt, r, exact=f is nr.group_minmax, rtol=1e-5, atol=1e-5 * (
                    1 + float(np.nansum(np.abs(a.astype(np.complex128))))))
        u = data.draw(st.sampled_from([nr.moments, nr.twosum, nr.minimummaximum]))
        if not (u is nr.minimummaximum and a.dtype.kind == "c"):
            ref, err = outcome(lambda: nr.reduce_by_group(u, a, ids, g, axis=axis, **kw,
                                                          **wkw_np))
            if err is not None:
                with pytest.raises(err):
                    dask.compute(*nr.reduce_by_group(u, x, gids, g, axis=axis, **kw, **wkw),
                                 **SYNC)
            else:
                got = dask.compute(*nr.reduce_by_group(u, x, gids, g, axis=axis, **kw, **wkw),
                                   **SYNC)
                if u is nr.twosum:
                    got, ref = [np.add(*got)], [np.add(*ref)]
                for gt, r in zip(got, ref):
                    assert_same(gt, r, exact=u is nr.minimummaximum, rtol=1e-5,
                                atol=1e-5 * (1 + float(np.nansum(np.abs(a) ** 2 + np.abs(a)))))


@FAST
@given(data=st.data(), case=arrays(dtypes=("float64", "float32", "int32", "int16"), max_ndim=1,
                                   nans=True), se=split_every)
def test_group_argminmax_differential(data, case, se):
    """Global indices of each group's first minimum and maximum (the first
    NaN for both where a group has one), across chunk borders, empty chunks
    and ties, NumPy or dask ids; the NumPy path's errors (empty group, id
    out of range) at build time for NumPy ids, at compute time for dask."""
    a, chunks = case
    x = da.from_array(a, chunks=chunks)
    n = a.shape[0]
    g = data.draw(st.integers(1, 4))
    ids = np.asarray(data.draw(st.lists(st.integers(0, g), min_size=n, max_size=n)),
                     dtype=np.int64)  # g itself: out of range, sometimes
    num_groups = data.draw(st.sampled_from([None, g]))
    as_dask = data.draw(st.booleans()) and num_groups is not None
    gids = da.from_array(ids, chunks=max(1, n // 3)) if as_dask and n else ids
    ref, err = outcome(lambda: nr.group_argminmax(a, ids, num_groups))
    with tree(se):
        if err is not None:
            with pytest.raises(err):
                dask.compute(*nr.group_argminmax(x, gids, num_groups), **SYNC)
            return
        got = dask.compute(*nr.group_argminmax(x, gids, num_groups), **SYNC)
    for gt, r in zip(got, ref):
        assert_same(gt, r)


@FAST
@given(data=st.data(), case=arrays(dtypes=("float64", "float32", "int32"), max_ndim=2,
                                   nans=False), se=split_every)
def test_initial_counted_once(data, case, se):
    """initial= is the start of the whole reduction, not of every block: a
    moments seed adds its count once, a twosum seed its value once, a
    maxsumexp seed its term once, whatever the chunking (a regression: every
    block was seeded, so the seed counted once per block)."""
    a, chunks = case
    x = da.from_array(a, chunks=chunks)
    axis = data.draw(st.sampled_from([None] + list(range(a.ndim))))
    u, init = data.draw(st.sampled_from([
        (nr.moments, (2.0, 7.5, 3.0)), (nr.twosum, (5.0, 0.0)), (nr.maxsumexp, (3.0, 0.5)),
        (nr.minimummaximum, (-1.0, 1.0))]))
    where = None
    if data.draw(st.booleans()):
        where = np.random.default_rng(data.draw(st.integers(0, 99))).random(a.shape) < 0.6
    kw = {} if where is None else {"where": where}
    ref, err = outcome(lambda: nr.reduce(u, a, axis=axis, initial=init, **kw))
    with tree(se):
        if err is not None:
            with pytest.raises(err):
                dask.compute(*nr.reduce(u, x, axis=axis, initial=init, **kw), **SYNC)
        else:
            got = dask.compute(*nr.reduce(u, x, axis=axis, initial=init, **kw), **SYNC)
            scale = 1 + float(np.sum(np.abs(a.astype(np.float64)) ** 2)) + 100
            if u is nr.twosum:  # (s, e) splits differ; their sum is the result
                got, ref = [np.add(*got)], [np.add(*ref)]
            for gt, r in zip(got, ref):
                assert_same(gt, r, exact=u is nr.minimummaximum, rtol=1e-9, atol=1e-9 * scale)
        if a.ndim == 1 and u is not nr.maxsumexp:
            ids = np.arange(a.shape[0]) % 3
            ref = nr.reduce_by_group(u, a, ids, 3, initial=init, **kw)
            got = dask.compute(*nr.reduce_by_group(u, x, ids, 3, initial=init, **kw), **SYNC)
            if u is nr.twosum:
                got, ref = [np.add(*got)], [np.add(*ref)]
            for gt, r in zip(got, ref):
                assert_same(gt, r, exact=u is nr.minimummaximum, rtol=1e-9,
                            atol=1e-9 * (1 + float(np.sum(np.abs(a.astype(np.float64)) ** 2))
                                         + 100))


@FAST
@given(data=st.data(), case=arrays(dtypes=("float64", "float32", "int32", "int16"), max_ndim=2,
                                   nans=True), se=split_every)
def test_segments_differential(data, case, se):
    """reduceat and segmented_reduce on dask arrays against the NumPy path:
    segments across chunk borders, empty chunks, empty/overlapping/clipped
    segments, initial= (none, None, a seed), where= masks; the NumPy
    path's errors at graph-build time."""
    a, chunks = case
    x = da.from_array(a, chunks=chunks)
    axis = data.draw(st.integers(-a.ndim, a.ndim - 1))
    n = a.shape[axis]
    u = data.draw(st.sampled_from([nr.minimummaximum, nr.fminfmax, nr.moments, nr.maxsumexp,
                                   nr.twosum]))
    tol = dict(rtol=1e-5, atol=1e-5 * (1 + float(np.nansum(np.abs(a.astype(np.float64)) ** 2))))
    exact = u in (nr.minimummaximum, nr.fminfmax)

    def check(f_np, f_dask):
        ref, err = outcome(f_np)
        if err is not None:
            with pytest.raises(err):
                dask.compute(*f_dask(), **SYNC)
            return
        with tree(se), warnings.catch_warnings():
            warnings.simplefilter("ignore")
            got = dask.compute(*f_dask(), **SYNC)
        if u is nr.twosum:
            got, ref = [np.add(*got)], [np.add(*ref)]
        for gt, r in zip(got, ref):
            assert_same(gt, r, exact=exact, **tol)

    if n:
        idx = data.draw(st.lists(st.integers(0, n - 1), min_size=1, max_size=5))
        check(lambda: nr.reduceat(u, a, idx, axis=axis),
              lambda: nr.reduceat(u, x, idx, axis=axis))
    k = data.draw(st.integers(0, 5))
    starts = data.draw(st.lists(st.integers(-n - 2, n + 2), min_size=k, max_size=k))
    stops = data.draw(st.lists(st.integers(-n - 2, n + 2), min_size=k, max_size=k))
    kw = data.draw(st.sampled_from([{}, {"initial": None}, {"initial": 3.0},
                                    {"initial": (2.0, 1.0, 0.5)[:u.nout]}]))
    if data.draw(st.booleans()):
        rng = np.random.default_rng(data.draw(st.integers(0, 99)))
        kw = dict(kw, where=rng.random(a.shape) < 0.7)
    check(lambda: nr.segmented_reduce(u, a, starts, stops, axis=axis, **kw),
          lambda: nr.segmented_reduce(u, x, starts, stops, axis=axis, **kw))


@FAST
@given(data=st.data(), case=arrays(dtypes=("float64", "float32", "int32", "int16"), max_ndim=2,
                                   nans=True))
def test_accumulate_differential(data, case):
    """accumulate, cumminmax and nancumminmax on dask arrays against the
    NumPy path: carries across chunk borders and past empty chunks; min/max
    bit for bit, moments within rounding (a block's running states merged
    with the carry, Chan's merge instead of Welford's steps)."""
    a, chunks = case
    x = da.from_array(a, chunks=chunks)
    axis = data.draw(st.integers(-a.ndim, a.ndim - 1))
    u = data.draw(st.sampled_from([nr.minimummaximum, nr.fminfmax, nr.moments, nr.maxsumexp,
                                   nr.twosum]))
    dtype = data.draw(st.sampled_from([None, np.float64]))
    exact = u in (nr.minimummaximum, nr.fminfmax)
    ref, err = outcome(lambda: nr.accumulate(u, a, axis=axis, dtype=dtype))
    if err is not None:
        with pytest.raises(err):
            dask.compute(*nr.accumulate(u, x, axis=axis, dtype=dtype), **SYNC)
        return
    got = dask.compute(*nr.accumulate(u, x, axis=axis, dtype=dtype), **SYNC)
    if u is nr.twosum:
        got, ref = [np.add(*got)], [np.add(*ref)]
    if u is nr.maxsumexp:  # the log-sum-exp itself (t's split depends on the running max)
        with np.errstate(all="ignore"):
            got, ref = [got[0] + np.log1p(got[1])], [ref[0] + np.log1p(ref[1])]
    scale = 1 + float(np.nansum(np.abs(a.astype(np.float64)) ** 2))
    for gt, r in zip(got, ref):
        assert_same(gt, r, exact=exact, rtol=1e-5, atol=1e-5 * scale)
    f = nr.cumminmax if u is nr.minimummaximum else nr.nancumminmax
    kw = {"axis": axis} if a.ndim > 1 or data.draw(st.booleans()) else {}
    ref, err = outcome(lambda: f(a, **kw))
    if err is not None:
        with pytest.raises(err):
            dask.compute(*f(x, **kw), **SYNC)
    else:
        for gt, r in zip(dask.compute(*f(x, **kw), **SYNC), ref):
            assert_same(gt, r)


@FAST
@given(data=st.data(), case=arrays(dtypes=("float64", "float32", "int32", "int16", "complex128",
                                           "complex64"), max_ndim=2, nans=True))
def test_finished_scans_differential(data, case):
    """logcumsumexp, cumfsum (include_initial, dtype) and cummeanvar (ddof)
    on dask arrays against the NumPy path: dtypes, shapes and values within
    rounding; complex data (cumfsum, cummeanvar: the parts accumulated
    apart; complex logcumsumexp is a TypeError)."""
    a, chunks = case
    x = da.from_array(a, chunks=chunks)
    axis = data.draw(st.integers(-a.ndim, a.ndim - 1))
    cases = [(nr.cumfsum, {}), (nr.cumfsum, {"include_initial": True}),
             (nr.cumfsum, {"dtype": np.float32 if a.dtype.kind != "c" else np.complex64}),
             (nr.cummeanvar, {}), (nr.cummeanvar, {"ddof": 1})]
    if a.dtype.kind != "c":
        cases += [(nr.logcumsumexp, {}), (nr.logcumsumexp, {"include_initial": True}),
                  (nr.logcumsumexp, {"dtype": np.float64})]
    f, kw = data.draw(st.sampled_from(cases))
    ref, err = outcome(lambda: f(a, axis=axis, **kw))
    if err is not None:
        with pytest.raises(err):
            out = f(x, axis=axis, **kw)
            dask.compute(*(out if isinstance(out, tuple) else (out,)), **SYNC)
        return
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        out = f(x, axis=axis, **kw)
        got = dask.compute(*(out if isinstance(out, tuple) else (out,)), **SYNC)
    ref = ref if isinstance(ref, tuple) else (ref,)
    scale = 1 + float(np.nansum(np.abs(np.real(a).astype(np.float64)) ** 2))
    for gt, r in zip(got, ref):
        assert_same(gt, r, exact=False, rtol=1e-5, atol=1e-5 * scale)


@FAST
@given(data=st.data(), case=arrays(dtypes=("complex128", "complex64"), nans=True))
def test_complex_logsumexp_differential(data, case):
    """Complex logsumexp on dask (SciPy's complex rules, the NumPy path's
    array code on dask arrays) against the NumPy path: axes, keepdims,
    NaN/inf parts, empty chunks."""
    a, chunks = case
    x = da.from_array(a, chunks=chunks)
    axis = data.draw(st.sampled_from([None] + list(range(-a.ndim, a.ndim))))
    keepdims = data.draw(st.booleans())
    ref, err = outcome(lambda: nr.logsumexp(a, axis=axis, keepdims=keepdims))
    if err is not None:
        with pytest.raises(err):
            nr.logsumexp(x, axis=axis, keepdims=keepdims).compute(**SYNC)
        return
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # exp overflow of inf parts, at compute time
        got = nr.logsumexp(x, axis=axis, keepdims=keepdims).compute(**SYNC)
    assert_same(got, ref, exact=False, rtol=1e-5 if a.dtype == np.complex64 else 1e-12,
                atol=1e-6 if a.dtype == np.complex64 else 1e-12)


def test_complex_finished_scans():
    """Complex cumfsum / cummeanvar on dask: the parts' scans over the same
    chunks (each block read once per compute), NaN/inf parts as the NumPy
    path; complex logcumsumexp is refused at build time."""
    a = np.array([1 + 2j, np.inf + 0j, 3 - 1j, complex(np.nan, 1), 2 + 2j, 5j, -1 - 1j])
    x = da.from_array(a, chunks=3)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        for f, kw in ((nr.cumfsum, {}), (nr.cumfsum, {"include_initial": True}),
                      (nr.cummeanvar, {}), (nr.cummeanvar, {"ddof": 1})):
            ref = f(a, **kw)
            got = dask.compute(*(f(x, **kw) if isinstance(ref, tuple) else (f(x, **kw),)),
                               **SYNC)
            for g, r in zip(got, ref if isinstance(ref, tuple) else (ref,)):
                assert g.dtype == r.dtype
                np.testing.assert_allclose(g, r, rtol=1e-12, equal_nan=True)
                np.testing.assert_array_equal(np.isnan(g), np.isnan(r))
    with pytest.raises(TypeError, match="complex dask arrays"):
        nr.logcumsumexp(x)


NOT_GIVEN = object()


def test_grouped_errors_and_laziness():
    a = np.arange(24.0).reshape(6, 4)
    x, calls = _counting_source(a, 2)
    ids = np.array([0, 1, 0, 2, 1, 0])
    lo, hi = nr.group_minmax(x, ids)
    assert calls == [] and lo.shape == (3, 4)
    got = dask.compute(lo, hi, scheduler="synchronous")
    assert len(calls) == x.npartitions  # both outputs: each chunk read once
    for g, r in zip(got, nr.group_minmax(a, ids)):
        assert_same(g, r)
    with pytest.raises(ValueError, match="group 3 is empty"):
        nr.group_minmax(x, ids, num_groups=4)  # NumPy ids: at build time
    with pytest.raises(ValueError, match="num_groups is required"):
        nr.group_minmax(x, da.from_array(ids, chunks=4))
    with pytest.raises(IndexError, match="outside"):
        nr.group_meanvar(x, ids, num_groups=2)
    with pytest.raises(ValueError, match="1-d"):
        nr.group_fsum(x, ids[:5])
    with pytest.raises(TypeError, match="integers"):
        nr.group_fsum(x, ids.astype(float))
    # where=: the NumPy path's rules at graph-build time
    with pytest.raises(ValueError, match="does not have an identity"):
        nr.group_minmax(x, ids, where=np.ones((6, 4), bool))
    with pytest.raises(ValueError, match="does not broadcast"):
        nr.group_meanvar(x, ids, where=np.ones((5, 4), bool))
    with pytest.raises(TypeError, match="boolean"):
        nr.group_meanvar(x, ids, where=np.ones((6, 4), int))
    with pytest.raises(ValueError, match="group 3 is empty"):
        nr.group_argminmax(x[:, 0], ids, num_groups=4)
    with pytest.raises(ValueError, match="1-d"):
        nr.group_argminmax(x, ids)
    assert len(calls) == x.npartitions  # the errors above: at graph-build time
    mask = (a % 3) != 0
    lo, hi = nr.group_minmax(x, ids, where=da.from_array(mask, chunks=3), initial=-1.0)
    for g, r in zip(dask.compute(lo, hi, **SYNC),
                    nr.group_minmax(a, ids, where=mask, initial=-1.0)):
        assert_same(g, r)
    with pytest.raises(ValueError, match="group 3 is empty"):  # dask ids: at compute time
        dask.compute(*nr.group_minmax(x, da.from_array(ids, chunks=4), num_groups=4), **SYNC)


def test_bench_dask_rows_run(capsys):
    """The dask rows of `python -m numreduce bench` build and time (small
    data, one repeat; the ratios themselves are machine figures)."""
    from numreduce._bench import dask_rows

    rows = dask_rows([], {"repeats": 1, "min_total": 0.0}, quick=True, n=10**4)
    try:
        import xarray  # noqa: F401  (the describe row needs it)
        xr_rows = [["xr", "dask"]]
    except ImportError:
        xr_rows = []
    assert [r[0].split()[:2] for r in rows] == [["dask", "minmax"], ["dask", "meanvar"],
                                                ["dask", "logsumexp"]] + xr_rows
    if xr_rows:  # describe's graph reads each chunk in one task
        assert "chunks read by 1 task ok" in rows[3][0]
    for _, t_nr, t_ref, ratio, goal, status in rows:
        assert t_nr > 0 and t_ref > 0 and ratio == pytest.approx(t_ref / t_nr)
        assert status in ("ok", "MISS") and goal.startswith(">=")
    out = capsys.readouterr().out
    assert "variance error" in out and ": ok" in out  # numreduce's error <= Dask's
    # the logsumexp bound names its three measured times, CPU included
    assert "logsumexp" in out and "(CPU " in out and "cores" in out


def test_several_graphs_computed_together():
    """Calls on different arrays and axes computed in one dask.compute: each
    graph keeps its own block function key (the same function shares one)."""
    rng = np.random.default_rng(13)
    a, b = rng.random((50, 40)), rng.random((30, 20)) * 5
    x, y = da.from_array(a, chunks=(7, 9)), da.from_array(b, chunks=(11, 4))
    outs = (*nr.minmax(x), *nr.minmax(y), *nr.minmax(x, axis=0), *nr.meanvar(y, axis=1),
            nr.logsumexp(y, axis=1))
    got = dask.compute(*outs, scheduler="threads")
    refs = (*nr.minmax(a), *nr.minmax(b), *nr.minmax(a, axis=0), *nr.meanvar(b, axis=1),
            nr.logsumexp(b, axis=1))
    for g, r in zip(got[:6], refs[:6]):
        assert_same(g, r)
    for g, r in zip(got[6:], refs[6:]):
        assert_same(g, r, exact=False)


# ---------------------------------------------------------------------------
# No oversubscription: inside the Dask backend's tasks numreduce's calls take
# one thread unless the user chose the count
# ---------------------------------------------------------------------------

def _threads_in_tasks(monkeypatch, scheduler, f):
    """The thread counts numreduce's calls got inside the graph's tasks."""
    from numreduce import _host

    seen = []

    def recorded(real):
        def call(*args, **kwargs):
            seen.append(nr._core._get_num_threads()[2])
            return real(*args, **kwargs)
        return call

    for fn in ("reduce_parts", "reduce", "quick_reduce", "group_reduce", "scan"):
        monkeypatch.setattr(_host, fn, recorded(getattr(_host, fn)))
    dask.compute(*f(), scheduler=scheduler)
    assert seen, "no task reached numreduce"
    return set(seen)


_TASK_CALLS = [
    ("meanvar", lambda x: nr.meanvar(x)),
    ("minmax", lambda x: nr.minmax(x)),
    ("reduce", lambda x: nr.reduce(nr.minimummaximum, x, where=x > 2, initial=(9.0, 0.0))),
    ("group_minmax", lambda x: nr.group_minmax(x, np.arange(x.shape[0]) % 3, num_groups=3)),
    ("accumulate", lambda x: nr.accumulate(nr.minimummaximum, x)),
]


@pytest.mark.parametrize("scheduler", ["threads", "synchronous"])
@pytest.mark.parametrize("name,f", _TASK_CALLS, ids=[n for n, _ in _TASK_CALLS])
def test_tasks_take_one_thread_at_the_default(monkeypatch, scheduler, name, f):
    nr._core._set_default_threads(4)  # a default of 4 (on any machine), not a choice
    x = da.from_array(np.arange(1.0, 4001.0), chunks=1000)
    assert _threads_in_tasks(monkeypatch, scheduler, lambda: f(x)) == {1}
    # outside the tasks: the default count
    assert nr._core._get_num_threads() == (4, False, 4)


@pytest.mark.parametrize("name,f", _TASK_CALLS, ids=[n for n, _ in _TASK_CALLS])
def test_tasks_take_the_count_the_user_chose(monkeypatch, name, f):
    nr.set_num_threads(3)
    x = da.from_array(np.arange(1.0, 4001.0), chunks=1000)
    assert _threads_in_tasks(monkeypatch, "threads", lambda: f(x)) == {3}


def test_tasks_results_the_same_at_one_thread_and_default():
    """A chunk of more than 2**21 elements: the task reduces it in chunks
    whether one thread or several compute them."""
    from numreduce import _config

    x = da.from_array(np.random.default_rng(3).standard_normal(5 * 2**21) + 1e3,
                      chunks=5 * 2**20)
    _config.reset_num_threads()
    default = dask.compute(*nr.meanvar(x), scheduler="threads")
    nr.set_num_threads(4)
    four = dask.compute(*nr.meanvar(x), scheduler="threads")
    assert [np.asarray(r).tobytes() for r in default] == [np.asarray(r).tobytes() for r in four]


def test_distributed_worker_tasks_take_one_thread(monkeypatch):
    distributed = pytest.importorskip("distributed", reason="distributed is not installed "
                                      "(the 'dask' extra has it)")
    from numreduce import _host

    nr._core._set_default_threads(4)  # a default of 4 (on any machine), not a choice
    seen = []
    real = _host.reduce_parts

    def parts(*args, **kwargs):
        seen.append(nr._core._get_num_threads()[2])
        return real(*args, **kwargs)

    monkeypatch.setattr(_host, "reduce_parts", parts)
    x = da.from_array(np.arange(1.0, 4001.0), chunks=1000)
    with distributed.Client(processes=False, n_workers=1, threads_per_worker=2,
                            dashboard_address=":0") as client:  # a free port (see client)
        client.compute(list(nr.meanvar(x)), sync=True)
    assert seen and set(seen) == {1}
