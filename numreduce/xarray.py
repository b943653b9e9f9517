"""The ``.nr`` accessor: numreduce's reductions on xarray objects.

``import numreduce.xarray`` registers ``.nr`` on ``xarray.DataArray`` and
``xarray.Dataset``::

    import numreduce.xarray
    lo, hi = da.nr.minmax(dim="time")        # two DataArrays
    mean, var = ds.nr.meanvar(dim=("x", "y"), ddof=1)   # two Datasets

Return convention: a function with several outputs returns a **tuple**, one
object per output, of the caller's type -- DataArrays (each named as the
input) for a DataArray, Datasets (the same variable names) for a Dataset --
so that ``lo, hi = obj.nr.minmax(...)`` reads the same on both.  Functions
with one output (``logsumexp``, ``fsum``) return one object.  Coordinates
that do not depend on the reduced dimensions, attributes (``keep_attrs``,
default True) and names are kept.

``dim``: a name, a sequence of names or None (every dimension, for a Dataset
every dimension of each variable); a Dataset variable reduces the given
dimensions it has.  ``skipna``: xarray's rule -- None means True for float
and complex data -- chooses the NaN-skipping function (``nanminmax``,
``nanargminmax``, ``nanmeanvar``; ``logsumexp`` and ``fsum`` skip NaNs by
leaving them out through their neutral element).

NumPy-backed objects are reduced at once, Dask-backed ones lazily (one
``dask.array.reduction`` per variable, through numreduce's Dask path), all
through ``xarray.apply_ufunc(..., dask="allowed")``.
"""

from __future__ import annotations

import numpy as np
import xarray as xr

from . import _api

__all__ = ["NumreduceDataArrayAccessor", "NumreduceDatasetAccessor"]


def _dims(obj, dim):
    if dim is None or dim is ...:
        return tuple(obj.dims)
    if isinstance(dim, str) or not np.iterable(dim):
        dim = (dim,)
    dims = tuple(dim)
    missing = [d for d in dims if d not in obj.dims]
    if missing:
        raise ValueError(f"numreduce: dimension(s) {missing} not found in the object's "
                         f"dimensions {tuple(obj.dims)}")
    return dims


def _skip(skipna, dtype):
    if skipna is None:
        return dtype.kind in "fc"
    return bool(skipna) and dtype.kind in "fcmM"


def _apply(func, var, dims, nout, keep_attrs, kwargs):
    """`func` over `dims` of one DataArray (the dims moved last by
    apply_ufunc, reduced as the trailing axes)."""
    kwargs = dict(kwargs, axis=tuple(range(-len(dims), 0)))
    return xr.apply_ufunc(func, var, input_core_dims=[list(dims)],
                          output_core_dims=[[] for _ in range(nout)], dask="allowed",
                          keep_attrs=keep_attrs, kwargs=kwargs)


def _argminmax_call(a, axis, skipna):
    # one dimension: the trailing axis
    f = _api.nanargminmax if skipna else _api.argminmax
    return f(a, axis=axis[0] if axis else None)


def _fill_call(a, axis, func, fill, skipna, **kwargs):
    if skipna and a.dtype.kind in "fc":
        from ._args import is_dask_array
        if is_dask_array(a):
            import dask.array as da
            a = da.where(da.isnan(a), fill, a)
        else:
            a = np.where(np.isnan(a), fill, a)
    return func(a, axis=axis, **kwargs)


