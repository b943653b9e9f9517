"""What most users call: NumPy-style functions on top of the engine."""

from __future__ import annotations

import math
import numbers
import warnings

import numpy as np
from . import _core
from ._args import axis_index, check_outs, keepdims_flag, normalize_axes, where_mask
from ._dispatch import masked_arg, masked_fill, masked_moments, masked_where, public_function
from ._engine import NoValue, reduce

# The bodies below get arrays that their own entry already dispatched (the
# policy in _dispatch.py): they call the engine's reduce without a second check.
reduce = reduce.__wrapped__

__all__ = ["argminmax", "fsum", "logsumexp", "meanstd", "meanvar", "minmax", "nanargminmax",
           "nanmeanvar", "nanminmax"]


@public_function(masked_where(_core.minimummaximum))
def minmax(a, axis=None, out=None, keepdims=False, initial=NoValue, where=True):
    """Minimum and maximum of an array in one pass.

    Same signature and semantics as NumPy 2.6's ``np.minmax``: returns
    ``(np.min(a, ...), np.max(a, ...))`` -- NaN (NaT) propagates, an empty
    reduction without ``initial`` raises ``ValueError``, ``where`` needs an
    ``initial``.  Runs on every NumPy >= 2.0 (numreduce's engine).

    Parameters
    ----------
    a : array_like
    axis : None, int or tuple of ints, default None (the whole array)
    out : tuple of two ndarrays (or None entries), optional
    keepdims : bool, default False
    initial : scalar or (min_initial, max_initial), optional
        A scalar seeds both outputs; a tuple gives one value per output.
    where : array_like of bool, optional

    Returns
    -------
    (min, max) : NumPy scalars for a full reduction, else arrays.

    Examples
    --------
    >>> import numpy as np, numreduce as nr
    >>> nr.minmax(np.array([3, 1, 4, 1, 5]))
    (np.int64(1), np.int64(5))
    >>> nr.minmax(np.array([[1., 2.], [3., np.nan]]), axis=0)
    (array([ 1., nan]), array([ 3., nan]))
    >>> nr.minmax([], initial=(np.inf, -np.inf))
    (np.float64(inf), np.float64(-inf))
    """
    return reduce(_core.minimummaximum, a, axis=axis, out=out, keepdims=keepdims,
                  initial=initial, where=where)


# ---------------------------------------------------------------------------
# NaN-skipping min/max
# ---------------------------------------------------------------------------

@public_function(masked_where(_core.fminfmax))
def nanminmax(a, axis=None, out=None, keepdims=False, initial=NoValue, where=True):
    """Minimum and maximum ignoring NaNs (NaT), in one pass.

    ``(np.nanmin(a, ...), np.nanmax(a, ...))``: NaN only for all-NaN slices,
    with NumPy's ``RuntimeWarning: All-NaN slice encountered``.  Runs the
    ``fminfmax`` reduction (np.fmin / np.fmax semantics).

    Examples
    --------
    >>> import numpy as np, numreduce as nr
    >>> nr.nanminmax(np.array([np.nan, 3.0, 1.0, np.nan]))
    (np.float64(1.0), np.float64(3.0))
    >>> nr.nanminmax(np.array([[1.0, np.nan], [2.0, 5.0]]), axis=1)
    (array([1., 2.]), array([1., 5.]))
    """
    res = reduce(_core.fminfmax, a, axis=axis, out=out, keepdims=keepdims, initial=initial,
                 where=where)
    if any(np.isnan(r).any() for r in res):
        warnings.warn("All-NaN slice encountered", RuntimeWarning, stacklevel=2)
    return res


# ---------------------------------------------------------------------------
# argmin / argmax
# ---------------------------------------------------------------------------

def _arg_rows(rows, skip_nan):
    """(argmin, argmax) per row of a 2-D array; -1 (NaN-skipping, all NaN)
    raises as NumPy does."""
    lo, hi = _core._argminmax(rows, skip_nan)
    if skip_nan and ((lo < 0).any() or (hi < 0).any()):
        raise ValueError("All-NaN slice encountered")
    return lo, hi


