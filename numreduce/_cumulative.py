"""Cumulative user functions built on ``numreduce.accumulate`` (one pass
through the scan loop), with the signatures of NumPy's ``np.cumulative_*``
functions: ``x`` positional-only, the rest keyword-only, ``axis`` required
for input of more than one dimension, 0-d input treated as 1-d."""

from __future__ import annotations

import warnings

import numpy as np

from . import _core
from ._api import _ddof_arg, _dtype_arg, _finish_meanvar, _fsum_dtype, _fsum_finish, _result_dtype
from ._args import axis_index, check_out_dtypes, check_outs, finish_outs
from ._core import fminfmax, minimummaximum
from ._dispatch import masked_refuse, public_function
from ._methods import accumulate

# The bodies below get arrays that their own entry already dispatched.
accumulate = accumulate.__wrapped__

__all__ = ["cumfsum", "cummeanvar", "cumminmax", "logcumsumexp", "nancumminmax"]

_MASKED = masked_refuse("pass m.filled(value) or np.ma.getdata(m) explicitly")


def _prepare(name, x, axis):
    """(array, axis index): np.cumulative_sum's rules -- 0-d input is 1-d,
    ``axis=None`` only for 1-d input, one integer axis."""
    return scan_axis(name, np.asarray(x), axis)


def scan_axis(name, arr, axis):
    """_prepare's rules for an array that is already one (NumPy's or
    Dask's): (arr, or its 1-d view for 0-d input; the axis index)."""
    if arr.ndim == 0:
        arr = arr.reshape(1)
    if axis is None:
        if arr.ndim > 1:
            raise ValueError(f"{name}: for arrays which have more than one dimension "
                             "``axis`` argument is required.")
        axis = 0
    return arr, axis_index(axis, arr.ndim)


def logcumsumexp_dtype(name, in_dtype, dtype):
    """logcumsumexp's result dtype (the input's float type, float64 for
    bool/integers, or a floating-point ``dtype=``); a TypeError otherwise.
    Shared with the CuPy mirror."""
    if in_dtype.kind not in "biuf":
        raise TypeError(f"{name}: unsupported input dtype {in_dtype} (need bool, integer or "
                        "floating point)")
    rdt = in_dtype.newbyteorder("=") if in_dtype.kind == "f" else np.dtype(np.float64)
    if dtype is not None:
        rdt = _dtype_arg(name, dtype)
        if rdt.kind != "f":
            raise TypeError(f"{name}: dtype={rdt} is not a floating-point dtype")
    return rdt


def cumfsum_dtypes(name, in_dtype, dtype):
    """(accumulator, result dtype) of cumfsum: fsum's ``dtype=`` rules, the
    result the loop's accumulator by default (float64 for bool/integers,
    float32 for float16).  Shared with the CuPy mirror."""
    acc, rdt = _fsum_dtype(in_dtype, dtype, name)
    if rdt is None:
        native = in_dtype.newbyteorder("=")  # '>f2' too
        rdt = (np.dtype(np.float64) if native.kind in "biu" else
               np.dtype(np.float32) if native == np.float16 else native)
    return acc, rdt


def _include_initial_arg(name, include_initial):
    if not isinstance(include_initial, (bool, np.bool_)):
        raise TypeError(f"{name}: include_initial must be True or False, got "
                        f"{include_initial!r}")
    return bool(include_initial)


