"""numreduce.reduce_by_group, numreduce.at and the grouped user functions.

References: Python loops of np.minimum.reduce / np.maximum.reduce (np.fmin /
np.fmax) and of the family's own numreduce.reduce over the groups,
np.minimum.at / np.maximum.at, math.fsum, and pandas groupby (min, max,
mean, var) -- pandas is a test-only dependency.
"""

from __future__ import annotations

import math
import warnings

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

import numreduce as nr

from helpers import ALL_DTYPES, INT_DTYPES, arrays, moment_atols

ORDER = [(nr.minimummaximum, np.minimum, np.maximum), (nr.fminfmax, np.fmin, np.fmax)]
ORDER_IDS = ["minimummaximum", "fminfmax"]


def group_slice(a, axis, ids, k):
    return np.take(a, np.flatnonzero(ids == k), axis=axis)


@st.composite
def grouped(draw, dtypes=ALL_DTYPES):
    a = draw(arrays(dtypes=dtypes, min_dims=1, max_dims=3, max_side=6))
    axis = draw(st.integers(-a.ndim, a.ndim - 1))
    n = a.shape[axis]
    g = draw(st.integers(1, 5))
    ids = np.array(draw(st.lists(st.integers(0, g - 1), min_size=n, max_size=n)), dtype=np.intp)
    ids = ids.astype(draw(st.sampled_from(INT_DTYPES)))
    return a, axis, ids, g


@pytest.mark.parametrize("ufunc, lo_f, hi_f", ORDER, ids=ORDER_IDS)
@given(case=grouped())
def test_order_groups_match_numpy_reduce_loops(ufunc, lo_f, hi_f, case):
    a, axis, ids, g = case
    sizes = [int((ids == k).sum()) for k in range(g)]
    if min(sizes) == 0:  # np.minimum.reduce of that group's (empty) slice raises
        with pytest.raises(ValueError, match="empty"):
            nr.reduce_by_group(ufunc, a, ids, num_groups=g, axis=axis)
        return
    lo, hi = nr.reduce_by_group(ufunc, a, ids, num_groups=g, axis=axis)
    want_lo = np.stack([lo_f.reduce(group_slice(a, axis, ids, k), axis=axis)
                        for k in range(g)], axis=axis)
    want_hi = np.stack([hi_f.reduce(group_slice(a, axis, ids, k), axis=axis)
                        for k in range(g)], axis=axis)
    assert lo.dtype == want_lo.dtype.newbyteorder("=") and hi.dtype == lo.dtype
    np.testing.assert_array_equal(lo, want_lo)
    np.testing.assert_array_equal(hi, want_hi)


@given(case=grouped(dtypes=[np.float32, np.float64, np.int16, np.int64, np.uint8]))
def test_moments_groups_match_the_familys_reduce(case):
    _check_moments_groups(*case)


def test_moments_groups_subnormal_mean():
    """The mean of [5e-324, 0, 0] (exact 1.6e-324) is 0 by reduce, 5e-324 by
    the grouped path: one subnormal apart, which no tolerance relative to the
    data (n eps max|x| = 0 here) allows."""
    _check_moments_groups(np.array([5e-324, np.nan, 0.0, 0.0]), 0,
                          np.array([1, 0, 1, 1], np.int8), 2)


def test_moments_groups_cancelling_int64():
    """A group's mean of [1, 9e18, -9e18, 3] (exact 0.75): grouped 0.0, reduce
    1.0 -- both within n eps max|x| (8e3); a fixed atol of 1e-6 failed."""
    _check_moments_groups(np.array([1, 9 * 10**18, -9 * 10**18, 3], np.int64), 0,
                          np.zeros(4, np.intp), 1)


def _check_moments_groups(a, axis, ids, g):
    got = nr.reduce_by_group(nr.moments, a, ids, num_groups=g, axis=axis)
    # Absolute tolerances from the data (int64 data reach 9.2e18, where a
    # fixed atol is below one rounding of a cancelling mean): helpers.moment_atols.
    atols = (0.0,) + moment_atols(a.shape[axis], a)
    for k in range(g):
        want = nr.reduce(nr.moments, group_slice(a, axis, ids, k), axis=axis)
        for r, w, atol in zip(got, want, atols):
            np.testing.assert_allclose(np.take(r, k, axis=axis), w, rtol=1e-6, atol=atol)


