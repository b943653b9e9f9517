"""Reductions of several arrays (issue 25, first part): the two-source
ufuncs (wmoments, nanwmoments, comoments, maxsumexpb, twoprod) through
numreduce.reduce, and the user functions built on them -- meanvar /
meanstd / nanmeanvar(weights=), logsumexp(b=, return_sign=), covariance,
correlation, sumprod -- against NumPy, SciPy and exact fractions."""

from __future__ import annotations

import math
import warnings
from fractions import Fraction

import numpy as np
import pytest
from helpers import SIMD_NAMES, run_at_simd_level, scalar_build
from hypothesis import given, settings, strategies as st

import numreduce as nr

sp = pytest.importorskip("scipy.special")
stats = pytest.importorskip("scipy.stats")

RNG = np.random.default_rng(20261203)


def exact_weighted(x, w, ddof=0):
    """(mean, var) of frequency-weighted data in exact rational arithmetic."""
    xs = [Fraction(float(v)) for v in x]
    ws = [Fraction(float(v)) for v in w]
    W = sum(ws)
    mean = sum(a * b for a, b in zip(xs, ws)) / W
    m2 = sum(b * (a - mean) ** 2 for a, b in zip(xs, ws))
    return mean, m2 / (W - ddof)


def rel(a, b):
    return abs(Fraction(float(a)) - b) / abs(b)


# ---------------------------------------------------------------------------
# weighted moments
# ---------------------------------------------------------------------------

@pytest.mark.parametrize("n", [1, 2, 7, 255, 256, 257, 1000, 5000])
def test_integer_weights_are_repeats(n):
    x = RNG.normal(size=n) * 3 + 1
    w = RNG.integers(0, 5, n)
    w[0] = max(w[0], 1)
    rep = np.repeat(x, w)
    for ddof in (0, 1):
        m, v = nr.meanvar(x, weights=w, ddof=ddof)
        np.testing.assert_allclose(m, rep.mean(), rtol=1e-14)
        np.testing.assert_allclose(v, rep.var(ddof=ddof), rtol=1e-12)
        m, s = nr.meanstd(x, weights=w, ddof=ddof)
        np.testing.assert_allclose(s, rep.std(ddof=ddof), rtol=1e-12)


def test_weighted_mean_is_np_average_along_axes():
    x = RNG.normal(size=(6, 7, 8))
    w = RNG.random((6, 7, 8))
    for axis in (None, 0, 1, 2, (0, 2), -1):
        m, v = nr.meanvar(x, axis=axis, weights=w)
        am = np.average(x, axis=axis, weights=w)
        np.testing.assert_allclose(m, am, rtol=1e-13)
        dev = x - (am if axis is None else np.expand_dims(am, axis))
        av = np.average(dev ** 2, axis=axis, weights=w)
        np.testing.assert_allclose(v, av, rtol=1e-12)
        mk, vk = nr.meanvar(x, axis=axis, weights=w, keepdims=True)
        assert mk.shape == np.mean(x, axis=axis, keepdims=True).shape
        np.testing.assert_allclose(vk, np.reshape(v, vk.shape), rtol=0)


def test_weights_broadcast():
    x = RNG.normal(size=(5, 40))
    w = RNG.random(40)
    m, v = nr.meanvar(x, axis=1, weights=w)
    wb = np.broadcast_to(w, x.shape)
    np.testing.assert_allclose(m, np.average(x, axis=1, weights=wb), rtol=1e-13)
    m1, _ = nr.meanvar(x, axis=1, weights=w[None, :])
    np.testing.assert_array_equal(m, m1)
    # scalar weight: the unweighted moments
    np.testing.assert_allclose(nr.meanvar(x, axis=1, weights=2.0), nr.meanvar(x, axis=1),
                               rtol=1e-13)


def test_offset_data_accuracy_against_fractions():
    # 1e8 + N(0, 1): within NumPy's two-pass error, on every path (the
    # contiguous stream, strided steps along axis 0, reversed views)
    n = 3000
    x = 1e8 + RNG.normal(size=n)
    w = RNG.integers(1, 4, n).astype(float)
    mean, var = exact_weighted(x, w)
    rep = np.repeat(x, w.astype(int))
    np_err = rel(rep.var(), var)
    for xx, ww in ((x, w), (x[::-1], w[::-1]), (x[::2], w[::2])):
        em, ev = exact_weighted(xx, ww)
        m, v = nr.meanvar(xx, weights=ww)
        assert rel(m, em) < 1e-15
        assert rel(v, ev) <= max(4 * np_err, 1e-14)
    X = np.stack([x, x[::-1]], axis=1)  # axis 0 of a C-ordered array: per-column steps
    W = np.stack([w, w[::-1]], axis=1)
    m, v = nr.meanvar(X, axis=0, weights=W)
    for j in range(2):
        em, ev = exact_weighted(X[:, j], W[:, j])
        assert rel(v[j], ev) <= max(4 * np_err, 1e-14)


