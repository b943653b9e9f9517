"""The statistics layer: each user function's meaning, written once for
every backend.

A statistic is its plan -- the argument checks and result dtypes of the
rules layer (``_args``, ``_dtypes``), no probe array -- the reduction it
asks the backend ``be`` for (a method of ``_methods``, or ``be.reduce`` /
``be.scan`` of its parts), and its finish: a function ``f(xp, states)``
that runs on one block of host or device arrays (``xp`` is ``numpy`` or
``cupy``; on Dask every block of the merged states).  The finishes, the
complex-parts glue (real and imaginary parts reduced apart, their M2
summed) and the parts are module-level functions bound with
``functools.partial``, so that Dask tokenizes and pickles them cheaply.

``be`` is a backend module (``_host``, ``_dask``, ``_cupy``); ``qualname``
the public function's name (``numreduce.meanvar``), for its messages.

Layer: statistics (imports the rules layer and the methods layer).
"""

from __future__ import annotations

import collections
import math
import functools
import warnings

import numpy as np

from . import _core
from . import _methods as methods
from ._args import (NoValue, axis_index, check_index_outs, check_out_dtypes, ddof_arg,
                    include_initial_arg, is_given, keepdims_flag, normalize_axes, out_pair,
                    reduced_shape, scan_axis)
from ._dtypes import (arg_dtype, cumfsum_dtypes, fsum_dtypes, logcumsumexp_dtype,
                      logsumexp_dtype, meanvar_dtypes, moments_ufunc, real_dtype, resolve,
                      resolve_outs, sum_dtype)

__all__ = ["DescribeResult", "argminmax", "correlation", "covariance", "cumfsum", "cummeanvar",
           "cumminmax", "describe", "fsum", "kurtosis", "skew", "group_argminmax", "group_fsum", "group_logsumexp", "group_meanvar",
           "group_minmax", "logcumsumexp", "logsumexp", "meanstd", "meanvar", "minmax",
           "nanargminmax", "nancumminmax", "nanmeanvar", "nanminmax", "sumprod"]


# ---------------------------------------------------------------------------
# parts: the real arrays a statistic reduces, per block
# ---------------------------------------------------------------------------

def one_part(xp, a):
    """The array itself, as the one part."""
    return [a]


def _split(a):
    """``a``, or the real and imaginary parts of complex ``a``."""
    return [a.real, a.imag] if a.dtype.kind == "c" else [a]


def real_parts(work, xp, a):
    """``a``, or the real and imaginary parts of complex ``a``; converted to
    the real dtype ``work`` where that is long double."""
    parts = _split(a)
    return [p.astype(work, copy=False) for p in parts] if work.itemsize > 8 else parts


def moment_parts(mean_dt, nan, xp, a):
    """The real arrays whose moments the meanvar family reduces: ``a``, or
    the real and imaginary parts of complex data (NaN-skipping: an element
    whose real *or* imaginary part is NaN is NaN in both parts, so both skip
    it, as np.nanmean); in long double where the ``dtype=`` precision is
    long double."""
    parts = real_parts(real_dtype(mean_dt), xp, a)  # long double: dtype=longdouble, or data
    if nan and a.dtype.kind == "c":
        bad = xp.isnan(a)
        if bool(bad.any()):
            parts = [xp.where(bad, np.nan, p) for p in parts]
    return parts


def fsum_parts(rdt, xp, a):
    """The real arrays fsum sums: ``a`` (object data cast to the dtype=), or
    the real and imaginary parts of complex data."""
    if a.dtype.kind == "O":
        a = a.astype(rdt)  # the element cast np.sum(a, dtype=...) makes
    return _split(a)


def parts_dtype(in_dtype, work=None):
    """The dtype of the parts of ``in_dtype`` data (``real_parts``)."""
    if work is not None and work.itemsize > 8:
        return work
    return real_dtype(in_dtype) if in_dtype.kind == "c" else in_dtype


# ---------------------------------------------------------------------------
# finishes: f(xp, ..., states) on one block of host or device arrays
# ---------------------------------------------------------------------------

def _out(xp, r):
    """A 0-d NumPy result as a NumPy scalar (NumPy's reductions' convention)."""
    return r[()] if xp is np and r.ndim == 0 else r


def make_complex(xp, re, im, dt):
    """The complex array re + i im of dtype dt (no arithmetic on the parts:
    1j * inf would be NaN + inf j)."""
    res = xp.empty(re.shape, dtype=dt)
    res.real[...] = re
    res.imag[...] = im
    return res


def fsum_pair(xp, s, e):
    """s + e of twosum states (the sum where it is not finite or exact).
    NumPy: s + e with s copied back where kept (10x faster than np.where's
    select of two float arrays: 39 against 407 us for 5e4 float64)."""
    with np.errstate(invalid="ignore", over="ignore"):
        if xp is np and isinstance(s, np.ndarray) and s.ndim:
            res = np.add(s, e, dtype=s.dtype)
            np.copyto(res, s, where=~(np.isfinite(s) & (e != 0)))
            return res
        res = xp.where(xp.isfinite(s) & (e != 0), s + e, s)
    return res.astype(s.dtype, copy=False)


def finish_fsum(rdt, xp, states):
    """fsum's result from the twosum states of its parts (``fsum_parts``)."""
    sums = [fsum_pair(xp, s, e) for s, e in states]
    if rdt is None:
        res = sums[0]
    elif len(sums) == 2:
        res = make_complex(xp, sums[0], sums[1], rdt)
    else:
        res = sums[0].astype(rdt, copy=False)
    return (_out(xp, res),)


def _lse(xp, mx, t):
    """m + log1p(t) of maxsumexp states (running or not)."""
    with np.errstate(divide="ignore", invalid="ignore"):
        # +inf max: t counts the other infinities, log1p(t) is finite; -inf
        # max: t >= -1 and -inf + log1p(t) stays -inf; NaN max: t is NaN.
        return mx + xp.log1p(t)


def finish_logsumexp(rdt, xp, states):
    """log(sum(exp(x))) of maxsumexp states, in the result dtype ``rdt``."""
    return (_out(xp, _lse(xp, *states[0]).astype(rdt, copy=False)),)