def test_empty_group_takes_the_ufuncs_initials_or_initial():
    x = np.array([1.0, 2.0, 4.0])
    ids = np.array([0, 0, 2])
    n, mean, m2 = nr.reduce_by_group(nr.moments, x, ids)
    np.testing.assert_array_equal(n, [2, 0, 1])
    np.testing.assert_array_equal(mean, [1.5, 0, 4])
    np.testing.assert_array_equal(m2, [0.5, 0, 0])
    s, e = nr.reduce_by_group(nr.twosum, x, ids, num_groups=4)
    np.testing.assert_array_equal(s, [3, 0, 4, 0])
    m, t = nr.reduce_by_group(nr.maxsumexp, x, ids)
    np.testing.assert_array_equal(m, [2, -np.inf, 4])
    np.testing.assert_array_equal(t, [math.exp(-1), -1, 0])
    lo, hi = nr.reduce_by_group(nr.minimummaximum, x, ids, initial=(np.inf, -np.inf))
    np.testing.assert_array_equal(lo, [1, np.inf, 4])
    np.testing.assert_array_equal(hi, [2, -np.inf, 4])
    # initial=None unsets the ufunc's own initials: an empty group raises
    with pytest.raises(ValueError, match="group 1 is empty"):
        nr.reduce_by_group(nr.moments, x, ids, initial=None)


def test_num_groups_none_is_max_plus_one_and_unsorted_ids():
    rng = np.random.default_rng(1)
    x = rng.standard_normal(200)
    ids = rng.permutation(np.arange(200) % 7)
    lo, hi = nr.reduce_by_group(nr.minimummaximum, x, ids)
    assert lo.shape == (7,)
    for k in range(7):
        assert lo[k] == x[ids == k].min() and hi[k] == x[ids == k].max()


def test_where_selects_elements_and_needs_an_initial_without_identity():
    x = np.array([[1.0, 5.0], [3.0, -2.0], [7.0, 0.0]])
    ids = np.array([1, 0, 1])
    where = np.array([[True, False], [True, True], [False, True]])
    lo, hi = nr.reduce_by_group(nr.minimummaximum, x, ids, initial=(np.inf, -np.inf),
                                where=where)
    np.testing.assert_array_equal(lo, [[3, -2], [1, 0]])
    np.testing.assert_array_equal(hi, [[3, -2], [1, 0]])
    with pytest.raises(ValueError, match="to use a where mask one has to specify 'initial'"):
        nr.reduce_by_group(nr.minimummaximum, x, ids, where=where)
    n, mean, _ = nr.reduce_by_group(nr.moments, x, ids, where=where[:, :1])
    np.testing.assert_array_equal(n, [[1, 1], [1, 1]])
    np.testing.assert_array_equal(mean, [[3, -2], [1, 5]])


@pytest.mark.parametrize("ids, g, exc, match", [
    ([0, -1, 1], 3, IndexError, r"group_ids\[1\] = -1 is outside"),
    ([0, 3, 1], 3, IndexError, r"group_ids\[1\] = 3 is outside"),
    ([0, 1, 2**63], None, None, None),  # uint64 beyond intp: MemoryError/ValueError for G
    ([0.0, 1.0, 2.0], 3, TypeError, "must be an array of integers"),
    ([True, False, True], 3, TypeError, "must be an array of integers"),
    ([0, 1], 3, ValueError, "one id per element"),
    ([0, 1, 2], -1, ValueError, "'num_groups' must be >= 0"),
    ([0, 1, 2], 2.0, TypeError, "'num_groups' must be an integer"),
])
def test_bad_ids_raise_before_any_write(ids, g, exc, match):
    x = np.array([1.0, 2.0, 3.0])
    lo, hi = np.full(3, 42.0), np.full(3, 43.0)
    if exc is None:
        ids = np.array(ids, dtype=np.uint64)
        with pytest.raises(IndexError, match=r"group_ids\[2\] = 9223372036854775808"):
            nr.reduce_by_group(nr.minimummaximum, x, ids, num_groups=3, out=(lo, hi))
    else:
        with pytest.raises(exc, match=match):
            nr.reduce_by_group(nr.minimummaximum, x, ids, num_groups=g, out=(lo, hi))
    assert (lo == 42).all() and (hi == 43).all()


def test_empty_group_error_leaves_out_unchanged():
    x = np.array([1.0, 2.0, 3.0])
    lo, hi = np.full(4, 42.0), np.full(4, 43.0)
    with pytest.raises(ValueError, match="group 3 is empty"):
        nr.reduce_by_group(nr.minimummaximum, x, [0, 1, 2], num_groups=4, out=(lo, hi))
    assert (lo == 42).all() and (hi == 43).all()
    # an out of the wrong shape or dtype kind
    with pytest.raises(ValueError, match="out\\[0\\] has shape"):
        nr.reduce_by_group(nr.minimummaximum, x, [0, 1, 2], out=(lo, hi))
    lo3 = np.full(3, 7, dtype=np.int32)
    r = nr.reduce_by_group(nr.minimummaximum, x + 0.5, [0, 1, 2], out=(lo3, None))
    assert r[0] is lo3 and lo3.tolist() == [1, 2, 3]


