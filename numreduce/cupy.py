"""numreduce on CuPy arrays: the same multi-output ufuncs and reductions on
the GPU, compiled from the same traits headers (docs/gpu.md).

``import numreduce`` never imports this module or CuPy; the public
functions route CuPy arrays to the CuPy backend (``numreduce/_cupy.py``)
themselves (``numreduce/_dispatch.py``).  This module is the public face of
that backend:

* ``numreduce.cupy.<ufunc>(x1, x2, out=(..), dtype=..)``: a
  ``cupy.ElementwiseKernel`` (broadcasting, every output);
* ``numreduce.cupy.<ufunc>.reduce(a, axis=0, dtype=None, out=None,
  keepdims=False, initial=..., where=True)``: ``numreduce.reduce`` on the
  device (a ``cupy.ReductionKernel``);
* the methods ``reduce``, ``accumulate``, ``merge``, ``reduceat``,
  ``segmented_reduce``, ``reduce_by_group``, ``at`` (of numreduce's ufuncs
  or of the ``DeviceUFunc`` objects here) and the user functions, with
  numreduce's signatures;
* the reductions of two arrays (``weights=``, ``b=``, ``covariance``,
  ``correlation``, ``sumprod``, ``group_meanvar(weights=)``; the ufuncs
  ``wmoments``, ``nanwmoments``, ``comoments``, ``maxsumexpb``,
  ``twoprod``, whose methods take the tuple ``(x, y)``, ``at`` its
  ``values`` too): ``reduce`` is one ReductionKernel with both arrays as
  inputs, the other methods run the scan and segments kernels over the
  two arrays packed side by side (``_cupy.pack_sources``);
* ``mapreduce``: ``f`` once on the whole broadcast sources on the device,
  then the reduction of that image (not block by block as on the host).

Each function is the one statistic (``numreduce/_stats.py``) or method
(``numreduce/_methods.py``) that ``numreduce.<name>`` runs, with the CuPy
backend: the same argument rules, dtype rules and finishes as on NumPy
arrays, the array primitives as kernel launches.  Kernel source comes
from ``numreduce._cupy_source``; CuPy caches the compiled kernels.

Layer: faces (imports ``_cupy``, ``_methods`` and ``_stats``).
"""

from __future__ import annotations

# _cupy: ImportError saying what is missing (CuPy, or a CUDA device)
from . import _core, _cupy, _dispatch, _methods, _stats
from ._args import NoValue
from ._cupy_source import SOURCE_TRAITS, TRAITS
from ._dtypes import MULTI_OUTPUT

__all__ = list(TRAITS) + list(SOURCE_TRAITS) + ["minmax", "nanminmax", "argminmax", "nanargminmax", "meanvar",
                          "meanstd", "nanmeanvar", "logsumexp", "fsum", "reduce",
                          "accumulate", "merge", "is_cupy_array", "reduceat",
                          "segmented_reduce", "reduce_by_group", "at", "group_minmax",
                          "group_argminmax", "group_meanvar", "group_logsumexp", "group_fsum",
                          "cumminmax", "nancumminmax", "logcumsumexp", "cumfsum",
                          "cummeanvar", "covariance", "correlation", "sumprod", "mapreduce",
                          "describe", "skew", "kurtosis"]


def is_cupy_array(x) -> bool:
    """Whether ``x`` is a CuPy array (``cupy.ndarray``).

    Parameters
    ----------
    x : object
        Any object.

    Returns
    -------
    bool
        ``isinstance(x, cupy.ndarray)``.

    See Also
    --------
    numreduce.minmax : Like every function of numreduce, sends CuPy arrays here.
    """
    return isinstance(x, _cupy.xp.ndarray)


