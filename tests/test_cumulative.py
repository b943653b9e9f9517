"""The cumulative user functions on top of numreduce.accumulate:
logcumsumexp, cumfsum, cummeanvar, nancumminmax (cumminmax: test_accumulate).

References: np.logaddexp.accumulate and mpmath (logcumsumexp), math.fsum of
every prefix (cumfsum), np.mean / np.var of every prefix (cummeanvar),
np.fmin / np.fmax .accumulate (nancumminmax), np.cumulative_sum for the
signature rules (include_initial, axis, 0-d input).
"""

from __future__ import annotations

import inspect
import math
import warnings

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st
from hypothesis.extra import numpy as hnp

import numreduce as nr

from helpers import ALL_DTYPES, INT_DTYPES, arrays

FUNCS = [nr.logcumsumexp, nr.cumfsum, nr.cummeanvar, nr.nancumminmax, nr.cumminmax]
FUNC_IDS = [f.__name__ for f in FUNCS]


def cumulative_sum(a, axis=None, include_initial=False):
    """np.cumulative_sum (the reference; NumPy >= 2.1), spelled with
    np.cumsum where NumPy predates it (2.0)."""
    if hasattr(np, "cumulative_sum"):
        return np.cumulative_sum(a, axis=axis, include_initial=include_initial)
    a = np.asarray(a)
    ax = 0 if axis is None else axis % a.ndim
    c = np.cumsum(a, axis=ax)
    if include_initial:
        shape = list(c.shape)
        shape[ax] = 1
        c = np.concatenate([np.zeros(shape, c.dtype), c], axis=ax)
    return c


def prefix(a, axis, i):
    idx = [slice(None)] * a.ndim
    idx[axis] = slice(None, i + 1)
    return a[tuple(idx)]


def take(a, axis, i):
    return np.take(a, i, axis=axis)


@st.composite
def float_case(draw, dtypes=(np.float64,), max_dims=3, lo=-50.0, hi=50.0, grid=False):
    """(array, axis); ``grid``: multiples of 1/16 (no underflow of squares in
    float32, which NumPy's float32 variance would round to 0)."""
    dt = draw(st.sampled_from(dtypes))
    shape = draw(hnp.array_shapes(min_dims=1, max_dims=max_dims, min_side=0, max_side=6))
    if grid:
        elements = st.integers(int(lo * 16), int(hi * 16)).map(lambda k: k / 16)
    else:
        elements = st.floats(lo, hi, width=np.finfo(dt).bits)
    a = draw(hnp.arrays(dt, shape, elements=elements))
    axis = draw(st.integers(-a.ndim, a.ndim - 1))
    return a, axis


def ax_arg(a, axis):
    return None if a.ndim == 1 and draw_none(axis) else axis


def draw_none(axis):
    return axis in (0, -1)


# ---------------------------------------------------------------------------
# logcumsumexp
# ---------------------------------------------------------------------------

@given(case=float_case(dtypes=(np.float64, np.float32)))
def test_logcumsumexp_against_logaddexp_accumulate(case):
    a, axis = case
    got = nr.logcumsumexp(a, axis=ax_arg(a, axis))
    want = np.logaddexp.accumulate(a.astype(np.float64), axis=axis)
    assert type(got) is np.ndarray and got.dtype == a.dtype and got.shape == a.shape
    tol = 1e-12 if a.dtype == np.float64 else 2e-6
    np.testing.assert_allclose(got, want, rtol=tol, atol=tol)


def _mp_logcumsumexp(x):
    import mpmath

    with mpmath.workdps(40):
        out, s = [], mpmath.mpf(0)
        for v in x:
            s += mpmath.exp(mpmath.mpf(float(v)))
            out.append(mpmath.log(s))
        return out


