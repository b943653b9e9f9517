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
    reason="native ufunc.reduce: " + __import__("numreduce._config")._config.native_reason())

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


# The column-tile kernel at every SIMD level on the native path (NumPy hands
# it one row at a time): widths around the tiles (4 vectors of 16/32/64
# bytes), misaligned input rows and accumulator rows (out= views one element
# off), NaN at the first/last row and column, signed zeros; the values of
# np.minimum.reduce / np.maximum.reduce, their bits but for a zero's sign.
_LEVEL_CHECK = r'''
import numpy as np
import numreduce as nr
from numreduce import _config
print(_config.config()["simd_kernels"])
rng = np.random.default_rng(11)
checked = 0
for dt in ["float32", "float64", "int8", "int32", "int64", "uint16"]:
    for cols in [1, 3, 15, 16, 17, 31, 32, 33, 63, 64, 65, 127, 128, 129, 300]:
        for rows in [1, 2, 5]:
            base = (rng.standard_normal(rows * cols + 1) * 50).astype(dt)
            for off in (0, 1):
                a = base[off:off + rows * cols].reshape(rows, cols)
                cases = [a]
                if a.dtype.kind == "f":
                    for r, c in [(0, 0), (rows - 1, cols - 1), (rows // 2, cols // 2)]:
                        b = a.copy(); b[r, c] = np.nan; cases.append(b)
                    z = a.copy(); z[:, ::2] = 0.0; z[-1, ::3] = -0.0; cases.append(z)
                for b in cases:
                    want = (np.minimum.reduce(b, axis=0), np.maximum.reduce(b, axis=0))
                    bufs = [np.empty(cols + 1, b.dtype) for _ in range(2)]
                    out = (bufs[0][off:off + cols], bufs[1][off:off + cols])
                    for got in (nr.minimummaximum.reduce(b, axis=0),
                                nr.minimummaximum.reduce(b, axis=0, out=out)):
                        for g, w in zip(got, want):
                            assert g.dtype == w.dtype and g.shape == w.shape
                            # equal values (NaN where NumPy has one); the bits
                            # but for a zero's sign (min/max of 0.0 and -0.0 are
                            # equal values: test_paths_agree's rule)
                            assert np.array_equal(g, w, equal_nan=g.dtype.kind == "f"), (dt, cols, rows, off, g, w)
                            nz = w != 0
                            assert np.array_equal(g.view(f"u{g.itemsize}")[nz],
                                                  w.view(f"u{w.itemsize}")[nz]), (dt, cols, rows, off, g, w)
                    checked += 1
print("checked", checked)
'''


@pytest.mark.native
@pytest.mark.parametrize("level", ["baseline", "avx2", "avx512"])
def test_minimummaximum_axis0_every_simd_level(level):
    import os
    import subprocess
    import sys
    env = dict(os.environ, NUMREDUCE_SIMD=level)
    proc = subprocess.run([sys.executable, "-P", "-c", _LEVEL_CHECK], env=env,
                          capture_output=True, text=True, timeout=600)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    lines = proc.stdout.splitlines()
    from helpers import SIMD_NAMES
    want = SIMD_NAMES[level]
    if lines[0] != want:
        pytest.skip(f"this CPU has no {want} (ran {lines[0]} instead)")
    assert int(lines[-1].split()[1]) > 1000, lines[-1]