class DeviceUFunc:
    """One numreduce ufunc on CuPy arrays (same name, nin = 2, nout).  A
    reduction of two sources (``wmoments``, ``comoments``, ...): the call
    gives the state of each element of (x1, x2), ``.reduce`` and the
    methods of this module take the tuple ``(x1, x2)``.

    ``numreduce.cupy.minimummaximum``, ``fminfmax``, ``moments``,
    ``nanmoments``, ``maxsumexp``, ``twosum``, ``wmoments``,
    ``nanwmoments``, ``comoments``, ``maxsumexpb`` and ``twoprod`` are
    instances.  ``u(x1, x2, out=None, dtype=None)`` is the elementwise
    ufunc (a ``cupy.ElementwiseKernel``); ``u.reduce(a, axis=0, dtype=None,
    out=None, keepdims=False, initial=..., where=True)`` is
    :func:`numreduce.reduce` on the device (a ``cupy.ReductionKernel``).

    Attributes
    ----------
    cpu : numpy.ufunc
        The NumPy ufunc of the same name (``numreduce.<name>``).
    nin : int
        Number of inputs, 2.
    nout : int
        Number of outputs.

    See Also
    --------
    numreduce.reduce : The reduction of a multi-output ufunc.
    """

    def __init__(self, name):
        self.__name__ = name
        self.cpu = getattr(_core, name)
        self.nout = self.cpu.nout
        self.nin = self.cpu.nin
        self.__doc__ = f"numreduce.{name} on CuPy arrays (ElementwiseKernel; .reduce: " \
                       "ReductionKernel).\n\n" + (self.cpu.__doc__ or "")

    def __repr__(self):
        return f"<numreduce.cupy ufunc {self.__name__!r}>"

    def __call__(self, x1, x2, out=None, dtype=None):
        return _cupy.elementwise(self.cpu, x1, x2, out, dtype, self.__name__,
                                 f"numreduce.cupy.{self.__name__}")

    def reduce(self, a, axis=0, dtype=None, out=None, keepdims=False, initial=NoValue,
               where=True):
        return _methods.reduce(_cupy, "numreduce.reduce", self.cpu, a, axis=axis, dtype=dtype,
                               out=out, keepdims=keepdims, initial=initial, where=where)


for _name in [*TRAITS, *SOURCE_TRAITS]:
    globals()[_name] = DeviceUFunc(_name)
del _name


def _ufunc(ufunc, method):
    """The engine's ufunc of a method's ``ufunc``: a ``DeviceUFunc``'s CPU
    ufunc, or one of the engine's ufuncs; anything else is a TypeError."""
    if isinstance(ufunc, DeviceUFunc):
        return ufunc.cpu
    try:
        known = ufunc in MULTI_OUTPUT
    except TypeError:  # unhashable
        known = False
    if not known:
        _cupy.foreign(f"numreduce.{method}", method, ufunc)  # raises
    return ufunc


# ---------------------------------------------------------------------------
# methods
# ---------------------------------------------------------------------------

def reduce(ufunc, array, axis=0, dtype=None, out=None, keepdims=False, initial=NoValue,
           where=True):
    """``numreduce.reduce`` for CuPy arrays (numreduce's ufuncs only).

    Parameters
    ----------
    ufunc : numpy.ufunc or DeviceUFunc
        One of numreduce's multi-output ufuncs.
    array : cupy.ndarray or tuple of cupy.ndarray
        The data, on the device; a tuple ``(x, y)`` for a ufunc of two
        arrays.
    axis, dtype, out, keepdims, initial, where
        As for :func:`numreduce.reduce`; ``out`` arrays are CuPy arrays.

    Returns
    -------
    outs : tuple of cupy.ndarray
        As :func:`numreduce.reduce` gives them, on the device.

    See Also
    --------
    numreduce.reduce : The same function; it sends CuPy arrays here.
    """
    return _methods.reduce(_cupy, "numreduce.reduce", _ufunc(ufunc, "reduce"), array,
                           axis=axis, dtype=dtype, out=out, keepdims=keepdims, initial=initial,
                           where=where)


def accumulate(ufunc, array, axis=0, dtype=None, out=None):
    """``numreduce.accumulate`` for CuPy arrays: every output's running
    reduction along one axis (a RawKernel, one thread per position of the
    other axes); a two-source ufunc takes the tuple ``(x, y)``.

    Parameters
    ----------
    ufunc : numpy.ufunc or DeviceUFunc
        One of numreduce's multi-output ufuncs.
    array : cupy.ndarray or tuple of cupy.ndarray
        The data, on the device; a tuple ``(x, y)`` for a ufunc of two
        arrays.
    axis, dtype, out
        As for :func:`numreduce.accumulate`; ``out`` arrays are CuPy arrays.

    Returns
    -------
    outs : tuple of cupy.ndarray
        As :func:`numreduce.accumulate` gives them, on the device.

    See Also
    --------
    numreduce.accumulate : The same function; it sends CuPy arrays here.
    """
    return _methods.accumulate(_cupy, "numreduce.accumulate", _ufunc(ufunc, "accumulate"),
                               array, axis=axis, dtype=dtype, out=out)


def merge(ufunc, states_a, states_b, out=None):
    """``numreduce.merge`` for CuPy states: combine(a, b) elementwise, with
    broadcasting (an ElementwiseKernel over the 2 * nout state arrays).

    Parameters
    ----------
    ufunc : numpy.ufunc or DeviceUFunc
        One of numreduce's multi-output ufuncs.
    states_a : tuple of cupy.ndarray
        One state per output.
    states_b : tuple of cupy.ndarray
        One state per output.
    out
        As for :func:`numreduce.merge`; ``out`` arrays are CuPy arrays.

    Returns
    -------
    outs : tuple of cupy.ndarray
        As :func:`numreduce.merge` gives them, on the device.

    See Also
    --------
    numreduce.merge : The same function; it sends CuPy arrays here.
    """
    return _methods.merge(_cupy, "numreduce.merge", _ufunc(ufunc, "merge"), states_a,
                          states_b, out)


