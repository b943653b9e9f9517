"""Edge cases of NumPy's own test suites, ported to numreduce's functions.

Sources (read, not copied): numpy/lib/tests/test_nanfunctions.py (nanmin,
nanmax, nanargmin, nanargmax, nanmean, nanvar, nanstd), numpy/_core/tests/
test_umath.py and test_multiarray.py (min/max/argmin/argmax ordering of NaN,
NaT, complex, bool, integer extremes, ties), test_ufunc.py (reduce with
initial / where / empty / keepdims / axis tuples / 0-d) and the mean/var
tests.  Each case compares numreduce with the NumPy call it stands in for,
computed at test time:

    minmax       ~ (np.min, np.max)          nanminmax    ~ (np.nanmin, np.nanmax)
    argminmax    ~ (np.argmin, np.argmax)    nanargminmax ~ (np.nanargmin, np.nanargmax)
    meanvar      ~ (np.mean, np.var)         meanstd      ~ (np.mean, np.std)
    nanmeanvar   ~ (np.nanmean, np.nanvar)   fsum         ~ math.fsum / np.sum
"""

from __future__ import annotations

import math
import warnings
from fractions import Fraction

import numpy as np
import pytest

import numreduce as nr
from peer_helpers import check, run

MINMAX = (np.min, np.max)
NANMINMAX = (np.nanmin, np.nanmax)
ARG = (np.argmin, np.argmax)
NANARG = (np.nanargmin, np.nanargmax)


def _no_ddof(f):
    def call(a, *args, ddof=0, **kw):
        return f(a, *args, **kw)
    call.__name__ = f.__name__
    return call


MEANVAR = (_no_ddof(np.mean), np.var)
MEANSTD = (_no_ddof(np.mean), np.std)
NANMEANVAR = (_no_ddof(np.nanmean), np.nanvar)

# test_nanfunctions.py's matrix: rows with NaN at different places.
_MAT = np.array([[0.6244, np.nan, 0.2692, 0.0116, np.nan, 0.1170],
                 [0.5351, -0.9403, np.nan, 0.2100, 0.4759, 0.2833],
                 [np.nan, np.nan, np.nan, 0.1042, np.nan, -0.5954],
                 [0.1610, np.nan, np.nan, 0.1859, 0.3146, np.nan]])
_FLOATS = [np.float16, np.float32, np.float64, np.longdouble]


# ---------------------------------------------------------------------------
# nan-functions (test_nanfunctions.py)
# ---------------------------------------------------------------------------

