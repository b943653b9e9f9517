"""numreduce.merge: partial states combined with the traits' combine().

The contract, merge(u, reduce(u, a[:k]), reduce(u, a[k:])) == reduce(u, a),
is checked against references written from NumPy's and the standard
library's single-output pieces: np.minimum/np.maximum (np.fmin/np.fmax)
reductions exactly, np.mean/np.var, scipy.special.logsumexp and math.fsum
within the accuracy bounds of docs/accuracy.md.
"""

from __future__ import annotations

import math
import pathlib
import re
import warnings

import numpy as np
import pytest
from hypothesis import assume, given
from hypothesis import strategies as st
from hypothesis.extra import numpy as hnp

import numreduce as nr

from helpers import ALL_DTYPES, FLOAT_DTYPES, INT_DTYPES, arrays, lse_atol

DOCS = pathlib.Path(__file__).resolve().parent.parent / "docs"


@st.composite
def split_case(draw, dtypes, allow_empty_part):
    """(a, axis, split_axis, k): a reduction axis (int or tuple), one of its
    axes to split the array along, and the split point."""
    a = draw(arrays(dtypes=dtypes, min_dims=1, max_dims=3, max_side=6))
    ndim = a.ndim
    kind = draw(st.sampled_from(["int", "tuple", "none"]))
    if kind == "int":
        axis = draw(st.integers(-ndim, ndim - 1))
        axes = (axis % ndim,)
    elif kind == "tuple":
        axes = tuple(draw(st.permutations(range(ndim)))[:draw(st.integers(1, ndim))])
        axis = axes
    else:
        axis, axes = None, tuple(range(ndim))
    split_axis = draw(st.sampled_from(sorted(axes)))
    n = a.shape[split_axis]
    lo = 0 if allow_empty_part else 1
    hi = n if allow_empty_part else n - 1
    assume(lo <= hi)
    if not allow_empty_part:
        assume(all(a.shape[i] > 0 for i in axes))
    k = draw(st.integers(lo, hi))
    return a, axis, split_axis, k


def parts(u, a, axis, split_axis, k):
    idx = [slice(None)] * a.ndim
    idx[split_axis] = slice(None, k)
    left = nr.reduce(u, a[tuple(idx)], axis=axis)
    idx[split_axis] = slice(k, None)
    right = nr.reduce(u, a[tuple(idx)], axis=axis)
    return left, right


ORDER = [(nr.minimummaximum, np.minimum, np.maximum), (nr.fminfmax, np.fmin, np.fmax)]


@pytest.mark.parametrize("u, lo, hi", ORDER, ids=["minimummaximum", "fminfmax"])
@given(case=split_case(ALL_DTYPES, allow_empty_part=False))
def test_merge_order_exact(u, lo, hi, case):
    a, axis, split_axis, k = case
    merged = nr.merge(u, *parts(u, a, axis, split_axis, k))
    want = (lo.reduce(a, axis=axis), hi.reduce(a, axis=axis))
    for g, w in zip(merged, want):
        assert g.dtype == w.dtype and np.shape(g) == np.shape(w)
        np.testing.assert_array_equal(g, w)
    # ... and bitwise the family's own whole reduction.
    for g, w in zip(merged, nr.reduce(u, a, axis=axis)):
        np.testing.assert_array_equal(g, w)


finite = st.floats(-1e4, 1e4, allow_nan=False, allow_infinity=False)


@st.composite
def finite_case(draw, with_nan=False):
    dtype = draw(st.sampled_from([np.float64, np.float32, np.int16, np.int64]))
    shape = draw(hnp.array_shapes(min_dims=1, max_dims=3, min_side=0, max_side=6))
    elements = finite if np.dtype(dtype).kind == "f" else None
    if with_nan:
        dtype = np.float64
        elements = st.one_of(finite, st.just(np.nan))
    a = draw(hnp.arrays(dtype, shape, elements=elements))
    ndim = a.ndim
    axis = draw(st.one_of(st.none(), st.integers(-ndim, ndim - 1)))
    axes = tuple(range(ndim)) if axis is None else (axis % ndim,)
    split_axis = draw(st.sampled_from(axes))
    k = draw(st.integers(0, a.shape[split_axis]))
    return a, axis, split_axis, k


