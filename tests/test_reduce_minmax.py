"""numreduce.reduce(minimummaximum, ...) (and native ufunc.reduce where NumPy
has the slots) against (np.minimum.reduce(...), np.maximum.reduce(...))."""

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

import numreduce as nr
from helpers import ALL_DTYPES, arrays, assert_same_outcome, axes_for, outcome

MM = nr.minimummaximum


def reference(a, **kw):
    return np.minimum.reduce(a, **kw), np.maximum.reduce(a, **kw)


def _kwargs(axis, keepdims):
    kw = {} if axis == "default" else {"axis": axis}
    if keepdims:
        kw["keepdims"] = True
    return kw


@given(data=st.data())
def test_differential_axis_keepdims(reduce_path, data):
    a = data.draw(arrays())
    kw = _kwargs(data.draw(axes_for(a.ndim)), data.draw(st.booleans()))
    assert_same_outcome(outcome(lambda: reduce_path(MM, a, **kw)),
                        outcome(lambda: reference(a, **kw)))


@given(data=st.data())
def test_differential_initial_and_where(reduce_path, data):
    a = data.draw(arrays(dtypes=[np.int16, np.uint32, np.int64, np.float32, np.float64]))
    kw = _kwargs(data.draw(axes_for(a.ndim)), data.draw(st.booleans()))
    lo, hi = data.draw(st.sampled_from([(-5, 5), (0, 3), (7, -7), (1, 1)]))
    if data.draw(st.booleans()):
        where = data.draw(st.lists(st.booleans(), min_size=a.shape[-1] if a.ndim else 1,
                                   max_size=a.shape[-1] if a.ndim else 1))
        kw["where"] = np.array(where, dtype=bool)
    per_output = data.draw(st.booleans())
    got = outcome(lambda: reduce_path(MM, a, initial=(lo, hi) if per_output else lo, **kw))
    want = outcome(lambda: (np.minimum.reduce(a, initial=lo, **kw),
                            np.maximum.reduce(a, initial=hi if per_output else lo, **kw)))
    assert_same_outcome(got, want)


@given(data=st.data())
def test_differential_out(reduce_path, data):
    a = data.draw(arrays(dtypes=[np.int32, np.float64, np.float32, "M8[s]"], min_dims=1))
    axis = data.draw(st.integers(-a.ndim, a.ndim - 1))
    keepdims = data.draw(st.booleans())
    out_dtype = data.draw(st.sampled_from([None, np.float64, np.int64]))
    if out_dtype is not None and a.dtype.kind == "M":
        out_dtype = a.dtype
    if out_dtype is np.int64 and a.dtype.kind == "f":
        out_dtype = np.float32  # NaN -> int casts are undefined (differ by cast path)
    ref = outcome(lambda: reference(a, axis=axis, keepdims=keepdims))
    if ref[0] == "raise":
        return
    dt = out_dtype or ref[1][0].dtype
    outs = tuple(np.full(np.shape(r), 99, dtype=dt) for r in ref[1])
    # The reference is NumPy's result without `out`, cast into the out dtype
    # ('unsafe', as reduce does): NumPy 2.0.x's own reduce into a 0-d `out`
    # of a negatively strided input returns wrong values.
    got = outcome(lambda: reduce_path(MM, a, axis=axis, keepdims=keepdims, out=outs))
    assert got[0] == "ok", got[1]
    assert got[1][0] is outs[0] and got[1][1] is outs[1]
    for o, r in zip(outs, ref[1]):
        np.testing.assert_array_equal(o, np.asarray(r).astype(dt))


@given(data=st.data())
def test_differential_dtype_argument(reduce_path, data):
    a = data.draw(arrays(dtypes=[np.int8, np.uint16, np.int32, np.float32, np.bool_]))
    dtype = data.draw(st.sampled_from([np.float64, np.int64, np.float32, np.int16]))
    kw = {"axis": None, "dtype": dtype}
    assert_same_outcome(outcome(lambda: reduce_path(MM, a, **kw)),
                        outcome(lambda: reference(a, **kw)))