def reduceat(ufunc, array, indices, axis=0, dtype=None, out=None):
    """``numreduce.reduceat`` on the GPU (``ufunc.reduceat``'s index rules).

    Parameters
    ----------
    ufunc : numpy.ufunc or DeviceUFunc
        One of numreduce's multi-output ufuncs.
    array : cupy.ndarray or tuple of cupy.ndarray
        The data, on the device; a tuple ``(x, y)`` for a ufunc of two
        arrays.
    indices : cupy.ndarray of int
        Where each value goes.
    axis, dtype, out
        As for :func:`numreduce.reduceat`; ``out`` arrays are CuPy arrays.

    Returns
    -------
    outs : tuple of cupy.ndarray
        As :func:`numreduce.reduceat` gives them, on the device.

    See Also
    --------
    numreduce.reduceat : The same function; it sends CuPy arrays here.
    """
    return _methods.reduceat(_cupy, "numreduce.reduceat", _ufunc(ufunc, "reduceat"), array,
                             indices, axis=axis, dtype=dtype, out=out)


def segmented_reduce(ufunc, array, starts, stops, axis=0, dtype=None, out=None,
                     initial=NoValue, where=True):
    """``numreduce.segmented_reduce`` on the GPU (slice-bound semantics).

    Parameters
    ----------
    ufunc : numpy.ufunc or DeviceUFunc
        One of numreduce's multi-output ufuncs.
    array : cupy.ndarray or tuple of cupy.ndarray
        The data, on the device; a tuple ``(x, y)`` for a ufunc of two
        arrays.
    starts : cupy.ndarray of int
        Start of each segment.
    stops : cupy.ndarray of int
        End of each segment.
    axis, dtype, out, initial, where
        As for :func:`numreduce.segmented_reduce`; ``out`` arrays are CuPy arrays.

    Returns
    -------
    outs : tuple of cupy.ndarray
        As :func:`numreduce.segmented_reduce` gives them, on the device.

    See Also
    --------
    numreduce.segmented_reduce : The same function; it sends CuPy arrays here.
    """
    return _methods.segmented_reduce(_cupy, "numreduce.segmented_reduce",
                                     _ufunc(ufunc, "segmented_reduce"), array, starts, stops,
                                     axis=axis, dtype=dtype, out=out, initial=initial,
                                     where=where)


def reduce_by_group(ufunc, array, group_ids, num_groups=None, axis=0, dtype=None, out=None,
                    initial=NoValue, where=True):
    """``numreduce.reduce_by_group`` on the GPU: group ids sorted (stable),
    then one thread per output slot reduces its group's run.

    Parameters
    ----------
    ufunc : numpy.ufunc or DeviceUFunc
        One of numreduce's multi-output ufuncs.
    array : cupy.ndarray or tuple of cupy.ndarray
        The data, on the device; a tuple ``(x, y)`` for a ufunc of two
        arrays.
    group_ids : cupy.ndarray of int
        The group of each element along ``axis``.
    num_groups, axis, dtype, out, initial, where
        As for :func:`numreduce.reduce_by_group`; ``out`` arrays are CuPy arrays.

    Returns
    -------
    outs : tuple of cupy.ndarray
        As :func:`numreduce.reduce_by_group` gives them, on the device.

    See Also
    --------
    numreduce.reduce_by_group : The same function; it sends CuPy arrays here.
    """
    return _methods.reduce_by_group(_cupy, "numreduce.reduce_by_group",
                                    _ufunc(ufunc, "reduce_by_group"), array, group_ids,
                                    num_groups, axis=axis, dtype=dtype, out=out,
                                    initial=initial, where=where)


def at(ufunc, outs, indices, values):
    """``numreduce.at`` on the GPU: in place, repeated indices accumulate in
    order (the indices sorted stably, then one thread per slot steps its
    accumulators through its values); a two-source ufunc takes ``values``
    as the tuple ``(v, w)``.

    Parameters
    ----------
    ufunc : numpy.ufunc or DeviceUFunc
        One of numreduce's multi-output ufuncs.
    outs : tuple of cupy.ndarray
        The states, changed in place.
    indices : cupy.ndarray of int
        Where each value goes.
    values : cupy.ndarray, or a tuple (v, w)
        The values, on the device.

    Returns
    -------
    None
        ``outs`` are changed in place.

    See Also
    --------
    numreduce.at : The same function; it sends CuPy arrays here.
    """
    return _methods.at(_cupy, "numreduce.at", _ufunc(ufunc, "at"), outs, indices, values)