def test_zero_weight_slice_is_empty():
    x = np.array([[1.0, 2.0], [3.0, 4.0]])
    w = np.array([[0.0, 0.0], [1.0, 2.0]])
    with pytest.warns(RuntimeWarning, match="Mean of empty slice"), \
            pytest.warns(RuntimeWarning, match="Degrees of freedom"):
        m, v = nr.meanvar(x, axis=1, weights=w)
    assert np.isnan(m[0]) and np.isnan(v[0])
    assert m[1] == pytest.approx(11 / 3)


def test_zero_weight_ignores_inf():
    m, v = nr.meanvar(np.array([1.0, np.inf, 3.0]), weights=np.array([1, 0, 1]))
    assert (m, v) == (2.0, 1.0)


def test_negative_weight_raises_before_work():
    with pytest.raises(ValueError, match="non-negative"):
        nr.meanvar(np.ones(3), weights=np.array([1.0, -1.0, 1.0]))


def test_weights_shape_mismatch():
    with pytest.raises(ValueError, match="broadcast"):
        nr.meanvar(np.ones(3), weights=np.ones(4))


def test_nanmeanvar_drops_weight_with_nan():
    x = np.array([1.0, np.nan, 3.0, 5.0])
    w = np.array([1.0, 10.0, 1.0, 2.0])
    m, v = nr.nanmeanvar(x, weights=w)
    ok = ~np.isnan(x)
    rep = np.repeat(x[ok], w[ok].astype(int))
    assert m == pytest.approx(rep.mean()) and v == pytest.approx(rep.var())
    m, v = nr.meanvar(x, weights=w)
    assert np.isnan(m) and np.isnan(v)


def test_weighted_where_and_dtypes():
    x = RNG.normal(size=20).astype(np.float32)
    w = RNG.integers(1, 3, 20)
    keep = RNG.random(20) > 0.3
    m, v = nr.meanvar(x, weights=w, where=keep)
    rep = np.repeat(x[keep].astype(np.float64), w[keep])
    assert m == pytest.approx(rep.mean(), rel=1e-6) and v == pytest.approx(rep.var(), rel=1e-5)
    # np.average's result dtype: float32 data with int64 weights -> float64
    assert m.dtype == np.result_type(x.dtype, w.dtype)
    m32, _ = nr.meanvar(x, weights=np.ones(20, np.float32))
    assert m32.dtype == np.float32


def test_weighted_complex_raises():
    with pytest.raises(TypeError, match="real"):
        nr.meanvar(np.ones(3, complex), weights=np.ones(3))


# ---------------------------------------------------------------------------
# logsumexp(b=, return_sign=)
# ---------------------------------------------------------------------------

def test_logsumexp_b_matches_scipy():
    a = RNG.normal(size=(30, 40)) * 10
    b = RNG.normal(size=(30, 40))
    for axis in (None, 0, 1):
        r, s = nr.logsumexp(a, axis=axis, b=b, return_sign=True)
        er, es = sp.logsumexp(a, axis=axis, b=b, return_sign=True)
        np.testing.assert_allclose(r, er, rtol=1e-12)
        np.testing.assert_array_equal(s, es)
    bp = np.abs(b)
    np.testing.assert_allclose(nr.logsumexp(a, axis=1, b=bp),
                               sp.logsumexp(a, axis=1, b=bp), rtol=1e-13)


