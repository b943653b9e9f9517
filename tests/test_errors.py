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

ALL_UFUNCS = [nr.minimummaximum, nr.fminfmax, nr.moments, nr.nanmoments, nr.maxsumexp,
              nr.twosum]
A12 = np.arange(12.0).reshape(3, 4)


def _numpy_error(a, axis, out_shape, keepdims=False):
    """NumPy's own exception for the single-output equivalent (the reference)."""
    with pytest.raises(Exception) as info:
        np.add.reduce(a, axis=axis, keepdims=keepdims, out=np.zeros(out_shape), initial=0.0)
    return type(info.value)


@pytest.mark.parametrize("ufunc", ALL_UFUNCS, ids=lambda u: u.__name__)
@pytest.mark.parametrize("shape,axis,keepdims,out_shape,result_shape", [
    ((3, 4), 0, False, (1,), (4,)),
    ((3, 4), 1, False, (1,), (3,)),
    ((3, 4), 0, True, (1, 1), (1, 4)),
    ((2, 3, 4), 1, False, (2, 1), (2, 4)),
    ((2, 3, 4), 1, False, (1, 4), (2, 4)),
    ((2, 3, 4), (0, 2), True, (1, 1, 1), (1, 3, 1)),
    ((2, 3, 4), 2, False, (1, 1), (2, 3)),
])
@pytest.mark.parametrize("initial", ["loop", "given", "none"])
def test_out_with_size1_axis_is_refused(ufunc, shape, axis, keepdims, out_shape, result_shape,
                                        initial):
    """nr.minmax(A, axis=0, out=(np.zeros(1),) * 2, initial=...) returned the
    reduction over *both* axes; NumPy raises ValueError."""
    a = np.arange(float(np.prod(shape))).reshape(shape)
    outs = tuple(np.full(out_shape, 7.0) for _ in range(ufunc.nout))
    kw = {"loop": {}, "given": {"initial": 0.0}, "none": {"initial": None}}[initial]
    with pytest.raises(ValueError) as info:
        nr.reduce(ufunc, a, axis=axis, keepdims=keepdims, out=outs, **kw)
    msg = str(info.value)
    assert "out[0]" in msg and str(out_shape) in msg and str(result_shape) in msg, msg
    assert issubclass(_numpy_error(a, axis, out_shape, keepdims), ValueError)
    for o in outs:
        assert (o == 7).all()


def test_minmax_out_size1_axis_issue_example():
    lo, hi = np.zeros(1), np.zeros(1)
    with pytest.raises(ValueError, match=r"out\[0\] has shape \(1,\), but the result has shape "
                                         r"\(4,\)"):
        nr.minmax(A12, axis=0, out=(lo, hi), initial=(np.inf, -np.inf))
    assert lo[0] == 0 and hi[0] == 0
    with pytest.raises(ValueError):
        np.minimum.reduce(A12, axis=0, out=np.zeros(1), initial=np.inf)


def test_engine_core_refuses_size1_out_axis_itself():
    """The C++ engine checks the out shape too (its NpyIter marks the reduced
    axes NPY_ITER_REDUCTION_AXIS(-1)), not only the Python half."""
    outs = (np.full(1, 7.0), None)
    descrs = nr._dtypes.resolve(MM, A12.dtype, outs, None, 2)
    with pytest.raises(ValueError, match=r"out\[0\] has shape \(1,\), but the result has shape "
                                         r"\(4,\)"):
        nr._core._reduce(MM, A12, outs, None, (0,), 2, (np.inf, -np.inf), descrs)
    assert outs[0][0] == 7


def test_out_of_the_right_shape_still_works():
    lo, hi = np.empty(4), np.empty(4)
    r = nr.reduce(MM, A12, axis=0, out=(lo, hi), initial=(np.inf, -np.inf))
    assert r[0] is lo and r[1] is hi
    np.testing.assert_array_equal(lo, np.min(A12, axis=0))
    np.testing.assert_array_equal(hi, np.max(A12, axis=0))
    c, m, s = (np.empty((1, 4)) for _ in range(3))
    nr.reduce(nr.moments, A12, axis=0, keepdims=True, out=(c, m, s))
    np.testing.assert_array_equal(c, [[3, 3, 3, 3]])
    np.testing.assert_allclose(m, np.mean(A12, axis=0, keepdims=True))


# --- issue 10: aliased outputs --------------------------------------------

def test_argminmax_same_out_twice():
    o = np.full(4, 7, dtype=np.intp)
    for f in (nr.argminmax, nr.nanargminmax):
        with pytest.raises(ValueError, match=r"out\[0\] and out\[1\] share memory"):
            f(A12, axis=0, out=(o, o))
        assert (o == 7).all()


@pytest.mark.parametrize("ufunc", ALL_UFUNCS, ids=lambda u: u.__name__)
def test_reduce_overlapping_outs(ufunc):
    buf = np.full(4 + ufunc.nout, 7.0)
    outs = tuple(buf[i:i + 4] for i in range(ufunc.nout))
    with pytest.raises(ValueError, match="share memory"):
        nr.reduce(ufunc, A12, axis=0, out=outs)
    assert (buf == 7).all()