@pytest.mark.parametrize("scale, offset", [(1.0, 0.0), (30.0, 0.0), (1.0, 700.0), (5.0, -800.0)])
def test_logcumsumexp_accuracy_against_mpmath(scale, offset):
    # at least as accurate as np.logaddexp.accumulate, within a few ulps,
    # including offsets where exp overflows (700+) or underflows (-800)
    mpmath = pytest.importorskip("mpmath", reason="mpmath is not installed (optional reference)")
    rng = np.random.default_rng(int(scale * 7 + abs(offset)))
    x = rng.standard_normal(2000) * scale + offset
    ref = _mp_logcumsumexp(x)
    got = nr.logcumsumexp(x)
    npy = np.logaddexp.accumulate(x)

    def err(r):
        return max(abs(float((mpmath.mpf(float(v)) - w) / w)) for v, w in zip(r, ref))

    e_nr, e_np = err(got), err(npy)
    assert e_nr <= max(e_np, 4 * np.finfo(np.float64).eps), (e_nr, e_np)
    assert np.all(np.isfinite(got))


def test_logcumsumexp_no_overflow_and_specials():
    x = np.array([1000.0, 1000.0, 1000.0])
    with np.errstate(over="ignore"):
        assert np.isinf(np.log(np.cumsum(np.exp(x)))).all()  # the naive formula overflows
    np.testing.assert_allclose(nr.logcumsumexp(x), 1000.0 + np.log([1.0, 2.0, 3.0]), rtol=1e-15)
    inf, nan = np.inf, np.nan
    for v in ([-inf, -inf, 0.0, -inf], [-inf, inf, 1.0, inf, -inf], [0.0, nan, 1.0],
              [inf, inf], [-inf], [nan, -inf], [5.0, -inf, 5.0]):
        a = np.array(v)
        with warnings.catch_warnings():
            warnings.simplefilter("error")  # no warnings of our own either
            got = nr.logcumsumexp(a)
        with np.errstate(invalid="ignore"):
            want = np.logaddexp.accumulate(a)
        np.testing.assert_array_equal(got, want, err_msg=str(v))


@pytest.mark.parametrize("dtype", [np.bool_] + INT_DTYPES + [np.float16, np.float32, np.float64,
                                                            np.longdouble])
def test_logcumsumexp_dtypes(dtype):
    # numreduce.logsumexp's (SciPy's) rule: float keeps its dtype, the rest float64
    a = np.array([0, 1, 1, 0, 1], dtype=dtype)
    got = nr.logcumsumexp(a)
    want_dt = np.dtype(dtype) if np.dtype(dtype).kind == "f" else np.dtype(np.float64)
    assert got.dtype == want_dt
    assert got.dtype == np.asarray(nr.logsumexp(a)).dtype
    ref = np.logaddexp.accumulate(a.astype(np.float64))
    eps = max(float(np.finfo(want_dt).eps), float(np.finfo(np.float64).eps))
    np.testing.assert_allclose(got.astype(np.float64), ref, rtol=10 * eps)
    assert nr.logcumsumexp(a, dtype=np.float32).dtype == np.float32


def test_logcumsumexp_longdouble_keeps_precision():
    a = np.array([0.0, -40.0, -40.0], dtype=np.longdouble)
    got = nr.logcumsumexp(a)
    ref = np.log1p(np.cumsum(np.exp(a[1:]))).astype(np.longdouble)  # exp(-40) terms
    np.testing.assert_allclose(got[1:], ref, rtol=1e-6)
    assert got[1] > 0


@given(case=float_case(max_dims=2))
def test_logcumsumexp_include_initial(case):
    a, axis = case
    got = nr.logcumsumexp(a, axis=axis, include_initial=True)
    want_shape = cumulative_sum(a, axis=axis, include_initial=True).shape
    assert got.shape == want_shape
    ax = axis % a.ndim
    np.testing.assert_array_equal(take(got, ax, 0), -np.inf)
    np.testing.assert_array_equal(np.delete(got, 0, axis=ax), nr.logcumsumexp(a, axis=axis))


# ---------------------------------------------------------------------------
# cumfsum
# ---------------------------------------------------------------------------

def _fsum_bound(p):
    eps = np.finfo(np.float64).eps
    exact = math.fsum(p)
    return exact, eps * abs(exact) + len(p) * eps**2 * math.fsum(abs(v) for v in p)