def test_logsumexp_b_edge_cases_from_scipy():
    # scipy.special's own tests: log1p precision, zeros in b, infinities
    assert nr.logsumexp(np.array([0.0, -40.0]), b=np.array([1.0, 1.0])) == \
        pytest.approx(4.248354255291589e-18, rel=1e-14)
    a = np.array([np.inf, 1.0, 2.0])
    assert nr.logsumexp(a, b=np.array([0.0, 1.0, 1.0])) == pytest.approx(
        sp.logsumexp(a, b=[0.0, 1.0, 1.0]))
    r, s = nr.logsumexp(np.array([1.0, 1.0]), b=np.array([1.0, -1.0]), return_sign=True)
    er, es = sp.logsumexp([1.0, 1.0], b=[1.0, -1.0], return_sign=True)
    assert r == er and s == es
    # a negative sum without return_sign: NaN, and no warning, as SciPy
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        assert np.isnan(sp.logsumexp([1.0, 2.0], b=[1.0, -1.0]))
        assert np.isnan(nr.logsumexp(np.array([1.0, 2.0]), b=np.array([1.0, -1.0])))
    r, s = nr.logsumexp(np.array([1.0, 2.0]), b=np.array([0.0, 0.0]), return_sign=True)
    er, es = sp.logsumexp([1.0, 2.0], b=[0.0, 0.0], return_sign=True)
    assert r == er == -np.inf and s == es
    assert np.isnan(nr.logsumexp(np.array([1.0, np.nan]), b=np.array([1.0, 1.0])))


def _mp_lse_b(x, b):
    """(log|sum(b exp(x))|, sign) exactly (mpmath at 400 bits), as floats."""
    import mpmath
    with mpmath.workprec(400):
        tot = mpmath.fsum(mpmath.mpf(float(w)) * mpmath.exp(mpmath.mpf(float(v)))
                          for v, w in zip(np.ravel(x), np.ravel(b)))
        if tot == 0:
            return -np.inf, 0.0
        return float(mpmath.log(abs(tot))), float(mpmath.sign(tot))


# sums S = sum(b exp(x - max)) far below 1 (tiny or cancelling b), near 1
# and above: the state (m, t = S - 1) lost S below 1/2 (b = 1e-20 gave -inf)
SMALL_SUMS = {
    "two_1e-20": (np.zeros(2), np.full(2, 1e-20)),
    "one_1e-8": (np.zeros(1), np.full(1, 1e-8)),
    "one_neg_1e-8": (np.zeros(1), np.full(1, -1e-8)),
    "tiny_b_3000": (np.linspace(-3, 3, 3000), np.full(3000, 1e-300)),
    "small_b_mixed_x": (np.linspace(-50, 5, 2100), np.geomspace(1e-30, 1e-3, 2100)),
    "neg_small": (np.linspace(0, 1, 1500), -np.geomspace(1e-12, 1e-9, 1500)),
    "b_0.3": (np.zeros(5), np.full(5, 0.06)),
    "b_0.49": (np.array([0.0]), np.array([0.49])),
    "b_0.5": (np.array([0.0]), np.array([0.5])),
    "near_one": (np.array([0.0, -40.0]), np.array([1.0, 1.0])),
    "huge_b": (np.array([0.0, 1.0]), np.array([1e300, 1e-300])),
    # sums past the largest double: they move into the reference too
    "two_1e308": (np.zeros(2), np.full(2, 1e308)),
    "max_b_2000": (np.linspace(-1, 1, 2000), np.full(2000, 1.7e308)),
    "neg_huge_3": (np.zeros(3), np.full(3, -1e308)),
    "huge_and_small": (np.array([0.0, 5.0, -3.0]), np.array([1.7e308, 1e-300, 1.7e308])),
    "subnormal_b": (np.array([0.0, 700.0]), np.array([5e-324, 1e-310])),
    "offset_x": (np.full(7, 1e5), np.full(7, 1e-15)),
    "max_tiny_rest_big": (np.r_[0.0, np.full(1999, -1.0)], np.r_[1e-20, np.full(1999, 1.0)]),
}


@pytest.mark.parametrize("name", list(SMALL_SUMS))
def test_logsumexp_b_small_sums_exact_to_rounding(name):
    # log|S| + m within a few ulps of the exact value for every S (the sums
    # here do not cancel, so the result is well conditioned), on every path:
    # the whole stream (blocks), an axis (rows), strided, the ufunc's
    # elementwise states merged (the SIMD levels give the same bits:
    # test_two_source_kernels_same_bits_at_every_simd_level)
    x, b = SMALL_SUMS[name]
    want, wsign = _mp_lse_b(x, b)
    tol = 8 * np.finfo(np.float64).eps * max(abs(want), 1.0)
    got, sign = nr.logsumexp(x, b=b, return_sign=True)
    assert sign == wsign and abs(got - want) <= tol, (got, sign, want, wsign)
    got = nr.logsumexp(np.stack([x, x]), b=np.stack([b, b]), axis=1, return_sign=True)
    np.testing.assert_array_equal(got[1], [wsign, wsign])
    assert np.all(np.abs(got[0] - want) <= tol), (got, want)
    got = nr.logsumexp(np.stack([x, x]).T, b=np.stack([b, b]).T, axis=0, return_sign=True)
    assert np.all(np.abs(got[0] - want) <= tol), (got, want)
    got = nr.logsumexp(np.repeat(x, 2)[::-2], b=np.repeat(b, 2)[::-2], return_sign=True)
    assert got[1] == wsign and abs(got[0] - want) <= tol, (got, want)
    m, t = nr.maxsumexpb(x, b)          # each element's state, merged in a tree
    got = nr.logsumexp(m, b=t + 1, return_sign=True)
    assert got[1] == wsign and abs(got[0] - want) <= 2 * tol, (got, want)
    if wsign > 0 and want > -np.inf:    # SciPy agrees (to its own accuracy)
        with np.errstate(all="ignore"):  # SciPy's own overflow in s / m (huge b)
            ref = sp.logsumexp(x, b=b)
        # (SciPy's sum overflows to inf for 2000 weights of 1.7e308)
        assert abs(ref - want) <= 1e-6 * max(abs(want), 1.0) or np.isinf(ref)