def _argminmax(a, axis, keepdims, out, skip_nan, name):
    a = np.asarray(a)
    if axis is None and out is None and keepdims is False and a.ndim == 1 and a.size:
        # The common call, without the general path's bookkeeping.
        lo, hi = _arg_rows(a.reshape(1, -1), skip_nan)
        return lo[0], hi[0]
    keepdims = keepdims_flag(keepdims)
    zero_d = a.ndim == 0
    if zero_d:
        a = a.reshape(1)  # NumPy treats a 0-d array as 1-d here (axis 0 / -1 / None)
    if axis is None:
        rows = a.reshape(1, -1)
        shape = (1,) * a.ndim if keepdims else ()
    else:
        ax = axis_index(axis, a.ndim)
        moved = np.moveaxis(a, ax, -1)
        rows = moved.reshape(math.prod(moved.shape[:-1]), moved.shape[-1])
        shape = moved.shape[:-1]
        if keepdims:
            shape = shape[:ax] + (1,) + shape[ax:]
    if zero_d:
        shape = ()
    outs = (None, None) if out is None else out
    if not (type(outs) is tuple and len(outs) == 2):
        raise TypeError(f"{name}: out must be a tuple of two arrays (or None entries)")
    check_outs(outs, shape, name)
    for i, o in enumerate(outs):
        if o is not None and not np.can_cast(o.dtype, np.intp, casting="safe"):
            # np.argmin's rule
            raise TypeError(f"{name}: cannot store indices in out[{i}] of dtype {o.dtype}")
    if rows.shape[1] == 0:
        # NumPy's message (np.argmin and np.nanargmin alike).
        raise ValueError("attempt to get argmin of an empty sequence")
    if rows.shape[1] >= 64 and rows.strides[1] != rows.itemsize:
        # Strided rows (a reduction over a leading axis) step element by
        # element; one contiguous copy lets every row take the vector kernels
        # (np.argmin copies likewise).
        rows = np.ascontiguousarray(rows)
    lo, hi = _arg_rows(rows, skip_nan)
    results = []
    for r, o in zip((lo, hi), outs):
        r = r.reshape(shape)
        if o is not None:
            o[...] = r
            results.append(o)
        else:
            results.append(r[()] if r.ndim == 0 else r)
    return tuple(results)


@public_function(masked_arg(nan=False), wrap_scalars=False)
def argminmax(a, axis=None, keepdims=False, out=None):
    """Indices of the minimum and maximum in one pass.

    ``(np.argmin(a, axis), np.argmax(a, axis))`` in every case: the first
    occurrence wins ties, the first NaN (NaT) wins both.  ``out`` is a tuple
    of two integer arrays.  NumPy's ``ufunc.reduce`` cannot carry an element
    index, so this runs on numreduce's engine with an index-carrying
    accumulator (``traits/argminmax.hpp``).

    Examples
    --------
    >>> import numpy as np, numreduce as nr
    >>> nr.argminmax(np.array([3, 1, 4, 1, 5, 9, 2, 6]))
    (np.int64(1), np.int64(5))
    >>> nr.argminmax(np.array([[1.0, np.nan], [2.0, 0.5]]), axis=1)
    (array([1, 1]), array([1, 0]))
    """
    return _argminmax(a, axis, keepdims, out, False, "argminmax")


@public_function(masked_arg(nan=True), wrap_scalars=False)
def nanargminmax(a, axis=None, keepdims=False, out=None):
    """``(np.nanargmin(a, axis), np.nanargmax(a, axis))`` in one pass.

    NaNs of float and complex data are ignored; an all-NaN slice raises
    ``ValueError`` (as NumPy).  For other dtypes (NaT included) this is
    :func:`argminmax`, as ``np.nanargmin`` is ``np.argmin`` there.

    Examples
    --------
    >>> import numpy as np, numreduce as nr
    >>> nr.nanargminmax(np.array([np.nan, 3.0, 1.0, 7.0]))
    (np.int64(2), np.int64(3))
    """
    # np.nanargmin/np.nanargmax skip NaNs of inexact dtypes only (NaT is not
    # skipped: they are np.argmin/np.argmax for every other dtype).
    skip = np.asarray(a).dtype.kind in "fc"
    return _argminmax(a, axis, keepdims, out, skip, "nanargminmax")


# ---------------------------------------------------------------------------
# mean and variance
# ---------------------------------------------------------------------------

