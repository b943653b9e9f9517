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

``describe`` gives its statistics as one Dataset (variables ``count``,
``min``, ``max``, ``mean``, ``var``, ``std``, ``skew``, ``kurtosis``; a
Dataset's as ``<name>_<statistic>``), from one pass of the ``summary``
ufunc::

    stats = da.nr.describe(dim="time")       # stats["mean"], stats["skew"], ...

Grouped statistics (docs/grouped.md)::

    mean, std = ds.nr.groupby("time.month").meanstd()    # ds.groupby(...).mean(), .std()
    lo, hi = da.nr.resample(time="1MS").minmax()         # da.resample(...).min(), .max()

``obj.nr.groupby(group, **kw)`` and ``obj.nr.resample(indexer, **kw)`` take
xarray's own specs (a coordinate name, a virtual coordinate, a DataArray of
labels; ``time="1MS"``) and give ``minmax``, ``meanvar``, ``meanstd``,
``logsumexp``, ``fsum`` and ``describe`` (``skipna=``, ``keep_attrs=``, ``ddof=``) with the
result coordinate, coordinates, names and attributes of xarray's own
``groupby(...).mean()``.
"""

from __future__ import annotations

import functools
import warnings

import numpy as np
import xarray as xr

from . import _api, _core, _stats

__all__ = ["NumreduceDataArrayAccessor", "NumreduceDatasetAccessor", "NumreduceGroupBy"]


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


# describe: the statistics' names (xarray's methods of the same values, and
# numreduce's skew / kurtosis), from one pass of the summary ufunc
_DESCRIBE = ("count", "min", "max", "mean", "var", "std", "skew", "kurtosis")


def _describe_finish(rdt, data_dt, ddof, bias, exact, i, *states):
    """Output ``i`` of _DESCRIBE from the summary states (NumPy arrays):
    the statistics layer's finish of ``describe`` (SciPy's skewness and
    Fisher kurtosis, ``bias``), its warnings left out as xarray's
    reductions leave them; the variance NaN where count <= ddof, as
    xarray's; ``exact``: (min, max) of a minmax pass (64-bit integers)."""
    with np.errstate(invalid="ignore", divide="ignore"), warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)
        n, lo, hi, mean, var, skew, kurt = _stats.finish_describe(
            rdt, data_dt, ddof, bias, True, False, False, np, [states[:_core.summary.nout]])
        n, var = np.asarray(n), np.asarray(var)
        var = np.where(n - ddof <= 0, rdt.type(np.nan), var).astype(rdt, copy=False)
        if exact:
            lo, hi = states[_core.summary.nout:]
        res = (n, lo, hi, mean, var, np.sqrt(var), skew, kurt)[i]
    return np.asarray(res)


def _describe_dtypes(dt):
    rdt = _stats._summary_dtype("numreduce.xarray describe", dt)
    dt = dt.newbyteorder("=")
    return rdt, (np.dtype(np.int64), dt, dt) + (rdt,) * 5


def _describe_states(a, states, exact, ddof, bias):
    """The _DESCRIBE outputs of the summary states (and the exact extremes):
    NumPy arrays, or for Dask arrays one map_blocks per output over the
    states' one tree reduction (no further pass over the data)."""
    from ._args import is_dask_array
    rdt, dts = _describe_dtypes(a.dtype)
    data_dt = a.dtype.newbyteorder("=")
    states = tuple(states) + tuple(exact or ())
    fin = [functools.partial(_describe_finish, rdt, data_dt, ddof, bias, bool(exact), i)
           for i in range(len(_DESCRIBE))]
    if is_dask_array(a):
        import dask.array as da
        states = [da.asarray(s) for s in states]
        return tuple(da.map_blocks(f, *states, dtype=dt, meta=np.empty((0,) * states[0].ndim, dt))
                     for f, dt in zip(fin, dts + (rdt,)))
    return tuple(f(*(np.asarray(s) for s in states)) for f in fin)


def _describe_call(a, axis, skip, ddof, bias):
    """(count, min, max, mean, var, std, skew, kurtosis) over ``axis``."""
    _describe_dtypes(a.dtype)  # TypeError for data describe does not take
    ufunc = _core.nansummary if skip and a.dtype.kind == "f" else _core.summary
    states = _api.reduce(ufunc, a, axis=axis)
    exact = _api.minmax(a, axis=axis) if a.dtype.kind in "iu" and a.dtype.itemsize == 8 \
        else None
    return _describe_states(a, states, exact, ddof, bias)


def _as_dataset(results, name, in_dataset):
    """The _DESCRIBE results of one variable as data variables: the
    statistics' names (``name_stat`` in a Dataset's result)."""
    out = {}
    for stat, r in zip(_DESCRIBE, results):
        key = f"{name}_{stat}" if in_dataset else stat
        out[key] = r.rename(key)
    return out