def test_empty_array_and_bad_ids_on_empty_data():
    a = np.empty((0, 3))
    n, mean, m2 = nr.reduce_by_group(nr.moments, a, [], num_groups=2)
    assert n.shape == (2, 3) and (n == 0).all()
    assert nr.reduce_by_group(nr.minimummaximum, a, [])[0].shape == (0, 3)
    with pytest.raises(IndexError, match="outside"):
        nr.reduce_by_group(nr.moments, np.empty((2, 0)), [0, 5], num_groups=2)


def test_non_multi_output_ufunc_and_masked_refused():
    with pytest.raises(TypeError, match="multi-output"):
        nr.reduce_by_group(np.add, [1.0], [0])
    m = np.ma.array([1.0, 2.0], mask=[0, 1])
    with pytest.raises(TypeError, match="masked arrays are not supported"):
        nr.reduce_by_group(nr.minimummaximum, m, [0, 0])
    with pytest.raises(TypeError, match="masked arrays are not supported"):
        nr.group_minmax(m, [0, 0])


def test_twosum_groups_match_math_fsum():
    rng = np.random.default_rng(3)
    x = rng.standard_normal(3000) * 10.0 ** rng.integers(-10, 10, 3000)
    ids = rng.integers(0, 13, 3000)
    s, e = nr.reduce_by_group(nr.twosum, x, ids)
    for k in range(13):
        assert s[k] + e[k] == math.fsum(x[ids == k])


def test_datetime_groups_with_nat():
    a = np.array([5, 3, "NaT", 9], dtype="M8[s]")
    lo, hi = nr.reduce_by_group(nr.minimummaximum, a, [0, 0, 1, 1])
    np.testing.assert_array_equal(lo, np.array([3, "NaT"], dtype="M8[s]"))
    lo, hi = nr.reduce_by_group(nr.fminfmax, a, [0, 0, 1, 1])
    np.testing.assert_array_equal(hi, np.array([5, 9], dtype="M8[s]"))


# ---------------------------------------------------------------------------
# at
# ---------------------------------------------------------------------------

@pytest.mark.parametrize("ufunc, lo_f, hi_f", ORDER, ids=ORDER_IDS)
@given(data=st.data())
def test_at_matches_numpy_at(ufunc, lo_f, hi_f, data):
    dtype = data.draw(st.sampled_from([np.float64, np.float32, np.int8, np.uint16, np.int64]))
    shape = data.draw(st.sampled_from([(5,), (3, 4), (2, 3, 2)]))
    rng = np.random.default_rng(data.draw(st.integers(0, 2**32 - 1)))
    lo = rng.integers(-50, 50, shape).astype(dtype)
    hi = rng.integers(-50, 50, shape).astype(dtype)
    m = data.draw(st.integers(0, 12))
    kind = data.draw(st.sampled_from(["int", "tuple", "slice", "scalar"]))
    if kind == "int":
        idx = rng.integers(-shape[0], shape[0], m)  # negative and repeated
    elif kind == "tuple":
        idx = tuple(rng.integers(-s, s, m) for s in shape)
    elif kind == "slice":
        idx = slice(None, None, 2)
    else:
        idx = int(rng.integers(0, shape[0]))
    target = np.arange(lo.size).reshape(shape)[idx]
    vshape = data.draw(st.sampled_from([target.shape, (), target.shape[-1:]]))
    values = rng.integers(-100, 100, vshape).astype(dtype)
    if dtype in (np.float64, np.float32) and values.size:
        values.flat[0] = np.nan
    want_lo, want_hi = lo.copy(), hi.copy()
    lo_f.at(want_lo, idx, values)
    hi_f.at(want_hi, idx, values)
    assert nr.at(ufunc, (lo, hi), idx, values) is None
    np.testing.assert_array_equal(lo, want_lo)
    np.testing.assert_array_equal(hi, want_hi)


def test_at_moments_is_a_running_state_per_slot():
    rng = np.random.default_rng(4)
    idx = rng.integers(0, 6, 500)
    v = rng.standard_normal(500)
    state = (np.zeros(6), np.zeros(6), np.zeros(6))
    nr.at(nr.moments, state, idx[:200], v[:200])
    nr.at(nr.moments, state, idx[200:], v[200:])
    for k in range(6):
        np.testing.assert_allclose([s[k] for s in state], nr.reduce(nr.moments, v[idx == k]),
                                   rtol=1e-12, atol=1e-12)