# ---------------------------------------------------------------------------
# the user functions
# ---------------------------------------------------------------------------

def minmax(a, axis=None, out=None, keepdims=False, initial=NoValue, where=True):
    """``numreduce.minmax`` on the GPU: (min, max), NaN-propagating.

    Parameters
    ----------
    a : cupy.ndarray
        The data, on the device.
    axis, out, keepdims, initial, where
        As for :func:`numreduce.minmax`; ``out`` arrays are CuPy arrays.

    Returns
    -------
    (min, max) : tuple of cupy.ndarray
        As :func:`numreduce.minmax` gives them, on the device.

    See Also
    --------
    numreduce.minmax : The same function; it sends CuPy arrays here.
    """
    return _stats.minmax(_cupy, "numreduce.minmax", a, axis=axis, out=out, keepdims=keepdims,
                         initial=initial, where=where)


def nanminmax(a, axis=None, out=None, keepdims=False, initial=NoValue, where=True):
    """``numreduce.nanminmax`` on the GPU (All-NaN slice warning as NumPy).

    Parameters
    ----------
    a : cupy.ndarray
        The data, on the device.
    axis, out, keepdims, initial, where
        As for :func:`numreduce.nanminmax`; ``out`` arrays are CuPy arrays.

    Returns
    -------
    (min, max) : tuple of cupy.ndarray
        As :func:`numreduce.nanminmax` gives them, on the device.

    See Also
    --------
    numreduce.nanminmax : The same function; it sends CuPy arrays here.
    """
    return _stats.nanminmax(_cupy, "numreduce.nanminmax", a, axis=axis, out=out,
                            keepdims=keepdims, initial=initial, where=where)


def argminmax(a, axis=None, keepdims=False, out=None):
    """``numreduce.argminmax`` on the GPU: first occurrences, first NaN wins.

    Parameters
    ----------
    a : cupy.ndarray
        The data, on the device.
    axis, keepdims, out
        As for :func:`numreduce.argminmax`; ``out`` arrays are CuPy arrays.

    Returns
    -------
    (argmin, argmax) : tuple of cupy.ndarray
        As :func:`numreduce.argminmax` gives them, on the device.

    See Also
    --------
    numreduce.argminmax : The same function; it sends CuPy arrays here.
    """
    return _stats.argminmax(_cupy, "numreduce.argminmax", a, axis=axis, keepdims=keepdims,
                            out=out)


def nanargminmax(a, axis=None, keepdims=False, out=None):
    """``numreduce.nanargminmax`` on the GPU (ValueError for an all-NaN slice).

    Parameters
    ----------
    a : cupy.ndarray
        The data, on the device.
    axis, keepdims, out
        As for :func:`numreduce.nanargminmax`; ``out`` arrays are CuPy arrays.

    Returns
    -------
    (argmin, argmax) : tuple of cupy.ndarray
        As :func:`numreduce.nanargminmax` gives them, on the device.

    See Also
    --------
    numreduce.nanargminmax : The same function; it sends CuPy arrays here.
    """
    return _stats.nanargminmax(_cupy, "numreduce.nanargminmax", a, axis=axis,
                               keepdims=keepdims, out=out)


def meanvar(a, axis=None, dtype=None, out=None, ddof=0, keepdims=False, *, where=True,
            correction=NoValue, weights=None):
    """``numreduce.meanvar`` on the GPU (float64 accumulation for float32 data;
    ``weights``: the wmoments ReductionKernel over the data and the weights).

    Parameters
    ----------
    a : cupy.ndarray
        The data, on the device.
    axis, dtype, out, ddof, keepdims, where, correction, weights
        As for :func:`numreduce.meanvar`; ``out`` arrays are CuPy arrays.

    Returns
    -------
    (mean, var) : tuple of cupy.ndarray
        As :func:`numreduce.meanvar` gives them, on the device.

    See Also
    --------
    numreduce.meanvar : The same function; it sends CuPy arrays here.
    """
    return _stats.meanvar(_cupy, "numreduce.meanvar", a, axis=axis, dtype=dtype, out=out, ddof=ddof,
                          keepdims=keepdims, where=where, correction=correction,
                          weights=weights)