def _dtype_arg(name, dtype):
    """``np.dtype(dtype)``, or None; a TypeError naming ``dtype`` otherwise."""
    if dtype is None:
        return None
    try:
        return np.dtype(dtype)
    except TypeError as e:
        raise TypeError(f"{name}: dtype={dtype!r} is not a data type") from e


def _result_dtype(name, in_dtype, dtype, nan=False):
    """np.mean / np.var's (np.nanmean / np.nanvar's) result dtypes (mean_dt,
    var_dt) for `in_dtype` data and the ``dtype=`` argument, or a TypeError
    naming the argument.

    NumPy's rules: bool/integer data give float64, float data their own type,
    complex data a complex mean and a real variance; ``dtype=`` sets both.
    Refused (TypeError) where NumPy computes what the float accumulators
    cannot reproduce: an integer/bool/object ``dtype=`` (NumPy casts every
    element to it and truncates each division), and a real ``dtype=`` on
    complex data (NumPy drops the imaginary parts with a ComplexWarning).
    See docs/differences.md."""
    kind = in_dtype.kind
    if kind not in "biufc":
        why = {"m": "; a timedelta64 variance would have squared time units (np.var raises "
                    "too), use np.mean for the mean",
               "O": "; object arrays have no C loop, cast them first (a.astype(float))"}
        raise TypeError(f"{name}: unsupported input dtype {in_dtype} (need bool, integer, "
                        f"floating point or complex){why.get(kind, '')}")
    dt = _dtype_arg(name, dtype)
    if dt is None:
        if kind in "biu":
            return np.dtype(np.float64), np.dtype(np.float64)
        native = in_dtype.newbyteorder("=")
        return native, (np.finfo(native).dtype if kind == "c" else native)
    if nan and kind in "fc" and dt.kind not in "fc":
        # np.nanmean / np.nanvar's own check and message
        raise TypeError(f"{name}: If a is inexact, then dtype must be inexact (got dtype={dt})")
    if dt.kind in "biuO":
        raise TypeError(f"{name}: dtype={dt} is not supported: np.mean/np.var accumulate in "
                        f"{dt} (each element cast, each division truncated), numreduce in "
                        "floating point; pass a floating-point dtype and cast the results")
    if dt.kind not in "fc":
        raise TypeError(f"{name}: cannot compute a mean or variance in dtype={dt}")
    if kind == "c" and dt.kind == "f":
        raise TypeError(f"{name}: dtype={dt} would drop the imaginary part of {in_dtype} data "
                        "(NumPy warns ComplexWarning); pass a complex dtype, or a.real")
    return dt, dt


def _ddof_arg(name, ddof):
    """``ddof`` as a real scalar (np.var accepts floats and negative values);
    TypeError for anything that is not a real number, ValueError for arrays."""
    if isinstance(ddof, numbers.Real) and not isinstance(ddof, (np.ndarray, np.generic)):
        return ddof if isinstance(ddof, (int, float)) else float(ddof)
    if not isinstance(ddof, (np.ndarray, np.generic, list, tuple)):
        raise TypeError(f"{name}: ddof must be a real number, got {ddof!r}")
    arr = np.asarray(ddof)
    if arr.ndim:
        raise ValueError(f"{name}: ddof must be a scalar, got an array of shape {arr.shape}")
    if arr.dtype.kind not in "biuf":
        raise TypeError(f"{name}: ddof must be a real number, got {ddof!r} (dtype {arr.dtype})")
    return arr[()]


