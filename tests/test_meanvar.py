"""meanvar / meanstd / nanmeanvar against np.mean, np.var, np.std, np.nanmean,
np.nanvar; accuracy against exact rational arithmetic (fractions.Fraction);
the moments / nanmoments ufuncs directly."""

import warnings
from fractions import Fraction

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import numreduce as nr
from helpers import FLOAT_DTYPES, INT_DTYPES, arrays, assert_same_outcome, axes_for, outcome

REAL_DTYPES = [np.bool_] + INT_DTYPES + FLOAT_DTYPES
EMPTY_MSG = "Mean of empty slice"
DOF_MSG = "Degrees of freedom <= 0 for slice"
LD = np.dtype(np.longdouble)


def _is_ld(dt):
    """longdouble in either byte order (np.dtype('>f16') != LD on a
    little-endian machine)."""
    return np.dtype(dt).newbyteorder("=") == LD


def _wide(a_dtype, dtype):
    """The precision a float64/longdouble reference is computed in."""
    if _is_ld(a_dtype) or (dtype is not None and _is_ld(dtype)):
        return LD
    return np.dtype(np.float64)


def _rtol(res_dtype):
    res_dtype = np.dtype(res_dtype)
    if res_dtype.itemsize <= 4:
        return float(np.finfo(res_dtype).eps)   # one rounding to float16/float32
    return 1e-12


def _recorded(fn):
    """(outcome, {EMPTY_MSG, DOF_MSG} subset actually warned)."""
    with warnings.catch_warnings(record=True) as rec:
        warnings.simplefilter("always")
        res = outcome(fn)
    kinds = set()
    for w in rec:
        if issubclass(w.category, RuntimeWarning):
            for msg in (EMPTY_MSG, DOF_MSG):
                if str(w.message).startswith(msg):
                    kinds.add(msg)
    return res, kinds


def _finite_scale(a):
    f = np.asarray(a, dtype=np.float64) if not _is_ld(a.dtype) else np.asarray(a)
    f = f[np.isfinite(f)]
    return float(np.max(np.abs(f))) if f.size else 0.0


def check_pair(got, want_np, want_wide, a, var_power, n_scale):
    """got: numreduce's (mean, second); want_np: NumPy's on the input itself
    (the authority on dtype, type and shape); want_wide: NumPy's on the input
    converted to float64 / longdouble (the authority on values)."""
    assert isinstance(got, tuple) and len(got) == 2
    scale = _finite_scale(a)
    for k, (g, w, ww) in enumerate(zip(got, want_np, want_wide)):
        assert type(g) is type(w), (k, type(g), type(w))
        assert g.dtype == w.dtype, (k, g.dtype, w.dtype)
        assert np.shape(g) == np.shape(w), (k, np.shape(g), np.shape(w))
        rtol = _rtol(w.dtype)
        power = 1 if k == 0 else var_power
        # rounding-error bound of any summation order: ~ n eps max|x|**power
        with np.errstate(over="ignore"):  # finite data near the float64 limit
            atol = float(max(rtol, 1e-13 * n_scale) * np.float64(scale) ** power)
        if w.dtype.itemsize <= 4:
            atol += float(np.finfo(w.dtype).smallest_subnormal)
        ww = np.asarray(ww)
        with np.errstate(over="ignore", invalid="ignore"):
            rounded = ww.astype(w.dtype).astype(ww.dtype)   # overflow to inf included
        gv = np.asarray(g).astype(ww.dtype)
        np.testing.assert_array_equal(np.isnan(gv), np.isnan(rounded),
                                      err_msg=f"output {k}: NaN positions")
        inf = np.isinf(gv) | np.isinf(rounded)
        np.testing.assert_array_equal(gv[inf], rounded[inf], err_msg=f"output {k}: infinities")
        fin = np.isfinite(gv) & np.isfinite(rounded)
        np.testing.assert_allclose(gv[fin], ww[fin], rtol=rtol, atol=atol,
                                   err_msg=f"output {k}")


def _call_kwargs(axis, keepdims, where, ddof, dtype):
    kw = {} if axis == "default" else {"axis": axis}
    if keepdims:
        kw["keepdims"] = True
    if where is not None:
        kw["where"] = where
    if dtype is not None:
        kw["dtype"] = dtype
    return kw, dict(kw, ddof=ddof)


def _run_differential(fn, mean_fn, second_fn, var_power, a, axis, keepdims, where, ddof, dtype):
    kw_mean, kw_var = _call_kwargs(axis, keepdims, where, ddof, dtype)
    got, got_w = _recorded(lambda: fn(a, **kw_var))
    want, want_w = _recorded(lambda: (mean_fn(a, **kw_mean), second_fn(a, **kw_var)))
    if want[0] == "raise" or got[0] == "raise":
        assert_same_outcome(got, want)
        return
    wide = _wide(a.dtype, dtype)
    kw_mean_w = {k: v for k, v in kw_mean.items() if k != "dtype"}
    kw_var_w = {k: v for k, v in kw_var.items() if k != "dtype"}
    aw = a.astype(wide)
    if a.dtype.kind in "biu":
        # np.nanmean / np.nanvar of integers are np.mean / np.var (no NaN
        # handling, e.g. inf rather than NaN for ddof >= count); keep that
        # for the float copy
        mean_fn = {np.nanmean: np.mean}.get(mean_fn, mean_fn)
        second_fn = {np.nanvar: np.var, np.nanstd: np.std}.get(second_fn, second_fn)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        want_wide = (mean_fn(aw, **kw_mean_w), second_fn(aw, **kw_var_w))
    n_scale = max(1, a.size)
    check_pair(got[1], want[1], want_wide, a, var_power, n_scale)
    if np.size(want[1][0]) == 0:
        # No slice at all (e.g. shape (0, 0), axis=0): np.mean/np.var still
        # warn about "empty slices" there while np.nanmean/np.nanvar do not;
        # nothing was computed, so a warning is not required either way.
        return
    assert got_w == want_w, f"warnings: numreduce {got_w}, NumPy {want_w}"


@st.composite
def axis_for(draw, a):
    """axes_for, less an int axis on a 0-d array (np.mean raises AxisError
    there, ufunc.reduce does not: test_zero_d_int_axis_like_numpy)."""
    axis = draw(axes_for(a.ndim))
    if a.ndim == 0 and isinstance(axis, int):
        return None
    return axis


@st.composite
def where_for(draw, a):
    if not draw(st.booleans()):
        return None
    shape = a.shape if draw(st.booleans()) else a.shape[-1:]
    bits = draw(st.lists(st.booleans(), min_size=int(np.prod(shape)),
                         max_size=int(np.prod(shape))))
    return np.array(bits, dtype=bool).reshape(shape)


# ---------------------------------------------------------------------------
# differential: meanvar, meanstd, nanmeanvar
# ---------------------------------------------------------------------------

@given(data=st.data())
def test_meanvar_differential(data):
    a = data.draw(arrays(dtypes=REAL_DTYPES))
    axis = data.draw(axis_for(a))
    _run_differential(nr.meanvar, np.mean, np.var, 2, a, axis, data.draw(st.booleans()),
                      data.draw(where_for(a)), data.draw(st.sampled_from([0, 1, 2])), None)