class _Reductions:
    """The methods, shared by the DataArray and Dataset accessors."""

    def __init__(self, obj):
        self._obj = obj

    def minmax(self, dim=None, *, skipna=None, keep_attrs=True):
        """``(min, max)`` over `dim` (``nr.minmax`` / ``nr.nanminmax``).

        Parameters
        ----------
        dim : str, sequence of str or None, optional
            The dimension(s) to reduce; None (the default): every dimension.
        skipna : bool or None, optional
            Leave NaN out.  None (the default): True for float and complex
            data, as in xarray.
        keep_attrs : bool, default True
            Keep the attributes of the object (and of each variable).

        Returns
        -------
        (min, max) : tuple of DataArray or Dataset
            Of the caller's type.

        See Also
        --------
        numreduce.minmax
        numreduce.nanminmax

        Examples
        --------
        >>> import numpy as np, xarray as xr
        >>> import numreduce.xarray
        >>> da = xr.DataArray([[1., 5., 3.], [4., 2., 6.]], dims=("x", "time"))
        >>> lo, hi = da.nr.minmax(dim="time")
        >>> lo.values, hi.values
        (array([1., 2.]), array([5., 6.]))
        """
        def call(var, dims):
            f = _api.nanminmax if _skip(skipna, var.dtype) else _api.minmax
            return _apply(f, var, dims, 2, keep_attrs, {})
        return self._map(dim, 2, call, keep_attrs)

    def argminmax(self, dim=None, *, skipna=None, keep_attrs=True):
        """``(argmin, argmax)`` along one dimension `dim` (positions along it,
        as ``DataArray.argmin(dim=...)``); `dim` may be omitted for 1-d data.

        Parameters
        ----------
        dim : str, optional
            The one dimension to reduce; may be omitted for 1-d data.
        skipna : bool or None, optional
            Leave NaN out.  None (the default): True for float and complex
            data, as in xarray.
        keep_attrs : bool, default True
            Keep the attributes of the object (and of each variable).

        Returns
        -------
        (argmin, argmax) : tuple of DataArray or Dataset
            Positions along ``dim``.

        See Also
        --------
        numreduce.argminmax
        numreduce.nanargminmax

        Examples
        --------
        >>> import numpy as np, xarray as xr
        >>> import numreduce.xarray
        >>> da = xr.DataArray([[1., 5., 3.], [4., 2., 6.]], dims=("x", "time"))
        >>> i, j = da.nr.argminmax(dim="time")
        >>> i.values, j.values
        (array([0, 1]), array([1, 2]))
        """
        def call(var, dims):
            if len(dims) != 1:
                raise ValueError("numreduce: argminmax reduces one dimension; pass dim= "
                                 f"(the object has dimensions {tuple(var.dims)})")
            return _apply(_argminmax_call, var, dims, 2, keep_attrs,
                          {"skipna": _skip(skipna, var.dtype)})
        return self._map(dim, 2, call, keep_attrs)

    def meanvar(self, dim=None, *, skipna=None, ddof=0, dtype=None, keep_attrs=True):
        """``(mean, var)`` over `dim` (``nr.meanvar`` / ``nr.nanmeanvar``).

        Parameters
        ----------
        dim : str, sequence of str or None, optional
            The dimension(s) to reduce; None (the default): every dimension.
        skipna : bool or None, optional
            Leave NaN out.  None (the default): True for float and complex
            data, as in xarray.
        ddof : int, default 0
            Delta degrees of freedom of the variance.
        dtype : data-type, optional
            The accumulation and result dtype, as for the NumPy function.
        keep_attrs : bool, default True
            Keep the attributes of the object (and of each variable).

        Returns
        -------
        (mean, var) : tuple of DataArray or Dataset
            Of the caller's type.

        See Also
        --------
        numreduce.meanvar
        numreduce.nanmeanvar

        Examples
        --------
        >>> import numpy as np, xarray as xr
        >>> import numreduce.xarray
        >>> da = xr.DataArray([[1., 5., 3.], [4., 2., 6.]], dims=("x", "time"))
        >>> mean, var = da.nr.meanvar(dim="x")
        >>> mean.values, var.values
        (array([2.5, 3.5, 4.5]), array([2.25, 2.25, 2.25]))
        """
        def call(var, dims):
            f = _api.nanmeanvar if _skip(skipna, var.dtype) else _api.meanvar
            return _apply(f, var, dims, 2, keep_attrs, {"ddof": ddof, "dtype": dtype})
        return self._map(dim, 2, call, keep_attrs)

    def meanstd(self, dim=None, *, skipna=None, ddof=0, dtype=None, keep_attrs=True):
        """``(mean, std)`` over `dim`; with NaNs skipped (``skipna``) the
        standard deviation is the square root of ``nanmeanvar``'s variance.

        Parameters
        ----------
        dim : str, sequence of str or None, optional
            The dimension(s) to reduce; None (the default): every dimension.
        skipna : bool or None, optional
            Leave NaN out.  None (the default): True for float and complex
            data, as in xarray.
        ddof : int, default 0
            Delta degrees of freedom of the variance.
        dtype : data-type, optional
            The accumulation and result dtype, as for the NumPy function.
        keep_attrs : bool, default True
            Keep the attributes of the object (and of each variable).

        Returns
        -------
        (mean, std) : tuple of DataArray or Dataset
            Of the caller's type.

        See Also
        --------
        numreduce.meanstd

        Examples
        --------
        >>> import numpy as np, xarray as xr
        >>> import numreduce.xarray
        >>> da = xr.DataArray([[1., 5., 3.], [4., 2., 6.]], dims=("x", "time"))
        >>> mean, std = da.nr.meanstd()
        >>> float(mean), round(float(std), 6)
        (3.5, 1.707825)
        """
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
        """``log(sum(exp(x)))`` over `dim` (NaNs left out with ``skipna``).

        Parameters
        ----------
        dim : str, sequence of str or None, optional
            The dimension(s) to reduce; None (the default): every dimension.
        skipna : bool or None, optional
            Leave NaN out.  None (the default): True for float and complex
            data, as in xarray.
        keep_attrs : bool, default True
            Keep the attributes of the object (and of each variable).

        Returns
        -------
        res : DataArray or Dataset

        See Also
        --------
        numreduce.logsumexp

        Examples
        --------
        >>> import numpy as np, xarray as xr
        >>> import numreduce.xarray
        >>> da = xr.DataArray([[1., 5., 3.], [4., 2., 6.]], dims=("x", "time"))
        >>> da.nr.logsumexp(dim="x").values.round(6)
        array([4.048587, 5.048587, 6.048587])
        """
        def call(var, dims):
            return _apply(_fill_call, var, dims, 1, keep_attrs,
                          {"func": _api.logsumexp, "fill": -np.inf,
                           "skipna": _skip(skipna, var.dtype)})
        return self._map(dim, 1, call, keep_attrs)

    def fsum(self, dim=None, *, skipna=None, dtype=None, keep_attrs=True):
        """Compensated sum over `dim` (NaNs left out with ``skipna``, as
        ``DataArray.sum``).

        Parameters
        ----------
        dim : str, sequence of str or None, optional
            The dimension(s) to reduce; None (the default): every dimension.
        skipna : bool or None, optional
            Leave NaN out.  None (the default): True for float and complex
            data, as in xarray.
        dtype : data-type, optional
            The accumulation and result dtype, as for the NumPy function.
        keep_attrs : bool, default True
            Keep the attributes of the object (and of each variable).

        Returns
        -------
        sum : DataArray or Dataset

        See Also
        --------
        numreduce.fsum

        Examples
        --------
        >>> import numpy as np, xarray as xr
        >>> import numreduce.xarray
        >>> da = xr.DataArray([[1., 5., 3.], [4., 2., 6.]], dims=("x", "time"))
        >>> da.nr.fsum(dim="time").values
        array([ 9., 12.])
        """
        def call(var, dims):
            return _apply(_fill_call, var, dims, 1, keep_attrs,
                          {"func": _api.fsum, "fill": 0, "dtype": dtype,
                           "skipna": _skip(skipna, var.dtype)})
        return self._map(dim, 1, call, keep_attrs)

    def describe(self, dim=None, *, skipna=None, ddof=0, bias=True, keep_attrs=True):
        """Count, min, max, mean, var, std, skew and kurtosis over `dim` in
        one pass of the ``summary`` ufunc (numreduce's :func:`describe`
        statistics), as a Dataset.

        The variables are named as the xarray methods that give the same
        values (``count``, ``min``, ``max``, ``mean``, ``var``, ``std``:
        ``var(ddof=ddof)``, ``std(ddof=ddof)``) and as numreduce's
        :func:`~numreduce.skew` and :func:`~numreduce.kurtosis` (SciPy's:
        the biased sample skewness by default, ``bias=False`` its
        correction; Fisher's kurtosis, 0 for the normal distribution).  A
        Dataset's variables give ``<name>_<statistic>`` (``t2m_mean``, ...).
        ``count`` is the number of values reduced (NaN left out with
        ``skipna``); ``var`` and ``std`` are NaN where ``count <= ddof``;
        ``skew`` and ``kurtosis`` NaN for a constant slice (a variance lost
        to rounding, SciPy's rule).  ``min`` and ``max`` keep the data's
        dtype, ``count`` is int64, the others float64 (float16 and float32
        data keep their dtype).  On Dask-backed data the statistics are one
        tree reduction over the chunks (each chunk read once; 64-bit
        integers add one ``minmax`` reduction for their exact extremes).
        Quantiles are not given: they are not one-pass statistics whose
        partial results merge.

        Parameters
        ----------
        dim : str, sequence of str or None, optional
            The dimension(s) to reduce; None (the default): every dimension.
        skipna : bool or None, optional
            Leave NaN out.  None (the default): True for float data, as in
            xarray.
        ddof : int, default 0
            Delta degrees of freedom of ``var`` and ``std`` (xarray's 0).
        bias : bool, default True
            False: SciPy's bias corrections of the skewness and kurtosis.
        keep_attrs : bool, default True
            Keep the attributes of the object (and of each variable).

        Returns
        -------
        Dataset
            One data variable per statistic (per variable and statistic
            for a Dataset).

        See Also
        --------
        numreduce.describe
        numreduce.skew
        numreduce.kurtosis

        Examples
        --------
        >>> import numpy as np, xarray as xr
        >>> import numreduce.xarray
        >>> da = xr.DataArray([[1., 5., 3.], [4., 2., 9.]], dims=("x", "time"))
        >>> res = da.nr.describe(dim="time")
        >>> list(res.data_vars)
        ['count', 'min', 'max', 'mean', 'var', 'std', 'skew', 'kurtosis']
        >>> res["mean"].values, res["skew"].values.round(6)
        (array([3., 5.]), array([0.     , 0.47033]))
        """
        def call(var, dims):
            _check_dtype(var, "describe", isinstance(self._obj, xr.Dataset))
            return _apply(_describe_call, var, dims, len(_DESCRIBE), keep_attrs,
                          {"skip": _skip(skipna, var.dtype), "ddof": ddof, "bias": bool(bias)})
        return _describe_result(self._obj, self._map(dim, len(_DESCRIBE), call, keep_attrs),
                                keep_attrs)