def finish_meanvar(mean_dt, var_dt, ddof, std, nan_dof, warn_dof, xp, states):
    """(mean, var or std) from the moments (count, mean, M2) of each part
    (the real and imaginary parts of complex data: the means apart, M2
    summed, so var is np.var's mean of |z - mean|**2).  NumPy's warnings:
    an empty slice, and (``warn_dof``) no degrees of freedom -- np.nanvar's
    message (``nan_dof``) ends with a period and gives NaN, not inf, where
    ddof >= count."""
    count = states[0][0]
    m2 = states[0][2] if len(states) == 1 else states[0][2] + states[1][2]
    if bool((count == 0).any()):
        warnings.warn("Mean of empty slice.", RuntimeWarning, stacklevel=4)
    dof = xp.maximum(count - ddof, 0)
    if warn_dof and bool((dof <= 0).any()):
        warnings.warn("Degrees of freedom <= 0 for slice" + ("." if nan_dof else ""),
                      RuntimeWarning, stacklevel=4)
    with np.errstate(divide="ignore", invalid="ignore"):
        means = [xp.where(count > 0, st[1], np.nan) for st in states]
        var = m2 / dof
        if nan_dof:  # np.nanvar: NaN (not inf) where ddof >= count
            var = xp.where(dof > 0, var, np.nan)
        if std:
            var = xp.sqrt(var)
    if len(means) == 2:
        re, im = means
        with np.errstate(invalid="ignore"):
            # np.mean divides the complex sum by the count as a complex
            # number: an inf or NaN in one part makes the other NaN (inf * 0)
            re, im = re + im * 0, im - re * 0
        mean = make_complex(xp, re, im, mean_dt)
    else:
        mean = means[0].astype(mean_dt, copy=False)
    return _out(xp, mean), _out(xp, var.astype(var_dt, copy=False))


def finish_nan_warning(xp, states):
    """nanminmax's finish: the states, with np.nanmin's warning for an
    all-NaN slice."""
    if any(bool(xp.isnan(r).any()) for r in states):
        warnings.warn("All-NaN slice encountered", RuntimeWarning, stacklevel=2)
    return states


def finish_logcumsumexp(xp, states):
    """log(cumsum(exp(x))) of the running maxsumexp states (in their dtype)."""
    return (_lse(xp, *states[0]),)


def finish_cumfsum(rdt, xp, states):
    """s + e of each part's running twosum states, the parts of complex
    data assembled into one complex array."""
    sums = [fsum_pair(xp, s, e) for s, e in states]
    if len(sums) == 2:
        return (make_complex(xp, sums[0], sums[1], np.result_type(rdt, np.complex64)),)
    return (sums[0],)


def _check_dtypes(be, label, *dtypes):
    """Result dtypes the backend cannot produce (CuPy: long double) raise."""
    if be.check_dtypes is not None:
        be.check_dtypes(label, *dtypes)


_BOUND: dict = {}


def _bind(fn, *args):
    """``functools.partial(fn, *args)``, made once per arguments (a finish
    or parts function of a call: a dict lookup, not a new partial, on the
    small calls of the general path)."""
    key = (fn, *args)
    try:
        return _BOUND[key]
    except KeyError:
        if len(_BOUND) >= 256:  # many different ddof values, say: start again
            _BOUND.clear()
        f = _BOUND[key] = functools.partial(fn, *args)
        return f
    except TypeError:  # unhashable arguments
        return functools.partial(fn, *args)


# ---------------------------------------------------------------------------
# min and max
# ---------------------------------------------------------------------------

def minmax(be, qualname, a, axis=None, out=None, keepdims=False, initial=NoValue, where=True):
    return methods.reduce(be, qualname, _core.minimummaximum, a, axis, None, out, keepdims,
                          initial, where)


def nanminmax(be, qualname, a, axis=None, out=None, keepdims=False, initial=NoValue,
              where=True):
    return methods.reduce(be, qualname, _core.fminfmax, a, axis, None, out, keepdims, initial,
                          where, finish_nan_warning)


def _argminmax(be, qualname, name, a, axis, keepdims, out, nan):
    """(argmin, argmax) along one axis (None: the flattened array), np.argmin's rules."""
    a = be.asarray(a, "the array", name, qualname)
    skip = nan and a.dtype.kind in "fc"  # np.nanargmin skips NaNs of inexact dtypes only
    if (out is None and axis is None and keepdims is False and be.quick_arg is not None
            and a.ndim == 1 and a.size):
        return be.quick_arg(a, skip)  # the common call, without the bookkeeping below
    arg_dtype(qualname, a.dtype)  # (the quick path's engine raises the same)
    keepdims = keepdims_flag(keepdims)
    zero_d = a.ndim == 0
    if zero_d:
        a = a.reshape(1)  # NumPy treats a 0-d array as 1-d here (axis 0 / -1 / None)
    if axis is None:
        ax, shape = None, (1,) * a.ndim if keepdims else ()
    else:
        ax = axis_index(axis, a.ndim, one=True)
        shape = tuple(1 if i == ax else n for i, n in enumerate(a.shape)) if keepdims \
            else tuple(n for i, n in enumerate(a.shape) if i != ax)
    if zero_d:
        shape = ()
    outs = out_pair(out, name)
    if out is not None:
        be.check_outs(outs, shape, name)
        check_index_outs(outs, name)
    n = a.size if ax is None else a.shape[ax]
    if n == 0:
        # NumPy's message (np.argmin and np.nanargmin alike).
        raise ValueError("attempt to get argmin of an empty sequence")
    res = be.arg_reduce(a, ax, shape, skip, label=name, qualname=qualname)
    return be.into(res, outs)


def argminmax(be, qualname, a, axis=None, keepdims=False, out=None):
    return _argminmax(be, qualname, "argminmax", a, axis, keepdims, out, False)


def nanargminmax(be, qualname, a, axis=None, keepdims=False, out=None):
    return _argminmax(be, qualname, "nanargminmax", a, axis, keepdims, out, True)


# ---------------------------------------------------------------------------
# mean and variance
# ---------------------------------------------------------------------------

def correction_arg(name, ddof, correction):
    """``ddof``, or NumPy 2.0's ``correction=`` (its alias); both given is
    np.var's ValueError (an explicit ``ddof=0`` beside it is allowed, as
    NumPy allows it)."""
    if not is_given(correction):
        return ddof_arg(name, ddof)
    if not (isinstance(ddof, (int, float)) and ddof == 0):
        raise ValueError("ddof and correction can't be provided simultaneously.")
    return ddof_arg(name, correction)


def _meanvar_outs(be, name, out, shape, axes, keepdims, mean_dt, var_dt, std=False,
                  inexact=False):
    """``out=(mean_out, var_out)`` (None entries allowed), checked before
    any work: the result's shape, a cast the results can make -- np.mean's
    and np.var's (unsafe), np.std's (``std``: same_kind), np.nanmean's and
    np.nanvar's (``inexact``: float or complex data need float or complex
    outs)."""
    if out is None:
        return (None, None)
    outs = out_pair(out, name)
    be.check_outs(outs, reduced_shape(shape, axes, keepdims), name)
    check_out_dtypes(outs, (mean_dt, var_dt), name,
                     casting=(None, "same_kind") if std else None, inexact=inexact)
    return outs