def _result(name, arr, ax, rdt, out, include_initial, initial, parts):
    """The result array (``out``, validated before any work, or a new one of
    dtype ``rdt``) of ``arr``'s shape -- one longer along ``ax`` with
    ``include_initial``, which puts ``initial`` first.  ``parts()`` computes
    the values (one array, or (real, imag) for complex results); it runs
    after every check, and reads ``arr`` completely before anything is
    written, so ``out`` may overlap ``arr``."""
    shape = list(arr.shape)
    shape[ax] += include_initial
    shape = tuple(shape)
    if out is not None:
        check_outs((out,), shape, name)
        check_out_dtypes((out,), (rdt,), name)
    values = parts()
    if isinstance(values, tuple):  # (real, imag): one complex array, then one cast
        z = np.empty(values[0].shape, dtype=np.result_type(rdt, np.complex64))
        z.real, z.imag = values
        values = z
    if (out is None and not include_initial and not isinstance(values, tuple)
            and values.dtype == rdt):
        return values  # a new array already
    res = np.empty(shape, dtype=rdt) if out is None else out
    body = res
    if include_initial:
        head = [slice(None)] * res.ndim
        head[ax] = slice(0, 1)
        res[tuple(head)] = initial
        head[ax] = slice(1, None)
        body = res[tuple(head)]
    np.copyto(body, values, casting="unsafe")  # complex into a real out: ComplexWarning
    return res


@public_function(_MASKED, array="x")
def cumminmax(x, /, *, axis=None, dtype=None, out=None):
    """Running minimum and maximum in one pass:
    ``(np.minimum.accumulate(x, axis), np.maximum.accumulate(x, axis))``.

    The signature is ``np.cumulative_sum``'s, less ``include_initial``:
    minimum and maximum have no identity (``np.minimum.identity`` is None),
    so an empty prefix has no value to include.

    Parameters
    ----------
    x : array_like
        0-d input is treated as 1-d, as ``np.cumulative_sum`` does.
    axis : int, optional
        Required for input of more than one dimension (ValueError
        otherwise); ``None`` for 1-d input.
    dtype : dtype, optional
        Dtype of both outputs (the input is cast to it).
    out : tuple of two (ndarray or None), optional
        Of ``x``'s shape; may overlap ``x``.

    Returns
    -------
    (running_min, running_max) : tuple of ndarray
        NaN/NaT-propagating, as ``np.minimum.accumulate``: from the first NaN
        on, both are NaN.

    Examples
    --------
    >>> import numpy as np, numreduce as nr
    >>> nr.cumminmax(np.array([3., 1., 4., 1., 5., 9., 2.]))
    (array([3., 1., 1., 1., 1., 1., 1.]), array([3., 3., 4., 4., 5., 9., 9.]))
    >>> lo, hi = nr.cumminmax(np.array([[2, 7], [5, 1]]), axis=0)
    >>> lo
    array([[2, 7],
           [2, 1]])
    """
    arr, ax = _prepare("cumminmax", x, axis)
    return accumulate(minimummaximum, arr, axis=ax, dtype=dtype, out=out)


@public_function(_MASKED, array="x")
def nancumminmax(x, /, *, axis=None, dtype=None, out=None):
    """Running minimum and maximum that skip NaN, in one pass:
    ``(np.fmin.accumulate(x, axis), np.fmax.accumulate(x, axis))``, through
    ``numreduce.accumulate(fminfmax, ...)``.

    Leading NaNs stay NaN until the first number (as ``np.fmin.accumulate``;
    an all-NaN prefix has no minimum); NaT likewise for datetimes.  The
    signature and rules are :func:`cumminmax`'s.

    Examples
    --------
    >>> import numpy as np, numreduce as nr
    >>> nr.nancumminmax(np.array([np.nan, 3., np.nan, 1., 5.]))
    (array([nan,  3.,  3.,  1.,  1.]), array([nan,  3.,  3.,  3.,  5.]))
    """
    arr, ax = _prepare("nancumminmax", x, axis)
    return accumulate(fminfmax, arr, axis=ax, dtype=dtype, out=out)