def _describe_result(obj, res, keep_attrs):
    """The Dataset of describe's results (a tuple of objects of the
    caller's type, one per statistic)."""
    attrs = dict(obj.attrs) if keep_attrs else {}
    if isinstance(obj, xr.DataArray):
        out = _as_dataset(res, obj.name, False)
    else:
        out = {}
        for name in obj.data_vars:
            out.update(_as_dataset([r[name] for r in res], name, True))
    taken = [key for key in out if key in obj.coords]
    if taken:
        raise ValueError(f"numreduce: describe's variable name(s) {taken} are taken by "
                         "coordinates of the object; rename them first")
    return xr.Dataset(out, attrs=attrs)


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


# ---------------------------------------------------------------------------
# grouped reductions: obj.nr.groupby(group) and obj.nr.resample(indexer)
# ---------------------------------------------------------------------------
#
# xarray itself decides what the groups are: its groupby/resample runs on a
# small int8 stand-in along the grouped dimension only (the obj's coordinates
# along that dimension, no data), whose ``count()`` gives the result
# coordinate exactly as xarray names and orders it, and whose ``groups`` give
# the members of every group.  numreduce then reduces the data: the scatter
# kernels (group_minmax, group_meanvar, ...) for a general grouping, the
# segment method (reduceat) where the groups are contiguous runs (resample,
# a sorted label), the Dask grouped path for Dask-backed data.  Empty groups
# (resample bins without data) are left out of the reduction and come back
# as NaN by a reindex, as xarray gives them.