def _moments(ufunc, a, axis, keepdims, where):
    """(count, mean, M2) over `axis`, always through one of the moments'
    blocked two-pass paths: the leading axes of C-ordered data go to the
    column-parallel row-block path; otherwise the reduced axes are moved last
    and the data made contiguous, aligned and native (a copy only where it is
    not already; np.var makes an n-sized temporary too).  Strided
    accumulators would fall back to Welford's update, which loses accuracy on
    data with a large offset (see docs/accuracy.md)."""
    a = np.asarray(a)
    # np.mean / np.var validate the axis against the array (no 0-d special
    # case as ufunc.reduce has).
    axes = normalize_axes(axis, a.ndim, scalar_rule=False)
    keepdims = keepdims_flag(keepdims)
    where = where_mask(where, a.shape)
    if where is None:
        where = True
    else:
        where = np.broadcast_to(where, a.shape)
    leading = tuple(range(len(axes)))
    if (axes and where is True and sorted(axes) == list(leading) and len(axes) < a.ndim
            and a.flags.c_contiguous and a.flags.aligned and a.dtype.isnative):
        # Leading axes of C-ordered data (axis=0 of a 2-D array): the engine's
        # column-parallel blocked two-pass, no copy.
        count, mean, m2 = reduce(ufunc, a, axis=leading, keepdims=keepdims)
    elif axes:
        rest = [i for i in range(a.ndim) if i not in axes]
        order = rest + sorted(axes)
        lead = tuple(a.shape[i] for i in rest)
        b = np.require(a.transpose(order), dtype=a.dtype.newbyteorder("="),
                       requirements=["C", "A"])
        flat = lead + (math.prod(a.shape[i] for i in axes),)
        b = b.reshape(flat)
        if where is not True:
            where = np.ascontiguousarray(where.transpose(order)).reshape(flat)
        count, mean, m2 = reduce(ufunc, b, axis=-1, where=where)
        if keepdims:
            count, mean, m2 = (np.expand_dims(r, axes) for r in (count, mean, m2))
    else:
        count, mean, m2 = reduce(ufunc, a, axis=(), keepdims=keepdims, where=where)
    return a, count, mean, m2


def _meanvar(name, a, axis, dtype, ddof, keepdims, where, std, nan=False):
    """The meanvar family: dtype and ddof checks (before any work), then one
    moments reduction per real part -- complex data reduce their real and
    imaginary parts separately, var = (M2(re) + M2(im)) / dof, which is
    np.var's mean of |z - mean|^2."""
    a = np.asarray(a)
    ddof, mean_dt, var_dt, axis, ufunc = _meanvar_args(name, a, axis, dtype, ddof, nan)
    res = [_moments(ufunc, p, axis, keepdims, where)[1:] for p in _moment_parts(a, mean_dt, nan)]
    count = res[0][0]
    m2 = res[0][2] if len(res) == 1 else np.add(res[0][2], res[1][2])
    # np.nanvar is np.var for non-inexact data (inf, not NaN, where ddof >= count)
    return _finish_meanvar(count, [r[1] for r in res], m2, mean_dt, var_dt, ddof, std,
                           nan_dof=nan and a.dtype.kind in "fc")


def _meanvar_args(name, a, axis, dtype, ddof, nan):
    """The meanvar family's argument checks: (ddof, mean dtype, variance
    dtype, axis, moments ufunc) for data `a` (also used per chunk by the
    Dask path)."""
    ddof = _ddof_arg(name, ddof)
    mean_dt, var_dt = _result_dtype(name, a.dtype, dtype, nan)
    if nan and a.ndim == 0 and type(axis) is int and axis in (0, -1):
        axis = None  # np.nanmean/np.nanvar reduce with ufunc.reduce's 0-d rule
    ufunc = _core.nanmoments if nan and a.dtype.kind in "fc" else _core.moments
    return ddof, mean_dt, var_dt, axis, ufunc


def _moment_parts(a, mean_dt, nan):
    """The real arrays whose moments the meanvar family reduces: `a`, or the
    real and imaginary parts of complex data; in long double where the
    ``dtype=`` precision is long double."""
    if a.dtype.kind == "c":
        parts = [a.real, a.imag]
        if nan:
            # np.nanmean skips an element whose real *or* imaginary part is
            # NaN: make both parts NaN there, so both skip the same elements.
            bad = np.isnan(a)
            if bad.any():
                parts = [np.where(bad, np.nan, p) for p in parts]
    else:
        parts = [a]
    work = np.finfo(mean_dt).dtype  # the real type of the dtype= precision
    if work.itemsize > 8:
        # dtype=longdouble (or long double data): accumulate in long double
        parts = [p.astype(work, copy=False) for p in parts]
    return parts


