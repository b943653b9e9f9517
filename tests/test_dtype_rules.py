"""The ``dtype=`` and ``ddof=`` rules of meanvar, meanstd, nanmeanvar and fsum,
differential against NumPy's np.mean / np.var / np.std / np.nanmean /
np.nanvar / np.sum, whose outcome is computed at test time.

Every (input dtype, ``dtype=``) pair either gives NumPy's values and result
dtypes, raises NumPy's exception type, or -- only in the documented cases of
docs/differences.md, where NumPy computes something numreduce's
floating-point accumulators cannot reproduce (integer, bool or object
accumulation, a complex-to-real cast that drops the imaginary part) -- is
refused with a TypeError naming ``dtype``."""

import re
import warnings
from fractions import Fraction

import numpy as np
import pytest

import numreduce as nr

LD = np.dtype(np.longdouble)

# Input arrays: small values whose mean and variance are exact or nearly so in
# every float type (float16 included), so NumPy computing in the dtype= type
# and numreduce computing in float64 and rounding agree to a few ulps.
INPUTS = {
    "bool": np.array([True, False, True, True]),
    "int8": np.array([1, 2, 4, 9], np.int8),
    "uint64": np.array([1, 2, 4, 9], np.uint64),
    "int64": np.array([1, 2, 4, 9], np.int64),
    "float16": np.array([1.5, 2.5, 4.0, -3.0], np.float16),
    "float32": np.array([1.5, 2.5, 4.0, -3.0], np.float32),
    "float64": np.array([1.5, 2.5, 4.0, -3.0]),
    "longdouble": np.array([1.5, 2.5, 4.0, -3.0], np.longdouble),
    "complex64": np.array([1 + 2j, 2.5 - 1j, 4j, -3 + 0.5j], np.complex64),
    "complex128": np.array([1 + 2j, 2.5 - 1j, 4j, -3 + 0.5j]),
    "clongdouble": np.array([1 + 2j, 2.5 - 1j, 4j, -3 + 0.5j], np.clongdouble),
    "timedelta64": np.array([1, 2, 4, 9], "m8[s]"),
    "datetime64": np.array([1, 2, 4, 9], "M8[D]"),
    "object": np.array([1.5, 2.5, 4.0, -3.0], dtype=object),
    "str": np.array(["a", "b", "c", "d"]),
}
DTYPE_ARGS = [None, bool, np.int8, int, np.uint64, np.float16, np.float32, np.float64,
              np.longdouble, np.complex64, np.complex128, np.clongdouble, object, str,
              "m8[s]", "M8[D]"]

FUNCS = {
    "meanvar": (nr.meanvar, (np.mean, np.var)),
    "meanstd": (nr.meanstd, (np.mean, np.std)),
    "nanmeanvar": (nr.nanmeanvar, (np.nanmean, np.nanvar)),
    "fsum": (nr.fsum, (np.sum,)),
}