@given(a=hnp.arrays(np.float64, st.integers(0, 60),
                    elements=st.floats(-1e300, 1e300) | st.sampled_from([1e16, -1e16, 1.0, 1e-16])))
def test_cumfsum_prefixes_within_fsum_bound(a):
    got = nr.cumfsum(a)
    assert got.dtype == np.float64 and got.shape == a.shape
    for i in range(a.size):
        exact, bound = _fsum_bound(a[:i + 1].tolist())
        if not math.isfinite(exact):
            continue
        assert abs(got[i] - exact) <= bound, (i, got[i], exact)


def test_cumfsum_ill_conditioned():
    x = np.array([1e16, 1.0, -1e16] * 1000)
    got = nr.cumfsum(x)
    want = np.array([math.fsum(x[:i + 1]) for i in range(x.size)])
    np.testing.assert_array_equal(got, want)
    assert np.any(np.cumsum(x) != want)  # NumPy drifts here
    rng = np.random.default_rng(5)
    y = rng.standard_normal(5000) * 10.0 ** rng.integers(-8, 8, 5000)
    got = nr.cumfsum(y)
    for i in range(0, y.size, 97):
        exact, bound = _fsum_bound(y[:i + 1].tolist())
        assert abs(got[i] - exact) <= bound


@given(case=float_case(max_dims=3, lo=-1e6, hi=1e6))
def test_cumfsum_axes_against_fsum_of_prefixes(case):
    a, axis = case
    got = nr.cumfsum(a, axis=ax_arg(a, axis))
    assert got.shape == a.shape
    ax = axis % a.ndim
    for i in range(a.shape[ax]):
        np.testing.assert_array_equal(take(got, ax, i), nr.fsum(prefix(a, ax, i), axis=ax))


@pytest.mark.parametrize("dtype", [np.bool_] + INT_DTYPES + [np.float16, np.float32, np.float64,
                                                            np.longdouble, np.complex64,
                                                            np.complex128])
def test_cumfsum_dtypes(dtype):
    a = np.array([1, 0, 3, 2, 1], dtype=dtype)
    got = nr.cumfsum(a)
    assert got.dtype == np.asarray(nr.fsum(a)).dtype  # fsum's result dtype rules
    np.testing.assert_array_equal(got, cumulative_sum(a.astype(got.dtype)))
    # byte-swapped input: the same dtype rules ('>f2' accumulates in float32 too)
    b = np.array([683, 683, 683] if np.dtype(dtype).itemsize > 1 else [1, 1, 1],
                 dtype=np.dtype(dtype).newbyteorder())
    got = nr.cumfsum(b)
    assert got.dtype == np.asarray(nr.fsum(b)).dtype and got.dtype.isnative
    np.testing.assert_array_equal(got[-1], nr.fsum(b))


def test_cumfsum_complex_and_object():
    z = np.array([1e16 + 1j, 1.0 - 1e16j, -1e16 + 1e16j])
    got = nr.cumfsum(z)
    np.testing.assert_array_equal(got.real, [1e16, 1e16 + 1.0, 1.0])
    np.testing.assert_array_equal(got.imag, [1.0, 1.0 - 1e16, 1.0])
    # into a real out: cast as reduce casts (NumPy's ComplexWarning), the
    # whole result at once
    o = np.full(3, -7.0)
    with pytest.warns(np.exceptions.ComplexWarning):
        nr.cumfsum(z, out=o)
    np.testing.assert_array_equal(o, got.real)
    o = np.array([1, 2.5, 3], dtype=object)
    with pytest.raises(TypeError, match="dtype="):
        nr.cumfsum(o)
    np.testing.assert_array_equal(nr.cumfsum(o, dtype=np.float64), [1.0, 3.5, 6.5])
    with pytest.raises(TypeError, match="cumfsum: dtype=int64"):
        nr.cumfsum(np.arange(3), dtype=np.int64)
    with pytest.raises(TypeError, match="cumfsum: unsupported input dtype"):
        nr.cumfsum(np.arange(3).astype("m8[s]"))