def _finish_meanvar(count, means, m2, mean_dt, var_dt, ddof, std, nan_dof=False,
                    warn_dof=True):
    """(mean, var or std) from the reductions: `means` holds one mean per real
    part (the real and imaginary parts of complex data).  ``warn_dof=False``:
    no "Degrees of freedom" warning (the caller decides; cummeanvar)."""
    if np.any(count == 0):
        warnings.warn("Mean of empty slice.", RuntimeWarning, stacklevel=4)
    dof = np.maximum(count - ddof, 0)
    if warn_dof and np.any(dof <= 0):
        # np.nanvar's message ends with a period, np.var's does not
        warnings.warn("Degrees of freedom <= 0 for slice" + ("." if nan_dof else ""),
                      RuntimeWarning, stacklevel=4)
    with np.errstate(divide="ignore", invalid="ignore"):
        means = [np.where(count > 0, m, np.nan) for m in means]
        var = np.true_divide(m2, dof)
        if nan_dof:  # np.nanvar: NaN (not inf) where ddof >= count
            var = np.where(dof > 0, var, np.nan)
        if std:
            var = np.sqrt(var)
    if len(means) == 2:
        re, im = means
        with np.errstate(invalid="ignore"):
            # np.mean divides the complex sum by the count as a complex
            # number: an inf or NaN in one part makes the other NaN (inf * 0)
            re, im = re + im * 0, im - re * 0
        mean = np.empty(np.shape(re), dtype=mean_dt)
        mean.real, mean.imag = re, im
    else:
        mean = np.asarray(means[0], dtype=mean_dt)
    var = np.asarray(var, dtype=var_dt)
    return (mean[()] if mean.ndim == 0 else mean), (var[()] if var.ndim == 0 else var)


@public_function(masked_moments(nan=False))
def meanvar(a, axis=None, dtype=None, ddof=0, keepdims=False, where=True):
    """Mean and variance in one pass: ``(np.mean(a, ...), np.var(a, ...))``.

    Accumulates (count, mean, M2) with the ``moments`` ufunc: float64
    accumulators for bool/integer/float16/float32 data (long double for long
    double), exact counts, Chan's merge, and a shifted blocked two-pass
    algorithm on contiguous data, so it is at least as accurate as ``np.var``
    on data with a large offset.  Complex data: the real and imaginary parts
    are reduced separately; the variance is the mean of ``|z - mean|**2``
    (real), as ``np.var``'s.  Result dtypes follow ``np.mean``/``np.var``
    (``dtype=`` sets them; it must be a floating-point or complex dtype --
    an integer, bool or object ``dtype=`` raises ``TypeError``).  ``ddof`` is
    a real scalar (floats and negative values allowed).  Empty slices give
    NaN with NumPy's warnings.

    Examples
    --------
    >>> import numpy as np, numreduce as nr
    >>> nr.meanvar(np.array([1.0, 2.0, 3.0, 4.0]))
    (np.float64(2.5), np.float64(1.25))
    >>> nr.meanvar(np.array([[1, 2], [3, 5]]), axis=0, ddof=1)
    (array([2. , 3.5]), array([2. , 4.5]))
    >>> nr.meanvar(np.array([1 + 1j, 3 - 1j]))
    (np.complex128(2+0j), np.float64(2.0))
    """
    return _meanvar("meanvar", a, axis, dtype, ddof, keepdims, where, std=False)


@public_function(masked_moments(nan=False))
def meanstd(a, axis=None, dtype=None, ddof=0, keepdims=False, where=True):
    """Mean and standard deviation in one pass: ``(np.mean(a), np.std(a))``.

    Same accumulation and dtype/ddof rules as :func:`meanvar`.

    Examples
    --------
    >>> import numpy as np, numreduce as nr
    >>> nr.meanstd(np.array([2.0, 4.0, 4.0, 4.0, 5.0, 5.0, 7.0, 9.0]))
    (np.float64(5.0), np.float64(2.0))
    """
    return _meanvar("meanstd", a, axis, dtype, ddof, keepdims, where, std=True)


@public_function(masked_moments(nan=True))
def nanmeanvar(a, axis=None, dtype=None, ddof=0, keepdims=False, where=True):
    """``(np.nanmean(a, ...), np.nanvar(a, ...))`` in one pass (NaNs skipped).

    All-NaN slices give NaN with NumPy's warnings.  A complex element is
    skipped when its real or imaginary part is NaN (as ``np.nanmean``).  As
    ``np.nanmean``, float and complex data need a float or complex
    ``dtype=`` (``TypeError: If a is inexact, then dtype must be inexact``);
    otherwise the dtype/ddof rules of :func:`meanvar`.

    Examples
    --------
    >>> import numpy as np, numreduce as nr
    >>> nr.nanmeanvar(np.array([1.0, np.nan, 3.0]))
    (np.float64(2.0), np.float64(1.0))
    """
    return _meanvar("nanmeanvar", a, axis, dtype, ddof, keepdims, where, std=False, nan=True)


