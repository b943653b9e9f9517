"""Weights at the edges (issue 36, class 5): a weight sum that is not finite
(an inf weight, or finite weights whose sum overflows float64) and a weight
sum so small that the weights' products with the data are subnormal give
NaN with a RuntimeWarning on every path -- plain, axis, where=, meanstd,
nanmeanvar, grouped, the raw states of reduce / accumulate /
segmented_reduce, mapreduce below and above its block size, Dask -- never
a finite value that the weights no longer support.  References: np.average
(NaN for inf / overflowing weights) and exact fractions."""

from __future__ import annotations

import warnings
from fractions import Fraction

import numpy as np
import pytest

import numreduce as nr


def exact_weighted(x, w, ddof=0):
    xs = [Fraction(float(v)) for v in x]
    ws = [Fraction(float(v)) for v in w]
    W = sum(ws)
    mean = sum(a * b for a, b in zip(xs, ws)) / W
    return mean, sum(b * (a - mean) ** 2 for a, b in zip(xs, ws)) / (W - ddof)


def _paths(x, w):
    """{path: (mean, var)} of 1-d data ``x`` with weights ``w``."""
    n = x.size
    x2, w2 = np.stack([x, x]), np.stack([w, w])
    res = {
        "plain": nr.meanvar(x, weights=w),
        "axis=1": tuple(r[1] for r in nr.meanvar(x2, weights=w2, axis=1)),
        "axis=0 (F)": tuple(r[0] for r in nr.meanvar(x2.T.copy(), weights=w2.T.copy(), axis=0)),
        "axis=0 (strided)": tuple(r[1] for r in nr.meanvar(x2.T, weights=w2.T, axis=0)),
        "where": nr.meanvar(x, weights=w, where=np.ones(n, bool)),
        "meanstd": tuple(v ** 2 if i else v for i, v in enumerate(nr.meanstd(x, weights=w))),
        "nanmeanvar": nr.nanmeanvar(x, weights=w),
        "group_meanvar": tuple(r[0] for r in nr.group_meanvar(x, np.zeros(n, np.intp),
                                                               weights=w)),
        "group_meanvar(2 groups)": tuple(
            r[1] for r in nr.group_meanvar(np.concatenate([x, x]),
                                           np.repeat(np.array([0, 1]), n),
                                           weights=np.concatenate([np.ones(n), w]))),
        "mapreduce": nr.mapreduce(np.positive, nr.meanvar, x, weights=w),
    }
    W, K, m, M2 = nr.reduce(nr.wmoments, (x, w), axis=None)
    res["reduce(wmoments) states"] = (K + m, M2 / W)
    W, K, m, M2 = nr.accumulate(nr.wmoments, (x, w))
    res["accumulate(wmoments) last"] = (K[-1] + m[-1], M2[-1] / W[-1])
    W, K, m, M2 = nr.segmented_reduce(nr.wmoments, (x, w), [0], [n])
    res["segmented_reduce(wmoments)"] = (K[0] + m[0], M2[0] / W[0])
    try:
        import dask.array as da
    except ImportError:
        pass
    else:
        c = max(1, n // 3)
        res["dask"] = tuple(np.asarray(v) for v in nr.meanvar(
            da.from_array(x, chunks=c), weights=da.from_array(w, chunks=c)))
        res["dask group_meanvar"] = tuple(np.asarray(v)[0] for v in nr.group_meanvar(
            da.from_array(x, chunks=c), da.zeros(n, dtype=np.intp, chunks=c), num_groups=1,
            weights=da.from_array(w, chunks=c)))
    return res


SIZES = [3, 20, 300, 70_000]  # one element per lane; one chunk; several; several map blocks


def _all_nan_with_warning(x, w, match, states=True):
    with warnings.catch_warnings(record=True) as rec:
        warnings.simplefilter("always")
        res = _paths(x, w)
    for path, (mean, var) in res.items():
        if not states and "wmoments" in path:
            continue
        assert np.isnan(mean) and np.isnan(var), (path, mean, var)
    msgs = [str(r.message) for r in rec if issubclass(r.category, RuntimeWarning)]
    assert any(match in m for m in msgs), msgs


@pytest.mark.parametrize("n", SIZES)
def test_weight_sum_overflow_is_nan_with_warning(n):
    # issue 36: meanvar(np.arange(20.), weights=np.full(20, 1e307)) was (8.0, nan), silently
    x = np.arange(float(n))
    w = np.full(n, 1e307 if n >= 20 else 1e308)
    with warnings.catch_warnings(record=True):
        warnings.simplefilter("always")
        assert np.isnan(np.average(x, weights=w))  # the reference
    _all_nan_with_warning(x, w, "invalid value encountered in divide")


@pytest.mark.parametrize("n", SIZES)
@pytest.mark.parametrize("where", ["first", "middle", "last", "all"])
def test_inf_weight_is_nan_with_warning(n, where):
    # issue 36: meanvar gave (1.0, nan) for an inf first weight, group_meanvar (1.0, 0.0)
    x = np.linspace(1.0, 3.0, n)
    w = np.ones(n)
    idx = {"first": 0, "middle": n // 2, "last": n - 1, "all": slice(None)}[where]
    w[idx] = np.inf
    with warnings.catch_warnings(record=True) as rec:
        warnings.simplefilter("always")
        assert np.isnan(np.average(x, weights=w))  # the reference, with a warning
    assert rec
    _all_nan_with_warning(x, w, "invalid value encountered in divide")


def test_inf_weight_warning_follows_np_seterr():
    x, w = np.array([1.0, 2.0, 3.0]), np.array([1.0, np.inf, 1.0])
    with np.errstate(invalid="raise"):
        with pytest.raises(FloatingPointError):
            nr.meanvar(x, weights=w)
    with np.errstate(invalid="ignore"), warnings.catch_warnings():
        warnings.simplefilter("error")
        m, v = nr.meanvar(x, weights=w)
    assert np.isnan(m) and np.isnan(v)


@pytest.mark.parametrize("n", SIZES)
@pytest.mark.parametrize("tiny", [5e-324, 1e-320, 1e-310, 1e-300])
def test_tiny_weight_sum_is_nan_with_warning(n, tiny):
    # weights of 1e-320: the products w (x - K) were subnormal, the mean of
    # [0, 0.3] came out 0.0 (0.15 exactly) and var 0.0 (0.0225)
    x = np.resize(np.array([0.0, 0.3, 0.7]), n)
    w = np.full(n, tiny)
    assert n * tiny < 2.0 ** -969
    # the user functions' finish decides (the raw states keep W, K, m, M2)
    _all_nan_with_warning(x, w, "less than 2**-969", states=False)


@pytest.mark.parametrize("scale", [2.0 ** -960, 1e-250, 1.0, 1e250, 1e300])
def test_weights_within_range_are_exact(scale):
    x = np.resize(np.array([0.1, 0.7, 0.3, 2.5]), 300)
    w = np.resize(np.array([1.0, 3.0, 2.0, 0.5]), 300) * scale
    mean, var = exact_weighted(x, w)
    for path, (m, v) in _paths(x, w).items():
        if path == "group_meanvar(2 groups)":
            continue  # its other weights are 1: W is not scale-free there
        assert abs(Fraction(float(m)) - mean) <= abs(mean) * Fraction(1, 2 ** 48), path
        assert abs(Fraction(float(v)) - var) <= abs(var) * Fraction(1, 2 ** 44), path


def test_small_weights_beside_large_ones_count_for_little():
    # subnormal weights next to unit ones: the sum is far above 2**-969
    x = np.array([1.0, 2.0, 3.0, 4.0])
    w = np.array([1.0, 5e-324, 1e-320, 1.0])
    mean, var = exact_weighted(x, w)
    m, v = nr.meanvar(x, weights=w)
    assert m == float(mean) and abs(v - float(var)) <= 1e-15 * float(var)


def test_negative_weights_are_refused_everywhere():
    # frequency weights: np.average allows negative weights, numreduce refuses them
    x, w = np.arange(4.0), np.array([1.0, -1.0, 1.0, 1.0])
    for call in (lambda: nr.meanvar(x, weights=w), lambda: nr.nanmeanvar(x, weights=w),
                 lambda: nr.group_meanvar(x, np.zeros(4, np.intp), weights=w),
                 lambda: nr.mapreduce(np.positive, nr.meanvar, np.resize(x, 70_000),
                                      weights=np.resize(w, 70_000))):
        with pytest.raises(ValueError, match="non-negative"):
            call()
