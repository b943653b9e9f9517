"""minimummaximum(x, y) against (np.minimum(x, y), np.maximum(x, y))."""

import numpy as np
import pytest
from hypothesis import given

import numreduce as nr
from helpers import ALL_DTYPES, assert_same_outcome, broadcast_pairs, outcome, outcome_warned

MM = nr.minimummaximum


def reference(x, y, **kw):
    return np.minimum(x, y, **kw), np.maximum(x, y, **kw)


def test_is_a_real_ufunc():
    assert isinstance(MM, np.ufunc)
    assert (MM.nin, MM.nout, MM.nargs) == (2, 2, 4)
    assert MM.__name__ == "minimummaximum"
    assert MM.identity is None
    assert "minimum" in MM.__doc__


@given(pair=broadcast_pairs())
def test_same_dtype_broadcasting(pair):
    x, y = pair
    assert_same_outcome(outcome(lambda: MM(x, y)), outcome(lambda: reference(x, y)))


MIXED = [np.bool_, np.int8, np.uint8, np.int32, np.uint64, np.int64, np.float16, np.float32,
         np.float64, np.complex64]


@pytest.mark.parametrize("t1", MIXED)
@pytest.mark.parametrize("t2", MIXED)
def test_promotion_matches_np_minimum(t1, t2):
    x = np.array([1, 0, 3], dtype=t1)
    y = np.array([0, 1, 2], dtype=t2)
    assert_same_outcome(outcome(lambda: MM(x, y)), outcome(lambda: reference(x, y)))


@pytest.mark.parametrize("dtype", [np.int8, np.uint16, np.float32, np.float64, np.complex64,
                                   np.bool_])
@pytest.mark.parametrize("scalar", [True, 2, -1, 300, 2.5, 1e40, 1j, np.float64(2.5),
                                    np.int64(3)])
def test_python_and_numpy_scalars_follow_nep50(dtype, scalar):
    # Same results and the same warnings (1e40 into float32: NumPy's overflow in cast)
    x = np.array([0, 1, 5], dtype=dtype)
    for args in ((x, scalar), (scalar, x)):
        got, got_warned = outcome_warned(lambda: MM(*args))
        want, want_warned = outcome_warned(lambda: reference(*args))
        assert_same_outcome(got, want)
        assert got_warned == want_warned


def test_datetime_units_promote():
    x = np.array(["2020-01-01", "NaT", "2021-06-01"], dtype="M8[D]")
    y = np.array(["2020-01-01T12", "2020-01-02T00", "NaT"], dtype="M8[h]")
    assert_same_outcome(outcome(lambda: MM(x, y)), outcome(lambda: reference(x, y)))
    td = np.array([1, 2, 3], dtype="m8[s]")
    assert_same_outcome(outcome(lambda: MM(td, np.timedelta64(2, "ms"))),
                        outcome(lambda: reference(td, np.timedelta64(2, "ms"))))


def test_out_and_where():
    x = np.array([1.0, 5.0, np.nan, 4.0])
    y = np.array([3.0, 2.0, 1.0, np.nan])
    lo, hi = np.full(4, -9.0), np.full(4, -9.0)
    res = MM(x, y, out=(lo, hi), where=[True, False, True, True])
    assert res[0] is lo and res[1] is hi
    np.testing.assert_array_equal(lo, [1.0, -9.0, np.nan, np.nan])
    np.testing.assert_array_equal(hi, [3.0, -9.0, np.nan, np.nan])


def test_out_dtype_casting_rules_match_numpy():
    x = np.array([1.5, 2.5])
    outs = (np.empty(2, np.int64), np.empty(2, np.int64))
    with pytest.raises(TypeError):  # same_kind forbids float -> int
        MM(x, x, out=outs)
    MM(x, x, out=outs, casting="unsafe")
    np.testing.assert_array_equal(outs[0], [1, 2])


@pytest.mark.parametrize("dtype", ALL_DTYPES)
def test_every_dtype_elementwise_nan_nat(dtype):
    dt = np.dtype(dtype)
    if dt.kind in "mM":
        x = np.array([3, np.iinfo(np.int64).min, 1, 5]).view(dt)
        y = np.array([2, 7, np.iinfo(np.int64).min, 5]).view(dt)
    elif dt.kind in "fc":
        x = np.array([3, np.nan, 1, 5, -0.0]).astype(dt)
        y = np.array([2, 7, np.nan, 5, 0.0]).astype(dt)
    else:
        x = np.array([3, 0, 1, 1]).astype(dt)
        y = np.array([2, 1, 0, 1]).astype(dt)
    for a, b in ((x, y), (y, x), (x[::-1], y[::2] if len(y) % 2 else y[::-1])):
        if a.shape != b.shape:
            continue
        assert_same_outcome(outcome(lambda: MM(a, b)), outcome(lambda: reference(a, b)))


def test_no_floating_point_warnings(recwarn):
    with np.errstate(all="raise"):
        MM(np.array([np.nan, 1.0]), np.array([1.0, np.nan]))
        nr.reduce(MM, np.array([np.nan, 1.0, 2.0]), axis=0)
    assert len(recwarn) == 0