@given(data=st.data())
def test_meanvar_differential_dtype_argument(data):
    a = data.draw(arrays(dtypes=REAL_DTYPES, max_dims=2))
    axis = data.draw(axis_for(a))
    dtype = data.draw(st.sampled_from([np.float16, np.float32, np.float64, np.longdouble]))
    _run_differential(nr.meanvar, np.mean, np.var, 2, a, axis, data.draw(st.booleans()),
                      None, data.draw(st.sampled_from([0, 1])), dtype)


@given(data=st.data())
def test_meanstd_differential(data):
    a = data.draw(arrays(dtypes=REAL_DTYPES, max_dims=3))
    axis = data.draw(axis_for(a))
    _run_differential(nr.meanstd, np.mean, np.std, 1, a, axis, data.draw(st.booleans()),
                      data.draw(where_for(a)), data.draw(st.sampled_from([0, 1, 2])), None)


@pytest.mark.parametrize("order", ["<", ">"])
def test_meanstd_longdouble_either_byte_order_keeps_subnormal_std(order):
    # Found by hypothesis in test_meanstd_differential: the wide reference
    # was float64 for byte-swapped longdouble, where the variance (x/2)**2
    # underflows to 0; in longdouble it does not, and np.std agrees.
    a = np.array([2.2250738585072014e-308, 0.0], dtype=np.dtype(np.longdouble).newbyteorder(order))
    _run_differential(nr.meanstd, np.mean, np.std, 1, a, "default", False, None, 0, None)
    m, s = nr.meanstd(a)
    assert s == np.std(a) and s > 0


@given(data=st.data())
def test_nanmeanvar_differential(data):
    a = data.draw(arrays(dtypes=REAL_DTYPES, max_dims=3))
    axis = data.draw(axis_for(a))
    _run_differential(nr.nanmeanvar, np.nanmean, np.nanvar, 2, a, axis,
                      data.draw(st.booleans()), data.draw(where_for(a)),
                      data.draw(st.sampled_from([0, 1, 2])), None)


@pytest.mark.parametrize("data", [[1e200, -1e200], [2**62 + 1, 2**62 + 3], [1e-195, 0.0],
                                  [2**61 + 1, 2**61 + 3, 2**61 + 5]], ids=repr)
def test_dtype_longdouble_is_computed_in_longdouble(data):
    """np.mean / np.var compute in the dtype= precision: long double keeps
    1e400 (beyond float64) and integers beyond 2**53 exactly.  (np.nanvar
    squares the deviations in the input's float64 even with dtype=longdouble,
    so for this NaN-free data nanmeanvar is held to np.var instead.)"""
    a = np.array(data)
    for fn, refs in ((nr.meanvar, (np.mean, np.var)), (nr.meanstd, (np.mean, np.std)),
                     (nr.nanmeanvar, (np.mean, np.var))):
        got = fn(a, dtype=np.longdouble)
        want = (refs[0](a, dtype=np.longdouble), refs[1](a, dtype=np.longdouble))
        for g, w in zip(got, want):
            assert g.dtype == w.dtype == LD
            np.testing.assert_allclose(g, w, rtol=1e-15, err_msg=f"{fn.__name__} {data}")


@pytest.mark.parametrize("dtype", REAL_DTYPES, ids=str)
@pytest.mark.parametrize("shape,axis", [((1000,), None), ((37, 53), 0), ((37, 53), 1),
                                        ((6, 7, 8), (0, 2)), ((6, 7, 8), -1), ((513,), 0)])
def test_meanvar_every_dtype_random_shapes(dtype, shape, axis):
    rng = np.random.default_rng(sum(shape))
    dt = np.dtype(dtype)
    if dt.kind == "b":
        a = rng.random(shape) < 0.3
    elif dt.kind in "iu":
        info = np.iinfo(dt)
        a = rng.integers(max(info.min, -10**6), min(info.max, 10**6), shape).astype(dt)
    else:
        a = (rng.standard_normal(shape) * 3 + 10).astype(dt)
    for arr in (a, a[..., ::-1], a.T if a.ndim > 1 else a[::2]):
        ax = axis if arr.ndim == len(shape) else None
        for ddof in (0, 1, 2):
            for keepdims in (False, True):
                _run_differential(nr.meanvar, np.mean, np.var, 2, arr, ax, keepdims, None,
                                  ddof, None)
                _run_differential(nr.meanstd, np.mean, np.std, 1, arr, ax, keepdims, None,
                                  ddof, None)


def test_result_dtypes_and_types_follow_numpy():
    for dt in REAL_DTYPES:
        a = np.arange(12).astype(dt).reshape(3, 4)
        for kw in ({}, {"axis": 0}, {"axis": (0, 1), "keepdims": True},
                   {"dtype": np.float32}, {"dtype": np.longdouble, "axis": 1}):
            for fn, refs in ((nr.meanvar, (np.mean, np.var)), (nr.meanstd, (np.mean, np.std)),
                             (nr.nanmeanvar, (np.nanmean, np.nanvar))):
                got = fn(a, **kw)
                want = tuple(r(a, **kw) for r in refs)
                for g, w in zip(got, want):
                    assert type(g) is type(w), (dt, kw, fn.__name__, type(g), type(w))
                    assert g.dtype == w.dtype, (dt, kw, fn.__name__, g.dtype, w.dtype)


@pytest.mark.parametrize("axis", [0, -1, 1])
@pytest.mark.parametrize("fn,refs", [(nr.meanvar, (np.mean, np.var)),
                                     (nr.meanstd, (np.mean, np.std)),
                                     (nr.nanmeanvar, (np.nanmean, np.nanvar))],
                         ids=["meanvar", "meanstd", "nanmeanvar"])
def test_zero_d_int_axis_like_numpy(fn, refs, axis):
    """np.mean / np.var of a 0-d array with an int axis raise AxisError."""
    a = np.array(2.5)
    assert_same_outcome(outcome(lambda: fn(a, axis=axis)),
                        outcome(lambda: (refs[0](a, axis=axis), refs[1](a, axis=axis))))


@pytest.mark.parametrize("dtype", [">f2", ">f4", ">f8", "<f8", ">i4", ">u2"])
def test_byteswapped_input_gives_native_results(dtype):
    a = np.arange(12).reshape(3, 4).astype(dtype)
    for fn, refs in ((nr.meanvar, (np.mean, np.var)), (nr.meanstd, (np.mean, np.std)),
                     (nr.nanmeanvar, (np.nanmean, np.nanvar))):
        got = fn(a, axis=0)
        want = (refs[0](a, axis=0), refs[1](a, axis=0))
        for g, w in zip(got, want):
            assert g.dtype == w.dtype and g.dtype.isnative, (fn.__name__, g.dtype, w.dtype)
            np.testing.assert_allclose(g, w, rtol=_rtol(w.dtype))


def test_docstring_examples():
    assert nr.meanvar(np.array([1.0, 2.0, 3.0, 4.0])) == (2.5, 1.25)
    m, v = nr.meanvar(np.array([[1, 2], [3, 5]]), axis=0, ddof=1)
    np.testing.assert_array_equal(m, [2.0, 3.5])
    np.testing.assert_array_equal(v, [2.0, 4.5])
    assert nr.meanstd(np.array([2.0, 4.0, 4.0, 4.0, 5.0, 5.0, 7.0, 9.0])) == (5.0, 2.0)
    assert nr.nanmeanvar(np.array([1.0, np.nan, 3.0])) == (2.0, 1.0)