class _Reductions:
    """The methods, shared by the DataArray and Dataset accessors."""

    def __init__(self, obj):
        self._obj = obj

    def minmax(self, dim=None, *, skipna=None, keep_attrs=True):
        """``(min, max)`` over `dim` (``nr.minmax`` / ``nr.nanminmax``)."""
        def call(var, dims):
            f = _api.nanminmax if _skip(skipna, var.dtype) else _api.minmax
            return _apply(f, var, dims, 2, keep_attrs, {})
        return self._map(dim, 2, call, keep_attrs)

    def argminmax(self, dim=None, *, skipna=None, keep_attrs=True):
        """``(argmin, argmax)`` along one dimension `dim` (positions along it,
        as ``DataArray.argmin(dim=...)``); `dim` may be omitted for 1-d data."""
        def call(var, dims):
            if len(dims) != 1:
                raise ValueError("numreduce: argminmax reduces one dimension; pass dim= "
                                 f"(the object has dimensions {tuple(var.dims)})")
            return _apply(_argminmax_call, var, dims, 2, keep_attrs,
                          {"skipna": _skip(skipna, var.dtype)})
        return self._map(dim, 2, call, keep_attrs)

    def meanvar(self, dim=None, *, skipna=None, ddof=0, dtype=None, keep_attrs=True):
        """``(mean, var)`` over `dim` (``nr.meanvar`` / ``nr.nanmeanvar``)."""
        def call(var, dims):
            f = _api.nanmeanvar if _skip(skipna, var.dtype) else _api.meanvar
            return _apply(f, var, dims, 2, keep_attrs, {"ddof": ddof, "dtype": dtype})
        return self._map(dim, 2, call, keep_attrs)

    def meanstd(self, dim=None, *, skipna=None, ddof=0, dtype=None, keep_attrs=True):
        """``(mean, std)`` over `dim`; with NaNs skipped (``skipna``) the
        standard deviation is the square root of ``nanmeanvar``'s variance."""
        def call(var, dims):
            if _skip(skipna, var.dtype):
                mean, v = _apply(_api.nanmeanvar, var, dims, 2, keep_attrs,
                                 {"ddof": ddof, "dtype": dtype})
                std = np.sqrt(v)
                if keep_attrs:
                    std.attrs = dict(var.attrs)
                return mean, std
            return _apply(_api.meanstd, var, dims, 2, keep_attrs, {"ddof": ddof, "dtype": dtype})
        return self._map(dim, 2, call, keep_attrs)

    def logsumexp(self, dim=None, *, skipna=None, keep_attrs=True):
        """``log(sum(exp(x)))`` over `dim` (NaNs left out with ``skipna``)."""
        def call(var, dims):
            return _apply(_fill_call, var, dims, 1, keep_attrs,
                          {"func": _api.logsumexp, "fill": -np.inf,
                           "skipna": _skip(skipna, var.dtype)})
        return self._map(dim, 1, call, keep_attrs)

    def fsum(self, dim=None, *, skipna=None, dtype=None, keep_attrs=True):
        """Compensated sum over `dim` (NaNs left out with ``skipna``, as
        ``DataArray.sum``)."""
        def call(var, dims):
            return _apply(_fill_call, var, dims, 1, keep_attrs,
                          {"func": _api.fsum, "fill": 0, "dtype": dtype,
                           "skipna": _skip(skipna, var.dtype)})
        return self._map(dim, 1, call, keep_attrs)


@xr.register_dataarray_accessor("nr")
class NumreduceDataArrayAccessor(_Reductions):
    """``DataArray.nr``: numreduce's reductions; see ``numreduce.xarray``."""

    def _map(self, dim, nout, call, keep_attrs):
        return call(self._obj, _dims(self._obj, dim))


@xr.register_dataset_accessor("nr")
class NumreduceDatasetAccessor(_Reductions):
    """``Dataset.nr``: numreduce's reductions of every data variable; see
    ``numreduce.xarray``."""

    def _map(self, dim, nout, call, keep_attrs):
        ds = self._obj
        dims = _dims(ds, dim)
        outs = [{} for _ in range(nout)]
        for name, var in ds.data_vars.items():
            res = call(var, tuple(d for d in dims if d in var.dims))
            res = res if nout > 1 else (res,)
            for o, r in zip(outs, res):
                o[name] = r
        attrs = dict(ds.attrs) if keep_attrs else {}
        result = tuple(xr.Dataset(o, attrs=attrs) for o in outs)
        return result if nout > 1 else result[0]
