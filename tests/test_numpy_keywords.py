"""NumPy's remaining keywords: meanvar / meanstd / nanmeanvar ``out=`` and
``correction=``; fsum ``out=``, ``where=``, ``initial=`` -- against np.mean,
np.var, np.std, np.nanvar and np.sum (and math.fsum for the sums), with
every bad argument refused before anything is written."""

from __future__ import annotations

import math

import numpy as np
import pytest

import numreduce as nr
from numreduce import _api

RNG = np.random.default_rng(11)
MEANVARS = [(nr.meanvar, np.mean, np.var), (nr.meanstd, np.mean, np.std),
            (nr.nanmeanvar, np.nanmean, np.nanvar)]
PATHS = [pytest.param(lambda name: getattr(nr, name), id="public"),
         pytest.param(lambda name: getattr(_api, name), id="general")]


@pytest.mark.parametrize("fns", MEANVARS, ids=lambda f: f[0].__name__)
@pytest.mark.parametrize("axis", [None, 0, 1])
@pytest.mark.parametrize("keepdims", [False, True])
def test_meanvar_out(fns, axis, keepdims):
    fn, mref, vref = fns
    a = RNG.standard_normal((40, 30))
    a[3, 4] = np.nan if fn is nr.nanmeanvar else a[3, 4]
    m_want = mref(a, axis=axis, keepdims=keepdims)
    v_want = vref(a, axis=axis, keepdims=keepdims, ddof=1)
    shape = np.shape(m_want)
    outs = (np.empty(shape), np.empty(shape, dtype=np.float32))
    res = fn(a, axis=axis, out=outs, ddof=1, keepdims=keepdims)
    assert res[0] is outs[0] and res[1] is outs[1]
    np.testing.assert_allclose(outs[0], m_want, rtol=1e-14, atol=1e-15)  # means near 0
    np.testing.assert_allclose(outs[1], v_want.astype(np.float32), rtol=1e-6)
    # one entry None: that result is new, the other goes into its out
    o = np.empty(shape)
    m, v = fn(a, axis, None, (None, o), 1, keepdims)  # np.var's positional order
    assert v is o and not isinstance(m, type(None))
    np.testing.assert_allclose(m, m_want, rtol=1e-14, atol=1e-15)
    np.testing.assert_allclose(o, v_want, rtol=1e-12)


def test_meanvar_out_errors_before_any_work():
    a = RNG.standard_normal((5, 4))
    o = np.full(4, 7.0)
    with pytest.raises(ValueError):
        nr.meanvar(a, axis=0, out=(o, np.empty(3)))  # wrong shape
    with pytest.raises(TypeError):
        nr.meanvar(a, axis=0, out=(o, np.empty(4, dtype="U5")))
    with pytest.raises((TypeError, ValueError)):
        nr.meanvar(a, axis=0, out=o)  # not a pair
    with pytest.raises(ValueError, match="simultaneously"):
        nr.meanvar(a, axis=0, out=(o, None), ddof=1, correction=1)
    assert (o == 7.0).all()
    with pytest.raises(ValueError, match="weights must be non-negative"):
        nr.meanvar(a, axis=0, out=(o, None), weights=-np.ones(4))
    assert (o == 7.0).all()


@pytest.mark.parametrize("fns", MEANVARS, ids=lambda f: f[0].__name__)
@pytest.mark.parametrize("path", PATHS)
def test_correction_is_numpys_alias_of_ddof(fns, path):
    fn, _, vref = fns
    fn = path(fn.__name__)
    a = RNG.standard_normal(50)
    for c in (0, 1, 2.5):
        np.testing.assert_allclose(fn(a, correction=c)[1], vref(a, correction=c), rtol=1e-14)
        assert fn(a, ddof=0, correction=c)[1] == fn(a, correction=c)[1]  # as NumPy allows
    with pytest.raises(ValueError) as want:
        vref(a, ddof=1, correction=1)
    with pytest.raises(ValueError) as got:
        fn(a, ddof=1, correction=1)
    assert str(got.value) == str(want.value)
    w = RNG.integers(0, 4, size=50)
    np.testing.assert_allclose(fn(a, weights=w, correction=1)[1],
                               vref(np.repeat(a, w), ddof=1), rtol=1e-12)