def _numpy_outcome(refs, a, kw):
    """NumPy's results (a tuple) or the exception it raised."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")   # ComplexWarning, casts
        try:
            return tuple(f(a, **kw) for f in refs)
        except Exception as e:            # noqa: BLE001 -- the outcome under test
            return e


def _builtin_base(exc_type):
    """The builtin exception class NumPy's exception derives from
    (UFuncTypeError -> TypeError, AxisError -> ValueError)."""
    for t in exc_type.__mro__:
        if t.__module__ == "builtins":
            return t
    raise AssertionError(exc_type)


def _refused(name, a_dt, dt):
    """The documented refusals (docs/differences.md): NumPy computes these, and
    numreduce raises TypeError instead of giving a different number."""
    if dt is not None and dt.kind in "biuO":
        return True          # integer / bool / object accumulation
    if a_dt.kind == "c" and dt is not None and dt.kind == "f":
        return True          # NumPy drops the imaginary part (ComplexWarning)
    if a_dt.kind == "O":
        return not (name == "fsum" and dt is not None and dt.kind in "fc")
    if name == "fsum" and a_dt.kind == "m":
        return True          # np.sum of timedelta64 is exact integer arithmetic
    return False


def _expected_dtype(name, a_dt, dt, want):
    """NumPy's result dtype, except fsum's documented accumulator dtypes."""
    if name == "fsum" and dt is None:
        if a_dt.kind in "biu":
            return np.dtype(np.float64)
        if a_dt == np.float16:
            return np.dtype(np.float32)
    return np.asarray(want).dtype


def _rtol(res_dt):
    res_dt = np.dtype(res_dt)
    if res_dt.kind in "fc":
        return 8 * float(np.finfo(res_dt).eps)
    return 0.0


CASES = [(f, i, d) for f in FUNCS for i in INPUTS for d in DTYPE_ARGS]


@pytest.mark.parametrize("name,inp,dtype", CASES,
                         ids=[f"{f}-{i}-{d if isinstance(d, str) or d is None else np.dtype(d)}"
                              for f, i, d in CASES])
def test_dtype_argument_matches_numpy(name, inp, dtype):
    fn, refs = FUNCS[name]
    a = INPUTS[inp]
    kw = {} if dtype is None else {"dtype": dtype}
    want = _numpy_outcome(refs, a, kw)
    dt = None if dtype is None else np.dtype(dtype)
    with warnings.catch_warnings():
        warnings.simplefilter("error")        # no stray warnings either
        if _refused(name, a.dtype, dt):   # decided by the dtypes, before any data is read
            with pytest.raises(TypeError, match="dtype"):
                fn(a, **kw)
            return
        if isinstance(want, Exception):
            with pytest.raises(_builtin_base(type(want))):
                fn(a, **kw)
            return
        got = fn(a, **kw)
    got = got if isinstance(got, tuple) else (got,)
    assert len(got) == len(want)
    for g, w in zip(got, want):
        exp_dt = _expected_dtype(name, a.dtype, dt, w)
        assert np.asarray(g).dtype == exp_dt, (g, w)
        assert type(g) is exp_dt.type, (type(g), exp_dt)
        np.testing.assert_allclose(np.asarray(g).astype(np.clongdouble),
                                   np.asarray(w).astype(np.clongdouble), rtol=_rtol(exp_dt))


# ---------------------------------------------------------------------------
# The cases, one by one
# ---------------------------------------------------------------------------

@pytest.mark.parametrize("dtype", [int, np.int32, bool, object])
def test_nanmeanvar_inexact_data_needs_inexact_dtype(dtype):
    x = np.array([1.0, np.nan, 3.0])
    with pytest.raises(TypeError) as want:
        np.nanmean(x, dtype=dtype)
    with pytest.raises(TypeError, match="dtype must be inexact") as got:
        nr.nanmeanvar(x, dtype=dtype)
    assert str(want.value) in str(got.value)


@pytest.mark.parametrize("fn", [nr.meanvar, nr.meanstd, nr.nanmeanvar])
@pytest.mark.parametrize("dtype", [int, np.int8, np.uint64, bool, object])
def test_integer_and_object_accumulation_is_refused(fn, dtype):
    # np.mean([1.5, 2.5], dtype=int) is 1 and np.var(..., dtype=int) is 1:
    # elements cast first, truncating divisions.  numreduce gave (2, 0).
    with pytest.raises(TypeError, match="dtype"):
        fn(np.array([1.5, 2.5]), dtype=dtype)
    with pytest.raises(TypeError, match="dtype"):
        fn(np.array([1, 2, 4]), dtype=dtype)


@pytest.mark.parametrize("fn", [nr.meanvar, nr.meanstd, nr.nanmeanvar, nr.fsum])
@pytest.mark.parametrize("dtype", [str, "S", "m8[s]", "M8[D]", "V8"])
def test_non_numeric_dtype_raises(fn, dtype):
    with pytest.raises(TypeError, match="dtype"):
        fn(np.array([1.5, 2.5]), dtype=dtype)


@pytest.mark.parametrize("fn", [nr.meanvar, nr.meanstd, nr.nanmeanvar, nr.fsum])
def test_not_a_dtype_raises(fn):
    with pytest.raises(TypeError, match="dtype"):
        fn(np.array([1.5, 2.5]), dtype="not a dtype")


def test_fsum_datetime64_raises_like_np_sum():
    d = np.array(["2020-01-01", "2020-01-03"], "M8[D]")
    with pytest.raises(TypeError):
        np.sum(d, dtype=np.float64)
    for dtype in (None, np.float64, np.longdouble):
        with pytest.raises(TypeError, match="datetime64"):
            nr.fsum(d, dtype=dtype)


def test_fsum_timedelta64_refused():
    t = np.array([1, 2], "m8[s]")
    assert np.sum(t, dtype=np.float64) == np.timedelta64(3, "s")   # NumPy ignores dtype=
    for dtype in (None, np.float64):
        with pytest.raises(TypeError, match="timedelta64"):
            nr.fsum(t, dtype=dtype)


@pytest.mark.parametrize("dtype", [int, np.int8, bool, np.uint64, object])
def test_fsum_integer_dtype_refused(dtype):
    with pytest.raises(TypeError, match="dtype"):
        nr.fsum(np.array([1.5, 2.5]), dtype=dtype)


def test_fsum_float16_dtype_rounds_a_compensated_float32_sum():
    x = np.array([2048.0, 1.0, 1.0, -2048.0] * 8)      # float16 alone loses the ones
    got = nr.fsum(x, dtype=np.float16)
    assert got.dtype == np.float16 and got == 16.0
    assert np.sum(x, dtype=np.float16).dtype == np.float16


def test_fsum_complex_is_compensated_per_part():
    rng = np.random.default_rng(7)
    re = rng.standard_normal(1000) * 1e10
    im = rng.standard_normal(1000) * 1e12
    re[500:] = -re[:500]
    im[500:] = -im[:500]
    re[0] += 1.0
    im[3] += 2.0
    for cdt, rdt in ((np.complex128, np.float64), (np.complex64, np.float32),
                     (np.clongdouble, np.longdouble)):
        z = (re + 1j * im).astype(cdt)
        got = nr.fsum(z)
        assert got.dtype == np.dtype(cdt) and type(got) is np.dtype(cdt).type
        for part, g in ((z.real, got.real), (z.imag, got.imag)):
            exact = sum((Fraction(*v.as_integer_ratio()) for v in part.astype(np.longdouble)),
                        Fraction(0))
            assert abs(Fraction(*g.as_integer_ratio()) - exact) <= abs(exact) * Fraction(
                *np.finfo(rdt).eps.as_integer_ratio()), (cdt, g, float(exact))
    z = (re + 1j * im).reshape(10, 100)
    got = nr.fsum(z, axis=1, keepdims=True)
    assert got.shape == (10, 1) and got.dtype == np.complex128
    np.testing.assert_allclose(got.real[:, 0], [np.sum(r) for r in z.real], rtol=1e-6, atol=1e-2)
    # a real input with a complex dtype: NumPy's result type
    got = nr.fsum(re, dtype=np.complex64)
    assert got.dtype == np.complex64 and got.imag == 0


# ---------------------------------------------------------------------------
# complex meanvar / meanstd / nanmeanvar
# ---------------------------------------------------------------------------

def _complex_data(dtype, shape, rng, nan=False):
    z = (rng.standard_normal(shape) * 3 + 1e3) + 1j * (rng.standard_normal(shape) - 50)
    if nan:
        flat = z.reshape(-1)
        flat[::7] = complex(np.nan, 1.0)
        flat[3::11] = complex(2.0, np.nan)
    return z.astype(dtype)


def _exact_complex_meanvar(z, ddof):
    """Mean and var (mean |z - mean|^2) with fractions, NaN elements skipped."""
    vals = [v for v in z.ravel().tolist() if not (np.isnan(v.real) or np.isnan(v.imag))]
    re = [Fraction(float(v.real)) for v in vals]
    im = [Fraction(float(v.imag)) for v in vals]
    n = len(vals)
    mr, mi = sum(re, Fraction(0)) / n, sum(im, Fraction(0)) / n
    m2 = sum(((r - mr) ** 2 + (i - mi) ** 2 for r, i in zip(re, im)), Fraction(0))
    return complex(float(mr), float(mi)), float(m2 / (n - ddof))


@pytest.mark.parametrize("cdt", [np.complex64, np.complex128, np.clongdouble], ids=str)
@pytest.mark.parametrize("ddof", [0, 1, 1.5])
def test_complex_meanvar_exact(cdt, ddof):
    rng = np.random.default_rng(1)
    z = _complex_data(cdt, 257, rng)
    m, v = nr.meanvar(z, ddof=ddof)
    rdt = np.finfo(cdt).dtype
    assert m.dtype == np.dtype(cdt) and v.dtype == rdt
    assert type(m) is np.dtype(cdt).type and type(v) is rdt.type
    want_m, want_v = _exact_complex_meanvar(z, ddof)
    eps = float(np.finfo(rdt).eps) if rdt.itemsize <= 8 else float(np.finfo(np.float64).eps)
    assert abs(complex(m) - want_m) <= 2 * eps * abs(want_m)
    assert abs(float(v) - want_v) <= 4 * eps * want_v
    # and NumPy agrees (its own rounding in the input precision)
    np.testing.assert_allclose(complex(m), np.mean(z), rtol=1e-5 if rdt.itemsize == 4 else 1e-12)
    np.testing.assert_allclose(float(v), np.var(z, ddof=ddof),
                               rtol=1e-3 if rdt.itemsize == 4 else 1e-9)
    ms, s = nr.meanstd(z, ddof=ddof)
    assert ms == m and s.dtype == rdt
    np.testing.assert_allclose(float(s), np.sqrt(want_v), rtol=4 * eps)


@pytest.mark.parametrize("cdt", [np.complex64, np.complex128, np.clongdouble], ids=str)
@pytest.mark.parametrize("axis", [None, 0, 1, 2, (0, 2), -1])
@pytest.mark.parametrize("keepdims", [False, True])
def test_complex_meanvar_axes_like_numpy(cdt, axis, keepdims):
    rng = np.random.default_rng(2)
    z = _complex_data(cdt, (4, 5, 6), rng)[:, ::-1, ::2]    # a strided view
    tol = 1e-4 if np.finfo(cdt).dtype.itemsize == 4 else 1e-10
    for fn, refs in ((nr.meanvar, (np.mean, np.var)), (nr.meanstd, (np.mean, np.std)),
                     (nr.nanmeanvar, (np.nanmean, np.nanvar))):
        got = fn(z, axis=axis, keepdims=keepdims, ddof=1)
        want = [f(z, axis=axis, keepdims=keepdims, ddof=1) if f not in (np.mean, np.nanmean)
                else f(z, axis=axis, keepdims=keepdims) for f in refs]
        for g, w in zip(got, want):
            assert g.dtype == w.dtype and np.shape(g) == np.shape(w), (fn.__name__, g, w)
            np.testing.assert_allclose(g, w, rtol=tol)


@pytest.mark.parametrize("cdt", [np.complex64, np.complex128], ids=str)
def test_complex_nanmeanvar_skips_nan_in_either_part(cdt):
    rng = np.random.default_rng(3)
    z = _complex_data(cdt, (3, 40), rng, nan=True)
    got = nr.nanmeanvar(z, axis=1)
    want = np.nanmean(z, axis=1), np.nanvar(z, axis=1)
    tol = 1e-4 if cdt == np.complex64 else 1e-10
    for g, w in zip(got, want):
        assert g.dtype == w.dtype
        np.testing.assert_allclose(g, w, rtol=tol)
    m, v = nr.nanmeanvar(z[1])
    want_m, want_v = _exact_complex_meanvar(z[1], 0)
    assert abs(complex(m) - want_m) <= 1e-6 * abs(want_m)
    assert abs(float(v) - want_v) <= 1e-5 * want_v
    # meanvar propagates the NaN (as np.mean / np.var)
    m, v = nr.meanvar(z[1])
    assert np.isnan(m) and np.isnan(v)


def test_complex_meanvar_where_and_empty_like_numpy():
    z = np.array([[1 + 1j, 2 - 1j, 3j], [4, 5 + 5j, -1j]])
    w = np.array([[True, False, True], [False, False, False]])
    with pytest.warns(RuntimeWarning):
        got = nr.meanvar(z, axis=1, where=w)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        want = np.mean(z, axis=1, where=w), np.var(z, axis=1, where=w)
    for g, ww in zip(got, want):
        assert g.dtype == ww.dtype
        np.testing.assert_allclose(g, ww, rtol=1e-14)
    with warnings.catch_warnings(record=True) as ws:
        warnings.simplefilter("always")
        m, v = nr.meanvar(np.zeros(0, np.complex64))
    assert {str(w.message) for w in ws} == {"Mean of empty slice.",
                                             "Degrees of freedom <= 0 for slice"}
    assert m.dtype == np.complex64 and np.isnan(m.real) and np.isnan(m.imag)
    assert v.dtype == np.float32 and np.isnan(v)


@pytest.mark.parametrize("dtype", [np.complex64, np.complex128, np.clongdouble], ids=str)
def test_complex_dtype_on_complex_data_gives_complex_var_like_numpy(dtype):
    z = np.array([1 + 2j, 2.5 - 1j, 4j, -3 + 0.5j])
    for fn, refs in ((nr.meanvar, (np.mean, np.var)), (nr.meanstd, (np.mean, np.std)),
                     (nr.nanmeanvar, (np.nanmean, np.nanvar))):
        got = fn(z, dtype=dtype)
        want = tuple(f(z, dtype=dtype) for f in refs)
        for g, w in zip(got, want):
            assert g.dtype == w.dtype == np.dtype(dtype), (fn.__name__, g.dtype, w.dtype)
            np.testing.assert_allclose(g, w, rtol=1e-6)


@pytest.mark.parametrize("fn", [nr.meanvar, nr.meanstd, nr.nanmeanvar, nr.fsum])
@pytest.mark.parametrize("dtype", [np.float64, np.float32, np.longdouble])
def test_complex_data_real_dtype_refused(fn, dtype):
    # NumPy warns ComplexWarning and drops the imaginary parts (np.var then
    # averages |z - mean(z.real)|^2, neither var(z) nor var(z.real)).
    with pytest.raises(TypeError, match="imaginary"):
        fn(np.array([1 + 2j, 3 - 1j]), dtype=dtype)


# ---------------------------------------------------------------------------
# ddof
# ---------------------------------------------------------------------------

DDOF_ACCEPTED = [0, 1, 2, 3, 4, 10, -1, -1.5, 0.5, 1.5, True, False, np.float64(1.5),
                 np.int8(1), np.uint64(2), np.bool_(True), np.array(1), np.array(2.5),
                 Fraction(1, 2), np.nan, np.inf, -np.inf, 2**40]
DDOF_TYPEERROR = ["x", "1", None, 1j, 1 + 0j, np.complex128(1), np.timedelta64(1, "s"),
                  object(), np.array("x"), np.array(1 + 0j)]
DDOF_VALUEERROR = [np.array([0, 1]), np.array([0, 1, 2]), [1], (1,), np.array([1]),
                   np.zeros((1, 1))]

DDOF_FUNCS = [(nr.meanvar, np.var, 1), (nr.meanstd, np.std, 1), (nr.nanmeanvar, np.nanvar, 1)]


def _ids(vals):
    # (no object addresses: the ids must be the same in every process, as
    # pytest-xdist's workers compare their collections)
    return [re.sub(r" at 0x[0-9a-fA-F]+", "", f"{type(v).__name__}-{v!r}")[:40] for v in vals]


@pytest.mark.parametrize("fn,ref,k", DDOF_FUNCS, ids=lambda v: getattr(v, "__name__", ""))
@pytest.mark.parametrize("ddof", DDOF_ACCEPTED, ids=_ids(DDOF_ACCEPTED))
@pytest.mark.parametrize("data", ["float", "int", "2d"])
def test_ddof_values_like_numpy(fn, ref, k, ddof, data):
    a = {"float": np.array([1.0, 2.0, 4.0, 8.0]), "int": np.array([1, 2, 4, 8]),
         "2d": np.arange(12.0).reshape(3, 4) ** 2}[data]
    axis = 1 if data == "2d" else None
    with warnings.catch_warnings(record=True) as w_np:
        warnings.simplefilter("always")
        want = ref(a, axis=axis, ddof=ddof)
    with warnings.catch_warnings(record=True) as w_nr:
        warnings.simplefilter("always")
        got = fn(a, axis=axis, ddof=ddof)[k]
    assert np.asarray(got).dtype == np.asarray(want).dtype
    assert np.shape(got) == np.shape(want)
    np.testing.assert_allclose(got, want, rtol=1e-14)
    def ours(ws):    # NumPy's own slice warnings (not its scalar-divide ones)
        return {str(x.message) for x in ws if str(x.message).startswith(("Degrees", "Mean"))}
    assert ours(w_nr) == ours(w_np)


@pytest.mark.parametrize("fn", [nr.meanvar, nr.meanstd, nr.nanmeanvar])
@pytest.mark.parametrize("ddof", DDOF_TYPEERROR, ids=_ids(DDOF_TYPEERROR))
def test_ddof_not_a_real_number_raises_typeerror(fn, ddof):
    a = np.array([1.0, 2.0, 4.0])
    with pytest.raises(TypeError, match="ddof"):
        fn(a, ddof=ddof)


DDOF_NUMPY_TYPEERROR = ["x", None, object(), np.timedelta64(1, "s")]


@pytest.mark.parametrize("ddof", DDOF_NUMPY_TYPEERROR, ids=_ids(DDOF_NUMPY_TYPEERROR))
def test_ddof_typeerror_is_numpys_type(ddof):
    a = np.array([1.0, 2.0, 4.0])
    with warnings.catch_warnings():
        # NumPy 2.5 first deprecates the generic timedelta unit of `n - ddof`
        warnings.simplefilter("ignore", DeprecationWarning)
        with pytest.raises(TypeError):
            np.var(a, ddof=ddof)


@pytest.mark.parametrize("fn", [nr.meanvar, nr.meanstd, nr.nanmeanvar])
@pytest.mark.parametrize("ddof", DDOF_VALUEERROR, ids=_ids(DDOF_VALUEERROR))
def test_ddof_array_raises_valueerror(fn, ddof):
    # np.var raises ValueError for arrays of more than one element (and
    # broadcasts a one-element one into the result's shape); numreduce
    # takes scalars only.
    a = np.array([1.0, 2.0, 4.0])
    with pytest.raises(ValueError, match="ddof"):
        fn(a, ddof=ddof)


@pytest.mark.parametrize("ddof", [np.array([0, 1]), np.array([0, 1, 2])], ids=str)
def test_ddof_array_valueerror_is_numpys_type(ddof):
    with pytest.raises(ValueError):
        np.var(np.array([1.0, 2.0, 4.0]), ddof=ddof)


# ---------------------------------------------------------------------------
# complex data with special values, random shapes and views (hypothesis)
# ---------------------------------------------------------------------------

from hypothesis import given, settings                    # noqa: E402
from hypothesis import strategies as st                   # noqa: E402

from helpers import COMPLEX_DTYPES, arrays, axes_for      # noqa: E402


def _same(g, w, tol, scale):
    """``scale``: the data's magnitude to the output's power (max|x| for a
    mean or std, max|x|**2 for a variance).  Not the result's own magnitude:
    a mean that cancels to about 0 (complex [0.1, 0.2, -0.3]: np.mean
    1.85e-17, numreduce 0) is off by a rounding of the data's magnitude, which
    a tolerance relative to the result cannot hold."""
    g, w = np.asarray(g), np.asarray(w)
    assert g.dtype == w.dtype and g.shape == w.shape, (g.dtype, w.dtype, g.shape, w.shape)
    for part in ((g.real, w.real), (g.imag, w.imag)) if g.dtype.kind == "c" else ((g, w),):
        pg, pw = (p.astype(np.longdouble) for p in part)
        np.testing.assert_array_equal(np.isnan(pg), np.isnan(pw))
        inf = np.isinf(pg) | np.isinf(pw)
        np.testing.assert_array_equal(pg[inf], pw[inf])
        fin = np.isfinite(pg) & np.isfinite(pw)
        np.testing.assert_allclose(pg[fin], pw[fin], rtol=tol, atol=tol * scale)


@settings(max_examples=60)
@given(data=st.data())
def test_complex_differential_with_specials(data):
    a = data.draw(arrays(dtypes=COMPLEX_DTYPES, max_dims=3))
    axis = data.draw(axes_for(a.ndim))
    if a.ndim == 0 and isinstance(axis, int):
        axis = None
    ddof = data.draw(st.sampled_from([0, 1]))
    kw = {"axis": axis}
    if data.draw(st.booleans()):
        kw["where"] = np.array(data.draw(st.lists(st.booleans(), min_size=a.size,
                                                  max_size=a.size)), bool).reshape(a.shape)
    _check_complex_against_numpy(a, ddof, kw)


@pytest.mark.parametrize("dtype", [np.complex128, np.complex64])
def test_complex_mean_cancelling_to_zero(dtype):
    """np.mean 1.85e-17, numreduce 0: both within a rounding of the data's
    magnitude (the hypothesis test's tolerance was relative to the result)."""
    _check_complex_against_numpy(np.array([0.1, 0.2, -0.3], dtype), 0, {"axis": None})


def _check_complex_against_numpy(a, ddof, kw):
    # tol: far above n eps for these sizes (n <= a.size), complex64 rounded
    # in complex64 by np.mean/np.var; applied to the data's finite magnitude.
    tol = 1e-4 if a.dtype.itemsize == 8 else 1e-9   # complex64, either byte order
    parts = np.concatenate([a.real.ravel(), a.imag.ravel()]).astype(np.longdouble)
    mag = np.max(np.abs(parts[np.isfinite(parts)]), initial=np.longdouble(0))
    for fn, (fm, fv) in ((nr.meanvar, (np.mean, np.var)), (nr.meanstd, (np.mean, np.std)),
                         (nr.nanmeanvar, (np.nanmean, np.nanvar))):
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            try:
                want = fm(a, **kw), fv(a, ddof=ddof, **kw)
            except Exception as e:                          # noqa: BLE001
                with pytest.raises(_builtin_base(type(e))):
                    fn(a, ddof=ddof, **kw)
                continue
            got = fn(a, ddof=ddof, **kw)
        for g, w, power in zip(got, want, (1, 1 if fn is nr.meanstd else 2)):
            assert type(g) is type(w)
            _same(g, w, tol, mag ** power)


# ---------------------------------------------------------------------------
# adapted from NumPy's own tests (test_nanfunctions.py,
# TestNanFunctions_MeanVarStd / TestNanFunctions_SumProd: test_dtype_from_dtype,
# test_dtype_from_char, test_dtype_from_input, test_dtype_error)
# ---------------------------------------------------------------------------

PEER_FUNCS = [(nr.meanvar, (np.mean, np.var)), (nr.meanstd, (np.mean, np.std)),
              (nr.nanmeanvar, (np.nanmean, np.nanvar)), (nr.fsum, (np.sum,))]


def _types(res):
    return [np.asarray(r).dtype.type for r in (res if isinstance(res, tuple) else (res,))]


@pytest.mark.parametrize("fn,refs", PEER_FUNCS, ids=lambda v: getattr(v, "__name__", ""))
@pytest.mark.parametrize("c", "efdgFDG")
def test_numpy_peer_dtype_from_dtype_and_char(fn, refs, c):
    mat = np.eye(3)
    for dtype in (np.dtype(c), c):
        for axis in (1, None):
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")   # NumPy's ComplexWarning (gh-8000)
                want = tuple(r(mat, dtype=dtype, axis=axis) for r in refs)
            got = fn(mat, dtype=dtype, axis=axis)
            assert _types(got) == _types(want), (c, axis)
            for g, w in zip(got if isinstance(got, tuple) else (got,), want):
                np.testing.assert_allclose(g, w, rtol=1e-3)


@pytest.mark.parametrize("fn,refs", PEER_FUNCS, ids=lambda v: getattr(v, "__name__", ""))
@pytest.mark.parametrize("c", "efdgFDG")
def test_numpy_peer_dtype_from_input(fn, refs, c):
    mat = np.eye(3, dtype=c)
    for axis in (1, None):
        want = tuple(r(mat, axis=axis) for r in refs)
        if fn is nr.fsum and c == "e":
            want = tuple(w.astype(np.float32) for w in want)   # documented: float32 accumulator
        got = fn(mat, axis=axis)
        assert _types(got) == _types(want), (c, axis)


@pytest.mark.parametrize("fn", [nr.nanmeanvar])
@pytest.mark.parametrize("dtype", [np.bool_, np.int_, np.object_])
def test_numpy_peer_dtype_error(fn, dtype):
    _ndat = np.array([[0.6244, np.nan, 0.2692, 0.0116, np.nan, 0.1170],
                      [0.5351, -0.9403, np.nan, 0.2100, 0.4759, 0.2833]])
    with pytest.raises(TypeError):
        fn(_ndat, axis=1, dtype=dtype)


@pytest.mark.parametrize("fn", [nr.meanvar, nr.meanstd, nr.nanmeanvar])
def test_timedelta_and_object_input_refused_clearly(fn):
    t = np.array([1, 2, 4], "m8[s]")
    assert np.mean(t) == np.timedelta64(2, "s")      # NumPy's mean works ...
    with pytest.raises(TypeError):
        np.var(t)                                    # ... its variance does not
    with pytest.raises(TypeError, match="timedelta64.*squared time units"):
        fn(t)
    with pytest.raises(TypeError, match=r"object.*astype\(float\)"):
        fn(np.array([1.5, 2.5], dtype=object))
