"""numreduce.reduceat and numreduce.segmented_reduce: segment reductions of
every output in one pass (the segment loop).

References: np.minimum/np.maximum (np.fmin/np.fmax) .reduceat output by
output (and their IndexError messages), np.add.reduceat and math.fsum for
sums and counts, Python loops of np.minimum.reduce / np.maximum.reduce and
of the family's own numreduce.reduce over the slices ``a[start:stop]``.
"""

from __future__ import annotations

import doctest
import math

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st
from hypothesis.extra import numpy as hnp

import numreduce as nr
import numreduce._api

from helpers import ALL_DTYPES, INT_DTYPES, arrays, moment_atols

ORDER = [(nr.minimummaximum, np.minimum, np.maximum), (nr.fminfmax, np.fmin, np.fmax)]
ORDER_IDS = ["minimummaximum", "fminfmax"]


def sl(a, axis, lo, hi):
    idx = [slice(None)] * a.ndim
    idx[axis] = slice(lo, hi)
    return a[tuple(idx)]


def take(a, axis, i):
    return np.take(a, i, axis=axis)


@st.composite
def array_axis_indices(draw, dtypes=ALL_DTYPES, min_side=1):
    a = draw(arrays(dtypes=dtypes, min_dims=1, max_dims=3, max_side=6))
    axis = draw(st.integers(-a.ndim, a.ndim - 1))
    n = a.shape[axis % a.ndim]
    idx = draw(st.lists(st.integers(0, n - 1), max_size=8)) if n > 0 else []
    return a, axis, idx


# ---------------------------------------------------------------- reduceat


@pytest.mark.parametrize("u, lo, hi", ORDER, ids=ORDER_IDS)
@given(case=array_axis_indices())
def test_reduceat_order_against_numpy(u, lo, hi, case):
    a, axis, idx = case
    got = nr.reduceat(u, a, idx, axis=axis)
    want = (lo.reduceat(a, idx, axis=axis), hi.reduceat(a, idx, axis=axis))
    assert isinstance(got, tuple) and len(got) == 2
    for g, w in zip(got, want):
        assert type(g) is np.ndarray and g.dtype == w.dtype and g.shape == w.shape
        np.testing.assert_array_equal(g, w)


@given(case=array_axis_indices(dtypes=[np.float64, np.float32, np.int8, np.uint16, np.int64,
                                       np.bool_]))
def test_reduceat_sums_and_moments(case):
    a, axis, idx = case
    ax = axis % a.ndim
    x = a.astype(np.float64)
    n, mean, m2 = nr.reduceat(nr.moments, a, idx, axis=axis)
    if not idx:
        assert n.shape == sl(a, ax, 0, 0).shape
        return
    count = np.add.reduceat(np.ones_like(x), idx, axis=ax)
    np.testing.assert_array_equal(n, count)
    # Absolute tolerances from the data (int64 data reach 9.2e18, where a
    # fixed atol is below one rounding): helpers.moment_atols for the
    # moments of at most L = a.shape[ax] terms; a sum of them rounds by at
    # most L eps sum|x| (np.add.reduceat's running sum).
    L = a.shape[ax]
    atol_mean, atol_m2 = moment_atols(L, x)
    fin = np.abs(x[np.isfinite(x)])
    atol_sum = 4 * L * np.finfo(np.float64).eps * float(np.sum(fin)) \
        + L * float(np.finfo(np.float64).smallest_subnormal)
    np.testing.assert_allclose(mean, np.add.reduceat(x, idx, axis=ax) / count, rtol=1e-12,
                               atol=atol_mean)
    s, e = nr.reduceat(nr.twosum, a, idx, axis=axis)  # (s, e) in the input's float width
    np.testing.assert_allclose(s.astype(np.float64) + e, np.add.reduceat(x, idx, axis=ax),
                               rtol=1e-10, atol=atol_sum)
    m, t = nr.reduceat(nr.maxsumexp, a, idx, axis=axis)
    np.testing.assert_array_equal(m, np.maximum.reduceat(x, idx, axis=ax))
    # Each segment against the family's own reduce of the slice NumPy reduces.
    stops = [idx[i + 1] if idx[i] < idx[i + 1] else idx[i] + 1 for i in range(len(idx) - 1)]
    for i, (lo_, hi_) in enumerate(zip(idx, stops + [a.shape[ax]])):
        rn, rmean, rm2 = nr.reduce(nr.moments, sl(a, ax, lo_, hi_), axis=ax)
        np.testing.assert_array_equal(take(n, ax, i), rn)
        np.testing.assert_allclose(take(mean, ax, i), rmean, rtol=1e-13, atol=atol_mean)
        np.testing.assert_allclose(take(m2, ax, i), rm2, rtol=1e-12, atol=atol_m2)


