"""fminfmax (elementwise and reduce) against (np.fmin, np.fmax), and
nanminmax against (np.nanmin, np.nanmax), warnings included."""

import warnings

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

import numreduce as nr
from helpers import (ALL_DTYPES, COMPLEX_DTYPES, FLOAT_DTYPES, TIME_DTYPES, arrays,
                     assert_same_outcome, assert_same_result, axes_for, broadcast_pairs,
                     outcome, outcome_warned)

FF = nr.fminfmax
NAT = np.iinfo(np.int64).min
ALL_NAN_MSG = "All-NaN slice encountered"


def elementwise_ref(x, y, **kw):
    return np.fmin(x, y, **kw), np.fmax(x, y, **kw)


def reduce_ref(a, **kw):
    return np.fmin.reduce(a, **kw), np.fmax.reduce(a, **kw)


def assert_strict(got, want):
    """assert_same_result, plus complex values compared part by part (so a
    NaN in the real part is not confused with one in the imaginary part)."""
    assert_same_result(got, want)
    for g, w in zip(got, want):
        if np.asarray(w).dtype.kind == "c":
            np.testing.assert_array_equal(np.real(g), np.real(w))
            np.testing.assert_array_equal(np.imag(g), np.imag(w))


def assert_same_outcome_strict(got, want):
    assert_same_outcome(got, want)
    if want[0] == "ok":
        assert_strict(got[1], want[1])


def _kwargs(axis, keepdims):
    kw = {} if axis == "default" else {"axis": axis}
    if keepdims:
        kw["keepdims"] = True
    return kw


def nan_of(dtype):
    dt = np.dtype(dtype)
    if dt.kind in "mM":
        return np.array(NAT, dtype=np.int64).view(dt)[()]
    return dt.type(np.nan)


def sample(dtype, n, rng):
    dt = np.dtype(dtype)
    if dt.kind in "mM":
        return rng.integers(-10**6, 10**6, n).view(dt)
    if dt.kind == "b":
        return rng.integers(0, 2, n).astype(bool)
    if dt.kind == "c":
        return (rng.standard_normal(n) + 1j * rng.standard_normal(n)).astype(dt)
    if dt.kind == "f":
        return (rng.standard_normal(n) * 50).astype(dt)
    info = np.iinfo(dt)
    return rng.integers(max(info.min, -1000), min(info.max, 1000), n, endpoint=True).astype(dt)


# ---------------------------------------------------------------------------
# elementwise
# ---------------------------------------------------------------------------

def test_is_a_real_ufunc():
    assert isinstance(FF, np.ufunc)
    assert (FF.nin, FF.nout) == (2, 2)
    assert FF.__name__ == "fminfmax"


@given(pair=broadcast_pairs())
def test_elementwise_same_dtype_broadcasting(pair):
    x, y = pair
    assert_same_outcome_strict(outcome(lambda: FF(x, y)), outcome(lambda: elementwise_ref(x, y)))


@given(data=st.data())
def test_elementwise_two_random_arrays_same_shape(data):
    x = data.draw(arrays(max_dims=2))
    y = data.draw(arrays(dtypes=[x.dtype], min_dims=x.ndim, max_dims=x.ndim, max_side=5))
    if y.shape != x.shape:
        y = np.resize(y, x.shape) if y.size else np.zeros(x.shape, x.dtype)
    assert_same_outcome_strict(outcome(lambda: FF(x, y)), outcome(lambda: elementwise_ref(x, y)))


@pytest.mark.parametrize("dtype", ALL_DTYPES, ids=str)
def test_elementwise_nan_nat_patterns_every_dtype(dtype):
    dt = np.dtype(dtype)
    rng = np.random.default_rng(7)
    x = sample(dt, 12, rng)
    y = sample(dt, 12, rng)
    if dt.kind in "fcmM":
        nan = nan_of(dt)
        x[[0, 2, 5, 9]] = nan
        y[[1, 2, 6, 9]] = nan
    if dt.kind == "c":
        x[3] = complex(np.nan, 1.0)
        y[4] = complex(2.0, np.nan)
        y[3] = complex(5.0, np.nan)
        x[4] = complex(np.nan, 7.0)
    for xx, yy in ((x, y), (y, x), (x[::-1], y[::2].repeat(2)), (x[:1], y)):
        assert_strict(FF(xx, yy), elementwise_ref(xx, yy))


MIXED = [np.bool_, np.int8, np.uint8, np.int16, np.int32, np.uint32, np.int64, np.uint64,
         np.float16, np.float32, np.float64, np.longdouble, np.complex64, np.complex128]