def meanstd(a, axis=None, dtype=None, out=None, ddof=0, keepdims=False, *, where=True,
            correction=NoValue, weights=None):
    """``numreduce.meanstd`` on the GPU.

    Parameters
    ----------
    a : cupy.ndarray
        The data, on the device.
    axis, dtype, out, ddof, keepdims, where, correction, weights
        As for :func:`numreduce.meanstd`; ``out`` arrays are CuPy arrays.

    Returns
    -------
    (mean, std) : tuple of cupy.ndarray
        As :func:`numreduce.meanstd` gives them, on the device.

    See Also
    --------
    numreduce.meanstd : The same function; it sends CuPy arrays here.
    """
    return _stats.meanstd(_cupy, "numreduce.meanstd", a, axis=axis, dtype=dtype, out=out, ddof=ddof,
                          keepdims=keepdims, where=where, correction=correction,
                          weights=weights)


def nanmeanvar(a, axis=None, dtype=None, out=None, ddof=0, keepdims=False, *, where=True,
               correction=NoValue, weights=None):
    """``numreduce.nanmeanvar`` on the GPU.

    Parameters
    ----------
    a : cupy.ndarray
        The data, on the device.
    axis, dtype, out, ddof, keepdims, where, correction, weights
        As for :func:`numreduce.nanmeanvar`; ``out`` arrays are CuPy arrays.

    Returns
    -------
    (mean, var) : tuple of cupy.ndarray
        As :func:`numreduce.nanmeanvar` gives them, on the device.

    See Also
    --------
    numreduce.nanmeanvar : The same function; it sends CuPy arrays here.
    """
    return _stats.nanmeanvar(_cupy, "numreduce.nanmeanvar", a, axis=axis, dtype=dtype, out=out, ddof=ddof,
                             keepdims=keepdims, where=where, correction=correction,
                             weights=weights)


def logsumexp(a, axis=None, b=None, keepdims=False, return_sign=False):
    """``numreduce.logsumexp`` on the GPU: m + log1p(t) of one maxsumexp pass
    (complex data: SciPy's rules in CuPy array operations; ``b`` and
    ``return_sign``: the maxsumexpb ReductionKernel over ``a`` and ``b``).

    Parameters
    ----------
    a : cupy.ndarray
        The data, on the device.
    axis, b, keepdims, return_sign
        As for :func:`numreduce.logsumexp`.

    Returns
    -------
    res : cupy.ndarray, or (res, sign) with return_sign
        As :func:`numreduce.logsumexp` gives it, on the device.

    See Also
    --------
    numreduce.logsumexp : The same function; it sends CuPy arrays here.
    """
    return _stats.logsumexp(_cupy, "numreduce.logsumexp", a, axis=axis, b=b, keepdims=keepdims,
                            return_sign=return_sign)


def fsum(a, axis=None, dtype=None, out=None, keepdims=False, initial=NoValue, where=True):
    """``numreduce.fsum`` on the GPU: compensated (TwoSum) sum s + e; complex
    data sum their real and imaginary parts, each compensated.

    Parameters
    ----------
    a : cupy.ndarray
        The data, on the device.
    axis, dtype, out, keepdims, initial, where
        As for :func:`numreduce.fsum`; ``out`` arrays are CuPy arrays.

    Returns
    -------
    sum : cupy.ndarray
        As :func:`numreduce.fsum` gives it, on the device.

    See Also
    --------
    numreduce.fsum : The same function; it sends CuPy arrays here.
    """
    return _stats.fsum(_cupy, "numreduce.fsum", a, axis=axis, dtype=dtype, out=out,
                       keepdims=keepdims, initial=initial, where=where)


def group_minmax(a, group_ids, num_groups=None, axis=0, out=None, initial=NoValue, where=True):
    """``numreduce.group_minmax`` on the GPU.

    Parameters
    ----------
    a : cupy.ndarray
        The data, on the device.
    group_ids : cupy.ndarray of int
        The group of each element along ``axis``.
    num_groups, axis, out, initial, where
        As for :func:`numreduce.group_minmax`; ``out`` arrays are CuPy arrays.

    Returns
    -------
    (min, max) : tuple of cupy.ndarray
        As :func:`numreduce.group_minmax` gives them, on the device.

    See Also
    --------
    numreduce.group_minmax : The same function; it sends CuPy arrays here.
    """
    return _stats.group_minmax(_cupy, "numreduce.group_minmax", a, group_ids, num_groups,
                               axis=axis, out=out, initial=initial, where=where)


def group_argminmax(a, group_ids, num_groups=None):
    """``numreduce.group_argminmax`` on the GPU: each group's (min, max),
    then its first position equal to each (a NaN extreme matching the
    first NaN), both with the segments kernel.

    Parameters
    ----------
    a : cupy.ndarray
        The data, on the device.
    group_ids : cupy.ndarray of int
        The group of each element along ``axis``.
    num_groups
        As for :func:`numreduce.group_argminmax`.

    Returns
    -------
    (argmin, argmax) : tuple of cupy.ndarray
        As :func:`numreduce.group_argminmax` gives them, on the device.

    See Also
    --------
    numreduce.group_argminmax : The same function; it sends CuPy arrays here.
    """
    return _stats.group_argminmax(_cupy, "numreduce.group_argminmax", a, group_ids,
                                  num_groups)