def test_reduceat_quirk_and_nan_nat_and_every_integer_width():
    a = np.array([2.0, 1.0, np.nan, 0.0, 3.0, -1.0])
    for idx in ([0, 3, 1, 1, 5], [4, 4, 4], [5, 0], [0]):
        for u, lo, hi in ORDER:
            got = nr.reduceat(u, a, idx)
            np.testing.assert_array_equal(got[0], lo.reduceat(a, idx))
            np.testing.assert_array_equal(got[1], hi.reduceat(a, idx))
    t = np.array(["2020-01-02", "2020-01-01", "NaT", "2021-01-01", "1999-05-05"], dtype="M8[D]")
    for u, lo, hi in ORDER:
        got = nr.reduceat(u, t, [0, 2, 3, 1])
        assert got[0].dtype == t.dtype
        np.testing.assert_array_equal(got[0], lo.reduceat(t, [0, 2, 3, 1]))
        np.testing.assert_array_equal(got[1], hi.reduceat(t, [0, 2, 3, 1]))
    for dt in INT_DTYPES + [np.bool_]:
        info = np.iinfo(dt) if dt is not np.bool_ else None
        x = np.array([3, 1, 2, 0, 5], dtype=dt) if info is None else \
            np.array([3, info.max, 2, info.min, 5], dtype=dt)
        lo, hi = nr.reduceat(nr.minimummaximum, x, [0, 2, 1, 3])
        assert lo.dtype == x.dtype
        np.testing.assert_array_equal(lo, np.minimum.reduceat(x, [0, 2, 1, 3]))
        np.testing.assert_array_equal(hi, np.maximum.reduceat(x, [0, 2, 1, 3]))


def test_reduceat_index_conversion_as_numpy():
    a = np.arange(10.0)
    for idx in ([0.7, 5], [True, False], ["0", "2"], np.array([0, 2], np.uint8), (3, 1)):
        got = nr.reduceat(nr.minimummaximum, a, idx)
        np.testing.assert_array_equal(got[0], np.minimum.reduceat(a, idx))
        np.testing.assert_array_equal(got[1], np.maximum.reduceat(a, idx))


def _numpy_error(f):
    with pytest.raises(Exception) as info:
        f()
    return info.type, str(info.value)


@pytest.mark.parametrize("idx", [[-1, 5], [0, 10], [3, 99, -20], np.array([2**40])])
def test_reduceat_out_of_range_raises_numpys_indexerror_before_writing(idx):
    a = np.arange(10.0)
    lo, hi = np.full(len(idx), 7.0), np.full(len(idx), 7.0)
    etype, msg = _numpy_error(lambda: np.minimum.reduceat(a, idx))
    assert etype is IndexError
    with pytest.raises(IndexError) as info:
        nr.reduceat(nr.minimummaximum, a, idx, out=(lo, hi))
    assert str(info.value) == msg.replace("minimum", "minimummaximum")
    assert np.all(lo == 7.0) and np.all(hi == 7.0)


def test_reduceat_empty_arrays():
    for shape, axis, idx in [((0,), 0, []), ((3, 0), 0, [0, 1]), ((0, 3), 1, [0, 1]),
                             ((4, 2), 0, [])]:
        a = np.zeros(shape)
        lo, hi = nr.reduceat(nr.minimummaximum, a, idx, axis=axis)
        want = np.minimum.reduceat(a, idx, axis=axis)
        assert lo.shape == hi.shape == want.shape
    with pytest.raises(IndexError, match=r"index 0 out-of-bounds in minimummaximum.reduceat \[0, 0\)"):
        nr.reduceat(nr.minimummaximum, np.zeros((3, 0)), [0], axis=1)


