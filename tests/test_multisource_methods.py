"""The methods for reductions of several arrays (issue 25, item 1):
accumulate, reduceat, segmented_reduce, reduce_by_group and at of the
two-source ufuncs (wmoments, nanwmoments, comoments, maxsumexpb, twoprod),
which take their sources as one tuple, and group_meanvar(weights=).

References: numreduce.reduce of the same slices (the states), and for the
statistics NumPy (np.repeat, np.average, np.cov, np.corrcoef), SciPy
(logsumexp with b=) and math.fsum, per group and per segment; Dask arrays
against the NumPy path; every error before anything is written."""

from __future__ import annotations

import math
import warnings

import numpy as np
import pytest
from hypothesis import given, settings, strategies as st

import numreduce as nr

RNG = np.random.default_rng(20261204)
UFUNCS = [nr.wmoments, nr.nanwmoments, nr.comoments, nr.maxsumexpb, nr.twoprod]
IDS = [u.__name__ for u in UFUNCS]


def _pair(shape, ufunc, rng=RNG):
    """Data and a second source fit for ``ufunc`` (non-negative weights)."""
    x = rng.normal(size=shape) * 2 + 1
    y = rng.integers(0, 4, size=shape).astype(float) if ufunc in (nr.wmoments,
                                                                  nr.nanwmoments) \
        else rng.normal(size=shape)
    return x, y


def _canonical(ufunc, states):
    """What a state means, independent of its representation: a moment
    state's origin K is any point (the stream's first value, a group's
    rebased running mean), so (W, K + m, M2) and (n, Kx + mx, Ky + my,
    Mxx, Myy, Cxy); a twoprod pair by its value s + e; a maxsumexpb state
    by (log|sum|, sign)."""
    st = [np.asarray(v, dtype=float) for v in states]
    if ufunc in (nr.wmoments, nr.nanwmoments):
        return [st[0], st[1] + st[2], st[3]]
    if ufunc is nr.comoments:
        return [st[0], st[1] + st[3], st[2] + st[4], st[5], st[6], st[7]]
    if ufunc is nr.twoprod:
        return [st[0] + st[1]]
    if ufunc is nr.maxsumexpb:
        # (m, t): the sum exp(m) (1 + t); m is the max of the elements or,
        # where a prefix's sum fell below half of exp(max), lower
        with np.errstate(divide="ignore"):
            return [st[0] + np.log(np.abs(st[1] + 1)), np.sign(st[1] + 1)]
    return st


def _states_close(got, want, rtol=1e-12, ufunc=None, atol=1e-12):
    """``atol``: one for every state, or one per state (canonical order)."""
    assert len(got) == len(want)
    if ufunc is not None:
        got, want = _canonical(ufunc, got), _canonical(ufunc, want)
    atols = atol if isinstance(atol, (list, tuple)) else [atol] * len(got)
    assert len(atols) == len(got)
    for g, w, a in zip(got, want, atols):
        np.testing.assert_allclose(g, w, rtol=rtol, atol=a, equal_nan=True)


def _state_atols(ufunc, x, y, n):
    """Absolute tolerances of the canonical states of ``ufunc`` over ``n``
    elements of (x, y), from the data's magnitude: two float64 reductions of
    the same n terms (in different orders, blocks or merges) each round by at
    most about n eps sum|term|, and sum|term| <= n max|term|, so each state
    is within 4 n eps times its terms' largest possible magnitude of the
    other's.  A relative tolerance alone does not hold where a state is near
    zero (a group's covariance or weighted sum that cancels)."""
    eps = np.finfo(np.float64).eps
    mx = float(np.max(np.abs(x), initial=0.0))
    my = float(np.max(np.abs(y), initial=0.0))
    d = 2 * mx  # |x - mean| <= 2 max|x|
    if ufunc in (nr.wmoments, nr.nanwmoments):   # W, mean, M2 = sum w (x - mean)**2
        scales = [n * my, mx, n * my * d**2]
    elif ufunc is nr.comoments:                    # n, means, Mxx, Myy, Cxy
        scales = [n, mx, my, n * d**2, n * (2 * my)**2, n * d * 2 * my]
    elif ufunc is nr.maxsumexpb:                   # m, t = sum(b exp(x - m)) - 1
        scales = [mx, n * my + 1]
    else:                                          # twoprod: s + e = sum(x y)
        scales = [n * mx * my]
    return [4 * max(n, 1) * eps * sc for sc in scales]


def _take(a, ax, sl):
    idx = [slice(None)] * a.ndim
    idx[ax] = sl
    return a[tuple(idx)]


# ---------------------------------------------------------------------------
# each method against reduce of the same slices
# ---------------------------------------------------------------------------

@pytest.mark.parametrize("ufunc", UFUNCS, ids=IDS)
@pytest.mark.parametrize("shape,axis", [((50,), 0), ((9, 300), 1), ((40, 3), 0),
                                        ((4, 30, 5), 1), ((4, 30, 5), -1)])