# ---------------------------------------------------------------------------
# empty and all-NaN slices, ddof >= count
# ---------------------------------------------------------------------------

@pytest.mark.parametrize("shape,axis", [((0,), None), ((0, 3), 0), ((3, 0), 1),
                                        ((2, 0, 3), (0, 1))])
@pytest.mark.parametrize("fn,refs", [(nr.meanvar, (np.mean, np.var)),
                                     (nr.meanstd, (np.mean, np.std)),
                                     (nr.nanmeanvar, (np.nanmean, np.nanvar))],
                         ids=["meanvar", "meanstd", "nanmeanvar"])
def test_empty_slices_nan_and_warnings(fn, refs, shape, axis):
    a = np.empty(shape)
    with pytest.warns(RuntimeWarning, match=EMPTY_MSG), \
            pytest.warns(RuntimeWarning, match=DOF_MSG):
        got = fn(a, axis=axis)
    _run_differential(fn, refs[0], refs[1], 2, a, axis, False, None, 0, None)
    assert all(np.isnan(g).all() for g in got)


@pytest.mark.parametrize("dtype", [np.float16, np.float32, np.float64, np.longdouble], ids=str)
def test_nanmeanvar_all_nan_slices(dtype):
    a = np.array([[np.nan, np.nan, np.nan], [1.0, np.nan, 3.0]], dtype=dtype)
    with pytest.warns(RuntimeWarning, match=EMPTY_MSG), \
            pytest.warns(RuntimeWarning, match=DOF_MSG):
        m, v = nr.nanmeanvar(a, axis=1)
    assert np.isnan(m[0]) and np.isnan(v[0]) and m[1] == 2 and v[1] == 1
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        np.testing.assert_array_equal(m, np.nanmean(a, axis=1))
        np.testing.assert_array_equal(v, np.nanvar(a, axis=1))
    _run_differential(nr.nanmeanvar, np.nanmean, np.nanvar, 2, a, 1, False, None, 0, None)
    _run_differential(nr.nanmeanvar, np.nanmean, np.nanvar, 2, a, None, False, None, 0, None)
    with warnings.catch_warnings():
        warnings.simplefilter("error")          # no all-NaN slice along axis 0 but column 1
        _run_differential(nr.nanmeanvar, np.nanmean, np.nanvar, 2, a[:, [0, 2]], 0, False,
                          None, 0, None)


@pytest.mark.parametrize("ddof", [1, 2, 3])
@pytest.mark.parametrize("data", [[5.0], [1.0, 2.0], [1.0, 2.0, 4.0], [3.0, 3.0]], ids=repr)
def test_ddof_at_least_count_like_numpy(data, ddof):
    a = np.array(data)
    _run_differential(nr.meanvar, np.mean, np.var, 2, a, None, False, None, ddof, None)
    _run_differential(nr.meanstd, np.mean, np.std, 1, a, None, False, None, ddof, None)


@pytest.mark.parametrize("ddof", [1, 2, 3])
@pytest.mark.parametrize("data", [[5.0, np.nan], [1.0, np.nan, 2.0], [1.0, 2.0, 4.0],
                                  [np.nan, 3.0, 3.0]], ids=repr)
def test_nanmeanvar_ddof_at_least_count_like_numpy(data, ddof):
    """np.nanvar gives NaN (not inf) where count - ddof <= 0."""
    a = np.array(data)
    _run_differential(nr.nanmeanvar, np.nanmean, np.nanvar, 2, a, None, False, None, ddof, None)


@pytest.mark.parametrize("data", [[1e308, -1e308], [-1e308, 1e308], [1e308, -1e308, 5.0],
                                  [1.7e308, -1.7e308, 1.0, 2.0]], ids=repr)
def test_finite_data_spanning_the_float_range(data):
    """Finite data whose differences overflow float64: np.mean is exact here
    (the sum cancels) and np.var is inf (the true variance exceeds float64),
    so a shifted algorithm must not turn x - K = -inf into the mean."""
    a = np.array(data)
    for arr in (a, a[::-1]):
        with np.errstate(over="ignore"):
            _run_differential(nr.meanvar, np.mean, np.var, 2, arr, None, False, None, 0, None)
            _run_differential(nr.nanmeanvar, np.nanmean, np.nanvar, 2, arr, None, False, None,
                              0, None)


@pytest.mark.parametrize("data", [[1e308, 1e308, -1e308, -1e308], [-1.5e308] + [1.5e308] * 600,
                                  [1e308] * 10, [-1.7e308, -1.7e308, 1.0]],
                         ids=lambda d: repr(d)[:40])
def test_finite_data_where_numpy_overflows(data):
    """Here np.mean's own sum overflows: the mean must be NumPy's or the exact
    mean (rounded); the variance (exactly beyond float64 or not) NumPy's or
    the exact one -- never NaN for finite data."""
    a = np.array(data)
    ex_m, ex_v = exact_meanvar(a)
    with np.errstate(over="ignore"):
        ex_v = float(ex_v) if ex_v < Fraction(np.finfo(np.float64).max) else np.inf
    for arr in (a, a[::-1]):
        with np.errstate(over="ignore", invalid="ignore"):
            m, v = nr.meanvar(arr)
            want_m, want_v = np.mean(arr), np.var(arr)
        assert m == want_m or abs(Fraction(float(m)) - ex_m) <= 2 * ulp(ex_m), (data, m, want_m)
        assert v == want_v or v == ex_v or abs(v - ex_v) <= 1e-12 * ex_v, (data, v, want_v, ex_v)


def test_inf_data_with_where_mask_like_numpy():
    a = np.array([np.inf, 0.0, 5.0, np.inf, 1.0])
    where = np.array([True, True, False, False, True])
    _run_differential(nr.meanvar, np.mean, np.var, 2, a, None, False, where, 0, None)
    b = np.full((6, 5), np.inf)
    b[5, 3] = 0.0
    _run_differential(nr.nanmeanvar, np.nanmean, np.nanvar, 2, b, None, False,
                      np.array([False, False, False, True, False]), 0, None)


def test_where_all_false_slice():
    a = np.arange(12.0).reshape(3, 4)
    where = np.array([[True, False, True, False]] * 3)
    where[1] = False
    for axis in (1, None, 0):
        _run_differential(nr.meanvar, np.mean, np.var, 2, a, axis, False, where, 0, None)
        _run_differential(nr.nanmeanvar, np.nanmean, np.nanvar, 2, a, axis, False, where, 1,
                          None)


def test_inf_and_nan_data_like_numpy():
    inf, nan = np.inf, np.nan
    for data in ([inf, 1.0], [inf, inf], [-inf, inf], [nan, 1.0], [1.0, 2.0, -inf],
                 [inf] * 40 + [1.0], [1.0] * 40 + [-inf, inf], [2.0] * 600 + [inf],
                 [inf] + [2.0] * 600, [-inf] + [1.0] * 1000, [1.0] * 700 + [inf] + [1.0] * 700):
        a = np.array(data)
        for arr in (a, a[::-1], a.astype(np.float32)):
            _run_differential(nr.meanvar, np.mean, np.var, 2, arr, None, False, None, 0, None)
            _run_differential(nr.nanmeanvar, np.nanmean, np.nanvar, 2, arr, None, False, None,
                              0, None)