@pytest.mark.parametrize("call, exc", [
    (lambda o: nr.reduceat(nr.minimummaximum, np.arange(6.0), [[0, 1]], out=o), ValueError),
    (lambda o: nr.reduceat(nr.minimummaximum, np.arange(6.0), 3, out=o), ValueError),
    (lambda o: nr.reduceat(nr.minimummaximum, np.arange(6.0), np.array([0.0, 1.0]), out=o),
     TypeError),
    (lambda o: nr.reduceat(nr.minimummaximum, np.arange(6.0), np.array([0, 2**63], np.uint64),
                           out=o), TypeError),
    (lambda o: nr.reduceat(nr.minimummaximum, np.float64(1.0), [0], out=o), TypeError),
    (lambda o: nr.reduceat(nr.minimummaximum, np.arange(6.0), [0, 1], axis=1, out=o),
     np.exceptions.AxisError),
    (lambda o: nr.reduceat(nr.minimummaximum, np.ones((2, 3)), [0, 1], axis=(0, 1), out=o),
     ValueError),
    (lambda o: nr.reduceat(nr.minimummaximum, np.arange(6.0), [0, 1], out=o[:1]), ValueError),
    (lambda o: nr.reduceat(nr.minimummaximum, np.arange(6.0), [0, 1, 2], out=o), ValueError),
    (lambda o: nr.reduceat(nr.minimummaximum, np.arange(6.0), [0, 1], out=(o[0], o[0])),
     ValueError),
    (lambda o: nr.reduceat(nr.minimummaximum, np.arange(6.0), [0, 1],
                           out=(o[0], np.empty(2, "U5"))), TypeError),
])
def test_reduceat_errors_leave_out_unchanged(call, exc):
    o = (np.full(2, 7.0), np.full(2, 7.0))
    with pytest.raises(exc):
        call(o)
    assert np.all(o[0] == 7.0) and np.all(o[1] == 7.0)


def test_reduceat_passthrough_and_out():
    a = np.arange(12.0).reshape(3, 4)
    np.testing.assert_array_equal(nr.reduceat(np.add, a, [0, 2], axis=1),
                                  np.add.reduceat(a, [0, 2], axis=1))
    lo, hi = np.empty((3, 2), np.float32), np.empty((2, 3)).T
    ret = nr.reduceat(nr.minimummaximum, a, [0, 2], axis=1, out=(lo, hi))
    assert ret[0] is lo and ret[1] is hi
    np.testing.assert_array_equal(lo, np.minimum.reduceat(a, [0, 2], axis=1))
    np.testing.assert_array_equal(hi, np.maximum.reduceat(a, [0, 2], axis=1))
    # An out that overlaps the input: computed into a temporary first.
    b = np.array([5.0, 1.0, 4.0, 2.0, 3.0, 0.0])
    want = (np.minimum.reduceat(b, [0, 2, 4]), np.maximum.reduceat(b, [0, 2, 4]))
    nr.reduceat(nr.minimummaximum, b, [0, 2, 4], out=(b[:3], b[3:]))
    np.testing.assert_array_equal(b, np.concatenate(want))
    with pytest.raises(TypeError, match="masked arrays are not supported"):
        nr.reduceat(nr.minimummaximum, np.ma.masked_array([1.0, 2.0], [0, 1]), [0])


def test_reduceat_large_layouts_and_threads():
    rng = np.random.default_rng(5)
    x = rng.standard_normal(10**6)
    idx = np.sort(rng.integers(0, x.size, 1000))
    idx[::7] = idx[::-7][: idx[::7].size]  # some decreasing pairs (the quirk)
    old = nr.get_num_threads()
    try:
        for threads in (1, 3):
            nr.set_num_threads(threads)
            lo, hi = nr.reduceat(nr.minimummaximum, x, idx)
            np.testing.assert_array_equal(lo, np.minimum.reduceat(x, idx))
            np.testing.assert_array_equal(hi, np.maximum.reduceat(x, idx))
    finally:
        nr.set_num_threads(old)
    y = rng.standard_normal((300, 200))
    for a in (y, y.T, y[::-2, ::3], np.asfortranarray(y)):
        for axis in (0, 1, -1):
            ix = [0, 5, 3, 17, a.shape[axis] - 1]
            lo, hi = nr.reduceat(nr.minimummaximum, a, ix, axis=axis)
            np.testing.assert_array_equal(lo, np.minimum.reduceat(a, ix, axis=axis))
            np.testing.assert_array_equal(hi, np.maximum.reduceat(a, ix, axis=axis))


# ------------------------------------------------------- segmented_reduce