def _meanvar(be, qualname, name, a, axis, dtype, ddof, keepdims, where, std, nan=False,
             out=None, correction=NoValue):
    """The meanvar family: dtype and ddof checks (before any work), then one
    moments reduction per real part, finished by ``finish_meanvar``."""
    a = be.asarray(a, "the array", name, qualname)
    ddof = correction_arg(name, ddof, correction)
    mean_dt, var_dt = meanvar_dtypes(name, a.dtype, dtype, nan)
    _check_dtypes(be, name, mean_dt, var_dt)
    if nan and a.ndim == 0 and type(axis) is int and axis in (0, -1):
        axis = None  # np.nanmean/np.nanvar reduce with ufunc.reduce's 0-d rule
    ufunc = moments_ufunc(a.dtype, nan)
    # np.mean / np.var validate the axis against the array (no 0-d special
    # case as ufunc.reduce has).
    axes = normalize_axes(axis, a.ndim, scalar_rule=False)
    keepdims = keepdims_flag(keepdims)
    outs = _meanvar_outs(be, name, out, a.shape, axes, keepdims, mean_dt, var_dt, std,
                         nan and a.dtype.kind in "fc")
    mask = be.where(where, a.shape, name, qualname)
    nan_dof = nan and a.dtype.kind in "fc"  # np.nanvar is np.var for other data
    res = be.reduce_parts(ufunc, a, axes, keepdims,
                          _bind(moment_parts, mean_dt, nan),
                          _bind(finish_meanvar, mean_dt, var_dt, ddof, std, nan_dof, True),
                          (mean_dt, var_dt), mask=mask, accurate=True, label=name,
                          qualname=qualname)
    return res if out is None else be.into(res, outs)


def _dtype_of(v):
    """The dtype of an array or array_like operand."""
    dt = getattr(v, "dtype", None)
    return dt if isinstance(dt, np.dtype) else np.asarray(v).dtype


# A weight sum below this (2**-969, about 1e-292: DBL_MIN * 2**53) leaves the
# weights' products with data of unit scale subnormal: digits lost.
_W_TINY = 2.0 ** -969


def finish_wmeanvar(mean_dt, var_dt, ddof, std, nan, xp, states):
    """(mean, var or std) of weighted moments (W, K, m, M2): the moments'
    finish with the weight sum W as the count and K + m as the mean.

    The weights at the edges, one rule for every path: a slice whose weight
    sum is inf (an inf weight, or finite weights whose sum overflows
    float64: the traits' state is then (W, 0, NaN, NaN)) is NaN with
    np.average's warning (its inf / inf); a slice whose positive weight sum
    is below 2**-969 is NaN with a RuntimeWarning saying why (its products
    w (x - K) were subnormal: a finite value would carry lost digits); a
    variance whose weighted squared deviations overflow beside a finite
    weight sum above 1 is NaN with a RuntimeWarning (the true M2 / W may be
    finite)."""
    W, K, m, M2 = states
    if bool(xp.isinf(W).any()):
        invalid_operation("invalid value encountered in divide")
    tiny = (W > 0) & (W < _W_TINY)
    if bool(tiny.any()):
        warnings.warn("weights summing to less than 2**-969 (about 1e-292): their products "
                      "with the data are subnormal and lose digits, so the mean and variance "
                      "are NaN; multiply the weights by a power of two (the mean does not "
                      "change)", RuntimeWarning, stacklevel=4)
        m = xp.where(tiny, np.nan, m)
        M2 = xp.where(tiny, np.nan, M2)
    # weighted squared deviations past float64 beside a finite weight sum
    # W > 1: the variance M2 / W may be finite (weights of 1e300 around a
    # spread of 2 give M2 = inf but var 4), so inf would be a wrong value
    over = xp.isinf(M2) & xp.isfinite(W) & (W > 1) & xp.isfinite(K + m)
    if bool(over.any()):
        warnings.warn("the weighted squared deviations overflow float64, so the variance is "
                      "NaN; divide the weights by a power of two (the mean and variance do "
                      "not change)", RuntimeWarning, stacklevel=4)
        M2 = xp.where(over, np.nan, M2)
    return finish_meanvar(mean_dt, var_dt, ddof, std, nan, True, xp, [(W, K + m, M2)])


def _weighted_meanvar(be, qualname, name, a, weights, axis, dtype, ddof, keepdims, where, std,
                      nan, out=None, correction=NoValue):
    """The meanvar family with frequency weights: one pass of the weighted
    moments over the data and the weights, finished as the unweighted
    moments are (the weight sum W as the count: var = M2 / (W - ddof))."""
    ddof = correction_arg(name, ddof, correction)
    x, w = be.sources((a, weights), ("the array", "weights"), name, qualname)
    in_dt = np.result_type(*(_dtype_of(v) for v in (a, weights)))  # np.average's
    mean_dt, var_dt = meanvar_dtypes(name, in_dt, dtype, nan)
    axes = normalize_axes(axis, x.ndim, scalar_rule=False)
    keepdims = keepdims_flag(keepdims)
    outs = _meanvar_outs(be, name, out, x.shape, axes, keepdims, mean_dt, var_dt, std,
                         nan and _dtype_of(a).kind in "fc")
    w = be.nonnegative(w, f"{qualname}: weights must be non-negative (frequency weights)")
    ufunc = _core.nanwmoments if nan else _core.wmoments
    res = methods.reduce(be, qualname, ufunc, (x, w), axes, None, Ellipsis, keepdims, NoValue,
                         where, _bind(finish_wmeanvar, mean_dt, var_dt, ddof, std, nan),
                         dtypes=(mean_dt, var_dt), broadcast=True)
    return res if out is None else be.into(res, outs)


def _meanvar_entry(name, std, nan):
    """The public meanvar, meanstd and nanmeanvar: weighted or not."""

    def stat(be, qualname, a, axis=None, dtype=None, out=None, ddof=0, keepdims=False,
             where=True, correction=NoValue, weights=None):
        if weights is not None:
            return _weighted_meanvar(be, qualname, name, a, weights, axis, dtype, ddof,
                                     keepdims, where, std, nan, out, correction)
        return _meanvar(be, qualname, name, a, axis, dtype, ddof, keepdims, where, std, nan,
                        out, correction)

    stat.__name__ = stat.__qualname__ = name
    return stat


meanvar = _meanvar_entry("meanvar", False, False)
meanstd = _meanvar_entry("meanstd", True, False)
nanmeanvar = _meanvar_entry("nanmeanvar", False, True)


# ---------------------------------------------------------------------------
# describe, skew, kurtosis: the summary (n, min, max, K, m, M2, M3, M4),
# the mean K + m
# ---------------------------------------------------------------------------