class TestNanMinMaxLike:
    @pytest.mark.parametrize("dtype", _FLOATS)
    @pytest.mark.parametrize("axis", [None, 0, 1, -1, (0, 1)])
    def test_result_values_and_dtype(self, dtype, axis):
        check(nr.nanminmax, NANMINMAX, _MAT[:2].astype(dtype), axis=axis)
        check(nr.minmax, MINMAX, _MAT.astype(dtype), axis=axis)

    def test_mutation(self):
        m = _MAT.copy()
        nr.nanminmax(m, axis=1)
        nr.nanargminmax(m[:2], axis=1)
        nr.nanmeanvar(m, axis=0)
        np.testing.assert_array_equal(m, _MAT)

    @pytest.mark.parametrize("axis", [None, 0, 1, 2, (0, 2)])
    def test_keepdims(self, axis):
        mat = np.eye(3)
        a = np.stack([mat] * 5, axis=1)  # (3, 5, 3)
        a[1, 2, 0] = np.nan
        for keepdims in (False, True):
            check(nr.nanminmax, NANMINMAX, a, axis=axis, keepdims=keepdims)
            check(nr.nanmeanvar, NANMEANVAR, a, axis=axis, keepdims=keepdims, rtol=1e-14)

    def test_out(self):
        want = (np.nanmin(_MAT, axis=1), np.nanmax(_MAT, axis=1))
        o = (np.zeros(4), np.zeros(4))
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", RuntimeWarning)
            res = nr.nanminmax(_MAT, axis=1, out=o)
        assert res[0] is o[0] and res[1] is o[1]
        np.testing.assert_array_equal(o[0], want[0])
        np.testing.assert_array_equal(o[1], want[1])

    @pytest.mark.parametrize("axis", [None, 0, 1])
    def test_allnans(self, axis):
        # All-NaN slices: NaN and NumPy's RuntimeWarning "All-NaN slice".
        a = np.full((3, 3), np.nan)
        a[0, 1] = 1.0 if axis == 1 else np.nan
        got = check(nr.nanminmax, NANMINMAX, a, axis=axis)
        with pytest.warns(RuntimeWarning, match="All-NaN slice encountered"):
            nr.nanminmax(a, axis=axis)
        assert np.isnan(got[0]).any()

    def test_empty(self):
        # NumPy: reducing a zero-length axis without initial is a ValueError;
        # reducing the other axis gives an empty result.
        for shape in [(0, 3), (3, 0)]:
            a = np.zeros(shape)
            for axis in (None, 0, 1):
                check(nr.nanminmax, NANMINMAX, a, axis=axis)
                check(nr.minmax, MINMAX, a, axis=axis)

    def test_scalar(self):
        for v in (0.0, np.float32(-1.5), np.nan):
            check(nr.nanminmax, NANMINMAX, v)
            check(nr.minmax, MINMAX, v)
            check(nr.minmax, MINMAX, np.array(v), axis=0)  # 0-d: ufunc.reduce's rule

    @pytest.mark.parametrize("dtype", [np.float32, np.float64, np.int64, np.uint8])
    def test_initial(self, dtype):
        ar = np.arange(9).astype(dtype)
        if ar.dtype.kind == "f":
            ar[:5] = np.nan
        for initial in (2, 10):
            got = nr.nanminmax(ar, initial=initial)
            assert got[0] == np.nanmin(ar, initial=initial)
            assert got[1] == np.nanmax(ar, initial=initial)
            assert got[0].dtype == np.nanmin(ar, initial=initial).dtype
            check(nr.minmax, (lambda a, initial: np.min(a, initial=initial),
                              lambda a, initial: np.max(a, initial=initial)),
                  ar, initial=initial)

    @pytest.mark.parametrize("dtype", [np.float32, np.float64, np.longdouble])
    def test_where(self, dtype):
        ar = np.arange(9).reshape(3, 3).astype(dtype)
        ar[0, :] = np.nan
        where = np.ones_like(ar, dtype=np.bool_)
        where[:, 0] = False
        for axis in (None, 0, 1):
            check(nr.nanminmax, NANMINMAX, ar, axis=axis, where=where, initial=5)

    def test_where_needs_initial(self):
        a = np.arange(6.0).reshape(2, 3)
        where = np.array([[True, False, True], [False, False, False]])
        check(nr.minmax, MINMAX, a, axis=0, where=where)  # ValueError in both

    def test_object_array(self):
        # docs/differences.md: no object loop, a TypeError (np.nanmin works).
        a = np.array([[1.0, 2.0], [np.nan, 4.0], [np.nan, np.nan]], dtype=object)
        with pytest.raises(TypeError):
            nr.nanminmax(a)
        with pytest.raises(TypeError):
            nr.minmax(a)

    @pytest.mark.parametrize("dtype", [np.int8, np.uint16, np.int64, np.uint64, np.bool_])
    def test_integer_is_plain_minmax(self, dtype):
        a = np.array([[1, 0, 1], [0, 1, 1]]).astype(dtype)
        for axis in (None, 0, 1):
            check(nr.nanminmax, NANMINMAX, a, axis=axis)


class TestNanArgLike:
    @pytest.mark.parametrize("dtype", _FLOATS)
    def test_result_values(self, dtype):
        m = _MAT[[0, 1, 3]].astype(dtype)
        for axis in (None, 1):
            check(nr.nanargminmax, NANARG, m, axis=axis)

    @pytest.mark.parametrize("axis", [None, 0, 1])
    def test_allnans(self, axis):
        a = np.full((3, 3), np.nan)
        check(nr.nanargminmax, NANARG, a, axis=axis)  # ValueError in both
        with pytest.raises(ValueError, match="All-NaN slice encountered"):
            nr.nanargminmax(a, axis=axis)

    def test_empty(self):
        for shape in [(0, 3), (3, 0)]:
            a = np.zeros(shape)
            for axis in (None, 0, 1):
                check(nr.nanargminmax, NANARG, a, axis=axis)
                check(nr.argminmax, ARG, a, axis=axis)
        with pytest.raises(ValueError, match="attempt to get argmin of an empty sequence"):
            nr.nanargminmax(np.zeros(0))

    def test_scalar(self):
        for f, ref in [(nr.argminmax, ARG), (nr.nanargminmax, NANARG)]:
            check(f, ref, 0.0)
            check(f, ref, np.array(3), axis=0)
            check(f, ref, np.array(3), axis=-1)
            check(f, ref, np.array(3), axis=1)  # AxisError in both

    @pytest.mark.parametrize("axis", [None, 0, 1, -1])
    def test_keepdims(self, axis):
        a = np.arange(24.0).reshape(2, 3, 4) % 7
        a[1, 1, 1] = np.nan
        for f, ref in [(nr.argminmax, ARG), (nr.nanargminmax, NANARG)]:
            check(f, ref, a, axis=axis, keepdims=True)

    def test_out(self):
        m = _MAT[[0, 1, 3]]
        o = (np.zeros(3, np.intp), np.zeros(3, np.intp))
        res = nr.nanargminmax(m, axis=1, out=o)
        assert res[0] is o[0] and res[1] is o[1]
        np.testing.assert_array_equal(o[0], np.nanargmin(m, axis=1))
        np.testing.assert_array_equal(o[1], np.nanargmax(m, axis=1))
        # an out NumPy refuses (float) is refused as well
        check(nr.argminmax, (lambda a, out: np.argmin(a, out=out[0]),
                             lambda a, out: np.argmax(a, out=out[1])),
              np.arange(3.0), out=(np.zeros((), np.float64), np.zeros((), np.float64)))

    def test_nat_is_not_skipped(self):
        # np.nanargmin is np.argmin for datetime: NaT wins (first occurrence).
        a = np.array(["2000", "NaT", "1999", "NaT"], dtype="M8[D]")
        check(nr.nanargminmax, NANARG, a)
        check(nr.argminmax, ARG, a)