@st.composite
def array_axis_bounds(draw, dtypes=ALL_DTYPES):
    a = draw(arrays(dtypes=dtypes, min_dims=1, max_dims=3, max_side=6))
    axis = draw(st.integers(-a.ndim, a.ndim - 1))
    n = a.shape[axis % a.ndim]
    bound = st.integers(-n - 3, n + 3)
    k = draw(st.integers(0, 6))
    return a, axis, draw(st.lists(bound, min_size=k, max_size=k)), \
        draw(st.lists(bound, min_size=k, max_size=k))


@pytest.mark.parametrize("u, lo, hi", ORDER, ids=ORDER_IDS)
@given(case=array_axis_bounds())
def test_segmented_order_against_slices(u, lo, hi, case):
    a, axis, starts, stops = case
    ax = axis % a.ndim
    lens = [len(range(*slice(s, e).indices(a.shape[ax]))) for s, e in zip(starts, stops)]
    if 0 in lens:  # as reduce: an empty reduction without a start value raises
        with pytest.raises(ValueError, match="empty"):
            nr.segmented_reduce(u, a, starts, stops, axis=axis)
        # the ufunc's dtype range gives an initial: empty segments get it
        if a.dtype.kind in "mMc" or a.dtype == np.bool_:
            return
        info = np.finfo(a.dtype) if a.dtype.kind == "f" else np.iinfo(a.dtype)
        init = (info.max, info.min)
    else:
        init = None
    kw = {} if init is None else {"initial": init}
    got = nr.segmented_reduce(u, a, starts, stops, axis=axis, **kw)
    assert isinstance(got, tuple) and len(got) == 2
    for i, (s, e) in enumerate(zip(starts, stops)):
        piece = sl(a, ax, s, e)
        want = (lo.reduce(piece, axis=ax, **({} if init is None else {"initial": init[0]})),
                hi.reduce(piece, axis=ax, **({} if init is None else {"initial": init[1]})))
        mine = nr.reduce(u, piece, axis=ax, **kw)
        for k in range(2):
            assert got[k].dtype == mine[k].dtype
            np.testing.assert_array_equal(take(got[k], ax, i), want[k])
            np.testing.assert_array_equal(take(got[k], ax, i), mine[k])


@st.composite
def real_bounds(draw):
    dtype = draw(st.sampled_from([np.float64, np.float32, np.int8, np.uint64, np.int16,
                                  np.bool_]))
    shape = draw(hnp.array_shapes(min_dims=1, max_dims=3, min_side=0, max_side=6))
    el = st.floats(-1e3, 1e3, allow_nan=False, width=np.dtype(dtype).itemsize * 8) \
        if np.dtype(dtype).kind == "f" else None
    a = draw(hnp.arrays(dtype, shape, elements=el))
    axis = draw(st.integers(-a.ndim, a.ndim - 1))
    n = a.shape[axis % a.ndim]
    k = draw(st.integers(0, 6))
    bound = st.integers(-n - 3, n + 3)
    return a, axis, draw(st.lists(bound, min_size=k, max_size=k)), \
        draw(st.lists(bound, min_size=k, max_size=k))


def _state_atols(u, x, L):
    """Absolute tolerances of u's states over segments of at most L elements
    of x (float64), from the data's magnitude: the moments' from
    helpers.moment_atols; maxsumexp's t (a sum of at most L terms <= 1) by
    4 L**2 eps; twosum's s and e by 4 L eps sum|x| (their split may differ,
    their sum is exact).  uint64 data reach 1.8e19, where a fixed atol is
    below one rounding."""
    eps = np.finfo(np.float64).eps
    fin = np.abs(x[np.isfinite(x)])
    if u in (nr.moments, nr.nanmoments):          # count (exact), mean, M2
        return [0.0, *moment_atols(L, x)]
    if u is nr.maxsumexp:                          # m (exact), t
        return [0.0, 4 * L**2 * eps]
    if u is nr.twosum:
        return [4 * L * eps * float(np.sum(fin))] * 2
    return [0.0] * u.nout                          # order states: exact


@pytest.mark.parametrize("u", [nr.moments, nr.nanmoments, nr.maxsumexp, nr.twosum],
                         ids=["moments", "nanmoments", "maxsumexp", "twosum"])