def test_logsumexp_b_states_stay_normal():
    # every state the traits make has |1 + t| >= 1/2, a zero sum (-inf, -1)
    # or a non-finite reference: the ufunc's elementwise states and merges
    x = np.linspace(-5, 5, 41)
    for b in (np.geomspace(1e-20, 10, 41), -np.geomspace(1e-20, 10, 41), np.zeros(41)):
        m, t = nr.maxsumexpb(x, b)
        ok = (np.abs(1 + t) >= 0.5) | ((m == -np.inf) & (t == -1))
        assert ok.all(), (m[~ok], t[~ok])
        mm, tt = nr.reduce(nr.maxsumexpb, (x, b))
        assert abs(1 + tt) >= 0.5 or (mm == -np.inf and tt == -1), (mm, tt)
    # a cancelling merge moves its sum into the reference too
    mm, tt = nr.reduce(nr.maxsumexpb, (np.zeros(2), np.array([1.0, -(1 - 2.0**-30)])))
    assert tt == 0 and mm == pytest.approx(-30 * math.log(2), rel=1e-15)


def test_logsumexp_b_broadcast_and_keepdims():
    a = RNG.normal(size=(4, 5))
    b = RNG.random(5)
    r = nr.logsumexp(a, axis=1, b=b, keepdims=True)
    np.testing.assert_allclose(r, sp.logsumexp(a, axis=1, b=b, keepdims=True), rtol=1e-13)
    assert nr.logsumexp(a, b=b).dtype == np.float64
    assert nr.logsumexp(a.astype(np.float32), b=b.astype(np.float32)).dtype == np.float32


def test_logsumexp_positional_order_is_scipys():
    a = np.array([1.0, 2.0])
    b = np.array([2.0, 3.0])
    assert nr.logsumexp(a, None, b) == pytest.approx(sp.logsumexp(a, None, b))


# ---------------------------------------------------------------------------
# covariance and correlation
# ---------------------------------------------------------------------------

def test_covariance_correlation_match_numpy_per_slice():
    x = RNG.normal(size=(5, 300)) + 1e6
    y = 0.5 * x + RNG.normal(size=(5, 300))
    c = nr.covariance(x, y, axis=1)
    r = nr.correlation(x, y, axis=1)
    for i in range(5):
        np.testing.assert_allclose(c[i], np.cov(x[i], y[i])[0, 1], rtol=1e-9)
        np.testing.assert_allclose(r[i], np.corrcoef(x[i], y[i])[0, 1], rtol=1e-9)
        np.testing.assert_allclose(r[i], stats.pearsonr(x[i], y[i])[0], rtol=1e-9)
    np.testing.assert_allclose(nr.covariance(x, y, axis=1, ddof=0),
                               [np.cov(x[i], y[i], ddof=0)[0, 1] for i in range(5)], rtol=1e-9)
    cx = nr.covariance(x.T, y.T, axis=0)  # strided steps
    np.testing.assert_allclose(cx, c, rtol=1e-12)


def test_covariance_exact_on_offset_data():
    x = 1e9 + RNG.normal(size=2000)
    y = -3e8 + RNG.normal(size=2000)
    xs = [Fraction(float(v)) for v in x]
    ys = [Fraction(float(v)) for v in y]
    mx, my = sum(xs) / len(xs), sum(ys) / len(ys)
    exact = sum((a - mx) * (b - my) for a, b in zip(xs, ys)) / (len(xs) - 1)
    assert rel(nr.covariance(x, y), exact) < 1e-12
    assert rel(np.cov(x, y)[0, 1], exact) < 1e-6  # the reference works too