@pytest.mark.parametrize("u", [nr.moments, nr.nanmoments], ids=["moments", "nanmoments"])
@given(data=st.data())
def test_merge_moments_against_numpy(u, data):
    skip_nan = u is nr.nanmoments
    a, axis, split_axis, k = data.draw(finite_case(with_nan=skip_nan))
    assume(a.dtype.kind == "f" or not skip_nan)
    count, mean, m2 = nr.merge(u, *parts(u, a, axis, split_axis, k))
    x = a.astype(np.float64)
    want_n = np.sum(~np.isnan(x), axis=axis)
    np.testing.assert_array_equal(count, want_n)
    with warnings.catch_warnings():  # empty slices: NaN references, masked below
        warnings.simplefilter("ignore")
        mean_ref = np.nanmean(x, axis=axis) if skip_nan else np.mean(x, axis=axis)
        var_ref = np.nanvar(x, axis=axis) if skip_nan else np.var(x, axis=axis)
    nonempty = want_n > 0
    scale = np.nanmax(np.abs(x), axis=axis, initial=1.0) if x.size else 1.0
    # Chan's merge of two states: a few ulps of the scale for the mean,
    # of count * scale**2 for M2 (docs/accuracy.md).
    tol = 64 * np.finfo(np.float64).eps
    np.testing.assert_array_less(np.abs(np.where(nonempty, mean - mean_ref, 0)),
                                 tol * scale + 1e-300)
    m2_ref = np.where(nonempty, var_ref * want_n, 0)
    np.testing.assert_array_less(np.abs(np.where(nonempty, m2 - m2_ref, 0)),
                                 tol * want_n * scale**2 + 1e-300)
    # The empty state is (0, 0, 0).
    assert np.all(np.where(nonempty, True, (mean == 0) & (m2 == 0)))


def _rows(a, axis):
    """The reduced lanes of `a` (axis None or an int) as a 2-D float64
    array, one row per result element, and the result's shape."""
    x = a.astype(np.float64).reshape(-1) if axis is None else np.moveaxis(
        a.astype(np.float64), axis, -1)
    return x.reshape(math.prod(x.shape[:-1]), x.shape[-1]), x.shape[:-1]


@given(case=finite_case())
def test_merge_maxsumexp_against_scipy(case):
    special = pytest.importorskip("scipy.special", reason="scipy is not installed (the 'test' extra)")
    a, axis, split_axis, k = case
    m, s = nr.merge(nr.maxsumexp, *parts(nr.maxsumexp, a, axis, split_axis, k))
    with np.errstate(divide="ignore"):
        got = m + np.log1p(s)
    rows, shape = _rows(a, axis)
    want = np.array([special.logsumexp(r) if r.size else -np.inf for r in rows]).reshape(shape)
    # absolute near 0 (rtol alone cannot hold there): docs/accuracy.md's bound
    np.testing.assert_allclose(got, want, rtol=1e-13, atol=lse_atol(rows.shape[1]))


@given(case=finite_case())
def test_merge_twosum_against_fsum(case):
    a, axis, split_axis, k = case
    s, e = nr.merge(nr.twosum, *parts(nr.twosum, a, axis, split_axis, k))
    rows, shape = _rows(a, axis)
    want = np.array([math.fsum(r) for r in rows]).reshape(shape)
    n = rows.shape[1]
    absum = np.sum(np.abs(rows), axis=1).reshape(shape)
    eps = np.finfo(np.asarray(s).dtype).eps  # the accumulator's (float32 for float32 data)
    # docs/accuracy.md: |fsum - exact| <= eps |exact| + n eps^2 sum|x|.
    bound = eps * np.abs(want) + (n + 2) * eps**2 * absum
    np.testing.assert_array_less(np.abs((np.asarray(s, np.float64) + np.asarray(e, np.float64)) - want), bound + 1e-300)