# ---------------------------------------------------------------------------
# log-sum-exp and compensated sums
# ---------------------------------------------------------------------------

@public_function(masked_fill(-np.inf, float_ints=True))
def logsumexp(a, axis=None, keepdims=False):
    """``log(sum(exp(a)))`` in one pass, with ``scipy.special.logsumexp``
    semantics.

    Accumulates (running max ``m``, ``t`` = sum of ``exp(x - m)`` less the
    maximum's own 1) in float64 (long double for long double) with a
    vectorised exp and returns ``m + log1p(t)``, so results near 0 keep
    their precision (``logsumexp([0, -40])`` is ``4.2e-18``, as SciPy).
    +inf wins, NaN propagates, all -inf or empty gives -inf.  Result dtype:
    SciPy's -- the input's float dtype (float16, float32, float64, long
    double), float64 for bool and integers.  Complex input follows SciPy's
    complex rules (two passes in NumPy, not the one-pass reduction): the
    shift is the element with the largest real part, the imaginary part of
    the result is wrapped into (-pi, pi], and non-finite results are
    ``log(sum(exp(a)))`` computed directly.

    Examples
    --------
    >>> import numpy as np, numreduce as nr
    >>> float(nr.logsumexp(np.array([1000.0, 1000.0])))  # no overflow
    1000.6931471805599
    >>> float(nr.logsumexp(np.array([0.0, -40.0])))      # no cancellation
    4.248354255291589e-18
    >>> nr.logsumexp(np.zeros((2, 3)), axis=1)
    array([1.09861229, 1.09861229])
    """
    arr = np.asarray(a)
    if arr.dtype.kind == "c":
        return _logsumexp_complex(arr.astype(arr.dtype.newbyteorder("="), copy=False), axis,
                                  keepdims)
    if arr.dtype.kind not in "biuf":
        raise TypeError(f"logsumexp: unsupported dtype {arr.dtype}")
    mx, t = reduce(_core.maxsumexp, arr, axis=axis, keepdims=keepdims)
    return _logsumexp_finish(mx, t, arr.dtype)


def _logsumexp_finish(mx, t, in_dtype):
    """m + log1p(t) of maxsumexp states, in the result dtype for `in_dtype`
    data (SciPy's: the float dtype, float64 for bool and integers)."""
    with np.errstate(divide="ignore", invalid="ignore"):
        res = np.add(mx, np.log1p(t))
        # +inf max: t counts the other infinities, log1p(t) is finite; -inf
        # max: t >= -1 and -inf + log1p(t) stays -inf; NaN max: t is NaN.
    rdt = in_dtype.newbyteorder("=") if in_dtype.kind == "f" else np.dtype(np.float64)
    res = np.asarray(res, dtype=rdt)
    return res[()] if res.ndim == 0 else res


def _logsumexp_complex(arr, axis, keepdims, xp=np):
    """scipy.special.logsumexp's meaning for complex data, in NumPy (or
    CuPy: ``xp``, the same array operations on the device): shift by the
    (last) element of largest real part, sum the others' exp, log1p; where
    that is not finite, log(sum(exp(a))) directly (C99 complex exp/log
    decide the inf/NaN cases); the imaginary part wrapped into (-pi, pi]."""
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


@public_function(masked_fill(0))
def fsum(a, axis=None, dtype=None, keepdims=False):
    """Compensated sum along an axis (Neumaier / Kahan-Babuska, one pass).

    Runs the ``twosum`` reduction: every addition's exact rounding error is
    accumulated alongside the sum.  Guaranteed bound:
    ``|fsum - exact| <= eps |exact| + n eps**2 sum|x|`` -- within about 1 ulp
    of ``math.fsum`` unless ``n * eps * sum|x| / |sum x|`` exceeds 1.
    Accumulates in float64 for bool/integers, float32 for float16, the input
    dtype otherwise; complex data sum their real and imaginary parts, each
    compensated.  ``dtype=`` chooses a float or complex accumulator (float16:
    accumulated in float32, rounded to float16); an integer, bool or object
    ``dtype=`` raises ``TypeError`` (``np.sum`` would do exact integer or
    object arithmetic), as do datetime64 and timedelta64 data.  NaN/inf
    behave as in ``np.sum``.

    Examples
    --------
    >>> import numpy as np, numreduce as nr
    >>> x = np.array([1e16, 1.0, -1e16] * 10)
    >>> float(nr.fsum(x))   # np.sum(x) gives 4.0 here
    10.0
    """
    arr = np.asarray(a)
    acc, rdt = _fsum_dtype(arr.dtype, dtype)
    sums = [_fsum_part(p, axis, acc, keepdims) for p in _fsum_parts(arr, rdt)]
    return _fsum_assemble(sums, rdt)


