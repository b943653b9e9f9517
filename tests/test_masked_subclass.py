"""The array-type policy at the entry of every public function
(numreduce/_dispatch.py, docs/semantics.md "Array types"): masked arrays
against np.ma (and NumPy's nan-functions on masked arrays), ndarray
subclasses against np.min & co., NEP 18 duck arrays against NumPy's own
dispatch, pandas and other array_likes."""

import math
import warnings

import numpy as np
import pytest
import scipy.special
from hypothesis import assume, given
from hypothesis import strategies as st
from hypothesis.extra import numpy as hnp

import numreduce as nr
from helpers import lse_atol, moment_atols

PUBLIC = [nr.minmax, nr.nanminmax, nr.argminmax, nr.nanargminmax, nr.meanvar, nr.meanstd,
          nr.nanmeanvar, nr.logsumexp, nr.fsum]


def call(f, a, **kw):
    """Every public function, reduce included, as f(a, **kw)."""
    if f is nr.reduce:
        return nr.reduce(nr.minimummaximum, a, **kw)
    return f(a, **kw)


ALL = PUBLIC + [nr.reduce]


# ---------------------------------------------------------------------------
# masked arrays
# ---------------------------------------------------------------------------

def assert_ma_equal(got, want, rtol=0.0, atol=1e-12):
    """Same np.ma outcome: `masked` for `masked`, the same mask, the same
    values where unmasked (NaN equal to NaN), the same result dtype."""
    if want is np.ma.masked:
        assert got is np.ma.masked, got
        return
    assert got is not np.ma.masked, want
    assert isinstance(got, np.ma.MaskedArray) == isinstance(want, np.ma.MaskedArray), (
        type(got), type(want))
    np.testing.assert_array_equal(np.ma.getmaskarray(got), np.ma.getmaskarray(want))
    keep = ~np.ma.getmaskarray(want)
    g, w = np.asarray(np.ma.getdata(got)), np.asarray(np.ma.getdata(want))
    assert g.dtype == w.dtype, (g.dtype, w.dtype)
    assert g.shape == w.shape
    if rtol:
        np.testing.assert_allclose(g[keep], w[keep], rtol=rtol, atol=atol)
    else:
        np.testing.assert_array_equal(g[keep], w[keep])


@st.composite
def masked_arrays(draw, dtypes=(np.float64, np.float32, np.int64, np.int16, np.uint8),
                  nan=False, max_dims=3):
    dtype = np.dtype(draw(st.sampled_from(dtypes)))
    shape = draw(hnp.array_shapes(min_dims=0, max_dims=max_dims, min_side=0, max_side=4))
    if dtype.kind == "f":
        elements = st.floats(-1e6, 1e6, width=dtype.itemsize * 8)
        if nan:
            elements = st.one_of(elements, st.just(np.nan))
    else:  # moderate integers: np.ma.var of int64 near 2**63 loses digits itself
        info = np.iinfo(dtype)
        elements = st.integers(max(info.min, -10**6), min(info.max, 10**6))
    data = draw(hnp.arrays(dtype, shape, elements=elements))
    kind = draw(st.sampled_from(["random", "nomask", "all", "rows"]))
    if kind == "nomask":
        return np.ma.masked_array(data)
    if kind == "all":
        mask = np.ones(shape, bool)
    else:
        mask = draw(hnp.arrays(np.bool_, shape))
        if kind == "rows" and data.ndim >= 1 and data.size:
            mask[..., 0] = True
            mask[(0,) * (data.ndim - 1)] = True  # a fully masked last-axis slice
    return np.ma.masked_array(data, mask=mask)


@st.composite
def axis_for(draw, ndim, tuples=True):
    kinds = ["none", "int"] + (["tuple"] if tuples and ndim else [])
    kind = draw(st.sampled_from(kinds))
    if kind == "none" or ndim == 0:
        return None
    if kind == "int":
        return draw(st.integers(-ndim, ndim - 1))
    return tuple(draw(st.permutations(range(ndim)))[:draw(st.integers(0, ndim))])


def test_issue_example():
    m = np.ma.masked_array([5., -100., 3., 50., 1.], mask=[0, 1, 0, 1, 0])
    assert nr.minmax(m) == (np.min(m), np.max(m)) == (1.0, 5.0)
    assert nr.reduce(nr.minimummaximum, m) == (1.0, 5.0)
    assert nr.nanminmax(m) == (1.0, 5.0)
    assert nr.argminmax(m) == (np.argmin(m), np.argmax(m)) == (4, 0)
    assert nr.meanvar(m) == pytest.approx((np.mean(m), np.var(m)))