class TestNanMeanVarLike:
    @pytest.mark.filterwarnings("ignore:Degrees of freedom:RuntimeWarning")
    @pytest.mark.parametrize("dtype", [np.float16, np.float32, np.float64])
    @pytest.mark.parametrize("ddof", [0, 1])
    def test_result_values(self, dtype, ddof):
        m = _MAT.astype(dtype)
        for axis in (None, 0, 1):
            if m.itemsize == 8:
                check(nr.nanmeanvar, NANMEANVAR, m, axis=axis, ddof=ddof, rtol=1e-14)
                continue
            # docs/differences.md: float16/float32 accumulate in float64 and
            # round the result (np.nanvar accumulates in the input dtype).
            got = nr.nanmeanvar(m, axis=axis, ddof=ddof)
            m64 = m.astype(np.float64)
            want = (np.nanmean(m64, axis=axis).astype(dtype),
                    np.nanvar(m64, axis=axis, ddof=ddof).astype(dtype))
            for g, w in zip(got, want):
                assert np.asarray(g).dtype == dtype
                np.testing.assert_allclose(g, w, rtol=np.finfo(dtype).eps, atol=0)

    def test_allnans(self):
        a = np.full((3, 3), np.nan)
        for axis in (None, 0, 1):
            check(nr.nanmeanvar, NANMEANVAR, a, axis=axis)
        with pytest.warns(RuntimeWarning, match="Mean of empty slice"):
            with pytest.warns(RuntimeWarning, match="Degrees of freedom <= 0"):
                nr.nanmeanvar(a)

    def test_empty(self):
        for shape in [(0, 3), (3, 0)]:
            a = np.zeros(shape)
            for axis in (None, 0, 1):
                check(nr.nanmeanvar, NANMEANVAR, a, axis=axis)
                check(nr.meanvar, MEANVAR, a, axis=axis)

    @pytest.mark.parametrize("ddof", [3, 4, 6, 7])
    def test_ddof_too_big(self, ddof):
        # Row 0 of _MAT has 4 values, row 2 has 2: NaN where ddof >= count,
        # with "Degrees of freedom <= 0".
        check(nr.nanmeanvar, NANMEANVAR, _MAT, axis=1, ddof=ddof, rtol=1e-14)
        check(nr.meanvar, MEANVAR, np.arange(6.0).reshape(1, 6), axis=1, ddof=ddof,
              rtol=1e-14)
        check(nr.meanstd, MEANSTD, np.arange(6.0), ddof=ddof, rtol=1e-14)

    @pytest.mark.parametrize("dtype", [np.float32, np.float64, np.longdouble])
    def test_dtype_argument(self, dtype):
        for a in (_MAT, _MAT.astype(np.float32)):
            check(nr.nanmeanvar, NANMEANVAR, a, axis=1, dtype=dtype, rtol=1e-6)

    def test_integer_input(self):
        a = np.array([[1, 2, 3], [4, 6, 9]], dtype=np.int16)
        for axis in (None, 0, 1):
            check(nr.nanmeanvar, NANMEANVAR, a, axis=axis, rtol=1e-15)
            check(nr.meanvar, MEANVAR, a, axis=axis, rtol=1e-15)
            check(nr.meanstd, MEANSTD, a, axis=axis, rtol=1e-15)

    def test_where(self):
        a = np.arange(12.0).reshape(3, 4)
        a[1, 1] = np.nan
        where = np.array([[True, False, True, True]])
        for axis in (None, 0, 1):
            check(nr.nanmeanvar, NANMEANVAR, a, axis=axis, where=where, rtol=1e-14)
            check(nr.meanvar, MEANVAR, a, axis=axis, where=where, rtol=1e-14)

    def test_scalar(self):
        check(nr.nanmeanvar, NANMEANVAR, 4.0)
        check(nr.nanmeanvar, NANMEANVAR, np.nan)
        check(nr.meanvar, MEANVAR, np.array(2.5))