@given(case=float_case(max_dims=2))
def test_cumfsum_include_initial(case):
    a, axis = case
    got = nr.cumfsum(a, axis=axis, include_initial=True)
    want = cumulative_sum(a, axis=axis, include_initial=True)
    assert got.shape == want.shape
    np.testing.assert_allclose(got, want, rtol=1e-12, atol=1e-9)
    np.testing.assert_array_equal(take(got, axis % a.ndim, 0), 0.0)


# ---------------------------------------------------------------------------
# cummeanvar
# ---------------------------------------------------------------------------

@pytest.mark.parametrize("ddof", [0, 1, 2, 0.5, -1])
@given(case=float_case(dtypes=(np.float64, np.float32), max_dims=3, grid=True))
def test_cummeanvar_against_numpy_prefixes(ddof, case):
    a, axis = case
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)
        mean, var = nr.cummeanvar(a, axis=ax_arg(a, axis), ddof=ddof)
    assert mean.shape == var.shape == a.shape
    assert mean.dtype == var.dtype == a.dtype
    ax = axis % a.ndim
    tol = 1e-10 if a.dtype == np.float64 else 1e-5
    for i in range(a.shape[ax]):
        p = prefix(a, ax, i)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", RuntimeWarning)
            wm, wv = np.mean(p, axis=ax), np.var(p, axis=ax, ddof=ddof)
        np.testing.assert_allclose(take(mean, ax, i), wm, rtol=tol, atol=tol * 50)
        np.testing.assert_allclose(take(var, ax, i), wv, rtol=tol, atol=tol * 2500)


@pytest.mark.parametrize("dtype", [np.bool_] + INT_DTYPES + [np.float16, np.longdouble,
                                                            np.complex64, np.complex128])
def test_cummeanvar_dtypes(dtype):
    a = np.array([1, 0, 3, 2, 1], dtype=dtype)
    mean, var = nr.cummeanvar(a, ddof=1)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)
        want = [(np.mean(a[:i + 1]), np.var(a[:i + 1], ddof=1)) for i in range(a.size)]
    assert mean.dtype == np.asarray(want[0][0]).dtype
    assert var.dtype == np.asarray(want[0][1]).dtype
    rtol = 1e-3 if np.dtype(dtype) in (np.float16, np.complex64) else 1e-12
    np.testing.assert_allclose(mean, [w[0] for w in want], rtol=rtol)
    np.testing.assert_allclose(var, [w[1] for w in want], rtol=rtol)


def test_cummeanvar_dof_rules_and_warnings():
    a = np.array([3.0, 5.0, 4.0])
    # ddof=1: the first prefix has no degrees of freedom -- NaN as np.var, no warning
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        mean, var = nr.cummeanvar(a, ddof=1)
    with pytest.warns(RuntimeWarning, match="Degrees of freedom"), np.errstate(invalid="ignore"):
        first = np.var(a[:1], ddof=1)     # (and NumPy's 0/0 in the scalar divide)
    np.testing.assert_array_equal(var, [first, 2.0, 1.0])
    # ddof=3 on 2 elements: no prefix has any; np.var(a[:2], ddof=3) is inf
    # (M2 > 0 over 0) and warns, as does cummeanvar once
    with pytest.warns(RuntimeWarning, match="Degrees of freedom <= 0"):
        _, var = nr.cummeanvar(a[:2], ddof=3)
    with pytest.warns(RuntimeWarning):
        want = [np.var(a[:1], ddof=3), np.var(a[:2], ddof=3)]
    np.testing.assert_array_equal(var, want)
    # empty input: empty results, no warning
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        mean, var = nr.cummeanvar(np.empty((0, 3)), axis=0, ddof=1)
    assert mean.shape == var.shape == (0, 3)
    with pytest.raises(TypeError, match="ddof"):
        nr.cummeanvar(a, ddof="1")
    with pytest.raises(TypeError, match="dtype"):
        nr.cummeanvar(a, dtype=np.int64)