def test_axis0_frames_of_special_columns_like_numpy():
    """axis=0 takes each column's frame from its first block's mean; where
    that mean is not finite (inf/NaN in the block, a sum that overflows)
    the first finite value instead.  Columns of such data, in 64-row blocks
    and across them, give NumPy's mean and variance (inf/NaN as NumPy) or,
    where NumPy's own sum overflows, the exact ones."""
    inf, nan = np.inf, np.nan
    for data in ([inf, 1.0], [nan, 1.0], [1.0, 2.0, -inf], [inf] * 40 + [1.0],
                 [2.0] * 100 + [inf], [inf] + [2.0] * 100, [nan] * 70 + [3.0] * 60,
                 [1.0] * 70 + [-inf, inf] + [1.0] * 60):
        col = np.array(data)
        a = np.stack([col, col[::-1], np.roll(col, 1), np.full(col.size, 5.0)], axis=1)
        for arr in (a, a.astype(np.float32)):
            with np.errstate(invalid="ignore"):
                _run_differential(nr.meanvar, np.mean, np.var, 2, arr, 0, False, None, 0, None)
            with np.errstate(invalid="ignore", divide="ignore"), warnings.catch_warnings():
                warnings.simplefilter("ignore", RuntimeWarning)  # all-NaN columns, as NumPy's
                _run_differential(nr.nanmeanvar, np.nanmean, np.nanvar, 2, arr, 0, False, None,
                                  0, None)
    # a first block whose sum overflows (its mean is not finite): the first value's frame
    for col in (np.array([1e308] * 70 + [-1e308] * 70), np.array([-1.5e308] + [1.5e308] * 99)):
        a = np.stack([col, col[::-1]], axis=1)
        ex_m, ex_v = exact_meanvar(col)
        with np.errstate(over="ignore", invalid="ignore"):
            m, v = nr.meanvar(a, axis=0)
            ex_v = float(ex_v) if ex_v < Fraction(np.finfo(np.float64).max) else np.inf
            for c in range(2):
                one = a[:, c]
                assert m[c] == np.mean(one) or abs(Fraction(float(m[c])) - ex_m) <= 2 * ulp(ex_m), (c, m)
                assert v[c] == np.var(one) or v[c] == ex_v or abs(v[c] - ex_v) <= 1e-12 * ex_v, (c, v)


# ---------------------------------------------------------------------------
# accuracy against exact rational arithmetic
# ---------------------------------------------------------------------------

def exact_meanvar(x, ddof=0):
    fx = [Fraction(float(v)) for v in np.asarray(x, dtype=np.float64)]
    n = len(fx)
    m = sum(fx) / n
    return m, sum((v - m) ** 2 for v in fx) / (n - ddof)


def abs_err(value, exact):
    return abs(Fraction(float(value)) - exact)


def ulp(exact):
    return abs(Fraction(float(np.spacing(np.float64(float(exact))))))


def assert_at_least_as_accurate(got, ref_np, exact, ulps=4, what="", scale=None):
    """|got - exact| <= |ref_np - exact| + ulps * ulp(scale), scale defaulting
    to the exact value itself."""
    e_got = abs_err(got, exact)
    e_np = abs_err(ref_np, exact)
    assert e_got <= e_np + ulps * ulp(exact if scale is None else scale), (
        f"{what}: numreduce rel. error {float(e_got / abs(exact)):.3g} vs np.var "
        f"{float(e_np / abs(exact)):.3g} (got {float(got)!r}, np {float(ref_np)!r}, "
        f"exact {float(exact)!r})")


DISTRIBUTIONS = {
    "normal": lambda rng, n: rng.standard_normal(n),
    "offset_1e8": lambda rng, n: 1e8 + rng.standard_normal(n),
    "offset_1e8_small_spread": lambda rng, n: 1e8 + 1e-3 * rng.standard_normal(n),
    "offset_-3e9": lambda rng, n: -3e9 + 10 * rng.standard_normal(n),
    "lognormal": lambda rng, n: rng.lognormal(0, 3, n),
    "two_levels": lambda rng, n: 1e6 + (rng.random(n) < 0.5) * 1e-4,
}


@pytest.mark.parametrize("dist", list(DISTRIBUTIONS))
@pytest.mark.parametrize("n", [2, 3, 17, 100, 1000])
def test_accuracy_vs_fraction_contiguous(dist, n):
    rng = np.random.default_rng(n)
    x = DISTRIBUTIONS[dist](rng, n)
    for ddof in (0, 1):
        m_exact, v_exact = exact_meanvar(x, ddof)
        m, v = nr.meanvar(x, ddof=ddof)
        assert_at_least_as_accurate(v, np.var(x, ddof=ddof), v_exact, what=f"var ddof={ddof}")
        # the mean's rounding errors scale with the data, not with the mean
        # (which may be ~0): 4 ulp of mean(|x|)
        assert_at_least_as_accurate(m, np.mean(x), m_exact, what="mean",
                                    scale=exact_meanvar(np.abs(x))[0])


@pytest.mark.parametrize("dist", ["normal", "offset_1e8", "offset_-3e9"])
@pytest.mark.parametrize("view", ["reversed", "strided", "axis0_column"])
def test_accuracy_vs_fraction_noncontiguous(dist, view):
    """The same accuracy promise for data the engine does not see as one
    contiguous stream (a reversed or strided view, or a column reduced with
    axis=0)."""
    rng = np.random.default_rng(42)
    base = DISTRIBUTIONS[dist](rng, 2000)
    if view == "reversed":
        x = base[:1000][::-1]
        got_v, want_v = nr.meanvar(x)[1], np.var(x)
    elif view == "strided":
        x = base[::2]
        got_v, want_v = nr.meanvar(x)[1], np.var(x)
    else:
        b = base.reshape(500, 4)
        x = b[:, 1]
        got_v, want_v = nr.meanvar(b, axis=0)[1][1], np.var(b, axis=0)[1]
    assert_at_least_as_accurate(got_v, want_v, exact_meanvar(x)[1], what=view)


# Reductions over several axes of C-ordered data, by layout: the paths
# _host._accurate picks (docs/accuracy.md "Mean and variance"): the leading
# axes (column-parallel blocked two-pass), a run of middle axes (one slab at
# a time; small slabs: the contiguous copy), the leading plus the trailing
# axes (the rows' two-pass, merged over the leading axes), the trailing axes
# (row by row), an F-ordered array (its C-ordered view).
OFFSET_LAYOUTS = {
    "leading_2d": ((3000, 8), (0,)),
    "leading_3d": ((40, 50, 6), (0, 1)),
    "middle_slabs": ((3, 200, 100), (1,)),
    "middle_small": ((3, 20, 10), (1,)),
    "ends_3d": ((40, 6, 50), (0, 2)),
    "ends_short_rows": ((4, 500, 3), (0, 2)),
    "trailing": ((6, 2000), (1,)),
    "f_order": ((2000, 6), (0,)),
}