class DescribeResult(collections.namedtuple(
        "DescribeResult", ("nobs", "minmax", "mean", "variance", "skewness", "kurtosis"))):
    """The result of :func:`numreduce.describe`: scipy.stats.describe's
    named tuple, with the same fields in the same order.

    Parameters
    ----------
    nobs : int64 scalar or ndarray
        The number of observations: the length of the reduced slices
        (``nan_policy='omit'`` or ``where=``: each slice's count).
    minmax : tuple of two scalars or ndarrays
        The minimum and maximum, in the data's dtype.
    mean, variance, skewness, kurtosis : scalar or ndarray
        The mean, the variance (``ddof``), the skewness and Fisher's
        kurtosis.

    Returns
    -------
    DescribeResult
        A named tuple: unpacks as SciPy's result does.

    See Also
    --------
    describe : the function that returns it.
    scipy.stats.describe : the same fields.

    Examples
    --------
    >>> import numpy as np, numreduce as nr
    >>> nobs, (lo, hi), mean, var, skew, kurt = nr.describe(np.array([1., 2., 4.]))
    >>> int(nobs), float(lo), float(hi), float(var)
    (3, 1.0, 4.0, 2.333333333333333)
    """

    __slots__ = ()

_NAN_POLICIES = ("propagate", "raise", "omit")
_PRECISION = ("Precision loss occurred in moment calculation due to catastrophic "
              "cancellation. This occurs when the data are nearly identical. Results may "
              "be unreliable.")
_SMALL = ("One or more sample arguments is too small; all returned values will be NaN. "
          "See documentation for sample size requirements.")


def _skew_kurt(rdt, bias, xp, n, mean, m2, m3, m4, want):
    """SciPy's skewness (``want`` 's') or Pearson kurtosis ('k') of the
    summaries, in float64: NaN where the slice is empty or its variance is
    lost to rounding (``m2 <= (eps mean)**2``, eps of the result dtype, as
    SciPy tests its own moments), SciPy's bias corrections where
    ``bias=False`` and n > 2 (skewness) or n > 3 (kurtosis)."""
    with np.errstate(divide="ignore", invalid="ignore", over="ignore"):
        eps = float(np.finfo(rdt).eps)
        v2 = m2 / n
        zero = v2 <= (eps * mean) ** 2
        if want == "s":
            vals = xp.where(zero, np.nan, (m3 / n) / v2 ** 1.5)
            if not bias:
                nval = ((n - 1.0) * n) ** 0.5 / (n - 2.0) * vals
                vals = xp.where(~zero & (n > 2), nval, vals)
        else:
            vals = xp.where(zero, np.nan, (m4 / n) / v2 ** 2)
            if not bias:
                nval = 1.0 / (n - 2) / (n - 3) * ((n * n - 1.0) * vals - 3 * (n - 1) ** 2.0) + 3.0
                vals = xp.where(~zero & (n > 3), nval, vals)
    return vals


def _summary_warnings(xp, rdt, n, raise_nan, lo, hi, mean):
    """SciPy's checks and warnings on the summaries: 'raise' (a NaN in
    the data: its min is NaN), empty slices (SmallSampleWarning's text),
    the precision loss of a (nearly) constant slice -- SciPy's test
    (scipy.stats._stats_py._demean): more than one element and
    max |x - mean| < 10 eps |mean|, eps of the result dtype, where
    max |x - mean| is the larger of hi - mean and mean - lo (so no
    warning for a single element, a slice of zeros or NaN data, as
    SciPy gives none)."""
    empty = n == 0
    if bool(xp.isinf(n).any()):  # an inf weight, or weights whose sum overflows
        invalid_operation("invalid value encountered in divide")
    if raise_nan and bool((xp.isnan(lo) & ~empty).any()):  # (an empty slice's min is NaN too)
        raise ValueError("The input contains nan values")
    if bool(empty.any()):
        warnings.warn(_SMALL, RuntimeWarning, stacklevel=5)
    with np.errstate(over="ignore", invalid="ignore"):
        spread = xp.maximum(hi - mean, mean - lo)
        lost = (n > 1) & (spread < 10 * float(np.finfo(rdt).eps) * xp.abs(mean))
    if bool(lost.any()):
        warnings.warn(_PRECISION, RuntimeWarning, stacklevel=5)


def _summary_states(xp, st):
    """(n, min, max, mean, M2, M3, M4) of the summary's states (n, min,
    max, K, m, M2, M3, M4): the mean K + m (K itself where m is 0, so that
    the mean of -0.0 is -0.0, as np.mean's)."""
    n, lo, hi, K, m, m2, m3, m4 = st
    return n, lo, hi, xp.where(m == 0, K, K + m), m2, m3, m4


def finish_describe(rdt, data_dt, ddof, bias, fisher, raise_nan, weighted, xp, states):
    """(nobs, min, max, mean, variance, skewness, kurtosis) of summaries,
    scipy.stats.describe's values and dtypes: min and max in the data's
    dtype, the rest in ``rdt``; nobs int64 (``weighted``: the weight sum,
    in ``rdt``)."""
    n, lo, hi, mean, m2, m3, m4 = _summary_states(xp, states[0])
    if data_dt.kind in "biu" and bool((n == 0).any()):
        # a slice emptied by where=: integer data have no NaN for its
        # extremes (np.min(where=) without initial raises the same)
        raise ValueError("describe: a slice with no elements (where=) has no minimum or "
                         f"maximum in {data_dt} data")
    skew = _skew_kurt(rdt, bias, xp, n, mean, m2, m3, m4, "s")
    kurt = _skew_kurt(rdt, bias, xp, n, mean, m2, m3, m4, "k")
    _summary_warnings(xp, rdt, n, raise_nan, lo, hi, mean)
    with np.errstate(divide="ignore", invalid="ignore"):
        var = xp.where(n > 0, m2 / (n - ddof), np.nan)  # (not 0 / -ddof for an empty slice)
        mean = xp.where(n > 0, mean, np.nan)
    if fisher:
        kurt = kurt - 3.0
    res = [n.astype(rdt if weighted else np.int64), lo.astype(data_dt), hi.astype(data_dt)]
    res += [r.astype(rdt, copy=False) for r in (mean, var, skew, kurt)]
    return tuple(_out(xp, r) for r in res)


def finish_moment_stat(rdt, bias, fisher, raise_nan, want, xp, states):
    """skew (``want`` 's') or kurtosis ('k') of summaries, SciPy's values
    (weighted summaries too: the weight sum is the count)."""
    n, lo, hi, mean, m2, m3, m4 = _summary_states(xp, states[0])
    vals = _skew_kurt(rdt, bias, xp, n, mean, m2, m3, m4, want)
    _summary_warnings(xp, rdt, n, raise_nan, lo, hi, mean)
    if want == "k" and fisher:
        vals = vals - 3.0
    return (_out(xp, vals.astype(rdt, copy=False)),)