def test_cummeanvar_large_offset():
    # Welford's update in float64: relative error of the variance stays small
    rng = np.random.default_rng(11)
    a = 1e9 + rng.standard_normal(20000)
    mean, var = nr.cummeanvar(a)
    for i in (1, 10, 999, 19999):
        p = a[:i + 1]
        np.testing.assert_allclose(mean[i], np.mean(p), rtol=1e-14)
        np.testing.assert_allclose(var[i], np.var(p), rtol=1e-6)


# ---------------------------------------------------------------------------
# nancumminmax
# ---------------------------------------------------------------------------

@given(case=st.integers(0, 2).flatmap(lambda _: arrays(
    dtypes=[d for d in ALL_DTYPES if np.dtype(d).kind != "c"], min_dims=1, max_dims=2,
    max_side=6).flatmap(lambda a: st.tuples(st.just(a), st.integers(-a.ndim, a.ndim - 1)))))
def test_nancumminmax_against_fmin_fmax(case):
    a, axis = case
    lo, hi = nr.nancumminmax(a, axis=ax_arg(a, axis))
    want_lo, want_hi = np.fmin.accumulate(a, axis=axis), np.fmax.accumulate(a, axis=axis)
    assert lo.dtype == want_lo.dtype and hi.dtype == want_hi.dtype
    np.testing.assert_array_equal(lo, want_lo)
    np.testing.assert_array_equal(hi, want_hi)


def test_nancumminmax_nan_and_nat():
    a = np.array([np.nan, 2.0, np.nan, 1.0, 3.0, np.nan])
    lo, hi = nr.nancumminmax(a)
    np.testing.assert_array_equal(lo, [np.nan, 2, 2, 1, 1, 1])
    np.testing.assert_array_equal(hi, [np.nan, 2, 2, 2, 3, 3])
    t = np.array(["NaT", "2020-01-02", "NaT", "2020-01-01"], dtype="M8[D]")
    lo, hi = nr.nancumminmax(t)
    np.testing.assert_array_equal(lo, np.fmin.accumulate(t))
    np.testing.assert_array_equal(hi, np.fmax.accumulate(t))


# ---------------------------------------------------------------------------
# shared rules: signature, out, errors before writing, array types
# ---------------------------------------------------------------------------

@pytest.mark.parametrize("f", FUNCS, ids=FUNC_IDS)
def test_signature_follows_cumulative_sum(f):
    params = inspect.signature(f).parameters
    assert params["x"].kind is inspect.Parameter.POSITIONAL_ONLY
    assert all(p.kind is inspect.Parameter.KEYWORD_ONLY for n, p in params.items() if n != "x")
    with pytest.raises(TypeError):
        f(np.ones(3), 0)  # axis is keyword-only, as in np.cumulative_sum
    with pytest.raises(TypeError):
        f(x=np.ones(3))  # x is positional-only
    with pytest.raises(ValueError, match="axis"):
        f(np.ones((2, 3)))
    with pytest.raises(np.exceptions.AxisError):
        f(np.ones((2, 3)), axis=2)
    r = f(np.float64(0.5))  # 0-d is treated as 1-d
    for x in (r if isinstance(r, tuple) else (r,)):
        assert x.shape == (1,)


@pytest.mark.parametrize("f, nout", [(nr.logcumsumexp, 1), (nr.cumfsum, 1), (nr.cummeanvar, 2),
                                     (nr.nancumminmax, 2)],
                         ids=["logcumsumexp", "cumfsum", "cummeanvar", "nancumminmax"])