def test_at_errors_before_any_write():
    lo, hi = np.full(4, 10.0), np.full(4, -10.0)
    for idx, values, exc, match in [
        ([0, 4], [1.0, 2.0], IndexError, "out of bounds"),
        ([0, -5], [1.0, 2.0], IndexError, "out of bounds"),
        ((np.array([0]), np.array([0])), [1.0], IndexError, None),
        ([0, 1, 2], [1.0, 2.0], ValueError, "does not broadcast"),
        ([0.5], [1.0], IndexError, None),
    ]:
        want = pytest.raises(exc) if match is None else pytest.raises(exc, match=match)
        with want:
            nr.at(nr.minimummaximum, (lo, hi), idx, values)
        with pytest.raises(exc):
            np.minimum.at(lo.copy(), idx, values)  # NumPy raises the same type
        assert (lo == 10).all() and (hi == -10).all()
    with pytest.raises(ValueError, match="one array per ufunc output"):
        nr.at(nr.minimummaximum, (lo,), [0], [1.0])
    with pytest.raises(ValueError, match="share memory"):
        nr.at(nr.minimummaximum, (lo, lo), [0], [1.0])
    with pytest.raises(ValueError, match="read-only"):
        ro = hi.copy()
        ro.flags.writeable = False
        nr.at(nr.minimummaximum, (lo, ro), [0], [1.0])
    ints = np.zeros(4, dtype=np.int64)
    with pytest.raises(TypeError, match="same_kind"):
        nr.at(nr.minimummaximum, (ints, ints.copy()), [0], [1.5])
    assert (ints == 0).all()


def test_at_values_overlapping_outs_and_strided_outs():
    lo = np.array([5.0, 1.0, 3.0, 0.0])
    hi = lo.copy()
    want_lo = lo.copy()
    np.minimum.at(want_lo, [3, 2, 1, 0], want_lo.copy())
    nr.at(nr.minimummaximum, (lo, hi), [3, 2, 1, 0], lo)
    np.testing.assert_array_equal(lo, [0, 1, 1, 0])
    base = np.zeros((4, 2))
    strided = (base[:, 0], base[:, 1])
    nr.at(nr.minimummaximum, strided, [1, 1, 2], [3.0, -1.0, 2.0])
    np.testing.assert_array_equal(base, [[0, 0], [-1, 3], [0, 2], [0, 0]])


# ---------------------------------------------------------------------------
# grouped user functions against pandas
# ---------------------------------------------------------------------------

def _pandas():
    return pytest.importorskip("pandas", reason="pandas is not installed (the 'pandas' extra)")


@pytest.mark.parametrize("dtype", [np.float64, np.float32, np.int32, np.uint8])
def test_group_minmax_matches_pandas(dtype):
    pd = _pandas()
    rng = np.random.default_rng(5)
    x = (rng.standard_normal(5000) * 50).astype(dtype)
    ids = rng.integers(0, 97, 5000)
    lo, hi = nr.group_minmax(x, ids)
    want = pd.Series(x).groupby(ids).agg(["min", "max"])
    np.testing.assert_array_equal(lo, want["min"].to_numpy())
    np.testing.assert_array_equal(hi, want["max"].to_numpy())
    assert lo.dtype == x.dtype


@pytest.mark.parametrize("ddof", [0, 1, 2])
def test_group_meanvar_matches_pandas(ddof):
    pd = _pandas()
    rng = np.random.default_rng(6)
    x = rng.standard_normal(20000) + 1e6
    ids = rng.integers(0, 300, 20000)
    mean, var = nr.group_meanvar(x, ids, ddof=ddof)
    s = pd.Series(x).groupby(ids)
    np.testing.assert_allclose(mean, s.mean().to_numpy(), rtol=1e-15)
    np.testing.assert_allclose(var, s.var(ddof=ddof).to_numpy(), rtol=1e-8)
    for k in (0, 17, 299):
        np.testing.assert_allclose(var[k], np.var(x[ids == k], ddof=ddof), rtol=1e-9)