def test_correlation_linear_and_bounds():
    x = RNG.normal(size=1000)
    assert abs(nr.correlation(x, 3 * x + 2) - 1) < 4 * np.finfo(float).eps
    assert abs(nr.correlation(x, -2 * x + 1) + 1) < 4 * np.finfo(float).eps
    r = nr.correlation(RNG.normal(size=(50, 3)), RNG.normal(size=(50, 3)), axis=0)
    assert np.all(np.abs(r) <= 1)


def test_correlation_constant_slice_nan_with_warning():
    with pytest.warns(RuntimeWarning, match="invalid value encountered in divide"):
        assert np.isnan(nr.correlation(np.ones(5), np.arange(5.0)))


def test_correlation_constant_slice_follows_np_errstate():
    """np.corrcoef's 0/0 follows np.seterr's 'invalid' mode; so does the
    statistic's own check (the same on backends without FP flags)."""
    x, y = np.ones(5), np.arange(5.0)
    with np.errstate(invalid="raise"):
        with pytest.raises(FloatingPointError):
            np.corrcoef(x, y)
        with pytest.raises(FloatingPointError, match="invalid value"):
            nr.correlation(x, y)
    with np.errstate(invalid="ignore"), warnings.catch_warnings():
        warnings.simplefilter("error")
        assert np.isnan(nr.correlation(x, y))


def test_covariance_dof_warning():
    with pytest.warns(RuntimeWarning, match="Degrees of freedom"):
        assert np.isnan(nr.covariance(np.array([1.0]), np.array([2.0])))


# ---------------------------------------------------------------------------
# sumprod
# ---------------------------------------------------------------------------

def exact_dot(x, y):
    return sum(Fraction(float(a)) * Fraction(float(b)) for a, b in zip(x, y))


def ill_conditioned(n, cond_exp=15):
    """Ogita-Rump-Oishi style dot product of condition about 10**cond_exp."""
    half = n // 2
    e = np.round(RNG.random(half) * cond_exp * 3.32 / 2)
    e[0], e[-1] = round(cond_exp * 3.32 / 2) + 1, 0
    x = np.empty(n)
    y = np.empty(n)
    x[:half] = (2 * RNG.random(half) - 1) * 2.0 ** e
    y[:half] = (2 * RNG.random(half) - 1) * 2.0 ** e
    e2 = np.round(np.linspace(cond_exp * 3.32 / 2, 0, n - half))
    for i in range(half, n):
        x[i] = (2 * RNG.random() - 1) * 2.0 ** e2[i - half]
        y[i] = ((2 * RNG.random() - 1) * 2.0 ** e2[i - half] - float(exact_dot(x[:i], y[:i]))) / x[i]
    p = RNG.permutation(n)
    return x[p], y[p]


def test_sumprod_accuracy_ill_conditioned():
    eps = np.finfo(float).eps
    for _ in range(3):
        x, y = ill_conditioned(200)
        exact = exact_dot(x, y)
        absum = sum(abs(Fraction(float(a)) * Fraction(float(b))) for a, b in zip(x, y))
        err = abs(Fraction(float(nr.sumprod(x, y))) - exact)
        # the issue's bound, and Dot2's own (Ogita-Rump-Oishi): eps |exact|
        # + gamma_n**2 sum|x y|, far tighter at n = 200
        assert err <= 2 * eps * abs(exact) + Fraction(1, 10**20) * absum
        assert err <= 2 * eps * abs(exact) + 4 * 200 * Fraction(eps) ** 2 * absum
        if hasattr(math, "sumprod"):
            # Python floats: math.sumprod's extended precision is for exact
            # floats only (np.float64 items take its plain, rounded path)
            assert nr.sumprod(x, y) == pytest.approx(math.sumprod(x.tolist(), y.tolist()),
                                                     rel=4 * eps)


def test_sumprod_axis_and_dtypes():
    x = RNG.normal(size=(7, 9))
    y = RNG.normal(size=(7, 9))
    np.testing.assert_allclose(nr.sumprod(x, y, axis=1), np.einsum("ij,ij->i", x, y),
                               rtol=1e-12)
    np.testing.assert_allclose(nr.sumprod(x, y, axis=0), np.einsum("ij,ij->j", x, y),
                               rtol=1e-12)
    assert nr.sumprod(x.astype(np.float32), y.astype(np.float32)).dtype == np.float32
    assert nr.sumprod(np.arange(4), np.arange(4)) == 14.0
    assert nr.sumprod(np.array([np.inf, 1.0]), np.array([1.0, 1.0])) == np.inf