@given(masked_arrays(), st.data())
def test_minmax_like_np_ma(m, data):
    axis = data.draw(axis_for(m.ndim))
    keepdims = data.draw(st.booleans())
    try:
        want = (np.ma.min(m, axis=axis, keepdims=keepdims),
                np.ma.max(m, axis=axis, keepdims=keepdims))
    except ValueError:  # an empty reduction, as np.min
        with pytest.raises(ValueError):
            nr.minmax(m, axis=axis, keepdims=keepdims)
        with pytest.raises(ValueError):
            nr.reduce(nr.minimummaximum, m, axis=axis, keepdims=keepdims)
        return
    got = nr.minmax(m, axis=axis, keepdims=keepdims)
    for g, w in zip(got, want):
        assert_ma_equal(g, w)
    # reduce (axis=0 by default) gives the same, through the ufunc
    got = nr.reduce(nr.minimummaximum, m, axis=axis, keepdims=keepdims)
    for g, w in zip(got, want):
        assert_ma_equal(g, w)


@given(masked_arrays(dtypes=(np.float64, np.float32), nan=True), st.data())
def test_nanminmax_like_nanmin_on_masked(m, data):
    # NumPy's own nan-function tests call np.nanmin on masked arrays
    # (numpy/lib/tests/test_nanfunctions.py, TestNanFunctions_MinMax.test_masked).
    axis = data.draw(axis_for(m.ndim))
    with warnings.catch_warnings(record=True) as w_ref:
        warnings.simplefilter("always")
        try:
            want = (np.nanmin(m, axis=axis), np.nanmax(m, axis=axis))
        except ValueError:  # an empty reduction
            with pytest.raises(ValueError):
                nr.nanminmax(m, axis=axis)
            return
        except TypeError:  # NumPy's _replace_nan fails on a 0-d masked array
            assume(False)
    with warnings.catch_warnings(record=True) as w_got:
        warnings.simplefilter("always")
        got = nr.nanminmax(m, axis=axis)
    for g, w in zip(got, want):
        assert_ma_equal(g, w)
    ref_warned = any("All-NaN" in str(w.message) for w in w_ref)
    got_warned = any("All-NaN" in str(w.message) for w in w_got)
    assert ref_warned == got_warned


def test_nanminmax_all_masked_does_not_warn_all_nan_does():
    m = np.ma.masked_array([[1.0, 2.0], [np.nan, np.nan]], mask=[[1, 1], [0, 0]])
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        lo, hi = nr.nanminmax(m, axis=1)
    assert [str(w.message) for w in caught] == ["All-NaN slice encountered"]
    assert lo.mask.tolist() == [True, False] and np.isnan(lo[1])
    m = np.ma.masked_array([[1.0, 2.0], [3.0, np.nan]], mask=[[1, 1], [0, 0]])
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        lo, hi = nr.nanminmax(m, axis=1)
    assert lo.mask.tolist() == [True, False] and lo[1] == 3.0 and hi[1] == 3.0


@given(masked_arrays(), st.data())
def test_meanvar_like_np_ma(m, data):
    assume(m.size)  # empty: np.ma.mean is masked, np.mean NaN; see test_masked_empty
    ddof_drawn = data.draw(st.sampled_from([0, 1, 2]))
    # np.ma.var of a nomask array with ddof >= count is NaN, -0.0 or masked
    # depending on the shape; with a mask array it is masked for an axis
    # reduction, but a full reduction gives count/(count - ddof) nonsense
    # (-0.0): numreduce masks wherever count - ddof <= 0 (docs/differences.md)
    assume(not ddof_drawn or np.ma.getmask(m) is not np.ma.nomask)
    axis = data.draw(axis_for(m.ndim))
    keepdims = data.draw(st.booleans())
    ddof = ddof_drawn
    full = np.zeros(m.shape).sum(axis=axis, keepdims=keepdims).ndim == 0
    assume(not (ddof and full))
    kw = dict(axis=axis, keepdims=keepdims)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)
        want = (np.ma.mean(m, **kw), np.ma.var(m, ddof=ddof, **kw),
                np.ma.std(m, ddof=ddof, **kw))
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # np.ma does not warn: masked, not NaN
        if np.ma.getmask(m) is np.ma.nomask and m.size == 0:
            warnings.simplefilter("ignore", RuntimeWarning)
        got = nr.meanvar(m, ddof=ddof, **kw) + nr.meanstd(m, ddof=ddof, **kw)[1:]
    # Result dtypes follow np.mean / np.var (np.ma.mean and np.ma.var return
    # float64 for float32 data where something is masked).
    rdt = np.mean(np.zeros(1, m.dtype)).dtype
    for g, w in zip(got, want):
        if w is not np.ma.masked:
            w = w.astype(rdt) if isinstance(w, np.ndarray) else rdt.type(w)
        # np.ma's own float32 rounding: up to about n eps max|x|**2 for the variance
        eps = np.finfo(np.float32 if m.dtype == np.float32 else np.float64).eps
        scale = float(np.max(np.abs(m.data.astype(np.float64)), initial=1.0))
        assert_ma_equal(g, w, rtol=1e-5 if m.dtype == np.float32 else 1e-9,
                        atol=4 * max(m.size, 1) * eps * scale ** 2)