@pytest.mark.parametrize("layout", list(OFFSET_LAYOUTS))
def test_offset_data_accuracy_by_layout_float64(layout):
    """1e8 + N(0, 1) data (a large common offset: Welford's update would
    lose about n eps |mean| / std) over each layout's axes: every variance
    at least as accurate as np.var's (within 8 ulps), every mean within 4
    ulps, against exact Fractions."""
    shape, axes = OFFSET_LAYOUTS[layout]
    rng = np.random.default_rng(sum(shape))
    x = 1e8 + rng.standard_normal(shape)
    if layout == "f_order":
        x = np.asfortranarray(x)
    m, v = nr.meanvar(x, axis=axes)
    np_v = np.var(x, axis=axes)
    kept = [i for i in range(x.ndim) if i not in axes]
    rows = np.moveaxis(x, kept, range(len(kept))).reshape(m.size, -1)
    for r, row in enumerate(rows):
        m_exact, v_exact = exact_meanvar(row)
        assert_at_least_as_accurate(v.flat[r], np_v.flat[r], v_exact, ulps=8,
                                    what=f"{layout} var {r}")
        assert abs_err(m.flat[r], m_exact) <= 4 * ulp(m_exact), (layout, r, m.flat[r])


@pytest.mark.parametrize("dtype", [np.int64, np.uint32, np.longdouble])
def test_offset_data_accuracy_over_the_ends(dtype):
    """The leading plus the trailing axes merge the rows' moments in a frame
    (each output's first value) for every type whose moments keep its own
    precision: integers and long double too, at least as accurate as
    np.var against exact Fractions."""
    rng = np.random.default_rng(5)
    x = (10**8 + rng.integers(-5, 6, (40, 6, 50))).astype(dtype)
    m, v = nr.meanvar(x, axis=(0, 2))
    np_v = np.var(x, axis=(0, 2))
    for b in range(x.shape[1]):
        m_exact, v_exact = exact_meanvar(x[:, b, :].ravel())
        assert_at_least_as_accurate(v[b], np_v[b], v_exact, ulps=8, what=f"var {b}")
        assert abs_err(m[b], m_exact) <= 4 * ulp(m_exact), (b, m[b])


def test_ends_frame_overflow_and_specials_like_numpy():
    """x - K overflowing in the ends' frame, inf/NaN data: the copy path's
    results (NumPy's), with no warning of the frame's own subtraction and
    none raised under np.errstate(all='raise')."""
    big = np.array([1e308, -1e308] * 30).reshape(3, 4, 5)
    infs = np.ones((4, 3, 5))
    infs[1, 1, 1] = np.inf
    infs[2, 2, 0] = np.nan
    for x in (big, infs):
        with warnings.catch_warnings():
            warnings.simplefilter("error")
            with np.errstate(over="ignore", invalid="ignore"):
                m, v = nr.meanvar(x, axis=(0, 2))
                want = [nr.meanvar(np.ascontiguousarray(x.transpose(1, 0, 2)).reshape(x.shape[1], -1),
                                   axis=1)]
        np.testing.assert_array_equal(m, want[0][0])
        np.testing.assert_array_equal(v, want[0][1])
    with np.errstate(all="raise"):
        nr.meanvar(np.full((3, 4, 5), 1e8), axis=(0, 2))


@pytest.mark.parametrize("layout", list(OFFSET_LAYOUTS))
def test_offset_data_accuracy_by_layout_float32(layout):
    """1e4 + N(0, 1) float32 data (1e8 is a grid of 8 in float32) over each
    layout's axes: the float32 mean and variance within one float32 ulp of
    the exact values (the moments run in float64)."""
    shape, axes = OFFSET_LAYOUTS[layout]
    rng = np.random.default_rng(sum(shape) + 1)
    x = (1e4 + rng.standard_normal(shape)).astype(np.float32)
    if layout == "f_order":
        x = np.asfortranarray(x)
    m, v = nr.meanvar(x, axis=axes)
    assert m.dtype == v.dtype == np.float32
    kept = [i for i in range(x.ndim) if i not in axes]
    rows = np.moveaxis(x, kept, range(len(kept))).reshape(m.size, -1)
    for r, row in enumerate(rows):
        for got, exact in zip((m.flat[r], v.flat[r]), exact_meanvar(row)):
            ulp32 = Fraction(float(np.spacing(np.float32(float(exact)))))
            assert abs_err(got, exact) <= ulp32, (layout, r, float(got), float(exact))


def _rel(a, b):
    return np.abs(np.asarray(a, dtype=LD) - np.asarray(b, dtype=LD)) / np.abs(np.asarray(b, LD))


def test_accuracy_large_offset_data_full_reduction():
    rng = np.random.default_rng(2024)
    a = 1e8 + rng.standard_normal(1_000_000)
    want = np.var(a.astype(np.longdouble))
    m, v = nr.meanvar(a)
    assert _rel(v, want) <= 1e-14, float(_rel(v, want))
    assert _rel(m, np.mean(a.astype(np.longdouble))) <= 1e-15
    s = nr.meanstd(a, ddof=1)[1]
    assert _rel(s, np.std(a.astype(np.longdouble), ddof=1)) <= 1e-14


def test_accuracy_large_offset_data_last_axis():
    rng = np.random.default_rng(7)
    a = 1e8 + rng.standard_normal((1000, 1000))
    want = np.var(a.astype(np.longdouble), axis=-1)
    v = nr.meanvar(a, axis=-1)[1]
    assert np.max(_rel(v, want)) <= 1e-14, float(np.max(_rel(v, want)))


def test_accuracy_large_offset_data_first_axis():
    rng = np.random.default_rng(8)
    a = 1e8 + rng.standard_normal((2000, 50))
    want = np.var(a.astype(np.longdouble), axis=0)
    v = nr.meanvar(a, axis=0)[1]
    assert np.max(_rel(v, want)) <= 1e-14, float(np.max(_rel(v, want)))


def test_float32_data_is_accumulated_in_float64():
    """float32 data: the values are computed in float64 and rounded once, so
    they are the float64 answer rounded to float32 (np.var computes in
    float32 and is less accurate here)."""
    rng = np.random.default_rng(1)
    a = (1e4 + rng.standard_normal(50_000)).astype(np.float32)
    m, v = nr.meanvar(a)
    assert m.dtype == v.dtype == np.float32
    ref_m, ref_v = exact_meanvar(a)
    assert abs_err(np.float64(m), ref_m) <= Fraction(float(np.spacing(np.float32(float(ref_m)))))
    assert abs_err(np.float64(v), ref_v) <= Fraction(float(np.spacing(np.float32(float(ref_v)))))


# ---------------------------------------------------------------------------
# the moments / nanmoments ufuncs
# ---------------------------------------------------------------------------

@pytest.mark.parametrize("dtype", REAL_DTYPES, ids=str)
def test_moments_reduce_returns_count_mean_m2(reduce_path, dtype):
    rng = np.random.default_rng(3)
    dt = np.dtype(dtype)
    a = (rng.random(300) < 0.5) if dt.kind == "b" else (rng.random(300) * 100).astype(dt)
    count, mean, m2 = reduce_path(nr.moments, a)
    out_dt = LD if dt == LD else np.dtype(np.float64)
    for r in (count, mean, m2):
        assert r.dtype == out_dt and type(r) is out_dt.type
    ex_m, ex_v = exact_meanvar(a.astype(np.float64) if dt != LD else a)
    assert count == 300
    # any summation order: |error| <= n eps (sum of |terms|) -- n eps = 300 * 2**-52
    tol = Fraction(300, 2**52)
    assert abs(Fraction(float(mean)) - ex_m) <= tol * exact_meanvar(np.abs(
        a.astype(np.float64) if dt != LD else a))[0] + ulp(ex_m)
    assert abs(Fraction(float(m2)) - 300 * ex_v) <= tol * 300 * ex_v + ulp(300 * ex_v)


