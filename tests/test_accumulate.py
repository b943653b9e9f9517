"""numreduce.accumulate: prefix reductions of every output in one pass.

References: np.minimum/np.maximum (np.fmin/np.fmax) .accumulate output by
output, Python loops of np.minimum.reduce / np.maximum.reduce and of the
family's own numreduce.reduce over prefixes, np.mean/np.var of prefixes,
np.logaddexp.accumulate and math.fsum.
"""

from __future__ import annotations

import math
import warnings

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st
from hypothesis.extra import numpy as hnp

import numreduce as nr

from helpers import ALL_DTYPES, INT_DTYPES, arrays

ORDER = [(nr.minimummaximum, np.minimum, np.maximum), (nr.fminfmax, np.fmin, np.fmax)]
ORDER_IDS = ["minimummaximum", "fminfmax"]


def prefix(a, axis, i):
    idx = [slice(None)] * a.ndim
    idx[axis] = slice(None, i + 1)
    return a[tuple(idx)]


def take(a, axis, i):
    return np.take(a, i, axis=axis)


@st.composite
def array_and_axis(draw, dtypes=ALL_DTYPES, max_dims=3):
    a = draw(arrays(dtypes=dtypes, min_dims=1, max_dims=max_dims, max_side=6))
    return a, draw(st.integers(-a.ndim, a.ndim - 1))


@pytest.mark.parametrize("u, lo, hi", ORDER, ids=ORDER_IDS)
@given(case=array_and_axis())
def test_accumulate_order_against_numpy(u, lo, hi, case):
    a, axis = case
    got = nr.accumulate(u, a, axis=axis)
    want = (lo.accumulate(a, axis=axis), hi.accumulate(a, axis=axis))
    assert isinstance(got, tuple) and len(got) == 2
    for g, w in zip(got, want):
        assert type(g) is np.ndarray and g.dtype == w.dtype and g.shape == w.shape
        np.testing.assert_array_equal(g, w)
    # Element i is the reduction of the prefix [:i+1]: NumPy's reduce and
    # the family's own reduce over every prefix.
    ax = axis % a.ndim
    for i in range(a.shape[ax]):
        p = prefix(a, ax, i)
        for g, w in zip(got, (lo.reduce(p, axis=ax), hi.reduce(p, axis=ax))):
            np.testing.assert_array_equal(take(g, ax, i), w)
        for g, w in zip(got, nr.reduce(u, p, axis=ax)):
            np.testing.assert_array_equal(take(g, ax, i), w)


finite = st.floats(-1e4, 1e4, allow_nan=False)


@st.composite
def real_case(draw, with_nan=False):
    dtype = np.float64 if with_nan else draw(st.sampled_from([np.float64, np.float32,
                                                               np.float16, np.int8,
                                                               np.uint16, np.int64, np.bool_]))
    shape = draw(hnp.array_shapes(min_dims=1, max_dims=3, min_side=0, max_side=6))
    if np.dtype(dtype).kind == "f":
        el = st.one_of(finite, st.just(np.nan)) if with_nan else st.floats(
            -1e3, 1e3, allow_nan=False, width=np.dtype(dtype).itemsize * 8)
    else:
        el = None
    a = draw(hnp.arrays(dtype, shape, elements=el))
    return a, draw(st.integers(-a.ndim, a.ndim - 1))


@pytest.mark.parametrize("u", [nr.moments, nr.nanmoments], ids=["moments", "nanmoments"])
@given(data=st.data())
def test_accumulate_moments_against_prefixes(u, data):
    skip_nan = u is nr.nanmoments
    a, axis = data.draw(real_case(with_nan=skip_nan))
    n, mean, m2 = nr.accumulate(u, a, axis=axis)
    assert n.dtype == mean.dtype == m2.dtype == np.float64 and n.shape == a.shape
    x = a.astype(np.float64)
    ax = axis % a.ndim
    want_n = np.cumsum(~np.isnan(x), axis=ax)
    np.testing.assert_array_equal(n, want_n)
    eps = np.finfo(np.float64).eps
    for i in range(a.shape[ax]):
        p = prefix(x, ax, i)
        cnt = take(want_n, ax, i)
        ok = cnt > 0
        with warnings.catch_warnings():  # empty prefixes: NaN references, masked below
            warnings.simplefilter("ignore")
            ref_mean = (np.nanmean if skip_nan else np.mean)(p, axis=ax)
            ref_var = (np.nanvar if skip_nan else np.var)(p, axis=ax)
        scale = np.nanmax(np.abs(p), axis=ax, initial=1.0)
        got_mean, got_m2 = take(mean, ax, i), take(m2, ax, i)
        # Welford's running update: a few ulps of the scale per element.
        tol = 16 * (i + 1) * eps
        assert np.all(np.where(ok, np.abs(got_mean - ref_mean) <= tol * scale, got_mean == 0))
        assert np.all(np.where(ok, np.abs(got_m2 - ref_var * cnt) <= tol * cnt * scale**2,
                               got_m2 == 0))
        # ... and the family's own reduce of the prefix, within the same bound.
        rn, rmean, rm2 = nr.reduce(u, prefix(a, ax, i), axis=ax)
        np.testing.assert_array_equal(take(n, ax, i), rn)
        assert np.all(np.abs(got_mean - rmean) <= 2 * tol * scale)


