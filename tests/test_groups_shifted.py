"""group_meanvar / reduce_by_group(moments) on the scatter loop's shifted-sum
working slots (traits/moments.hpp scatter_t): against long double / fsum
references, pandas (Welford) accuracy, NumPy per group, the step() fallback
(inf/NaN, overflow), and thread-count invariance."""

import math
import textwrap

import numpy as np
import pytest

import numreduce as nr
from helpers import run_at_simd_level

pd = pytest.importorskip("pandas")


def _ref(x, ids, g):
    """Per-group (mean, var) in long double, two passes."""
    xl = x.astype(np.longdouble)
    cnt = np.bincount(ids, minlength=g)
    s = np.zeros(g, np.longdouble)
    np.add.at(s, ids, xl)
    m = s / cnt
    d = xl - m[ids]
    q = np.zeros(g, np.longdouble)
    np.add.at(q, ids, d * d)
    return m, q / cnt


def _errs(x, ids, g):
    m, v = _ref(x, ids, g)
    _, nv = nr.group_meanvar(x, ids, g)
    pv = pd.Series(x).groupby(ids).var(ddof=0).to_numpy()
    rel = lambda a: np.abs((a.astype(np.longdouble) - v) / v).astype(float)  # noqa: E731
    return rel(nv), rel(pv)


def _data(kind, seed=0, n=200_000, g=500):
    rng = np.random.default_rng(seed)
    x = rng.standard_normal(n)
    ids = rng.integers(0, g, n)
    _, first = np.unique(ids, return_index=True)
    if kind == "offset":
        x = x + 1e6
    elif kind == "offset_small_spread":
        x = x * 1e-3 + 1e6
    elif kind == "first_far":  # each group's first value far from its mean
        x[first] += 1e6
    elif kind == "first_huge":
        x[first] = 1e8
    elif kind == "first_low_offset":
        x = x + 1e6
        x[first] -= 1e6
    elif kind == "trend":
        x = np.arange(n) * 1.0 + x
    return x, ids, g


@pytest.mark.parametrize("kind", ["plain", "offset", "offset_small_spread", "first_far",
                                  "first_huge", "first_low_offset", "trend"])
def test_variance_error_within_pandas(kind):
    x, ids, g = _data(kind)
    a, b = _errs(x, ids, g)
    rms = lambda e: math.sqrt(float(np.mean(e * e)))  # noqa: E731
    assert rms(a) <= 1.1 * rms(b) + 1e-16, (rms(a), rms(b))
    assert a.max() <= 1.5 * b.max() + 1e-15, (a.max(), b.max())
    assert a.max() < 1e-12


def test_offset_mean_accurate():
    x, ids, g = _data("offset")
    m, _ = _ref(x, ids, g)
    nm, _ = nr.group_meanvar(x, ids, g)
    assert np.max(np.abs(nm - m.astype(float)) / 1e6) < 4e-16