def _fsum_parts(arr, rdt):
    """The real arrays fsum sums: `arr` (object data cast to the dtype=), or
    the real and imaginary parts of complex data."""
    if arr.dtype.kind == "O":
        arr = arr.astype(rdt)  # the element cast np.sum(a, dtype=...) makes
    return [arr.real, arr.imag] if arr.dtype.kind == "c" else [arr]


def _fsum_assemble(sums, rdt):
    """fsum's result from the finished sums of its parts (``_fsum_parts``)."""
    if rdt is None:
        res = sums[0]
    elif len(sums) == 2:
        res = np.empty(np.shape(sums[0]), dtype=rdt)
        res.real, res.imag = sums
    else:
        res = np.asarray(sums[0], dtype=rdt)
    return res[()] if res.ndim == 0 else res


def _fsum_dtype(in_dtype, dtype, name="fsum"):
    """np.sum's ``dtype=`` rules as far as compensated floating-point
    summation can follow them: (acc, res), the real dtype the twosum
    reduction runs in (None: the loop's choice for the input -- float64 for
    bool/integers, float32 for float16) and the result dtype (None: the
    accumulator's).  Complex data and complex ``dtype=`` sum the real and
    imaginary parts separately.  A TypeError naming the argument for what it
    cannot follow (docs/differences.md); ``name`` is the
    function the messages name (fsum, cumfsum)."""
    kind = in_dtype.kind
    dt = _dtype_arg(name, dtype)
    if kind == "m":
        raise TypeError(f"{name}: unsupported input dtype {in_dtype} (np.sum of timedelta64 is "
                        "exact integer arithmetic; use np.sum)")
    if kind == "M":
        raise TypeError(f"{name}: unsupported input dtype {in_dtype} (datetime64 values cannot "
                        "be added; np.sum raises too)")
    if kind not in "biufcO":
        raise TypeError(f"{name}: unsupported input dtype {in_dtype} (need bool, integer, "
                        "floating point or complex)")
    if kind == "O" and (dt is None or dt.kind not in "fc"):
        raise TypeError(f"{name}: object arrays need a floating-point or complex dtype= (the "
                        "elements are then cast, as np.sum(a, dtype=...) casts them)")
    if dt is None:
        return None, (in_dtype.newbyteorder("=") if kind == "c" else None)
    if dt.kind in "biuO":
        raise TypeError(f"{name}: dtype={dt} is not supported: compensated summation runs in "
                        f"floating point (np.sum(a, dtype={dt}) is {dt} arithmetic)")
    if dt.kind not in "fc":
        raise TypeError(f"{name}: cannot sum in dtype={dt}")
    if kind == "c" and dt.kind == "f":
        raise TypeError(f"{name}: dtype={dt} would drop the imaginary part of {in_dtype} data "
                        "(NumPy warns ComplexWarning); pass a complex dtype, or a.real")
    real = np.finfo(dt).dtype
    return (np.dtype(np.float32) if real == np.float16 else real), dt


def _fsum_part(arr, axis, acc, keepdims):
    """The compensated sum s + e of real data, in the accumulator's dtype."""
    s, e = reduce(_core.twosum, arr, axis=axis, dtype=acc, keepdims=keepdims)
    return _fsum_finish(s, e)


def _fsum_finish(s, e):
    """s + e of twosum states (the sum where it is not finite or exact)."""
    with np.errstate(invalid="ignore", over="ignore"):
        res = np.where(np.isfinite(s) & (e != 0), np.add(s, e), s)
    return np.asarray(res, dtype=np.asarray(s).dtype)