@given(masked_arrays(dtypes=(np.float64,), nan=True), st.data())
def test_nanmeanvar_like_nanmean_on_masked(m, data):
    assume(m.size)  # np.nanmean of an empty masked array raises "read-only"
    axis = data.draw(axis_for(m.ndim))
    ddof = data.draw(st.sampled_from([0, 1]))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)
        try:
            want = (np.nanmean(m, axis=axis), np.nanvar(m, axis=axis, ddof=ddof))
        except (TypeError, ValueError):
            # NumPy's own bugs: _replace_nan on 0-d masked arrays, "output
            # array is read-only" for all-masked ones (test_masked_all_masked...)
            assume(False)
        got = nr.nanmeanvar(m, axis=axis, ddof=ddof)
    _nanmeanvar_close(got, want, m)


def test_nanmeanvar_cancelling_mean_on_masked():
    """A mean of 0.0143 from data of magnitude 1e6: numreduce and NumPy differ
    by 3.3e-11 (both within a rounding of the data's magnitude), more than
    rtol=1e-9 of the mean."""
    m = np.ma.masked_array([-460426.6, -918053.0, -966944.7, 626540.5, 825511.2, 213271.6,
                            680101.0999999999], mask=[0, 0, 0, 0, 0, 0, 0])
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)
        want = (np.nanmean(m), np.nanvar(m))
    _nanmeanvar_close(nr.nanmeanvar(m), want, m)


def _nanmeanvar_close(got, want, m):
    # Near zero (a cancelling mean, a constant slice's variance) only an
    # absolute tolerance holds: each side's sum of n terms rounds by at most
    # about n eps sum|x|, so a mean is within n eps max|x| of the exact one and
    # a variance within n eps max (x - mean)**2 <= 4 n eps max|x|**2 (two
    # sides), plus n smallest subnormals (a division's underflow).
    n = max(m.size, 1)
    eps = np.finfo(np.float64).eps
    f = np.abs(m.data[np.isfinite(m.data)])
    scale = float(np.max(f, initial=0.0))
    tiny = n * float(np.finfo(np.float64).smallest_subnormal)
    for g, w, atol in zip(got, want, (2 * n * eps * scale + tiny,
                                      8 * n * eps * scale**2 + tiny)):
        assert_ma_equal(g, w, rtol=1e-9, atol=atol)


@given(masked_arrays(dtypes=(np.float64, np.int64, np.float32), max_dims=3), st.data())
def test_argminmax_like_np_ma(m, data):
    axis = data.draw(axis_for(m.ndim, tuples=False))
    keepdims = data.draw(st.booleans())
    try:
        want = (m.argmin(axis=axis, keepdims=keepdims), m.argmax(axis=axis, keepdims=keepdims))
    except ValueError:  # empty: "attempt to get argmin of an empty sequence"
        for f in (nr.argminmax, nr.nanargminmax):
            with pytest.raises(ValueError, match="empty sequence"):
                f(m, axis=axis, keepdims=keepdims)
        return
    for f in (nr.argminmax, nr.nanargminmax):
        got = f(m, axis=axis, keepdims=keepdims)
        for g, w in zip(got, want):
            assert type(g) is type(w)
            np.testing.assert_array_equal(g, w)


def test_nanargminmax_on_masked_like_nanargmin():
    m = np.ma.masked_array([[np.nan, 5.0, -7.0, 2.0], [1.0, np.nan, 9.0, 3.0]],
                           mask=[[0, 0, 1, 0], [0, 0, 1, 0]])
    want = (np.nanargmin(m, axis=1), np.nanargmax(m, axis=1))
    got = nr.nanargminmax(m, axis=1)
    np.testing.assert_array_equal(got[0], want[0])
    np.testing.assert_array_equal(got[1], want[1])
    # every unmasked element NaN: np.nanargmin raises, so does nanargminmax
    # (not the index of a masked element)
    m = np.ma.masked_array([[np.nan, 1.0, np.nan], [1.0, 2.0, 3.0]], mask=[[0, 1, 0], [1, 1, 1]])
    for ax in (None, 1):
        with pytest.raises(ValueError, match="All-NaN slice encountered"):
            np.nanargmin(m, axis=ax)
        with pytest.raises(ValueError, match="All-NaN slice encountered"):
            nr.nanargminmax(m, axis=ax)
    # ... before any output is written
    outs = (np.full(2, -5, np.intp), np.full(2, -5, np.intp))
    with pytest.raises(ValueError, match="All-NaN slice encountered"):
        nr.nanargminmax(m, axis=1, out=outs)
    assert (outs[0] == -5).all() and (outs[1] == -5).all()
    # all masked (no NaN): index 0, as np.nanargmin / np.ma.argmin
    m = np.ma.masked_array([[np.nan, 1.0], [1.0, 2.0]], mask=[[0, 0], [1, 1]])
    got = nr.nanargminmax(m, axis=1)
    np.testing.assert_array_equal(got[0], np.nanargmin(m, axis=1))
    np.testing.assert_array_equal(got[1], np.nanargmax(m, axis=1))