def test_merge_broadcasts():
    rng = np.random.default_rng(1)
    a = rng.standard_normal((3, 1))
    b = rng.standard_normal((1, 4))
    lo, hi = nr.merge(nr.minimummaximum, (a, a), (b, b))
    np.testing.assert_array_equal(lo, np.minimum(a, b))
    np.testing.assert_array_equal(hi, np.maximum(a, b))
    assert lo.shape == (3, 4)
    # A scalar state against an array of states.
    lo, hi = nr.merge(nr.minimummaximum, (0.0, 0.0), (a[:, 0], a[:, 0]))
    np.testing.assert_array_equal(lo, np.minimum(0.0, a[:, 0]))


def test_merge_scalars_and_out_in_place():
    a = np.arange(10.0)
    st0 = nr.reduce(nr.minimummaximum, a[:4])
    r = nr.merge(nr.minimummaximum, st0, nr.reduce(nr.minimummaximum, a[4:]))
    assert type(r[0]) is np.float64 and r == (0.0, 9.0)
    rows = np.random.default_rng(2).standard_normal((50, 7))
    state = tuple(np.array(s) for s in nr.reduce(nr.moments, rows[:10], axis=0))
    ret = nr.merge(nr.moments, state, nr.reduce(nr.moments, rows[10:], axis=0), out=state)
    assert all(r is s for r, s in zip(ret, state))
    np.testing.assert_array_equal(state[0], 50)
    np.testing.assert_allclose(state[1], rows.mean(axis=0), rtol=1e-13, atol=1e-15)
    np.testing.assert_allclose(state[2] / 50, rows.var(axis=0), rtol=1e-13)


@pytest.mark.parametrize("dtype", INT_DTYPES + FLOAT_DTYPES + ["M8[s]", "m8[ms]", np.bool_,
                                                                 np.complex128])
def test_merge_every_order_dtype(dtype):
    x = (np.arange(12) % 5).astype(dtype)
    x[3] = x[7]
    lo, hi = nr.merge(nr.minimummaximum, (x[:6], x[:6]), (x[6:], x[6:]))
    assert lo.dtype == x.dtype
    np.testing.assert_array_equal(lo, np.minimum(x[:6], x[6:]))
    np.testing.assert_array_equal(hi, np.maximum(x[:6], x[6:]))


def test_merge_nan_nat_propagation():
    a = np.array([1.0, np.nan, 3.0])
    b = np.array([np.nan, 2.0, 0.0])
    for u, lo, hi in ORDER:
        got = nr.merge(u, (a, a), (b, b))
        np.testing.assert_array_equal(got[0], lo(a, b))
        np.testing.assert_array_equal(got[1], hi(a, b))
    t = np.array(["2020-01-01", "NaT"], dtype="M8[D]")
    u = np.array(["NaT", "2021-01-01"], dtype="M8[s]")
    lo, hi = nr.merge(nr.minimummaximum, (t, t), (u, u))
    assert lo.dtype == np.dtype("M8[s]")
    np.testing.assert_array_equal(lo, np.minimum(t, u))


def test_merge_mixed_dtypes_promote():
    i = (np.int32(3), np.int32(7))
    f = (np.float64(5.5), np.float64(6.5))
    assert nr.merge(nr.minimummaximum, i, f) == (3.0, 7.0)
    assert type(nr.merge(nr.minimummaximum, i, f)[0]) is np.float64
    # float32 moment states are cast to the float64 accumulators.
    s32 = tuple(np.float32(v) for v in (2, 1.5, 0.5))
    n, mean, m2 = nr.merge(nr.moments, s32, (2.0, 3.5, 0.5))
    assert (n, mean, m2) == (4.0, 2.5, 5.0) and type(n) is np.float64


def test_merge_matches_threaded_chunks_for_big_stream():
    x = np.random.default_rng(3).standard_normal(10**6) * 1e3 + 1e6
    k = 333_333
    n, mean, m2 = nr.merge(nr.moments, nr.reduce(nr.moments, x[:k], axis=None),
                           nr.reduce(nr.moments, x[k:], axis=None))
    assert n == x.size
    assert abs(mean - np.mean(x)) <= 1e-15 * 1e6 * 4
    assert abs(m2 / n - np.var(x)) <= 1e-12 * np.var(x)