def group_meanvar(a, group_ids, num_groups=None, axis=0, dtype=None, ddof=0, where=True,
                  weights=None):
    """``numreduce.group_meanvar`` on the GPU (complex data: the real and
    imaginary parts reduced apart, as the NumPy path; ``weights``: the
    wmoments segments kernel over the data and weights packed side by
    side).

    Parameters
    ----------
    a : cupy.ndarray
        The data, on the device.
    group_ids : cupy.ndarray of int
        The group of each element along ``axis``.
    num_groups, axis, dtype, ddof, where, weights
        As for :func:`numreduce.group_meanvar`.

    Returns
    -------
    (mean, var) : tuple of cupy.ndarray
        As :func:`numreduce.group_meanvar` gives them, on the device.

    See Also
    --------
    numreduce.group_meanvar : The same function; it sends CuPy arrays here.
    """
    return _stats.group_meanvar(_cupy, "numreduce.group_meanvar", a, group_ids, num_groups,
                                axis=axis, dtype=dtype, ddof=ddof, where=where,
                                weights=weights)


def group_logsumexp(a, group_ids, num_groups=None, axis=0):
    """``numreduce.group_logsumexp`` on the GPU.

    Parameters
    ----------
    a : cupy.ndarray
        The data, on the device.
    group_ids : cupy.ndarray of int
        The group of each element along ``axis``.
    num_groups, axis
        As for :func:`numreduce.group_logsumexp`.

    Returns
    -------
    res : cupy.ndarray
        As :func:`numreduce.group_logsumexp` gives it, on the device.

    See Also
    --------
    numreduce.group_logsumexp : The same function; it sends CuPy arrays here.
    """
    return _stats.group_logsumexp(_cupy, "numreduce.group_logsumexp", a, group_ids,
                                  num_groups, axis=axis)


def group_fsum(a, group_ids, num_groups=None, axis=0):
    """``numreduce.group_fsum`` on the GPU.

    Parameters
    ----------
    a : cupy.ndarray
        The data, on the device.
    group_ids : cupy.ndarray of int
        The group of each element along ``axis``.
    num_groups, axis
        As for :func:`numreduce.group_fsum`.

    Returns
    -------
    sum : cupy.ndarray
        As :func:`numreduce.group_fsum` gives it, on the device.

    See Also
    --------
    numreduce.group_fsum : The same function; it sends CuPy arrays here.
    """
    return _stats.group_fsum(_cupy, "numreduce.group_fsum", a, group_ids, num_groups,
                             axis=axis)


def cumminmax(x, *, axis=None, dtype=None, out=None):
    """``numreduce.cumminmax`` for CuPy arrays (accumulate(minimummaximum)).

    Parameters
    ----------
    x : cupy.ndarray
        The data, on the device.
    axis, dtype, out
        As for :func:`numreduce.cumminmax`; ``out`` arrays are CuPy arrays.

    Returns
    -------
    (min, max) : tuple of cupy.ndarray
        As :func:`numreduce.cumminmax` gives them, on the device.

    See Also
    --------
    numreduce.cumminmax : The same function; it sends CuPy arrays here.
    """
    return _stats.cumminmax(_cupy, "numreduce.cumminmax", x, axis=axis, dtype=dtype, out=out)


def nancumminmax(x, *, axis=None, dtype=None, out=None):
    """``numreduce.nancumminmax`` for CuPy arrays (accumulate(fminfmax)).

    Parameters
    ----------
    x : cupy.ndarray
        The data, on the device.
    axis, dtype, out
        As for :func:`numreduce.nancumminmax`; ``out`` arrays are CuPy arrays.

    Returns
    -------
    (min, max) : tuple of cupy.ndarray
        As :func:`numreduce.nancumminmax` gives them, on the device.

    See Also
    --------
    numreduce.nancumminmax : The same function; it sends CuPy arrays here.
    """
    return _stats.nancumminmax(_cupy, "numreduce.nancumminmax", x, axis=axis, dtype=dtype,
                               out=out)