@given(masked_arrays(dtypes=(np.float64, np.int64), max_dims=2), st.data())
def test_logsumexp_like_scipy_on_unmasked(m, data):
    assume(m.size)
    axis = data.draw(st.sampled_from([None, -1]))
    got = nr.logsumexp(m, axis=axis)
    if axis is None or m.ndim < 2:
        rows, got = [m.ravel()], [got]
    else:
        rows = list(m.reshape(-1, m.shape[-1])) if m.ndim else [m]
    for row, g in zip(rows, np.ma.ravel(got) if isinstance(got, np.ma.MaskedArray) else got):
        row = np.ma.asarray(row)
        if np.ma.getmaskarray(row).all():
            assert g is np.ma.masked
        else:
            want = scipy.special.logsumexp(row.compressed().astype(np.float64))
            assert g is not np.ma.masked
            # near 0 (rtol alone cannot hold there): docs/accuracy.md's bound
            np.testing.assert_allclose(float(g), want, rtol=1e-13,
                                       atol=lse_atol(row.count()))


@given(masked_arrays(dtypes=(np.int64, np.float64), max_dims=2), st.data())
def test_fsum_like_math_fsum_of_unmasked(m, data):
    assume(m.size)  # empty: np.ma.sum is masked or 0 depending on the mask; see test_masked_empty
    axis = data.draw(st.sampled_from([None, -1]))
    got = nr.fsum(m, axis=axis)
    want = np.ma.sum(m, axis=axis)  # np.ma.sum: masked where all masked
    if want is np.ma.masked:
        assert got is np.ma.masked
        return
    np.testing.assert_array_equal(np.ma.getmaskarray(got), np.ma.getmaskarray(want))
    if axis is None:
        _within_fsum_bound(float(got), m.compressed().astype(float))


def test_fsum_of_cancelling_masked_data():
    """A sum that cancels to 2.7e-11 from data of magnitude 5e5: numreduce is 2
    ulp of the exact sum away from math.fsum, within fsum's documented bound
    (1 ulp holds only while n eps cond <= 1)."""
    m = np.ma.masked_array([0.00929631099173653, -9.977031725122052e-11, -538100.3176792369,
                            -3.192670678964682e-11, 538100.308382926, 7.0],
                           mask=[0, 0, 0, 0, 0, 1])
    _within_fsum_bound(float(nr.fsum(m)), m.compressed())


def test_reduce_moments_of_constant_masked_data():
    """np.ma.var of 18 copies of 636961.68732145 is 1.4e-20 (its mean off by
    an ulp), numreduce's M2 0: a tolerance from the spread alone (0) failed."""
    m = np.ma.masked_array(np.full((2, 3, 3), 636961.68732145))
    count, mean, m2 = nr.reduce(nr.moments, m, axis=None)
    atol_mean, atol_m2 = moment_atols(m.size, m.data)
    np.testing.assert_allclose(mean, np.ma.mean(m), rtol=1e-9, atol=atol_mean)
    np.testing.assert_allclose(m2, np.ma.var(m) * m.count(), rtol=1e-9, atol=atol_m2)


def _within_fsum_bound(got, vals):
    # docs/accuracy.md: |fsum - exact| <= eps |exact| + n eps**2 sum|x|; within
    # about 1 ulp of math.fsum only while n eps cond <= 1, so an ulp of the
    # exact sum does not hold where the sum cancels to near 0.
    exact = math.fsum(vals.tolist())
    eps = np.finfo(np.float64).eps
    bound = eps * abs(exact) + (vals.size + 2) * eps**2 * math.fsum(np.abs(vals).tolist())
    assert abs(got - exact) <= bound, (got, exact, bound)


