"""float32 data run the float64 vector kernels (moments, log-sum-exp) on
exactly converted lanes, so a float32 reduction is the float64 reduction of
the same values, rounded once to float32 at the end -- at every size around
the kernels' vector widths and block sizes, contiguous or not, with
inf/NaN and with a large offset."""

import numpy as np
import pytest

import numreduce as nr

SIZES = [1, 7, 8, 15, 16, 17, 31, 32, 33, 63, 64, 65, 100, 1023, 1024, 1025, 4097, 10**5 + 3]


def _data(n, offset, seed):
    rng = np.random.default_rng(seed)
    return (rng.standard_normal(n) * 3 + offset).astype(np.float32)


def _same(got, ref64):
    got, ref = np.asarray(got), np.asarray(ref64).astype(np.float32)
    assert got.dtype == np.float32
    np.testing.assert_array_equal(got, ref)


@pytest.mark.parametrize("n", SIZES)
@pytest.mark.parametrize("offset", [0.0, 1e4])
def test_meanvar_float32_is_float64_of_the_same_values(n, offset):
    a = _data(n, offset, n)
    for f in (nr.meanvar, nr.meanstd):
        for got, ref in zip(f(a), f(a.astype(np.float64))):
            _same(got, ref)


@pytest.mark.parametrize("n", SIZES)
@pytest.mark.parametrize("offset", [0.0, -80.0])
def test_logsumexp_float32_is_float64_of_the_same_values(n, offset):
    a = _data(n, offset, n + 1)
    _same(nr.logsumexp(a), nr.logsumexp(a.astype(np.float64)))


@pytest.mark.parametrize("special", [np.inf, -np.inf, np.nan])
@pytest.mark.parametrize("where", [0, 5, 40, -1])
def test_specials_float32(special, where):
    a = _data(1000, 1.0, 3)
    a[where] = special
    d = a.astype(np.float64)
    with np.errstate(invalid="ignore"):
        _same(nr.logsumexp(a), nr.logsumexp(d))
        for got, ref in zip(nr.meanvar(a), nr.meanvar(d)):
            _same(got, ref)


def test_axis_and_strided_float32():
    a = _data(64 * 300, 2.0, 9).reshape(64, 300)
    d = a.astype(np.float64)
    for axis in (0, 1, None):
        _same(nr.logsumexp(a, axis=axis), nr.logsumexp(d, axis=axis))
        for got, ref in zip(nr.meanvar(a, axis=axis), nr.meanvar(d, axis=axis)):
            _same(got, ref)
    s = a.ravel()[::3]
    _same(nr.logsumexp(s), nr.logsumexp(s.astype(np.float64)))


@pytest.mark.parametrize("n", SIZES)
def test_nanmeanvar_float32_is_float64_of_the_same_values(n):
    a = _data(n, 3.0, n + 2)
    a[1::7] = np.nan  # a[0] stays a number: no all-NaN warning path here
    d = a.astype(np.float64)
    for got, ref in zip(nr.nanmeanvar(a), nr.nanmeanvar(d)):
        _same(got, ref)