@given(case=real_case())
def test_accumulate_maxsumexp_twosum(case):
    a, axis = case
    ax = axis % a.ndim
    x = a.astype(np.float64)
    m, s = nr.accumulate(nr.maxsumexp, a, axis=axis)
    np.testing.assert_array_equal(m, np.maximum.accumulate(x, axis=ax))
    want = np.logaddexp.accumulate(x, axis=ax)
    np.testing.assert_allclose(m + np.log1p(s), want, rtol=1e-13, atol=1e-12)
    s, e = nr.accumulate(nr.twosum, a, axis=axis)
    lanes_shape = (math.prod(x.shape) // max(x.shape[ax], 1), x.shape[ax])
    lanes = np.moveaxis(x, ax, -1).reshape(lanes_shape)
    got = np.moveaxis(np.asarray(s, np.float64) + np.asarray(e, np.float64), ax, -1)
    got = got.reshape(lanes_shape)
    acc_eps = np.finfo(s.dtype).eps
    for row, g in zip(lanes, got):
        for i in range(row.size):
            exact = math.fsum(row[:i + 1])
            bound = acc_eps * abs(exact) + (i + 3) * acc_eps**2 * np.sum(np.abs(row[:i + 1]))
            assert abs(g[i] - exact) <= bound + 1e-300, (row, i, g[i], exact)


def test_accumulate_nan_nat_and_every_integer_width():
    a = np.array([2.0, 1.0, np.nan, 0.0, 3.0])
    for u, lo, hi in ORDER:
        got = nr.accumulate(u, a)
        np.testing.assert_array_equal(got[0], lo.accumulate(a))
        np.testing.assert_array_equal(got[1], hi.accumulate(a))
    t = np.array(["2020-01-02", "2020-01-01", "NaT", "2021-01-01"], dtype="M8[D]")
    for u, lo, hi in ORDER:
        got = nr.accumulate(u, t)
        assert got[0].dtype == t.dtype
        np.testing.assert_array_equal(got[0], lo.accumulate(t))
        np.testing.assert_array_equal(got[1], hi.accumulate(t))
    for dt in INT_DTYPES + [np.bool_]:
        info = np.iinfo(dt) if dt is not np.bool_ else None
        x = np.array([3, 1, 2, 0, 5], dtype=dt) if info is None else \
            np.array([3, info.max, 2, info.min, 5], dtype=dt)
        lo, hi = nr.accumulate(nr.minimummaximum, x)
        assert lo.dtype == x.dtype
        np.testing.assert_array_equal(lo, np.minimum.accumulate(x))
        np.testing.assert_array_equal(hi, np.maximum.accumulate(x))


@pytest.mark.parametrize("shape, axis", [((0,), 0), ((0, 3), 0), ((0, 3), 1), ((3, 0), 0),
                                         ((2, 0, 4), 2)])
def test_accumulate_empty(shape, axis):
    a = np.zeros(shape)
    lo, hi = nr.accumulate(nr.minimummaximum, a, axis=axis)
    assert lo.shape == hi.shape == np.minimum.accumulate(a, axis=axis).shape
    n, mean, m2 = nr.accumulate(nr.moments, a.astype(np.int32), axis=axis)
    assert n.shape == shape and n.dtype == np.float64


def test_accumulate_big_and_2d_layouts():
    rng = np.random.default_rng(5)
    x = rng.standard_normal(10**6)
    lo, hi = nr.accumulate(nr.minimummaximum, x)
    np.testing.assert_array_equal(lo, np.minimum.accumulate(x))
    np.testing.assert_array_equal(hi, np.maximum.accumulate(x))
    y = rng.standard_normal((300, 200))
    for a in (y, y.T, y[::-2, ::3], np.asfortranarray(y)):
        for axis in (0, 1, -1):
            lo, hi = nr.accumulate(nr.minimummaximum, a, axis=axis)
            np.testing.assert_array_equal(lo, np.minimum.accumulate(a, axis=axis))
            np.testing.assert_array_equal(hi, np.maximum.accumulate(a, axis=axis))


def test_accumulate_axis_none_1d_and_tuple():
    a = np.array([3.0, 1.0, 2.0])
    for axis in (None, (0,), -1):
        lo, hi = nr.accumulate(nr.minimummaximum, a, axis=axis)
        np.testing.assert_array_equal(lo, np.minimum.accumulate(a, axis=axis))


def test_accumulate_out():
    a = np.random.default_rng(6).standard_normal((5, 4))
    lo, hi = np.empty((5, 4)), np.empty((5, 4))
    ret = nr.accumulate(nr.minimummaximum, a, axis=1, out=(lo, hi))
    assert ret[0] is lo and ret[1] is hi
    np.testing.assert_array_equal(lo, np.minimum.accumulate(a, axis=1))
    # Another dtype, a Fortran-ordered and a None entry: cast as reduce casts.
    lo32 = np.empty((5, 4), np.float32)
    hiF = np.empty((5, 4), order="F")
    r = nr.accumulate(nr.minimummaximum, a, axis=0, out=(lo32, None))
    assert r[0] is lo32 and r[1].dtype == np.float64
    np.testing.assert_array_equal(lo32, np.minimum.accumulate(a, axis=0).astype(np.float32))
    r = nr.accumulate(nr.minimummaximum, a, axis=0, out=(None, hiF))
    np.testing.assert_array_equal(hiF, np.maximum.accumulate(a, axis=0))


def test_accumulate_out_overlapping_input():
    """out aliasing the input (or a shifted view of it) gives what a
    separate out gives, as NumPy's accumulate does."""
    base = np.random.default_rng(7).standard_normal(20)
    want = nr.accumulate(nr.minimummaximum, base[::-1].copy())
    a = base[::-1].copy()
    other = np.empty_like(a)
    got = nr.accumulate(nr.minimummaximum, a, out=(a, other))
    assert got[0] is a
    np.testing.assert_array_equal(a, want[0])
    np.testing.assert_array_equal(other, want[1])
    buf = base.copy()
    x, o = buf[:-1], buf[1:]  # overlapping, shifted by one
    xcopy = x.copy()
    other = np.empty(19)
    nr.accumulate(nr.minimummaximum, x, out=(o, other))
    np.testing.assert_array_equal(o, np.minimum.accumulate(xcopy))
    np.testing.assert_array_equal(other, np.maximum.accumulate(xcopy))


def test_accumulate_dtype_argument():
    a = np.array([3, 1, 2], dtype=np.int16)
    lo, hi = nr.accumulate(nr.minimummaximum, a, dtype=np.float64)
    assert lo.dtype == np.float64
    np.testing.assert_array_equal(lo, np.minimum.accumulate(a, dtype=np.float64))
    n, mean, m2 = nr.accumulate(nr.moments, np.array([1, 2, 3], np.int8))
    np.testing.assert_array_equal(mean, [1.0, 1.5, 2.0])


def test_accumulate_single_output_passthrough():
    a = np.arange(12.0).reshape(3, 4)
    np.testing.assert_array_equal(nr.accumulate(np.add, a, axis=1), np.add.accumulate(a, axis=1))
    np.testing.assert_array_equal(nr.accumulate(np.minimum, a), np.minimum.accumulate(a))
    with pytest.raises(TypeError, match="ufunc"):
        nr.accumulate(len, a)


def _readonly():
    r = np.full(3, -7.0)
    r.flags.writeable = False
    return r


@pytest.mark.parametrize("call, exc, match", [
    (lambda o: nr.accumulate(nr.minimummaximum, 1.0, out=o), TypeError, "scalar"),
    (lambda o: nr.accumulate(nr.minimummaximum, np.ones((3, 2)), axis=None,
                             out=(np.full((3, 2), -7.0), o[1])), ValueError, "multiple axes"),
    (lambda o: nr.accumulate(nr.minimummaximum, np.ones((3, 2)), axis=(0, 1)), ValueError,
     "multiple axes"),
    (lambda o: nr.accumulate(nr.minimummaximum, np.ones(3), axis=1, out=o), np.exceptions.AxisError,
     "out of bounds"),
    (lambda o: nr.accumulate(nr.minimummaximum, np.ones(3), axis=0.0, out=o), TypeError, "axis"),
    (lambda o: nr.accumulate(nr.minimummaximum, np.ones(3), out=(o[0],)), ValueError,
     "one entry per ufunc output"),
    (lambda o: nr.accumulate(nr.minimummaximum, np.ones(3), out=o[0]), TypeError, "tuple"),
    (lambda o: nr.accumulate(nr.minimummaximum, np.ones(4), out=o), ValueError, "shape"),
    (lambda o: nr.accumulate(nr.minimummaximum, np.ones(3), out=(o[0], o[0])), ValueError,
     "share memory"),
    (lambda o: nr.accumulate(nr.minimummaximum, np.ones(3), out=(o[0], _readonly())),
     ValueError, "read-only"),
    (lambda o: nr.accumulate(nr.minimummaximum, np.ones(3), out=(o[0], np.ones(3, "U4"))),
     TypeError, "cannot cast"),
    (lambda o: nr.accumulate(nr.minimummaximum, np.array(["a", "b", "c"]), out=o), TypeError,
     "minimummaximum"),
    (lambda o: nr.accumulate(nr.moments, np.ones(3, complex), out=o + (o[0].copy(),)),
     TypeError, "moments"),
    (lambda o: nr.accumulate(nr.minimummaximum, np.ones(3), dtype="U3", out=o), TypeError,
     "dtype"),
])
def test_accumulate_errors_before_writing(call, exc, match):
    out = (np.full(3, -7.0), np.full(3, -7.0))
    with pytest.raises(exc, match=match):
        call(out)
    np.testing.assert_array_equal(out[0], -7.0)
    np.testing.assert_array_equal(out[1], -7.0)


def test_docstring_examples():
    import doctest

    import numreduce._api

    result = doctest.testmod(numreduce._api, optionflags=doctest.NORMALIZE_WHITESPACE)
    assert result.attempted > 0 and result.failed == 0


# ---------------------------------------------------------------------------
# cumminmax: the user function
# ---------------------------------------------------------------------------

@given(case=array_and_axis(max_dims=2))
def test_cumminmax_against_numpy(case):
    a, axis = case
    ax = None if a.ndim == 1 and axis == 0 else axis  # None: only for 1-d
    lo, hi = nr.cumminmax(a, axis=ax)
    want_lo = np.minimum.accumulate(a, axis=axis)
    want_hi = np.maximum.accumulate(a, axis=axis)
    assert lo.dtype == want_lo.dtype and hi.dtype == want_hi.dtype
    np.testing.assert_array_equal(lo, want_lo)
    np.testing.assert_array_equal(hi, want_hi)


def test_cumminmax_signature_rules():
    # np.cumulative_sum's rules: axis required for ndim > 1, 0-d counts as 1-d.
    with pytest.raises(ValueError, match="axis"):
        nr.cumminmax(np.ones((2, 3)))
    lo, hi = nr.cumminmax(np.float64(2.5))
    assert lo.shape == (1,)
    if hasattr(np, "cumulative_sum"):  # the reference itself: NumPy >= 2.1
        with pytest.raises(ValueError):  # NumPy raises the same type
            np.cumulative_sum(np.ones((2, 3)))
        assert np.cumulative_sum(np.float64(2.5)).shape == (1,)
    assert lo[0] == hi[0] == 2.5
    with pytest.raises(TypeError):
        nr.cumminmax(np.ones(3), 0)  # axis is keyword-only
    x = np.array([4, 2, 8, 1], dtype=np.int16)
    lo, hi = nr.cumminmax(x, dtype=np.float32)
    assert lo.dtype == np.float32
    np.testing.assert_array_equal(lo, np.minimum.accumulate(x, dtype=np.float32))
    o = (np.full(4, -7.0), np.full(4, -7.0))
    with pytest.raises(ValueError, match="shape"):
        nr.cumminmax(np.ones(3), out=o)
    np.testing.assert_array_equal(o[0], -7.0)
    r = nr.cumminmax(x, out=o)
    assert r[0] is o[0]
    np.testing.assert_array_equal(o[1], np.maximum.accumulate(x))


def test_cumminmax_docstring_examples():
    import doctest

    import numreduce._api

    result = doctest.testmod(numreduce._api, optionflags=doctest.NORMALIZE_WHITESPACE)
    assert result.attempted > 0 and result.failed == 0