@given(case=real_bounds())
def test_segmented_initials_ufuncs_against_slices(u, case):
    # These have initials: empty segments give them ((0, 0, 0) for moments).
    a, axis, starts, stops = case
    if u is nr.nanmoments and a.dtype.kind != "f":
        a = a.astype(np.float64)  # nanmoments has float loops only
    ax = axis % a.ndim
    got = nr.segmented_reduce(u, a, starts, stops, axis=axis)
    x = a.astype(np.float64)
    atols = _state_atols(u, x, a.shape[ax])
    for i, (s, e) in enumerate(zip(starts, stops)):
        mine = nr.reduce(u, sl(a, ax, s, e), axis=ax)
        for k in range(u.nout):
            assert got[k].dtype == mine[k].dtype
            np.testing.assert_allclose(take(got[k], ax, i), mine[k], rtol=1e-12, atol=atols[k])
        piece = sl(x, ax, s, e)
        if u is nr.moments:
            np.testing.assert_array_equal(take(got[0], ax, i), piece.shape[ax])
            if piece.shape[ax] == 0:
                assert np.all(take(got[1], ax, i) == 0) and np.all(take(got[2], ax, i) == 0)
        if u is nr.twosum:
            total = take(got[0], ax, i).astype(np.float64) + take(got[1], ax, i)
            np.testing.assert_allclose(total, np.add.reduce(piece, axis=ax), rtol=1e-10,
                                       atol=atols[0])
        if u is nr.maxsumexp and piece.shape[ax] == 0:
            assert np.all(take(got[0], ax, i) == -np.inf) and np.all(take(got[1], ax, i) == -1)


def test_segmented_twosum_against_fsum():
    rng = np.random.default_rng(3)
    x = rng.standard_normal(10**5) * 10.0 ** rng.integers(-8, 8, 10**5)
    starts = rng.integers(-x.size, x.size, 50)
    stops = rng.integers(-x.size, x.size, 50)
    s, e = nr.segmented_reduce(nr.twosum, x, starts, stops)
    for i, (a, b) in enumerate(zip(starts, stops)):
        exact = math.fsum(x[a:b])
        assert abs((s[i] + e[i]) - exact) <= 2 * np.finfo(float).eps * abs(exact) + 1e-300


@given(case=real_bounds(), data=st.data())
def test_segmented_where_against_reduce(case, data):
    a, axis, starts, stops = case
    ax = axis % a.ndim
    mask = data.draw(hnp.arrays(np.bool_, a.shape))
    for u, init in ((nr.minimummaximum, (np.inf, -np.inf)), (nr.moments, None)):
        kw = {} if init is None else {"initial": init}
        got = nr.segmented_reduce(u, a.astype(np.float64), starts, stops, axis=axis,
                                  where=mask, **kw)
        atols = _state_atols(u, a.astype(np.float64), a.shape[ax])
        for i, (s, e) in enumerate(zip(starts, stops)):
            mine = nr.reduce(u, sl(a.astype(np.float64), ax, s, e), axis=ax,
                             where=sl(mask, ax, s, e), **kw)
            for k in range(u.nout):
                np.testing.assert_allclose(take(got[k], ax, i), mine[k], rtol=1e-12,
                                           atol=atols[k])


def test_segmented_slice_semantics_and_big_offsets():
    a = np.arange(10.0)
    starts = [0, -3, 8, 5, -100, 2**62, 3]
    stops = [10, 100, 2, 5, 3, 2**63 - 1, -2]
    lo, hi = nr.segmented_reduce(nr.minimummaximum, a, starts, stops,
                                 initial=(np.inf, -np.inf))
    for i, (s, e) in enumerate(zip(starts, stops)):
        assert lo[i] == np.minimum.reduce(a[s:e], initial=np.inf)
        assert hi[i] == np.maximum.reduce(a[s:e], initial=-np.inf)
    # uint64 offsets beyond int64 and Python ints beyond int64 clip too
    lo, hi = nr.segmented_reduce(nr.minimummaximum, a, np.array([3], np.uint64),
                                 np.array([2**64 - 1], np.uint64))
    assert (lo[0], hi[0]) == (3.0, 9.0)
    lo, hi = nr.segmented_reduce(nr.minimummaximum, a, [-(2**70)], [2**70])
    assert (lo[0], hi[0]) == (0.0, 9.0)