@given(masked_arrays(dtypes=(np.float64, np.int32)), st.data())
def test_reduce_moments_like_np_ma(m, data):
    axis = data.draw(axis_for(m.ndim))
    if m.ndim == 0:
        axis = None
    count, mean, m2 = nr.reduce(nr.moments, m, axis=axis)
    want_count = np.ma.count(m, axis=axis)
    empty = np.asarray(want_count == 0)
    for r in (count, mean, m2):
        if r is np.ma.masked:
            assert empty.all() and empty.ndim == 0
        else:
            np.testing.assert_array_equal(np.ma.getmaskarray(r), empty)
    if not empty.all():
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", RuntimeWarning)
            np.testing.assert_array_equal(np.ma.filled(count, 0),
                                          np.ma.filled(np.ma.masked_array(want_count, empty), 0))
            # Absolute tolerances from the data (|x| <= 1e6 here, where a fixed
            # atol of 1e-9 is below one rounding of a cancelling mean):
            # helpers.moment_atols (the strided path's Welford update within
            # its bound too).
            atol_mean, atol_m2 = moment_atols(m.size, m.data)
            np.testing.assert_allclose(np.ma.filled(mean, 0),
                                       np.ma.filled(np.ma.mean(m, axis=axis), 0),
                                       rtol=1e-9, atol=atol_mean)
            np.testing.assert_allclose(np.ma.filled(m2, 0),
                                       np.ma.filled(np.ma.var(m, axis=axis) * want_count, 0),
                                       rtol=1e-9, atol=atol_m2)


def test_masked_var_ddof_full_reduction():
    m = np.ma.masked_array([1.0, 2.0, 3.0], mask=[0, 1, 1])
    assert nr.meanvar(m, ddof=1)[1] is np.ma.masked  # np.ma.var: 0/0 -> masked too
    assert np.ma.var(m, ddof=1) is np.ma.masked
    # count - ddof < 0: np.ma.var divides by -1 (-0.0); numreduce masks
    assert nr.meanvar(m, ddof=2)[1] is np.ma.masked
    assert nr.meanvar(m, ddof=2)[0] == 1.0


def test_masked_empty():
    # An empty reduction of a masked array: masked, as np.ma.mean / np.ma.var /
    # np.ma.sum (with a mask array) give; min/max/argmin/argmax raise as np.ma does.
    e = np.ma.masked_array(np.zeros((0, 2)), mask=np.zeros((0, 2), bool))
    for f, ref in [(nr.meanvar, np.ma.mean), (nr.meanstd, np.ma.std), (nr.fsum, np.ma.sum)]:
        for axis in (None, 0):
            got = f(e, axis=axis)
            got = got[0] if isinstance(got, tuple) else got
            assert_ma_equal(got, ref(e, axis=axis))
    for f in (nr.minmax, nr.nanminmax, nr.argminmax, nr.nanargminmax):
        with pytest.raises(ValueError):
            np.ma.min(e, axis=0)
        with pytest.raises(ValueError):
            f(e, axis=0)


def test_masked_with_where_and_initial():
    m = np.ma.masked_array([[4.0, 1.0, 7.0], [2.0, 8.0, 3.0]], mask=[[0, 1, 0], [0, 0, 0]])
    w = np.array([True, True, False])
    want = np.ma.masked_array(m.data, mask=m.mask | ~w)
    refs = (np.ma.min(want, axis=1), np.ma.max(want, axis=1))
    for g, r in zip(nr.minmax(m, axis=1, where=w), refs):
        assert_ma_equal(g, r)
    lo, hi = nr.minmax(m, axis=0, where=[[True, True, True], [True, False, True]])
    assert lo.mask.tolist() == [False, True, False]
    assert lo.compressed().tolist() == [2.0, 3.0] and hi.compressed().tolist() == [4.0, 7.0]
    mean, var = nr.meanvar(m, axis=1, where=w)
    assert_ma_equal(mean, np.ma.mean(want, axis=1))
    assert_ma_equal(var, np.ma.var(want, axis=1))
    with pytest.raises(TypeError, match="where"):
        nr.minmax(m, where=np.ones(3, int))