# ---------------------------------------------------------------------------
# the ufuncs and numreduce.reduce with several arrays
# ---------------------------------------------------------------------------

def test_reduce_takes_a_tuple_of_sources():
    x = RNG.normal(size=(4, 6))
    w = RNG.random((4, 6))
    W, K, m, M2 = nr.reduce(nr.wmoments, (x, w), axis=1)
    np.testing.assert_allclose(W, w.sum(1), rtol=1e-14)
    np.testing.assert_allclose(K + m, np.average(x, axis=1, weights=w), rtol=1e-13)
    with pytest.raises(TypeError, match="tuple"):
        nr.reduce(nr.wmoments, x)
    with pytest.raises(ValueError, match="initial=None"):
        nr.reduce(nr.wmoments, (x, w), initial=None)
    out = tuple(np.empty(4) for _ in range(4))
    res = nr.reduce(nr.wmoments, (x, w), axis=1, out=out)
    assert all(r is o for r, o in zip(res, out))
    np.testing.assert_array_equal(out[0], W)


def test_merge_of_source_states():
    x = RNG.normal(size=1000) + 5
    y = RNG.normal(size=1000)
    a = nr.reduce(nr.comoments, (x[:300], y[:300]), axis=0)
    b = nr.reduce(nr.comoments, (x[300:], y[300:]), axis=0)
    m = nr.merge(nr.comoments, a, b)
    n, Kx, Ky, mx, my, Mxx, Myy, Cxy = m
    assert n == 1000
    assert Cxy / (n - 1) == pytest.approx(np.cov(x, y)[0, 1], rel=1e-12)


def test_forward_call_is_one_elements_state():
    assert tuple(float(v) for v in nr.wmoments(3.0, 2.0)) == (2.0, 3.0, 0.0, 0.0)
    p, e = nr.twoprod(0.1, 0.1)
    assert Fraction(float(p)) + Fraction(float(e)) == Fraction(0.1) ** 2
    m, t = nr.maxsumexpb(1.0, 0.0)
    assert (m, t) == (-np.inf, -1.0)


def test_methods_take_the_sources_as_one_tuple():
    x = np.ones(4)
    with pytest.raises(TypeError, match="reduces 2 arrays together"):
        nr.accumulate(nr.wmoments, np.stack([x, x], -1))


def test_sumprod_accuracy_ill_conditioned_across_chunks():
    # longer than the kernel's chunk of 1024 pairs and its 16 lanes' groups
    eps = np.finfo(float).eps
    x, y = ill_conditioned(2500)
    exact = exact_dot(x, y)
    absum = sum(abs(Fraction(float(a)) * Fraction(float(b))) for a, b in zip(x, y))
    for xx, yy in ((x, y), (x[::-1], y[::-1]), (np.repeat(x, 2)[::2], np.repeat(y, 2)[::2])):
        err = abs(Fraction(float(nr.sumprod(xx, yy))) - exact)
        assert err <= 2 * eps * abs(exact) + Fraction(1, 10**20) * absum


def _unaligned(a):
    """A copy of float64 ``a`` one byte off the allocation's alignment."""
    buf = np.zeros(a.nbytes + 1, np.uint8)
    u = buf[1:].view(np.float64)
    u[:] = a
    assert not u.flags.aligned
    return u


