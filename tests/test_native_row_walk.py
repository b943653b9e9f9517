"""The native path's row-walk kernels (the traits' row_walk: one input row
into one accumulator row, what NumPy's reduction iterator hands the loop for
an axis-0 reduction of a C-ordered array): moments/nanmoments (vectorised
Welford in blocks of 256 columns, scalar step() for a block with a
non-finite value or unequal counts) and minimummaximum (the column-tile
kernel), against NumPy's own reductions.  Only where NumPy has the
multi-output reduction slots (a NumPy 2.6 development build)."""

import numpy as np
import pytest

import numreduce as nr

pytestmark = pytest.mark.skipif(
    not nr.HAVE_NATIVE_REDUCE,
    reason="native ufunc.reduce unavailable: " + nr._core._NATIVE_REASON)

COLS = [1, 7, 255, 256, 257, 600]


def _data(dtype, rows, cols, seed):
    rng = np.random.default_rng(seed)
    if np.dtype(dtype).kind in "iu":
        return rng.integers(0, 100, (rows, cols)).astype(dtype)
    return (rng.standard_normal((rows, cols)) * 10 + 3).astype(dtype)


def _var_check(n, mean, m2, a, axis, where=True, nan=False):
    x = a.astype(np.float64)
    if nan:
        want_n = np.sum(~np.isnan(x) & where, axis=axis).astype(float)
        want_mean = np.nanmean(np.where(where, x, np.nan), axis=axis)
        want_var = np.nanvar(np.where(where, x, np.nan), axis=axis)
    else:
        want_n = np.sum(np.broadcast_to(where, x.shape), axis=axis).astype(float)
        want_mean = np.mean(x, axis=axis, where=where)
        want_var = np.var(x, axis=axis, where=where)
    np.testing.assert_array_equal(n, want_n)
    np.testing.assert_allclose(mean, want_mean, rtol=1e-12, atol=1e-12)
    with np.errstate(invalid="ignore", divide="ignore"):
        np.testing.assert_allclose(m2 / n, want_var, rtol=1e-10, atol=1e-12)


@pytest.mark.parametrize("dtype", ["f2", "f4", "f8", "i4", "i8", "u1"])
@pytest.mark.parametrize("cols", COLS)
def test_moments_axis0(dtype, cols):
    a = _data(dtype, 37, cols, cols)
    n, mean, m2 = nr.moments.reduce(a, axis=0)
    _var_check(n, mean, m2, a, 0)
    en, emean, em2 = nr.reduce(nr.moments, a, axis=0)
    np.testing.assert_array_equal(n, en)
    np.testing.assert_allclose(mean, emean, rtol=1e-13, atol=1e-13)
    np.testing.assert_allclose(m2, em2, rtol=1e-11, atol=1e-11)


@pytest.mark.parametrize("cols", COLS)
def test_moments_axis0_non_finite_blocks(cols):
    a = _data("f8", 30, cols, 1)
    a[3, cols // 2] = np.inf          # an inf: the block's columns step() one by one
    a[5, cols - 1] = np.nan
    a[0, 0] = -np.inf
    n, mean, m2 = nr.moments.reduce(a, axis=0)
    with np.errstate(invalid="ignore"):
        want_mean, want_var = np.mean(a, axis=0), np.var(a, axis=0)
    np.testing.assert_array_equal(np.isnan(mean), np.isnan(want_mean))
    np.testing.assert_array_equal(mean[np.isinf(want_mean)], want_mean[np.isinf(want_mean)])
    ok = np.isfinite(want_mean)
    np.testing.assert_allclose(mean[ok], want_mean[ok], rtol=1e-12, atol=1e-12)
    np.testing.assert_allclose((m2 / n)[ok], want_var[ok], rtol=1e-10, atol=1e-12)
    assert np.all(np.isnan(m2[~ok]))


@pytest.mark.parametrize("cols", COLS)
def test_nanmoments_axis0(cols):
    a = _data("f8", 40, cols, 2)
    rng = np.random.default_rng(cols)
    a[rng.random(a.shape) < 0.1] = np.nan  # unequal counts from the second row on
    n, mean, m2 = nr.nanmoments.reduce(a, axis=0)
    _var_check(n, mean, m2, a, 0, nan=True)


@pytest.mark.parametrize("cols", COLS)
def test_moments_axis0_where_unequal_counts(cols):
    a = _data("f8", 25, cols, 3)
    where = np.random.default_rng(cols + 1).random(a.shape) < 0.7
    n, mean, m2 = nr.moments.reduce(a, axis=0, where=where)
    _var_check(n, mean, m2, a, 0, where=where)


def test_moments_far_from_zero_keeps_accuracy():
    a = 1e9 + np.random.default_rng(4).standard_normal((500, 300))
    n, mean, m2 = nr.moments.reduce(a, axis=0)
    np.testing.assert_allclose(m2 / n, np.var(a, axis=0), rtol=1e-6)


@pytest.mark.parametrize("dtype", ["i1", "u2", "i4", "i8", "u8", "f4", "f8"])
@pytest.mark.parametrize("cols", COLS)
def test_minimummaximum_axis0(dtype, cols):
    a = _data(dtype, 33, cols, 5)
    lo, hi = nr.minimummaximum.reduce(a, axis=0)
    np.testing.assert_array_equal(lo, a.min(axis=0))
    np.testing.assert_array_equal(hi, a.max(axis=0))
    if a.dtype.kind == "f":
        a[7, cols // 3] = np.nan
        lo, hi = nr.minimummaximum.reduce(a, axis=0)
        np.testing.assert_array_equal(lo, a.min(axis=0))
        np.testing.assert_array_equal(hi, a.max(axis=0))
