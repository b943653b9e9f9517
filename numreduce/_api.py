"""What most users call: NumPy-style functions on top of the engine."""

from __future__ import annotations

import math
import operator
import warnings

import numpy as np
from numpy.lib.array_utils import normalize_axis_index, normalize_axis_tuple

from . import _core
from ._engine import NoValue, reduce

__all__ = ["argminmax", "fsum", "logsumexp", "meanstd", "meanvar", "minmax", "nanargminmax",
           "nanmeanvar", "nanminmax"]


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
    if axis is None and out is None and not keepdims and a.ndim == 1 and a.size:
        # The common call, without the general path's bookkeeping.
        lo, hi = _arg_rows(a.reshape(1, -1), skip_nan)
        return lo[0], hi[0]
    zero_d = a.ndim == 0
    if zero_d:
        a = a.reshape(1)  # NumPy treats a 0-d array as 1-d here (axis 0 / -1 / None)
    if axis is None:
        rows = a.reshape(1, -1)
        shape = (1,) * a.ndim if keepdims else ()
    else:
        ax = normalize_axis_index(operator.index(axis), a.ndim)
        moved = np.moveaxis(a, ax, -1)
        rows = moved.reshape(math.prod(moved.shape[:-1]), moved.shape[-1])
        shape = moved.shape[:-1]
        if keepdims:
            shape = shape[:ax] + (1,) + shape[ax:]
    if zero_d:
        shape = ()
    outs = (None, None) if out is None else out
    if not (isinstance(outs, tuple) and len(outs) == 2):
        raise TypeError(f"{name}: out must be a tuple of two arrays (or None entries)")
    for o in outs:
        if o is not None:
            if not isinstance(o, np.ndarray):
                raise TypeError(f"{name}: out entries must be arrays")
            if o.shape != shape:
                raise ValueError(f"{name}: output array has shape {o.shape}, expected {shape}")
            if not np.can_cast(o.dtype, np.intp, casting="safe"):  # np.argmin's rule
                raise TypeError(f"{name}: cannot store indices in an array of dtype {o.dtype}")
            if not o.flags.writeable:
                raise ValueError("output array is read-only")
    if rows.shape[1] == 0:
        raise ValueError(f"attempt to get {name} of an empty sequence")
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

def _result_dtype(in_dtype, dtype):
    """np.mean / np.var's result dtype."""
    if dtype is not None:
        return np.dtype(dtype)
    if in_dtype.kind in "biu":
        return np.dtype(np.float64)
    return in_dtype.newbyteorder("=")


def _moments(ufunc, a, axis, keepdims, where, dtype=None):
    """(count, mean, M2) over `axis`, always through one of the moments'
    blocked two-pass paths: the leading axes of C-ordered data go to the
    column-parallel row-block path; otherwise the reduced axes are moved last
    and the data made contiguous, aligned and native (a copy only where it is
    not already; np.var makes an n-sized temporary too).  Strided
    accumulators would fall back to Welford's update, which loses accuracy on
    data with a large offset (see docs/accuracy.md)."""
    a = np.asarray(a)
    if a.dtype.kind not in "biuf":
        raise TypeError(f"{ufunc.__name__}: unsupported dtype {a.dtype} (need bool, integer "
                        "or real floating point)")
    if dtype is not None and np.dtype(dtype).kind == "f" and np.dtype(dtype).itemsize > 8:
        a = a.astype(dtype)  # dtype=longdouble: accumulate in long double too
    # np.mean / np.var validate the axis against the array (no 0-d special
    # case as ufunc.reduce has).
    axes = tuple(range(a.ndim)) if axis is None else normalize_axis_tuple(axis, a.ndim)
    if where is not True:
        where = np.broadcast_to(np.asarray(where, dtype=bool), a.shape)
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