@public_function(_MASKED, array="x")
def logcumsumexp(x, /, *, axis=None, dtype=None, out=None, include_initial=False):
    """``log(cumsum(exp(x)))`` along an axis, accurate and without overflow:
    ``np.logaddexp.accumulate(x, axis)`` in one pass.

    Runs ``numreduce.accumulate(maxsumexp, ...)``: the running maximum ``m``
    and ``t`` = the running sum of ``exp(x - m)`` less the maximum's own 1,
    in float64 (long double for long double), rescaled when the maximum
    grows; the result is ``m + log1p(t)``.  +inf wins, NaN propagates from
    its position on, -inf terms add nothing (an all -inf prefix gives -inf).

    Parameters
    ----------
    x : array_like
        Real (bool, integer or float) data; 0-d input is treated as 1-d.
    axis : int, optional
        Required for input of more than one dimension; ``None`` for 1-d.
    dtype : dtype, optional
        Result dtype (a float type).  Default: as ``numreduce.logsumexp``
        (SciPy's rule) -- the input's float dtype, float64 for bool and
        integers.
    out : ndarray, optional
        Of the result's shape; results are cast into it.  May overlap ``x``.
    include_initial : bool, default False
        Prepend -inf (the log of an empty sum), as ``np.cumulative_sum``
        prepends 0: the result is one longer along ``axis``.

    Examples
    --------
    >>> import numpy as np, numreduce as nr
    >>> nr.logcumsumexp(np.array([1000., 1000., 1000.]))    # no overflow
    array([1000.        , 1000.69314718, 1001.09861229])
    >>> nr.logcumsumexp(np.array([0., 0.]), include_initial=True)
    array([      -inf, 0.        , 0.69314718])
    """
    name = "logcumsumexp"
    arr, ax = _prepare(name, x, axis)
    include_initial = _include_initial_arg(name, include_initial)
    rdt = logcumsumexp_dtype(name, arr.dtype, dtype)

    def parts():
        mx, t = accumulate(_core.maxsumexp, arr, axis=ax)
        with np.errstate(divide="ignore", invalid="ignore"):
            # -inf max: t >= -1 and -inf + log1p(t) stays -inf; +inf max: t
            # counts the other infinities, log1p(t) is finite; NaN: NaN.
            np.log1p(t, out=t)
            return np.add(mx, t, out=mx)

    return _result(name, arr, ax, rdt, out, include_initial, -np.inf, parts)


@public_function(_MASKED, array="x")
def cumfsum(x, /, *, axis=None, dtype=None, out=None, include_initial=False):
    """Compensated cumulative sum: ``np.cumulative_sum(x, axis=axis)`` with
    every prefix summed as accurately as :func:`numreduce.fsum` sums it.

    Runs ``numreduce.accumulate(twosum, ...)`` (every addition's exact
    rounding error accumulated alongside the running sum) and returns
    ``sum + error`` per prefix: each prefix is within fsum's bound
    ``eps |exact| + n eps**2 sum|x|`` of the exact prefix sum (n its
    length), where ``np.cumsum`` drifts by up to ``n eps sum|x|``.

    Parameters
    ----------
    x : array_like
        Bool, integer, float, complex (the real and imaginary parts each
        compensated), or object with a float/complex ``dtype=``.
    axis : int, optional
        Required for input of more than one dimension; ``None`` for 1-d.
    dtype : dtype, optional
        :func:`numreduce.fsum`'s rules: float64 for bool and integers,
        float32 accumulators for float16, the input's dtype otherwise; an
        integer, bool or object ``dtype=`` raises ``TypeError``.
    out : ndarray, optional
        Of the result's shape; results are cast into it.  May overlap ``x``.
    include_initial : bool, default False
        Prepend 0, as ``np.cumulative_sum``: one longer along ``axis``.

    Examples
    --------
    >>> import numpy as np, numreduce as nr
    >>> x = np.array([1e16, 1.0, -1e16, 1.0])
    >>> nr.cumfsum(x)          # np.cumsum(x) gives [1e16, 1e16, 0, 1]
    array([1.e+16, 1.e+16, 1.e+00, 2.e+00])
    """
    name = "cumfsum"
    arr, ax = _prepare(name, x, axis)
    include_initial = _include_initial_arg(name, include_initial)
    acc, rdt = cumfsum_dtypes(name, arr.dtype, dtype)

    def parts():
        a = arr.astype(rdt) if arr.dtype.kind == "O" else arr
        sums = tuple(_fsum_finish(*accumulate(_core.twosum, p, axis=ax, dtype=acc))
                     for p in ((a.real, a.imag) if a.dtype.kind == "c" else (a,)))
        return sums if len(sums) == 2 else sums[0]

    return _result(name, arr, ax, rdt, out, include_initial, 0, parts)


