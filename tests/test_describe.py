"""describe, skew, kurtosis and the summary / nansummary ufuncs against
references nobody here wrote: SciPy's own test cases (the hard-coded numbers
of scipy/stats/tests/test_stats.py: TestDescribe, TestSkew, TestKurtosis,
TestMoments), scipy.stats on the same inputs (values, dtypes, warnings,
exceptions), exact arithmetic (Python integers and fractions for the power
sums, mpmath for the roots), NumPy's own reductions per slice.

Float32 and float16 data are summed in float64 by numreduce (more accurate
than SciPy's float32 arithmetic): their references are SciPy on the float64
copy, rounded to the data's dtype.
"""

from __future__ import annotations

import warnings
from fractions import Fraction

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis.extra import numpy as hnp

import numreduce as nr

stats = pytest.importorskip("scipy.stats", reason="scipy is not installed (the 'test' extra)")
mpmath = pytest.importorskip("mpmath", reason="mpmath is not installed (the 'test' extra)")

EPS = float(np.finfo(np.float64).eps)
PRECISION = "Precision loss occurred in moment calculation"
SMALL = "One or more sample arguments is too small"
FIELDS = ("nobs", "minmax", "mean", "variance", "skewness", "kurtosis")


# ---------------------------------------------------------------- references

def exact_moments(values):
    """(n, mean, M2, M3, M4) of the float64 values exactly: each value an
    integer multiple of 1/D (D a power of two), the power sums in Python
    integers, the central moments from them in fractions."""
    v = [float(t) for t in np.ravel(np.asarray(values, dtype=np.float64))]
    ratios = [t.as_integer_ratio() for t in v]
    D = max(d for _, d in ratios)
    ints = [p * (D // d) for p, d in ratios]
    n = len(ints)
    s1 = sum(ints)
    s2 = sum(i * i for i in ints)
    s3 = sum(i ** 3 for i in ints)
    s4 = sum(i ** 4 for i in ints)
    m2 = Fraction(s2) - Fraction(s1 * s1, n)
    m3 = Fraction(s3) - 3 * Fraction(s1 * s2, n) + 2 * Fraction(s1 ** 3, n * n)
    m4 = (Fraction(s4) - 4 * Fraction(s1 * s3, n) + 6 * Fraction(s1 ** 2 * s2, n ** 2)
          - 3 * Fraction(s1 ** 4, n ** 3))
    return n, Fraction(s1, n * D), m2 / D ** 2, m3 / D ** 3, m4 / D ** 4


def _mp(q):
    return mpmath.mpf(q.numerator) / q.denominator


def exact_stats(values, ddof=1, bias=True, fisher=True):
    """(mean, variance, skewness, kurtosis) exactly, rounded once; the
    skewness and kurtosis None for a constant sample; SciPy's bias
    corrections and Fisher's -3 in exact arithmetic."""
    n, mean, M2, M3, M4 = exact_moments(values)
    with mpmath.workdps(60):
        var = float(_mp(M2 / (n - ddof))) if n > ddof else None
        if M2 == 0:
            return float(mean), var, None, None
        m2, m3, m4 = _mp(M2 / n), _mp(M3 / n), _mp(M4 / n)
        g1 = m3 / m2 ** mpmath.mpf(1.5)
        g2 = m4 / m2 ** 2
        if not bias:
            if n > 2:
                g1 = mpmath.sqrt(mpmath.mpf((n - 1) * n)) / (n - 2) * g1
            if n > 3:
                g2 = mpmath.mpf(1) / (n - 2) / (n - 3) * ((n * n - 1) * g2 - 3 * (n - 1) ** 2) + 3
        if fisher:
            g2 -= 3
        return float(mean), var, float(g1), float(g2)


def quiet(f, *a, **kw):
    with warnings.catch_warnings(), np.errstate(all="ignore"):
        warnings.simplefilter("ignore")
        return f(*a, **kw)


def sp_describe(x, **kw):
    """scipy.stats.describe with masked results (nan_policy='omit') as NaN."""
    r = quiet(stats.describe, x, **kw)
    f = lambda v: np.ma.filled(v, np.nan) if isinstance(v, np.ma.MaskedArray) else v  # noqa: E731
    return (r.nobs, (f(r.minmax[0]), f(r.minmax[1])), f(r.mean), f(r.variance),
            f(r.skewness), f(r.kurtosis))


def flat(r):
    """A DescribeResult as six arrays (nobs, min, max, mean, var, skew, kurt)."""
    return (r[0], r[1][0], r[1][1]) + tuple(r[2:])


def close(got, want, rtol, atol=0.0, what=""):
    g = np.asarray(got, dtype=np.float64)
    w = np.asarray(want, dtype=np.float64)
    assert g.shape == w.shape, (what, g.shape, w.shape)
    assert np.array_equal(np.isnan(g), np.isnan(w)), (what, g, w)
    ok = np.isnan(w) | (g == w) | (np.abs(g - w) <= atol + rtol * np.abs(w))
    assert np.all(ok), (what, g[~ok], w[~ok], rtol, atol)


def warns_of(f, *a, **kw):
    """(result, the messages of the RuntimeWarnings f raised)."""
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        res = f(*a, **kw)
    return res, [str(w.message) for w in caught if issubclass(w.category, RuntimeWarning)]


# ---------------------------------------------------------------- SciPy's own cases
# scipy/stats/tests/test_stats.py (SciPy 1.17): the data and the numbers
# written there (R, MATLAB's documentation), not SciPy's output.

TESTCASE = [1., 2., 3., 4.]
MATHWORKS = [1.165, 0.6268, 0.0751, 0.3516, -0.6965]


def test_scipy_skewness_numbers():
    assert abs(nr.skew(np.array(MATHWORKS)) - -0.29322304336607) <= 1e-10
    assert abs(nr.skew(np.array(MATHWORKS), bias=0) - -0.437111105023940) <= 1e-10
    assert abs(nr.skew(np.array(TESTCASE))) <= 1e-10
    assert nr.skew(np.arange(10)) == 0.0  # test_skewness_scalar
    assert type(nr.skew(np.arange(10))) is np.float64


def test_scipy_kurtosis_numbers():
    close(nr.kurtosis(np.array(MATHWORKS), 0, fisher=0, bias=1), 2.1658856802973, 1e-7)
    close(nr.kurtosis(np.array(MATHWORKS), fisher=0, bias=0), 3.663542721189047, 1e-7)
    close(nr.kurtosis(np.array(TESTCASE), 0, 0), 1.64, 1e-7)
    x = np.arange(10.)
    x[8] = np.nan
    assert np.isnan(nr.kurtosis(x))
    assert type(nr.kurtosis([1, 2, 3])) is np.float64  # test_kurtosis_array_scalar


def test_scipy_moments_testcase():
    # TestMoments.test_moment: the central moments of [1, 2, 3, 4] (R)
    n, lo, hi, mean, m2, m3, m4 = seven(nr.reduce(nr.summary, np.array(TESTCASE)))
    assert (n, lo, hi, mean) == (4, 1, 4, 2.5)
    assert m2 / n == 1.25 and m3 == 0 and m4 / n == 2.5625


def test_scipy_nan_policy_cases():
    x = np.arange(10.)
    x[9] = np.nan
    assert np.isnan(nr.skew(x))
    assert nr.skew(x, nan_policy="omit") == 0.
    close(nr.kurtosis(x, nan_policy="omit"), -1.230000, 0, 1e-7)
    for f in (nr.skew, nr.kurtosis, nr.describe):
        with pytest.raises(ValueError, match="The input contains nan values"):
            f(x, nan_policy="raise")
        with pytest.raises(ValueError, match="nan_policy must be one of"):
            f(x, nan_policy="foobar")
    # TestDescribe.describe_nan_policy_omit_test
    n, mm, m, v, sk, kurt = nr.describe(x, nan_policy="omit")
    assert n == 9 and mm == (0.0, 8.0) and m == 4.0 and v == 7.5
    assert abs(sk) < 1e-6 and abs(kurt - -1.2300000000000002) < 1e-13
    # test_describe_nan_policy_other: propagate
    n, mm, m, v, sk, kurt = nr.describe(x, nan_policy="propagate")
    assert n == 10
    assert all(np.isnan(t) for t in (mm[0], mm[1], m, v, sk, kurt))


def test_scipy_propagate_nan_shapes():
    a = np.arange(8.).reshape(2, -1)
    a[1, 0] = np.nan
    np.testing.assert_array_equal(nr.skew(a, axis=1), [0, np.nan])
    np.testing.assert_allclose(nr.kurtosis(a, axis=1, nan_policy="propagate"), [-1.36, np.nan],
                               atol=1e-15)
    n, lo, hi, mean, m2, m3, m4 = seven(nr.reduce(nr.summary, a, axis=1))
    np.testing.assert_allclose(m2 / n, [1.25, np.nan], atol=1e-15)  # test_moment_propagate_nan


CONSTANT_CASES = [np.repeat(-0.27829495, 10), np.repeat(-0.27829495, 10) * 2.**50,
                  np.repeat(-0.27829495, 10) / 2.**50, np.array([14.3] * 7),
                  1. + np.arange(-3., 4) * 1e-16]


@pytest.mark.parametrize("a", CONSTANT_CASES, ids=range(len(CONSTANT_CASES)))
@pytest.mark.parametrize("f", [nr.skew, nr.kurtosis,
                               lambda a: nr.skew(a, bias=False),
                               lambda a: nr.kurtosis(a, fisher=False, bias=False)],
                         ids=["skew", "kurtosis", "skew-unbiased", "kurtosis-pearson-unbiased"])
def test_scipy_constant_input(a, f):
    """gh-16061, gh-11086: NaN with the precision-loss RuntimeWarning."""
    with pytest.warns(RuntimeWarning, match=PRECISION):
        r = f(a)
    assert np.isnan(r) and type(r) is np.float64


def test_scipy_precision_loss_gh15554():
    rng = np.random.default_rng(34095309370)
    a = rng.random(size=(100, 10))
    a[:, 0] = 1.01
    with pytest.warns(RuntimeWarning, match=PRECISION):
        r = nr.skew(a)
    assert np.isnan(r[0]) and np.all(np.isfinite(r[1:]))


def _precision_warned(f, *a, **kw):
    """Whether f(*a, **kw) warns of precision loss (other warnings ignored)."""
    with warnings.catch_warnings(record=True) as caught, np.errstate(all="ignore"):
        warnings.simplefilter("always")
        f(*a, **kw)
    return any(PRECISION in str(w.message) for w in caught)


PRECISION_CASES = [
    ("one element", np.array([3.0]), None), ("zeros", np.zeros(5), None),
    ("constant", np.full(5, 2.0), None), ("near-constant", 1. + np.arange(-3., 4) * 1e-16, None),
    ("rows of zeros", np.array([[0., 0., 0.], [1., 2., 3.]]), 1),
    ("a constant row", np.array([[2., 2., 2.], [1., 2., 3.]]), 1),
    ("float32 near-constant", np.float32(1) + np.arange(-2, 3, dtype=np.float32) * 1e-8, None),
    ("int64 beyond 2**53", np.array([[2**62 + 1, 2**62 + 3], [2**62 + 2, 7]], np.int64), 0),
    ("int64 beyond 2**53 rows", np.array([[2**62 + 1, 2**62 + 3], [2**62 + 2, 7]], np.int64), 1),
    ("NaN", np.array([1.0, np.nan, 1.0]), None),
] + [(f"bool {ax}", np.random.default_rng(3).random((37, 6)) < 0.3, ax) for ax in (0, 1, None)]


@pytest.mark.parametrize("case", PRECISION_CASES, ids=[c[0] for c in PRECISION_CASES])
def test_precision_warning_as_scipy(case):
    """The precision-loss RuntimeWarning where SciPy gives it (a constant
    or nearly constant slice of more than one element), not where it does
    not (one element, a slice of zeros, NaN data): describe, skew and
    kurtosis, against SciPy on the float64 copy of integer data."""
    _, a, axis = case
    ref = a.astype(np.float64) if a.dtype.kind in "biu" else a
    for f, g in ((nr.describe, stats.describe), (nr.skew, stats.skew),
                 (nr.kurtosis, stats.kurtosis)):
        assert _precision_warned(f, a, axis=axis) == _precision_warned(g, ref, axis=axis), f


def test_scipy_empty_1d():
    for f in (nr.skew, nr.kurtosis):
        with pytest.warns(RuntimeWarning, match=SMALL):
            r = f(np.asarray([]))
        assert np.isnan(r) and type(r) is np.float64
    with pytest.raises(ValueError, match="The input must not be empty."):
        nr.describe(np.asarray([]))


def _skewness(a, axis, bias):   # TestSkew.test_vectorization's naive implementation
    if axis is None:
        a, axis = a.reshape(-1), 0
    mean = np.mean(a, axis=axis, keepdims=True)
    res = np.mean((a - mean) ** 3, axis=axis) / np.std(a, axis=axis) ** 3
    if not bias:
        n = a.shape[axis]
        res *= ((n - 1.0) * n) ** 0.5 / (n - 2.0)
    return res


def _kurtosis(a, axis, bias, fisher):   # TestKurtosis.test_vectorization's
    if axis is None:
        a, axis = a.reshape(-1), 0
    mean = np.mean(a, axis=axis, keepdims=True)
    mu4 = np.mean((a - mean) ** 4, axis=axis)
    mu2 = np.var(a, axis=axis)
    if bias:
        res = mu4 / mu2 ** 2 - 3
    else:
        n = a.shape[axis]
        res = (n - 1) / ((n - 2) * (n - 3)) * ((n + 1) * mu4 / mu2 ** 2 - 3 * (n - 1))
    return res if fisher else res + 3


@pytest.mark.parametrize("axis", [-1, 0, 2, None])
@pytest.mark.parametrize("bias", [False, True])
def test_scipy_vectorization(axis, bias):
    rng = np.random.default_rng(1283413549926)
    x = rng.random((3, 4, 5))
    np.testing.assert_allclose(nr.skew(x, axis=axis, bias=bias), _skewness(x, axis, bias),
                               rtol=1e-12)
    x = rng.random((4, 5, 6))
    for fisher in (False, True):
        np.testing.assert_allclose(nr.kurtosis(x, axis=axis, bias=bias, fisher=fisher),
                                   _kurtosis(x, axis, bias, fisher), rtol=1e-12)


DESCRIBE_X = np.concatenate((np.ones((3, 4)), np.full((2, 4), 2.)))


def test_scipy_describe_numbers():
    skc, kurtc = 0.40824829046386357, -1.833333333333333
    for x, axis in ((DESCRIBE_X, 0), (DESCRIBE_X.T, 1)):
        n, mm, m, v, sk, kurt = nr.describe(x, axis=axis)
        assert n == 5 and type(n) is np.int64
        np.testing.assert_array_equal(mm[0], [1.] * 4)
        np.testing.assert_array_equal(mm[1], [2.] * 4)
        np.testing.assert_allclose(m, [1.4] * 4, rtol=4 * EPS)
        np.testing.assert_allclose(v, [0.3] * 4, rtol=4 * EPS)
        np.testing.assert_allclose(sk, [skc] * 4, rtol=1e-7)
        np.testing.assert_allclose(kurt, [kurtc] * 4, rtol=1e-7)
    # test_describe_ddof
    n, mm, m, v, sk, kurt = nr.describe(DESCRIBE_X, ddof=0)
    np.testing.assert_allclose(v, [0.24] * 4, rtol=1e-7)
    # test_describe_axis_none
    n, mm, m, v, sk, kurt = nr.describe(DESCRIBE_X, axis=None)
    assert n == 20 and mm == (1.0, 2.0)
    close(m, 1.3999999999999999, 1e-7)
    close(v, 0.25263157894736848, 1e-7)
    close(sk, 0.4082482904638634, 1e-7)
    close(kurt, -1.8333333333333333, 1e-7)


def test_scipy_describe_result_attributes():
    r = nr.describe(np.arange(5.))
    assert isinstance(r, nr.DescribeResult) and isinstance(r, tuple) and len(r) == 6
    assert r._fields == FIELDS == stats.describe(np.arange(5.))._fields
    for i, name in enumerate(FIELDS):
        assert getattr(r, name) is r[i]


def test_scipy_scalar_input():
    """test_describe_scalar, test_skewness / test_kurtosis's scalar case: a
    0-d input is a sample of one element (SciPy: nobs 1, the rest NaN)."""
    for a in (4., np.float64(4.), np.asarray(4.)):
        n, mm, m, v, sk, kurt = quiet(nr.describe, a)
        assert n == 1 and mm == (4.0, 4.0) and m == 4.0
        assert np.isnan(v) and np.isnan(sk) and np.isnan(kurt)
        assert np.isnan(quiet(nr.skew, a)) and np.isnan(quiet(nr.kurtosis, a))
    for axis in (0, -1, None):
        assert np.isnan(quiet(nr.skew, 4., axis=axis))
    r = quiet(nr.skew, np.float64(4.), keepdims=True)
    assert r.shape == quiet(stats.skew, np.float64(4.), keepdims=True).shape == (1,)
    with pytest.raises(np.exceptions.AxisError):
        nr.skew(4., axis=1)


# ---------------------------------------------------------------- scipy.stats on the same input

def _data(dtype, shape, seed=0):
    rng = np.random.default_rng(seed)
    dt = np.dtype(dtype)
    if dt.kind == "b":
        return rng.random(shape) < 0.3
    if dt.kind in "iu":
        info = np.iinfo(dt)
        return rng.integers(max(info.min, -100), min(info.max, 100), size=shape, endpoint=True
                            ).astype(dt)
    return (rng.standard_gamma(2.0, size=shape) * 3 - 2).astype(dt)


DTYPES = [np.bool_, np.int8, np.uint8, np.int16, np.uint16, np.int32, np.uint32, np.int64,
          np.uint64, np.float16, np.float32, np.float64, np.longdouble]


def _result_dtype(dt):
    dt = np.dtype(dt)
    return dt if dt.kind == "f" else np.dtype(np.float64)


def _expected(x, **kw):
    """SciPy's describe on the float64 copy (long double: on the data),
    its floating fields rounded to the result dtype; bool data: SciPy's
    variance of bool is inf (SciPy 1.17), the true variance of 0 and 1 is
    its variance of the float64 copy."""
    ref = x if x.dtype == np.longdouble else x.astype(np.float64)
    n, (lo, hi), m, v, sk, ku = sp_describe(ref, **kw)
    rdt = _result_dtype(x.dtype)
    return (n, np.asarray(lo).astype(x.dtype), np.asarray(hi).astype(x.dtype)) + tuple(
        np.asarray(t).astype(rdt) for t in (m, v, sk, ku))


def _tol(dt):
    dt = np.dtype(dt)
    if dt == np.float16:
        return 2e-3
    if dt == np.float32:
        return 4 * float(np.finfo(np.float32).eps)
    return 1e-12


@pytest.mark.parametrize("dtype", DTYPES, ids=lambda d: np.dtype(d).name)
@pytest.mark.parametrize("axis", [0, 1, -1, None])
def test_describe_against_scipy(dtype, axis):
    x = _data(dtype, (37, 6), seed=3)
    got = flat(nr.describe(x, axis=axis))
    want = _expected(x, axis=axis)
    rdt = _result_dtype(dtype)
    assert got[0].dtype == np.int64 and np.all(got[0] == want[0])
    for i, name in enumerate(("nobs", "min", "max", "mean", "variance", "skewness",
                              "kurtosis")):
        g, w = got[i], want[i]
        assert np.asarray(g).dtype == (np.int64 if i == 0 else x.dtype if i in (1, 2) else rdt), name
        assert np.shape(g) == np.shape(w), name
        if i in (1, 2):
            np.testing.assert_array_equal(g, w, err_msg=name)
        else:
            close(g, w, _tol(dtype), what=name)


@pytest.mark.parametrize("dtype", [np.int16, np.float32, np.float64, np.longdouble],
                         ids=lambda d: np.dtype(d).name)
@pytest.mark.parametrize("bias", [True, False])
@pytest.mark.parametrize("keepdims", [False, True])
@pytest.mark.parametrize("axis", [0, 1, 2, -1, None, (0, 2)])
def test_skew_kurtosis_against_scipy(dtype, bias, keepdims, axis):
    x = _data(dtype, (9, 4, 5), seed=5)
    ref = x if x.dtype == np.longdouble else x.astype(np.float64)
    rdt = _result_dtype(dtype)
    g = nr.skew(x, axis=axis, bias=bias, keepdims=keepdims)
    w = stats.skew(ref, axis=axis, bias=bias, keepdims=keepdims)
    assert np.asarray(g).dtype == rdt and np.shape(g) == np.shape(w) and type(g) is type(
        w.astype(rdt)[()] if np.ndim(w) == 0 else w)
    close(g, w, _tol(dtype))
    for fisher in (True, False):
        g = nr.kurtosis(x, axis=axis, fisher=fisher, bias=bias, keepdims=keepdims)
        w = stats.kurtosis(ref, axis=axis, fisher=fisher, bias=bias, keepdims=keepdims)
        assert np.asarray(g).dtype == rdt and np.shape(g) == np.shape(w)
        close(g, w, _tol(dtype))


@pytest.mark.parametrize("ddof", [0, 1, 2, 5])
def test_describe_ddof(ddof):
    x = _data(np.float64, (7, 3), seed=11)
    close(nr.describe(x, ddof=ddof).variance, stats.describe(x, ddof=ddof).variance, 1e-13)


@pytest.mark.parametrize("n", [1, 2, 3, 4, 5])
def test_small_samples_bias_false(n):
    """n < 3 (skewness) and n < 4 (kurtosis): SciPy leaves the biased value
    (its correction only where n > 2, n > 3); n = 1 is NaN."""
    x = np.array([3., 1., 4., 1., 5.][:n])
    for bias in (True, False):
        close(quiet(nr.skew, x, bias=bias), quiet(stats.skew, x, bias=bias), 1e-13, 1e-15)
        for fisher in (True, False):
            close(quiet(nr.kurtosis, x, bias=bias, fisher=fisher),
                  quiet(stats.kurtosis, x, bias=bias, fisher=fisher), 1e-13, 1e-15)
        got = flat(quiet(nr.describe, x, bias=bias))
        want = flat(sp_describe(x, bias=bias))
        for i, (g, w) in enumerate(zip(got, want)):
            close(g, w, 1e-13, 1e-15, what=str(i))


@pytest.mark.parametrize("nan_policy", ["propagate", "omit", "raise"])
@pytest.mark.parametrize("axis", [0, 1, None])
def test_nan_policy_2d(nan_policy, axis):
    x = _data(np.float64, (8, 5), seed=7)
    x[2, 1] = x[5, 3] = np.nan
    x[:, 4] = np.nan  # an all-NaN column
    if nan_policy == "raise":
        for f in (nr.describe, nr.skew, nr.kurtosis):
            with pytest.raises(ValueError, match="The input contains nan values"):
                f(x, axis=axis, nan_policy="raise")
        return
    got = flat(quiet(nr.describe, x, axis=axis, nan_policy=nan_policy))
    want = flat(sp_describe(x, axis=axis, nan_policy=nan_policy))
    np.testing.assert_array_equal(got[0], want[0])
    for i, name in zip(range(1, 7), ("min", "max", "mean", "variance", "skewness", "kurtosis")):
        close(got[i], want[i], 1e-13, 1e-14 if i > 4 else 0.0, what=name)
    for bias in (True, False):
        close(quiet(nr.skew, x, axis=axis, nan_policy=nan_policy, bias=bias),
              np.ma.filled(quiet(stats.skew, x, axis=axis, nan_policy=nan_policy, bias=bias),
                           np.nan), 1e-13, 1e-14)
        close(quiet(nr.kurtosis, x, axis=axis, nan_policy=nan_policy, bias=bias),
              np.ma.filled(quiet(stats.kurtosis, x, axis=axis, nan_policy=nan_policy,
                                 bias=bias), np.nan), 1e-13, 1e-14)


def test_nan_policy_raise_without_nan():
    """'raise' raises for a NaN only: data without one (integers, empty
    input, empty slices) give their values."""
    for f in (nr.skew, nr.kurtosis):
        np.testing.assert_array_equal(f(np.arange(5), nan_policy="raise"), f(np.arange(5)))
        with pytest.warns(RuntimeWarning, match=SMALL):
            assert np.isnan(f(np.asarray([]), nan_policy="raise"))
        with pytest.warns(RuntimeWarning, match=SMALL):
            r = f(np.zeros((0, 3)), nan_policy="raise")
        assert r.shape == (3,) and np.all(np.isnan(r))
        x = np.arange(12.).reshape(3, 4)
        m = np.ones((3, 4), bool)
        m[0] = False
        with pytest.warns(RuntimeWarning, match=SMALL):
            r = f(x, axis=1, where=m, nan_policy="raise")
        np.testing.assert_array_equal(np.isnan(r), [True, False, False])


def test_omit_all_nan_slice():
    """An all-NaN slice with nan_policy='omit': nobs 0, every statistic NaN
    (SciPy masks it) -- never a finite number."""
    x = np.array([[np.nan, np.nan, np.nan], [1., 2., 4.]])
    with pytest.warns(RuntimeWarning, match=SMALL):
        n, (lo, hi), m, v, sk, ku = nr.describe(x, axis=1, nan_policy="omit")
    np.testing.assert_array_equal(n, [0, 3])
    for t in (lo, hi, m, v, sk, ku):
        assert np.isnan(t[0]) and np.isfinite(t[1])
    ref = sp_describe(x, axis=1, nan_policy="omit")
    close(v, ref[3], 1e-14)
    for f in (nr.skew, nr.kurtosis):
        with pytest.warns(RuntimeWarning, match=SMALL):
            r = f(x, axis=1, nan_policy="omit")
        assert np.isnan(r[0]) and np.isfinite(r[1])


def test_empty_slices():
    for f in (nr.skew, nr.kurtosis):
        with pytest.warns(RuntimeWarning, match=SMALL):
            r = f(np.zeros((0, 3)))
        np.testing.assert_array_equal(r, quiet(stats.skew, np.zeros((0, 3))))
        assert f(np.zeros((3, 0))).shape == (0,) == f(np.zeros((0, 3)), axis=1).shape
    for a, axis in ((np.zeros((0, 3)), 1), (np.zeros((3, 0)), 0), (np.zeros((0, 0)), None)):
        with pytest.raises(ValueError, match="The input must not be empty."):
            nr.describe(a, axis=axis)


def test_keepdims_shapes():
    x = _data(np.float64, (3, 4, 5))
    for axis in (0, 1, 2, None, (0, 2)):
        for f in (nr.skew, nr.kurtosis):
            g = f(x, axis=axis, keepdims=True)
            w = getattr(stats, f.__name__)(x, axis=axis, keepdims=True)
            assert g.shape == w.shape
            close(g, w, 1e-12)


def test_lists_and_scalars_types():
    r = nr.describe([1, 2, 3, 10])
    w = stats.describe([1, 2, 3, 10])
    assert type(r.mean) is type(w.mean) is np.float64
    assert type(r.minmax[0]) is type(w.minmax[0])
    assert type(nr.skew([1., 2., 5.])) is np.float64
    assert isinstance(nr.skew(np.ones((2, 3)) * [[1], [2]]), np.ndarray)


# ---------------------------------------------------------------- accuracy (exact arithmetic)

def _errors(r, ex):
    """Relative errors of mean and variance, absolute of the (dimensionless)
    skewness and kurtosis."""
    mean, var, g1, g2 = ex
    return (abs(float(r[2]) - mean) / abs(mean) if mean else abs(float(r[2])),
            abs(float(r[3]) - var) / var,
            abs(float(r[4]) - g1), abs(float(r[5]) - g2))


def _slices(x, axis):
    """The 1-D float64 slices of x reduced along axis (None: all)."""
    if axis is None:
        return [np.ravel(x)], ()
    y = np.moveaxis(x, axis, -1)
    return list(y.reshape(-1, y.shape[-1])), y.shape[:-1]


def _check_accuracy(x, axis, limit=1e-9):
    got = flat(nr.describe(x, axis=axis))
    sp = flat(sp_describe(x, axis=axis))
    slices, shape = _slices(x, axis)
    for k, s in enumerate(slices):
        ex = exact_stats(s)
        if ex[2] is None:
            continue
        pick = lambda r: [np.ravel(v)[k] for v in r[2:]]  # noqa: E731
        mine = _errors([None, None] + pick(got[1:]), ex)
        theirs = _errors([None, None] + pick(sp[1:]), ex)
        for name, e, t in zip(("mean", "variance", "skewness", "kurtosis"), mine, theirs):
            assert e <= max(t, 16 * EPS), (name, k, e, t)
            assert e <= limit, (name, k, e)


@pytest.mark.parametrize("offset", [1e8, 1e12])
@pytest.mark.parametrize("n", [3, 4, 511, 512, 513, 1025, 5000])
def test_accuracy_offset_1d(offset, n):
    x = offset + np.random.default_rng(n).normal(size=n)
    _check_accuracy(x, 0, limit=1e-13)


@pytest.mark.parametrize("rows", [3, 63, 64, 65, 129, 600])
@pytest.mark.parametrize("layout", ["C-axis0", "C-axis1", "F-axis0", "strided-axis0"])
def test_accuracy_offset_2d(rows, layout):
    rng = np.random.default_rng(rows)
    x = 1e8 + rng.normal(size=(rows, 9)) * np.arange(1, 10)
    if layout == "C-axis1":
        x, axis = np.ascontiguousarray(x.T), 1
    elif layout == "F-axis0":
        x, axis = np.asfortranarray(x), 0
    elif layout == "strided-axis0":
        x, axis = np.repeat(x, 3, axis=0)[::3], 0
        assert not x.flags.c_contiguous
    else:
        axis = 0
    _check_accuracy(x, axis, limit=1e-12)


@pytest.mark.parametrize("n", [1, 2, 3, 4, 511, 512, 513, 1025, 5000])
def test_accuracy_strided_and_reversed(n):
    """1-D strided and reversed views of offset data: as accurate as the
    contiguous copy (and as SciPy)."""
    base = 1e12 + np.random.default_rng(n + 1).normal(size=3 * n)
    for x in (base[::3], base[::-3]):
        assert not x.flags.c_contiguous or n == 1
        if n == 1:
            r = quiet(nr.describe, x)
            assert r.mean == x[0] and np.isnan(r.variance) and np.isnan(r.skewness)
            continue
        _check_accuracy(x, 0, limit=1e-9)


@pytest.mark.parametrize("dtype", [np.float32, np.int32, np.int64, np.uint16])
@pytest.mark.parametrize("n", [5, 513, 5000])
def test_accuracy_narrow_and_integer_data(dtype, n):
    """float32 and integer data are summed in float64: the statistics of the
    data's exact values, rounded to the result dtype (a few of its ulps)."""
    rng = np.random.default_rng(n)
    if dtype == np.float32:
        x = (1e4 + rng.normal(size=n)).astype(np.float32)
    elif dtype == np.uint16:
        x = rng.integers(60000, 65535, size=n).astype(dtype)
    else:
        x = (10**6 + rng.integers(-1000, 1000, size=n) ** 2).astype(dtype)
    r = nr.describe(x)
    ex = exact_stats(x)
    rdt = _result_dtype(dtype)
    eps = float(np.finfo(rdt).eps)
    for g, e, name in zip(r[2:], ex, ("mean", "variance", "skewness", "kurtosis")):
        assert g.dtype == rdt
        # float32: the float64 value rounded once (half an ulp, plus a few
        # float64 ulps of the kurtosis' sums); float64: a few ulps
        k = 1 if rdt == np.float32 else 64 if name in ("skewness", "kurtosis") else 8
        assert abs(float(g) - e) <= k * eps * max(abs(e), 1.0), (name, g, e)
    assert r.minmax == (x.min(), x.max())


def test_float32_matches_float64_scipy_rounded():
    """float32 data: numreduce equals SciPy on the float64 copy rounded to
    float32 (within 2 float32 ulps), not SciPy's float32 arithmetic."""
    x = (1e3 + np.random.default_rng(9).normal(size=(4000, 3))).astype(np.float32)
    got = nr.describe(x)
    want = sp_describe(x.astype(np.float64))
    for g, w in zip(got[2:], want[2:]):
        assert g.dtype == np.float32
        np.testing.assert_allclose(g, np.asarray(w).astype(np.float32), rtol=2.4e-7, atol=1e-7)


# ---------------------------------------------------------------- hypothesis

HYP_DTYPES = [np.bool_, np.int8, np.uint8, np.int16, np.uint16, np.int32, np.uint32, np.int64,
              np.uint64, np.float16, np.float32, np.float64, np.longdouble]


def _elements(dt):
    dt = np.dtype(dt)
    if dt.kind == "f":
        # a grid of quarters: sums exact in every dtype, no near-constant
        # slice whose digits SciPy itself loses
        return st.integers(-40, 40).map(lambda i: i / 4)
    if dt.kind in "iu":
        info = np.iinfo(dt)
        return st.integers(max(info.min, -100), min(info.max, 100))
    return st.booleans()


@st.composite
def hyp_case(draw):
    dt = np.dtype(draw(st.sampled_from(HYP_DTYPES)))
    shape = draw(hnp.array_shapes(min_dims=1, max_dims=3, min_side=1, max_side=7))
    x = draw(hnp.arrays(dt, shape, elements=_elements(dt)))
    nan_policy = "propagate"
    if dt.kind == "f":
        if draw(st.booleans()):
            nanmask = draw(hnp.arrays(np.bool_, shape))
            x[nanmask] = np.nan
        nan_policy = draw(st.sampled_from(["propagate", "omit", "raise"]))
    axis = draw(st.one_of(st.none(), st.integers(-x.ndim, x.ndim - 1)))
    where = draw(st.one_of(st.just(True), hnp.arrays(np.bool_, shape)))
    view = draw(st.sampled_from(["plain", "reversed", "transposed", "strided"]))
    if view == "reversed":
        x = x[::-1]
        where = where if where is True else where[::-1]
    elif view == "transposed":
        x = x.T
        where = where if where is True else where.T
        axis = None if axis is None else x.ndim - 1 - (axis % x.ndim)
    elif view == "strided":
        x = np.repeat(x, 2, axis=0)[::2]
    bias = draw(st.booleans())
    return x, axis, where, nan_policy, bias


def _ref_slices(x, axis, where, nan_policy, bias):
    """Per slice: (nobs, min, max, mean, var, skew, kurt) from SciPy on the
    selected elements' float64 copy (the true variance of bool data)."""
    w = np.broadcast_to(np.asarray(where, bool), x.shape)
    ref = x if x.dtype == np.longdouble else x.astype(np.float64)
    slices, shape = _slices(ref, axis)
    masks, _ = _slices(w, axis)
    rows = []
    for s, m in zip(slices, masks):
        s = s[m]
        if nan_policy == "omit":
            s = s[~np.isnan(s)]
        if s.size == 0:
            rows.append((0,) + (np.nan,) * 6)
            continue
        r = flat(sp_describe(s, bias=bias))
        rows.append(tuple(float(v) for v in r))
    return [np.array([r[i] for r in rows]).reshape(shape) for i in range(7)]


@settings(max_examples=60, deadline=None)
@given(case=hyp_case())
def test_hypothesis_against_scipy(case):
    x, axis, where, nan_policy, bias = case
    refs = _ref_slices(x, axis, where, nan_policy, bias)
    empty_int = x.dtype.kind in "biu" and np.any(refs[0] == 0)
    if nan_policy == "raise" and np.any(np.isnan(x) & np.broadcast_to(where, x.shape)):
        with pytest.raises(ValueError, match="The input contains nan values"):
            quiet(nr.skew, x, axis=axis, where=where, nan_policy="raise")
        return
    rdt = _result_dtype(x.dtype)
    tol = {np.float16: 4e-3, np.float32: 1e-6}.get(x.dtype.type, 1e-11)
    for f, i in ((nr.skew, 5), (nr.kurtosis, 6)):
        g = quiet(f, x, axis=axis, where=where, nan_policy=nan_policy, bias=bias)
        assert np.asarray(g).dtype == rdt and np.shape(g) == refs[i].shape
        close(g, refs[i], tol, tol, what=f.__name__)
    if empty_int:
        # integer data have no NaN for the extremes of an empty slice
        with pytest.raises(ValueError):
            quiet(nr.describe, x, axis=axis, where=where, nan_policy=nan_policy, bias=bias)
        return
    got = flat(quiet(nr.describe, x, axis=axis, where=where, nan_policy=nan_policy, bias=bias))
    np.testing.assert_array_equal(np.broadcast_to(got[0], refs[0].shape), refs[0])
    for i in (1, 2):
        assert got[i].dtype == x.dtype
        np.testing.assert_array_equal(np.asarray(got[i]).astype(np.float64),
                                      refs[i].astype(np.float64))
    for i in (3, 4):
        assert np.asarray(got[i]).dtype == rdt
        close(got[i], refs[i], tol, tol, what=FIELDS[i - 1])


# ---------------------------------------------------------------- degenerate inputs

def test_inf_data():
    for data in ([1., 2., np.inf], [1., -np.inf, 3.], [1., -np.inf, np.inf, 3.]):
        x = np.array(data)
        n, (lo, hi), m, v, sk, ku = quiet(nr.describe, x)
        w = sp_describe(x)
        assert (lo, hi) == (np.min(x), np.max(x))
        np.testing.assert_array_equal([m], [np.mean(x)])  # inf, -inf or NaN
        assert np.isnan(v) and np.isnan(sk) and np.isnan(ku)
        assert np.isnan(w[3]) and np.isnan(w[4]) and np.isnan(w[5])
        assert np.isnan(quiet(nr.skew, x)) and np.isnan(quiet(nr.kurtosis, x))
        # in a block of 512 and past it, and in the rows path over axis 0
        big = np.tile(np.r_[x, np.arange(200.)], 5)
        assert np.isnan(quiet(nr.skew, big))
        col = np.tile(big[:, None], (1, 3))
        r = quiet(nr.describe, col, axis=0)
        np.testing.assert_array_equal(r.mean, np.full(3, np.mean(big)))
        assert np.all(np.isnan(r.variance)) and np.all(np.isnan(r.kurtosis))


def test_nan_propagates_everywhere():
    for n in (5, 600):
        x = np.arange(float(n))
        x[n // 2] = np.nan
        r = quiet(nr.describe, x)
        assert r.nobs == n
        assert all(np.isnan(t) for t in flat(r)[1:])
        col = np.tile(x[:, None], (1, 4))
        r = quiet(nr.describe, col, axis=0)
        assert all(np.all(np.isnan(t)) for t in flat(r)[1:])


def test_huge_spread_is_never_a_finite_wrong_number():
    """Values 1e200 apart: M2 overflows.  The variance is inf (its true value
    is past the range), skewness and kurtosis NaN as SciPy's; the mean is
    within eps * max|x| of the exact mean (its terms cancel)."""
    for n in (3, 9, 1000):
        x = np.resize([1e200, -1e200, 3.0, 5e199], n)
        r = quiet(nr.describe, x)
        w = sp_describe(x)
        assert r.minmax == (x.min(), x.max())
        assert r.variance == np.inf == w[3]
        assert np.isnan(r.skewness) and np.isnan(r.kurtosis)
        assert np.isnan(w[4]) and np.isnan(w[5])
        ex = exact_moments(x)[1]
        assert abs(r.mean - float(ex)) <= 8 * n * EPS * 1e200
        for f in (nr.skew, nr.kurtosis):
            assert np.isnan(quiet(f, x))
        col = np.tile(x[:, None], (1, 2))
        rc = quiet(nr.describe, col, axis=0)
        assert np.all(rc.variance == np.inf) and np.all(np.isnan(rc.skewness))


def test_spread_past_the_range_every_path():
    """Finite data further apart than the largest double (traits/summary.hpp:
    'give M2 = M4 = +inf and M3 = NaN with a finite mean'), on every path:
    the exact mean of -1.7e308 x 200 and 1.7e308 x 500 is 7.2857e307."""
    col = np.where(np.arange(700) < 200, -1.7e308, 1.7e308)
    mean = float(exact_moments(col)[1])
    X = np.tile(col[:, None], (1, 3))
    paths = {"1-D": seven(nr.reduce(nr.summary, col)),
             "rows": seven(tuple(r[0] for r in nr.reduce(nr.summary, X, axis=0))),
             "trailing": seven(tuple(r[0] for r in nr.reduce(nr.summary, X.T.copy(), axis=1))),
             "strided": seven(nr.reduce(nr.summary, np.repeat(col, 2)[::2]))}
    for name, (n, lo, hi, m, m2, m3, m4) in paths.items():
        assert (n, lo, hi) == (700, -1.7e308, 1.7e308), name
        assert abs(m - mean) <= 1e-13 * mean, (name, m)
        assert m2 == np.inf and m4 == np.inf and np.isnan(m3), (name, m2, m3, m4)


def test_large_values_finite_moments():
    """1e150-scale data: M2 finite, M4 overflows -- the kurtosis is then
    lost (inf / inf), never a finite wrong number; SciPy the same."""
    x = np.array([1e150, -1e150, 2e150, 0.0, 3e150])
    r = quiet(nr.describe, x)
    ex = exact_stats(x)
    close(r.variance, ex[1], 1e-14)
    assert np.isnan(r.kurtosis) or abs(r.kurtosis - ex[3]) < 1e-12
    assert np.isnan(r.skewness) or abs(r.skewness - ex[2]) < 1e-12


def test_int64_beyond_2_53():
    x = np.array([2**62 + 1, 2**62 + 3, 5, -2**63, 2**63 - 1], np.int64)
    r = nr.describe(x)
    assert r.minmax == (np.int64(-2**63), np.int64(2**63 - 1))
    assert r.minmax[0].dtype == np.int64
    u = np.array([2**64 - 1, 2**64 - 2, 2**53 + 1], np.uint64)
    r = nr.describe(u)
    assert r.minmax == (np.uint64(2**53 + 1), np.uint64(2**64 - 1))
    # the rows path and axis=1 too
    m = np.array([[2**62 + 1, 2**62 + 3], [2**62 + 2, 7]], np.int64)
    for axis in (0, 1, None):
        if axis is None:
            lo, hi = nr.describe(m, axis=axis).minmax
        else:  # a pair equal in float64 (2**62 + 1, 2**62 + 3): as SciPy, a warning
            with pytest.warns(RuntimeWarning, match=PRECISION):
                lo, hi = nr.describe(m, axis=axis).minmax
        np.testing.assert_array_equal(lo, m.min(axis=axis))
        np.testing.assert_array_equal(hi, m.max(axis=axis))


def test_int64_where():
    """64-bit integers with where=: the exact extremes of the selected
    elements (their second pass takes the mask too)."""
    x = np.array([[2**62 + 1, 2**62 + 3, 9], [5, -2**63, 2**63 - 1]], np.int64)
    m = np.array([[True, False, True], [True, True, False]])
    r = nr.describe(x, axis=1, where=m)
    np.testing.assert_array_equal(r.minmax[0], [9, -2**63])
    np.testing.assert_array_equal(r.minmax[1], [2**62 + 1, 5])
    np.testing.assert_array_equal(r.nobs, [2, 2])
    close(r.mean, [(2**62 + 10) / 2, (5 - 2**63) / 2], 1e-15)


@pytest.mark.parametrize("dtype", [np.bool_, np.int8, np.int32, np.uint8, np.int64, np.uint64])
def test_integer_where_empty_slice_refused(dtype):
    """An integer slice emptied by where= has no minimum or maximum (no NaN
    in the dtype): ValueError, as np.min(where=) without initial -- never a
    made-up extreme."""
    x = np.arange(12).reshape(3, 4).astype(dtype)
    m = np.ones((3, 4), bool)
    m[:, 0] = False
    with pytest.raises(ValueError):
        quiet(nr.describe, x, axis=0, where=m)
    # skew and kurtosis (float results) give NaN for that slice
    r = quiet(nr.skew, x, axis=0, where=m)
    assert np.isnan(r[0]) and np.all(np.isfinite(r[1:]) | (dtype == np.bool_))


def test_where_float_empty_slice():
    x = np.arange(12.).reshape(3, 4)
    m = np.ones((3, 4), bool)
    m[0] = False
    with pytest.warns(RuntimeWarning, match=SMALL):
        r = nr.describe(x, axis=1, where=m)
    np.testing.assert_array_equal(r.nobs, [0, 4, 4])
    for t in flat(r)[1:]:
        assert np.isnan(t[0]) and np.all(np.isfinite(t[1:]))


def test_bool_true_variance():
    """SciPy 1.17's variance of bool data is inf (a SciPy bug: its
    arithmetic in bool); numreduce's is that of 0 and 1."""
    x = np.array([True, False, True, True, False, True, True])
    r = nr.describe(x)
    f = x.astype(np.float64)
    assert r.minmax == (False, True) and r.minmax[0].dtype == np.bool_
    close(r.mean, np.mean(f), 1e-15)
    close(r.variance, np.var(f, ddof=1), 1e-15)
    ex = exact_stats(f)
    close(r.skewness, ex[2], 1e-14)
    close(r.kurtosis, ex[3], 1e-14)
    close(nr.skew(x), ex[2], 1e-14)


def test_float16():
    x = np.array([1, 2, 3, 5, 8, 13, 21, 34], np.float16)
    r = nr.describe(x)
    assert all(t.dtype == np.float16 for t in flat(r)[1:])
    ex = exact_stats(x)
    for g, e in zip(r[2:], ex):
        assert float(g) == float(np.float16(e))  # the float64 value, rounded once
    # float16 data whose sum overflows float16 (65504): summed in float64;
    # a variance past float16's range is inf
    y = np.full(100, 60000, np.float16)
    y[::2] = 50000
    with pytest.warns(RuntimeWarning, match="overflow encountered in cast"):
        r = nr.describe(y)  # (NumPy's warning for the variance's cast to float16)
    f = y.astype(np.float64)
    assert r.mean == np.float16(np.mean(f)) and np.isfinite(np.mean(y, dtype=np.float64))
    with np.errstate(over="ignore"):
        assert r.variance == np.float16(np.var(f, ddof=1)) == np.inf
    assert r.skewness == 0 and r.kurtosis == -2


def test_longdouble():
    x = (np.longdouble(1) / 3 + np.arange(50, dtype=np.longdouble)) ** 2
    r = nr.describe(x)
    w = stats.describe(x)
    for g, v in zip(r[2:], w[2:]):
        assert g.dtype == np.longdouble
        assert abs(g - v) <= 64 * np.finfo(np.longdouble).eps * max(abs(v), 1)


# ---------------------------------------------------------------- bad input

@pytest.mark.parametrize("a", [np.array([1 + 2j, 3]), np.array(["2001-01-01"], "M8[D]"),
                               np.array([1, 2], "m8[s]"), np.array([1, 2], object),
                               np.array(["a", "b"])], ids=["complex", "datetime", "timedelta",
                                                           "object", "str"])
@pytest.mark.parametrize("f", [nr.describe, nr.skew, nr.kurtosis],
                         ids=["describe", "skew", "kurtosis"])
def test_unsupported_dtypes(f, a):
    with pytest.raises(TypeError, match=f.__name__):
        f(a)


@pytest.mark.parametrize("f", [nr.describe, nr.skew, nr.kurtosis],
                         ids=["describe", "skew", "kurtosis"])
def test_bad_arguments(f):
    x = np.arange(6.).reshape(2, 3)
    for bad in ("foobar", None, 1, "Omit"):
        with pytest.raises(ValueError, match="nan_policy must be one of"):
            f(x, nan_policy=bad)
    for axis in (2, -3):
        with pytest.raises(np.exceptions.AxisError):
            f(x, axis=axis)
    with pytest.raises(TypeError):
        f(x, axis=1.0)
    with pytest.raises(ValueError):
        f(x, axis=(0, 0))
    with pytest.raises(ValueError):
        f(x, where=np.ones(4, bool))


@pytest.mark.parametrize("f", [nr.describe, nr.skew, nr.kurtosis],
                         ids=["describe", "skew", "kurtosis"])
def test_masked_arrays_refused(f):
    m = np.ma.array([1., 2., 3., 7.], mask=[0, 1, 0, 0])
    with pytest.raises(TypeError, match="where="):
        f(m)
    # ... and what the message says to pass gives the masked statistic
    got = f(np.ma.getdata(m), where=~np.ma.getmaskarray(m))
    want = getattr(stats, f.__name__)(m.compressed())
    if f is nr.describe:
        got, want = flat(got), flat(want)
        for g, w in zip(got, want):
            close(g, w, 1e-14)
    else:
        close(got, want, 1e-14)


def test_bad_ddof():
    with pytest.raises(TypeError):
        nr.describe(np.arange(4.), ddof="1")


# ---------------------------------------------------------------- dask

def test_dask_matches_numpy():
    da = pytest.importorskip("dask.array", reason="dask is not installed")
    dask = pytest.importorskip("dask", reason="dask is not installed")
    # (a moderate offset: the chunks' summaries merge with their means
    # rounded at the data's magnitude, see test_dask_offset_accuracy)
    a = 10 + np.random.default_rng(4).normal(size=(101, 23)) * np.arange(1, 24)
    a[7, 3] = np.nan
    x = da.from_array(a, chunks=(17, 6))  # chunks along and across both axes
    for axis in (0, 1, None):
        for nan_policy in ("propagate", "omit"):
            want = flat(nr.describe(a, axis=axis, nan_policy=nan_policy))
            got = nr.describe(x, axis=axis, nan_policy=nan_policy)
            lazy = flat(got)
            assert any(isinstance(t, da.Array) for t in lazy)
            done = dask.compute(*lazy)
            for g, w in zip(done, want):
                # (atol: a skewness near 0 has a relative error magnified)
                np.testing.assert_allclose(g, w, rtol=1e-12, atol=1e-13, equal_nan=True)
                assert np.asarray(g).dtype == np.asarray(w).dtype
            for f in (nr.skew, nr.kurtosis):
                for bias in (True, False):
                    g = f(x, axis=axis, nan_policy=nan_policy, bias=bias)
                    assert isinstance(g, da.Array)
                    np.testing.assert_allclose(
                        g.compute(), f(a, axis=axis, nan_policy=nan_policy, bias=bias),
                        rtol=1e-12, atol=1e-13, equal_nan=True)


def test_dask_one_graph():
    da = pytest.importorskip("dask.array", reason="dask is not installed")
    a = np.random.default_rng(5).random((40, 30))
    calls = []

    def source(block):
        calls.append(1)
        return block

    x = da.from_array(a, chunks=(10, 7)).map_blocks(source, meta=np.empty((0, 0)))
    r = nr.describe(x, axis=0)
    assert calls == []  # lazy
    import dask
    res = dask.compute(*flat(r)[1:], scheduler="synchronous")
    assert len(calls) == x.npartitions  # each chunk read once, for every field
    for g, w in zip(res, flat(nr.describe(a, axis=0))[1:]):
        np.testing.assert_allclose(g, w, rtol=1e-13)


def test_dask_offset_accuracy():
    """Offset data through Dask (1-D chunks, each summarised contiguously):
    no less accurate than SciPy against exact arithmetic (the chunks'
    summaries must merge in a frame, as the moments' do: merging means
    rounded at the data's magnitude loses digits of the variance)."""
    da = pytest.importorskip("dask.array", reason="dask is not installed")
    a = 1e8 + np.random.default_rng(4).normal(size=4000)
    ex = exact_stats(a)
    got = [float(v.compute()) if hasattr(v, "compute") else float(v)
           for v in nr.describe(da.from_array(a, chunks=1000))[2:]]
    theirs = sp_describe(a)[2:]
    for name, g, t, e in zip(("mean", "variance", "skewness", "kurtosis"), got, theirs, ex):
        rel = abs(e) if name in ("mean", "variance") else 1.0
        assert abs(g - e) / rel <= max(abs(float(t) - e) / rel, 16 * EPS), (name, g, e)


# ---------------------------------------------------------------- the summary ufunc

def ref_summary(s, skip_nan=False):
    """(count, min, max, mean, M2, M3, M4) of one 1-D slice, straight
    float64 (two-pass); the empty summary (0, NaN, NaN, 0, 0, 0, 0)."""
    s = np.asarray(s, dtype=np.float64)
    if skip_nan:
        s = s[~np.isnan(s)]
    if s.size == 0:
        return (0.0, np.nan, np.nan, 0.0, 0.0, 0.0, 0.0)
    m = np.mean(s)
    d = s - m
    return (float(s.size), np.min(s), np.max(s), m, np.sum(d ** 2), np.sum(d ** 3),
            np.sum(d ** 4))


def seven(st):
    """(n, min, max, mean, M2, M3, M4) of the summary's outputs (n, min,
    max, K, m, M2, M3, M4): the mean K + m (K where m is 0)."""
    n, lo, hi, K, m, m2, m3, m4 = st
    return n, lo, hi, np.where(np.asarray(m) == 0, K, np.add(K, m)), m2, m3, m4


def assert_summary(got, want, what=""):
    """Count exact, extremes exact, the moments to a tolerance of their scale."""
    got = seven(got) if len(got) == 8 else got
    got = [np.asarray(g, dtype=np.float64) for g in got]
    want = [np.asarray(w, dtype=np.float64) for w in want]
    assert len(got) == 7
    np.testing.assert_array_equal(got[0], want[0], err_msg=what)
    np.testing.assert_array_equal(got[1], want[1], err_msg=what)
    np.testing.assert_array_equal(got[2], want[2], err_msg=what)
    n = np.maximum(want[0], 1)
    spread = np.where(np.isfinite(want[2] - want[1]), want[2] - want[1], 0)
    big = np.maximum(np.abs(np.nan_to_num(want[1])), np.abs(np.nan_to_num(want[2])))
    close(got[3], want[3], 1e-13, 1e-13 * big, what + " mean")
    for k in (2, 3, 4):
        close(got[2 + k], want[2 + k], 1e-10, 1e-10 * n * spread ** k, what + f" M{k}")


def ref_reduce(x, axis, skip_nan=False, where=True, keepdims=False):
    w = np.broadcast_to(np.asarray(where, bool), x.shape)
    slices, shape = _slices(x.astype(np.float64), axis)
    masks, _ = _slices(w, axis)
    rows = [ref_summary(s[m], skip_nan) for s, m in zip(slices, masks)]
    out = [np.array([r[i] for r in rows]).reshape(shape) for i in range(7)]
    if keepdims:
        ks = tuple(1 if axis is None or i == axis % x.ndim else n for i, n in enumerate(x.shape))
        out = [o.reshape(ks) for o in out]
    return out


SUMMARY_DATA = 1e3 + np.random.default_rng(12).normal(size=(70, 9)) * 10


@pytest.mark.parametrize("u", [nr.summary, nr.nansummary], ids=["summary", "nansummary"])
@pytest.mark.parametrize("axis", [0, 1, None])
@pytest.mark.parametrize("keepdims", [False, True])
def test_summary_reduce(u, axis, keepdims):
    x = SUMMARY_DATA.copy()
    x[3, 4] = np.nan
    skip = u is nr.nansummary
    got = nr.reduce(u, x, axis=axis, keepdims=keepdims)
    assert all(g.dtype == np.float64 for g in got)
    assert_summary(got, ref_reduce(x, axis, skip, keepdims=keepdims))
    # where=, and out=
    m = np.random.default_rng(1).random(x.shape) < 0.7
    m[:, 2] = False
    m[5] = False
    got = nr.reduce(u, x, axis=axis, where=m)
    assert_summary(got, ref_reduce(x, axis, skip, where=m))
    want = nr.reduce(u, x, axis=axis)
    outs = tuple(np.full(np.shape(want[0]), 7.25) for _ in range(8))
    res = nr.reduce(u, x, axis=axis, out=outs)
    assert all(r is o for r, o in zip(res, outs)) or axis is None
    assert_summary(outs, ref_reduce(x, axis, skip))  # (another path: may differ by an ulp)


@pytest.mark.parametrize("dtype", [np.bool_, np.int8, np.uint32, np.int64, np.float16,
                                   np.float32, np.float64], ids=lambda d: np.dtype(d).name)
def test_summary_dtypes(dtype):
    x = _data(dtype, (130, 5), seed=2)
    for axis in (0, 1, None):
        got = nr.reduce(nr.summary, x, axis=axis)
        assert all(g.dtype == np.float64 for g in got)
        assert_summary(got, ref_reduce(x, axis), np.dtype(dtype).name)
    got = nr.reduce(nr.summary, x.astype(np.longdouble), axis=0)
    assert all(g.dtype == np.longdouble for g in got)


def test_summary_empty_reduction_is_the_initial():
    for dt in (np.float64, np.int8, np.float32):
        got = nr.reduce(nr.summary, np.zeros((0, 3), dt), axis=0)
        for g, w in zip(got, (0, np.nan, np.nan, 0, 0, 0, 0, 0)):
            np.testing.assert_array_equal(g, np.full(3, w))
    got = nr.reduce(nr.nansummary, np.full((4, 2), np.nan), axis=0)
    for g, w in zip(got, (0, np.nan, np.nan, 0, 0, 0, 0, 0)):
        np.testing.assert_array_equal(g, np.full(2, w))


def test_summary_elementwise_is_the_reduction_of_the_pair():
    rng = np.random.default_rng(3)
    x1, x2 = rng.normal(size=50) * 5, rng.normal(size=50) * 5 + 1e6
    got = nr.summary(x1, x2)
    want = nr.reduce(nr.summary, np.stack([x1, x2]), axis=0)
    for i, (g, w) in enumerate(zip(got, want)):
        # (M3 of two values is 0 exactly; computed, a rounding of d**3)
        atol = 16 * EPS * np.max(want[5]) ** 1.5 if i == 6 else 0
        np.testing.assert_allclose(g, w, rtol=4 * EPS, atol=atol, err_msg=str(i))
    assert_summary(got, ref_reduce(np.stack([x1, x2]), 0))
    # NaN: propagating, skipped
    got = nr.summary(np.nan, 2.0)
    assert got[0] == 2 and all(np.isnan(g) for g in seven(got)[1:])
    assert nr.nansummary(np.nan, 2.0) == (1.0, 2.0, 2.0, 2.0, 0.0, 0.0, 0.0, 0.0)
    assert nr.nansummary(np.nan, np.nan)[0] == 0
    with pytest.raises(TypeError):
        nr.nansummary(np.array([1, 2]), 3)  # float loops only (as nanmoments)
    with pytest.raises(TypeError):
        nr.summary(np.array([1 + 1j]), 1.0)


@pytest.mark.parametrize("u", [nr.summary, nr.nansummary], ids=["summary", "nansummary"])
def test_summary_accumulate(u):
    x = 100 + np.random.default_rng(6).normal(size=(40, 3))
    x[5, 1] = np.nan
    skip = u is nr.nansummary
    got = nr.accumulate(u, x, axis=0)
    assert all(g.shape == x.shape for g in got)
    for i in range(x.shape[0]):
        assert_summary([g[i] for g in got], ref_reduce(x[:i + 1], 0, skip), f"prefix {i}")


@pytest.mark.parametrize("u", [nr.summary, nr.nansummary], ids=["summary", "nansummary"])
def test_summary_reduceat_segments_groups(u):
    x = 1e4 + np.random.default_rng(8).normal(size=1100)
    x[17] = np.nan
    skip = u is nr.nansummary
    idx = [0, 5, 300, 299, 1099]
    got = nr.reduceat(u, x, idx)
    bounds = [(a, b if b > a else a + 1) for a, b in zip(idx, idx[1:] + [len(x)])]
    want = [ref_summary(x[a:b], skip) for a, b in bounds]
    assert_summary(got, [np.array([w[i] for w in want]) for i in range(7)], "reduceat")
    starts, stops = [0, 10, 600, 3, 40], [1100, 520, 600, 4, 40 + 513]
    got = nr.segmented_reduce(u, x, starts, stops)
    want = [ref_summary(x[a:b], skip) for a, b in zip(starts, stops)]
    assert_summary(got, [np.array([w[i] for w in want]) for i in range(7)], "segments")
    ids = np.random.default_rng(9).integers(0, 5, size=x.size)
    got = nr.reduce_by_group(u, x, ids, 6)  # group 5 is empty: the initial summary
    want = [ref_summary(x[ids == g], skip) for g in range(6)]
    assert_summary(got, [np.array([w[i] for w in want]) for i in range(7)], "groups")
    # at: in place, from the empty summaries
    outs = nr.reduce(u, np.zeros((6, 0)), axis=1)
    nr.at(u, outs, ids, x)
    assert_summary(outs, [np.array([w[i] for w in want]) for i in range(7)], "at")


@pytest.mark.parametrize("u", [nr.summary, nr.nansummary], ids=["summary", "nansummary"])
@pytest.mark.parametrize("k", [0, 1, 7, 256, 511, 512, 900])
def test_summary_merge_halves(u, k):
    """Merging the summaries of two halves (Pebay) equals the summary of
    the whole, to ~1e-12 of each moment's scale (data whose mean is not far
    larger than their spread: merged states carry their means rounded at
    the data's magnitude, docs/accuracy.md)."""
    x = 10 + np.random.default_rng(k).normal(size=(1000, 3)) * [1, 10, 1e3]
    x[:, 2] = np.random.default_rng(k).standard_gamma(1.5, size=1000)  # skewed
    if u is nr.nansummary:
        x[::97, 1] = np.nan
    a = nr.reduce(u, x[:k], axis=0)
    b = nr.reduce(u, x[k:], axis=0)
    merged8, whole8 = nr.merge(u, a, b), nr.reduce(u, x, axis=0)
    merged, whole = seven(merged8), seven(whole8)
    for i in (0, 1, 2):
        np.testing.assert_array_equal(merged[i], whole[i])
    n, m2 = whole[0], whole[4]
    for i, p in ((3, 1), (4, 2), (5, 3), (6, 4)):
        scale = np.abs(whole[3]) if i == 3 else n * (m2 / n) ** (p / 2)
        assert np.all(np.abs(merged[i] - whole[i]) <= 1e-12 * scale), (i, merged[i], whole[i])
    assert_summary(merged, ref_reduce(x, 0, u is nr.nansummary))
    # in either order, and with the empty summary
    rev = seven(nr.merge(u, b, a))
    for i in range(7):
        np.testing.assert_allclose(rev[i], merged[i], rtol=1e-12)
    empty = nr.reduce(u, x[:0], axis=0)
    for g, w in zip(nr.merge(u, whole8, empty), whole8):
        np.testing.assert_array_equal(g, w)
    for g, w in zip(nr.merge(u, empty, whole8), whole8):
        np.testing.assert_array_equal(g, w)


def test_summary_merge_exact():
    """Pebay's merge of two parts against the exact central moments:
    within a few ulps of each moment's scale times the condition number
    1 + mean**2 / var (the parts' means are rounded at the data's
    magnitude)."""
    x = 100 + np.random.default_rng(10).normal(size=2001)
    merged = seven(nr.merge(nr.summary, nr.reduce(nr.summary, x[:700]),
                            nr.reduce(nr.summary, x[700:])))
    n, mean, M2, M3, M4 = exact_moments(x)
    cond = 1 + float(mean) ** 2 / float(M2 / n)
    assert merged[0] == n
    assert abs(merged[3] - float(mean)) <= 2 * EPS * float(mean)
    for got, want, p in ((merged[4], M2, 2), (merged[5], M3, 3), (merged[6], M4, 4)):
        scale = n * float(M2 / n) ** (p / 2)
        assert abs(got - float(want)) <= 16 * EPS * cond * scale, (p, got, float(want))


# ---------------------------------------------------------------------------
# weights=: frequency weights (the wsummary / nanwsummary ufuncs)
# ---------------------------------------------------------------------------

def _repeated(x, w):
    return np.repeat(x, np.asarray(w).astype(int))


@pytest.mark.parametrize("dtype", [np.float64, np.float32, np.int16, np.int64])
@pytest.mark.parametrize("bias", [True, False])
def test_weights_integer_are_repetitions(dtype, bias):
    """Integer weights give SciPy's statistics of np.repeat(x, w), in one
    pass over x and w; nobs is the weight sum."""
    rng = np.random.default_rng(31)
    x = (rng.normal(size=(60, 4)) * 50 + 1e3).astype(dtype)
    w = rng.integers(0, 4, size=(60, 4))
    w[:, 3] = 0
    w[5, 3] = 7  # a column of one distinct value: no variance
    for axis in (0, None):
        r = quiet(nr.describe, x, axis=axis, weights=w, bias=bias)
        cols = [_repeated(x[:, j], w[:, j]) for j in range(4)] if axis == 0 else \
            [_repeated(x.ravel(), w.ravel())]
        refs = [quiet(stats.describe, c.astype(np.float64), bias=bias) for c in cols]
        got = [np.atleast_1d(v) for v in (r.nobs, r.mean, r.variance, r.skewness, r.kurtosis)]
        want = [np.array([getattr(q, f) for q in refs], dtype=np.float64)
                for f in ("nobs", "mean", "variance", "skewness", "kurtosis")]
        for g, wv, f in zip(got, want, ("nobs", "mean", "variance", "skewness", "kurtosis")):
            np.testing.assert_allclose(g.astype(np.float64), wv, rtol=1e-6 if dtype == np.float32
                                       else 1e-10, atol=1e-12, err_msg=f)
        lo = [c.min() for c in cols]
        hi = [c.max() for c in cols]
        np.testing.assert_array_equal(np.atleast_1d(r.minmax[0]), lo)  # weight 0: no part
        np.testing.assert_array_equal(np.atleast_1d(r.minmax[1]), hi)
        assert r.minmax[0].dtype == np.dtype(dtype)
        for f, want_f in (("skew", "skewness"), ("kurtosis", "kurtosis")):
            v = quiet(getattr(nr, f), x, axis=axis, weights=w, bias=bias)
            np.testing.assert_allclose(v, np.asarray(getattr(r, want_f)), rtol=1e-14)


def test_weights_exact_on_offset_data():
    """Non-integer weights on 1e8 + N(0, 1): the weighted mean, variance,
    skewness and kurtosis against exact rational arithmetic."""
    rng = np.random.default_rng(32)
    x = 1e8 + rng.normal(size=1500)
    w = rng.random(1500)
    xs, ws = [Fraction(v) for v in x], [Fraction(v) for v in w]
    W = sum(ws)
    m = sum(a * b for a, b in zip(ws, xs)) / W
    M2, M3, M4 = (sum(a * (b - m) ** k for a, b in zip(ws, xs)) for k in (2, 3, 4))
    r = nr.describe(x, weights=w, ddof=0)
    assert abs(float(r.nobs) / float(W) - 1) <= 1e-14  # (the weight sum: sequential roundings)
    assert abs(float(r.mean) - float(m)) <= 2 * EPS * float(m)
    assert abs(r.variance / float(M2 / W) - 1) <= 1e-13
    sk = float(M3 / W) / float(M2 / W) ** 1.5
    ku = float(M4 / W) / float(M2 / W) ** 2 - 3
    assert abs(r.skewness - sk) <= 1e-12 * max(1, abs(sk))
    assert abs(r.kurtosis - ku) <= 1e-12 * max(1, abs(ku))


def test_weights_rules():
    x = np.array([1., 2., 4., 8.])
    with pytest.raises(ValueError, match="weights must be non-negative"):
        nr.describe(x, weights=[1, -1, 1, 1])
    with pytest.raises(TypeError, match="weights are not supported"):
        nr.skew(x, weights=np.ones(4, complex))
    with pytest.raises(ValueError):
        nr.describe(x, weights=np.ones(3))  # does not broadcast
    # NaN: propagating, skipped with its weight ('omit')
    y = np.array([1., np.nan, 4., 8.])
    assert np.isnan(quiet(nr.describe, y, weights=[1, 1, 1, 1]).mean)
    r = nr.describe(y, weights=[1, 5, 2, 1], nan_policy="omit")
    assert float(r.nobs) == 4 and r.mean == np.average([1., 4., 8.], weights=[1, 2, 1])
    # an inf weight: NaN with NumPy's warning (np.average's inf / inf)
    with pytest.warns(RuntimeWarning, match="invalid value"):
        assert np.isnan(nr.skew(x, weights=[1, np.inf, 1, 1]))
    # every weight 0: an empty sample
    with pytest.warns(RuntimeWarning):
        assert np.isnan(nr.kurtosis(x, weights=np.zeros(4)))
    with pytest.raises(ValueError, match="no elements"):
        nr.describe(np.arange(4), weights=np.zeros(4))


def test_weights_int64_extremes_and_where():
    x = np.array([2**60 + 1, 5, 2**60 + 3, 7], dtype=np.int64)
    r = nr.describe(x, weights=[1, 0, 2, 1])
    assert r.minmax == (7, 2**60 + 3) and r.minmax[0].dtype == np.int64
    r = nr.describe(x, weights=[1, 1, 2, 1], where=[True, False, True, True])
    assert r.minmax == (7, 2**60 + 3) and float(r.nobs) == 4


def test_weights_dask_one_graph():
    da = pytest.importorskip("dask.array", reason="dask is not installed (the 'dask' extra)")
    rng = np.random.default_rng(33)
    x = rng.normal(size=(400, 6)) + 1e6
    w = rng.random((400, 6))
    X, Wd = da.from_array(x, chunks=(100, 3)), da.from_array(w, chunks=(100, 3))
    r, ref = nr.describe(X, weights=Wd), nr.describe(x, weights=w)
    for f in ("nobs", "mean", "variance", "skewness", "kurtosis"):
        np.testing.assert_allclose(getattr(r, f).compute(), getattr(ref, f), rtol=1e-10, err_msg=f)
    np.testing.assert_array_equal(r.minmax[0].compute(), ref.minmax[0])