def test_masked_out():
    m = np.ma.masked_array([[4.0, 1.0], [2.0, 8.0]], mask=[[1, 1], [0, 0]])
    o1, o2 = np.ma.masked_array(np.zeros(2)), np.zeros(2)
    res = nr.minmax(m, axis=1, out=(o1, o2))
    assert res[0] is o1 and res[1] is o2
    # np.ma.min's own out rules: a MaskedArray gets the mask, a float array NaN.
    ref1, ref2 = np.ma.masked_array(np.zeros(2)), np.zeros(2)
    np.ma.min(m, axis=1, out=ref1)
    np.ma.max(m, axis=1, out=ref2)
    assert_ma_equal(o1, ref1)
    np.testing.assert_array_equal(o2, ref2)
    # an integer out cannot hold a masked result: np.ma.MaskError, nothing written
    oi = np.full(2, 7, np.int64)
    with pytest.raises(np.ma.MaskError):
        np.ma.min(m.astype(np.int64), axis=1, out=np.zeros(2, np.int64))
    with pytest.raises(np.ma.MaskError, match="out"):
        nr.minmax(m.astype(np.int64), axis=1, out=(oi, None))
    assert oi.tolist() == [7, 7]
    # a malformed out: the same error as for plain data, nothing written
    o3 = np.zeros(2)
    for bad in ((o3,), (o3, o3, o3)):
        with pytest.raises(ValueError):
            nr.minmax(m.data, axis=1, out=bad)
        with pytest.raises(ValueError):
            nr.minmax(m, axis=1, out=bad)
    assert o3.tolist() == [0.0, 0.0]
    lo = np.zeros(2, np.intp)
    nr.argminmax(m, axis=1, out=(lo, None))
    np.testing.assert_array_equal(lo, m.argmin(axis=1))


def test_masked_integer_and_time_extremes():
    info = np.iinfo(np.int8)
    m = np.ma.masked_array(np.array([info.min, 5, info.max], np.int8), mask=[1, 0, 1])
    assert nr.minmax(m) == (np.ma.min(m), np.ma.max(m)) == (5, 5)
    t = np.ma.masked_array(np.array(["2020-01-01", "NaT", "2021-01-01"], "M8[D]"),
                           mask=[0, 1, 0])
    # (np.ma.max(t) is NaT on NumPy 2.0: its maximum_fill_value was NaT)
    assert nr.minmax(t) == (t.compressed().min(), t.compressed().max())
    lo, hi = nr.minmax(t.reshape(1, 3), axis=1)
    assert (lo[0], hi[0]) == (t.compressed().min(), t.compressed().max())
    b = np.ma.masked_array([True, False, True], mask=[0, 1, 0])
    assert nr.minmax(b) == (np.ma.min(b), np.ma.max(b)) == (True, True)


def test_masked_all_masked_full_reduction_is_masked():
    m = np.ma.masked_array([1.0, 2.0], mask=[1, 1])
    assert np.ma.min(m) is np.ma.masked
    for f in ALL:
        if f in (nr.argminmax, nr.nanargminmax):
            assert f(m) == (np.ma.argmin(m), np.ma.argmax(m))
            continue
        res = call(f, m)
        for r in res if isinstance(res, tuple) else (res,):
            assert r is np.ma.masked, f.__name__


def test_masked_input_is_not_modified():
    m = np.ma.masked_array([[np.nan, 1.0], [2.0, 3.0]], mask=[[0, 1], [0, 0]])
    data, mask = m.data.copy(), m.mask.copy()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)
        for f in ALL:
            try:
                call(f, m, axis=0) if f not in (nr.logsumexp, nr.fsum) else f(m, axis=0)
            except ValueError:
                pass  # nanargminmax: All-NaN slice
    np.testing.assert_array_equal(m.data, data)
    np.testing.assert_array_equal(m.mask, mask)


# ---------------------------------------------------------------------------
# ndarray subclasses
# ---------------------------------------------------------------------------

class MyArray(np.ndarray):
    pass


@pytest.mark.parametrize("axis", [None, 0, 1])
@pytest.mark.parametrize("keepdims", [False, True])
@pytest.mark.parametrize("f, refs", [
    (nr.minmax, (np.min, np.max)), (nr.nanminmax, (np.nanmin, np.nanmax)),
    (nr.argminmax, (np.argmin, np.argmax)), (nr.nanargminmax, (np.nanargmin, np.nanargmax)),
    (nr.meanvar, (np.mean, np.var)), (nr.meanstd, (np.mean, np.std)),
    (nr.nanmeanvar, (np.nanmean, np.nanvar)),
])
def test_subclass_kept_like_numpy(f, refs, axis, keepdims):
    a = np.array([[3.0, 1.0, 4.0], [1.0, 5.0, 9.0]]).view(MyArray)
    got = f(a, axis=axis, keepdims=keepdims)
    for g, ref in zip(got, refs):
        w = ref(a, axis=axis, keepdims=keepdims)
        assert type(g) is type(w), (type(g), type(w))
        np.testing.assert_allclose(np.asarray(g), np.asarray(w))


@pytest.mark.parametrize("axis", [None, 1])
def test_subclass_sums_kept_like_np_sum(axis):
    a = np.array([[3.0, 1.0, 4.0], [1.0, 5.0, 9.0]]).view(MyArray)
    for f in (nr.fsum, nr.logsumexp):
        got = f(a, axis=axis)
        assert type(got) is type(np.sum(a, axis=axis))
    np.testing.assert_allclose(np.asarray(nr.logsumexp(a, axis=axis)),
                               scipy.special.logsumexp(np.asarray(a), axis=axis))
    got = nr.reduce(nr.minimummaximum, a, axis=axis)
    assert type(got[0]) is type(np.minimum.reduce(a, axis=axis)) is MyArray