@pytest.mark.parametrize("t1", MIXED, ids=lambda t: np.dtype(t).name)
@pytest.mark.parametrize("t2", MIXED, ids=lambda t: np.dtype(t).name)
def test_elementwise_promotion_matches_np_fmin(t1, t2):
    x = np.array([1, 0, 3, 2], dtype=t1)
    y = np.array([0, 1, 2, 2], dtype=t2)
    if np.dtype(t1).kind in "fc":
        x[2] = np.nan
    if np.dtype(t2).kind in "fc":
        y[0] = np.nan
        y[2] = np.nan
    assert_same_outcome_strict(outcome(lambda: FF(x, y)), outcome(lambda: elementwise_ref(x, y)))


@pytest.mark.parametrize("dtype", [np.int8, np.uint16, np.float16, np.float32, np.float64,
                                   np.complex64, np.bool_])
@pytest.mark.parametrize("scalar", [True, 2, -1, 300, 2.5, 1e40, np.nan, 1j, np.float64(np.nan),
                                    np.int64(3), np.float32(-0.5)])
def test_elementwise_scalars_follow_nep50(dtype, scalar):
    # Same results and the same warnings (1e40 into float32: NumPy's overflow in cast)
    x = np.array([0, 1, 5], dtype=dtype)
    for args in ((x, scalar), (scalar, x)):
        got, got_warned = outcome_warned(lambda: FF(*args))
        want, want_warned = outcome_warned(lambda: elementwise_ref(*args))
        assert_same_outcome_strict(got, want)
        assert got_warned == want_warned


def test_elementwise_datetime_units_and_nat():
    x = np.array(["2020-01-01", "NaT", "2021-06-01", "NaT"], dtype="M8[D]")
    y = np.array(["2020-01-01T12", "2020-01-02T00", "NaT", "NaT"], dtype="M8[h]")
    assert_strict(FF(x, y), elementwise_ref(x, y))
    assert_strict(FF(y, x), elementwise_ref(y, x))
    td = np.array([1, NAT, 3], dtype=np.int64).view("m8[s]")
    for other in (np.timedelta64(2, "ms"), np.timedelta64("NaT", "us")):
        assert_strict(FF(td, other), elementwise_ref(td, other))
        assert_strict(FF(other, td), elementwise_ref(other, td))


def test_elementwise_out_and_where():
    x = np.array([1.0, 5.0, np.nan, 4.0, np.nan])
    y = np.array([3.0, 2.0, 1.0, np.nan, np.nan])
    where = np.array([True, False, True, True, True])
    lo, hi = np.full(5, -9.0), np.full(5, -9.0)
    wlo, whi = lo.copy(), hi.copy()
    res = FF(x, y, out=(lo, hi), where=where)
    assert res[0] is lo and res[1] is hi
    np.fmin(x, y, out=wlo, where=where)
    np.fmax(x, y, out=whi, where=where)
    np.testing.assert_array_equal(lo, wlo)
    np.testing.assert_array_equal(hi, whi)


# ---------------------------------------------------------------------------
# reduce
# ---------------------------------------------------------------------------

@given(data=st.data())
def test_reduce_differential_axis_keepdims(reduce_path, data):
    a = data.draw(arrays())
    kw = _kwargs(data.draw(axes_for(a.ndim)), data.draw(st.booleans()))
    assert_same_outcome_strict(outcome(lambda: reduce_path(FF, a, **kw)),
                               outcome(lambda: reduce_ref(a, **kw)))


@given(data=st.data())
def test_reduce_differential_initial_and_where(reduce_path, data):
    a = data.draw(arrays(dtypes=[np.int16, np.uint32, np.int64, np.float16, np.float32,
                                 np.float64]))
    kw = _kwargs(data.draw(axes_for(a.ndim)), data.draw(st.booleans()))
    lo, hi = data.draw(st.sampled_from([(-5, 5), (0, 3), (7, -7), (1, 1)]))
    if a.dtype.kind == "f" and data.draw(st.booleans()):
        lo, hi = data.draw(st.sampled_from([(np.nan, 2.0), (np.nan, np.nan), (1.0, np.nan)]))
    if data.draw(st.booleans()):
        n = a.shape[-1] if a.ndim else 1
        kw["where"] = np.array(data.draw(st.lists(st.booleans(), min_size=n, max_size=n)),
                               dtype=bool)
    got = outcome(lambda: reduce_path(FF, a, initial=(lo, hi), **kw))
    want = outcome(lambda: (np.fmin.reduce(a, initial=lo, **kw),
                            np.fmax.reduce(a, initial=hi, **kw)))
    assert_same_outcome_strict(got, want)