def test_out_and_errors_before_writing(f, nout):
    x = np.array([[0.5, 1.5, -2.0], [3.0, 0.25, 1.0]])

    def outs(shape=x.shape, dtype=np.float64):
        o = tuple(np.full(shape, -7.0).astype(dtype) for _ in range(nout))
        return o if nout == 2 else o[0]

    want = f(x, axis=1)
    o = outs()
    r = f(x, axis=1, out=o)
    if nout == 1:
        assert r is o
    else:
        assert r[0] is o[0] and r[1] is o[1]
    for g, w in zip(r if nout == 2 else (r,), want if nout == 2 else (want,)):
        np.testing.assert_array_equal(g, w)
    for bad, exc in ((outs((2, 4)), ValueError), (outs(dtype="<U5"), TypeError)):
        with pytest.raises(exc, match=r"out\[0\]"):
            f(x, axis=1, out=bad)
        for b in (bad if nout == 2 else (bad,)):
            assert (b == b.dtype.type(-7.0)).all()
    ro = outs()
    for b in (ro if nout == 2 else (ro,)):
        b.flags.writeable = False
    with pytest.raises(ValueError, match="read-only"):
        f(x, axis=1, out=ro)
    # an out that is the input itself
    y = x.copy()
    if nout == 1:
        r = f(y, axis=1, out=y)
        np.testing.assert_array_equal(y, want)
    else:
        z = np.zeros_like(x)
        r = f(y, axis=1, out=(y, z))
        np.testing.assert_array_equal(y, want[0])
        np.testing.assert_array_equal(z, want[1])


@pytest.mark.parametrize("f", [nr.logcumsumexp, nr.cumfsum], ids=["logcumsumexp", "cumfsum"])
def test_include_initial_out(f):
    x = np.array([1.0, 2.0, 3.0])
    o = np.full(3, -7.0)
    with pytest.raises(ValueError, match="shape"):
        f(x, out=o, include_initial=True)
    assert (o == -7.0).all()
    o = np.full(4, -7.0)
    assert f(x, out=o, include_initial=True) is o
    np.testing.assert_array_equal(o, f(x, include_initial=True))
    with pytest.raises(TypeError, match="include_initial"):
        f(x, include_initial="yes")


@pytest.mark.parametrize("f", FUNCS, ids=FUNC_IDS)
def test_array_types(f):
    m = np.ma.masked_array([1.0, 2.0, 3.0], mask=[False, True, False])
    with pytest.raises(TypeError, match=f"numreduce.{f.__name__}: masked arrays"):
        f(m)

    class Sub(np.ndarray):
        pass

    s = np.array([1.0, 2.0, 3.0]).view(Sub)
    r = f(s)
    for x in (r if isinstance(r, tuple) else (r,)):
        assert type(x) is Sub
    want = f(np.array([1.0, 2.0, 3.0]))
    for g, w in zip(r if isinstance(r, tuple) else (r,), want if isinstance(want, tuple)
                    else (want,)):
        np.testing.assert_array_equal(np.asarray(g), w)

    class Duck:
        def __array_function__(self, func, types, args, kwargs):
            return ("duck", func.__name__, args[1:], kwargs["axis"])

    assert f(Duck(), axis=0) == ("duck", f.__name__, (), 0)
    np.testing.assert_array_equal(np.asarray(f([1.0, 2.0])[0] if isinstance(want, tuple)
                                             else f([1.0, 2.0])),
                                  np.asarray(f(np.array([1.0, 2.0]))[0] if isinstance(want, tuple)
                                             else f(np.array([1.0, 2.0]))))


def test_public_function_keyword_only_and_positional_only():
    # the dispatch entry keeps "/" and "*" (and passes keyword-only arguments on)
    from numreduce._dispatch import masked_refuse, public_function

    calls = []

    def toy_statistic(be, qualname, x, y=1, *, axis=None, out=None):
        calls.append((type(x), y, axis))
        return be.asarray(x) + y

    @public_function(toy_statistic, masked_refuse("hint"), array="x")
    def toy(x, /, y=1, *, axis=None, out=None):
        """A toy public function."""

    assert str(inspect.signature(toy)) == "(x, /, y=1, *, axis=None, out=None)"
    np.testing.assert_array_equal(toy(np.ones(2), 2, axis=5), [3.0, 3.0])
    assert calls[-1] == (np.ndarray, 2, 5)
    np.testing.assert_array_equal(toy([1.0], axis=0), [2.0])  # through the policy
    assert calls[-1] == (np.ndarray, 1, 0)
    with pytest.raises(TypeError):
        toy(np.ones(2), 2, 3)
    with pytest.raises(TypeError):
        toy(x=np.ones(2))
    with pytest.raises(TypeError, match="masked"):
        toy(np.ma.masked_array([1.0]))
    with pytest.raises(TypeError, match="positional-only"):
        public_function(toy_statistic, masked_refuse("h"), array="x")(lambda x, y, /: None)