@pytest.mark.parametrize("call, exc, match", [
    (lambda o: nr.merge(np.add, (1.0,), (2.0,)), TypeError, "multi-output"),
    (lambda o: nr.merge(nr.minimummaximum, (1.0,), (1.0, 2.0), out=o), ValueError,
     "states_a.*one entry per ufunc output"),
    (lambda o: nr.merge(nr.minimummaximum, (1.0, 2.0), np.ones(2), out=o), TypeError,
     "states_b.*tuple"),
    (lambda o: nr.merge(nr.minimummaximum, (np.ones(3), np.ones(3)), (np.ones(4), np.ones(4)),
                        out=o), ValueError, "broadcast"),
    (lambda o: nr.merge(nr.minimummaximum, (np.ones(3), np.ones(3)), (["a"], ["b"]), out=o),
     TypeError, "no merge loop"),
    (lambda o: nr.merge(nr.moments, (np.ones(3, complex),) * 3, (np.ones(3),) * 3,
                        out=o + (np.full(3, -7.0),)),
     TypeError, "no merge loop"),
    (lambda o: nr.merge(nr.minimummaximum, (np.ones(3), np.ones(3)), (np.ones(3), np.ones(3)),
                        out=(o[0], np.ones(2))), ValueError, r"out\[1\] has shape"),
    (lambda o: nr.merge(nr.minimummaximum, (np.ones(3), np.ones(3)), (np.ones(3), np.ones(3)),
                        out=(o[0], o[0])), ValueError, "share memory"),
    (lambda o: nr.merge(nr.minimummaximum, (np.ones(3), np.ones(3)), (np.ones(3), np.ones(3)),
                        out=(o[0], np.ones(3, "U3"))), TypeError, "cannot cast"),
    (lambda o: nr.merge(nr.minimummaximum, (np.ones(3), np.ones(3)), (np.ones(3), np.ones(3)),
                        out=(o[0],)), ValueError, "one entry per ufunc output"),
    (lambda o: nr.merge(nr.minimummaximum, (np.ones(3), np.ones(3)), (np.ones(3), np.ones(3)),
                        out=(o[0], _readonly())), ValueError, "read-only"),
])
def test_merge_errors_before_writing(call, exc, match):
    out = (np.full(3, -7.0), np.full(3, -7.0))
    with pytest.raises(exc, match=match):
        call(out)
    np.testing.assert_array_equal(out[0], -7.0)
    np.testing.assert_array_equal(out[1], -7.0)


def _readonly():
    r = np.full(3, -7.0)
    r.flags.writeable = False
    return r


def test_merge_releases_gil_and_handles_strided_large():
    x = np.random.default_rng(4).standard_normal((2000, 300))
    a = nr.reduce(nr.minimummaximum, x[:1000], axis=0)
    b = nr.reduce(nr.minimummaximum, x[1000:], axis=0)
    got = nr.merge(nr.minimummaximum, (a[0][::-1], a[1][::-1]), (b[0][::-1], b[1][::-1]))
    np.testing.assert_array_equal(got[0], x.min(axis=0)[::-1])
    np.testing.assert_array_equal(got[1], x.max(axis=0)[::-1])


def test_streaming_example_in_docs(tmp_path, monkeypatch):
    """The user guide's streaming example (chunks of a memory-mapped file,
    docs/guide/ufunc-methods.md) runs."""
    text = (DOCS / "guide" / "ufunc-methods.md").read_text()
    m = re.search(r"<!-- streaming example -->\s*```python\n(.*?)```", text, re.S)
    assert m, "docs/guide/ufunc-methods.md lost its streaming example"
    monkeypatch.chdir(tmp_path)
    exec(compile(m.group(1), "docs/guide/ufunc-methods.md", "exec"), {})


def test_docstring_examples():
    import doctest

    import numreduce._api

    result = doctest.testmod(numreduce._api, optionflags=doctest.NORMALIZE_WHITESPACE)
    assert result.attempted > 0 and result.failed == 0