def test_out_partial_tuple_and_ellipsis(reduce_path):
    a = np.arange(12.0).reshape(3, 4)
    hi = np.empty(4)
    lo, hi_got = reduce_path(MM, a, axis=0, out=(None, hi))
    assert hi_got is hi
    np.testing.assert_array_equal(lo, a.min(0))
    np.testing.assert_array_equal(hi, a.max(0))
    # out=... returns arrays even for a full reduction, as ufunc.reduce does
    res = reduce_path(MM, a, axis=None, out=...)
    assert all(isinstance(r, np.ndarray) and r.ndim == 0 for r in res)


@pytest.mark.parametrize("dtype", ALL_DTYPES)
@pytest.mark.parametrize("n", [1, 2, 7, 8, 15, 16, 17, 31, 64, 100, 1001])
def test_every_dtype_vector_width_boundaries(reduce_path, dtype, n):
    """Sizes around the fast path's lane count, with the extreme at each end."""
    dt = np.dtype(dtype)
    rng = np.random.default_rng(n)
    if dt.kind in "mM":
        a = rng.integers(-10**6, 10**6, n).view(dt)
    elif dt.kind == "b":
        a = rng.integers(0, 2, n).astype(bool)
    elif dt.kind == "c":
        a = (rng.standard_normal(n) + 1j * rng.standard_normal(n)).astype(dt)
    else:
        a = (rng.standard_normal(n) * 50).astype(dt) if dt.kind == "f" else \
            rng.integers(0, 100, n).astype(dt)
    for arr in (a, a[::-1], a[1:], a[::3]):
        if arr.size == 0:
            continue
        got = reduce_path(MM, arr, axis=0)
        want = reference(arr, axis=0)
        assert got[0] == want[0] and got[1] == want[1] and got[0].dtype == want[0].dtype


@pytest.mark.parametrize("dtype", [np.float16, np.float32, np.float64, np.longdouble,
                                   np.complex64, np.complex128])
@pytest.mark.parametrize("pos", [0, 1, 7, 8, 9, 62, 63])
def test_nan_anywhere_propagates(reduce_path, dtype, pos):
    a = np.arange(64).astype(dtype)
    a[pos] = np.nan
    lo, hi = reduce_path(MM, a, axis=0)
    assert np.isnan(lo) and np.isnan(hi)
    b = a.reshape(8, 8)
    for axis in (0, 1):
        got = reduce_path(MM, b, axis=axis)
        want = reference(b, axis=axis)
        np.testing.assert_array_equal(got[0], want[0])
        np.testing.assert_array_equal(got[1], want[1])


@pytest.mark.parametrize("imag_nan", [True, False])
def test_complex_nan_in_either_part(reduce_path, imag_nan):
    a = np.array([1 + 1j, 5 + 0j, 2 + 3j], dtype=np.complex128)
    a[1] = complex(5, np.nan) if imag_nan else complex(np.nan, 0)
    for arr in (a, a[::-1]):
        got = reduce_path(MM, arr, axis=0)
        want = reference(arr, axis=0)
        assert np.isnan(got[0]) and np.isnan(got[1]) and np.isnan(want[0]) and np.isnan(want[1])


@pytest.mark.parametrize("dtype", ["M8[ns]", "m8[s]"])
def test_nat_propagates_like_nan(reduce_path, dtype):
    a = np.array([5, -3, np.iinfo(np.int64).min, 7], dtype=np.int64).view(dtype)
    for arr in (a, a[::-1], a[:2]):
        got = reduce_path(MM, arr, axis=0)
        want = reference(arr, axis=0)
        np.testing.assert_array_equal(got[0], want[0])
        np.testing.assert_array_equal(got[1], want[1])