@pytest.mark.parametrize("n", [1, 2, 15, 16, 17, 255, 256, 257, 1023, 1024, 1025, 1040, 3001])
def test_two_source_kernels_same_bits_for_every_layout(n):
    # the two streams read in place (contiguous, aligned), gathered (strided,
    # reversed) or copied (unaligned) give the same bits, and NumPy/SciPy's
    # values
    x = 1e3 + RNG.standard_normal(n)
    y = 0.5 * x + RNG.standard_normal(n)
    w = RNG.random(n)
    w[::5] = 0.0
    b = RNG.standard_normal(n)
    funcs = {
        "meanvar": lambda p, q: nr.meanvar(p, weights=q),
        "nanmeanvar": lambda p, q: nr.nanmeanvar(p, weights=q),
        "covariance": nr.covariance,
        "sumprod": nr.sumprod,
        "logsumexp": lambda p, q: nr.logsumexp(p - 1e3, b=q, return_sign=True),
    }
    args = {"meanvar": (x, w), "nanmeanvar": (x, w), "covariance": (x, y), "sumprod": (x, y),
            "logsumexp": (x, b)}
    for name, f in funcs.items():
        p, q = args[name]
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", RuntimeWarning)
            want = f(p, q)
            for pp, qq in ((np.repeat(p, 3)[::3], np.repeat(q, 3)[::3]),
                           (p[::-1].copy()[::-1], q[::-1].copy()[::-1]),
                           (_unaligned(p), _unaligned(q))):
                got = f(pp, qq)
                assert repr(got) == repr(want), (name, n, got, want)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)
        if w.sum() > 0:
            m, v = nr.meanvar(x, weights=w)
            assert m == pytest.approx(np.average(x, weights=w), rel=1e-14)
            assert v == pytest.approx(np.average((x - m) ** 2, weights=w), rel=1e-9, abs=1e-12)
        if n > 1:
            assert nr.covariance(x, y) == pytest.approx(np.cov(x, y)[0, 1], rel=1e-9, abs=1e-12)
    assert nr.sumprod(x, y) == pytest.approx(float(exact_dot(x, y)), rel=1e-15)
    r = sp.logsumexp(x - 1e3, b=b, return_sign=True)
    g = nr.logsumexp(x - 1e3, b=b, return_sign=True)
    assert g[1] == r[1] and g[0] == pytest.approx(r[0], rel=1e-12, abs=1e-12)


def test_two_source_kernels_same_bits_at_every_simd_level():
    # the weighted moments', co-moments' and sumprod's lanes are the same
    # exact or unfused operations at every vector width
    code = (
        "import numpy as np, numreduce as nr\n"
        "from numreduce import _config\n"
        "print(_config.config()['simd_kernels'])\n"
        "rng = np.random.default_rng(5)\n"
        "out = []\n"
        "for n in (17, 1000, 5003):\n"
        "    x = 1e3 + rng.standard_normal(n); y = rng.standard_normal(n); w = rng.random(n)\n"
        "    out.append((nr.meanvar(x, weights=w), nr.covariance(x, y), nr.correlation(x, y),\n"
        "                nr.sumprod(x, y), nr.sumprod(x.astype(np.float32), y)))\n"
        "print(repr(out))\n"
    )
    got = {}
    for level in SIMD_NAMES:
        try:
            got[level] = run_at_simd_level(code, level)
        except pytest.skip.Exception:
            continue
    if scalar_build():
        # no levels to compare: the scalar loops ran the code once (as
        # [baseline]; the other levels skip without running)
        assert list(got) == ["baseline"], got
    else:
        # the baseline runs on every x86-64 CPU: at least it, all alike
        assert "baseline" in got and len(set(got.values())) == 1, got


def test_thread_count_does_not_change_bits():
    x = 1e3 + RNG.normal(size=300_000)
    w = RNG.random(300_000)
    before = nr.get_num_threads()
    try:
        nr.set_num_threads(1)
        one = (nr.meanvar(x, weights=w), nr.covariance(x, w), nr.sumprod(x, w),
               nr.logsumexp(x, b=w))
        nr.set_num_threads(4)
        four = (nr.meanvar(x, weights=w), nr.covariance(x, w), nr.sumprod(x, w),
                nr.logsumexp(x, b=w))
    finally:
        nr.set_num_threads(before)
    assert repr(one) == repr(four)


@settings(max_examples=40, deadline=None)
@given(st.integers(1, 4), st.integers(0, 3), st.integers(0, 60), st.booleans(),
       st.sampled_from([np.float32, np.float64]), st.integers(0, 2**32 - 1))