def test_interleaved_outs_that_do_not_overlap_are_fine():
    buf = np.empty(8)
    lo, hi = buf[::2], buf[1::2]  # same bounds, disjoint elements
    assert np.may_share_memory(lo, hi) and not np.shares_memory(lo, hi)
    nr.minmax(A12, axis=0, out=(lo, hi))
    np.testing.assert_array_equal(lo, np.min(A12, axis=0))
    np.testing.assert_array_equal(hi, np.max(A12, axis=0))


def test_out_may_alias_the_input():
    """Input/output overlap is NumPy's COPY_IF_OVERLAP case, not an error."""
    a = A12.copy()
    lo = a[0]
    hi = np.empty(4)
    nr.reduce(MM, a, axis=0, out=(lo, hi))
    np.testing.assert_array_equal(lo, np.min(A12, axis=0))
    np.testing.assert_array_equal(hi, np.max(A12, axis=0))


# --- issue 10: argument conversion as NumPy -------------------------------

def test_where_python_scalars_and_lists_convert_as_numpy():
    """ufunc.reduce converts a non-array `where` with dtype=bool (1, 1.0,
    lists of ints); only arrays must cast safely."""
    for w in (1, 1.0, np.int64(1), [1, 0, 2, 1]):
        got = nr.minmax(A12, axis=0, where=w, initial=(np.inf, -np.inf))
        want = (np.minimum.reduce(A12, axis=0, where=w, initial=np.inf),
                np.maximum.reduce(A12, axis=0, where=w, initial=-np.inf))
        np.testing.assert_array_equal(got, want)


def test_keepdims_int_and_index_types_accepted_as_numpy():
    for kd in (1, np.int64(1)):
        got = nr.minmax(A12, axis=0, keepdims=kd)
        np.testing.assert_array_equal(got[0], np.min(A12, axis=0, keepdims=kd))
        np.testing.assert_array_equal(nr.meanvar(A12, axis=0, keepdims=kd)[0],
                                      np.mean(A12, axis=0, keepdims=kd))


def test_axis_0d_integer_array_accepted_as_numpy():
    ax = np.array(1)
    np.testing.assert_array_equal(nr.minmax(A12, axis=ax)[0], np.min(A12, axis=ax))
    np.testing.assert_array_equal(nr.meanvar(A12, axis=ax)[0], np.mean(A12, axis=ax))
    np.testing.assert_array_equal(nr.argminmax(A12, axis=ax)[0], np.argmin(A12, axis=ax))


def test_plain_1d_axis_fast_path_with_array_axis():
    """The 1-D fast path's `axis in (0, -1)` raised the ambiguous-truth
    ValueError for an array axis."""
    with pytest.raises(TypeError, match="axis"):
        nr.reduce(MM, np.arange(5.0), axis=np.array([0, 1]))
    with pytest.raises(TypeError):
        np.minimum.reduce(np.arange(5.0), axis=np.array([0, 1]))


OUT_DTYPE_PAIRS = [(i, o) for i in ("f8", "i8", "?", "M8[s]", "m8[s]")
                   for o in ("f8", "f4", "i1", "u8", "?", "c16", "O", "U5", "S3", "M8[ms]",
                             "m8[ms]")]
# NumPy accepts these through its datetime/timedelta promoters; numreduce
# refuses them (docs/semantics.md: only numeric <-> numeric, object, within
# datetime64 / timedelta64 and timedelta64 <-> signed integer; the loop
# resolution finds no datetime loop with an object out).
STRICTER_OUT_DTYPES = {("M8[s]", "m8[ms]"), ("m8[s]", "M8[ms]"), ("M8[s]", "O"), ("m8[s]", "O"),
                       ("m8[s]", "?"), ("?", "m8[ms]")}


@pytest.mark.filterwarnings("ignore::numpy.exceptions.ComplexWarning")
@pytest.mark.parametrize("in_dt,out_dt", OUT_DTYPE_PAIRS)
def test_out_dtype_refused_where_numpy_refuses(in_dt, out_dt):
    """A float result cast into a '<U5' (or datetime) out was accepted
    silently; refuse where np.minimum.reduce finds no loop either."""
    a = np.arange(12).reshape(3, 4).astype(in_dt)
    try:
        np.minimum.reduce(a, axis=0, out=np.zeros(4, out_dt))
        numpy_ok = True
    except TypeError:
        numpy_ok = False
    lo = np.zeros(4, out_dt)
    before = lo.copy()
    try:
        nr.minmax(a, axis=0, out=(lo, None))
        ours_ok = True
    except TypeError as e:
        assert "out[0]" in str(e)
        np.testing.assert_array_equal(lo, before)
        ours_ok = False
    if (in_dt, out_dt) in STRICTER_OUT_DTYPES:
        assert not ours_ok
    else:
        assert ours_ok == numpy_ok