def _group_plan(obj, kind, spec, kwargs):
    """(dim, codes, template): the grouped dimension, the group of every
    element along it (-1: in no group, as NaN labels), and xarray's own
    ``count()`` of the stand-in (its coordinate is the result's)."""
    if kind == "groupby":
        group = spec
        g = obj[group] if isinstance(group, str) else group
        if not isinstance(g, xr.DataArray):
            raise TypeError("numreduce: nr.groupby takes a coordinate or variable name, a "
                            "virtual coordinate such as 'time.month', or a DataArray of "
                            f"labels; got {type(group).__name__}")
        if g.ndim != 1:
            raise NotImplementedError("numreduce: nr.groupby groups along one dimension; the "
                                      f"group has dimensions {g.dims}")
        dim = g.dims[0]
    else:
        if len(spec) != 1:
            raise ValueError("numreduce: nr.resample takes one dimension, as "
                             f"resample(time='1MS'); got {list(spec)}")
        (dim,) = spec
        if dim not in obj.dims:
            raise ValueError(f"numreduce: dimension {dim!r} not found in the object's "
                             f"dimensions {tuple(obj.dims)}")
    n = obj.sizes[dim]
    coords = {k: v.variable for k, v in obj.coords.items() if v.dims == (dim,)}
    stand_in = xr.DataArray(np.zeros(n, np.int8), dims=(dim,), coords=coords)
    if kind == "groupby":
        gb = stand_in.groupby(group, **kwargs)
    else:
        gb = stand_in.resample(spec, **kwargs)
    fast = _encoded_plan(gb, kind, dim, n)
    if fast is not None:
        return (dim, *fast)
    template = gb.count()
    (rdim,) = template.dims
    codes = np.full(n, -1, np.intp)
    groups = gb.groups
    if groups:
        keys = list(groups)
        pos = template.get_index(rdim).get_indexer(keys)
        if (pos < 0).any():
            raise RuntimeError("numreduce: a group of xarray's groupby is missing from its "
                               "result coordinate")
        for p, k in zip(pos, keys):
            codes[groups[k]] = p
    return dim, codes, template