def test_large_2d_both_axes_and_none(reduce_path):
    rng = np.random.default_rng(1)
    a = rng.standard_normal((300, 257))
    for axis in (0, 1, None, (0, 1), (1, 0), -1):
        got = reduce_path(MM, a, axis=axis)
        want = reference(a, axis=axis)
        np.testing.assert_array_equal(got[0], want[0])
        np.testing.assert_array_equal(got[1], want[1])


def test_zero_d_and_scalars(reduce_path):
    for x in (np.float64(2.5), np.array(3, dtype=np.int8), np.array(np.nan)):
        for kw in ({}, {"axis": None}, {"axis": 0}, {"axis": -1}, {"axis": ()}):
            assert_same_outcome(outcome(lambda: reduce_path(MM, x, **kw)),
                                outcome(lambda: reference(x, **kw)))


def test_overlapping_out_and_input(reduce_path):
    a = np.arange(12.0).reshape(3, 4)
    want = reference(a.copy(), axis=0)
    got = reduce_path(MM, a, axis=0, out=(a[0], a[1]))
    np.testing.assert_array_equal(got[0], want[0])
    np.testing.assert_array_equal(got[1], want[1])


def test_input_not_modified_and_lists_accepted(reduce_path):
    a = np.array([[4, 2], [3, 9]])
    before = a.copy()
    got = reduce_path(MM, a.tolist(), axis=1)
    np.testing.assert_array_equal(a, before)
    np.testing.assert_array_equal(got[0], [2, 3])
    np.testing.assert_array_equal(got[1], [4, 9])


def test_pass_through_for_single_output_ufuncs():
    a = np.arange(10.0).reshape(2, 5)
    np.testing.assert_array_equal(nr.reduce(np.add, a, axis=1), np.add.reduce(a, axis=1))
    assert nr.reduce(np.maximum, a, axis=None, initial=100.0) == 100.0
    with pytest.raises(TypeError):
        nr.reduce(len, a)


@pytest.mark.parametrize("dtype", [np.float32, np.float64, np.int16, np.uint8, np.int32, np.int64,
                                   np.float16, "M8[s]"])
@pytest.mark.parametrize("shape", [(17, 64), (40, 131), (3, 200), (33, 1), (1, 96), (65, 40)])
def test_axis0_column_tiles_and_row_blocks(reduce_path, dtype, shape):
    """Leading-axis reductions wide and tall enough for the column-tile
    kernel (tiles of 4 vectors, blocks of 16 rows), with NaN/NaT in the first
    row, the last row, inside and outside the tiles."""
    dt = np.dtype(dtype)
    rng = np.random.default_rng(shape[0] * 1000 + shape[1])
    if dt.kind == "M":
        a = rng.integers(-10**6, 10**6, shape).view(dt)
    elif dt.kind == "f":
        a = (rng.standard_normal(shape) * 100).astype(dt)
    else:
        info = np.iinfo(dt)
        a = rng.integers(info.min, info.max, shape, dtype=dt, endpoint=True)
    variants = [a]
    if dt.kind in "fM":
        b = a.copy()
        nan = np.array("NaT", dtype=dt) if dt.kind == "M" else np.nan
        b[0, 0] = nan
        b[-1, -1] = nan
        b[shape[0] // 2, shape[1] // 2] = nan
        variants.append(b)
    for arr in variants:
        for kw in ({"axis": 0}, {"axis": 0, "keepdims": True}, {"axis": (0,)}):
            got = reduce_path(MM, arr, **kw)
            want = reference(arr, **kw)
            np.testing.assert_array_equal(got[0], want[0])
            np.testing.assert_array_equal(got[1], want[1])
            assert got[0].dtype == want[0].dtype and got[0].shape == want[0].shape
        got = nr.minmax(arr.reshape(shape[0], 1, shape[1]), axis=(0, 1))
        np.testing.assert_array_equal(got[0], np.min(arr, axis=0))
        np.testing.assert_array_equal(got[1], np.max(arr, axis=0))
