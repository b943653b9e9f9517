"""Edge cases of SciPy's scipy/special/tests/test_logsumexp.py, ported to
numreduce.logsumexp (read, not copied; SciPy's b= and return_sign are not
offered by numreduce, see docs/differences.md).  The reference is
scipy.special.logsumexp, called at test time; exact references come from
mpmath."""

from __future__ import annotations

import math
import warnings

import numpy as np
import pytest

import numreduce as nr

special = pytest.importorskip("scipy.special", reason="SciPy (optional reference) missing")
mpmath = pytest.importorskip("mpmath", reason="mpmath (optional reference) missing")


def ref(a, **kw):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)
        return special.logsumexp(a, **kw)


def same(got, want, rtol=4e-16):
    got_a, want_a = np.asarray(got), np.asarray(want)
    assert got_a.shape == want_a.shape
    assert got_a.dtype == want_a.dtype, (got_a.dtype, want_a.dtype)
    np.testing.assert_allclose(got_a, want_a, rtol=rtol, atol=0, equal_nan=True)
    # infinities of the same sign, NaN where SciPy has NaN
    np.testing.assert_array_equal(np.isposinf(got_a), np.isposinf(want_a))
    np.testing.assert_array_equal(np.isneginf(got_a), np.isneginf(want_a))


def exact(x):
    with mpmath.workdps(60):
        return float(mpmath.log(mpmath.fsum(mpmath.exp(mpmath.mpf(float(v))) for v in x)))


class TestLogSumExp:
    def test_empty(self):
        same(nr.logsumexp(np.array([])), ref(np.array([])))
        for shape, axis in [((0, 3), 0), ((3, 0), 1), ((0, 3), 1), ((2, 0, 3), 1)]:
            a = np.zeros(shape)
            same(nr.logsumexp(a, axis=axis), ref(a, axis=axis))
        # SciPy 1.17 raises IndexError when every axis of a 2-D empty array is reduced; the
        # empty sum is -inf there too.
        assert nr.logsumexp(np.zeros((0, 0))) == -np.inf

    def test_large_inputs(self):
        a = np.arange(200.0)
        same(nr.logsumexp(a), ref(a))
        assert abs(float(nr.logsumexp(a)) - exact(a)) <= 2e-16 * exact(a)
        b = np.array([1000.0, 1000.0])
        same(nr.logsumexp(b), ref(b))
        c = np.full(1000, 10000)
        same(nr.logsumexp(c), ref(c))
        assert nr.logsumexp(c) == pytest.approx(10000.0 + math.log(1000), rel=1e-16)

    def test_tiny_values_stacked(self):
        # log(1e-40) one million times in two rows: exp(logsumexp) is the sum.
        x = np.full(1_000_000, 1e-40)
        logx = np.log(x)
        X, logX = np.stack([x, x]), np.stack([logx, logx])
        for axis in (None, 0, 1):
            np.testing.assert_allclose(np.exp(nr.logsumexp(logX, axis=axis)),
                                       np.sum(X, axis=axis), rtol=1e-12)
            same(nr.logsumexp(logX, axis=axis), ref(logX, axis=axis), rtol=1e-14)

    @pytest.mark.parametrize("a", [[np.inf], [-np.inf], [np.nan], [-np.inf, -np.inf],
                                   [np.inf, -np.inf], [np.inf, np.inf], [np.inf, 1.0],
                                   [np.nan, np.inf], [np.inf, np.nan], [-np.inf, np.nan],
                                   [-np.inf, 0.0], [-np.inf, 3.0, -np.inf],
                                   [1e308, 1e308], [-1e308, 1e308], [np.finfo(float).max] * 3])
    def test_special_values(self, a):
        arr = np.array(a)
        same(nr.logsumexp(arr), ref(arr))
        same(nr.logsumexp(arr[::-1]), ref(arr[::-1]))

    def test_special_values_along_axes(self):
        inf, nan = np.inf, np.nan
        a = np.array([[inf, 1.0, -inf], [-inf, -inf, -inf], [nan, 0.0, inf], [2.0, 3.0, 4.0]])
        for axis in (None, 0, 1, -1, (0, 1)):
            for keepdims in (False, True):
                same(nr.logsumexp(a, axis=axis, keepdims=keepdims),
                     ref(a, axis=axis, keepdims=keepdims))

    def test_different_magnitudes(self):
        a = np.array([[1e10, 1e-10], [-1e10, -np.inf]])
        same(nr.logsumexp(a, axis=-1), ref(a, axis=-1))
        same(nr.logsumexp(a, axis=-1, keepdims=True), ref(a, axis=-1, keepdims=True))
        same(nr.logsumexp(a, axis=(-1, -2)), ref(a, axis=(-1, -2)))

    def test_shapes(self):
        a = np.ones((1, 2, 3, 4))
        for axis in (2, (1, 3), (0, 3), (), None, -1):
            for keepdims in (False, True):
                same(nr.logsumexp(a, axis=axis, keepdims=keepdims),
                     ref(a, axis=axis, keepdims=keepdims))

    @pytest.mark.parametrize("arg", [1, [1, 2, 3], 2.5, True])
    def test_scalars_and_lists(self, arg):
        same(nr.logsumexp(arg), ref(arg))

    @pytest.mark.parametrize("dtype", [np.float16, np.float32, np.float64, np.longdouble,
                                       np.int32, np.int64, np.uint8, np.bool_])
    def test_dtypes(self, dtype):
        a = np.array([100, 100], dtype=dtype) if dtype is not np.bool_ else np.ones(2, bool)
        rtol = {np.float16: 1e-3, np.float32: 1e-7}.get(dtype, 4e-16)
        same(nr.logsumexp(a), ref(a), rtol=rtol)
        if dtype not in (np.bool_, np.uint8, np.float16):
            b = np.array([1000, 1000], dtype=dtype)
            same(nr.logsumexp(b), ref(b), rtol=rtol)

    def test_float32_long(self):
        # numreduce computes float32 data in float64 and rounds once (SciPy
        # computes in float32): compare with SciPy's float64 result rounded.
        rng = np.random.default_rng(3)
        a = rng.standard_normal((4, 10_000)).astype(np.float32) * 30
        for axis in (None, 0, 1):
            want = ref(a.astype(np.float64), axis=axis).astype(np.float32)
            same(nr.logsumexp(a, axis=axis), want, rtol=np.finfo(np.float32).eps)

    def test_strided_and_transposed(self):
        rng = np.random.default_rng(4)
        a = rng.standard_normal((50, 70)) * 50
        for view in (a.T, a[::3, ::-2], np.asfortranarray(a)):
            for axis in (None, 0, 1):
                same(nr.logsumexp(view, axis=axis), ref(view, axis=axis), rtol=1e-15)

    def test_accuracy_against_mpmath(self):
        rng = np.random.default_rng(7)
        for scale in (1e-3, 1.0, 30.0, 700.0):
            x = rng.standard_normal(300) * scale
            want = exact(x)
            got = float(nr.logsumexp(x))
            assert abs(got - want) <= 4e-16 * abs(want) + 1e-300, (scale, got, want)