def _finish_meanvar(a, count, mean, m2, dtype, ddof, std, nan_dof=False):
    rdt = _result_dtype(a.dtype, dtype)
    if np.any(count == 0):
        warnings.warn("Mean of empty slice.", RuntimeWarning, stacklevel=3)
    dof = np.maximum(count - ddof, 0)
    if np.any(dof <= 0):
        warnings.warn("Degrees of freedom <= 0 for slice", RuntimeWarning, stacklevel=3)
    with np.errstate(divide="ignore", invalid="ignore"):
        mean = np.where(count > 0, mean, np.nan)
        var = np.true_divide(m2, dof)
        if nan_dof:  # np.nanvar: NaN (not inf) where ddof >= count
            var = np.where(dof > 0, var, np.nan)
        if std:
            var = np.sqrt(var)
    mean = np.asarray(mean, dtype=rdt)
    var = np.asarray(var, dtype=rdt)
    return (mean[()] if mean.ndim == 0 else mean), (var[()] if var.ndim == 0 else var)


def meanvar(a, axis=None, dtype=None, ddof=0, keepdims=False, where=True):
    """Mean and variance in one pass: ``(np.mean(a, ...), np.var(a, ...))``.

    Accumulates (count, mean, M2) with the ``moments`` ufunc: float64
    accumulators for bool/integer/float16/float32 data (long double for long
    double), exact counts, Chan's merge, and a shifted blocked two-pass
    algorithm on contiguous data, so it is at least as accurate as ``np.var``
    on data with a large offset.  Result dtypes follow ``np.mean``/``np.var``
    (``dtype=`` sets them).  Empty slices give NaN with NumPy's warnings.

    Examples
    --------
    >>> import numpy as np, numreduce as nr
    >>> nr.meanvar(np.array([1.0, 2.0, 3.0, 4.0]))
    (np.float64(2.5), np.float64(1.25))
    >>> nr.meanvar(np.array([[1, 2], [3, 5]]), axis=0, ddof=1)
    (array([2. , 3.5]), array([2. , 4.5]))
    """
    a, count, mean, m2 = _moments(_core.moments, a, axis, keepdims, where, dtype)
    return _finish_meanvar(a, count, mean, m2, dtype, ddof, std=False)


def meanstd(a, axis=None, dtype=None, ddof=0, keepdims=False, where=True):
    """Mean and standard deviation in one pass: ``(np.mean(a), np.std(a))``.

    Same accumulation as :func:`meanvar`.

    Examples
    --------
    >>> import numpy as np, numreduce as nr
    >>> nr.meanstd(np.array([2.0, 4.0, 4.0, 4.0, 5.0, 5.0, 7.0, 9.0]))
    (np.float64(5.0), np.float64(2.0))
    """
    a, count, mean, m2 = _moments(_core.moments, a, axis, keepdims, where, dtype)
    return _finish_meanvar(a, count, mean, m2, dtype, ddof, std=True)


def nanmeanvar(a, axis=None, dtype=None, ddof=0, keepdims=False, where=True):
    """``(np.nanmean(a, ...), np.nanvar(a, ...))`` in one pass (NaNs skipped).

    All-NaN slices give NaN with NumPy's warnings.

    Examples
    --------
    >>> import numpy as np, numreduce as nr
    >>> nr.nanmeanvar(np.array([1.0, np.nan, 3.0]))
    (np.float64(2.0), np.float64(1.0))
    """
    arr = np.asarray(a)
    ufunc = _core.nanmoments if arr.dtype.kind == "f" else _core.moments
    if arr.ndim == 0 and isinstance(axis, int) and axis in (0, -1):
        axis = None  # np.nanmean/np.nanvar reduce with ufunc.reduce's 0-d rule
    arr, count, mean, m2 = _moments(ufunc, arr, axis, keepdims, where, dtype)
    # np.nanvar is np.var for non-float data (inf, not NaN, where ddof >= count)
    return _finish_meanvar(arr, count, mean, m2, dtype, ddof, std=False,
                           nan_dof=arr.dtype.kind == "f")