def test_segmented_nan_nat_empty_arrays():
    a = np.array([2.0, np.nan, 0.0, 3.0])
    got = nr.segmented_reduce(nr.minimummaximum, a, [0, 2], [2, 4])
    np.testing.assert_array_equal(got[0], [np.nan, 0.0])
    got = nr.segmented_reduce(nr.fminfmax, a, [0, 2], [2, 4])
    np.testing.assert_array_equal(got[0], [2.0, 0.0])
    t = np.array(["2020-01-02", "NaT", "2021-01-01"], dtype="M8[s]")
    got = nr.segmented_reduce(nr.minimummaximum, t, [0, 2], [3, 3])
    np.testing.assert_array_equal(got[0], [np.minimum.reduce(t), t[2]])
    # empty arrays: every segment empty -- initials, or nothing to fill
    n, mean, m2 = nr.segmented_reduce(nr.moments, np.zeros((0, 3)), [0, 1], [5, 5])
    assert n.shape == (2, 3) and np.all(n == 0)
    lo, hi = nr.segmented_reduce(nr.minimummaximum, np.zeros((3, 0)), [0], [1])
    assert lo.shape == (1, 0)
    lo, hi = nr.segmented_reduce(nr.minimummaximum, np.zeros(4), [], [])
    assert lo.shape == (0,)


@pytest.mark.parametrize("call, exc", [
    (lambda o: nr.segmented_reduce(nr.minimummaximum, np.arange(6.0), [0, 3], [3, 3], out=o),
     ValueError),  # empty segment, no initial
    (lambda o: nr.segmented_reduce(nr.moments, np.arange(6.0), [0, 3], [3, 3], initial=None,
                                   out=o + (np.full(2, 7.0),)), ValueError),
    (lambda o: nr.segmented_reduce(nr.minimummaximum, np.arange(6.0), [0, 3], [3, 6],
                                   where=np.arange(6) > 2, out=o), ValueError),
    (lambda o: nr.segmented_reduce(nr.minimummaximum, np.arange(6.0), [0, 3], [3], out=o),
     ValueError),
    (lambda o: nr.segmented_reduce(nr.minimummaximum, np.arange(6.0), [0.0, 3], [3, 6], out=o),
     TypeError),
    (lambda o: nr.segmented_reduce(nr.minimummaximum, np.arange(6.0), [[0, 3]], [[3, 6]],
                                   out=o), ValueError),
    (lambda o: nr.segmented_reduce(nr.minimummaximum, np.arange(6.0), [0, 3], [3, 6],
                                   initial=(1.0,), out=o), ValueError),
    (lambda o: nr.segmented_reduce(nr.minimummaximum, np.arange(6), [0, 3], [3, 6],
                                   initial=(np.inf, 0), out=o), OverflowError),
    (lambda o: nr.segmented_reduce(nr.minimummaximum, np.arange(6.0), [0, 3], [3, 6],
                                   where=np.ones(4, bool), initial=0.0, out=o), ValueError),
    (lambda o: nr.segmented_reduce(nr.minimummaximum, np.arange(6.0), [0, 3], [3, 6],
                                   axis=1, out=o), np.exceptions.AxisError),
    (lambda o: nr.segmented_reduce(np.minimum, np.arange(6.0), [0, 3], [3, 6], out=o),
     TypeError),
    (lambda o: nr.segmented_reduce(nr.minimummaximum, np.arange(6.0), [0, 3], [3, 6],
                                   out=(o[0], o[0][:1])), ValueError),
])
def test_segmented_errors_leave_out_unchanged(call, exc):
    o = (np.full(2, 7.0), np.full(2, 7.0))
    with pytest.raises(exc):
        call(o)
    assert np.all(o[0] == 7.0) and np.all(o[1] == 7.0)


def test_segmented_out_overlap_threads_and_masked():
    rng = np.random.default_rng(9)
    x = rng.standard_normal((2000, 300))
    starts = rng.integers(-2000, 2000, 64)
    stops = rng.integers(-2000, 2000, 64)
    old = nr.get_num_threads()
    try:
        res = []
        for threads in (1, 4):
            nr.set_num_threads(threads)
            res.append(nr.segmented_reduce(nr.moments, x, starts, stops))
    finally:
        nr.set_num_threads(old)
    for a, b in zip(*res):  # bitwise the same for any thread count
        np.testing.assert_array_equal(a, b)
    for i in range(0, 64, 9):
        piece = x[starts[i]:stops[i]]
        if piece.shape[0]:
            np.testing.assert_allclose(res[0][1][i], piece.mean(axis=0), rtol=1e-12, atol=1e-14)
            np.testing.assert_allclose(res[0][2][i] / res[0][0][i], piece.var(axis=0),
                                       rtol=1e-10, atol=1e-14)
    b = np.array([5.0, 1.0, 4.0, 2.0, 3.0, 0.0])
    want = nr.segmented_reduce(nr.minimummaximum, b.copy(), [0, 2, 4], [6, 4, 5])
    got = nr.segmented_reduce(nr.minimummaximum, b, [0, 2, 4], [6, 4, 5], out=(b[:3], b[3:]))
    assert got[0].base is b
    np.testing.assert_array_equal(b, np.concatenate(want))
    with pytest.raises(TypeError, match="masked arrays are not supported"):
        nr.segmented_reduce(nr.minimummaximum, np.ma.masked_array([1.0, 2.0], [0, 1]), [0],
                            [1])