def logcumsumexp(x, *, axis=None, dtype=None, out=None, include_initial=False):
    """``numreduce.logcumsumexp`` for CuPy arrays: accumulate(maxsumexp),
    then ``m + log1p(t)``.

    Parameters
    ----------
    x : cupy.ndarray
        The data, on the device.
    axis, dtype, out, include_initial
        As for :func:`numreduce.logcumsumexp`; ``out`` arrays are CuPy arrays.

    Returns
    -------
    res : cupy.ndarray
        As :func:`numreduce.logcumsumexp` gives it, on the device.

    See Also
    --------
    numreduce.logcumsumexp : The same function; it sends CuPy arrays here.
    """
    return _stats.logcumsumexp(_cupy, "numreduce.logcumsumexp", x, axis=axis, dtype=dtype,
                               out=out, include_initial=include_initial)


def cumfsum(x, *, axis=None, dtype=None, out=None, include_initial=False):
    """``numreduce.cumfsum`` for CuPy arrays: accumulate(twosum), then
    ``s + e`` where finite; complex data: the real and imaginary parts each
    compensated.

    Parameters
    ----------
    x : cupy.ndarray
        The data, on the device.
    axis, dtype, out, include_initial
        As for :func:`numreduce.cumfsum`; ``out`` arrays are CuPy arrays.

    Returns
    -------
    sum : cupy.ndarray
        As :func:`numreduce.cumfsum` gives it, on the device.

    See Also
    --------
    numreduce.cumfsum : The same function; it sends CuPy arrays here.
    """
    return _stats.cumfsum(_cupy, "numreduce.cumfsum", x, axis=axis, dtype=dtype, out=out,
                          include_initial=include_initial)


def cummeanvar(x, *, axis=None, dtype=None, ddof=0, out=None):
    """``numreduce.cummeanvar`` for CuPy arrays: accumulate(moments), then
    the running mean and ``M2 / (count - ddof)``; complex data: the real and
    imaginary parts apart, the variance the sum of their M2.

    Parameters
    ----------
    x : cupy.ndarray
        The data, on the device.
    axis, dtype, ddof, out
        As for :func:`numreduce.cummeanvar`; ``out`` arrays are CuPy arrays.

    Returns
    -------
    (mean, var) : tuple of cupy.ndarray
        As :func:`numreduce.cummeanvar` gives them, on the device.

    See Also
    --------
    numreduce.cummeanvar : The same function; it sends CuPy arrays here.
    """
    return _stats.cummeanvar(_cupy, "numreduce.cummeanvar", x, axis=axis, dtype=dtype,
                             ddof=ddof, out=out)


def covariance(x, y, axis=None, ddof=1, keepdims=False):
    """``numreduce.covariance`` on the GPU: the comoments ReductionKernel
    over x and y (Chan's merge of co-moments in the reduction tree).

    Parameters
    ----------
    x : cupy.ndarray
        The data, on the device.
    y : cupy.ndarray
        The second array, on the device.
    axis, ddof, keepdims
        As for :func:`numreduce.covariance`.

    Returns
    -------
    cov : cupy.ndarray
        As :func:`numreduce.covariance` gives it, on the device.

    See Also
    --------
    numreduce.covariance : The same function; it sends CuPy arrays here.
    """
    return _stats.covariance(_cupy, "numreduce.covariance", x, y, axis=axis, ddof=ddof,
                             keepdims=keepdims)


def correlation(x, y, axis=None, keepdims=False):
    """``numreduce.correlation`` on the GPU (NaN with NumPy's warning for a
    constant slice).

    Parameters
    ----------
    x : cupy.ndarray
        The data, on the device.
    y : cupy.ndarray
        The second array, on the device.
    axis, keepdims
        As for :func:`numreduce.correlation`.

    Returns
    -------
    r : cupy.ndarray
        As :func:`numreduce.correlation` gives it, on the device.

    See Also
    --------
    numreduce.correlation : The same function; it sends CuPy arrays here.
    """
    return _stats.correlation(_cupy, "numreduce.correlation", x, y, axis=axis,
                              keepdims=keepdims)


def sumprod(x, y, axis=None, keepdims=False):
    """``numreduce.sumprod`` on the GPU: the twoprod ReductionKernel (exact
    products by fma, TwoSum merges in the reduction tree).

    Parameters
    ----------
    x : cupy.ndarray
        The data, on the device.
    y : cupy.ndarray
        The second array, on the device.
    axis, keepdims
        As for :func:`numreduce.sumprod`.

    Returns
    -------
    sum : cupy.ndarray
        As :func:`numreduce.sumprod` gives it, on the device.

    See Also
    --------
    numreduce.sumprod : The same function; it sends CuPy arrays here.
    """
    return _stats.sumprod(_cupy, "numreduce.sumprod", x, y, axis=axis, keepdims=keepdims)