def one_part_finish(finish, xp, states):
    """A statistic's finish of the list of its parts' states (reduce_parts)
    run on the states of one reduction (methods.reduce)."""
    return finish(xp, [states])


def _summary_dtype(qualname, dt):
    """The result dtype of describe/skew/kurtosis for ``dt`` data (SciPy's:
    float16, float32, float64 and long double keep theirs; bool and integers
    give float64); TypeError for other data."""
    if dt.kind == "f":
        return dt.newbyteorder("=")
    if dt.kind in "biu":
        return np.dtype(np.float64)
    raise TypeError(f"{qualname}: {dt} data is not supported (real numbers only: bool, "
                    f"integer or float data)")


def _summarise(be, qualname, name, a, axis, keepdims, nan_policy, where, finish, dtypes,
               weights=None):
    """The summary reduction of a statistic: argument checks (before any
    work), one pass of ``summary`` (``nansummary`` for 'omit'; with
    ``weights``, ``wsummary`` / ``nanwsummary`` over the data and the
    weights broadcast together), then ``finish(rdt, data_dt, raise_nan,
    weighted)(xp, states)``.  Returns (results, data, axes, keepdims, mask,
    weights): the data and the weights as the backend holds them."""
    if not isinstance(nan_policy, str) or nan_policy not in _NAN_POLICIES:
        raise ValueError("nan_policy must be one of {'propagate', 'raise', 'omit'}")
    if weights is None:
        a = be.asarray(a, "the array", name, qualname)
        data_dt = a.dtype
        rdt = _summary_dtype(qualname, data_dt)
        w = None
    else:
        data_dt, w_dt = _dtype_of(a), _dtype_of(weights)
        _summary_dtype(qualname, data_dt)  # (TypeError for complex, datetime, ... data)
        if w_dt.kind not in "biuf":
            raise TypeError(f"{qualname}: {w_dt} weights are not supported (real numbers only)")
        rdt = _summary_dtype(qualname, np.result_type(data_dt, w_dt))
        a, w = be.sources((a, weights), ("the array", "weights"), name, qualname)
    if a.ndim == 0:
        a = a.reshape((1,))  # SciPy's: a 0-d input is a sample of one element
        w = None if w is None else w.reshape((1,))
    _check_dtypes(be, name, rdt)
    axes = normalize_axes(axis, a.ndim, scalar_rule=False)
    keepdims = keepdims_flag(keepdims)
    nan = nan_policy == "omit" and data_dt.kind == "f"
    mask = be.where(where, a.shape, name, qualname)
    fin = finish(rdt, data_dt.newbyteorder("="), nan_policy == "raise" and data_dt.kind == "f",
                 w is not None)
    if w is not None:
        w = be.nonnegative(w, f"{qualname}: weights must be non-negative (frequency weights)")
        ufunc = _core.nanwsummary if nan else _core.wsummary
        res = methods.reduce(be, qualname, ufunc, (a, w), axes, None, Ellipsis, keepdims,
                             NoValue, True if mask is None else mask, _bind(one_part_finish, fin),
                             dtypes=dtypes(rdt, data_dt, True), broadcast=True)
        return res, a, axes, keepdims, mask, w
    ufunc = _core.nansummary if nan else _core.summary
    # accurate: the moments' blocked two-pass layouts (strided, reversed and
    # F-ordered data through a contiguous copy or view), not the engine's
    # element-by-element update of strided accumulators
    res = be.reduce_parts(ufunc, a, axes, keepdims, one_part, fin, dtypes(rdt, data_dt, False),
                          mask=mask, accurate=True, label=name, qualname=qualname)
    return res, a, axes, keepdims, mask, None


def describe(be, qualname, a, axis=0, ddof=1, bias=True, nan_policy="propagate", *,
             where=True, weights=None):
    ddof = ddof_arg("describe", ddof)
    if weights is None:
        a = be.asarray(a, "the array", "describe", qualname)
    shape = getattr(a, "shape", None)
    if math.prod(np.shape(a) if shape is None else shape) == 0:
        raise ValueError("The input must not be empty.")
    res, arr, axes, keepdims, mask, w = _summarise(
        be, qualname, "describe", a, axis, False, nan_policy, where,
        lambda rdt, ddt, rn, wt: _bind(finish_describe, rdt, ddt, ddof, bool(bias), True, rn, wt),
        lambda rdt, ddt, wt: (rdt if wt else np.dtype(np.int64), ddt, ddt, rdt, rdt, rdt, rdt),
        weights)
    nobs, lo, hi, mean, var, sk, ku = res
    data_dt = _dtype_of(a)  # (with weights, arr is the data in the sources' float dtype)
    if data_dt.kind in "iu" and data_dt.itemsize == 8:
        # 64-bit integers beyond 2**53 are not exact in the float64
        # summary: their extremes by a pass of minimummaximum over the
        # data (the elements of nonzero weight), started from the dtype's
        # extremes where some are left out (no slice is empty:
        # finish_describe refused those)
        data = be.asarray(a, "the array", "describe", qualname)
        keep = mask
        if w is not None:
            data = np.broadcast_to(data, w.shape) if data.shape != w.shape else data  # (Dask, CuPy: __array_function__)
            keep = (w != 0) if mask is None else mask & (w != 0)
        init = NoValue if keep is None else (np.iinfo(data.dtype).max, np.iinfo(data.dtype).min)
        lo, hi = methods.reduce(be, qualname, _core.minimummaximum, data, axes, None, None,
                                keepdims, init, True if keep is None else keep)
    if nan_policy != "omit" and mask is None and w is None:
        nobs = np.int64(math.prod(arr.shape[i] for i in axes))  # SciPy: the slices' length
    return DescribeResult(nobs, (lo, hi), mean, var, sk, ku)


def skew(be, qualname, a, axis=0, bias=True, nan_policy="propagate", *, keepdims=False,
         where=True, weights=None):
    return _summarise(be, qualname, "skew", a, axis, keepdims, nan_policy, where,
                      lambda rdt, ddt, rn, wt: _bind(finish_moment_stat, rdt, bool(bias), False,
                                                     rn, "s"),
                      lambda rdt, ddt, wt: (rdt,), weights)[0][0]


def kurtosis(be, qualname, a, axis=0, fisher=True, bias=True, nan_policy="propagate", *,
             keepdims=False, where=True, weights=None):
    return _summarise(be, qualname, "kurtosis", a, axis, keepdims, nan_policy, where,
                      lambda rdt, ddt, rn, wt: _bind(finish_moment_stat, rdt, bool(bias),
                                                     bool(fisher), rn, "k"),
                      lambda rdt, ddt, wt: (rdt,), weights)[0][0]