def test_docstring_examples():
    result = doctest.testmod(numreduce._api, optionflags=doctest.NORMALIZE_WHITESPACE)
    assert result.attempted > 0 and result.failed == 0


@given(case=array_axis_indices(dtypes=[np.float64, np.int32, "M8[s]"]),
       bad=st.lists(st.integers(-20, 20), min_size=1, max_size=4), data=st.data())
def test_reduceat_random_bad_indices_match_numpy(case, bad, data):
    a, axis, idx = case
    ax = axis % a.ndim
    n = a.shape[ax]
    bad = [b for b in bad if b < 0 or b >= n] or [n]
    ix = list(idx)
    for b in bad:
        ix.insert(data.draw(st.integers(0, len(ix))), b)
    shape = a.shape[:ax] + (len(ix),) + a.shape[ax + 1:]
    lo, hi = np.zeros(shape, a.dtype), np.zeros(shape, a.dtype)
    if a.size:
        lo[...] = hi[...] = a.flat[0]
    before = (lo.copy(), hi.copy())
    with pytest.raises(IndexError) as np_info:
        np.minimum.reduceat(a, ix, axis=axis)
    with pytest.raises(IndexError) as info:
        nr.reduceat(nr.minimummaximum, a, ix, axis=axis, out=(lo, hi))
    assert str(info.value) == str(np_info.value).replace("minimum", "minimummaximum")
    np.testing.assert_array_equal(lo, before[0])
    np.testing.assert_array_equal(hi, before[1])


def test_initial_none_with_initials_documented_semantics():
    """initial=None on a ufunc with initials (docs/semantics.md): reduce,
    segmented_reduce and reduce_by_group start from the first element's
    state, as the loops start a slice (the proper statistics, those of the
    default), and refuse empty ones and where=."""
    x = np.array([1.0, 2.0, 4.0, 8.0])
    np.testing.assert_allclose(nr.reduce(nr.moments, x[:3], initial=None),
                               nr.reduce(nr.moments, x[:3]), rtol=1e-15)
    seg = nr.segmented_reduce(nr.moments, x, [0, 1], [3, 4], initial=None)
    ref = nr.segmented_reduce(nr.moments, x, [0, 1], [3, 4])
    for s, r in zip(seg, ref):  # the default's start: the same bits
        np.testing.assert_array_equal(s, r)
    # one-element segments of NaN / inf: M2 NaN, as np.var (a lift() start gave 0)
    y = np.array([np.nan, np.inf, 2.0])
    seg = nr.segmented_reduce(nr.moments, y, [0, 1, 2], [1, 2, 3], initial=None)
    for s, r in zip(seg, nr.segmented_reduce(nr.moments, y, [0, 1, 2], [1, 2, 3])):
        np.testing.assert_array_equal(s, r)
    np.testing.assert_array_equal(np.isnan(seg[2]), [True, True, False])
    grp = nr.reduce_by_group(nr.moments, y, np.array([0, 1, 2]), initial=None)
    for s, r in zip(grp, seg):
        np.testing.assert_array_equal(s, r)
    grp = nr.reduce_by_group(nr.moments, x, np.array([0, 1, 0, 1]), initial=None)
    ref = nr.reduce_by_group(nr.moments, x, np.array([0, 1, 0, 1]))
    for s, r in zip(grp, ref):
        np.testing.assert_allclose(s, r, rtol=1e-14)
    with pytest.raises(ValueError, match="is empty"):
        nr.segmented_reduce(nr.moments, x, [0, 2], [2, 2], initial=None)
    with pytest.raises(ValueError, match="is empty"):
        nr.reduce_by_group(nr.moments, x, np.array([0, 0, 2, 2]), initial=None)
    with pytest.raises(ValueError, match="identity"):
        nr.segmented_reduce(nr.moments, x, [0], [3], initial=None, where=x > 1)
