"""argminmax / nanargminmax against (np.argmin, np.argmax) and
(np.nanargmin, np.nanargmax)."""

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st
from hypothesis.extra import numpy as hnp

import numreduce as nr
from helpers import (ALL_DTYPES, COMPLEX_DTYPES, FLOAT_DTYPES, INT_DTYPES, TIME_DTYPES, arrays,
                     assert_same_outcome, assert_same_result, outcome)

NAT = np.iinfo(np.int64).min
NON_TIME = [d for d in ALL_DTYPES if d not in TIME_DTYPES]


def ref(a, **kw):
    return np.argmin(a, **kw), np.argmax(a, **kw)


def nanref(a, **kw):
    return np.nanargmin(a, **kw), np.nanargmax(a, **kw)


def nan_of(dtype):
    dt = np.dtype(dtype)
    if dt.kind in "mM":
        return np.array(NAT, dtype=np.int64).view(dt)[()]
    return dt.type(np.nan)


def sample(dtype, n, rng, distinct=40):
    """n values drawn from only `distinct` levels, so ties are common."""
    dt = np.dtype(dtype)
    levels = rng.integers(-distinct // 2, distinct // 2 + 1, n)
    if dt.kind in "mM":
        return (levels * 1000 + 7).view(dt)
    if dt.kind == "b":
        return (levels > 0)
    if dt.kind == "u":
        return (levels - levels.min()).astype(dt)
    if dt.kind == "c":
        im = rng.integers(-2, 3, n)
        return (levels + 1j * im).astype(dt)
    if dt.kind == "f":
        return (levels * 0.75).astype(dt)
    return levels.astype(dt)


@st.composite
def axis_for(draw, ndim):
    """None, a valid axis (maybe negative) or, rarely, an out-of-range one."""
    kind = draw(st.sampled_from(["none", "int", "int", "int", "bad"]))
    if kind == "none":
        return None
    if kind == "bad" or ndim == 0:
        return draw(st.sampled_from([ndim, -ndim - 1, ndim + 3]))
    return draw(st.integers(-ndim, ndim - 1))


# ---------------------------------------------------------------------------
# argminmax
# ---------------------------------------------------------------------------

@given(data=st.data())
def test_argminmax_differential(data):
    # 0-d inputs: test_argminmax_zero_d (kept apart so that a 0-d problem
    # does not hide everything else from the shrinker)
    a = data.draw(arrays(min_dims=1))
    axis = data.draw(axis_for(a.ndim))
    kw = {"axis": axis}
    if data.draw(st.booleans()):
        kw["keepdims"] = True
    assert_same_outcome(outcome(lambda: nr.argminmax(a, **kw)), outcome(lambda: ref(a, **kw)))


@given(data=st.data())
def test_argminmax_differential_ties_and_nans(data):
    """Few distinct values (many ties), NaN/NaT sprinkled in."""
    dtype = np.dtype(data.draw(st.sampled_from(ALL_DTYPES)))
    shape = data.draw(hnp.array_shapes(min_dims=1, max_dims=3, min_side=1, max_side=9))
    rng = np.random.default_rng(data.draw(st.integers(0, 2**32 - 1)))
    a = sample(dtype, int(np.prod(shape)), rng, distinct=data.draw(st.sampled_from([2, 3, 10])))
    a = a.reshape(shape)
    if dtype.kind in "fcmM" and data.draw(st.booleans()):
        a[rng.random(shape) < data.draw(st.sampled_from([0.05, 0.3, 0.9]))] = nan_of(dtype)
    view = data.draw(st.sampled_from(["plain", "reversed", "transposed", "strided"]))
    if view == "reversed":
        a = a[::-1]
    elif view == "transposed":
        a = a.T
    elif view == "strided":
        a = np.repeat(a, 2, axis=-1)[..., ::2]
    axis = data.draw(st.one_of(st.none(), st.integers(-a.ndim, a.ndim - 1)))
    keepdims = data.draw(st.booleans())
    assert_same_result(nr.argminmax(a, axis=axis, keepdims=keepdims),
                       ref(a, axis=axis, keepdims=keepdims))


@pytest.mark.parametrize("dtype", ALL_DTYPES, ids=str)
def test_argminmax_every_dtype_sizes_1_to_70(dtype):
    rng = np.random.default_rng(11)
    for n in range(1, 71):
        a = sample(dtype, n, rng, distinct=max(2, n // 3))
        for arr in (a, a[::-1], a[::2], a.astype(np.dtype(dtype).newbyteorder())):
            if arr.size:
                assert_same_result(nr.argminmax(arr), ref(arr))


@pytest.mark.parametrize("dtype", ALL_DTYPES, ids=str)
def test_argminmax_first_occurrence_wins_ties(dtype):
    dt = np.dtype(dtype)
    a = sample(dt, 50, np.random.default_rng(2), distinct=6)
    lo, hi = a[np.argmin(a)], a[np.argmax(a)]
    a[[3, 17, 40]] = lo
    a[[5, 18, 49]] = hi
    got = nr.argminmax(a)
    assert_same_result(got, ref(a))
    assert a[got[0]] == lo and a[got[1]] == hi
    assert got[0] <= 3 and got[1] <= 5
    # constant array: index 0 for both
    c = np.full(33, a[0], dtype=dt)
    assert_same_result(nr.argminmax(c), ref(c))
    assert nr.argminmax(c) == (0, 0)


@pytest.mark.parametrize("dtype", FLOAT_DTYPES + COMPLEX_DTYPES + TIME_DTYPES, ids=str)
@pytest.mark.parametrize("n", [1, 2, 7, 16, 33, 70])
def test_argminmax_first_nan_wins_both(dtype, n):
    rng = np.random.default_rng(n)
    base = sample(dtype, n, rng)
    positions = sorted({0, n // 2, n - 1})
    for p in positions:
        a = base.copy()
        a[p] = nan_of(dtype)
        assert_same_result(nr.argminmax(a), ref(a))
        assert nr.argminmax(a) == (p, p)
        b = a.copy()
        b[p:] = nan_of(dtype)      # several NaNs: the first one wins
        assert_same_result(nr.argminmax(b), ref(b))
        assert_same_result(nr.argminmax(b[::-1]), ref(b[::-1]))
    if np.dtype(dtype).kind == "c" and n > 2:
        a = base.copy()
        a[n - 1] = complex(np.nan, 0.0)
        a[1] = complex(0.0, np.nan)        # NaN in the imaginary part, earlier
        assert_same_result(nr.argminmax(a), ref(a))
        assert nr.argminmax(a) == (1, 1)


@pytest.mark.parametrize("dtype", [np.float16, np.float64, np.longdouble, np.complex64, "M8[s]",
                                   np.int8, np.uint64, np.bool_], ids=str)
def test_argminmax_2d_3d_every_axis(dtype):
    rng = np.random.default_rng(4)
    a = sample(dtype, 7 * 11 * 13, rng, distinct=25).reshape(7, 11, 13)
    if np.dtype(dtype).kind in "fcM":
        a[rng.random(a.shape) < 0.02] = nan_of(dtype)
    for arr in (a, a.transpose(2, 0, 1), a[:, ::-2, 1:], np.asfortranarray(a)):
        for axis in (None, 0, 1, 2, -1, -2, -3):
            for keepdims in (False, True):
                assert_same_result(nr.argminmax(arr, axis=axis, keepdims=keepdims),
                                   ref(arr, axis=axis, keepdims=keepdims))


@pytest.mark.parametrize("dtype", [np.float64, np.float32, np.int16, np.uint8, np.complex128,
                                   "m8[ms]"], ids=str)
def test_argminmax_unaligned_and_byteswapped(dtype):
    dt = np.dtype(dtype)
    a = sample(dt, 6 * 9, np.random.default_rng(9), distinct=15).reshape(6, 9)
    if dt.kind in "fcm":
        a[2, 4] = nan_of(dt)
    buf = np.zeros(a.nbytes + 1, dtype=np.uint8)
    un = buf[1:].view(dt).reshape(a.shape)
    un[...] = a
    sw = a.astype(dt.newbyteorder())
    for arr in (un, sw, un[:, ::-1], sw.T):
        for axis in (None, 0, 1):
            assert_same_result(nr.argminmax(arr, axis=axis), ref(arr, axis=axis))


@pytest.mark.parametrize("n", [100_000, 1_000_003])
def test_argminmax_large(n):
    rng = np.random.default_rng(n)
    a = rng.standard_normal(n)
    for arr in (a, a[::-1], a[::3], a.astype(np.float32), (a * 1000).astype(np.int32)):
        assert_same_result(nr.argminmax(arr), ref(arr))
    b = a.copy()
    b[n - 5] = np.nan
    b[n - 2] = np.nan
    assert_same_result(nr.argminmax(b), ref(b))
    c = a[: (n // 1000) * 1000].reshape(-1, 1000)
    for axis in (0, 1):
        assert_same_result(nr.argminmax(c, axis=axis), ref(c, axis=axis))


@pytest.mark.parametrize("threads", [1, 2])
@pytest.mark.parametrize("dtype", FLOAT_DTYPES + INT_DTYPES, ids=str)
def test_strided_vector_whole_and_along_its_axis(dtype, threads):
    """A strided or reversed 1-D array of 64 elements and more is copied to
    contiguous memory before the kernel (the fast path's and the general
    path's rule): the first minimum and maximum, the first NaN (argminmax)
    and the NaNs skipped (nanargminmax) are NumPy's, ties included."""
    from numreduce import _api

    dt = np.dtype(dtype)
    rng = np.random.default_rng(64)
    prev = nr.set_num_threads(threads)
    try:
        for n in (63, 64, 65, 1000, 100_003):
            base = sample(dt, 3 * n, rng, distinct=7)
            if dt.kind in "fc":
                base[rng.random(3 * n) < 0.01] = np.nan
            for arr in (base[::3], base[1::2][:n], base[::-1][:n], base[::-3]):
                for kw in ({}, {"axis": 0}, {"axis": -1}):
                    want = ref(arr, **kw)
                    assert_same_result(nr.argminmax(arr, **kw), want)
                    assert_same_result(_api.argminmax(arr, **kw), want)
                    if dt.kind in "fc" and not np.isnan(arr).all():
                        want = nanref(arr, **kw)
                        assert_same_result(nr.nanargminmax(arr, **kw), want)
                        assert_same_result(_api.nanargminmax(arr, **kw), want)
    finally:
        nr.set_num_threads(prev)


def test_argminmax_result_types():
    a = np.array([[3, 1, 4], [1, 5, 9]])
    got = nr.argminmax(a)
    assert all(type(g) is np.intp for g in got)
    assert_same_result(got, ref(a))
    got = nr.argminmax(a, axis=1)
    assert all(type(g) is np.ndarray and g.dtype == np.intp for g in got)
    assert_same_result(got, ref(a, axis=1))
    assert_same_result(nr.argminmax([3, 1, 2]), ref([3, 1, 2]))      # lists accepted


@pytest.mark.parametrize("kw", [{}, {"axis": None}, {"axis": None, "keepdims": True},
                                {"axis": 0}, {"axis": -1}, {"axis": 0, "keepdims": True},
                                {"axis": 1}, {"axis": -2}], ids=repr)
@pytest.mark.parametrize("fn,reference", [(nr.argminmax, ref), (nr.nanargminmax, nanref)],
                         ids=["argminmax", "nanargminmax"])
def test_argminmax_zero_d(fn, reference, kw):
    """0-d input: like np.argmin, axis=0 / axis=-1 are accepted (NumPy treats
    a 0-d array as 1-d here) and give intp scalars; other axes: AxisError."""
    for x in (np.float64(2.5), np.array(7, dtype=np.int8), np.array(np.nan)):
        assert_same_outcome(outcome(lambda: fn(x, **kw)), outcome(lambda: reference(x, **kw)))


@pytest.mark.parametrize("shape,axis", [((0,), None), ((0,), 0), ((0, 3), 0), ((3, 0), 1),
                                        ((3, 0), None), ((0, 0), 0), ((2, 0, 3), 1)])
def test_argminmax_empty_raises_valueerror(shape, axis):
    a = np.empty(shape)
    assert_same_outcome(outcome(lambda: nr.argminmax(a, axis=axis)),
                        outcome(lambda: ref(a, axis=axis)))
    with pytest.raises(ValueError):
        nr.argminmax(a, axis=axis)


@pytest.mark.parametrize("shape,axis", [((0, 3), 1), ((3, 0), 0), ((2, 0, 3), 0), ((2, 0, 3), 2)])
def test_argminmax_empty_result_is_fine(shape, axis):
    a = np.empty(shape)
    for keepdims in (False, True):
        assert_same_result(nr.argminmax(a, axis=axis, keepdims=keepdims),
                           ref(a, axis=axis, keepdims=keepdims))


@pytest.mark.parametrize("axis", [2, -3, 10])
def test_argminmax_bad_axis(axis):
    with pytest.raises(np.exceptions.AxisError):
        nr.argminmax(np.ones((2, 3)), axis=axis)
    with pytest.raises(np.exceptions.AxisError):
        nr.nanargminmax(np.ones((2, 3)), axis=axis)


def test_argminmax_axis_must_be_int():
    a = np.ones((2, 3))
    for axis in (1.0, (0, 1)):
        assert_same_outcome(outcome(lambda: nr.argminmax(a, axis=axis)),
                            outcome(lambda: ref(a, axis=axis)))


@pytest.mark.parametrize("keepdims", [False, True])
@pytest.mark.parametrize("axis", [None, 0, 1, -1])
def test_argminmax_out_tuple(axis, keepdims):
    a = np.array([[3.0, 1.0, 4.0, 1.0], [5.0, 9.0, 2.0, 6.0], [5.0, 3.0, 5.0, 8.0]])
    want = ref(a, axis=axis, keepdims=keepdims)
    shape = np.shape(want[0])
    lo, hi = np.full(shape, -7, dtype=np.intp), np.full(shape, -7, dtype=np.intp)
    got = nr.argminmax(a, axis=axis, keepdims=keepdims, out=(lo, hi))
    assert got[0] is lo and got[1] is hi
    np.testing.assert_array_equal(lo, want[0])
    np.testing.assert_array_equal(hi, want[1])
    # one entry None: that result is returned as NumPy would without out
    hi2 = np.full(shape, -7, dtype=np.intp)
    got = nr.argminmax(a, axis=axis, keepdims=keepdims, out=(None, hi2))
    assert got[1] is hi2
    assert_same_result((got[0],), (want[0],))
    np.testing.assert_array_equal(hi2, want[1])


def test_argminmax_out_wrong_shape_or_type_raises_like_numpy():
    a = np.ones((2, 3))
    for bad in (np.empty(2, np.intp), np.empty((1, 3), np.intp), [0, 0, 0]):
        got = outcome(lambda: nr.argminmax(a, axis=0, out=(bad, None)))
        want = outcome(lambda: np.argmin(a, axis=0, out=bad))
        assert_same_outcome(got, want)


def test_argminmax_out_dtypes_accepted_like_numpy():
    """np.argmin accepts an `out` whose dtype can be cast safely to intp
    (bool, small and unsigned ints) and raises TypeError otherwise (floats,
    complex, uint64); argminmax should accept and reject the same dtypes."""
    a = np.array([[3.0, 1.0, 4.0], [1.0, 5.0, 9.0]])
    mismatches = []
    for dt in [np.bool_, np.int8, np.uint8, np.int16, np.uint16, np.int32, np.uint32, np.int64,
               np.uint64, np.float16, np.float32, np.float64, np.complex128]:
        want = outcome(lambda: np.argmin(a, axis=0, out=np.zeros(3, dt)))
        got = outcome(lambda: nr.argminmax(a, axis=0, out=(np.zeros(3, dt), np.zeros(3, dt))))
        if want[0] != got[0] or (want[0] == "raise" and type(want[1]) is not type(got[1])):
            mismatches.append((np.dtype(dt).name, want[0], got[0],
                               repr(got[1]) if got[0] == "raise" else ""))
        elif want[0] == "ok":
            np.testing.assert_array_equal(got[1][0], want[1])
    assert not mismatches, "out dtype accepted/rejected unlike np.argmin: " + repr(mismatches)


def test_argminmax_docstring_examples():
    assert nr.argminmax(np.array([3, 1, 4, 1, 5, 9, 2, 6])) == (1, 5)
    lo, hi = nr.argminmax(np.array([[1.0, np.nan], [2.0, 0.5]]), axis=1)
    np.testing.assert_array_equal(lo, [1, 1])
    np.testing.assert_array_equal(hi, [1, 0])


# ---------------------------------------------------------------------------
# nanargminmax
# ---------------------------------------------------------------------------

def finite_or_nan(dtype):
    """Elements without infinities: NumPy's nanarg* replace NaN by +-inf, so
    an infinity next to a NaN makes NumPy's answer depend on that trick (see
    test_nanargminmax_infinities_next_to_nans)."""
    dt = np.dtype(dtype)
    width = min(dt.itemsize * 8, 64) if dt.kind == "f" else 32
    fl = st.one_of(st.floats(-1e4, 1e4, width=width), st.just(np.nan))
    if dt.kind == "c":
        return st.builds(complex, fl, fl)
    if dt.kind == "f":
        return fl
    return None


@st.composite
def nan_arrays(draw):
    dtype = np.dtype(draw(st.sampled_from(NON_TIME)))
    shape = draw(hnp.array_shapes(min_dims=0, max_dims=3, min_side=0, max_side=6))
    a = draw(hnp.arrays(dtype, shape, elements=finite_or_nan(dtype)))
    if dtype.kind in "fc" and a.size and draw(st.booleans()):
        a[np.random.default_rng(draw(st.integers(0, 2**32 - 1))).random(shape) < 0.5] = np.nan
    view = draw(st.sampled_from(["plain", "reversed", "swapped", "transposed"]))
    if a.ndim and view == "reversed":
        a = a[::-1]
    elif a.ndim and view == "transposed":
        a = a.T
    elif view == "swapped" and dtype.kind != "b":
        a = a.astype(dtype.newbyteorder())
    return a


@given(data=st.data())
def test_nanargminmax_differential(data):
    a = data.draw(nan_arrays())
    if a.ndim == 0:
        a = a.reshape(1)   # 0-d: test_argminmax_zero_d
    axis = data.draw(axis_for(a.ndim))
    kw = {"axis": axis}
    if data.draw(st.booleans()):
        kw["keepdims"] = True
    assert_same_outcome(outcome(lambda: nr.nanargminmax(a, **kw)),
                        outcome(lambda: nanref(a, **kw)))


@pytest.mark.parametrize("dtype", FLOAT_DTYPES + COMPLEX_DTYPES, ids=str)
@pytest.mark.parametrize("n", [1, 3, 16, 33, 70])
def test_nanargminmax_nans_skipped(dtype, n):
    rng = np.random.default_rng(n + 100)
    a = sample(dtype, n, rng, distinct=12)
    for frac in (0.0, 0.3, 0.9):
        b = a.copy()
        b[rng.random(n) < frac] = np.nan
        b[rng.integers(n)] = a[0]           # at least one non-NaN
        for arr in (b, b[::-1]):
            got = nr.nanargminmax(arr)
            assert_same_result(got, nanref(arr))
            assert not np.isnan(arr[got[0]]) and not np.isnan(arr[got[1]])


@pytest.mark.parametrize("dtype", FLOAT_DTYPES + COMPLEX_DTYPES, ids=str)
def test_nanargminmax_all_nan_slice_raises(dtype):
    a = sample(dtype, 12, np.random.default_rng(0)).reshape(3, 4)
    a[1, :] = np.nan
    assert_same_outcome(outcome(lambda: nr.nanargminmax(a, axis=1)),
                        outcome(lambda: nanref(a, axis=1)))
    with pytest.raises(ValueError, match="All-NaN slice encountered"):
        nr.nanargminmax(a, axis=1)
    with pytest.raises(ValueError, match="All-NaN slice encountered"):
        nr.nanargminmax(np.full(5, np.nan, dtype=dtype))
    # not all-NaN along axis 0: fine
    assert_same_result(nr.nanargminmax(a, axis=0), nanref(a, axis=0))
    assert_same_result(nr.nanargminmax(a), nanref(a))


@pytest.mark.parametrize("dtype", INT_DTYPES + [np.bool_], ids=str)
def test_nanargminmax_integers_equal_argminmax(dtype):
    a = sample(dtype, 7 * 9, np.random.default_rng(3), distinct=5).reshape(7, 9)
    for axis in (None, 0, 1):
        assert_same_result(nr.nanargminmax(a, axis=axis), nanref(a, axis=axis))
        assert_same_result(nr.nanargminmax(a, axis=axis), ref(a, axis=axis))


@pytest.mark.parametrize("dtype", TIME_DTYPES, ids=str)
def test_nanargminmax_time_dtypes_with_nat_like_numpy(dtype):
    """np.nanargmin / np.nanargmax do not skip NaT (only inexact NaNs are
    replaced), so NaT wins both like in np.argmin, and an all-NaT slice
    gives index 0 rather than an error."""
    a = sample(dtype, 10, np.random.default_rng(5))
    a[3] = nan_of(dtype)
    assert_same_outcome(outcome(lambda: nr.nanargminmax(a)), outcome(lambda: nanref(a)))
    b = np.full(4, nan_of(dtype), dtype=dtype)
    assert_same_outcome(outcome(lambda: nr.nanargminmax(b)), outcome(lambda: nanref(b)))


@pytest.mark.parametrize("dtype", TIME_DTYPES, ids=str)
def test_nanargminmax_time_dtypes_without_nat(dtype):
    a = sample(dtype, 6 * 8, np.random.default_rng(6), distinct=9).reshape(6, 8)
    for axis in (None, 0, 1):
        assert_same_result(nr.nanargminmax(a, axis=axis), nanref(a, axis=axis))


@pytest.mark.parametrize("dtype", [np.float32, np.float64, np.complex128], ids=str)
def test_nanargminmax_infinities_next_to_nans(dtype):
    """NaNs are ignored (the docstring): the answer is the first extreme among
    the non-NaN elements, computed here with np.argmin on the NaN-free
    elements.  (np.nanargmin replaces NaN by +inf and can return the index of
    a NaN here, e.g. np.nanargmin([nan, inf]) == 0.)"""
    inf = np.inf
    cases = [[np.nan, inf], [np.nan, -inf], [np.nan, inf, -inf, np.nan],
             [1.0, np.nan, inf, np.nan, inf], [-inf, np.nan, -inf], [np.nan, inf, inf]]
    for c in cases:
        a = np.array(c, dtype=dtype)
        keep = np.flatnonzero(~np.isnan(a))
        want = (keep[np.argmin(a[keep])], keep[np.argmax(a[keep])])
        got = nr.nanargminmax(a)
        assert (got[0], got[1]) == want, (c, got, want)
        assert not np.isnan(a[got[0]]) and not np.isnan(a[got[1]])


def test_nanargminmax_out_and_keepdims():
    a = np.array([[np.nan, 3.0, 1.0, 7.0], [2.0, np.nan, 2.0, -1.0]])
    want = nanref(a, axis=1, keepdims=True)
    lo, hi = np.empty((2, 1), np.intp), np.empty((2, 1), np.intp)
    got = nr.nanargminmax(a, axis=1, keepdims=True, out=(lo, hi))
    assert got[0] is lo and got[1] is hi
    np.testing.assert_array_equal(lo, want[0])
    np.testing.assert_array_equal(hi, want[1])
    assert nr.nanargminmax(np.array([np.nan, 3.0, 1.0, 7.0])) == (2, 3)


@pytest.mark.parametrize("dtype", ALL_DTYPES, ids=str)
@pytest.mark.parametrize("n", [64, 65, 255, 1000, 4099])
def test_argminmax_ties_and_nans_across_vector_lanes(dtype, n):
    """The extreme value repeated at scattered positions (different vector
    lanes and blocks): the first occurrence wins; then a NaN late in the
    array wins both."""
    dt = np.dtype(dtype)
    rng = np.random.default_rng(n)
    a = sample(dt, n, rng, distinct=30)
    lo, hi = a[np.argmin(a)], a[np.argmax(a)]
    a[[n - 1, n // 2 + 3, n // 3 + 1, 17]] = lo
    a[[n - 2, n // 2 + 5, n // 4 + 2, 9]] = hi
    for arr in (a, a[::-1], a[1:], a.reshape(-1, 1)[:, 0]):
        assert_same_result(nr.argminmax(arr), ref(arr))
        assert_same_result(nr.nanargminmax(arr), nanref(arr))
    if dt.kind in "fcmM":
        b = a.copy()
        b[n - 3] = nan_of(dt)
        b[n - 40 if n > 40 else 0] = nan_of(dt)
        assert_same_result(nr.argminmax(b), ref(b))
        assert_same_result(nr.nanargminmax(b), nanref(b))


BLOCK_DTYPES = ["float64", "float32", "int8", "uint8", "int16", "int32", "uint64", "int64"]


@pytest.mark.parametrize("dtype", BLOCK_DTYPES)
@pytest.mark.parametrize("n", [4095, 4096, 4097, 8197, 3 * 4096 + 1])
def test_argminmax_block_pass_ties_across_blocks(dtype, n):
    """Long contiguous rows take the block pass (block min/max, then a search
    of the winning block): equal extremes in later blocks, and extremes at
    the first and the last element, keep the first occurrence."""
    dt = np.dtype(dtype)
    rng = np.random.default_rng(n)
    a = rng.integers(20, 100, n).astype(dt)
    lo, hi = dt.type(3), dt.type(120)
    for first in (0, 1, 4095, 4096, n - 1):
        if first >= n:
            continue
        b = a.copy()
        b[[first, n - 1, min(first + 4096, n - 1)]] = lo
        b[[min(first + 1, n - 1), n - 2, min(first + 5000, n - 1)]] = hi
        for arr in (b, b[::-1]):
            assert_same_result(nr.argminmax(arr), ref(arr))
            assert_same_result(nr.nanargminmax(arr), nanref(arr))


@pytest.mark.parametrize("dtype", ["float64", "float32"])
@pytest.mark.parametrize("n", [4096, 9000])
def test_argminmax_block_pass_signed_zeros_and_nans(dtype, n):
    """-0.0 and 0.0 compare equal (the first one wins, as np.argmin); the
    first NaN wins both, wherever its block is; NaN-only blocks are skipped
    by nanargminmax."""
    dt = np.dtype(dtype)
    a = np.linspace(1, 2, n).astype(dt)
    for i, j in ((100, 5000 % n), (5000 % n, 100)):
        b = a.copy()
        b[i] = -0.0
        b[j] = 0.0
        assert_same_result(nr.argminmax(b), ref(b))
        assert_same_result(nr.nanargminmax(b), nanref(b))
    for k in sorted({0, 4095, n - 1, min(4096, n - 1)}):
        b = a.copy()
        b[k] = np.nan
        b[n - 1 - (n - 1 - k) // 2] = np.nan
        assert_same_result(nr.argminmax(b), ref(b))
        assert_same_result(nr.nanargminmax(b), nanref(b))
    c = np.full(n, np.nan, dtype=dt)
    c[n - 3] = 7
    c[n - 10] = -7
    assert_same_result(nr.argminmax(c), ref(c))
    assert_same_result(nr.nanargminmax(c), nanref(c))
    c[:4096] = 1
    assert_same_result(nr.nanargminmax(c), nanref(c))


def test_a_tuple_axis_is_refused_as_one_axis():
    """argminmax reduces one axis (np.argmin raises TypeError for a tuple):
    the message says so instead of offering a tuple."""
    x = np.zeros((2, 3, 4))
    for fn in (nr.argminmax, nr.nanargminmax):
        with pytest.raises(TypeError, match=r"must be None or an integer \(one axis\), not tuple"):
            fn(x, axis=(0, 2))
    with pytest.raises(TypeError):
        np.argmin(x, axis=(0, 2))