def test_moments_float32_gives_float64_accumulators(reduce_path):
    a = np.array([1.5, 2.5, 4.0, 16777217.0 - 0.5], dtype=np.float32)
    for r in reduce_path(nr.moments, a):
        assert r.dtype == np.float64
    res = nr.moments(np.float32(1.0), np.float32(2.0))
    assert all(np.asarray(r).dtype == np.float64 for r in res)
    # a float32 accumulator could not represent this mean of two float32s
    x, y = np.float32(16777216.0), np.float32(1.0)
    count, mean, m2 = nr.moments(x, y)
    assert (count, mean, m2) == (2.0, 8388608.5, (16777215.0 ** 2) / 2)


def test_moments_count_exact_beyond_2_24(reduce_path):
    n = 2**24 + 3
    a = np.broadcast_to(np.float32(1.5), (n,))
    assert a.strides == (0,)
    count, mean, m2 = reduce_path(nr.moments, a)
    assert count.dtype == np.float64
    assert count == n                     # a float32 count would stop at 2**24
    assert mean == 1.5 and m2 == 0.0
    assert nr.meanvar(a) == (np.float32(1.5), np.float32(0.0))


def test_moments_elementwise_pair():
    rng = np.random.default_rng(0)
    x, y = rng.standard_normal(50), rng.standard_normal(50) * 10
    count, mean, m2 = nr.moments(x, y)
    np.testing.assert_array_equal(count, 2.0)
    for xi, yi, mi, m2i in zip(x, y, mean, m2):
        fx, fy = Fraction(float(xi)), Fraction(float(yi))
        # one rounded difference and one rounded sum: within 1 ulp of max(|x|, |y|)
        assert abs(Fraction(float(mi)) - (fx + fy) / 2) <= ulp(max(abs(fx), abs(fy)))
        ex_m2 = (fx - fy) ** 2 / 2
        assert abs(Fraction(float(m2i)) - ex_m2) <= Fraction(4, 2**53) * ex_m2


def test_moments_reduce_axes_and_empty(reduce_path):
    rng = np.random.default_rng(4)
    a = rng.standard_normal((5, 6, 7))
    for axis in (0, 1, 2, (0, 2), None):
        count, mean, m2 = reduce_path(nr.moments, a, axis=axis)
        np.testing.assert_array_equal(count, np.ones_like(a).sum(axis=axis))
        np.testing.assert_allclose(mean, a.mean(axis=axis), rtol=1e-13, atol=1e-15)
        np.testing.assert_allclose(m2, a.var(axis=axis) * count, rtol=1e-12)
    count, mean, m2 = reduce_path(nr.moments, np.empty((0, 3)), axis=0)
    np.testing.assert_array_equal(count, [0, 0, 0])
    np.testing.assert_array_equal(m2, [0, 0, 0])


def test_nanmoments_skip_nan(reduce_path):
    a = np.array([[1.0, np.nan, 3.0, np.nan], [np.nan] * 4, [2.0, 2.0, 2.0, 8.0]])
    count, mean, m2 = reduce_path(nr.nanmoments, a, axis=1)
    np.testing.assert_array_equal(count, [2, 0, 4])
    np.testing.assert_array_equal(mean[[0, 2]], [2.0, 3.5])
    np.testing.assert_array_equal(m2[[0, 2]], [2.0, 27.0])


def test_unsupported_dtypes_raise_typeerror():
    # complex is supported (tests/test_dtype_rules.py); np.var raises for
    # these too, except object arrays (docs/differences.md)
    for a in (np.array(["x"]), np.array([1], dtype="M8[s]"), np.array([1], dtype="m8[s]"),
              np.array([1.0], dtype=object)):
        with pytest.raises(TypeError):
            nr.meanvar(a)
        with pytest.raises(TypeError):
            nr.nanmeanvar(a)


@settings(max_examples=40)
@given(data=st.data())
def test_moments_reduce_where_matches_masked_numpy(reduce_path, data):
    a = data.draw(arrays(dtypes=[np.float64, np.int32, np.float32], min_dims=1, max_dims=3))
    where = data.draw(where_for(a))
    if where is None:
        where = np.ones(a.shape[-1:], bool)
    axis = data.draw(st.integers(-a.ndim, a.ndim - 1))
    count, mean, m2 = reduce_path(nr.moments, a, axis=axis, where=where)
    np.testing.assert_array_equal(count, np.sum(np.broadcast_to(where, a.shape), axis=axis))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        want_mean = np.mean(a.astype(np.float64), axis=axis, where=where)
    ok = count > 0
    np.testing.assert_allclose(np.asarray(mean)[ok], np.asarray(want_mean)[ok], rtol=1e-12,
                               atol=1e-12 * _finite_scale(a), equal_nan=True)


def test_no_stray_warnings_for_ordinary_data():
    a = np.arange(20.0).reshape(4, 5)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        for fn in (nr.meanvar, nr.meanstd, nr.nanmeanvar):
            for axis in (None, 0, 1):
                fn(a, axis=axis, ddof=1)



@pytest.mark.parametrize("n", [7, 8, 9, 16, 17, 511, 512, 513, 1023, 1024, 1025, 2063])
@pytest.mark.parametrize("special", [[np.nan], [np.inf], [-np.inf], [np.inf, -np.inf],
                                     [np.nan, np.inf]], ids=repr)