# ---------------------------------------------------------------------------
# min / max / argmin / argmax ordering (test_umath.py, test_multiarray.py)
# ---------------------------------------------------------------------------

_ORDERED_DTYPES = [np.bool_, np.int8, np.uint8, np.int16, np.uint16, np.int32, np.uint32,
                   np.int64, np.uint64, np.float16, np.float32, np.float64, np.longdouble]


class TestMinMaxOrdering:
    @pytest.mark.parametrize("dtype", [np.float16, np.float32, np.float64, np.longdouble])
    def test_nan_at_every_position(self, dtype):
        # test_umath's reduction tests put one NaN at each index of arrays of
        # many lengths so that every SIMD lane and remainder sees it.
        for n in (1, 2, 7, 16, 33, 64, 65, 130):
            base = np.arange(n, dtype=dtype)
            for i in sorted({0, n // 3, n // 2, n - 1}):
                a = base.copy()
                a[i] = np.nan
                check(nr.minmax, MINMAX, a)
                check(nr.argminmax, ARG, a)
                if n > 1:
                    check(nr.nanminmax, NANMINMAX, a)
                    check(nr.nanargminmax, NANARG, a)

    @pytest.mark.parametrize("dtype", _ORDERED_DTYPES)
    def test_extreme_at_every_position(self, dtype):
        info = np.iinfo(dtype) if np.dtype(dtype).kind in "iu" else None
        for n in (1, 3, 17, 64, 100, 257):
            base = np.zeros(n, dtype) + (1 if dtype is not np.bool_ else True)
            for i in sorted({0, n // 2, n - 1}):
                for v in ([info.min, info.max] if info else [0, 1] if dtype is np.bool_
                          else [-np.inf, np.inf, np.finfo(dtype).max,
                                np.finfo(dtype).smallest_subnormal]):
                    a = base.copy()
                    a[i] = v
                    check(nr.minmax, MINMAX, a)
                    check(nr.argminmax, ARG, a)

    def test_first_occurrence_ties(self):
        for a in ([1, 0, 0, 1, 0], [5, 5, 5], [np.nan, 1.0, np.nan], [0.0, -0.0, 0.0],
                  [3, 1, 3, 1] * 40, [True, False, True, False]):
            arr = np.array(a)
            check(nr.argminmax, ARG, arr)
            check(nr.argminmax, ARG, np.tile(arr, (3, 1)), axis=1)
            check(nr.argminmax, ARG, np.tile(arr, (3, 1)).T, axis=0)

    def test_argmax_lists(self):
        # test_multiarray's TestArgmax data, in spirit: NaN first / last / inner.
        nan = np.nan
        for a in ([0, 1, 2, 3, nan], [0, 1, 2, nan, 3], [nan, 0, 1, 2, 3], [nan, 0, nan, 2, 3],
                  [0, 1, 2, 3, 3], [3, 3, 2, 1, 0], [-np.inf, np.inf, nan], [1e308, -1e308]):
            for dt in (np.float64, np.longdouble):
                check(nr.argminmax, ARG, np.array(a, dt))
                check(nr.minmax, MINMAX, np.array(a, dt))

    def test_complex_ordering(self):
        # Lexicographic order; a NaN in either part propagates and is first.
        nan = np.nan
        for a in ([0, 1 + 1j, 1 - 1j, 1j, -1j], [1 + 2j, 1 + 1j, 1 + 3j],
                  [complex(0, nan), 0, 1], [0, complex(nan, 0), complex(0, nan), 2],
                  [complex(1, 1), complex(1, nan)], [2 + 0j, complex(nan, nan), 1]):
            for dt in (np.complex64, np.complex128, np.clongdouble):
                arr = np.array(a, dt)
                check(nr.argminmax, ARG, arr)
                check(nr.minmax, MINMAX, arr)
                check(nr.nanargminmax, NANARG, arr)

    @pytest.mark.parametrize("unit", ["D", "s", "ns"])
    def test_datetime_nat(self, unit):
        for kind in ("M8", "m8"):
            dt = f"{kind}[{unit}]"
            for ticks in ([3, 1, 2], [3, "NaT", 1], ["NaT", 1, 2], [1, 2, "NaT"], ["NaT"] * 3):
                a = np.array([np.datetime64("NaT", unit) if t == "NaT" else t for t in ticks]
                             if kind == "M8" else
                             [np.timedelta64("NaT", unit) if t == "NaT" else t for t in ticks],
                             dtype=dt)
                check(nr.minmax, MINMAX, a)
                check(nr.argminmax, ARG, a)
                check(nr.nanminmax, NANMINMAX, a)

    def test_bool(self):
        for a in ([True], [False], [True, False], [False] * 70 + [True], [True] * 70):
            arr = np.array(a)
            check(nr.minmax, MINMAX, arr)
            check(nr.argminmax, ARG, arr)

    def test_signed_zero_values(self):
        # docs/differences.md: either zero may come back; the value compares equal.
        for a in ([0.0, -0.0], [-0.0, 0.0], [-0.0] * 40 + [0.0] * 40):
            lo, hi = nr.minmax(np.array(a))
            assert lo == 0 and hi == 0


# ---------------------------------------------------------------------------
# ufunc.reduce options (test_ufunc.py): initial, where, empty, keepdims, axes
# ---------------------------------------------------------------------------

class TestReduceOptions:
    def test_initial_on_empty(self):
        for shape, axis in [((0,), None), ((0, 3), 0), ((3, 0), 1), ((0, 0), (0, 1))]:
            a = np.zeros(shape)
            mn = np.minimum.reduce(a, axis=axis, initial=7.0)
            mx = np.maximum.reduce(a, axis=axis, initial=-7.0)
            got = nr.minmax(a, axis=axis, initial=(7.0, -7.0))
            np.testing.assert_array_equal(got[0], mn, strict=True)
            np.testing.assert_array_equal(got[1], mx, strict=True)
            got = nr.reduce(nr.minimummaximum, a, axis=axis, initial=(7.0, -7.0))
            np.testing.assert_array_equal(got[0], mn, strict=True)

    def test_initial_integer(self):
        a = np.array([[3, 5], [7, 1]], np.int8)
        for axis in (None, 0, 1):
            check(nr.minmax, MINMAX, a, axis=axis, initial=4)
        # An initial that does not fit the dtype: NumPy refuses (NEP 50).
        for initial in (1000, -129, 2.5):
            check(nr.minmax, MINMAX, a, initial=initial)
        check(nr.minmax, MINMAX, a.astype(np.uint8), initial=-1)

    def test_where_broadcast(self):
        a = np.arange(12.0).reshape(3, 4)
        for where in (np.array([True, False, True, False]),
                      np.array([[True], [False], [True]]), np.True_, np.False_):
            for axis in (None, 0, 1, (0, 1)):
                got = nr.minmax(a, axis=axis, where=where, initial=(100, -100))
                want = (np.min(a, axis=axis, where=where, initial=100),
                        np.max(a, axis=axis, where=where, initial=-100))
                for g, w in zip(got, want):
                    np.testing.assert_array_equal(g, w, strict=True)

    def test_empty_without_initial(self):
        for shape, axis in [((0,), None), ((0, 2), 0), ((2, 0), 1), ((2, 0), 0)]:
            check(nr.minmax, MINMAX, np.zeros(shape), axis=axis)

    @pytest.mark.parametrize("axis", [(), (0,), (1,), (0, 2), (2, 0), (-1, 0), (0, 1, 2),
                                      None])
    def test_axis_tuples_keepdims(self, axis):
        a = np.arange(60.0).reshape(3, 4, 5) % 11
        a[1, 2, 3] = np.nan
        for keepdims in (False, True):
            check(nr.minmax, MINMAX, a, axis=axis, keepdims=keepdims)
            check(nr.nanminmax, NANMINMAX, a, axis=axis, keepdims=keepdims)
            check(nr.meanvar, MEANVAR, a, axis=axis, keepdims=keepdims, rtol=1e-14)
            check(nr.nanmeanvar, NANMEANVAR, a, axis=axis, keepdims=keepdims, rtol=1e-14)

    def test_bad_axes(self):
        a = np.zeros((2, 3))
        for axis in (2, -3, (0, 0), (1, -1), (0, 5)):
            check(nr.minmax, MINMAX, a, axis=axis)
            check(nr.meanvar, MEANVAR, a, axis=axis)
            check(nr.nanmeanvar, NANMEANVAR, a, axis=axis)

    def test_zero_d(self):
        a = np.array(5.0)
        for axis in (None, (), 0, -1, (0,), 1):
            check(nr.minmax, MINMAX, a, axis=axis)
            check(nr.nanminmax, NANMINMAX, a, axis=axis)
        for axis in (None, (), 0, 1):
            check(nr.meanvar, MEANVAR, a, axis=axis)
            check(nr.nanmeanvar, NANMEANVAR, a, axis=axis)

    def test_out_keepdims(self):
        a = np.arange(12.0).reshape(3, 4)
        o = (np.zeros((1, 4)), np.zeros((1, 4)))
        nr.minmax(a, axis=0, keepdims=True, out=o)
        np.testing.assert_array_equal(o[0], np.min(a, axis=0, keepdims=True))
        np.testing.assert_array_equal(o[1], np.max(a, axis=0, keepdims=True))
        # NumPy refuses an out of the wrong shape; so must numreduce.
        for bad in [np.zeros(1), np.zeros((4, 1)), np.zeros(3), np.zeros((1, 1))]:
            check(nr.minmax, (lambda a, out, **k: np.min(a, out=out[0], **k),
                              lambda a, out, **k: np.max(a, out=out[1], **k)),
                  a, axis=0, out=(bad, bad.copy()))

    @pytest.mark.parametrize("axis", [(0, 2), (1,), (0, 1, 2)])
    def test_out_keepdims_axis_tuple(self, axis):
        # test_nanfunctions' keepdims+out cases, with an axis tuple
        a = np.arange(60.0).reshape(3, 4, 5) % 7
        a[0, 1, 2] = np.nan
        shape = np.nanmin(a, axis=axis, keepdims=True).shape
        for f, refs in [(nr.nanminmax, NANMINMAX), (nr.minmax, MINMAX)]:
            o = (np.full(shape, -1.0), np.full(shape, -1.0))
            res = f(a, axis=axis, keepdims=True, out=o)
            assert res[0] is o[0] and res[1] is o[1]
            for r, ref in zip(o, refs):
                np.testing.assert_array_equal(r, ref(a, axis=axis, keepdims=True), strict=True)

    def test_out_casts_like_numpy(self):
        # a float32 or int64 out for float64 data: NumPy casts into out
        a = np.arange(6.0).reshape(3, 2) + 0.5
        for dt in (np.float32, np.int64, ">f8"):
            o = (np.zeros(3, dt), np.zeros(3, dt))
            nr.minmax(a, axis=1, out=o)
            np.testing.assert_array_equal(o[0], np.min(a, axis=1, out=np.zeros(3, dt)),
                                          strict=True)
            np.testing.assert_array_equal(o[1], np.max(a, axis=1, out=np.zeros(3, dt)),
                                          strict=True)
        o = (np.zeros(3, np.int32), np.zeros(3, np.int32))
        nr.argminmax(a, axis=1, out=o)
        np.testing.assert_array_equal(o[0], np.argmin(a, axis=1, out=np.zeros(3, np.int32)),
                                      strict=True)

    def test_noncontiguous_and_byteswapped(self):
        a = (np.arange(120.0) * 7 % 13).reshape(4, 5, 6)
        a[2, 3, 1] = np.nan
        for view in (a[::2, ::-1, 1::2], a.transpose(2, 0, 1), a.astype(">f8"),
                     np.asfortranarray(a)):
            for axis in (None, 0, 1, 2, (0, 2)):
                check(nr.minmax, MINMAX, view, axis=axis)
                check(nr.nanminmax, NANMINMAX, view, axis=axis)
                check(nr.meanvar, MEANVAR, view, axis=axis, rtol=1e-14)
            for axis in (None, 0, 1, 2):
                check(nr.argminmax, ARG, view, axis=axis)


# ---------------------------------------------------------------------------
# mean / var accuracy and dtypes (test_numeric.py, _methods)
# ---------------------------------------------------------------------------

def _exact_var(x, ddof=0):
    fr = [Fraction(float(v)) for v in x]
    m = sum(fr) / len(fr)
    return m, sum((v - m) ** 2 for v in fr) / (len(fr) - ddof)


class TestMeanVar:
    def test_large_offset(self):
        # np.var is tested on x + 1e9 style data; numreduce must be at least
        # as accurate as np.var against the exact value.
        rng = np.random.default_rng(5)
        for offset in (1e6, 1e9, 1e12):
            x = rng.standard_normal(1000) + offset
            m, v = nr.meanvar(x)
            em, ev = _exact_var(x)
            err = abs(Fraction(float(v)) - ev) / ev
            np_err = abs(Fraction(float(np.var(x))) - ev) / ev
            assert err <= max(np_err, Fraction(1, 10**13))
            assert abs(Fraction(float(m)) - em) <= abs(em) * Fraction(2, 10**16)

    def test_float16_accumulation(self):
        # np.mean of float16 data accumulates in float32: ones(10**5) -> 1.
        # numreduce accumulates in float64 (docs/differences.md), so even the
        # variance is exact where np.var's float16 intermediate overflows.
        a = np.ones(100_000, np.float16)
        for f in (nr.meanvar, nr.nanmeanvar, nr.meanstd):
            m, v = f(a)
            assert m.dtype == v.dtype == np.float16
            assert m == np.mean(a) == 1 and v == 0
        b = np.full(70_000, 0.1, np.float16)
        m, s = nr.meanstd(b)
        assert m == np.mean(b) and m.dtype == np.float16
        assert s == np.float16(np.std(b.astype(np.float64)))

    @pytest.mark.parametrize("dtype", [np.float32, np.float64, np.longdouble])
    def test_dtype_sets_result(self, dtype):
        for a in (np.arange(10, dtype=np.int32), np.linspace(0, 1, 7),
                  np.linspace(0, 1, 7).astype(np.float32)):
            check(nr.meanvar, MEANVAR, a, dtype=dtype, rtol=1e-6)
            check(nr.meanstd, MEANSTD, a, dtype=dtype, rtol=1e-6)

    def test_huge_integers(self):
        # np.mean of int64 near the extremes: float64 accumulators, no wrap.
        i = np.iinfo(np.int64)
        for a in ([i.max, i.max, i.max], [i.min, i.max], [i.min, i.min]):
            check(nr.meanvar, MEANVAR, np.array(a, np.int64), rtol=1e-15)
        u = np.array([np.iinfo(np.uint64).max] * 4, np.uint64)
        check(nr.meanvar, MEANVAR, u, rtol=1e-15)

    def test_bool_input(self):
        a = np.array([True, False, True, True])
        check(nr.meanvar, MEANVAR, a, rtol=1e-15)
        check(nr.nanmeanvar, NANMEANVAR, a, rtol=1e-15)

    def test_inf_nan(self):
        for a in ([1.0, np.inf], [np.inf, np.inf], [-np.inf, np.inf], [np.nan, 1.0],
                  [1e308, 1e308], [1e308, -1e308, 1e308]):
            arr = np.array(a)
            m, v = nr.meanvar(arr)
            with np.errstate(all="ignore"):
                rm = np.mean(arr)
            # the mean follows np.mean wherever np.mean is finite or NaN
            if np.isfinite(rm) or np.isnan(rm):
                np.testing.assert_allclose(m, rm, rtol=4e-16, atol=0, equal_nan=True)
            assert not (v < 0)  # a variance is never negative


class TestFsum:
    def test_against_math_fsum(self):
        rng = np.random.default_rng(0)
        cases = [[1e16, 1.0, -1e16], [0.1] * 10, [1e100, 1.0, -1e100, 1e-100],
                 list(rng.standard_normal(1000) * 10.0 ** rng.integers(-5, 5, 1000))]
        for c in cases:
            a = np.array(c)
            assert nr.fsum(a) == math.fsum(c)
            assert nr.fsum(a[::-1]) == math.fsum(c[::-1])

    def test_specials_like_sum(self):
        for a in ([np.inf, 1.0], [np.inf, -np.inf], [np.nan, 1.0], [1e308, 1e308],
                  [-np.inf, -np.inf]):
            arr = np.array(a)
            with np.errstate(all="ignore"):
                want = np.sum(arr)
            np.testing.assert_array_equal(nr.fsum(arr), want)

    def test_dtypes_and_axes(self):
        a = np.arange(24).reshape(2, 3, 4)
        for dt in (np.int32, np.uint8, np.bool_, np.float32, np.float64):
            b = (a % 5).astype(dt)
            for axis in (None, 0, 2, (0, 2)):
                for keepdims in (False, True):
                    want = np.sum(b, axis=axis, keepdims=keepdims,
                                  dtype=np.float64 if b.dtype.kind in "biu" else None)
                    got = nr.fsum(b, axis=axis, keepdims=keepdims)
                    np.testing.assert_array_equal(got, want, strict=True)

    def test_empty(self):
        for shape, axis in [((0,), None), ((0, 3), 0), ((3, 0), 1)]:
            a = np.zeros(shape)
            np.testing.assert_array_equal(nr.fsum(a, axis=axis), np.sum(a, axis=axis),
                                          strict=True)


# ---------------------------------------------------------------------------
# Threaded whole-array reductions against NumPy (numreduce.set_num_threads)
# ---------------------------------------------------------------------------

_CHUNK = 2**21  # docs/guide/threads.md: threads split into chunks of at least 2**21 elements


@pytest.fixture(scope="module")
def big():
    return np.random.default_rng(1).standard_normal(3 * _CHUNK + 123)


@pytest.fixture
def threads():
    old = nr.get_num_threads()
    yield nr.set_num_threads
    nr.set_num_threads(old)


class TestThreads:
    @pytest.mark.parametrize("n", [1, 2, 3, 4])
    def test_extremes_and_nan_at_chunk_edges(self, big, threads, n):
        threads(n)
        b = big.copy()
        for pos in (0, _CHUNK, 2 * _CHUNK - 1, b.size - 1):
            b[pos] = np.nan
            assert np.isnan(nr.minmax(b)).all()
            assert nr.argminmax(b) == (pos, pos)
            with warnings.catch_warnings():
                warnings.simplefilter("error")
                assert nr.nanminmax(b) == (np.nanmin(b), np.nanmax(b))
            assert nr.nanargminmax(b) == (np.nanargmin(b), np.nanargmax(b))
            b[pos] = 100.0
            assert nr.minmax(b) == (np.min(b), np.max(b))
            assert nr.argminmax(b) == (np.argmin(b), np.argmax(b))
            b[pos] = big[pos]
        i8 = (big * 50).astype(np.int8)
        assert nr.minmax(i8) == (i8.min(), i8.max())
        assert nr.argminmax(i8) == (i8.argmin(), i8.argmax())

    def test_fsum_same_for_every_thread_count(self, big, threads):
        exact = math.fsum(big)
        for n in (1, 2, 3, 4):
            threads(n)
            assert nr.fsum(big) == exact


# ---------------------------------------------------------------------------
# Cases that failed before the issue-10 fixes (regression tests)
# ---------------------------------------------------------------------------

class _MyNDArray(np.ndarray):
    pass


class TestIssue10Regressions:
    def test_subclass_kept(self):
        # test_nanfunctions' test_subclass: the class survives np.nanmin.
        a = np.array([[1.0, np.nan], [3.0, 4.0]]).view(_MyNDArray)
        for axis in (None, 0):
            lo, hi = nr.nanminmax(a, axis=axis)
            assert type(lo) is type(np.nanmin(a, axis=axis))
            assert type(hi) is type(np.nanmax(a, axis=axis))
        assert type(nr.minmax(a, axis=0)[0]) is _MyNDArray

    def test_masked_array(self):
        # test_nanfunctions calls np.nanmin on masked arrays.
        m = np.ma.masked_array([5.0, -100.0, 3.0, 50.0, 1.0], mask=[0, 1, 0, 1, 0])
        assert nr.minmax(m) == (np.min(m), np.max(m))
        assert nr.nanminmax(m) == (np.nanmin(m), np.nanmax(m))
        assert nr.argminmax(m) == (np.argmin(m), np.argmax(m))
        mv = nr.meanvar(m)
        assert mv[0] == np.mean(m) and mv[1] == np.var(m)

    def test_nanmean_integer_dtype(self):
        a = np.array([1.5, np.nan, 2.5])
        for dt in (int, bool, object):
            _, exc, _ = run(np.nanmean, a, dtype=dt)
            assert isinstance(exc, TypeError)
            with pytest.raises(TypeError):
                nr.nanmeanvar(a, dtype=dt)

    def test_meanvar_integer_dtype(self):
        # np.mean(dtype=int) casts each element and truncates the division;
        # numreduce refuses (docs/differences.md) instead of a different number.
        assert np.mean(np.array([1.5, 2.5]), dtype=int) == 1
        with pytest.raises(TypeError, match="dtype"):
            nr.meanvar(np.array([1.5, 2.5]), dtype=int)

    def test_complex_meanvar(self):
        a = np.array([1 + 2j, 3 - 1j, -2 + 0.5j])
        check(nr.meanvar, MEANVAR, a, rtol=1e-15)

    def test_moments_paths_agree_near_overflow(self):
        A = np.tile([[-1e308], [1e308]], (1, 5))
        contiguous = nr.reduce(nr.moments, A, axis=0)
        strided = nr.reduce(nr.moments, A[:, ::2], axis=0)
        for c, s in zip(contiguous, strided):
            np.testing.assert_array_equal(s, c[::2])
        assert not (strided[2] < 0).any()

    def test_meanvar_same_for_every_thread_count(self, big, threads):
        threads(1)
        want = nr.meanvar(big), nr.nanmeanvar(big)
        for n in (2, 3, 4):
            threads(n)
            got = nr.meanvar(big), nr.nanmeanvar(big)
            assert got == want, n

    def test_logsumexp_same_for_every_thread_count(self, big, threads):
        a = big[:2 * _CHUNK + 5]  # 1 thread: ...c2eadp+3, 2-4 threads: ...c2eaep+3
        threads(1)
        want = nr.logsumexp(a)
        for n in (2, 3, 4):
            threads(n)
            assert nr.logsumexp(a) == want, n