# ---------------------------------------------------------------------------
# Cases that failed before the issue-10 logsumexp fixes (regression tests)
# ---------------------------------------------------------------------------

class TestIssue10Regressions:
    def test_gh18295_result_near_zero(self):
        a = np.array([0.0, -40.0])
        want = np.logaddexp(a[0], a[1])
        got = nr.logsumexp(a)
        assert got == pytest.approx(want, rel=1e-15, abs=0)
        assert abs(float(got) - exact(a)) <= 1e-15 * exact(a)

    def test_complex_input(self):
        rng = np.random.default_rng(324984329582349862)
        x = rng.uniform(1, 40, (10, 100)) + 1j * rng.uniform(1, 40, (10, 100))
        got = nr.logsumexp(x, axis=1)
        np.testing.assert_allclose(got, np.log(np.sum(np.exp(x), axis=1)), rtol=1e-13)
        assert (np.abs(np.imag(got)) <= np.pi).all()

    def test_complex_small_imaginary(self):
        x = np.array([0, 0.0 + 2.2204460492503132e-17j])
        got = nr.logsumexp(x)
        assert np.real(got) == pytest.approx(0.6931471805599453, rel=1e-15)
        assert np.imag(got) == pytest.approx(1.1102230246251566e-17, rel=1e-15)

    def test_dominant_value_long(self):
        x = np.zeros(10**7)
        x[0] = 1.0
        want = float(mpmath.log(mpmath.e + (10**7 - 1)))
        assert abs(float(nr.logsumexp(x)) - want) <= 4e-16 * want

    def test_maxsumexp_all_nan_paths_agree(self):
        row = nr.reduce(nr.maxsumexp, np.array([np.nan]))
        cols = nr.reduce(nr.maxsumexp, np.full((1, 3), np.nan), axis=0)
        for r, c in zip(row, cols):
            np.testing.assert_array_equal(np.full(3, r), c)
        # and logsumexp of all-NaN data is NaN, as in SciPy, on both paths
        assert np.isnan(nr.logsumexp(np.full((1, 3), np.nan), axis=0)).all()