def describe(a, axis=0, ddof=1, bias=True, nan_policy="propagate", *, where=True,
             weights=None):
    """``numreduce.describe`` on the GPU: one summary ReductionKernel pass
    (count, extremes, mean, M2, M3, M4; Pebay's merge in the reduction tree),
    finished on the device.

    Parameters
    ----------
    a : cupy.ndarray
        The data, on the device.
    axis, ddof, bias, nan_policy, where, weights
        As for :func:`numreduce.describe` (``weights``: a CuPy array).

    Returns
    -------
    DescribeResult
        As :func:`numreduce.describe` gives it, its arrays on the device.

    See Also
    --------
    numreduce.describe : The same function; it sends CuPy arrays here.
    """
    return _stats.describe(_cupy, "numreduce.describe", a, axis=axis, ddof=ddof, bias=bias,
                           nan_policy=nan_policy, where=where, weights=weights)


def skew(a, axis=0, bias=True, nan_policy="propagate", *, keepdims=False, where=True,
         weights=None):
    """``numreduce.skew`` on the GPU (one summary ReductionKernel pass).

    Parameters
    ----------
    a : cupy.ndarray
        The data, on the device.
    axis, bias, nan_policy, keepdims, where, weights
        As for :func:`numreduce.skew`.

    Returns
    -------
    skewness : cupy.ndarray
        As :func:`numreduce.skew` gives it, on the device.

    See Also
    --------
    numreduce.skew : The same function; it sends CuPy arrays here.
    """
    return _stats.skew(_cupy, "numreduce.skew", a, axis=axis, bias=bias,
                       nan_policy=nan_policy, keepdims=keepdims, where=where, weights=weights)


def kurtosis(a, axis=0, fisher=True, bias=True, nan_policy="propagate", *, keepdims=False,
             where=True, weights=None):
    """``numreduce.kurtosis`` on the GPU (one summary ReductionKernel pass).

    Parameters
    ----------
    a : cupy.ndarray
        The data, on the device.
    axis, fisher, bias, nan_policy, keepdims, where, weights
        As for :func:`numreduce.kurtosis`.

    Returns
    -------
    kurtosis : cupy.ndarray
        As :func:`numreduce.kurtosis` gives it, on the device.

    See Also
    --------
    numreduce.kurtosis : The same function; it sends CuPy arrays here.
    """
    return _stats.kurtosis(_cupy, "numreduce.kurtosis", a, axis=axis, fisher=fisher, bias=bias,
                           nan_policy=nan_policy, keepdims=keepdims, where=where, weights=weights)


def mapreduce(f, reduction, *arrays, axis=None, keepdims=False, **options):
    """``numreduce.mapreduce`` for CuPy sources: ``f`` runs ONCE on the whole
    broadcast sources on the device, then ``reduction`` reduces that image
    there -- exactly ``reduction(f(*arrays), axis=axis, ...)``, with the
    image as one full-size device temporary (not block by block as on the
    host: docs/gpu.md).  ``reduction``: one of numreduce's (or this
    module's) user functions or ufuncs.

    Parameters
    ----------
    f : callable
        Applied to the sources, on the device.
    reduction : callable
        One of numreduce's user functions or ufuncs.
    *arrays : cupy.ndarray
        The sources of ``f``, broadcast together.
    axis, keepdims, **options
        As for :func:`numreduce.mapreduce`.

    Returns
    -------
    result : the reduction's result, on the device
        As :func:`numreduce.mapreduce` gives it, on the device.

    See Also
    --------
    numreduce.mapreduce : The same function; it sends CuPy arrays here.
    """
    if not any(is_cupy_array(x) for x in arrays):
        raise TypeError("numreduce.cupy.mapreduce: the sources must be CuPy arrays (numreduce."
                        "mapreduce takes NumPy and Dask arrays)")
    if isinstance(reduction, DeviceUFunc):
        reduction = reduction.cpu
    return _dispatch.mapreduce(f, reduction, arrays, axis, keepdims, options)


# mapreduce accepts this module's user functions as numreduce's own
for _f in (minmax, nanminmax, argminmax, nanargminmax, meanvar, meanstd, nanmeanvar,
           logsumexp, fsum):
    _f._statistic = getattr(_stats, _f.__name__)
del _f

# The functions by name (numreduce.<name> -> numreduce.cupy.<name>).
FUNCTIONS = {f.__name__: f for f in (minmax, nanminmax, argminmax, nanargminmax, meanvar,
                                     meanstd, nanmeanvar, logsumexp, fsum, reduce,
                                     accumulate, reduceat, segmented_reduce, reduce_by_group,
                                     at, group_minmax, group_meanvar, group_logsumexp,
                                     group_fsum, cumminmax, nancumminmax, logcumsumexp,
                                     cumfsum, cummeanvar, merge, group_argminmax,
                                     covariance, correlation, sumprod, mapreduce, describe,
                                     skew, kurtosis)}