@given(data=st.data())
def test_reduce_differential_out(reduce_path, data):
    a = data.draw(arrays(dtypes=[np.int32, np.float64, np.float32, "M8[s]"], min_dims=1))
    axis = data.draw(st.integers(-a.ndim, a.ndim - 1))
    keepdims = data.draw(st.booleans())
    ref = outcome(lambda: reduce_ref(a, axis=axis, keepdims=keepdims))
    if ref[0] == "raise":
        assert_same_outcome(outcome(lambda: reduce_path(FF, a, axis=axis, keepdims=keepdims)),
                            ref)
        return
    outs = tuple(np.full(np.shape(r), 99, dtype=r.dtype) for r in ref[1])
    # The reference is NumPy's result without `out` (as arrays): NumPy 2.0.x's
    # own reduce into a 0-d `out` of a negatively strided input is wrong.
    want = tuple(np.asarray(r) for r in ref[1])
    got = reduce_path(FF, a, axis=axis, keepdims=keepdims, out=outs)
    assert got[0] is outs[0] and got[1] is outs[1]
    assert_strict(got, want)


@pytest.mark.parametrize("dtype", ALL_DTYPES, ids=str)
@pytest.mark.parametrize("n", [1, 2, 7, 16, 17, 33, 64, 65, 1001])
def test_reduce_every_dtype_sizes_with_nans(reduce_path, dtype, n):
    dt = np.dtype(dtype)
    rng = np.random.default_rng(n)
    a = sample(dt, n, rng)
    variants = [a]
    if dt.kind in "fcmM":
        for frac in (0.1, 0.5, 0.95):
            b = a.copy()
            b[rng.random(n) < frac] = nan_of(dt)
            variants.append(b)
        variants.append(np.full(n, nan_of(dt), dtype=dt))        # all NaN / NaT
        c = np.full(n, nan_of(dt), dtype=dt)
        c[n // 2] = a[n // 2]                                     # one survivor
        variants.append(c)
    for v in variants:
        for arr in (v, v[::-1], v[1:], v[::3]):
            if arr.size == 0:
                continue
            assert_strict(reduce_path(FF, arr, axis=0), reduce_ref(arr, axis=0))


@pytest.mark.parametrize("dtype", [np.float32, np.float64, np.longdouble, np.complex128, "M8[s]"],
                         ids=str)
def test_reduce_2d_nan_patterns_all_axes(reduce_path, dtype):
    rng = np.random.default_rng(3)
    a = sample(dtype, 40 * 37, rng).reshape(40, 37)
    a[rng.random(a.shape) < 0.3] = nan_of(dtype)
    a[:, 5] = nan_of(dtype)
    a[11, :] = nan_of(dtype)
    for axis in (0, 1, -1, None, (0, 1), (1, 0)):
        for keepdims in (False, True):
            assert_strict(reduce_path(FF, a, axis=axis, keepdims=keepdims),
                          reduce_ref(a, axis=axis, keepdims=keepdims))


def test_reduce_empty_raises_like_numpy(reduce_path):
    a = np.ones((0, 3))
    assert_same_outcome(outcome(lambda: reduce_path(FF, a, axis=0)),
                        outcome(lambda: reduce_ref(a, axis=0)))
    assert_same_outcome(outcome(lambda: reduce_path(FF, a, axis=1)),
                        outcome(lambda: reduce_ref(a, axis=1)))
    with pytest.raises(ValueError):
        reduce_path(FF, a, axis=0)


# ---------------------------------------------------------------------------
# nanminmax
# ---------------------------------------------------------------------------

def _run_recording(fn):
    """outcome(fn) and whether an 'All-NaN slice' RuntimeWarning was raised."""
    with warnings.catch_warnings(record=True) as rec:
        warnings.simplefilter("always")
        res = outcome(fn)
    all_nan = [w for w in rec if issubclass(w.category, RuntimeWarning)
               and ALL_NAN_MSG in str(w.message)]
    return res, bool(all_nan)


def nan_ref(a, **kw):
    return np.nanmin(a, **kw), np.nanmax(a, **kw)


@given(data=st.data())
def test_nanminmax_differential_with_warnings(data):
    a = data.draw(arrays())
    axis = data.draw(axes_for(a.ndim))
    kw = _kwargs(axis, data.draw(st.booleans()))
    got, got_warned = _run_recording(lambda: nr.nanminmax(a, **kw))
    want, want_warned = _run_recording(lambda: nan_ref(a, **kw))
    assert_same_outcome_strict(got, want)
    assert got_warned == want_warned, (got_warned, want_warned, a, kw)


@given(data=st.data())
def test_nanminmax_differential_initial_where(data):
    a = data.draw(arrays(dtypes=[np.int32, np.float16, np.float32, np.float64, np.longdouble]))
    kw = _kwargs(data.draw(axes_for(a.ndim)), data.draw(st.booleans()))
    lo, hi = data.draw(st.sampled_from([(-5, 5), (0, 3), (7, -7)]))
    if data.draw(st.booleans()):
        n = a.shape[-1] if a.ndim else 1
        kw["where"] = np.array(data.draw(st.lists(st.booleans(), min_size=n, max_size=n)),
                               dtype=bool)
    got, got_warned = _run_recording(lambda: nr.nanminmax(a, initial=(lo, hi), **kw))
    want, want_warned = _run_recording(lambda: (np.nanmin(a, initial=lo, **kw),
                                                np.nanmax(a, initial=hi, **kw)))
    assert_same_outcome_strict(got, want)
    assert got_warned == want_warned


@pytest.mark.parametrize("dtype", FLOAT_DTYPES + COMPLEX_DTYPES + TIME_DTYPES, ids=str)
def test_nanminmax_all_nan_slice_warns_and_gives_nan(dtype):
    a = sample(dtype, 12, np.random.default_rng(0)).reshape(3, 4)
    a[1, :] = nan_of(dtype)
    a[0, 2] = nan_of(dtype)
    with pytest.warns(RuntimeWarning, match=ALL_NAN_MSG):
        want = nan_ref(a, axis=1)
    with pytest.warns(RuntimeWarning, match=ALL_NAN_MSG):
        got = nr.nanminmax(a, axis=1)
    assert_strict(got, want)
    assert np.isnan(got[0][1]) and np.isnan(got[1][1])
    assert not np.isnan(got[0][0]) and not np.isnan(got[1][2])
    # full reduction of an all-NaN array: NaN scalars, warned
    b = np.full(5, nan_of(dtype), dtype=dtype)
    with pytest.warns(RuntimeWarning, match=ALL_NAN_MSG):
        got = nr.nanminmax(b)
    with pytest.warns(RuntimeWarning, match=ALL_NAN_MSG):
        want = nan_ref(b)
    assert_strict(got, want)


@pytest.mark.parametrize("dtype", ALL_DTYPES, ids=str)
def test_nanminmax_no_warning_without_all_nan_slice(dtype):
    a = sample(dtype, 60, np.random.default_rng(1)).reshape(6, 10)
    if np.dtype(dtype).kind in "fcmM":
        a[1::2, ::2] = nan_of(dtype)   # plenty of NaNs, but no all-NaN row or column
        a[0, :] = nan_of(dtype)
        a[0, 3] = a[2, 3]
    for axis in (None, 0, 1):
        want = nan_ref(a, axis=axis)
        with warnings.catch_warnings():
            warnings.simplefilter("error")
            got = nr.nanminmax(a, axis=axis)
        assert_strict(got, want)


def test_nanminmax_examples_and_out():
    assert nr.nanminmax(np.array([np.nan, 3.0, 1.0, np.nan])) == (1.0, 3.0)
    a = np.array([[1.0, np.nan, 4.0], [np.nan, np.nan, np.nan], [2.0, 5.0, -1.0]])
    lo, hi = np.empty(3), np.empty(3)
    with pytest.warns(RuntimeWarning, match=ALL_NAN_MSG):
        got = nr.nanminmax(a, axis=1, out=(lo, hi))
    assert got[0] is lo and got[1] is hi
    wlo, whi = np.empty(3), np.empty(3)
    with pytest.warns(RuntimeWarning, match=ALL_NAN_MSG):
        np.nanmin(a, axis=1, out=wlo)
        np.nanmax(a, axis=1, out=whi)
    np.testing.assert_array_equal(lo, wlo)
    np.testing.assert_array_equal(hi, whi)


def test_nanminmax_large_contiguous_and_strided():
    rng = np.random.default_rng(5)
    a = rng.standard_normal(100_003)
    a[rng.random(a.size) < 0.7] = np.nan
    for arr in (a, a[::-1], a[::7], a.astype(np.float32), a.astype(np.float16)):
        with warnings.catch_warnings():
            warnings.simplefilter("error")
            got = nr.nanminmax(arr)
        assert_strict(got, nan_ref(arr))


@pytest.mark.parametrize("dtype", [np.float64, np.float32, np.int16, "M8[s]"], ids=str)
def test_nanminmax_threaded_whole_array(two_threads, dtype):
    n = 2**22 + 9
    a = sample(dtype, n, np.random.default_rng(23))
    a[n // 2 + 11] = a.max() if np.dtype(dtype).kind != "M" else a[0]
    if np.dtype(dtype).kind in "fM":
        a[::3] = nan_of(dtype)
    assert_strict(nr.reduce(FF, a, axis=None), reduce_ref(a, axis=None))
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        got = nr.nanminmax(a)
    assert_strict(got, nan_ref(a))
    if np.dtype(dtype).kind in "fM":
        b = np.full(n, nan_of(dtype), dtype=dtype)
        with pytest.warns(RuntimeWarning, match=ALL_NAN_MSG):
            got = nr.nanminmax(b)
        with pytest.warns(RuntimeWarning, match=ALL_NAN_MSG):
            want = nan_ref(b)
        assert_strict(got, want)