def _encoded_plan(gb, kind, dim, n):
    """(codes, template) from the groupby's ``encoded`` groups (xarray >=
    2024.09: the codes, -1 for no group, and the result coordinates),
    without a reduction of the stand-in; None where xarray lacks them or
    they do not look as expected (then count() decides)."""
    enc = getattr(gb, "encoded", None)
    if enc is None or len(getattr(gb, "groupers", ())) != 1:
        return None
    try:
        codes = np.asarray(enc.codes.values)
        coords = enc.coords
        size = len(enc.full_index)
    except AttributeError:
        return None
    if codes.shape != (n,) or codes.dtype.kind not in "iu" or len(coords.dims) != 1:
        return None
    (rdim,) = coords.dims
    if coords.sizes[rdim] != size or (codes.size and not (-1 <= codes.min() and
                                                         codes.max() < size)):
        return None
    template = xr.DataArray(np.zeros(size, np.int8), dims=(rdim,), coords=coords)
    if kind == "resample" and rdim != dim:  # xarray's internal name of the bins
        template = template.rename({rdim: dim})
    return codes.astype(np.intp), template


def _segments(codes):
    """Start of every run of equal codes when the codes are non-decreasing
    (contiguous groups, every one present), else None."""
    if codes.size == 0 or (np.diff(codes) < 0).any():
        return None
    starts = np.flatnonzero(np.diff(codes, prepend=-1))
    return starts if starts.size == codes[-1] + 1 else None


def _nan_to(a, fill):
    from ._args import is_dask_array
    if is_dask_array(a):
        import dask.array as da
        return da.where(da.isnan(a), fill, a)
    return np.where(np.isnan(a), fill, a)


def _notnan(a):
    from ._args import is_dask_array
    if is_dask_array(a):
        import dask.array as da
        return ~da.isnan(a)
    return ~np.isnan(a)


def _group_minmax(a, codes, g, ax, skip, segs):
    from . import _core
    ufunc = _core.fminfmax if skip else _core.minimummaximum
    if segs is not None:
        return _api.reduceat(ufunc, a, segs, axis=ax)
    return _api.reduce_by_group(ufunc, a, codes, g, axis=ax)


def _group_meanvar(a, codes, g, ax, skip, segs, ddof=0, std=False):
    where = _notnan(a) if skip else True
    # an all-NaN group's NaN comes without NumPy's empty-slice warnings, as
    # from xarray's groupby (flox)
    with np.errstate(invalid="ignore", divide="ignore"), warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)
        mean, var = _api.group_meanvar(a, codes, g, axis=ax, ddof=ddof, where=where)
    return mean, (np.sqrt(var) if std else var)


def _group_fsum(a, codes, g, ax, skip, segs):
    return (_api.group_fsum(_nan_to(a, 0) if skip else a, codes, g, axis=ax),)


def _group_logsumexp(a, codes, g, ax, skip, segs):
    return (_api.group_logsumexp(_nan_to(a, -np.inf) if skip else a, codes, g, axis=ax),)


def _group_describe(a, codes, g, ax, skip, segs, ddof=0, bias=True):
    """describe's statistics per group: one reduce_by_group of the summary
    ufunc (of minimummaximum too for 64-bit integers), finished as the
    whole-dimension describe."""
    _describe_dtypes(a.dtype)
    ufunc = _core.nansummary if skip and a.dtype.kind == "f" else _core.summary
    states = _api.reduce_by_group(ufunc, a, codes, g, axis=ax)
    exact = _api.reduce_by_group(_core.minimummaximum, a, codes, g, axis=ax) \
        if a.dtype.kind in "iu" and a.dtype.itemsize == 8 else None
    return _describe_states(a, states, exact, ddof, bias)


# what xarray's own groupby computes for a variable without the grouped
# dimension (it broadcasts it along the groups): the same methods on it
_XR_METHODS = {"minmax": ("min", "max"), "meanvar": ("mean", "var"),
               "meanstd": ("mean", "std"), "fsum": ("sum",), "logsumexp": None,
               "describe": None}


def _label(var, in_dataset):
    """How an error names what it refuses: a Dataset's data variable by its
    name, a DataArray by its name where it has one."""
    if in_dataset:
        return f"data variable {var.name!r}"
    return "the DataArray" if var.name is None else f"DataArray {var.name!r}"


def _check_dtype(var, method, in_dataset):
    kinds = "biufmM" if method == "minmax" else "biuf"
    if var.dtype.kind not in kinds:
        raise TypeError(f"numreduce: {_label(var, in_dataset)} of dtype {var.dtype} cannot be "
                        f"reduced by {method} (needs bool, "
                        "integer or real floating point data"
                        + (", or datetimes)" if kinds == "biufmM" else ")"))


