"""Bad input: the same exception types as NumPy, raised before any output is written."""

import numpy as np
import pytest

import numreduce as nr

MM = nr.minimummaximum


def test_unsupported_dtype_names_ufunc_and_dtype(reduce_path):
    for a in (np.array(["a", "b"]), np.array([b"x"]), np.array([object(), object()])):
        with pytest.raises(TypeError, match="minimummaximum") as info:
            reduce_path(MM, a, axis=0)
        assert a.dtype.name.rstrip("0123456789") in str(info.value).lower() or \
            type(a.dtype).__name__ in str(info.value)


@pytest.mark.parametrize("axis", [2, -3, (0, 2), (5,)])
def test_axis_out_of_range(reduce_path, axis):
    with pytest.raises(np.exceptions.AxisError):
        reduce_path(MM, np.ones((2, 3)), axis=axis)


def test_duplicate_axis(reduce_path):
    with pytest.raises(ValueError, match="duplicate"):
        reduce_path(MM, np.ones((2, 3)), axis=(0, -2))


def test_axis_not_an_integer(reduce_path):
    with pytest.raises(TypeError):
        reduce_path(MM, np.ones((2, 3)), axis=1.0)


def test_empty_without_initial(reduce_path):
    with pytest.raises(ValueError, match="zero-size array to reduction operation"):
        reduce_path(MM, np.ones((0, 3)), axis=0)
    # ... but an empty *result* is fine, and an initial makes it well-defined.
    lo, hi = reduce_path(MM, np.ones((0, 3)), axis=1)
    assert lo.shape == hi.shape == (0,)
    lo, hi = reduce_path(MM, np.ones((0, 3)), axis=0, initial=(1.0, 2.0))
    np.testing.assert_array_equal(lo, [1, 1, 1])
    np.testing.assert_array_equal(hi, [2, 2, 2])


def test_where_needs_initial(reduce_path):
    with pytest.raises(ValueError, match="initial"):
        reduce_path(MM, np.arange(4.0), axis=0, where=[True, False, True, True])


@pytest.mark.parametrize("initial", [(1.0,), (1.0, 2.0, 3.0), ()])
def test_initial_tuple_wrong_length(reduce_path, initial):
    with pytest.raises(ValueError, match="initial"):
        reduce_path(MM, np.arange(4.0), axis=0, initial=initial)


def test_initial_tuple_with_none(reduce_path):
    with pytest.raises(ValueError, match="cannot be None"):
        reduce_path(MM, np.arange(4.0), axis=0, initial=(None, 1.0))


def test_initial_none_unsets(reduce_path):
    assert reduce_path(MM, np.arange(4.0), axis=0, initial=None) == (0.0, 3.0)
    with pytest.raises(ValueError):
        reduce_path(MM, np.arange(0.0), axis=0, initial=None)


def test_initial_out_of_range_for_dtype(reduce_path):
    with pytest.raises(OverflowError):
        reduce_path(MM, np.arange(4, dtype=np.int8), axis=0, initial=1000)


def _outs(shape=(3,), dtype=np.float64):
    return np.full(shape, 7.0, dtype=dtype), np.full(shape, 7.0, dtype=dtype)


def test_out_not_a_tuple(reduce_path):
    lo, hi = _outs()
    with pytest.raises(TypeError):
        reduce_path(MM, np.ones((2, 3)), axis=0, out=lo)
    with pytest.raises(TypeError):
        reduce_path(MM, np.ones((2, 3)), axis=0, out=[lo, hi])
    assert (lo == 7).all()


def test_out_wrong_count(reduce_path):
    lo, hi = _outs()
    with pytest.raises(ValueError):
        reduce_path(MM, np.ones((2, 3)), axis=0, out=(lo,))
    with pytest.raises(ValueError):
        reduce_path(MM, np.ones((2, 3)), axis=0, out=(lo, hi, hi))
    assert (lo == 7).all() and (hi == 7).all()


@pytest.mark.parametrize("shape", [(4,), (3, 1), (2, 3)])
def test_out_wrong_shape_writes_nothing(reduce_path, shape):
    lo, hi = _outs(shape)
    with pytest.raises(ValueError):
        reduce_path(MM, np.ones((2, 3)), axis=0, out=(lo, hi))
    assert (lo == 7).all() and (hi == 7).all()


def test_out_wrong_shape_keepdims(reduce_path):
    lo, hi = _outs((2, 3))
    with pytest.raises(ValueError):
        reduce_path(MM, np.ones((2, 3)), axis=0, keepdims=True, out=(lo, hi))
    assert (lo == 7).all() and (hi == 7).all()


def test_out_read_only_writes_nothing(reduce_path):
    lo, hi = _outs()
    hi.flags.writeable = False
    with pytest.raises(ValueError, match="read-only"):
        reduce_path(MM, np.ones((2, 3)), axis=0, out=(lo, hi))
    assert (lo == 7).all() and (hi == 7).all()


def test_out_not_an_array(reduce_path):
    with pytest.raises(TypeError):
        reduce_path(MM, np.ones((2, 3)), axis=0, out=([0, 0, 0], None))


def test_out_dtype_is_cast_unsafely_like_native_multi_output_reduce(reduce_path):
    """Native multi-output reduce resolves the loop from the input (out dtypes
    are operand dtypes, not a signature) and casts into `out` with 'unsafe'
    casting, as every ufunc.reduce does.  (Single-output np.minimum.reduce
    instead treats out.dtype as the loop signature.)"""
    lo, hi = np.empty(3, dtype=np.int8), np.empty(3, dtype=np.float32)
    a = np.array([[1.7, -2.5, 3.0], [0.5, 9.9, -1.0]])
    reduce_path(MM, a, axis=0, out=(lo, hi))
    np.testing.assert_array_equal(lo, a.min(0).astype(np.int8))
    np.testing.assert_array_equal(hi, a.max(0).astype(np.float32))


# --- issue 10: an `out` axis of length 1 is not a second reduction --------

A12 = np.arange(12.0).reshape(3, 4)


def test_engine_core_refuses_size1_out_axis_itself():
    """The C++ engine checks the out shape too (its NpyIter marks the reduced
    axes NPY_ITER_REDUCTION_AXIS(-1)), not only the Python half."""
    outs = (np.full(1, 7.0), None)
    descrs = nr._engine._resolve(MM, A12.dtype, outs, None, 2)
    with pytest.raises(ValueError, match=r"out\[0\] has shape \(1,\), but the result has shape "
                                         r"\(4,\)"):
        nr._core._reduce(MM, A12, outs, None, (0,), 2, (np.inf, -np.inf), descrs)
    assert outs[0][0] == 7