def test_docstring_examples():
    import doctest

    import numreduce._api

    result = doctest.testmod(numreduce._api, optionflags=doctest.NORMALIZE_WHITESPACE)
    assert result.attempted >= 8 and result.failed == 0


def test_bench_logcumsumexp_reference_against_mpmath():
    # the exact reference behind the bench row's error claim
    mpmath = pytest.importorskip("mpmath", reason="mpmath is not installed (optional reference)")
    from numreduce._bench import logcumsumexp_reference, max_rel_error

    rng = np.random.default_rng(2)
    x = rng.standard_normal(3000) * 3
    ref = logcumsumexp_reference(x, chunk=100)
    want = _mp_logcumsumexp(x)
    with mpmath.workdps(40):  # the long double digits kept
        worst = max(abs(float((mpmath.mpf(np.format_float_scientific(r, unique=True)) - w) / w))
                    for r, w in zip(ref, want))
    assert worst < 1e-17 if np.finfo(np.longdouble).eps < 1e-18 else worst < 1e-15
    assert max_rel_error(nr.logcumsumexp(x), ref) <= max_rel_error(np.logaddexp.accumulate(x), ref)


@given(case=arrays(dtypes=[np.bool_, np.int8, np.uint16, np.int64, np.float16, np.float32,
                           np.float64], min_dims=1, max_dims=3, max_side=5).flatmap(
    lambda a: st.tuples(st.just(a), st.integers(-a.ndim, a.ndim - 1))))
def test_views_and_dtypes_against_references(case):
    # strided / reversed / transposed / byte-swapped / unaligned views, NaN and inf
    a, axis = case
    ax = axis % a.ndim
    f64 = a.astype(np.float64)
    with np.errstate(invalid="ignore", over="ignore"):
        want = np.logaddexp.accumulate(f64, axis=axis)
    got = nr.logcumsumexp(a, axis=axis)
    assert got.dtype == (a.dtype.newbyteorder("=") if a.dtype.kind == "f" else np.float64)
    assert nr.cumfsum(a, axis=axis).dtype == np.asarray(nr.fsum(a, axis=axis)).dtype
    rtol = 4 * float(np.finfo(got.dtype).eps)
    np.testing.assert_allclose(got.astype(np.float64), want.astype(got.dtype).astype(np.float64),
                               rtol=rtol, atol=rtol)
    with np.errstate(invalid="ignore", over="ignore"):
        s = nr.cumfsum(a, axis=axis)
        for i in range(a.shape[ax]):
            np.testing.assert_array_equal(take(s, ax, i), nr.fsum(prefix(a, ax, i), axis=ax))
    if a.dtype.kind == "f" and not np.isfinite(f64).all():
        return
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)
        mean, var = nr.cummeanvar(a, axis=axis)
        for i in range(a.shape[ax]):
            p = prefix(f64, ax, i)
            scale = float(np.max(np.abs(p), initial=1.0))
            # float64 references, rounded to the result dtype (float16: a
            # variance over 65504 is inf)
            with np.errstate(over="ignore"):
                wm = np.asarray(np.mean(p, axis=ax)).astype(mean.dtype)
                wv = np.asarray(np.var(p, axis=ax)).astype(var.dtype)
            np.testing.assert_allclose(take(mean, ax, i), wm, rtol=1e-3, atol=1e-12 * scale)
            np.testing.assert_allclose(take(var, ax, i), wv, rtol=1e-3, atol=1e-12 * scale**2)