def test_group_meanvar_axis_complex_and_empty_groups():
    rng = np.random.default_rng(7)
    a = rng.standard_normal((4, 9)) + 1j * rng.standard_normal((4, 9))
    ids = np.array([2, 0, 0, 1, 2, 2, 0, 1, 1])
    mean, var = nr.group_meanvar(a, ids, axis=1, ddof=1)
    for k in range(3):
        np.testing.assert_allclose(mean[:, k], np.mean(a[:, ids == k], axis=1))
        np.testing.assert_allclose(var[:, k], np.var(a[:, ids == k], axis=1, ddof=1))
    with pytest.warns(RuntimeWarning, match="Mean of empty slice"), \
            pytest.warns(RuntimeWarning, match="Degrees of freedom <= 0"):
        mean, var = nr.group_meanvar(np.array([1.0, 3.0]), [0, 0], num_groups=2)
    np.testing.assert_array_equal(mean, [2, np.nan])
    with pytest.raises(TypeError, match="dtype=int64 is not supported"):
        nr.group_meanvar(np.array([1.0]), [0], dtype=np.int64)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        assert nr.group_meanvar(np.array([1, 2, 4], dtype=np.int8), [0, 0, 0])[1].dtype == \
            np.float64


# ---------------------------------------------------------------------------
# group_logsumexp, group_fsum, group_argminmax
# ---------------------------------------------------------------------------

def test_group_logsumexp_matches_scipy():
    special = pytest.importorskip("scipy.special", reason="scipy is not installed")
    rng = np.random.default_rng(8)
    x = rng.standard_normal(3000) * 300
    x[:3] = [np.inf, -np.inf, np.nan]
    ids = rng.integers(0, 40, 3000)
    got = nr.group_logsumexp(x, ids, num_groups=41)
    assert got[40] == -np.inf  # empty group
    for k in range(40):
        want = special.logsumexp(x[ids == k])
        np.testing.assert_allclose(got[k], want, rtol=1e-14)
    a = rng.standard_normal((3, 50)).astype(np.float32)
    ids = rng.integers(0, 4, 50)
    got = nr.group_logsumexp(a, ids, axis=1)
    assert got.dtype == np.float32 and got.shape == (3, 4)
    for k in range(4):
        np.testing.assert_allclose(got[:, k], special.logsumexp(a[:, ids == k], axis=1),
                                   rtol=1e-6)
    with pytest.raises(TypeError, match="unsupported dtype"):
        nr.group_logsumexp(np.array([1j]), [0])


def test_group_fsum_matches_math_fsum():
    rng = np.random.default_rng(9)
    x = rng.standard_normal(5000) * 10.0 ** rng.integers(-15, 15, 5000)
    ids = rng.integers(0, 23, 5000)
    got = nr.group_fsum(x, ids, num_groups=24)
    for k in range(23):
        want = math.fsum(x[ids == k])
        assert abs(got[k] - want) <= 2 * np.spacing(abs(want)), (k, got[k], want)
    assert got[23] == 0
    assert nr.group_fsum(np.arange(6, dtype=np.int16), [0, 1, 0, 1, 0, 1]).tolist() == [6, 9]


@pytest.mark.parametrize("dtype", [np.float64, np.float32, np.int8, np.uint64, "M8[s]"])
def test_group_argminmax_matches_numpy_argmin_loops(dtype):
    rng = np.random.default_rng(10)
    x = rng.integers(0, 20, 400).astype(np.int64)  # ties: the first one wins
    x = x.astype(dtype) if np.dtype(dtype).kind != "M" else x.view("M8[s]")
    if np.dtype(dtype).kind in "fM":
        x[[7, 100, 101]] = np.array(["NaT"], dtype="M8[s]")[0] if np.dtype(dtype).kind == "M" \
            else np.nan
    ids = rng.integers(0, 17, 400)
    lo, hi = nr.group_argminmax(x, ids)
    for k in range(17):
        where = np.flatnonzero(ids == k)
        assert lo[k] == where[np.argmin(x[where])], k
        assert hi[k] == where[np.argmax(x[where])], k
    with pytest.raises(ValueError, match="empty"):
        nr.group_argminmax(x, ids, num_groups=18)


def test_dtype_axis_and_array_likes():
    lo, hi = nr.reduce_by_group(nr.minimummaximum, [3, 1, 2], [0, 0, 1], dtype=np.float32)
    assert lo.dtype == np.float32 and lo.tolist() == [1, 2] and hi.tolist() == [3, 2]
    with pytest.raises(ValueError, match="'axis' must be one axis"):
        nr.reduce_by_group(nr.minimummaximum, np.ones((2, 2)), [0, 1], axis=(0, 1))
    with pytest.raises(TypeError, match="cannot group a scalar"):
        nr.reduce_by_group(nr.minimummaximum, 1.0, [0])

    class Sub(np.ndarray):
        pass

    lo, hi = nr.group_minmax(np.arange(4.0).view(Sub), [0, 1, 0, 1])
    assert type(lo) is Sub and lo.tolist() == [0, 1] and hi.tolist() == [2, 3]