@pytest.mark.parametrize("path", PATHS)
@pytest.mark.parametrize("axis", [None, 0, 1, (0, 1)])
def test_fsum_where_initial_out(path, axis):
    fsum = path("fsum")
    a = RNG.integers(-1000, 1000, size=(30, 20)).astype(np.float64)
    w = RNG.random((30, 20)) < 0.6
    for kw in ({}, {"where": w}, {"initial": 5.0}, {"initial": -3, "where": w},
               {"where": w[0]}, {"keepdims": True, "where": w, "initial": 1.5}):
        want = np.sum(a, axis=axis, **kw)  # exact: integers in float64
        got = fsum(a, axis=axis, **kw)
        np.testing.assert_array_equal(got, want)
        assert np.shape(got) == np.shape(want)
        out = np.empty(np.shape(want))
        res = fsum(a, axis, None, out, **kw)  # np.sum's positional order
        assert res is out
        np.testing.assert_array_equal(out, want)


def test_fsum_initial_is_added_exactly():
    x = np.array([1e16, 1.0, -1e16, 3.0])
    assert nr.fsum(x, initial=1e16) == math.fsum([*x, 1e16])
    assert nr.fsum(x, initial=0.5) == 4.5
    z = np.array([1e16 + 1j, 1.0 - 1e16j, -1e16 + 1e16j])
    got = nr.fsum(z, initial=2 + 3j)
    assert got == complex(math.fsum([1e16, 1.0, -1e16, 2]), math.fsum([1, -1e16, 1e16, 3]))
    assert nr.fsum(np.array([]), initial=7) == 7.0
    assert nr.fsum(np.ones(3), where=np.zeros(3, bool)) == 0.0
    assert np.isnan(nr.fsum(np.ones(3), initial=np.nan))
    assert nr.fsum(np.array([np.inf]), initial=1.0) == np.inf
    i = np.arange(10, dtype=np.int64)
    assert nr.fsum(i, initial=np.int64(3)) == 48.0


def test_fsum_bad_keywords_raise_before_any_work():
    a = np.ones((3, 4))
    o = np.full(4, 7.0)
    with pytest.raises(ValueError):
        nr.fsum(a, axis=0, out=np.empty(3))
    with pytest.raises(TypeError):
        nr.fsum(a, axis=0, out=np.empty(4, dtype="U5"))
    with pytest.raises(TypeError, match="initial"):
        nr.fsum(a, axis=0, out=o, initial=None)
    with pytest.raises(TypeError, match="initial"):
        nr.fsum(a, axis=0, out=o, initial=[1, 2])
    with pytest.raises(TypeError, match="complex initial"):
        nr.fsum(a, axis=0, out=o, initial=1j)
    with pytest.raises(ValueError):
        nr.fsum(a, axis=0, out=o, where=np.ones(5, bool))
    assert (o == 7.0).all()


def test_keywords_on_dask():
    da = pytest.importorskip("dask.array", reason="dask[array] is not installed (the 'dask' "
                             "extra)")
    a = RNG.standard_normal((40, 30))
    x = da.from_array(a, chunks=(10, 15))
    w = RNG.random((40, 30)) < 0.5
    got = nr.fsum(x, axis=0, initial=2.0, where=w)
    assert isinstance(got, da.Array)
    # np.sum's own rounding (not compensated) at sums near 0
    np.testing.assert_allclose(got.compute(), np.sum(a, axis=0, initial=2.0, where=w),
                               rtol=1e-14, atol=1e-14)
    m, v = nr.meanvar(x, axis=1, correction=1)
    np.testing.assert_allclose(v.compute(), np.var(a, axis=1, ddof=1), rtol=1e-13)
    with pytest.raises(TypeError):
        nr.meanvar(x, axis=1, out=(np.empty(40), None))