# ---------------------------------------------------------------------------
# covariance, correlation, sumprod: reductions of two arrays
# ---------------------------------------------------------------------------

def _pair(be, qualname, name, ufunc, x, y, axis, keepdims, finish, *args):
    """A statistic of two arrays: the states of a two-source ufunc over x
    and y (broadcast together), reduced over ``axis`` (None: all), finished
    by ``finish(*args, dt, xp, states)`` -- one result of dtype ``dt``, the
    sources' float dtype (float64 at least, as np.cov)."""
    xs, ys = be.sources((x, y), ("x", "y"), name, qualname)
    axes = normalize_axes(axis, xs.ndim, scalar_rule=False)
    keepdims = keepdims_flag(keepdims)
    dt = np.result_type(xs.dtype, np.float64)
    return methods.reduce(be, qualname, ufunc, (xs, ys), axes, None, Ellipsis, keepdims,
                          NoValue, True, _bind(finish, *args, dt), dtypes=(dt,),
                          broadcast=True)[0]


def finish_covariance(ddof, dt, xp, states):
    """Cxy / (n - ddof) of co-moments, np.cov's warning and inf / NaN where
    n - ddof <= 0."""
    n, cxy = states[0], states[7]
    fact = xp.maximum(n - ddof, 0)
    if bool((fact <= 0).any()):
        warnings.warn("Degrees of freedom <= 0 for slice", RuntimeWarning, stacklevel=4)
    with np.errstate(divide="ignore", invalid="ignore"):
        res = cxy * xp.true_divide(1, fact)
    return (_out(xp, res.astype(dt, copy=False)),)


def invalid_operation(message):
    """An invalid floating-point operation that the backend's arithmetic
    may not flag (CuPy raises no flags), handled as np.seterr's ``invalid``
    mode says: FloatingPointError ('raise'), nothing ('ignore'), else
    NumPy's RuntimeWarning."""
    mode = np.geterr()["invalid"]
    if mode == "raise":
        raise FloatingPointError(message)
    if mode != "ignore":
        warnings.warn(message, RuntimeWarning, stacklevel=5)


def finish_correlation(dt, xp, states):
    """Cxy / sqrt(Mxx Myy): NaN (with NumPy's warning) for a constant slice,
    as np.corrcoef; clipped to [-1, 1] as np.corrcoef clips.  The warning is
    issued here, not by the floating-point flags (which CuPy does not raise)."""
    den = xp.sqrt(states[5]) * xp.sqrt(states[6])
    if bool((den == 0).any()):  # a constant slice: 0 / 0 (Cxy is 0 there)
        invalid_operation("invalid value encountered in divide")
    with np.errstate(divide="ignore", invalid="ignore"):
        res = states[7] / den
    return (_out(xp, xp.clip(res, -1, 1).astype(dt, copy=False)),)


def finish_sumprod(dt, xp, states):
    """s + e of twoprod states."""
    return (_out(xp, fsum_pair(xp, *states)),)


def covariance(be, qualname, x, y, axis=None, ddof=1, keepdims=False):
    ddof = ddof_arg("covariance", ddof)
    return _pair(be, qualname, "covariance", _core.comoments, x, y, axis, keepdims,
                 finish_covariance, ddof)


def correlation(be, qualname, x, y, axis=None, keepdims=False):
    return _pair(be, qualname, "correlation", _core.comoments, x, y, axis, keepdims,
                 finish_correlation)


def sumprod(be, qualname, x, y, axis=None, keepdims=False):
    return _pair(be, qualname, "sumprod", _core.twoprod, x, y, axis, keepdims, finish_sumprod)


# ---------------------------------------------------------------------------
# log-sum-exp and compensated sums
# ---------------------------------------------------------------------------

def finish_logsumexp_b(rdt, return_sign, xp, states):
    """log|sum(b exp(x))| (and its sign) of maxsumexpb states: m + log1p(t)
    where the sum t + 1 is positive, m + log(|t + 1|) where it is not (NaN
    without ``return_sign``, as scipy.special.logsumexp gives: no warning).
    The traits keep |t + 1| >= 1/2 or the sum zero (a smaller sum moves into
    the reference m), so neither log loses the sum's digits."""
    m, t = states
    s = t + 1
    with np.errstate(divide="ignore", invalid="ignore"):
        mag = xp.where(t > -1, xp.log1p(t), xp.log(xp.abs(s)))
        val = m + mag
        sign = xp.where(m == -np.inf, 0.0, xp.sign(s))
        if not return_sign:
            val = xp.where(s < 0, np.nan, val)
    val = _out(xp, val.astype(rdt, copy=False))
    return (val, _out(xp, sign.astype(rdt, copy=False))) if return_sign else (val,)


def logsumexp(be, qualname, a, axis=None, b=None, keepdims=False, return_sign=False):
    if b is not None or return_sign:
        names = ("a", "b")
        if b is None:
            b = _dtype_of(a).type(1)  # a scalar: every backend takes it beside its arrays
            names = ("a", "return_sign=True")  # (what makes it real-only, in messages)
        x, w = be.sources((a, b), names, "logsumexp", qualname)
        axes = normalize_axes(axis, x.ndim)
        keepdims = keepdims_flag(keepdims)
        rdt = logsumexp_dtype(x.dtype)
        res = methods.reduce(be, qualname, _core.maxsumexpb, (x, w), axes, None, Ellipsis,
                             keepdims, NoValue, True,
                             _bind(finish_logsumexp_b, rdt, bool(return_sign)),
                             dtypes=(rdt,) * (2 if return_sign else 1), broadcast=True)
        return res if return_sign else res[0]
    a = be.asarray(a, "the array", "logsumexp", qualname)
    if a.dtype.kind == "c":
        # SciPy's complex rules: several array passes (not the one-pass
        # reduction), in the backend's array namespace
        return logsumexp_complex(be.xp, be.array_code(a), axis, keepdims)
    if a.dtype.kind not in "biuf":
        raise TypeError(f"{be.prefix}logsumexp: unsupported dtype {a.dtype}")
    axes = normalize_axes(axis, a.ndim)
    keepdims = keepdims_flag(keepdims)
    rdt = logsumexp_dtype(a.dtype)
    return be.reduce_parts(_core.maxsumexp, a, axes, keepdims, one_part,
                           _bind(finish_logsumexp, rdt), (rdt,), label="logsumexp",
                           qualname=qualname)[0]