@pytest.mark.parametrize("dtype", [np.float64, np.float32, np.int64, np.int8, np.uint16, np.bool_])
@pytest.mark.parametrize("n", [1, 2, 3, 63, 64, 65, 127, 128, 129, 1000, 5000])
def test_matches_numpy_per_group(dtype, n):
    rng = np.random.default_rng(n)
    g = max(1, n // 7)
    if np.dtype(dtype).kind == "f":
        x = (rng.standard_normal(n) * 10 + 3).astype(dtype)
    elif dtype is np.bool_:
        x = rng.integers(0, 2, n).astype(bool)
    else:
        x = rng.integers(0, 100, n).astype(dtype)
    ids = rng.integers(0, g + 2, n)  # some groups empty (group g + 2 at least)
    G = g + 3
    with pytest.warns(RuntimeWarning, match="Mean of empty slice"), \
            pytest.warns(RuntimeWarning, match="Degrees of freedom <= 0"):
        mean, var = nr.group_meanvar(x, ids, G)
    for k in range(G):
        sel = x[ids == k].astype(np.float64)
        if sel.size == 0:
            assert np.isnan(mean[k]) and np.isnan(var[k])
            continue
        tol = 1e-12 if mean.dtype == np.float64 else 1e-6
        np.testing.assert_allclose(mean[k], sel.mean(), rtol=tol, atol=tol)
        np.testing.assert_allclose(var[k], sel.var(), rtol=tol, atol=tol)
    cnt, mu, m2 = nr.reduce_by_group(nr.moments, x, ids, G)
    np.testing.assert_array_equal(cnt, np.bincount(ids, minlength=G))
    assert np.all(m2 >= 0)


@pytest.mark.parametrize("where", ["first", "last", "all", "inf", "-inf", "both", "huge"])
def test_nonfinite_falls_back(where):
    rng = np.random.default_rng(1)
    n, g = 3000, 20
    x = rng.standard_normal(n)
    ids = rng.integers(0, g, n)
    k = np.flatnonzero(ids == 3)
    if where == "first":
        x[k[0]] = np.nan
    elif where == "last":
        x[k[-1]] = np.nan
    elif where == "all":
        x[k] = np.nan
    elif where == "inf":
        x[k[5]] = np.inf
    elif where == "-inf":
        x[k[0]] = -np.inf
    elif where == "both":
        x[k[1]], x[k[7]] = np.inf, -np.inf
    elif where == "huge":
        x[k[0]], x[k[1]] = 1.5e308, -1.5e308
    with np.errstate(all="ignore"):
        mean, var = nr.group_meanvar(x, ids, g)
        for j in range(g):
            sel = x[ids == j]
            em, ev = np.mean(sel), np.var(sel)
            if where == "huge" and j == 3:
                assert np.isfinite(mean[j]) and var[j] == np.inf
                continue
            np.testing.assert_allclose(mean[j], em, rtol=1e-13, atol=1e-13, equal_nan=True)
            np.testing.assert_allclose(var[j], ev, rtol=1e-12, atol=1e-12, equal_nan=True)


def test_nanmoments_skip():
    rng = np.random.default_rng(2)
    n, g = 5000, 30
    x = rng.standard_normal(n)
    x[rng.random(n) < 0.2] = np.nan
    ids = rng.integers(0, g, n)
    x[ids == 4] = np.nan  # an all-NaN group
    cnt, mu, m2 = nr.reduce_by_group(nr.nanmoments, x, ids, g) if hasattr(nr, "nanmoments") \
        else pytest.skip("no nanmoments")
    for j in range(g):
        sel = x[ids == j]
        sel = sel[~np.isnan(sel)]
        assert cnt[j] == sel.size
        if sel.size:
            np.testing.assert_allclose(mu[j], sel.mean(), rtol=1e-13, atol=1e-14)
            np.testing.assert_allclose(m2[j], ((sel - sel.mean()) ** 2).sum(), rtol=1e-12,
                                       atol=1e-12)


def test_where_axis_out_ids():
    rng = np.random.default_rng(3)
    x = rng.standard_normal((300, 4))
    ids = rng.integers(0, 10, 300)
    w = rng.random((300, 4)) < 0.7
    cnt, mu, m2 = nr.reduce_by_group(nr.moments, x, ids, 10, axis=0, where=w)
    for j in range(10):
        for c in range(4):
            sel = x[(ids == j) & w[:, c], c]
            assert cnt[j, c] == sel.size
            np.testing.assert_allclose(mu[j, c], sel.mean() if sel.size else 0, atol=1e-14)
    # 1-d into out=: the fast path, then copied
    x1 = rng.standard_normal(1000)
    i1 = rng.integers(0, 10, 1000)
    outs = (np.full(10, -1.0), np.full(10, -1.0), np.full(10, -1.0))
    res = nr.reduce_by_group(nr.moments, x1, i1, 10, out=outs)
    assert res[0] is outs[0]
    np.testing.assert_array_equal(outs[0], np.bincount(i1, minlength=10))
    # an id out of range raises before anything is written
    bad = i1.copy()
    bad[700] = 10
    outs2 = (np.full(10, -1.0), np.full(10, -1.0), np.full(10, -1.0))
    with pytest.raises(IndexError, match=r"group_ids\[700\]"):
        nr.reduce_by_group(nr.moments, x1, bad, 10, out=outs2)
    assert all(np.all(o == -1.0) for o in outs2)
    bad[700] = -1
    with pytest.raises(IndexError, match=r"group_ids\[700\]"):
        nr.group_meanvar(x1, bad, 10)


def test_thread_count_bitwise():
    rng = np.random.default_rng(4)
    n, g = 6_000_000, 1000
    x = rng.standard_normal(n) + 5
    ids = rng.integers(0, g, n)
    old = nr.get_num_threads() if hasattr(nr, "get_num_threads") else 1
    try:
        res = []
        for t in (1, 2, 3):
            nr.set_num_threads(t)
            res.append(nr.reduce_by_group(nr.moments, x, ids, g))
    finally:
        nr.set_num_threads(old)
    for r in res[1:]:
        for a, b in zip(res[0], r):
            np.testing.assert_array_equal(a, b)


# group_minmax / fminfmax on the scatter loop's plain min/max working slots
# (traits/minmax.hpp minmax_scatter): against np.minimum.at / np.maximum.at
# (np.fmin.at / np.fmax.at), bitwise, with the step() redo on NaN.

def _at_ref(fn_lo, fn_hi, x, ids, g):
    if x.dtype.kind == "f":
        lo, hi = np.full(g, np.inf, x.dtype), np.full(g, -np.inf, x.dtype)
    else:
        info = np.iinfo(x.dtype)
        lo, hi = np.full(g, info.max, x.dtype), np.full(g, info.min, x.dtype)
    fn_lo.at(lo, ids, x)
    fn_hi.at(hi, ids, x)
    return lo, hi


def _bits_equal(a, b):
    assert a.dtype == b.dtype
    np.testing.assert_array_equal(a.view(np.uint8), b.view(np.uint8))


@pytest.mark.parametrize("dtype", [np.float64, np.float32, np.int8, np.uint8, np.int16, np.uint16,
                                   np.int32, np.uint32, np.int64, np.uint64])
@pytest.mark.parametrize("n", [1, 2, 7, 64, 65, 1000, 5000])
def test_minmax_slots_match_ufunc_at(dtype, n):
    rng = np.random.default_rng(n)
    g = max(1, n // 5)
    ids = rng.integers(0, g, n)
    ids[:g] = np.arange(g)[: min(g, n)]  # no empty group
    if np.dtype(dtype).kind == "f":
        x = rng.standard_normal(n).astype(dtype)
        x[rng.random(n) < 0.1] = 0.0
        x[rng.random(n) < 0.1] = -0.0
        x[rng.random(n) < 0.02] = np.inf
        x[rng.random(n) < 0.02] = -np.inf
    else:
        info = np.iinfo(dtype)
        x = rng.integers(info.min, info.max, n, dtype=dtype, endpoint=True)
        x[rng.random(n) < 0.05] = info.max
        x[rng.random(n) < 0.05] = info.min
    lo, hi = nr.group_minmax(x, ids, g)
    rlo, rhi = _at_ref(np.minimum, np.maximum, x, ids, g)
    _bits_equal(lo, rlo)
    _bits_equal(hi, rhi)


@pytest.mark.parametrize("dtype", [np.float64, np.float32])
@pytest.mark.parametrize("where", ["first", "last", "all", "one_group", "payloads"])
def test_minmax_slots_nan_redo(dtype, where):
    rng = np.random.default_rng(5)
    n, g = 3000, 25
    x = rng.standard_normal(n).astype(dtype)
    ids = rng.integers(0, g, n)
    ids[:g] = np.arange(g)
    k = np.flatnonzero(ids == 2)
    if where == "first":
        x[k[0]] = np.nan
    elif where == "last":
        x[k[-1]] = np.nan
    elif where == "all":
        x[:] = np.nan
    elif where == "one_group":
        x[k] = np.nan
    else:
        bits = x.view(np.uint64 if dtype == np.float64 else np.uint32)
        nanbits = np.array([np.nan], dtype).view(bits.dtype)[0]
        bits[k[1]] = nanbits | 1
        bits[k[4]] = nanbits | 2
    with np.errstate(invalid="ignore"):
        lo, hi = nr.group_minmax(x, ids, g)
        rlo, rhi = _at_ref(np.minimum, np.maximum, x, ids, g)
        flo, fhi = nr.reduce_by_group(nr.fminfmax, x, ids, g)
        qlo, qhi = _at_ref(np.fmin, np.fmax, x, ids, g)
    np.testing.assert_array_equal(lo, rlo)
    np.testing.assert_array_equal(hi, rhi)
    np.testing.assert_array_equal(np.isnan(lo), np.isnan(rlo))
    # fmin: an all-NaN group is NaN (np.fmin.at from +inf would say inf)
    allnan = np.array([np.isnan(x[ids == j]).all() for j in range(g)])
    qlo[allnan], qhi[allnan] = np.nan, np.nan
    np.testing.assert_array_equal(flo, qlo)
    np.testing.assert_array_equal(fhi, qhi)


def test_minmax_slots_empty_and_ids():
    x = np.array([3.0, 1.0, 4.0, 1.0, 5.0])
    with pytest.raises(ValueError, match="group 1 is empty"):
        nr.group_minmax(x, np.array([0, 0, 2, 2, 0]), 3)
    lo, hi = nr.group_minmax(x, np.array([0, 0, 2, 2, 0]), 3, initial=(np.inf, -np.inf))
    np.testing.assert_array_equal(lo, [1.0, np.inf, 1.0])
    out = (np.zeros(3), np.zeros(3))
    with pytest.raises(IndexError, match=r"group_ids\[3\]"):
        nr.group_minmax(x, np.array([0, 1, 2, 3, 0]), 3, out=out)
    assert np.all(out[0] == 0) and np.all(out[1] == 0)
    rng = np.random.default_rng(6)
    big = rng.standard_normal(5_000_000)
    ids = rng.integers(0, 1000, big.size)
    old = nr.get_num_threads()
    try:
        res = []
        for t in (1, 2):
            nr.set_num_threads(t)
            res.append(nr.group_minmax(big, ids, 1000))
    finally:
        nr.set_num_threads(old)
    rlo, rhi = _at_ref(np.minimum, np.maximum, big, ids, 1000)
    for lo, hi in res:
        _bits_equal(lo, rlo)
        _bits_equal(hi, rhi)


# Random ids into slots past half the L1d and within half the L2: the
# scatter loop takes four ids at a time (one bounds branch for the four,
# their elements in order; loops.hpp scatter_slots_rows).  8000 groups:
# 128 KB of float64 minmax slots, 256 KB for two rows.  Bits as
# np.minimum.at / np.maximum.at, and a bad id at every position of a
# four (and around the 1024-id blocks) raises naming the first one, with
# nothing written.

@pytest.mark.parametrize("dtype", [np.float64, np.float32, np.int64])
def test_random_ids_four_at_a_time(dtype):
    rng = np.random.default_rng(52)
    g, n, nz = 8000, 40_003, 100
    ids = rng.integers(nz, g, n)
    # groups 0 .. nz-1: two zeros each, of opposite signs, side by side in
    # one four (which sign a min/max keeps shows their order)
    qs = 4 * rng.choice(n // 4 - 1, nz, replace=False)
    rest = np.setdiff1d(np.arange(n), np.concatenate([qs, qs + 1]))
    ids[rng.choice(rest, g - nz, replace=False)] = np.arange(nz, g)  # no empty group
    ids[qs] = ids[qs + 1] = np.arange(nz)
    if np.dtype(dtype).kind == "f":
        x = rng.standard_normal((2, n)).astype(dtype)
        x[rng.random((2, n)) < 0.1] = 0.0
        x[rng.random((2, n)) < 0.1] = -0.0
        x[rng.random((2, n)) < 0.01] = np.inf
        first = rng.random(nz) < 0.5
        x[:, qs], x[:, qs + 1] = np.where(first, 0.0, -0.0), np.where(first, -0.0, 0.0)
    else:
        x = rng.integers(-1000, 1000, (2, n)).astype(dtype)
    lo, hi = nr.group_minmax(x[0], ids, g)
    rlo, rhi = _at_ref(np.minimum, np.maximum, x[0], ids, g)
    _bits_equal(lo, rlo)
    _bits_equal(hi, rhi)
    lo2, hi2 = nr.group_minmax(x, ids, g, axis=1)  # two rows in one pass
    for r in range(2):
        rlo, rhi = _at_ref(np.minimum, np.maximum, x[r], ids, g)
        _bits_equal(lo2[r], rlo)
        _bits_equal(hi2[r], rhi)
    mean, var = nr.group_meanvar(x[0], ids, g)
    cnt = np.bincount(ids, minlength=g)
    s1 = np.bincount(ids, x[0].astype(np.float64), minlength=g)
    np.testing.assert_allclose(mean, (s1 / cnt).astype(mean.dtype), rtol=1e-5, atol=1e-6)
    for p in (0, 1, 2, 3, 4, 5, 1021, 1022, 1023, 1024, 1025, n - 4, n - 3, n - 2, n - 1):
        bad = ids.copy()
        bad[p] = g if p % 2 else -1
        if p + 2 < n:
            bad[p + 2] = g
        out = (np.zeros(g, dtype), np.zeros(g, dtype))
        with pytest.raises(IndexError, match=rf"group_ids\[{p}\]"):
            nr.group_minmax(x[0], bad, g, out=out)
        assert not out[0].any() and not out[1].any()
        with pytest.raises(IndexError, match=rf"group_ids\[{p}\]"):
            nr.group_meanvar(x[0], bad, g)


# Runs of equal ids (sorted keys, resampled time): the scatter loop holds the
# current group's slots in registers in blocks whose ids mostly repeat
# (loops.hpp scatter_slots_rows).  A slot's bits depend only on its own
# elements in order, so ids reordered stably by group -- every group's
# elements in the same order -- must give the same bits in either mode, and
# in blocks that switch between them.

def _orders(n, g, seed):
    """Random ids, and two orders that keep every group's elements in their
    order: sorted by group (runs), and sorted in the outer thirds with the
    middle third's elements in their own (random) order."""
    rng = np.random.default_rng(seed)
    ids = rng.integers(0, g, n)
    ids[:g] = np.arange(g)
    by_group = np.argsort(ids, kind="stable")
    third = n // 3
    part = by_group.copy()
    part[third:2 * third] = np.sort(part[third:2 * third])
    return ids, (by_group, part)


@pytest.mark.parametrize("n, g", [(5000, 7), (70_000, 300), (300_000, 10_000)])
@pytest.mark.parametrize("fn", ["minmax", "meanvar", "moments", "summary"])
def test_runs_of_ids_same_bits(n, g, fn):
    ids, orders = _orders(n, g, n + g)
    rng = np.random.default_rng(g)
    x = rng.standard_normal(n) * 3 + 1e3
    x[rng.random(n) < 0.01] = -0.0
    x[rng.random(n) < 0.01] = 0.0
    call = {"minmax": lambda a, i: nr.group_minmax(a, i, g),
            "meanvar": lambda a, i: nr.group_meanvar(a, i, g),
            "moments": lambda a, i: nr.reduce_by_group(nr.moments, a, i, g),
            "summary": lambda a, i: nr.reduce_by_group(nr.summary, a, i, g)}[fn]
    ref = call(x, ids)
    for order in orders:
        # every group's elements in their order (a stable sort by group of
        # the reordered ids gives the sorted order back)
        np.testing.assert_array_equal(order[np.argsort(ids[order], kind="stable")], orders[0])
        # the same elements per group, in their order: the same bits
        got = call(x[order], ids[order])
        for a, b in zip(ref, got):
            np.testing.assert_array_equal(a.view(np.uint8), b.view(np.uint8))


# The runs' own kernels (traits/minmax.hpp scatter_run: the vector min/max
# kernel over a run, stepping in order where the run's extreme is a zero;
# loops.hpp run_end: the vector search for the id that ends a run), at every
# SIMD level, against np.minimum.at / np.maximum.at bit for bit: sorted ids
# with runs of every length around the kernels' thresholds (16 ids before
# the search, 4 vectors before the kernel), signed zeros as some groups'
# extremes, NaN in one group (the pass redone with step()), several rows
# sharing the ids (axis=1), and a bad id inside a long run.
RUNS = textwrap.dedent(r'''
    import numpy as np
    import numreduce as nr
    from numreduce import _config

    print(_config.config()["simd_kernels"])
    rng = np.random.default_rng(51)
    checked = 0

    def at_ref(x, ids, g):
        if x.dtype.kind == "f":
            lo, hi = np.full(g, np.inf, x.dtype), np.full(g, -np.inf, x.dtype)
        else:
            info = np.iinfo(x.dtype)
            lo, hi = np.full(g, info.max, x.dtype), np.full(g, info.min, x.dtype)
        np.minimum.at(lo, ids, x)
        np.maximum.at(hi, ids, x)
        return lo, hi

    def same_bits(a, b):
        assert a.dtype == b.dtype and a.shape == b.shape, (a.dtype, b.dtype, a.shape, b.shape)
        assert a.tobytes() == b.tobytes(), (a, b)

    lengths = np.array([1, 2, 3, 15, 16, 17, 18, 31, 32, 33, 63, 64, 65, 127, 128, 129, 255,
                        256, 257, 700, 1023, 1024, 1025, 2049, 3000])
    for dt in (np.float64, np.float32, np.int64, np.uint64, np.int32, np.uint32, np.int16,
               np.uint16, np.int8, np.uint8):
        for rows in (1, 3, 5):
            ln = rng.permutation(np.repeat(lengths, 2))
            g = ln.size
            ids = np.repeat(np.arange(g), ln)
            n = ids.size
            if np.dtype(dt).kind == "f":
                x = (rng.standard_normal((rows, n)) * 100).astype(dt)
                # zeros: the minimum of some groups (positive data), the
                # maximum of others (negative data), inside the others
                for k in range(g):
                    seg = x[:, ids == k]
                    kind = k % 4
                    if kind == 1:
                        seg[:] = np.abs(seg) + 1
                    elif kind == 2:
                        seg[:] = -np.abs(seg) - 1
                    if kind in (1, 2, 3):
                        z = rng.random(seg.shape) < 0.1
                        seg[z] = np.where(rng.random(seg.shape) < 0.5, 0.0, -0.0)[z]
                    x[:, ids == k] = seg
            else:
                info = np.iinfo(dt)
                x = rng.integers(info.min, info.max, (rows, n), dtype=dt, endpoint=True)
                x[rng.random((rows, n)) < 0.01] = info.max
                x[rng.random((rows, n)) < 0.01] = info.min
            lo, hi = nr.group_minmax(x, ids, g, axis=1)
            for r in range(rows):
                rlo, rhi = at_ref(x[r], ids, g)
                same_bits(lo[r], rlo)
                same_bits(hi[r], rhi)
                checked += 1
            if np.dtype(dt).kind == "f":
                # NaN in one long run's middle: that row's pass is redone
                # with step() (NaN propagates, as np.minimum.at; step()
                # keeps the first of equal values, so that row's zeros may
                # take the other sign: values compared), the other rows
                # keep their slots' bits
                k = int(np.flatnonzero(ln == 3000)[0])
                y = x.copy()
                y[0, np.flatnonzero(ids == k)[1500]] = np.nan
                with np.errstate(invalid="ignore"):
                    lo, hi = nr.group_minmax(y, ids, g, axis=1)
                    rlo, rhi = at_ref(y[0], ids, g)
                assert np.isnan(lo[0, k]) and np.isnan(hi[0, k])
                assert np.array_equal(lo[0], rlo, equal_nan=True)
                assert np.array_equal(hi[0], rhi, equal_nan=True)
                for r in range(1, rows):
                    rlo, rhi = at_ref(x[r], ids, g)
                    same_bits(lo[r], rlo)
                    same_bits(hi[r], rhi)
                checked += 1
            # a bad id inside a long run: IndexError, out untouched
            k = int(np.flatnonzero(ln == 2049)[0])
            bad = ids.copy()
            bad[np.flatnonzero(ids == k)[1000]] = g
            out = (np.zeros((rows, g), dt), np.zeros((rows, g), dt))
            try:
                nr.group_minmax(x, bad, g, axis=1, out=out)
            except IndexError:
                pass
            else:
                raise AssertionError("no IndexError")
            assert not out[0].any() and not out[1].any()
            checked += 1
    print("checked", checked)
''')


@pytest.mark.parametrize("level", ["baseline", "avx2", "avx512"])
def test_minmax_runs_of_ids_at_every_level(level):
    checked = run_at_simd_level(RUNS, level, timeout=900)
    assert checked == f"checked {10 * 9 + 2 * 3 + 10 * 3}", checked


def test_scatter_floor_is_a_real_pass():
    """The bench's bound for grouped reductions (_core._scatter_floor: every
    element added into its group's slot) does the pass it claims: the
    slots' total is the per-group sums' (np.add.at) total; bad ids and
    arrays raise."""
    from numreduce import _core
    rng = np.random.default_rng(3)
    x = rng.standard_normal(10_000)
    ids = rng.integers(0, 37, x.size)
    s = np.zeros(37)
    np.add.at(s, ids, x)
    assert abs(_core._scatter_floor(x, ids, 37) - math.fsum(s)) <= 1e-12 * np.abs(x).sum()
    ids[7] = 37
    with pytest.raises(ValueError, match="id 37 outside"):
        _core._scatter_floor(x, ids, 37)
    with pytest.raises(ValueError, match="contiguous float64"):
        _core._scatter_floor(x.astype(np.float32), ids % 37, 37)
    with pytest.raises(ValueError, match="contiguous float64"):
        _core._scatter_floor(x[::2], ids[::2] % 37, 37)