# ---------------------------------------------------------------------------
# log-sum-exp and compensated sums
# ---------------------------------------------------------------------------

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
    with np.errstate(divide="ignore", invalid="ignore"):
        res = np.add(mx, np.log1p(t))
        # +inf max: t counts the other infinities, log1p(t) is finite; -inf
        # max: t >= -1 and -inf + log1p(t) stays -inf; NaN max: t is NaN.
    rdt = arr.dtype.newbyteorder("=") if arr.dtype.kind == "f" else np.dtype(np.float64)
    res = np.asarray(res, dtype=rdt)
    return res[()] if res.ndim == 0 else res


def _logsumexp_complex(arr, axis, keepdims):
    """scipy.special.logsumexp's meaning for complex data, in NumPy: shift by
    the (last) element of largest real part, sum the others' exp, log1p;
    where that is not finite, log(sum(exp(a))) directly (C99 complex
    exp/log decide the inf/NaN cases); the imaginary part wrapped into
    (-pi, pi]."""
    # the result shape (and the axis check) of the real path: np.sum's
    shape = np.sum(np.empty(arr.shape, np.int8), axis=axis, keepdims=keepdims).shape
    a = arr.reshape(1) if arr.ndim == 0 else arr
    ax = None if axis is None else axis
    if arr.ndim == 0 and axis is not None:
        ax = tuple(normalize_axis_tuple(axis, 1))
    dt = a.dtype
    if a.size == 0:
        res = np.full(shape, complex(-np.inf, 0.0), dtype=dt)
        return res[()] if res.ndim == 0 else res
    with np.errstate(all="ignore"):
        direct = np.log(np.sum(np.exp(a), axis=ax, keepdims=True))
        re = a.real
        top = np.max(re, axis=ax, keepdims=True)
        # the last element whose real part is the maximum (none for a NaN
        # maximum: then every element is "chosen", as in SciPy; the result
        # is not finite and the direct formula decides)
        idx = np.where(re == top, np.arange(a.size).reshape(a.shape), -1)
        chosen = idx == np.max(idx, axis=ax, keepdims=True)
        shift = np.sum(np.where(chosen, a, 0), axis=ax, keepdims=True, dtype=dt)
        count = np.sum(chosen, axis=ax, keepdims=True, dtype=dt)
        rest = np.where(chosen, np.asarray(-np.inf, dtype=dt), a)
        s = np.sum(np.exp(rest - shift), axis=ax, keepdims=True, dtype=dt)
        s = np.where(s == 0, s, s / count)
        out = np.log1p(s) + np.log(count) + shift
        out = np.where(np.isfinite(out), out, direct)
        im = out.imag
        wrapped = -((-im + np.pi) % (2 * np.pi) - np.pi)
        im = np.where(np.abs(im) < np.pi, im, wrapped)
        out = out.real + im.astype(dt) * 1j
    res = np.asarray(out, dtype=dt).reshape(shape)
    return res[()] if res.ndim == 0 else res


def fsum(a, axis=None, dtype=None, keepdims=False):
    """Compensated sum along an axis (Neumaier / Kahan-Babuska, one pass).

    Runs the ``twosum`` reduction: every addition's exact rounding error is
    accumulated alongside the sum.  Guaranteed bound:
    ``|fsum - exact| <= eps |exact| + n eps**2 sum|x|`` -- within about 1 ulp
    of ``math.fsum`` unless ``n * eps * sum|x| / |sum x|`` exceeds 1.
    Accumulates in float64 for bool/integers, float32 for float16, the input
    dtype otherwise (``dtype=`` chooses).  NaN/inf behave as in ``np.sum``.

    Examples
    --------
    >>> import numpy as np, numreduce as nr
    >>> x = np.array([1e16, 1.0, -1e16] * 10)
    >>> float(nr.fsum(x))   # np.sum(x) gives 4.0 here
    10.0
    """
    arr = np.asarray(a)
    s, e = reduce(_core.twosum, arr, axis=axis, dtype=dtype, keepdims=keepdims)
    with np.errstate(invalid="ignore", over="ignore"):
        res = np.where(np.isfinite(s) & (e != 0), np.add(s, e), s)
    res = np.asarray(res, dtype=np.asarray(s).dtype)
    return res[()] if res.ndim == 0 else res