def logsumexp_complex(xp, arr, axis, keepdims):
    """scipy.special.logsumexp's meaning for complex data, in array
    operations of ``xp`` (NumPy, Dask or CuPy): shift by the (last) element
    of largest real part, sum the others' exp, log1p; where that is not
    finite, log(sum(exp(a))) directly (C99 complex exp/log decide the
    inf/NaN cases); the imaginary part wrapped into (-pi, pi]."""
    arr = arr.astype(arr.dtype.newbyteorder("="), copy=False)
    normalize_axes(axis, arr.ndim)  # the real path's axis rules and errors
    keepdims = keepdims_flag(keepdims)
    # the result shape of the real path: np.sum's
    shape = np.sum(np.empty(arr.shape, np.int8), axis=axis, keepdims=keepdims).shape
    a = arr.reshape(1) if arr.ndim == 0 else arr
    ax = None if axis is None else axis
    if arr.ndim == 0 and axis is not None:
        ax = normalize_axes(axis, 1, scalar_rule=False)
    dt = a.dtype
    if a.size == 0:
        res = xp.full(shape, complex(-np.inf, 0.0), dtype=dt)
        return res[()] if res.ndim == 0 and xp is np else res
    with np.errstate(all="ignore"):
        direct = xp.log(xp.sum(xp.exp(a), axis=ax, keepdims=True))
        re = a.real
        top = xp.max(re, axis=ax, keepdims=True)
        # the last element whose real part is the maximum (none for a NaN
        # maximum: then every element is "chosen", as in SciPy; the result
        # is not finite and the direct formula decides)
        idx = xp.where(re == top, xp.arange(a.size).reshape(a.shape), -1)
        chosen = idx == xp.max(idx, axis=ax, keepdims=True)
        shift = xp.sum(xp.where(chosen, a, 0), axis=ax, keepdims=True, dtype=dt)
        count = xp.sum(chosen, axis=ax, keepdims=True, dtype=dt)
        rest = xp.where(chosen, xp.asarray(-np.inf, dtype=dt), a)
        s = xp.sum(xp.exp(rest - shift), axis=ax, keepdims=True, dtype=dt)
        s = xp.where(s == 0, s, s / count)
        out = xp.log1p(s) + xp.log(count) + shift
        out = xp.where(xp.isfinite(out), out, direct)
        im = out.imag
        wrapped = -((-im + np.pi) % (2 * np.pi) - np.pi)
        im = xp.where(xp.abs(im) < np.pi, im, wrapped)
        out = out.real + im.astype(dt) * 1j
    res = xp.asarray(out, dtype=dt).reshape(shape)
    return res[()] if res.ndim == 0 and xp is np else res


def finish_fsum_initial(rdt, initial, xp, states):
    """fsum's result with np.sum's ``initial``: the start value added to
    each part's twosum state exactly (its rounding error joins the
    compensation), then ``finish_fsum``."""
    parts = [initial.real, initial.imag] if len(states) == 2 else [initial]
    out = []
    with np.errstate(invalid="ignore", over="ignore"):
        for (s, e), c in zip(states, parts):
            c = xp.asarray(c, dtype=s.dtype)
            t = s + c
            bp = t - s
            err = (s - (t - bp)) + (c - bp)
            out.append((t, xp.where(xp.isfinite(t), e + err, e)))
    return finish_fsum(rdt, xp, out)


def fsum(be, qualname, a, axis=None, dtype=None, out=None, keepdims=False, initial=NoValue,
         where=True):
    a = be.asarray(a, "the array", "fsum", qualname)
    acc, rdt = fsum_dtypes(a.dtype, dtype)
    _check_dtypes(be, "fsum", rdt)
    axes = normalize_axes(axis, a.ndim)
    keepdims = keepdims_flag(keepdims)
    res_dt = sum_dtype(a.dtype) if rdt is None else rdt
    outs = (None,)
    if out is not None:
        # np.sum's out: one array (or a 1-tuple, as ufunc outs)
        outs = be.parse_out(out if isinstance(out, tuple) else (out,), 1, "fsum", qualname)
        be.check_outs(outs, reduced_shape(a.shape, axes, keepdims), "fsum")
        check_out_dtypes(outs, (res_dt,), "fsum")
    finish = _bind(finish_fsum, rdt)
    if is_given(initial):
        if initial is None:  # np.sum: the sum has an identity
            raise TypeError("fsum: initial=None is not supported (the sum starts from 0)")
        init = np.asarray(initial)
        if init.ndim or init.dtype.kind not in "biufc":
            raise TypeError(f"fsum: initial must be a real or complex scalar, got {initial!r}")
        if init.dtype.kind == "c" and np.dtype(res_dt).kind != "c":
            raise TypeError(f"fsum: a complex initial for a real sum ({res_dt})")
        finish = _bind(finish_fsum_initial, rdt, init[()])
    mask = None if where is True else be.where(where, a.shape, "fsum", qualname)
    dtypes = (res_dt,) if be.lazy else None
    res = be.reduce_parts(_core.twosum, a, axes, keepdims, _bind(fsum_parts, rdt), finish,
                          dtypes, mask=mask, dtype=acc, label="fsum", qualname=qualname)
    return res[0] if out is None else be.into(res, outs)[0]


# ---------------------------------------------------------------------------
# cumulative functions: np.cumulative_sum's signature and rules
# ---------------------------------------------------------------------------

def _scan_input(be, qualname, name, x, axis):
    return scan_axis(name, be.asarray(x, "x", name, qualname), axis)


def cumminmax(be, qualname, x, axis=None, dtype=None, out=None):
    arr, ax = _scan_input(be, qualname, "cumminmax", x, axis)
    return methods.accumulate(be, qualname, _core.minimummaximum, arr, axis=ax, dtype=dtype,
                              out=out)


def nancumminmax(be, qualname, x, axis=None, dtype=None, out=None):
    arr, ax = _scan_input(be, qualname, "nancumminmax", x, axis)
    return methods.accumulate(be, qualname, _core.fminfmax, arr, axis=ax, dtype=dtype,
                              out=out)


def _scan_out(be, name, arr, ax, rdt, out, include_initial):
    """``out`` of a one-output scan, checked before any work: of the
    result's shape (one longer along ``ax`` with ``include_initial``), a
    dtype the result casts into."""
    if out is None:
        return
    shape = list(arr.shape)
    shape[ax] += include_initial
    be.check_outs((out,), tuple(shape), name)
    check_out_dtypes((out,), (rdt,), name)


def logcumsumexp(be, qualname, x, axis=None, dtype=None, out=None, include_initial=False):
    name = "logcumsumexp"
    arr, ax = _scan_input(be, qualname, name, x, axis)
    include_initial = include_initial_arg(name, include_initial)
    if arr.dtype.kind == "c":
        raise TypeError(f"{name}: unsupported input dtype {arr.dtype} (need bool, integer or "
                        f"floating point; complex {be.arrays} are not supported: complex "
                        "logcumsumexp is not a real scan)")
    rdt = logcumsumexp_dtype(name, arr.dtype, dtype)
    _scan_out(be, name, arr, ax, rdt, out, include_initial)
    acc = resolve(_core.maxsumexp, arr.dtype, (None, None), None, 2)[1]
    values = be.scan_parts(_core.maxsumexp, arr, ax, one_part, finish_logcumsumexp, (acc,),
                           label=name, qualname=qualname)[0]
    return be.scan_output(values, ax, rdt, out, include_initial, -np.inf)