@public_function(_MASKED, array="x")
def cummeanvar(x, /, *, axis=None, dtype=None, ddof=0, out=None):
    """Running mean and variance in one pass: element ``i`` along ``axis``
    is ``(np.mean(p), np.var(p, ddof=ddof))`` of the prefix ``p = x[..., :i+1]``.

    Runs ``numreduce.accumulate(moments, ...)`` (Welford's update of (count,
    mean, M2) in float64, long double for long double); complex data reduce
    their real and imaginary parts separately and the variance is the mean
    of ``|z - mean|**2``, as ``np.var``'s.  Result dtypes and ``dtype=``
    follow :func:`numreduce.meanvar` (np.mean / np.var's: float64 for bool
    and integers, the float dtype otherwise, a real variance for complex).

    Prefixes with ``i + 1 - ddof <= 0`` degrees of freedom get what
    ``np.var`` gives them (NaN, or inf where M2 > 0) but no warning per
    prefix (with ``ddof=1`` the first prefix always has none); the
    ``RuntimeWarning`` "Degrees of freedom <= 0 for slice" is issued only
    when no prefix has any, i.e. when ``np.var`` of the whole slice would
    warn (axis length ``<= ddof``).

    Parameters
    ----------
    x : array_like
    axis : int, optional
        Required for input of more than one dimension; ``None`` for 1-d.
    dtype : dtype, optional
        A float or complex type for both results.
    ddof : real scalar, default 0
    out : tuple of two (ndarray or None), optional
        For (mean, var), of ``x``'s shape; results are cast into them.

    Returns
    -------
    (mean, var) : tuple of ndarray

    Examples
    --------
    >>> import numpy as np, numreduce as nr
    >>> mean, var = nr.cummeanvar(np.array([1., 2., 3., 4.]))
    >>> mean
    array([1. , 1.5, 2. , 2.5])
    >>> var
    array([0.        , 0.25      , 0.66666667, 1.25      ])
    """
    name = "cummeanvar"
    arr, ax = _prepare(name, x, axis)
    ddof = _ddof_arg(name, ddof)
    mean_dt, var_dt = _result_dtype(name, arr.dtype, dtype)
    if out is not None:
        if not isinstance(out, tuple) or len(out) != 2:
            raise TypeError(f"{name}: out must be a tuple of two arrays (or None entries), "
                            f"got {type(out).__name__}")
        check_outs(out, arr.shape, name)
        check_out_dtypes(out, (mean_dt, var_dt), name)
    a = arr
    work = np.finfo(mean_dt).dtype
    parts = [a.real, a.imag] if a.dtype.kind == "c" else [a]
    if work.itemsize > 8:
        parts = [p.astype(work, copy=False) for p in parts]
    res = [accumulate(_core.moments, p, axis=ax) for p in parts]
    count = res[0][0]
    m2 = res[0][2] if len(res) == 1 else np.add(res[0][2], res[1][2])
    n = arr.shape[ax]
    if 0 < n <= ddof and arr.size:
        warnings.warn("Degrees of freedom <= 0 for slice", RuntimeWarning, stacklevel=2)
    mean, var = _finish_meanvar(count, [r[1] for r in res], m2, mean_dt, var_dt, ddof, False,
                                warn_dof=False)
    if out is None:
        return mean, var
    return finish_outs(out, (mean, var))