def test_specials_at_every_lane_and_block_position(n, special):
    rng = np.random.default_rng(n)
    base = 1e3 + rng.standard_normal(n)
    for p in sorted({0, 1, 4, 7, min(8, n - 1), n // 2, n - 1}):
        a = base.copy()
        for k, v in enumerate(special):
            a[(p + k * (n // 3 + 1)) % n] = v
        for arr in (a, a[::-1]):
            _run_differential(nr.meanvar, np.mean, np.var, 2, arr, None, False, None, 0, None)
            _run_differential(nr.nanmeanvar, np.nanmean, np.nanvar, 2, arr, None, False,
                              None, 1, None)


@pytest.mark.parametrize("n", [1, 7, 8, 9, 16, 17, 511, 512, 513, 1023, 1024, 1025, 2063, 4099])
def test_accuracy_offset_data_lane_and_block_sizes(n):
    """Offset data at sizes around the vector width and the block size."""
    rng = np.random.default_rng(n)
    x = 1e8 + rng.standard_normal(n)
    if n < 2:
        assert nr.meanvar(x) == (x[0], 0.0)
        return
    for ddof in (0, 1):
        for arr in (x, x[::-1], np.repeat(x, 2)[::2]):
            _, v_exact = exact_meanvar(arr, ddof)
            assert_at_least_as_accurate(nr.meanvar(arr, ddof=ddof)[1], np.var(arr, ddof=ddof),
                                        v_exact, what=f"n={n} ddof={ddof}")


def test_meanvar_large_offset_data_with_threads(two_threads):
    rng = np.random.default_rng(24)
    a = 1e8 + rng.standard_normal(2**22 + 1)
    v = nr.meanvar(a)[1]
    want = np.var(a.astype(np.longdouble))
    assert _rel(v, want) <= 1e-14, float(_rel(v, want))
    count, mean, m2 = nr.reduce(nr.moments, a, axis=None)
    assert count == a.size


@pytest.mark.parametrize("dtype", ["float64", "float32", "int64"])
def test_meanvar_threads_as_accurate_as_one_thread(two_threads, dtype):
    """A stream split across threads is reduced in one shifted frame chosen
    for the whole stream, so the merged result is as accurate as one
    thread's (both against a long double reference)."""
    rng = np.random.default_rng(25)
    a = (1e6 + 10 * rng.standard_normal(2**22 + 3)).astype(dtype)
    ref_m = np.mean(a.astype(LD))
    ref_v = np.var(a.astype(LD))
    m2, v2 = nr.meanvar(a, dtype=np.float64)
    nr.set_num_threads(1)
    m1, v1 = nr.meanvar(a, dtype=np.float64)
    nr.set_num_threads(2)
    eps = np.finfo(np.float64).eps
    assert _rel(v2, ref_v) <= 2 * _rel(v1, ref_v) + 4 * eps, (float(_rel(v2, ref_v)), float(_rel(v1, ref_v)))
    assert _rel(m2, ref_m) <= 2 * _rel(m1, ref_m) + 2 * eps
    assert _rel(v2, ref_v) <= _rel(np.var(a, dtype=np.float64), ref_v) + 4 * eps


def test_nanmeanvar_threads_non_finite_in_later_chunk(two_threads):
    """NaN / inf at the start of the second chunk, and a first chunk that
    begins with NaNs (the frame comes from the first number)."""
    rng = np.random.default_rng(26)
    n = 2**22 + 1
    half = (n + 1) // 2
    a = 5e7 + rng.standard_normal(n)
    a[:10] = np.nan
    a[half] = np.nan
    with np.errstate(invalid="ignore"):
        m, v = nr.nanmeanvar(a)
        assert _rel(m, np.nanmean(a.astype(LD))) <= 1e-15
        assert _rel(v, np.nanvar(a.astype(LD))) <= 1e-14
        b = a.copy()
        b[half] = np.inf
        m, v = nr.nanmeanvar(b)
        assert m == np.inf and np.isnan(v)
        m, v = nr.meanvar(a)
        assert np.isnan(m) and np.isnan(v)


@pytest.mark.parametrize("shape", [(130, 600), (7, 300), (65, 257)])
def test_axis0_row_blocks_wide(shape):
    """meanvar / nanmeanvar over axis 0 of C-ordered data wider than one
    column block (256) and taller than one row block (64), with NaN and inf
    in some columns: the column-parallel rows_reduce path."""
    rng = np.random.default_rng(shape[1])
    a = 1e6 + rng.standard_normal(shape)
    a[0, 3] = np.nan
    a[-1, shape[1] - 1] = np.inf
    a[shape[0] // 2, 260 % shape[1]] = -np.inf
    with np.errstate(invalid="ignore"):
        m, v = nr.meanvar(a, axis=0, ddof=1)
        np.testing.assert_allclose(m, np.mean(a, axis=0), rtol=1e-15)
        np.testing.assert_allclose(v, np.var(a, axis=0, ddof=1), rtol=1e-12)
        nm, nv = nr.nanmeanvar(a, axis=0)
        np.testing.assert_allclose(nm, np.nanmean(a, axis=0), rtol=1e-15)
        np.testing.assert_allclose(nv, np.nanvar(a, axis=0), rtol=1e-12)


@pytest.mark.parametrize("rows", [1, 3, 4, 63, 64, 65, 130, 301])
@pytest.mark.parametrize("dtype", ["float64", "float32", "int64"])
def test_axis0_one_pass_blocks_and_their_fallback(rows, dtype):
    """axis=0 row blocks are summarised by shifted one-pass sums unless the
    block mean is too far from its shift, then exactly.  Columns built to
    take each branch -- an outlier first value, a jump, a trend, constants,
    large offsets -- are at least as accurate as np.var, against exact
    Fraction arithmetic; so are the same columns reduced as 1-D streams.
    (np.var is wrong on the 1e15-offset column: its mean rounds.)"""
    rng = np.random.default_rng(rows)
    cols = 263  # one full column tile of 256 and a remainder
    a = 1e6 + rng.standard_normal((rows, cols))
    a[0, 0] = -1e7                                    # outlier first value
    a[rows // 2:, 1] += 1e4                           # a jump
    a[:, 2] = np.linspace(-3e5, 3e5, rows)            # a trend
    a[:, 3] = 7.25                                    # constant
    a[:, 4] = 1e15 + np.arange(rows) % 3              # huge offset
    a[:, 5] = np.where(np.arange(rows) % 2, 1e8, -1e8)
    a = a.astype(dtype)
    m, v = nr.meanvar(a, axis=0, dtype=np.float64)
    np_m = np.mean(a, axis=0, dtype=np.float64)
    np_v = np.var(a, axis=0, dtype=np.float64)
    for c in (0, 1, 2, 3, 4, 5, 100, 262):
        col = a[:, c]
        m_exact, v_exact = exact_meanvar(col)
        scale = float(np.max(np.abs(col)))  # a mean's rounding is relative to the data
        assert_at_least_as_accurate(m[c], np_m[c], m_exact, ulps=2, scale=scale, what=f"mean col {c}")
        if v_exact == 0:
            assert v[c] == 0, c
        else:
            assert_at_least_as_accurate(v[c], np_v[c], v_exact, what=f"var col {c}")
            # the same column as a 1-D stream (blocked two-pass, partial sums)
            assert_at_least_as_accurate(nr.meanvar(col, dtype=np.float64)[1],
                                        np.var(col, dtype=np.float64), v_exact, what=f"1-D col {c}")
    np.testing.assert_allclose(v[6:], np_v[6:], rtol=1e-9, atol=0)


@pytest.mark.parametrize("rows", [2, 5, 64, 65, 100, 129])
@pytest.mark.parametrize("dist", ["normal", "offset_1e8", "offset_-3e9", "lognormal"])
def test_axis0_every_column_against_exact(rows, dist):
    """Every column of an axis-0 reduction (two column tiles and a
    remainder), not a sample: a column's first block is summarised in the
    frame of its own mean, later blocks in the previous block's mean, and
    short last blocks (65, 129 rows) follow full ones.  Each column's mean and
    variance are at least as accurate as np.mean/np.var's against exact
    Fraction arithmetic; nanmeanvar with NaNs at the first row and in later
    blocks against the same columns with the NaNs left out.  (The variance
    within 32 ulps where np.var is closer: a block's shifted sums are plain
    sums of up to 64 terms, their rounding up to about 11 ulps on these
    N(0, 1) columns, where np.var's pairwise two-pass is near exact.)"""
    rng = np.random.default_rng(rows)
    a = np.stack([DISTRIBUTIONS[dist](rng, 530) for _ in range(rows)])
    m, v = nr.meanvar(a, axis=0)
    np_m, np_v = np.mean(a, axis=0), np.var(a, axis=0)
    b = a.copy()
    b[0, ::3] = np.nan
    b[rows - 1, 1::4] = np.nan
    with np.errstate(invalid="ignore", divide="ignore"), warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)  # all-NaN columns at rows=2, as NumPy's
        nm, nv = nr.nanmeanvar(b, axis=0)
        np_nm, np_nv = np.nanmean(b, axis=0), np.nanvar(b, axis=0)
    for c in range(a.shape[1]):
        col = a[:, c]
        scale = float(np.max(np.abs(col)))
        m_exact, v_exact = exact_meanvar(col)
        assert_at_least_as_accurate(m[c], np_m[c], m_exact, ulps=2, scale=scale, what=f"mean {c}")
        assert_at_least_as_accurate(v[c], np_v[c], v_exact, ulps=32, what=f"var {c}")
        kept = b[:, c][~np.isnan(b[:, c])]
        if kept.size == 0:
            assert np.isnan(nm[c]) and np.isnan(nv[c]), c
            continue
        km, kv = exact_meanvar(kept)
        assert_at_least_as_accurate(nm[c], np_nm[c], km, ulps=2, scale=scale, what=f"nanmean {c}")
        if kv == 0:
            assert nv[c] == 0, c
        else:
            assert_at_least_as_accurate(nv[c], np_nv[c], kv, ulps=32, what=f"nanvar {c}")


# -- finite data spanning more than the double range, on every path ----------

_SPANNING = [
    [-1e308, 1e308],                       # the issue's column
    [-1e308] + [1e308] * 1000,             # a shifted mean beyond the double range
    [1e308] * 600 + [-1e308] * 1000,       # the same across a block boundary
    [-1.7e308, 1.7e308, 1.7e308],
    [1e308, 1e308, -1e308, -1e308, 1e308],
    [0.0] * 700 + [1.5e308, -1.5e308] * 300 + [1e300],
]


def _moment_paths(ufunc, col):
    """(name, (count, mean, M2)) of one column through every internal path:
    _reduce_all, the strided gather, _reduce_rows (one and several columns),
    _reduce_trailing, F order, strided accumulators (Welford on the general
    NpyIter path: out= / where=), and the elementwise fold."""
    c = np.asarray(col, dtype=np.float64)
    cols = np.repeat(c[:, None], 3, axis=1)
    first = lambda r: tuple(np.asarray(v).reshape(-1)[0] for v in r)  # noqa: E731
    outs = lambda k: tuple(np.empty(k) for _ in range(3))  # noqa: E731
    yield "1-D", nr.reduce(ufunc, c)
    yield "1-D strided", nr.reduce(ufunc, np.repeat(c, 2)[::2])
    yield "1-D reversed", nr.reduce(ufunc, c[::-1].copy()[::-1])
    yield "rows, 1 column", first(nr.reduce(ufunc, c[:, None], axis=0))
    yield "rows, 3 columns", first(nr.reduce(ufunc, cols, axis=0))
    yield "rows strided", first(nr.reduce(ufunc, np.repeat(cols, 2, axis=1)[:, ::2], axis=0))
    yield "trailing", first(nr.reduce(ufunc, cols.T.copy(), axis=1))
    yield "F order", first(nr.reduce(ufunc, np.asfortranarray(cols), axis=0))
    yield "iter out=", first(nr.reduce(ufunc, cols, axis=0, out=outs(3)))
    yield "iter where=", first(nr.reduce(ufunc, cols, axis=0, where=np.ones(cols.shape, bool)))
    yield "iter strided out=", first(nr.reduce(ufunc, cols[:, ::2], axis=0, out=outs(2)))


def _welford_tol(col):
    return len(col) * Fraction(float(np.finfo(np.float64).eps)) * max(abs(Fraction(v)) for v in col)


@pytest.mark.parametrize("ufunc", [nr.moments, nr.nanmoments], ids=["moments", "nanmoments"])
@pytest.mark.parametrize("col", _SPANNING, ids=lambda d: f"{d[0]:g}..x{len(d)}")
def test_moments_spanning_the_double_range_agree_on_every_path(ufunc, col):
    """The issue's case (strided moments gave mean inf and M2 -inf): finite
    data whose spread overflows.  Rule on every path: the count is exact, the
    mean is finite, also where np.mean's own sum overflows (the stream and
    column paths: within 8 ulp of the exact mean plus 4 eps max|x|, the
    conditioning of a cancelling sum; Welford's update on
    strided accumulators, the "iter" paths: within n eps max|x|, its usual
    bound), M2 is +inf (the exact M2 exceeds the double range) -- never
    negative, never NaN."""
    ex_m, ex_v = exact_meanvar(col)
    assert ex_v * len(col) > Fraction(np.finfo(np.float64).max)
    tol = 8 * ulp(ex_m) + 4 * _welford_tol(col) / len(col)
    for name, (n, m, m2) in _moment_paths(ufunc, col):
        assert n == len(col), name
        assert m2 == np.inf, (name, m2)
        t = _welford_tol(col) if name.startswith("iter") else tol
        assert abs(Fraction(float(m)) - ex_m) <= t, (name, m, float(ex_m))
    # the elementwise fold of the issue's pair, and the user functions
    a = np.array(col)
    m, v = nr.meanvar(a)
    assert v == np.inf and abs(Fraction(float(m)) - ex_m) <= tol
    m, v = nr.nanmeanvar(np.concatenate([a, [np.nan]]))
    assert v == np.inf and abs(Fraction(float(m)) - ex_m) <= tol


def test_moments_strided_issue_example():
    """Issue 10, item 5c, verbatim: contiguous and strided agree with NumPy."""
    A = np.tile([[-1e308], [1e308]], (1, 5))
    want = nr.reduce(nr.moments, A, axis=0)
    with np.errstate(over="ignore"):
        np_var = np.var(A, axis=0)
    for got in (nr.reduce(nr.moments, A[:, ::2], axis=0),
                nr.reduce(nr.moments, A, axis=0, out=tuple(np.empty(5) for _ in range(3)))):
        n = got[0].size
        assert np.array_equal(got[0], want[0][:n])
        assert np.array_equal(got[1], np.mean(A, axis=0)[:n])  # 0: NumPy's (exact) mean
        assert np.array_equal(got[2] / 2, np_var[:n])            # inf, as np.var
    assert np.array_equal(want[1], np.mean(A, axis=0))
    assert np.array_equal(want[2] / 2, np_var)


@settings(max_examples=60)
@given(st.lists(st.sampled_from([1e308, -1e308, 1.7e308, -1.7e308, 1e300, -1e300, 0.0, 1.0,
                                 5e307, -5e307]), min_size=1, max_size=40))
def test_moments_huge_values_never_negative_or_nan_m2(vals):
    """Huge finite values on the Welford (strided accumulators), column and
    stream paths: M2 is NaN for no finite input and never negative; the mean
    is within the bounds of the test above."""
    ex_m, ex_v = exact_meanvar(vals)
    big = ex_v * len(vals) > Fraction(np.finfo(np.float64).max)
    for name, (n, m, m2) in _moment_paths(nr.moments, vals):
        assert not np.isnan(m2) and m2 >= 0, (name, m2)
        if big:
            assert m2 == np.inf, name
        t = (_welford_tol(vals) if name.startswith("iter")
             else 8 * ulp(ex_m) + 4 * _welford_tol(vals) / len(vals))
        assert abs(Fraction(float(m)) - ex_m) <= t, (name, m)