class NumreduceGroupBy:
    """``obj.nr.groupby(group)`` / ``obj.nr.resample(indexer)``: numreduce's
    grouped kernels over xarray's groups.  Methods: ``minmax``, ``meanvar``,
    ``meanstd``, ``logsumexp``, ``fsum``; several outputs come back as a
    tuple of objects, as the accessor's whole-dimension reductions."""

    def __init__(self, obj, kind, spec, kwargs):
        self._obj = obj
        self._kind = kind
        self._spec = spec
        self._kwargs = kwargs
        self._dim, self._codes, self._template = _group_plan(obj, kind, spec, kwargs)

    def __repr__(self):
        return (f"<numreduce {self._kind} over {self._dim!r}: "
                f"{self._template.sizes[self._template.dims[0]]} groups>")

    def _reduce_var(self, var, kernel, nout, skipna, keep_attrs, fill, kw):
        """(``var``'s dtype checked by _run, for every variable first)"""
        from ._args import is_dask_array
        dim, codes, template = self._dim, self._codes, self._template
        (rdim,) = template.dims
        counts = np.bincount(codes[codes >= 0], minlength=template.size)
        present = counts > 0
        ax = var.get_axis_num(dim)
        data = var.data
        if not isinstance(data, np.ndarray) and not is_dask_array(data):
            data = np.asarray(data)
        keep = codes >= 0
        ids = codes
        if not keep.all():
            idx = np.flatnonzero(keep)
            if isinstance(data, np.ndarray):
                data = data.take(idx, axis=ax)
            else:
                import dask.array as da
                data = da.take(data, idx, axis=ax)
            ids = codes[idx]
        remap = np.cumsum(present) - 1
        ids = remap[ids].astype(np.intp)
        g = int(present.sum())
        segs = None if is_dask_array(data) else _segments(ids)
        skip = _skip(skipna, var.dtype)
        if skip and var.dtype.kind not in "fcmM":
            skip = False  # nothing to skip in integer/bool data
        if ids.size == 0:
            raise ValueError(f"numreduce: no group has elements along {dim!r}")
        outs = kernel(data, ids, g, ax, skip, segs, **kw)
        dims = tuple(rdim if d == dim else d for d in var.dims)
        coords = {k: v.variable for k, v in var.coords.items() if dim not in v.dims}
        sub = template.isel({rdim: np.flatnonzero(present)}) if not present.all() else template
        for k, v in sub.coords.items():
            coords[k] = v.variable
        res = []
        for o in outs:
            r = xr.DataArray(o, dims=dims, coords=coords, name=var.name,
                             attrs=dict(var.attrs) if keep_attrs else {})
            if not present.all():
                r = r.reindex({rdim: template.get_index(rdim)}, fill_value=fill)
                r = r.assign_coords({k: v.variable for k, v in template.coords.items()})
            res.append(r)
        return tuple(res)

    def _xarray_own(self, sub, method, keep_attrs, kw):
        """xarray's own groupby/resample for variables without the grouped
        dimension (cheap: they have no data along it)."""
        if self._kind == "groupby":
            gb = sub.groupby(self._spec, **self._kwargs)
        else:
            gb = sub.resample(self._spec, **self._kwargs)
        names = _XR_METHODS[method]
        if names is None:
            raise TypeError(f"numreduce: {method} of data variables without the grouped "
                            f"dimension {self._dim!r} is not defined; select the variables "
                            "that have it")
        return tuple(getattr(gb, m)(keep_attrs=keep_attrs, **kw.get(m, {})) for m in names)

    def _run(self, method, kernel, nout, skipna, keep_attrs, fill, kw=None, xr_kw=None):
        kw = kw or {}
        obj = self._obj
        if isinstance(obj, xr.DataArray):
            if self._dim not in obj.dims:
                raise ValueError(f"numreduce: dimension {self._dim!r} not found in the "
                                 f"object's dimensions {tuple(obj.dims)}")
            _check_dtype(obj, method, False)
            res = self._reduce_var(obj, kernel, nout, skipna, keep_attrs, fill, kw)
            return res if nout > 1 else res[0]
        ds = obj
        outs = [{} for _ in range(nout)]
        without = [k for k, v in ds.data_vars.items() if self._dim not in v.dims]
        for name, var in ds.data_vars.items():  # every variable checked before any work
            if name not in without:
                _check_dtype(var, method, True)
        for name, var in ds.data_vars.items():
            if name in without:
                continue
            for o, r in zip(outs, self._reduce_var(var, kernel, nout, skipna, keep_attrs,
                                                   fill, kw)):
                # xarray's Dataset groupby puts the group dimension first
                o[name] = r.transpose(self._template.dims[0], ...)
        attrs = dict(ds.attrs) if keep_attrs else {}
        result = [xr.Dataset(o, attrs=attrs) for o in outs]
        if without:
            own = self._xarray_own(ds.drop_vars([k for k in ds.data_vars if k not in without]),
                                   method, keep_attrs, xr_kw or {})
            result = [r.merge(w[without], combine_attrs="override") if r.data_vars else
                      w[without] for r, w in zip(result, own)]
            for r in result:
                r.attrs = dict(attrs)
        return tuple(result) if nout > 1 else result[0]

    def minmax(self, *, skipna=None, keep_attrs=True):
        """``(min, max)`` of every group, in one pass: xarray's
        ``.min()`` and ``.max()`` of the same groupby/resample.

        Parameters
        ----------
        skipna : bool or None, optional
            Leave NaN out.  None (the default): True for float and complex
            data, as in xarray.
        keep_attrs : bool, default True
            Keep the attributes of the object (and of each variable).

        Returns
        -------
        (min, max) : tuple of DataArray or Dataset
            One value per group.

        See Also
        --------
        numreduce.group_minmax

        Examples
        --------
        >>> import xarray as xr
        >>> import numreduce.xarray
        >>> da = xr.DataArray([1., 5., 3., 4.], dims="t",
        ...                   coords={"g": ("t", ["a", "b", "a", "b"])})
        >>> lo, hi = da.nr.groupby("g").minmax()
        >>> lo.values, hi.values
        (array([1., 4.]), array([3., 5.]))
        """
        return self._run("minmax", _group_minmax, 2, skipna, keep_attrs, np.nan)

    def meanvar(self, *, skipna=None, ddof=0, keep_attrs=True):
        """``(mean, var)`` of every group, in one pass: xarray's ``.mean()``
        and ``.var(ddof=ddof)``.

        Parameters
        ----------
        skipna : bool or None, optional
            Leave NaN out.  None (the default): True for float and complex
            data, as in xarray.
        ddof : int, default 0
            Delta degrees of freedom of the variance.
        keep_attrs : bool, default True
            Keep the attributes of the object (and of each variable).

        Returns
        -------
        (mean, var) : tuple of DataArray or Dataset
            One value per group.

        See Also
        --------
        numreduce.group_meanvar

        Examples
        --------
        >>> import xarray as xr
        >>> import numreduce.xarray
        >>> da = xr.DataArray([1., 5., 3., 4.], dims="t",
        ...                   coords={"g": ("t", ["a", "b", "a", "b"])})
        >>> mean, var = da.nr.groupby("g").meanvar()
        >>> mean.values, var.values
        (array([2. , 4.5]), array([1.  , 0.25]))
        """
        return self._run("meanvar", _group_meanvar, 2, skipna, keep_attrs, np.nan,
                         {"ddof": ddof}, {"var": {"ddof": ddof}})

    def meanstd(self, *, skipna=None, ddof=0, keep_attrs=True):
        """``(mean, std)`` of every group, in one pass: xarray's ``.mean()``
        and ``.std(ddof=ddof)``.

        Parameters
        ----------
        skipna : bool or None, optional
            Leave NaN out.  None (the default): True for float and complex
            data, as in xarray.
        ddof : int, default 0
            Delta degrees of freedom of the variance.
        keep_attrs : bool, default True
            Keep the attributes of the object (and of each variable).

        Returns
        -------
        (mean, std) : tuple of DataArray or Dataset
            One value per group.

        See Also
        --------
        numreduce.group_meanvar

        Examples
        --------
        >>> import xarray as xr
        >>> import numreduce.xarray
        >>> da = xr.DataArray([1., 5., 3., 4.], dims="t",
        ...                   coords={"g": ("t", ["a", "b", "a", "b"])})
        >>> mean, std = da.nr.groupby("g").meanstd(ddof=1)
        >>> mean.values, std.values.round(6)
        (array([2. , 4.5]), array([1.414214, 0.707107]))
        """
        return self._run("meanstd", _group_meanvar, 2, skipna, keep_attrs, np.nan,
                         {"ddof": ddof, "std": True}, {"std": {"ddof": ddof}})

    def logsumexp(self, *, skipna=None, keep_attrs=True):
        """``log(sum(exp(x)))`` of every group (NaNs left out with
        ``skipna``); an empty resample bin gives NaN, as xarray's ``sum``.

        Parameters
        ----------
        skipna : bool or None, optional
            Leave NaN out.  None (the default): True for float and complex
            data, as in xarray.
        keep_attrs : bool, default True
            Keep the attributes of the object (and of each variable).

        Returns
        -------
        res : DataArray or Dataset
            One value per group.

        See Also
        --------
        numreduce.group_logsumexp

        Examples
        --------
        >>> import xarray as xr
        >>> import numreduce.xarray
        >>> da = xr.DataArray([1., 5., 3., 4.], dims="t",
        ...                   coords={"g": ("t", ["a", "b", "a", "b"])})
        >>> da.nr.groupby("g").logsumexp().values.round(6)
        array([3.126928, 5.313262])
        """
        return self._run("logsumexp", _group_logsumexp, 1, skipna, keep_attrs, np.nan)

    def fsum(self, *, skipna=None, keep_attrs=True):
        """Compensated sum of every group (NaNs left out with ``skipna``):
        xarray's ``.sum()``; an empty resample bin gives NaN, as xarray's.

        Parameters
        ----------
        skipna : bool or None, optional
            Leave NaN out.  None (the default): True for float and complex
            data, as in xarray.
        keep_attrs : bool, default True
            Keep the attributes of the object (and of each variable).

        Returns
        -------
        sum : DataArray or Dataset
            One value per group.

        See Also
        --------
        numreduce.group_fsum

        Examples
        --------
        >>> import xarray as xr
        >>> import numreduce.xarray
        >>> da = xr.DataArray([1., 5., 3., 4.], dims="t",
        ...                   coords={"g": ("t", ["a", "b", "a", "b"])})
        >>> da.nr.groupby("g").fsum().values
        array([4., 9.])
        """
        return self._run("fsum", _group_fsum, 1, skipna, keep_attrs, np.nan)

    def describe(self, *, skipna=None, ddof=0, bias=True, keep_attrs=True):
        """Count, min, max, mean, var, std, skew and kurtosis of every group
        in one pass of the ``summary`` ufunc (``reduce_by_group``), as a
        Dataset named as the accessor's whole-dimension ``describe``
        (``<name>_<statistic>`` for a Dataset's variables).  An empty
        resample bin gives NaN, its count too (float64 then), as xarray's
        ``count()`` of the same resample.

        Parameters
        ----------
        skipna : bool or None, optional
            Leave NaN out.  None (the default): True for float data, as in
            xarray.
        ddof : int, default 0
            Delta degrees of freedom of ``var`` and ``std``.
        bias : bool, default True
            False: SciPy's bias corrections of the skewness and kurtosis.
        keep_attrs : bool, default True
            Keep the attributes of the object (and of each variable).

        Returns
        -------
        Dataset
            One data variable per statistic, one value per group.

        See Also
        --------
        numreduce.describe
        numreduce.reduce_by_group

        Examples
        --------
        >>> import xarray as xr
        >>> import numreduce.xarray
        >>> da = xr.DataArray([1., 5., 3., 4., 2., 9.], dims="t",
        ...                   coords={"g": ("t", ["a", "b", "a", "b", "a", "b"])})
        >>> res = da.nr.groupby("g").describe()
        >>> res["count"].values, res["mean"].values, res["skew"].values.round(6)
        (array([3, 3]), array([2., 6.]), array([0.     , 0.59517]))
        """
        res = self._run("describe", _group_describe, len(_DESCRIBE), skipna, keep_attrs,
                        np.nan, {"ddof": ddof, "bias": bool(bias)})
        return _describe_result(self._obj, res, keep_attrs)