def test_accumulate_is_reduce_of_prefixes(ufunc, shape, axis):
    x, y = _pair(shape, ufunc)
    acc = nr.accumulate(ufunc, (x, y), axis=axis)
    assert all(a.shape == x.shape for a in acc)
    ax = axis % x.ndim
    for i in (0, 1, shape[ax] // 2, shape[ax] - 1):
        want = nr.reduce(ufunc, (_take(x, ax, slice(0, i + 1)), _take(y, ax, slice(0, i + 1))),
                         axis=ax)
        _states_close([_take(a, ax, i) for a in acc], want, ufunc=ufunc)


@pytest.mark.parametrize("ufunc", UFUNCS, ids=IDS)
@pytest.mark.parametrize("shape,axis", [((600,), 0), ((7, 90), 1), ((60, 4), 0),
                                        ((3, 50, 2), 1)])
def test_segments_are_reduce_of_slices(ufunc, shape, axis):
    x, y = _pair(shape, ufunc)
    n = shape[axis]
    starts = [0, 3, n // 2, 5, n - 1]
    stops = [3, n, n, 5, n]  # an empty segment: the ufunc's empty state
    seg = nr.segmented_reduce(ufunc, (x, y), starts, stops, axis=axis)
    for s, (lo, hi) in enumerate(zip(starts, stops)):
        want = nr.reduce(ufunc, (_take(x, axis, slice(lo, hi)), _take(y, axis, slice(lo, hi))),
                         axis=axis)
        _states_close([_take(r, axis, s) for r in seg], want, ufunc=ufunc)
    idx = [0, 4, n // 3, n - 2]
    at = nr.reduceat(ufunc, (x, y), idx, axis=axis)
    bounds = list(zip(idx, idx[1:] + [n]))
    for s, (lo, hi) in enumerate(bounds):
        want = nr.reduce(ufunc, (_take(x, axis, slice(lo, hi)), _take(y, axis, slice(lo, hi))),
                         axis=axis)
        _states_close([_take(r, axis, s) for r in at], want, ufunc=ufunc)


@pytest.mark.parametrize("ufunc", UFUNCS, ids=IDS)
@pytest.mark.parametrize("shape,axis", [((500,), 0), ((60, 3), 0), ((3, 70), 1),
                                        ((2, 40, 3), 1)])
def test_groups_are_reduce_of_each_group(ufunc, shape, axis):
    x, y = _pair(shape, ufunc)
    g = 6
    ids = RNG.integers(0, g - 1, size=shape[axis])  # group g-1 stays empty
    res = nr.reduce_by_group(ufunc, (x, y), ids, num_groups=g, axis=axis)
    for k in range(g):
        sel = np.flatnonzero(ids == k)
        want = nr.reduce(ufunc, (_take(x, axis, sel), _take(y, axis, sel)), axis=axis)
        _states_close([_take(r, axis, k) for r in res], want, ufunc=ufunc)


@pytest.mark.parametrize("ufunc", UFUNCS, ids=IDS)
def test_at_is_reduce_by_group(ufunc):
    x, y = _pair((300,), ufunc)
    ids = RNG.integers(0, 5, size=300)
    empty = nr.reduce(ufunc, (x[:0], y[:0]))
    outs = tuple(np.full(5, e) for e in empty)
    nr.at(ufunc, outs, ids, (x, y))
    _states_close(outs, nr.reduce_by_group(ufunc, (x, y), ids, num_groups=5), ufunc=ufunc)
    # broadcast values: a scalar second source
    outs = tuple(np.full(5, e) for e in empty)
    nr.at(ufunc, outs, ids, (x, 2.0))
    _states_close(outs, nr.reduce_by_group(ufunc, (x, np.full(300, 2.0)), ids, num_groups=5),
                  ufunc=ufunc)


def test_sources_broadcast_and_convert():
    x = RNG.normal(size=(30, 4))
    w = RNG.integers(0, 3, size=(30, 1))  # int weights, broadcast along axis 1
    ids = RNG.integers(0, 3, size=30)
    got = nr.reduce_by_group(nr.wmoments, (x, w), ids, axis=0)
    want = nr.reduce_by_group(nr.wmoments, (x, np.broadcast_to(w, x.shape).astype(float)),
                              ids, axis=0)
    _states_close(got, want, rtol=0)
    got = nr.accumulate(nr.comoments, (x.astype(np.float32), x[:, :1].astype(np.float32)),
                        axis=0)
    assert got[0].dtype == nr.reduce(nr.comoments, (x[:1].astype(np.float32),) * 2)[0].dtype


def test_where_and_initial():
    x, w = _pair((40, 3), nr.wmoments)
    ids = RNG.integers(0, 4, size=40)
    keep = RNG.random((40, 3)) < 0.7
    got = nr.reduce_by_group(nr.wmoments, (x, w), ids, num_groups=4, where=keep)
    want = nr.reduce_by_group(nr.wmoments, (x, np.where(keep, w, 0.0)), ids, num_groups=4)
    np.testing.assert_allclose(got[0], want[0], rtol=1e-15)  # the weight sums
    seg = nr.segmented_reduce(nr.wmoments, (x, w), [0, 10], [10, 40], where=keep)
    for s, (lo, hi) in enumerate([(0, 10), (10, 40)]):
        ref = nr.meanvar(x[lo:hi], weights=np.where(keep, w, 0)[lo:hi], axis=0)
        m, v = nr._stats.finish_wmeanvar(np.dtype(float), np.dtype(float), 0, False, False, np,
                                         [r[s] for r in seg])
        np.testing.assert_allclose(m, ref[0], rtol=1e-13)
        np.testing.assert_allclose(v, ref[1], rtol=1e-12)
    # initial: the empty state as the seed gives the default's result
    empty = nr.reduce(nr.wmoments, (x[:0, 0], w[:0, 0]))
    seeded = nr.reduce_by_group(nr.wmoments, (x, w), ids, num_groups=4, initial=empty)
    _states_close(seeded, nr.reduce_by_group(nr.wmoments, (x, w), ids, num_groups=4),
                  ufunc=nr.wmoments)


# ---------------------------------------------------------------------------
# the statistics per group and per segment, against NumPy and SciPy
# ---------------------------------------------------------------------------

@pytest.mark.parametrize("ddof", [0, 1])
def test_group_meanvar_integer_weights_are_repeats(ddof):
    x = RNG.normal(size=2000) * 3 + 1e4
    w = RNG.integers(0, 5, size=2000)
    ids = RNG.integers(0, 7, size=2000)
    m, v = nr.group_meanvar(x, ids, weights=w, ddof=ddof)
    assert m.shape == v.shape == (7,)
    for g in range(7):
        rep = np.repeat(x[ids == g], w[ids == g])
        np.testing.assert_allclose(m[g], rep.mean(), rtol=1e-15)
        np.testing.assert_allclose(v[g], rep.var(ddof=ddof), rtol=1e-11)


def test_group_meanvar_weights_along_an_axis_is_np_average():
    x = RNG.normal(size=(5, 60, 4))
    w = RNG.random((5, 60, 4))
    ids = RNG.integers(0, 3, size=60)
    m, v = nr.group_meanvar(x, ids, axis=1, weights=w)
    assert m.shape == (5, 3, 4)
    for g in range(3):
        xs, ws = x[:, ids == g], w[:, ids == g]
        mean = np.average(xs, axis=1, weights=ws)
        var = np.average((xs - mean[:, None]) ** 2, axis=1, weights=ws)
        np.testing.assert_allclose(m[:, g], mean, rtol=1e-13, atol=1e-14)
        np.testing.assert_allclose(v[:, g], var, rtol=1e-12)


def test_group_meanvar_weights_dtypes_and_unweighted_agreement():
    x = RNG.normal(size=100).astype(np.float32)
    ids = RNG.integers(0, 4, size=100)
    m, v = nr.group_meanvar(x, ids, weights=np.ones(100, np.float32))
    m0, v0 = nr.group_meanvar(x, ids)
    assert m.dtype == m0.dtype == np.float32 and v.dtype == v0.dtype == np.float32
    np.testing.assert_allclose(m, m0, rtol=1e-6)
    np.testing.assert_allclose(v, v0, rtol=1e-5)
    m, v = nr.group_meanvar(x, ids, weights=np.ones(100), dtype=np.float64)
    assert m.dtype == v.dtype == np.float64


def test_group_meanvar_zero_weight_group_is_empty():
    x = np.array([1.0, 2.0, 3.0, 4.0])
    ids = np.array([0, 0, 1, 1])
    with pytest.warns(RuntimeWarning):
        m, v = nr.group_meanvar(x, ids, weights=[1, 2, 0, 0])
    assert m[0] == pytest.approx(5 / 3) and np.isnan(m[1]) and np.isnan(v[1])


def test_group_meanvar_weights_errors_before_any_work():
    x = np.arange(6.0)
    ids = np.array([0, 1, 0, 1, 0, 1])
    with pytest.raises(ValueError, match="non-negative"):
        nr.group_meanvar(x, ids, weights=[1, 1, -1, 1, 1, 1])
    with pytest.raises(ValueError, match="broadcast"):
        nr.group_meanvar(x, ids, weights=[1, 2])
    with pytest.raises(TypeError):
        nr.group_meanvar(x + 1j, ids, weights=np.ones(6))
    with pytest.raises(IndexError):
        nr.group_meanvar(x, ids + 5, num_groups=2, weights=np.ones(6))


def test_grouped_covariance_and_correlation_are_np_cov_per_group():
    n = 3000
    x = 1e6 + RNG.normal(size=n)  # offset data: raw sums would cancel
    y = 0.5 * x + RNG.normal(size=n)
    ids = RNG.integers(0, 5, size=n)
    st_ = nr.reduce_by_group(nr.comoments, (x, y), ids)
    cnt, mxx, myy, cxy = st_[0], st_[5], st_[6], st_[7]
    for g in range(5):
        c = np.cov(x[ids == g], y[ids == g])
        np.testing.assert_allclose(cxy[g] / (cnt[g] - 1), c[0, 1], rtol=1e-9)
        np.testing.assert_allclose(cxy[g] / np.sqrt(mxx[g] * myy[g]),
                                   np.corrcoef(x[ids == g], y[ids == g])[0, 1], rtol=1e-12)


def test_segmented_logsumexp_b_is_scipy_per_segment():
    sp = pytest.importorskip("scipy.special")
    a = RNG.normal(size=500) * 30
    b = RNG.normal(size=500)  # negative and positive factors
    starts, stops = [0, 100, 250], [100, 250, 500]
    m, t = nr.segmented_reduce(nr.maxsumexpb, (a, b), starts, stops)
    for s, (lo, hi) in enumerate(zip(starts, stops)):
        val, sign = sp.logsumexp(a[lo:hi], b=b[lo:hi], return_sign=True)
        np.testing.assert_allclose(m[s] + np.log(abs(t[s] + 1)), val, rtol=1e-13)
        assert np.sign(t[s] + 1) == sign


def test_reduceat_sumprod_is_fsum_of_products():
    x = RNG.normal(size=1000) * 10.0 ** RNG.integers(-8, 8, size=1000)
    y = RNG.normal(size=1000)
    idx = [0, 10, 400, 999]
    s, e = nr.reduceat(nr.twoprod, (x, y), idx)
    for k, (lo, hi) in enumerate(zip(idx, idx[1:] + [1000])):
        exact = math.fsum(a * b for a, b in zip(x[lo:hi].tolist(), y[lo:hi].tolist()))
        prods = [math.fsum([a * b]) for a, b in zip(x[lo:hi].tolist(), y[lo:hi].tolist())]
        bound = 2 * np.finfo(float).eps * abs(exact) + 1e-20 * sum(abs(p) for p in prods)
        assert abs((s[k] + e[k]) - exact) <= bound


def test_accumulate_weighted_mean_is_cumsum_ratio():
    x = RNG.normal(size=400)
    w = RNG.random(400)
    W, K, m, M2 = nr.accumulate(nr.wmoments, (x, w))
    np.testing.assert_allclose(W, np.cumsum(w), rtol=1e-12)
    np.testing.assert_allclose(K + m, np.cumsum(w * x) / np.cumsum(w), rtol=1e-9, atol=1e-12)


def test_nanwmoments_groups_drop_nan_weights():
    x = RNG.normal(size=200)
    x[::7] = np.nan
    w = RNG.integers(1, 4, size=200).astype(float)
    ids = RNG.integers(0, 3, size=200)
    got = nr.reduce_by_group(nr.nanwmoments, (x, w), ids)
    keep = ~np.isnan(x)
    want = nr.reduce_by_group(nr.wmoments, (x[keep], w[keep]), ids[keep], num_groups=3)
    _states_close(got, want, ufunc=nr.nanwmoments)


# ---------------------------------------------------------------------------
# hypothesis: shapes, axes, views
# ---------------------------------------------------------------------------

@settings(max_examples=40, deadline=None)
@given(shape=st.lists(st.integers(1, 6), min_size=1, max_size=3), data=st.data())
def test_hypothesis_groups_and_segments(shape, data):
    ndim = len(shape)
    axis = data.draw(st.integers(-ndim, ndim - 1))
    ufunc = data.draw(st.sampled_from(UFUNCS))
    # every value through Hypothesis: a drawn seed, not the module's RNG
    x, y = _pair(tuple(shape), ufunc, np.random.default_rng(data.draw(st.integers(0, 2**32 - 1))))
    if data.draw(st.booleans()):
        x = x[..., ::-1]  # a reversed view
    n = shape[axis]
    ids = np.array(data.draw(st.lists(st.integers(0, 2), min_size=n, max_size=n)))
    res = nr.reduce_by_group(ufunc, (x, y), ids, num_groups=3, axis=axis)
    ax = axis % ndim
    atol = _state_atols(ufunc, x, y, n)
    for k in range(3):
        sel = np.flatnonzero(ids == k)
        want = nr.reduce(ufunc, (_take(x, ax, sel), _take(y, ax, sel)), axis=ax)
        _states_close([_take(r, ax, k) for r in res], want, ufunc=ufunc, atol=atol)
    acc = nr.accumulate(ufunc, (x, y), axis=axis)
    _states_close([_take(a, ax, n - 1) for a in acc], nr.reduce(ufunc, (x, y), axis=ax),
                  ufunc=ufunc, atol=atol)


# ---------------------------------------------------------------------------
# errors, threads, Dask
# ---------------------------------------------------------------------------

@pytest.mark.parametrize("call", [
    lambda x: nr.accumulate(nr.wmoments, x),
    lambda x: nr.reduceat(nr.wmoments, x, [0, 2]),
    lambda x: nr.segmented_reduce(nr.wmoments, x, [0], [2]),
    lambda x: nr.reduce_by_group(nr.wmoments, x, [0, 1, 0, 1]),
])
def test_methods_want_a_tuple_of_k_arrays(call):
    x = np.ones(4)
    with pytest.raises(TypeError, match="reduces 2 arrays together"):
        call(x)
    with pytest.raises(TypeError, match="reduces 2 arrays together"):
        call((x, x, x))
    with pytest.raises(ValueError, match="do not broadcast"):
        call((x, np.ones(3)))
    with pytest.raises(TypeError, match="real numbers"):
        call((x, x + 1j))


def test_at_errors_write_nothing():
    outs = tuple(np.full(3, v) for v in nr.reduce(nr.wmoments, (np.zeros(0), np.zeros(0))))
    before = [o.copy() for o in outs]
    with pytest.raises(TypeError, match="one tuple"):
        nr.at(nr.wmoments, outs, [0, 1], np.ones(2))
    with pytest.raises(IndexError):
        nr.at(nr.wmoments, outs, [0, 5], (np.ones(2), np.ones(2)))
    with pytest.raises(ValueError, match="broadcast"):
        nr.at(nr.wmoments, outs, [0, 1], (np.ones(2), np.ones(3)))
    with pytest.raises(ValueError, match=r"'values' of shape \(3,\) does not broadcast to the "
                       r"indexed shape \(2,\)"):
        nr.at(nr.wmoments, outs, [0, 1], (np.ones(3), np.ones(3)))
    for o, b in zip(outs, before):
        np.testing.assert_array_equal(o, b)


def test_at_broadcasts_the_sources_to_the_indexed_shape():
    outs = tuple(np.full(3, v) for v in nr.reduce(nr.wmoments, (np.zeros(0), np.zeros(0))))
    nr.at(nr.wmoments, outs, [0, 2, 0], (np.array([3.0]), 2.0))
    want = nr.reduce_by_group(nr.wmoments, (np.full(3, 3.0), np.full(3, 2.0)), [0, 2, 0],
                              num_groups=3)
    for o, w in zip(outs, want):
        np.testing.assert_array_equal(o, w)


def test_out_is_written():
    x, y = _pair((20,), nr.comoments)
    outs = tuple(np.empty(20) for _ in range(8))
    res = nr.accumulate(nr.comoments, (x, y), out=outs)
    assert all(r is o for r, o in zip(res, outs))
    _states_close(outs, nr.accumulate(nr.comoments, (x, y)), rtol=0)


def test_grouped_bits_do_not_depend_on_the_thread_count():
    n = (1 << 21) + 12345  # more than one piece of the grouped pass
    x = 1e3 + RNG.normal(size=n)
    w = RNG.random(n)
    ids = RNG.integers(0, 50, size=n)
    before = nr.get_num_threads()
    try:
        runs = []
        for t in (1, 2, 4):
            nr.set_num_threads(t)
            runs.append((nr.reduce_by_group(nr.wmoments, (x, w), ids),
                         nr.segmented_reduce(nr.comoments, (x, w), [0, 5], [n, n - 5]),
                         nr.group_meanvar(x, ids, weights=w)))
    finally:
        nr.set_num_threads(before)
    for other in runs[1:]:
        for a, b in zip(runs[0], other):
            for u, v in zip(a, b):
                assert np.array_equal(u, v)


def test_dask_packs_each_block_as_the_host_does():
    """The Dask operand of the methods: every block the host's K-field
    records of its sources' blocks (lazily), the whole the host's records."""
    da = pytest.importorskip("dask.array", reason="dask is not installed (the 'dask' extra)")
    from numreduce import _dask, _host

    x, w = _pair((40, 6), nr.wmoments)
    srcs = _dask.sources((da.from_array(x, chunks=(7, 3)), da.from_array(w[:1], chunks=1)),
                         ("x", "w"))
    packed = _dask.pack_sources(srcs)
    assert isinstance(packed, da.Array) and packed.chunks == srcs[0].chunks
    want = _host.pack_sources(_host.sources((x, w[:1]), ("x", "w")))
    got = packed.compute()
    assert got.dtype == want.dtype and got.tobytes() == want.tobytes()


def test_statistics_broadcast_their_sources_once(monkeypatch):
    from numreduce import _host

    calls = []
    real = _host.sources

    def sources(*args, **kwargs):
        calls.append(args[1])
        return real(*args, **kwargs)

    monkeypatch.setattr(_host, "sources", sources)
    x, w = _pair((20, 3), nr.wmoments)
    ids = RNG.integers(0, 3, size=20)
    for call in (lambda: nr.meanvar(x, axis=0, weights=w),
                 lambda: nr.nanmeanvar(x, weights=w),
                 lambda: nr.group_meanvar(x, ids, weights=w),
                 lambda: nr.covariance(x, w, axis=1),
                 lambda: nr.sumprod(x, w),
                 lambda: nr.logsumexp(x, b=w)):
        calls.clear()
        call()
        assert len(calls) == 1, calls
    calls.clear()  # the methods broadcast a tuple they are given
    nr.reduce_by_group(nr.wmoments, (x, w), ids, num_groups=3)
    assert calls == [["array[0]", "array[1]"]]


def test_dask_methods_match_numpy():
    da = pytest.importorskip("dask.array", reason="dask is not installed (the 'dask' extra)")
    x, w = _pair((40, 6), nr.wmoments)
    dx, dw = da.from_array(x, chunks=(7, 3)), da.from_array(w, chunks=(9, 2))
    ids = RNG.integers(0, 3, size=40)
    for ufunc in UFUNCS:
        for meth, args in [("accumulate", ()), ("reduceat", ([0, 5, 17],)),
                           ("segmented_reduce", ([0, 5, 10], [5, 10, 40])),
                           ("reduce_by_group", (ids, 3))]:
            want = getattr(nr, meth)(ufunc, (x, w), *args, axis=0)
            got = getattr(nr, meth)(ufunc, (dx, dw), *args, axis=0)
            assert all(isinstance(g, da.Array) for g in got)
            _states_close([g.compute() for g in got], want, ufunc=ufunc)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        m, v = nr.group_meanvar(dx, ids, weights=dw, ddof=1)
        assert isinstance(m, da.Array)
        want = nr.group_meanvar(x, ids, weights=w, ddof=1)
        np.testing.assert_allclose(m.compute(), want[0], rtol=1e-13)
        np.testing.assert_allclose(v.compute(), want[1], rtol=1e-12)


# ---------------------------------------------------------------------------
# the weighted groups' working slots (shifted sums, traits/wmoments.hpp)
# ---------------------------------------------------------------------------

def _exact_weighted(x, w, ddof=0):
    from fractions import Fraction
    xs = [Fraction(float(v)) for v in x]
    ws = [Fraction(float(v)) for v in w]
    W = sum(ws)
    mean = sum(a * b for a, b in zip(xs, ws)) / W
    return mean, sum(b * (a - mean) ** 2 for a, b in zip(xs, ws)) / (W - ddof)


@pytest.mark.parametrize("first", [None, 1e8 + 1e4, 0.0])
def test_weighted_groups_on_offset_data_within_two_pass_error(first):
    """1e8 + N(0, 1) data (and a first value far from the rest: the slots'
    origin moves to the running mean), per group against exact fractions,
    within NumPy's two-pass error (np.average twice) and a few ulps."""
    n, g = 3000, 3
    x = 1e8 + RNG.normal(size=n)
    if first is not None:
        x[:g] = first
    w = RNG.random(n) * 3
    ids = np.arange(n) % g
    m, v = nr.group_meanvar(x, ids, weights=w)
    for k in range(g):
        xs, ws = x[ids == k], w[ids == k]
        em, ev = _exact_weighted(xs, ws)
        pm = np.average(xs, weights=ws)
        pv = np.average((xs - pm) ** 2, weights=ws)
        eps = np.finfo(float).eps
        assert abs(float(m[k]) - float(em)) <= max(2 * abs(pm - float(em)), 4 * eps * 1e8)
        assert abs(float(v[k]) - float(ev)) <= max(2 * abs(pv - float(ev)), 1e-12 * float(ev))


def test_weighted_groups_non_finite_data_follow_np_average():
    x = np.array([1.0, np.inf, 2.0, 3.0, np.nan, 4.0, 5.0, 6.0])
    w = np.array([1.0, 1.0, 2.0, 1.0, 1.0, 1.0, 0.0, 2.0])
    ids = np.array([0, 0, 0, 1, 1, 1, 2, 2])
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)
        m, v = nr.group_meanvar(x, ids, weights=w)
        for k in range(3):
            xs, ws = x[ids == k], w[ids == k]
            pm = np.average(xs, weights=ws)
            pv = np.average((xs - pm) ** 2, weights=ws)
            np.testing.assert_equal(m[k], pm)
            np.testing.assert_equal(v[k], pv)


# ---------------------------------------------------------------------------
# reduce_by_group reads the K sources in place (C API 1.2's scatter_sources)
# ---------------------------------------------------------------------------

def _packed_too(monkeypatch, call):
    """(call() with the K sources read in place, call() with them packed as
    before: the tests' switch _host.SCATTER_SOURCES_IN_PLACE)."""
    got = call()
    monkeypatch.setattr(nr._host, "SCATTER_SOURCES_IN_PLACE", False)
    want = call()
    monkeypatch.setattr(nr._host, "SCATTER_SOURCES_IN_PLACE", True)
    return got, want


def _same_bits(got, want):
    """Bit for bit (signed zeros and infinities included), a NaN's sign and
    payload aside: a + b of two NaNs keeps either one's, and the compiler
    may order the operands differently in the two loaders' instantiations
    of the loop (x86: comoments' M2 of a group with inf - inf)."""
    assert len(got) == len(want)
    for g, w in zip(got, want):
        g, w = np.asarray(g), np.asarray(w)
        assert g.dtype == w.dtype and g.shape == w.shape
        if g.dtype.kind == "f":
            nan = np.isnan(w)
            np.testing.assert_array_equal(np.isnan(g), nan)
            g, w = g[~nan], w[~nan]
        assert g.tobytes() == w.tobytes()


@pytest.mark.parametrize("ufunc", sorted(nr._core._MULTI_SOURCE, key=lambda u: u.__name__),
                         ids=lambda u: u.__name__)
@pytest.mark.parametrize("n, g", [(30_000, 700), (500, 2000), (1, 1)])
def test_groups_in_place_are_the_packed_bits(monkeypatch, ufunc, n, g):
    """Every K-source ufunc's grouped reduction, with NaN, inf and zero
    weights, more or fewer groups than elements: the bits of the packed
    path, and its loop does read the sources in place."""
    assert nr._core._scatters_sources(ufunc, np.dtype(np.float64))
    rng = np.random.default_rng(n + g)
    x = rng.standard_normal(n) * 3
    y = rng.random(n)
    x[::97] = np.nan
    x[3::89] = np.inf
    y[::5] = 0.0
    ids = rng.integers(0, g, n)
    got, want = _packed_too(monkeypatch, lambda: nr.reduce_by_group(ufunc, (x, y), ids, g))
    _same_bits(got, want)


def test_group_meanvar_weights_in_place_are_the_packed_bits(monkeypatch):
    """group_meanvar(weights=) over more than one engine piece (2**21
    elements), sources of other dtypes (cast), strided, broadcast."""
    rng = np.random.default_rng(3)
    n, g = (1 << 21) + 12346, 1000
    x = rng.standard_normal(n)
    w = rng.random(n)
    w[::11] = 0.0
    x[::1001] = np.nan
    ids = rng.integers(0, g, n)
    calls = [lambda: nr.group_meanvar(x, ids, g, weights=w),
             lambda: nr.group_meanvar(x.astype(np.float32), ids, g,
                                      weights=(w * 10).astype(np.int64)),
             lambda: nr.group_meanvar(x[:20000], ids[:20000], g, weights=2.5),
             lambda: nr.reduce_by_group(nr.comoments, (x[::2], w[1::2]), ids[::2], g),
             lambda: nr.reduce_by_group(nr.wsummary, (x.astype(np.int32), w), ids, g)]
    for call in calls:
        got, want = _packed_too(monkeypatch, call)
        _same_bits(got, want)


def test_groups_in_place_bad_ids_write_nothing():
    """An id outside [0, g): IndexError, ``out`` untouched (first piece,
    last element, and in a later piece of a stream of several)."""
    for n, bad_at in ((1000, 999), ((1 << 21) + 10, (1 << 21) + 5), (1000, 0)):
        x, w = np.ones(n), np.ones(n)
        ids = np.zeros(n, dtype=np.intp)
        ids[bad_at] = 4
        outs = tuple(np.full(4, -7.0) for _ in range(4))
        with pytest.raises(IndexError):
            nr.reduce_by_group(nr.wmoments, (x, w), ids, 4, out=outs)
        for o in outs:
            assert (o == -7.0).all()


def test_group_meanvar_weights_reads_the_sources_in_place(monkeypatch):
    """No packed copy of (x, w): the traced NumPy allocations of a weighted
    group_meanvar stay far below the 2 n float64 of the packed records
    (which the packed path allocates: the check can fail)."""
    import tracemalloc

    rng = np.random.default_rng(5)
    n, g = 1_000_000, 100
    x, w, ids = rng.standard_normal(n), rng.random(n), rng.integers(0, g, n)

    def peak():
        tracemalloc.start()
        try:
            nr.group_meanvar(x, ids, g, weights=w)
            return tracemalloc.get_traced_memory()[1]
        finally:
            tracemalloc.stop()

    assert peak() < n * 8 // 4
    monkeypatch.setattr(nr._host, "SCATTER_SOURCES_IN_PLACE", False)
    assert peak() >= 2 * n * 8


@pytest.mark.parametrize("ufunc", sorted(nr._core._MULTI_SOURCE, key=lambda u: u.__name__),
                         ids=lambda u: u.__name__)
def test_at_in_place_is_the_packed_bits(monkeypatch, ufunc):
    """nr.at of a K-source ufunc reads the sources in place too: the bits
    of the packed path, repeated and negative indices, a broadcast scalar
    source, NaN, inf and zero weights; and no packed copy (tracemalloc)."""
    import tracemalloc

    rng = np.random.default_rng(11)
    n, g = 20_000, 300
    x = rng.standard_normal(n) * 3
    y = rng.random(n)
    x[::97] = np.nan
    x[3::89] = np.inf
    y[::5] = 0.0
    ids = rng.integers(-g, g, n)
    start = nr.reduce_by_group(ufunc, (x[:g], y[:g]), np.arange(g), g)

    def run(second):
        outs = tuple(np.array(s, copy=True) for s in start)
        nr.at(ufunc, outs, ids, (x, second))
        return outs

    for second in (y, 2.0):
        got, want = _packed_too(monkeypatch, lambda: run(second))
        _same_bits(got, want)
    big = 1_000_000
    xb, yb, ib = rng.standard_normal(big), rng.random(big), rng.integers(0, g, big)

    def peak():
        outs = tuple(np.array(s, copy=True) for s in start)
        tracemalloc.start()
        try:
            nr.at(ufunc, outs, ib, (xb, yb))
            return tracemalloc.get_traced_memory()[1]
        finally:
            tracemalloc.stop()

    assert peak() < 2 * big * 8  # the ids' intp copy (8 n) at most, no 16 n records
    monkeypatch.setattr(nr._host, "SCATTER_SOURCES_IN_PLACE", False)
    assert peak() >= 2 * big * 8  # (the packed path's records: the check can fail)


def test_at_in_place_reads_values_before_updating():
    """A source that shares memory with an accumulator is read before any
    accumulator changes (copied), as NumPy's ufunc.at does."""
    outs = tuple(np.zeros(4) for _ in range(4))
    outs[0][:] = [1.0, 2.0, 3.0, 4.0]
    w = np.ones(4)
    want = tuple(o.copy() for o in outs)
    nr.at(nr.wmoments, want, [0, 1, 2, 3, 0], (outs[0].copy()[[0, 1, 2, 3, 0]], w[[0, 1, 2, 3, 0]]))
    nr.at(nr.wmoments, outs, [0, 1, 2, 3, 0], (outs[0][[0, 1, 2, 3, 0]], w[[0, 1, 2, 3, 0]]))
    for a, b in zip(outs, want):
        np.testing.assert_array_equal(a, b)
    # the values a view of an accumulator itself
    outs = tuple(np.zeros(4) for _ in range(4))
    outs[0][:] = [1.0, 2.0, 3.0, 4.0]
    want = tuple(o.copy() for o in outs)
    nr.at(nr.wmoments, want, [3, 2, 1, 0], (want[0].copy(), w))
    nr.at(nr.wmoments, outs, [3, 2, 1, 0], (outs[0], w))
    for a, b in zip(outs, want):
        np.testing.assert_array_equal(a, b)


def test_one_source_loops_have_no_sources_scatter():
    """scatter_sources is made for reductions of K > 1 sources only (one
    source: scatter reads its stream in place already)."""
    f8 = np.dtype(np.float64)
    for u in (nr.minimummaximum, nr.moments, nr.twosum, nr.maxsumexp):
        assert not nr._core._scatters_sources(u, f8), u.__name__
    own = [u for u in nr._core._MULTI_SOURCE if getattr(nr, u.__name__, None) is u]
    assert len(own) >= 5  # (other extensions' 1.0 / 1.1 registrations have none)
    for u in own:
        assert nr._core._scatters_sources(u, f8), u.__name__


def test_in_place_sources_misaligned_and_swapped(monkeypatch):
    """Sources the scatter loop cannot read as they lie (misaligned,
    byte-swapped, another dtype) are made so first, for reduce_by_group and
    for at alike: the packed path's results, no internal error."""
    rng = np.random.default_rng(21)
    n, g = 1000, 7
    buf = np.zeros(8 * n + 1, np.uint8)
    x = np.frombuffer(buf.data, dtype=np.float64, count=n, offset=1)
    assert not x.flags.aligned
    buf[1:] = rng.standard_normal(n).view(np.uint8)
    w = rng.random(n).astype(">f8")
    ids = rng.integers(0, g, n)
    start = nr.reduce_by_group(nr.wmoments, (x[:g].copy(), np.ones(g)), np.arange(g), g)

    def at():
        outs = tuple(np.array(s, copy=True) for s in start)
        nr.at(nr.wmoments, outs, ids, (x, w))
        return outs

    for call in (lambda: nr.reduce_by_group(nr.wmoments, (x, w), ids, g), at,
                 lambda: nr.reduce_by_group(nr.wmoments, (x.astype(np.float32), w), ids, g)):
        got, want = _packed_too(monkeypatch, call)
        _same_bits(got, want)