def test_hypothesis_shapes(rows, axis_pick, cols, reverse, dt, seed):
    shape = (rows, cols)
    rng = np.random.default_rng(seed)  # drawn by Hypothesis: a failure replays
    x = rng.normal(size=shape).astype(dt)
    y = rng.normal(size=shape).astype(dt)
    w = rng.integers(1, 3, shape).astype(dt)
    if reverse:
        x, y, w = x[::-1, ::-1], y[::-1, ::-1], w[::-1, ::-1]
    axis = (None, 0, 1, -1)[axis_pick]
    n = x.size if axis is None else x.shape[axis]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)
        m, v = nr.meanvar(x, axis=axis, weights=w)
        em = np.average(x.astype(np.float64), axis=axis, weights=w) if n else None
        s = nr.sumprod(x, y, axis=axis)
        c = nr.covariance(x, y, axis=axis)
    # Both sides accumulate in float64 (float32 sources too; the result is
    # then rounded once, within rtol): a sum of n terms rounds by at most
    # about n eps sum|terms|, so near zero (cancelling sums) the absolute
    # errors are n eps64 times the data's magnitude -- each side's mean within
    # n eps max|x|, a sum of products within n eps sum|x y|, a covariance
    # within n eps max|x - mean_x| max|y - mean_y| n / (n - 1) <= 8 n eps
    # max|x| max|y| (two of each: ours and the reference's).
    eps = np.finfo(np.float64).eps
    mx = float(np.max(np.abs(x), initial=0.0))
    my = float(np.max(np.abs(y), initial=0.0))
    if n:
        np.testing.assert_allclose(m, em, rtol=1e-5 if dt == np.float32 else 1e-12,
                                   atol=2 * n * eps * mx)
    es = np.sum(x.astype(np.float64) * y, axis=axis)
    np.testing.assert_allclose(s, es, rtol=1e-5 if dt == np.float32 else 1e-12,
                               atol=2 * n * eps * float(np.sum(np.abs(x.astype(np.float64) * y))))
    if n > 1:
        xm = x.astype(np.float64)
        ec = np.sum((xm - xm.mean(axis=axis, keepdims=True)) *
                    (y - y.astype(np.float64).mean(axis=axis, keepdims=True)), axis=axis) / (n - 1)
        np.testing.assert_allclose(c, ec, rtol=1e-6 if dt == np.float32 else 1e-10,
                                   atol=16 * n * eps * mx * my)


# ---------------------------------------------------------------------------
# Dask: lazily, one pass per chunk, against the NumPy results
# ---------------------------------------------------------------------------

def test_dask_sources_lazily():
    da = pytest.importorskip("dask.array", reason="dask[array] is not installed (the 'dask' "
                             "extra)")
    x = 1e6 + RNG.normal(size=(300, 200))
    y = 0.5 * x + RNG.normal(size=(300, 200))
    w = RNG.integers(0, 4, size=(300, 200)).astype(float)
    dx = da.from_array(x, chunks=(70, 90))
    dy = da.from_array(y, chunks=(100, 50))  # other chunks: aligned to dx's
    dw = da.from_array(w, chunks=(70, 90))
    for axis in (None, 0, 1):
        got = nr.meanvar(dx, axis=axis, weights=dw, ddof=1)
        assert all(isinstance(g, da.Array) for g in got)
        want = nr.meanvar(x, axis=axis, weights=w, ddof=1)
        np.testing.assert_allclose(got[0].compute(), want[0], rtol=1e-14)
        np.testing.assert_allclose(got[1].compute(), want[1], rtol=1e-9)
        # NumPy weights beside Dask data, broadcast along the rows
        got = nr.nanmeanvar(dx, axis=axis, weights=w[0] + 1)
        want = nr.nanmeanvar(x, axis=axis, weights=w[0] + 1)
        np.testing.assert_allclose(got[1].compute(), want[1], rtol=1e-9)
        for fn in (nr.covariance, nr.correlation, nr.sumprod):
            got = fn(dx, dy, axis=axis)
            assert isinstance(got, da.Array)
            np.testing.assert_allclose(got.compute(), fn(x, y, axis=axis), rtol=1e-9)
        got = nr.logsumexp(dx - 1e6, axis=axis, b=dw - 1.5, return_sign=True)
        want = nr.logsumexp(x - 1e6, axis=axis, b=w - 1.5, return_sign=True)
        for g, v in zip(got, want):  # b < 0 cancels: absolute error near 0
            np.testing.assert_allclose(g.compute(), v, rtol=1e-12, atol=1e-13)
        states = nr.reduce(nr.comoments, (dx, dy), axis=axis)
        assert len(states) == 8 and isinstance(states[0], da.Array)
        assert np.array_equal(states[0].compute(), nr.reduce(nr.comoments, (x, y),
                                                             axis=axis)[0])


def test_dask_negative_weight_raises_when_computed():
    da = pytest.importorskip("dask.array", reason="dask[array] is not installed (the 'dask' "
                             "extra)")
    w = np.ones(100)
    w[77] = -1
    m, v = nr.meanvar(da.from_array(np.ones(100), chunks=30), weights=da.from_array(w, chunks=30))
    with pytest.raises(ValueError, match="non-negative"):
        v.compute()


def test_dask_and_numpy_sources_do_not_broadcast():
    da = pytest.importorskip("dask.array", reason="dask[array] is not installed (the 'dask' "
                             "extra)")
    with pytest.raises(ValueError, match="broadcast"):
        nr.covariance(da.ones(10, chunks=5), np.ones(3))