@pytest.mark.filterwarnings("ignore:the matrix subclass:PendingDeprecationWarning")
def test_matrix_refused():
    m = np.matrix([[1.0, 2.0], [3.0, 4.0]])
    for f in ALL:
        with pytest.raises(TypeError, match="matrix"):
            call(f, m)


class UfuncOverride(np.ndarray):
    def __array_ufunc__(self, ufunc, method, *inputs, **kwargs):
        inputs = tuple(np.asarray(x) if isinstance(x, UfuncOverride) else x for x in inputs)
        return getattr(ufunc, method)(*inputs, **kwargs)


def test_subclass_overriding_array_ufunc_refused():
    a = np.arange(4.0).view(UfuncOverride)
    for f in ALL:
        with pytest.raises(TypeError, match="__array_ufunc__"):
            call(f, a)


class ForwardingSubclass(np.ndarray):
    """Overrides __array_function__ and defers to ndarray's, as many
    subclasses do: ndarray.__array_function__ calls func._implementation."""
    seen = []

    def __array_function__(self, func, types, args, kwargs):
        ForwardingSubclass.seen.append(func)
        return super().__array_function__(func, types, args, kwargs)


def test_subclass_deferring_to_ndarray_array_function():
    a = np.array([3.0, 1.0, 2.0]).view(ForwardingSubclass)
    ForwardingSubclass.seen.clear()
    lo, hi = nr.minmax(a)
    assert ForwardingSubclass.seen == [nr.minmax]
    assert type(lo) is type(np.min(a)) and float(lo) == 1.0 and float(hi) == 3.0


# ---------------------------------------------------------------------------
# NEP 18 and __array_ufunc__ = None
# ---------------------------------------------------------------------------

class Refusing:
    def __array_function__(self, func, types, args, kwargs):
        return NotImplemented


class Handling:
    def __array_function__(self, func, types, args, kwargs):
        return ("handled", func, types, args, kwargs)


class NoUfuncs:
    __array_ufunc__ = None

    def __array__(self, dtype=None, copy=None):
        return np.arange(3.0)


@pytest.mark.parametrize("f", ALL, ids=lambda f: f.__name__)
def test_nep18_not_implemented_is_numpys_type_error(f):
    with pytest.raises(TypeError) as ref:
        np.min(Refusing())
    want = str(ref.value).replace("numpy.min", f"numreduce.{f.__name__}")
    with pytest.raises(TypeError) as got:
        call(f, Refusing())
    assert str(got.value) == want


@pytest.mark.parametrize("f", ALL, ids=lambda f: f.__name__)
def test_nep18_dispatches_with_the_public_function(f):
    h = Handling()
    res = call(f, h, axis=0)
    assert res[0] == "handled" and res[1] is f and Handling in res[2]
    assert h in res[3] and res[4]["axis"] == 0


def test_nep18_out_is_relevant():
    h = Handling()
    res = nr.minmax(np.arange(3.0), out=(h, None))
    assert res[0] == "handled" and res[1] is nr.minmax


@pytest.mark.parametrize("f", ALL, ids=lambda f: f.__name__)
def test_array_ufunc_none_refused(f):
    with pytest.raises(TypeError):
        np.add.reduce(NoUfuncs())
    with pytest.raises(TypeError, match="__array_ufunc__=None"):
        call(f, NoUfuncs())


def test_dask_array_through_nep18():
    da = pytest.importorskip("dask.array", reason="dask is not installed (the 'dask' extra)")
    x = np.arange(24.0).reshape(4, 6)
    d = da.from_array(x, chunks=(2, 3))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", FutureWarning)  # dask: "not implemented by Dask"
        got = nr.minmax(d, axis=0)
        mv = nr.meanvar(d)
    for g, w in zip(got, nr.minmax(x, axis=0)):
        np.testing.assert_array_equal(g, w)
    assert mv == nr.meanvar(x)


def test_astropy_quantity_refused_clearly():
    u = pytest.importorskip("astropy.units", reason="astropy is not installed (no extra installs it: pip install astropy)")
    q = np.arange(3.0) * u.m
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # astropy: "function not known to Quantity"
        with pytest.raises(TypeError, match="Quantity overrides __array_ufunc__"):
            nr.minmax(q)
        with pytest.raises(TypeError, match="Quantity"):
            nr.meanvar(q)


# ---------------------------------------------------------------------------
# pandas and other array_likes
# ---------------------------------------------------------------------------