_GroupedReductions = NumreduceGroupBy  # its former name


def _groupby(self, group, **kwargs):
    """Grouped reductions over xarray's groups: ``group`` as for
    ``obj.groupby`` (a coordinate name, a virtual coordinate such as
    ``'time.month'``, a DataArray of labels); keyword arguments pass through
    to xarray's groupby (``squeeze``, ``restore_coord_dims``, ...).

    Parameters
    ----------
    group : str or DataArray
        As for ``obj.groupby``: a coordinate name, a virtual
        coordinate such as ``'time.month'``, a DataArray of labels.
    **kwargs
        Passed to xarray's ``groupby``.

    Returns
    -------
    grouped : NumreduceGroupBy
        Its methods reduce each group.

    See Also
    --------
    NumreduceGroupBy

    Examples
    --------
    >>> import xarray as xr
    >>> import numreduce.xarray
    >>> da = xr.DataArray([1., 5., 3., 4.], dims="t",
    ...                   coords={"g": ("t", ["a", "b", "a", "b"])})
    >>> lo, hi = da.nr.groupby("g").minmax()
    >>> lo.values, hi.values
    (array([1., 4.]), array([3., 5.]))
    """
    return _GroupedReductions(self._obj, "groupby", group, kwargs)


def _resample(self, indexer=None, **kwargs):
    """Grouped reductions over xarray's resample bins: ``obj.nr.resample(
    time='1MS')`` as ``obj.resample(time='1MS')``; other keywords
    (``closed``, ``label``, ``offset``, ...) pass through to xarray.

    Parameters
    ----------
    indexer : dict, optional
        ``{dimension: frequency}``, as for ``obj.resample``; or
        give it as keywords (``time='1MS'``).
    **kwargs
        The frequency keywords, and ``closed``, ``label``, ``offset``, ...
        passed to xarray's ``resample``.

    Returns
    -------
    grouped : NumreduceGroupBy
        Its methods reduce each bin.

    See Also
    --------
    NumreduceGroupBy

    Examples
    --------
    >>> import numpy as np, pandas as pd, xarray as xr
    >>> import numreduce.xarray
    >>> time = pd.date_range("2024-01-30", periods=6, freq="D")
    >>> da = xr.DataArray(np.arange(6.), dims="time", coords={"time": time})
    >>> lo, hi = da.nr.resample(time="1MS").minmax()
    >>> lo.values, hi.values
    (array([0., 2.]), array([1., 5.]))
    """
    spec = dict(indexer or {})
    opts = {}
    for k, v in kwargs.items():
        if k in ("closed", "label", "offset", "origin", "skipna", "restore_coord_dims",
                 "base", "loffset"):
            opts[k] = v
        else:
            spec[k] = v
    return _GroupedReductions(self._obj, "resample", spec, opts)


_Reductions.groupby = _groupby
_Reductions.resample = _resample