def cumfsum(be, qualname, x, axis=None, dtype=None, out=None, include_initial=False):
    name = "cumfsum"
    arr, ax = _scan_input(be, qualname, name, x, axis)
    include_initial = include_initial_arg(name, include_initial)
    acc, rdt = cumfsum_dtypes(name, arr.dtype, dtype)
    _check_dtypes(be, name, rdt)
    _scan_out(be, name, arr, ax, rdt, out, include_initial)
    values = be.scan_parts(_core.twosum, arr, ax, _bind(fsum_parts, rdt),
                           _bind(finish_cumfsum, rdt), (rdt,), dtype=acc, label=name,
                           qualname=qualname)[0]
    return be.scan_output(values, ax, rdt, out, include_initial, 0)


def cummeanvar(be, qualname, x, axis=None, dtype=None, ddof=0, out=None):
    name = "cummeanvar"
    arr, ax = _scan_input(be, qualname, name, x, axis)
    ddof = ddof_arg(name, ddof)
    mean_dt, var_dt = meanvar_dtypes(name, arr.dtype, dtype)
    _check_dtypes(be, name, mean_dt, var_dt)
    outs = _meanvar_outs(be, name, out, arr.shape, (), False, mean_dt, var_dt)  # the shape
    n = arr.shape[ax]
    if 0 < n <= ddof and be.nonempty(arr):
        # one warning, as np.var of the whole slice, not one per prefix
        warnings.warn("Degrees of freedom <= 0 for slice", RuntimeWarning, stacklevel=3)
    res = be.scan_parts(_core.moments, arr, ax, _bind(real_parts, real_dtype(mean_dt)),
                        _bind(finish_meanvar, mean_dt, var_dt, ddof, False, False, False),
                        (mean_dt, var_dt), label=name, qualname=qualname)
    return be.into(res, outs)


# ---------------------------------------------------------------------------
# grouped statistics
# ---------------------------------------------------------------------------

def group_minmax(be, qualname, a, group_ids, num_groups=None, axis=0, out=None,
                 initial=NoValue, where=True):
    return methods.reduce_by_group(be, qualname, _core.minimummaximum, a, group_ids,
                                   num_groups, axis=axis, out=out, initial=initial,
                                   where=where)


def finish_group_wmeanvar(mean_dt, var_dt, ddof, xp, states):
    """group_meanvar's weighted finish: ``finish_wmeanvar`` of the one
    part's states."""
    return finish_wmeanvar(mean_dt, var_dt, ddof, False, False, xp, states[0])


def _group_weighted_meanvar(be, qualname, name, a, weights, group_ids, num_groups, axis,
                            dtype, ddof, where):
    """group_meanvar with frequency weights: the weighted moments of the
    data and the weights (broadcast together) per group, in one pass,
    finished as meanvar's weighted moments are."""
    ddof = ddof_arg(name, ddof)
    x, w = be.sources((a, weights), ("the array", "weights"), name, qualname)
    in_dt = np.result_type(*(_dtype_of(v) for v in (a, weights)))  # np.average's
    mean_dt, var_dt = meanvar_dtypes(name, in_dt, dtype)
    w = be.nonnegative(w, f"{qualname}: weights must be non-negative (frequency weights)")
    return methods.reduce_by_group(
        be, qualname, _core.wmoments, (x, w), group_ids, num_groups, axis=axis, where=where,
        parts=one_part, finish=_bind(finish_group_wmeanvar, mean_dt, var_dt, ddof),
        dtypes=(mean_dt, var_dt), label=name, broadcast=True)


def group_meanvar(be, qualname, a, group_ids, num_groups=None, axis=0, dtype=None, ddof=0,
                  where=True, weights=None):
    name = "group_meanvar"
    if weights is not None:
        return _group_weighted_meanvar(be, qualname, name, a, weights, group_ids, num_groups,
                                       axis, dtype, ddof, where)
    a = be.asarray(a, "the array", name, qualname)
    ddof = ddof_arg(name, ddof)
    mean_dt, var_dt = meanvar_dtypes(name, a.dtype, dtype)
    _check_dtypes(be, name, mean_dt, var_dt)
    work = real_dtype(mean_dt)
    return methods.reduce_by_group(
        be, qualname, _core.moments, a, group_ids, num_groups, axis=axis, where=where,
        parts=_bind(real_parts, work), stream=parts_dtype(a.dtype, work),
        finish=_bind(finish_meanvar, mean_dt, var_dt, ddof, False, False, True),
        dtypes=(mean_dt, var_dt), label=name)


def _real_data(be, qualname, name, a):
    a = be.asarray(a, "the array", name, qualname)
    if a.dtype.kind not in "biuf":
        raise TypeError(f"{name}: unsupported dtype {a.dtype} (need bool, integer or "
                        "floating point)")
    return a


def group_logsumexp(be, qualname, a, group_ids, num_groups=None, axis=0):
    name = "group_logsumexp"
    a = _real_data(be, qualname, name, a)
    rdt = logsumexp_dtype(a.dtype)
    return methods.reduce_by_group(be, qualname, _core.maxsumexp, a, group_ids, num_groups,
                                   axis=axis, parts=one_part,
                                   finish=_bind(finish_logsumexp, rdt),
                                   dtypes=(rdt,), label=name)[0]


def group_fsum(be, qualname, a, group_ids, num_groups=None, axis=0):
    name = "group_fsum"
    a = _real_data(be, qualname, name, a)
    return methods.reduce_by_group(be, qualname, _core.twosum, a, group_ids, num_groups,
                                   axis=axis, parts=one_part,
                                   finish=_bind(finish_fsum, None),
                                   dtypes=(sum_dtype(a.dtype),), label=name)[0]


def group_argminmax(be, qualname, a, group_ids, num_groups=None):
    name = "group_argminmax"
    a = be.asarray(a, "the array", name, qualname)
    if a.ndim != 1:
        raise ValueError(f"{name}: 'a' must be 1-d, got shape {a.shape}")
    label = "reduce_by_group(minimummaximum)"  # the messages of its first pass
    n = be.axis_length(a, 0, "the array", qualname, offsets=True)
    ids, g = be.group_ids(group_ids, num_groups, n, label, qualname)
    descrs = resolve_outs(_core.minimummaximum, a.dtype, (None, None), None, 2, label)
    return be.group_arg(a, ids, g, descrs, label=label, qualname=qualname)