def test_pandas_tz_aware_series_clear_error():
    pd = pytest.importorskip("pandas", reason="pandas is not installed (pip install .[test])")
    s = pd.Series(pd.date_range("2020-01-01", periods=4, tz="UTC"))
    assert np.min(s) == s.iloc[0]  # NumPy works (through Series.min)
    for f in ALL:
        with pytest.raises(TypeError) as e:
            call(f, s)
        msg = str(e.value)
        assert f"numreduce.{f.__name__}" in msg and "datetime64" in msg and "UTC" in msg
        assert "object" in msg


def test_pandas_numeric_series_and_columns_work():
    pd = pytest.importorskip("pandas", reason="pandas is not installed (pip install .[test])")
    df = pd.DataFrame({"a": [3.0, 1.0, 2.0], "b": [4, 8, 6]})
    for col in ("a", "b"):
        x = df[col].to_numpy()
        assert nr.minmax(df[col]) == (np.min(x), np.max(x))
        assert nr.argminmax(df[col]) == (np.argmin(x), np.argmax(x))
        assert nr.meanvar(df[col]) == pytest.approx((np.mean(x), np.var(x)))
        assert nr.fsum(df[col]) == np.sum(x)
    np.testing.assert_array_equal(nr.minmax(df, axis=0)[0], np.min(df.to_numpy(), axis=0))


def test_lists_tuples_scalars():
    assert nr.minmax([3, 1, 2]) == (1, 3)
    assert nr.minmax((3.0, -1.0)) == (-1.0, 3.0)
    assert nr.minmax(5.0) == (5.0, 5.0)
    assert nr.minmax(np.float32(2)) == (np.float32(2), np.float32(2))
    x = [1.0, 2.0, 3.0, 4.0]
    assert nr.meanvar(x) == (np.mean(x), np.var(x))
    assert nr.argminmax([[1, 5], [0, 2]], axis=1)[1].tolist() == [1, 1]
    lo, hi = nr.reduce(nr.minimummaximum, [[1, 5], [0, 2]])
    assert lo.tolist() == [0, 2] and hi.tolist() == [1, 5]
    from fractions import Fraction
    with pytest.raises(TypeError, match="numreduce.minmax.*object"):
        nr.minmax([Fraction(1), Fraction(2)])


def test_reduce_of_numpy_ufunc_is_passed_through():
    m = np.ma.masked_array([5.0, -100.0, 3.0], mask=[0, 1, 0])
    got = nr.reduce(np.minimum, m)
    assert got == np.minimum.reduce(m)


def test_signature_and_keywords_kept():
    import inspect
    for f in ALL:
        assert inspect.signature(f) == inspect.signature(f.__wrapped__)
    a = np.arange(6.0).reshape(2, 3)
    assert nr.minmax(a=a, axis=1)[0].tolist() == [0.0, 3.0]
    assert nr.reduce(ufunc=nr.minimummaximum, array=a)[1].tolist() == [3.0, 4.0, 5.0]
    with pytest.raises(TypeError):
        nr.minmax(a, bogus=1)


# ---------------------------------------------------------------------------
# The methods (accumulate, cumminmax, merge): no masked semantics yet, so a
# masked array is refused instead of reduced through its hidden data.
# ---------------------------------------------------------------------------

_M = np.ma.masked_array([5.0, -100.0, 3.0], mask=[0, 1, 0])


@pytest.mark.parametrize("call_method", [
    lambda m: nr.accumulate(nr.minimummaximum, m),
    lambda m: nr.accumulate(nr.moments, m),
    lambda m: nr.cumminmax(m),
    lambda m: nr.merge(nr.minimummaximum, (m, m), (1.0, 2.0)),
    lambda m: nr.merge(nr.minimummaximum, (1.0, 2.0), (m, m)),
], ids=["accumulate", "accumulate-moments", "cumminmax", "merge-a", "merge-b"])
def test_methods_refuse_masked_arrays(call_method):
    with pytest.raises(TypeError, match="masked"):
        call_method(_M)


def test_accumulate_keeps_a_subclass_and_refuses_no_ufuncs():
    a = np.array([3.0, 1.0, 4.0]).view(MyArray)
    for res, ref in zip(nr.accumulate(nr.minimummaximum, a),
                        (np.minimum.accumulate(a), np.maximum.accumulate(a))):
        assert type(res) is type(ref) is MyArray
        np.testing.assert_array_equal(res, ref)
    lo, hi = nr.cumminmax(a)
    assert type(lo) is MyArray and type(hi) is MyArray
    with pytest.raises(TypeError, match="__array_ufunc__"):
        nr.accumulate(nr.minimummaximum, NoUfuncs())
    # a NumPy ufunc is handed to its own accumulate (and its own dispatch)
    assert type(nr.accumulate(np.add, a)) is MyArray
