"""The ``.nr`` accessor on pandas Series and DataFrames.

``import numreduce.pandas`` registers ``.nr`` on ``pandas.Series`` and
``pandas.DataFrame`` (``import numreduce`` alone never imports pandas)::

    import numreduce.pandas
    df.nr.groupby("key").meanvar(ddof=1)     # as df.groupby("key").agg(["mean", "var"])
    df.nr.groupby(["a", "b"]).minmax()       # as .agg(["min", "max"])
    df.nr.groupby("key").argminmax()         # as .agg(["idxmin", "idxmax"]): index labels
    df.nr.meanvar()                          # as df.agg(["mean", "var"])
    df.nr.describe()                         # describe() less quartiles, plus skew, kurt
    df.nr.groupby("key").describe()          # as df.groupby("key").describe(), the same

pandas decides the groups (``df.groupby(by, sort=, dropna=, observed=)``
with every key pandas takes: column names, a list of them, a Series, ...):
numreduce reduces every numeric column in one pass of its grouped kernels
(``group_minmax``, ``group_meanvar``, ``group_fsum``, ``group_logsumexp``,
``group_argminmax``; ``describe``: ``reduce_by_group`` of ``nansummary``),
one 1-d stream per column (the kernels' fastest
path).  One integer key column skips pandas' hash factorization of every
row (the codes are the key's values less the smallest).  Results are
DataFrames shaped as ``groupby(by).agg([...])`` shapes them: columns
``(column, statistic)``, the group index as pandas builds it (sorted by
default; ``sort=False``: order of first appearance), the grouping columns
left out.  A Series gives a DataFrame with the statistics as columns.
The whole-column reductions (``df.nr.meanvar()``) run the whole-array
functions on each column (the same ufuncs, no group codes).

NaN handling is pandas' ``skipna=True`` default: NaN (NaT) is left out; a
group without values gives NaN (``fsum``: 0, as ``sum``; ``argminmax``: the
ValueError pandas' ``idxmin`` raises), as does the variance of a group of
at most ``ddof`` values.  Nullable dtypes (``Float32``/``Float64``,
``Int8`` .. ``UInt64``, ``boolean``) are reduced with their mask as
``where`` by every method (``<NA>`` left out, as pandas' ``skipna``) and
give nullable results with ``<NA>`` where pandas has it, in pandas' dtypes
(``df.min()``: the column's; ``df.mean()``: ``Float32`` of ``Float32``,
else ``Float64``; ``fsum``: ``Float32``/``Float64`` of floats, ``Float64``
of integers and booleans, as float64 for NumPy integer columns).  An empty
column gives pandas' empty reductions (NaN or ``<NA>``, a sum of 0,
``logsumexp`` -inf; ``argminmax``: pandas' ValueError).  Duplicate column
names are kept, each column reduced (columns are taken by position).  A
column that is not numeric (strings, objects) raises a TypeError naming
it; datetime and timedelta columns are reduced by ``minmax`` and
``argminmax`` only.
"""

from __future__ import annotations

import warnings

import numpy as np
import pandas as pd

from . import _api, _core, _stats

__all__ = ["NumreduceDataFrameAccessor", "NumreduceSeriesAccessor", "NumreduceGroupBy"]

_STATS = {"minmax": ("min", "max"), "meanvar": ("mean", "var"), "meanstd": ("mean", "std"),
          "fsum": ("sum",), "logsumexp": ("logsumexp",), "argminmax": ("idxmin", "idxmax"),
          "describe": ("count", "mean", "std", "min", "max", "skew", "kurt")}

# statistics that are a number for a group without values (0, -inf), not NaN / <NA>
_EMPTY_DEFINED = ("sum", "logsumexp", "count")


def _describable(values):
    """Whether ``describe`` takes the column without being asked for it:
    pandas' ``describe()`` default, numeric columns that are not bool
    (NumPy or nullable)."""
    dtype = values.dtype
    return pd.api.types.is_numeric_dtype(dtype) and not pd.api.types.is_bool_dtype(dtype)


def _column(name, values, method):
    """(data ndarray, valid mask or None, nullable dtype or None) of one
    column; TypeError for data the method does not reduce."""
    if isinstance(values, pd.arrays.NumpyExtensionArray):
        values = values.to_numpy()
    dtype = values.dtype
    if method == "describe" and pd.api.types.is_bool_dtype(dtype):
        raise TypeError(f"numreduce: column {name!r} of dtype {dtype} is not described "
                        "(pandas' describe() leaves bool columns out of the numeric "
                        "statistics); select numeric columns")
    if isinstance(values, (pd.arrays.IntegerArray, pd.arrays.FloatingArray,
                           pd.arrays.BooleanArray)):
        # a masked (nullable) array: Float32/64, (U)Int8..64, boolean.  The
        # mask is the one rule every method follows (``valid``: its where,
        # count and filler); the data under it is never a value: NaN for
        # floats (a path that read it would skip or propagate it, not count
        # it), 0 for integers and booleans (which no path reads unmasked)
        npdt = dtype.numpy_dtype
        valid = ~np.asarray(values.isna())
        data = values.to_numpy(dtype=npdt, na_value=np.nan if npdt.kind == "f" else npdt.type(0))
        if npdt.kind == "f":
            valid &= ~np.isnan(data)
        return data, valid, dtype
    if isinstance(dtype, np.dtype):
        data = np.asarray(values)
        kind = dtype.kind
        if kind in "biuf":
            # a float column's NaN mask: argminmax only, where the column has
            # NaNs (minmax: fminfmax skips NaNs and gives NaN for a group of
            # NaNs only; the others look for NaN in their results, see
            # _reduce_block)
            if kind == "f" and method == "argminmax" and np.isnan(data).any():
                return data, ~np.isnan(data), None
            return data, None, None
        if kind in "mM" and method in ("minmax", "argminmax"):
            nat = np.isnat(data)
            return data, (~nat if nat.any() else None), None
    if isinstance(dtype, pd.DatetimeTZDtype) and method in ("minmax", "argminmax"):
        raise TypeError(f"numreduce: column {name!r}: timezone-aware datetimes are not "
                        "supported; reduce the column's .dt.tz_convert(None)")
    raise TypeError(f"numreduce: column {name!r} of dtype {dtype} cannot be reduced by "
                    f"{method} (needs bool, integer or floating point data"
                    + (", or datetimes" if method in ("minmax", "argminmax") else "") + ")")


def _minmax_initial(dt):
    if dt.kind == "f":
        return (np.inf, -np.inf)
    if dt.kind in "iu":
        info = np.iinfo(dt)
        return (info.max, info.min)
    if dt.kind == "b":
        return (True, False)
    if dt.kind in "mM":
        info = np.iinfo(np.int64)
        unit = np.datetime_data(dt)
        return (dt.type(info.max, unit[0]), dt.type(info.min + 1, unit[0]))
    raise TypeError(f"numreduce: unsupported dtype {dt}")


def _reduce_block(method, data, valid, ids, g, ddof):
    """The statistics of one column (1-d: the grouped kernels' fastest
    stream) per group: a list of arrays of shape (g,), and the count of
    valid values per group (None: every value valid).  ``ids`` None: the
    whole column is the one group (``g`` 1), reduced by the whole-array
    functions (the same ufuncs and finishes, no scatter).

    A float column without a mask is first reduced as it is: NaN propagates
    through the moments, the compensated sum and logsumexp, so a result
    without NaN proves the groups had none (no scan of the data); where a
    result is NaN the column is reduced again with its NaNs masked."""
    if valid is None and method not in ("minmax", "describe") and data.dtype.kind == "f":
        outs, count = _reduce_block(method, data, False, ids, g, ddof)
        # (the first output: a mean is NaN only where its group has a NaN;
        # a variance also where count <= ddof)
        if not np.isnan(outs[0]).any():
            return outs, count
        valid = ~np.isnan(data)
        if valid.all():  # NaN from the data's values (inf - inf), not from NaNs
            return outs, count
    elif valid is False:
        valid = None
    whole = ids is None
    if whole and data.size == 0:
        # an empty column: as one value masked out (pandas' empty
        # reductions: NaN / <NA>, a sum of 0, logsumexp -inf)
        data, valid = np.zeros(1, data.dtype), np.zeros(1, bool)

    def one(res):  # a whole-array result as the one group's
        return [np.reshape(r, (1,)) for r in res] if isinstance(res, tuple) \
            else [np.reshape(res, (1,))]

    def ufunc_outs(ufunc, **kw):
        if whole:
            return one(_api.reduce(ufunc, data, axis=None, **kw))
        return list(_api.reduce_by_group(ufunc, data, ids, g, **kw))

    if method == "describe":
        # one pass of the summary ufunc (NaN-skipping for floats), finished
        # by the statistics layer's describe (SciPy's bias=False skewness and
        # Fisher kurtosis: pandas' G1 and G2), then pandas' rules
        ufunc = _core.nansummary if data.dtype.kind == "f" else _core.summary
        where = True if valid is None else valid
        states = tuple(ufunc_outs(ufunc, where=where))
        f64 = np.dtype(np.float64)
        with np.errstate(invalid="ignore", divide="ignore"), warnings.catch_warnings():
            warnings.simplefilter("ignore", RuntimeWarning)
            n, lo, hi, mean, var, skew, kurt = _stats.finish_describe(
                f64, f64, 1, False, True, False, False, np, [states])
        # pandas: NaN std of fewer than 2 values (the empty one's -0.0 too),
        # NaN skew of fewer than 3 and kurt of fewer than 4 (SciPy keeps
        # the biased value there)
        std = np.where(n < 2, np.nan, np.sqrt(np.maximum(var, 0)))
        skew = np.where(n < 3, np.nan, skew)
        kurt = np.where(n < 4, np.nan, kurt)
        count = n.astype(np.float64)
        return [count, mean, std, lo, hi, skew, kurt], count
    count = None
    if valid is not None:
        count = np.array([np.count_nonzero(valid)], np.float64) if whole else \
            np.bincount(ids, weights=valid, minlength=g)
    if method == "minmax":
        # floats: NaN-skipping (a group of NaNs only gives NaN); a mask
        # (nullable <NA>, NaT) as where, with the extremes' identities (a
        # group without values is set apart by its count of 0)
        ufunc = _core.fminfmax if data.dtype.kind == "f" else _core.minimummaximum
        if valid is None:
            return ufunc_outs(ufunc), count
        return ufunc_outs(ufunc, initial=_minmax_initial(data.dtype), where=valid), count
    if method in ("meanvar", "meanstd"):
        with np.errstate(invalid="ignore", divide="ignore"), warnings.catch_warnings():
            warnings.simplefilter("ignore", RuntimeWarning)
            where = True if valid is None else valid
            if whole:
                mean, var = one(_api.meanvar(data, ddof=ddof, where=where))
            else:
                mean, var = _api.group_meanvar(data, ids, g, ddof=ddof, where=where)
            if ddof > 1:
                # a group of count <= ddof values: NaN, as pandas (the
                # kernels divide by max(count - ddof, 0): inf where M2 > 0);
                # with ddof <= 1 that is a group of at most one value, whose
                # variance is 0/0 already
                n = count if count is not None else np.array([data.size]) if whole \
                    else np.bincount(ids, minlength=g)
                var = np.where(n <= ddof, np.nan, var)
            return [mean, np.sqrt(var) if method == "meanstd" else var], count
    if method == "fsum":
        if valid is not None:
            data = np.where(valid, data, 0)
        return (one(_api.fsum(data)) if whole else [_api.group_fsum(data, ids, g)]), count
    if method == "logsumexp":
        if valid is not None:
            data = np.where(valid, data, -np.inf)
        return (one(_api.logsumexp(data)) if whole else [_api.group_logsumexp(data, ids, g)]), \
            count
    raise AssertionError(method)


def _row_of(data):
    """(the C-contiguous 2-d array whose row ``data`` is, the row) or None."""
    base = data.base
    if not (isinstance(base, np.ndarray) and base.ndim == 2 and base.flags.c_contiguous
            and data.ndim == 1 and data.dtype == base.dtype
            and data.strides == (data.itemsize,) and base.shape[1] == data.size > 0):
        return None
    off = data.__array_interface__["data"][0] - base.__array_interface__["data"][0]
    if off < 0 or off % base.strides[0]:
        return None
    row = off // base.strides[0]
    return (base, row) if row < base.shape[0] else None


def _row_runs(prepared, method):
    """Runs of at least two float columns without masks whose data are
    consecutive rows of one C-contiguous 2-d array (pandas' consolidated
    block: the columns of ``DataFrame({...})``): (their positions in
    ``prepared``, the (rows, n) view, no copy), for one grouped pass over
    them all."""
    if method not in ("minmax", "meanvar", "meanstd"):
        return []
    runs, cur = [], None
    for pos, (_, data, valid, nullable) in enumerate(prepared):
        at = _row_of(data) if valid is None and nullable is None and \
            data.dtype.kind == "f" else None
        if at is not None and cur is not None and at[0] is cur[1] and at[1] == cur[3]:
            cur[0].append(pos)
            cur[3] += 1
        else:
            if cur is not None and len(cur[0]) > 1:
                runs.append((cur[0], cur[1][cur[2]:cur[3]]))
            cur = None if at is None else [[pos], at[0], at[1], at[1] + 1]
    if cur is not None and len(cur[0]) > 1:
        runs.append((cur[0], cur[1][cur[2]:cur[3]]))
    return runs


def _reduce_rows(method, block, ids, g, ddof):
    """_reduce_block of each row of the float (rows, n) ``block`` (no
    masks), grouped by ``ids``: one pass of the grouped kernel over all
    rows (each row's result bitwise its own pass's), a row whose means hold
    a NaN redone alone as _reduce_block does it."""
    if method == "minmax":
        lo, hi = _api.reduce_by_group(_core.fminfmax, block, ids, g, axis=1)
        return [([lo[r], hi[r]], None) for r in range(block.shape[0])]
    with np.errstate(invalid="ignore", divide="ignore"), warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)
        mean, var = _api.group_meanvar(block, ids, g, axis=1, ddof=ddof)
        if ddof > 1:  # as _reduce_block
            var = np.where(np.bincount(ids, minlength=g) <= ddof, np.nan, var)
        if method == "meanstd":
            var = np.sqrt(var)
    res = []
    for r in range(block.shape[0]):
        if np.isnan(mean[r]).any():
            res.append(_reduce_block(method, block[r], None, ids, g, ddof))
        else:
            res.append(([mean[r], var[r]], None))
    return res


def _argminmax_column(name, data, valid, ids, g, index):
    """(idxmin, idxmax) labels of one column per group; pandas' ValueError
    for a group without values."""
    if valid is not None and not valid.all():
        if data.dtype.kind in "mM":
            i64 = data.view(np.int64)
            lo = np.where(valid, i64, np.iinfo(np.int64).max)
            hi = np.where(valid, i64, np.iinfo(np.int64).min)
        else:
            big = _minmax_initial(data.dtype)
            lo = np.where(valid, data, big[0])
            hi = np.where(valid, data, big[1])
        cnt = np.bincount(ids, weights=valid, minlength=g)
        if (cnt == 0).any():
            raise ValueError("idxmin with skipna=True encountered all NA values in a group.")
        imin = _api.group_argminmax(lo, ids, g)[0]
        imax = _api.group_argminmax(hi, ids, g)[1]
        # a group whose extreme is the filler's value (+-inf, the integer
        # limit) may have picked an invalid position first: the first valid
        # position holding that value instead
        for res in (imin, imax):
            bad = np.flatnonzero(~valid[res])
            for j in bad:
                members = np.flatnonzero((ids == j) & valid)
                vals = data[members]
                res[j] = members[np.argmin(vals) if res is imin else np.argmax(vals)]
    else:
        if data.dtype.kind in "mM":
            data = data.view(np.int64)
        imin, imax = _api.group_argminmax(data, ids, g)
    return [np.asarray(index[imin]), np.asarray(index[imax])]


_NULLABLE_KINDS = {"f": "Float", "i": "Int", "u": "UInt"}


def _nullable_result(arr, count, stat):
    """A nullable column's result: the kernels' result (of the column's
    NumPy data: min/max its dtype, mean/var/std Float32 of Float32 data,
    else Float64, as pandas gives them; ``fsum`` Float32/Float64 of floats,
    Float64 of integers and booleans) as the nullable dtype of that kind,
    <NA> where the group had no values (``sum``/``logsumexp``: 0 / -inf,
    the empty sum's) or the statistic is NaN (pandas' NaN of a masked
    array is <NA>)."""
    mask = np.isnan(arr) if arr.dtype.kind == "f" else np.zeros(arr.shape, bool)
    if count is not None and stat not in _EMPTY_DEFINED:
        mask |= count == 0
    kind = arr.dtype.kind
    dtype = pd.BooleanDtype() if kind == "b" else \
        pd.api.types.pandas_dtype(f"{_NULLABLE_KINDS[kind]}{8 * arr.dtype.itemsize}")
    values = np.where(mask, arr.dtype.type(0), arr) if mask.any() else arr
    return dtype.construct_array_type()(values, mask)


def _fix_empty(arr, count, stat):
    """NaN (pandas' result) where a group had no values; ``sum``: 0."""
    if count is None or stat in _EMPTY_DEFINED or not (count == 0).any():
        return arr
    if arr.dtype.kind in "mM":
        return np.where(count == 0, arr.dtype.type("NaT"), arr)
    return np.where(count == 0, np.nan, arr)


def _grouper_codes(gb, index, observed):
    """The group of every row (-1: in no group), numbered by the observed
    groups of ``index`` (``gb.size()``'s), from the codes pandas' groupby
    computed already (``result_index_and_ids`` of its grouper, pandas >=
    2.2); None where that is not available or not numbered by ``index``.
    (``gb.ngroup()`` gives the same numbers, but ranks the codes of
    categorical keys with a sort of every row.)"""
    grouper = getattr(gb, "_grouper", None)
    try:
        rindex, ids = grouper.result_index_and_ids
    except (AttributeError, TypeError, ValueError):  # another pandas: ngroup()
        return None
    ids = np.asarray(ids)
    if ids.dtype.kind not in "iu" or ids.ndim != 1 or not rindex.equals(index):
        return None
    ids = ids.astype(np.intp, copy=False)
    if observed.size == len(index):
        return ids
    # unobserved groups (categories without rows): renumber by the observed
    # ones; -1 (rows in no group) indexes the extra last slot, -1 too
    remap = np.full(len(index) + 1, -1, np.intp)
    remap[observed] = np.arange(observed.size)
    return remap[ids]


def _present(off, span):
    """Which of the offsets ``0 .. span-1`` occur in ``off`` (a bool array of
    length ``span``), and the length of the prefix of ``off`` that holds
    every one of them.  Marked in chunks of doubling size, stopping as soon
    as every offset has been seen (the rest of ``off`` cannot add any): for
    dense keys (each value in many rows) a small prefix decides, not a pass
    over every row; otherwise the whole array is marked."""
    present = np.zeros(span, bool)
    n = off.size
    start, step = 0, max(4 * span, 1 << 16)
    while start < n:
        stop = min(n, start + step)
        present[off[start:stop]] = True
        start, step = stop, 2 * step
        if start < n and present.all():
            break
    return present, start


def _describe_columns(obj, sel, cols):
    """The columns ``describe`` reduces: without a selection, the numeric
    columns that are not bool (pandas' describe() default: others are left
    out); a selection or a Series is taken as it is (a column that is not
    numeric, or bool, raises TypeError in _column).  TypeError where no
    column is left."""
    if sel is None and isinstance(obj, pd.DataFrame):
        cols = [(name, values) for name, values in cols if _describable(values)]
        if not cols:
            raise TypeError("numreduce: describe found no numeric column to describe "
                            "(bool, string, datetime and object columns are left out, "
                            "as by pandas' describe())")
    return cols


class _Exclude:
    """Stands for the groupby object of the integer-key plan: the key column
    it leaves out of the result."""

    def __init__(self, key):
        self.exclusions = {key}


class NumreduceGroupBy:
    """``obj.nr.groupby(by, ...)``: pandas' groups, numreduce's kernels."""

    def __init__(self, obj, by, kwargs, selection=None):
        self._obj = obj
        self._by = by
        self._kwargs = kwargs
        self._selection = selection
        self._plan = None

    def __getitem__(self, key):
        """Column selection, as ``df.groupby(by)[key]``.

        Parameters
        ----------
        key : label or list of labels
            The column(s) to reduce.

        Returns
        -------
        grouped : NumreduceGroupBy

        See Also
        --------
        NumreduceGroupBy.minmax

        Examples
        --------
        >>> import pandas as pd
        >>> import numreduce.pandas
        >>> df = pd.DataFrame({"key": [1, 1, 2, 2], "v": [1., 3., 5., 9.]})
        >>> df.nr.groupby("key")["v"].minmax()
             min  max
        key          
        1    1.0  3.0
        2    5.0  9.0
        """
        return _Grouped(self._obj, self._by, self._kwargs, key)

    def _groups(self):
        """(codes of the observed groups per row, -1 for rows in no group;
        number of observed groups; pandas' result index; positions of the
        observed groups in it; the pandas groupby object)."""
        if self._plan is not None:
            return self._plan
        kw = dict(self._kwargs)
        kw.setdefault("observed", True)
        fast = self._int_key(kw)
        if fast is not None:
            self._plan = fast
            return fast
        gb = self._obj.groupby(self._by, **kw)
        size = gb.size()
        if isinstance(size, pd.DataFrame):  # as_index=False
            raise TypeError("numreduce: nr.groupby does not take as_index=False; "
                            "reset the result's index instead")
        sizes = size.to_numpy()
        observed = np.flatnonzero(sizes > 0)
        g = observed.size
        codes = _grouper_codes(gb, size.index, observed)
        if codes is None:
            ng = gb.ngroup()
            codes = ng.to_numpy(dtype=np.float64, na_value=-1.0) if ng.dtype.kind == "f" or \
                isinstance(ng.dtype, pd.api.extensions.ExtensionDtype) else ng.to_numpy()
            codes = np.asarray(codes).astype(np.intp, copy=False)
        # pandas' numbering checked against its group sizes (a cheap guard
        # against a silent mix-up of groups)
        counts = np.bincount(codes[codes >= 0] if (codes < 0).any() else codes, minlength=g)
        if counts.size != g or not np.array_equal(counts, sizes[observed]):
            raise RuntimeError("numreduce: pandas' group numbering does not match its group "
                               "sizes; please report this with your pandas version")
        self._plan = (codes, g, size.index, observed, gb)
        return self._plan

    def _int_key(self, kw):
        """The plan without pandas' hash factorization of every row for the
        common case of one integer column key with dense values.  Sorted
        groups: the codes are the values' offsets from the smallest,
        renumbered only where some value in between is absent, the result
        index the values present.  ``sort=False``: the groups in order of
        first appearance, from the prefix of rows that holds every value
        (``pd.unique`` of it), the codes the offsets' ranks in that order."""
        obj, by = self._obj, self._by
        if not (isinstance(obj, pd.DataFrame) and isinstance(by, str)
                and "level" not in kw and by in obj.columns and obj.columns.is_unique
                and by not in obj.index.names):
            return None
        key = obj[by].array
        if not isinstance(key, pd.arrays.NumpyExtensionArray) or key.dtype.kind not in "iu":
            return None
        k = key.to_numpy()
        if k.size == 0:
            return None
        lo, hi = _api.minmax(k)
        span = int(hi) - int(lo) + 1
        if span > 4 * k.size + 1024:
            return None
        if lo == 0 and k.dtype == np.intp:
            off = k  # the values are the offsets: no copy
        else:
            off = np.subtract(k, lo, dtype=np.intp)
        present, seen = _present(off, span)
        if not kw.get("sort", True):
            order = np.asarray(pd.unique(off[:seen]), dtype=np.intp)  # order of appearance
            rank = np.full(span, -1, np.intp)
            rank[order] = np.arange(order.size)
            values = (order + lo).astype(k.dtype)
            codes = rank[off]
        else:
            values = (np.flatnonzero(present) + lo).astype(k.dtype)
            if values.size == span:  # every value in [lo, hi] present: the offsets are the codes
                codes = off
            else:
                codes = (np.cumsum(present, dtype=np.intp) - 1)[off]
        index = pd.Index(values, name=by)
        return (codes, values.size, index, np.arange(values.size), _Exclude(by))

    def _columns(self, gb):
        """(the selection, [(name, values) of every column to reduce]):
        columns taken by position, so that duplicate names are each their
        own column, as pandas keeps them."""
        obj = self._obj
        if isinstance(obj, pd.Series):
            return None, [(obj.name, obj.array)]

        def at(key):  # every column named ``key``
            loc = obj.columns.get_loc(key)
            pos = [loc] if isinstance(loc, (int, np.integer)) else \
                np.arange(obj.shape[1])[loc]
            return [(key, obj.iloc[:, int(i)].array) for i in pos]

        if self._selection is not None:
            sel = self._selection
            if isinstance(sel, (list, tuple)):
                return list(sel), [c for key in sel for c in at(key)]
            return sel, at(sel)
        exclude = set(getattr(gb, "exclusions", ()))
        keys = self._by if isinstance(self._by, list) else [self._by]
        exclude |= {k for k in keys if isinstance(k, str) and k in obj.columns}
        return None, [(c, obj.iloc[:, i].array) for i, c in enumerate(obj.columns)
                      if c not in exclude]

    def _results(self, method, ddof):
        """(the selection, the columns' names, per column the list of its
        statistics' arrays over the observed groups)."""
        codes, g, rindex, observed, gb = self._groups()
        sel, cols = self._columns(gb)
        if method == "describe":
            cols = _describe_columns(self._obj, sel, cols)
        keep = None
        # (the integer-key plan and whole-column reductions have no row
        # outside every group: no scan for -1 codes)
        if codes is not None and not (gb is None or isinstance(gb, _Exclude)) \
                and (codes < 0).any():
            keep = np.flatnonzero(codes >= 0)
            ids = codes[keep]
        else:
            ids = codes
        stats = _STATS[method]
        index = self._obj.index if keep is None else self._obj.index[keep]
        # the columns' data first (every TypeError before any work), then
        # the kernel passes
        prepared = []
        for name, values in cols:
            data, valid, nullable = _column(name, values, method)
            if keep is not None:
                data = data[keep]
                valid = None if valid is None else valid[keep]
            prepared.append((name, data, valid, nullable))
        results = []
        if method == "argminmax" and observed.size != len(rindex):
            raise ValueError("Can't get idxmin of an empty group due to unobserved "
                             "categories. Specify observed=True in groupby instead.")
        if method == "argminmax":
            for name, data, valid, nullable in prepared:
                results.append(_argminmax_column(name, data, valid, ids, g, index))
        else:
            # one pass of a grouped kernel per column, or per run of float
            # columns that lie as consecutive rows of one block
            rows = {}
            if keep is None and ids is not None:
                for run in _row_runs(prepared, method):
                    rows.update(zip(run[0], _reduce_rows(method, run[1], ids, g, ddof)))
            for pos, (name, data, valid, nullable) in enumerate(prepared):
                outs, count = rows.pop(pos) if pos in rows else \
                    _reduce_block(method, data, valid, ids, g, ddof)
                results.append([_fix_empty(o, count, stat) if nullable is None
                                else _nullable_result(o, count, stat)
                                for o, stat in zip(outs, stats)])
        return sel, [name for name, _ in cols], results

    def _run(self, method, ddof=1):
        sel, names, results = self._results(method, ddof)
        _, _, rindex, observed, _ = self._plan
        stats = _STATS[method]
        obs_index = rindex[observed]
        arrays = [arr for res in results for arr in res]
        if isinstance(self._obj, pd.Series) or \
                (sel is not None and not isinstance(sel, list) and len(names) == 1):
            frame = pd.DataFrame(dict(zip(stats, arrays)), index=obs_index)
        else:
            # by position: duplicate column names stay apart, as in pandas
            frame = pd.DataFrame(dict(enumerate(arrays)), index=obs_index)
            frame.columns = pd.MultiIndex.from_tuples(
                [(name, stat) for name in names for stat in stats], names=[None, None]) \
                if arrays else pd.MultiIndex.from_tuples([], names=[None, None])
        if observed.size != len(rindex):
            frame = frame.reindex(rindex)
            if method == "fsum":
                frame = frame.fillna(0)
            elif method == "describe":  # an unobserved group counts 0 values
                unobserved = np.setdiff1d(np.arange(len(rindex)), observed)
                for j, key in enumerate(frame.columns):
                    if (key[-1] if isinstance(key, tuple) else key) == "count":
                        col = frame.iloc[:, j].copy()
                        col.iloc[unobserved] = 0
                        frame.isetitem(j, col)
        frame.index.names = rindex.names
        return frame

    def minmax(self):
        """Minimum and maximum of every column per group, one pass:
        ``groupby(by).agg(["min", "max"])``.

        Returns
        -------
        DataFrame
            Columns ``(column, statistic)``, one row per group, as
            ``obj.groupby(by).agg([...])`` gives them.

        See Also
        --------
        numreduce.group_minmax

        Examples
        --------
        >>> import pandas as pd
        >>> import numreduce.pandas
        >>> df = pd.DataFrame({"key": [1, 1, 2, 2], "v": [1., 3., 5., 9.]})
        >>> df.nr.groupby("key").minmax()
               v     
             min  max
        key          
        1    1.0  3.0
        2    5.0  9.0
        """
        return self._run("minmax")

    def meanvar(self, ddof=1):
        """Mean and variance of every column per group, one pass:
        ``groupby(by).agg(["mean", "var"])`` (``ddof=1`` as pandas).

        Parameters
        ----------
        ddof : int, default 1
            Delta degrees of freedom of the variance, as in pandas.

        Returns
        -------
        DataFrame
            Columns ``(column, statistic)``, one row per group, as
            ``obj.groupby(by).agg([...])`` gives them.

        See Also
        --------
        numreduce.group_meanvar

        Examples
        --------
        >>> import pandas as pd
        >>> import numreduce.pandas
        >>> df = pd.DataFrame({"key": [1, 1, 2, 2], "v": [1., 3., 5., 9.]})
        >>> df.nr.groupby("key").meanvar()
               v     
            mean  var
        key          
        1    2.0  2.0
        2    7.0  8.0
        """
        return self._run("meanvar", ddof)

    def meanstd(self, ddof=1):
        """Mean and standard deviation per group: ``.agg(["mean", "std"])``.

        Parameters
        ----------
        ddof : int, default 1
            Delta degrees of freedom of the variance, as in pandas.

        Returns
        -------
        DataFrame
            Columns ``(column, statistic)``, one row per group, as
            ``obj.groupby(by).agg([...])`` gives them.

        See Also
        --------
        numreduce.group_meanvar

        Examples
        --------
        >>> import pandas as pd
        >>> import numreduce.pandas
        >>> df = pd.DataFrame({"key": [1, 1, 2, 2], "v": [1., 3., 5., 9.]})
        >>> df.nr.groupby("key").meanstd()
               v          
            mean       std
        key               
        1    2.0  1.414214
        2    7.0  2.828427
        """
        return self._run("meanstd", ddof)

    def fsum(self):
        """Compensated sum of every column per group: ``.agg(["sum"])``
        (float64 sums of integer columns).

        Returns
        -------
        DataFrame
            Columns ``(column, statistic)``, one row per group, as
            ``obj.groupby(by).agg([...])`` gives them.

        See Also
        --------
        numreduce.group_fsum

        Examples
        --------
        >>> import pandas as pd
        >>> import numreduce.pandas
        >>> df = pd.DataFrame({"key": [1, 1, 2, 2], "v": [1., 3., 5., 9.]})
        >>> df.nr.groupby("key").fsum()
                v
              sum
        key      
        1     4.0
        2    14.0
        """
        return self._run("fsum")

    def logsumexp(self):
        """``log(sum(exp(x)))`` of every column per group (a ``logsumexp``
        column per input column).

        Returns
        -------
        DataFrame
            Columns ``(column, statistic)``, one row per group, as
            ``obj.groupby(by).agg([...])`` gives them.

        See Also
        --------
        numreduce.group_logsumexp

        Examples
        --------
        >>> import pandas as pd
        >>> import numreduce.pandas
        >>> df = pd.DataFrame({"key": [1, 1, 2, 2], "v": [1., 3., 5., 9.]})
        >>> df.nr.groupby("key").logsumexp()
                    v
            logsumexp
        key          
        1    3.126928
        2    9.018150
        """
        return self._run("logsumexp")

    def argminmax(self):
        """Index labels of every column's first minimum and maximum per
        group: ``groupby(by).agg(["idxmin", "idxmax"])``.

        Returns
        -------
        DataFrame
            Columns ``(column, statistic)``, one row per group, as
            ``obj.groupby(by).agg([...])`` gives them.

        See Also
        --------
        numreduce.group_argminmax

        Examples
        --------
        >>> import pandas as pd
        >>> import numreduce.pandas
        >>> df = pd.DataFrame({"key": [1, 1, 2, 2], "v": [1., 3., 5., 9.]})
        >>> df.nr.groupby("key").argminmax()
                 v       
            idxmin idxmax
        key              
        1        0      1
        2        2      3
        """
        return self._run("argminmax")

    def describe(self):
        """Count, mean, std, min, max, skew and kurt of every numeric column
        per group, in one pass of the ``summary`` kernel per column:
        ``groupby(by).describe()``'s layout without its quantiles, with
        ``skew`` and ``kurt`` added (``.agg(["count", "mean", "std", "min",
        "max", "skew", "kurt"])``'s values).

        pandas' semantics: NaN and ``<NA>`` left out (``skipna=True``);
        ``std`` with ``ddof=1``; ``skew`` and ``kurt`` the bias-corrected
        sample statistics (G1, and Fisher's G2: 0 for the normal
        distribution); NaN where a group has fewer than 2 (``std``), 3
        (``skew``) or 4 (``kurt``) values, and ``skew``/``kurt`` NaN for a
        constant group (a variance lost to rounding, SciPy's rule).  Without
        a column selection the numeric columns that are not bool are
        described, as by pandas' ``describe()`` (bool, datetime, string and
        object columns left out); a selected column that is not numeric, or
        bool, raises TypeError.  Every statistic is float64 (a nullable
        column's ``Float64``, ``<NA>`` where pandas has NaN), as in
        ``describe()``.

        The quartiles (25%, 50%, 75%) of pandas' ``describe()`` are not
        given: a quantile is not a one-pass statistic whose partial results
        merge (it needs the values sorted, or a second pass), which every
        statistic here is.

        Returns
        -------
        DataFrame
            Columns ``(column, statistic)``, one row per group, as
            ``obj.groupby(by).describe()`` gives them.

        See Also
        --------
        numreduce.describe
        numreduce.skew
        numreduce.kurtosis

        Examples
        --------
        >>> import pandas as pd
        >>> import numreduce.pandas
        >>> df = pd.DataFrame({"key": [1, 1, 1, 2, 2], "v": [1., 2., 6., 5., 9.]})
        >>> df.nr.groupby("key").describe()
                v                                        
            count mean       std  min  max      skew kurt
        key                                              
        1     3.0  3.0  2.645751  1.0  6.0  1.457863  NaN
        2     2.0  7.0  2.828427  5.0  9.0       NaN  NaN
        """
        return self._run("describe")


_Grouped = NumreduceGroupBy  # its former name


class _Accessor:
    def __init__(self, obj):
        self._obj = obj

    def groupby(self, by=None, *, level=None, sort=True, dropna=True, observed=True):
        """Grouped statistics over pandas' groups: ``by``, ``level``,
        ``sort``, ``dropna`` and ``observed`` as for ``obj.groupby``.

        Parameters
        ----------
        by : label, list of labels, Series, ... , optional
            As for ``obj.groupby``.
        level : int or label, optional
            As for ``obj.groupby``.
        sort, dropna, observed : bool, default True
            As for ``obj.groupby``.

        Returns
        -------
        grouped : NumreduceGroupBy
            Its methods reduce each group.

        See Also
        --------
        NumreduceGroupBy

        Examples
        --------
        >>> import pandas as pd
        >>> import numreduce.pandas
        >>> df = pd.DataFrame({"key": [1, 1, 2, 2], "v": [1., 3., 5., 9.]})
        >>> df.nr.groupby("key").minmax()
               v     
             min  max
        key          
        1    1.0  3.0
        2    5.0  9.0
        """
        kw = {"sort": sort, "dropna": dropna, "observed": observed}
        if level is not None:
            kw["level"] = level
        return _Grouped(self._obj, by, kw)

    def _whole(self, method, ddof=1):
        obj = self._obj
        n = len(obj)
        if n == 0 and method == "argminmax":
            raise ValueError("attempt to get argmin of an empty sequence")  # pandas' idxmin
        grouped = _Grouped(obj, None, {})
        # one group of every row: no codes (the whole-array functions), but
        # for argminmax (positions by the grouped kernel)
        codes = np.zeros(n, np.intp) if method == "argminmax" else None
        grouped._plan = (codes, 1, pd.Index([0]), np.array([0]), None)
        _, names, results = grouped._results(method, ddof)
        stats = pd.Index(list(_STATS[method]))
        # each column's statistics as one array (a nullable column's in its
        # nullable dtype, as obj.agg([...]) gives them)
        columns = [np.concatenate(res) if isinstance(res[0], np.ndarray)
                   else type(res[0])._concat_same_type(res) for res in results]
        if isinstance(obj, pd.Series):
            return pd.Series(columns[0], index=stats, name=obj.name)
        frame = pd.DataFrame(dict(enumerate(columns)), index=stats)
        if method == "describe":
            keep = [i for i in range(obj.shape[1]) if _describable(obj.iloc[:, i].array)]
            frame.columns = obj.columns[keep]
        else:
            frame.columns = obj.columns.copy() if len(names) == obj.shape[1] else names
        return frame

    def minmax(self):
        """``obj.agg(["min", "max"])`` in one pass per column.

        Returns
        -------
        DataFrame or Series
            The statistics as rows, one column per column (a DataFrame's);
            indexed by statistic (a Series').

        See Also
        --------
        numreduce.minmax

        Examples
        --------
        >>> import pandas as pd
        >>> import numreduce.pandas
        >>> df = pd.DataFrame({"a": [1., 3., 5., 9.], "b": [2., 2., 4., 4.]})
        >>> df.nr.minmax()
               a    b
        min  1.0  2.0
        max  9.0  4.0
        """
        return self._whole("minmax")

    def meanvar(self, ddof=1):
        """``obj.agg(["mean", "var"])`` in one pass per column.

        Parameters
        ----------
        ddof : int, default 1
            Delta degrees of freedom of the variance, as in pandas.

        Returns
        -------
        DataFrame or Series
            The statistics as rows, one column per column (a DataFrame's);
            indexed by statistic (a Series').

        See Also
        --------
        numreduce.meanvar

        Examples
        --------
        >>> import pandas as pd
        >>> import numreduce.pandas
        >>> df = pd.DataFrame({"a": [1., 3., 5., 9.], "b": [2., 2., 4., 4.]})
        >>> df.nr.meanvar()
                      a         b
        mean   4.500000  3.000000
        var   11.666667  1.333333
        """
        return self._whole("meanvar", ddof)

    def meanstd(self, ddof=1):
        """``obj.agg(["mean", "std"])`` in one pass per column.

        Parameters
        ----------
        ddof : int, default 1
            Delta degrees of freedom of the variance, as in pandas.

        Returns
        -------
        DataFrame or Series
            The statistics as rows, one column per column (a DataFrame's);
            indexed by statistic (a Series').

        See Also
        --------
        numreduce.meanstd

        Examples
        --------
        >>> import pandas as pd
        >>> import numreduce.pandas
        >>> df = pd.DataFrame({"a": [1., 3., 5., 9.], "b": [2., 2., 4., 4.]})
        >>> df["a"].nr.meanstd()
        mean    4.50000
        std     3.41565
        Name: a, dtype: float64
        """
        return self._whole("meanstd", ddof)

    def fsum(self):
        """Compensated ``obj.agg(["sum"])``.

        Returns
        -------
        DataFrame or Series
            The statistics as rows, one column per column (a DataFrame's);
            indexed by statistic (a Series').

        See Also
        --------
        numreduce.fsum

        Examples
        --------
        >>> import pandas as pd
        >>> import numreduce.pandas
        >>> df = pd.DataFrame({"a": [1., 3., 5., 9.], "b": [2., 2., 4., 4.]})
        >>> df.nr.fsum()
                a     b
        sum  18.0  12.0
        """
        return self._whole("fsum")

    def logsumexp(self):
        """``log(sum(exp(x)))`` of every column.

        Returns
        -------
        DataFrame or Series
            The statistics as rows, one column per column (a DataFrame's);
            indexed by statistic (a Series').

        See Also
        --------
        numreduce.logsumexp

        Examples
        --------
        >>> import pandas as pd
        >>> import numreduce.pandas
        >>> df = pd.DataFrame({"a": [1., 3., 5., 9.], "b": [2., 2., 4., 4.]})
        >>> df.nr.logsumexp().round(6)
                          a         b
        logsumexp  9.02091  4.820075
        """
        return self._whole("logsumexp")

    def argminmax(self):
        """``obj.agg(["idxmin", "idxmax"])``.

        Returns
        -------
        DataFrame or Series
            The statistics as rows, one column per column (a DataFrame's);
            indexed by statistic (a Series').

        See Also
        --------
        numreduce.argminmax

        Examples
        --------
        >>> import pandas as pd
        >>> import numreduce.pandas
        >>> df = pd.DataFrame({"a": [1., 3., 5., 9.], "b": [2., 2., 4., 4.]})
        >>> df.nr.argminmax()
                a  b
        idxmin  0  0
        idxmax  3  2
        """
        return self._whole("argminmax")

    def describe(self):
        """``obj.describe()`` without the quartiles, with ``skew`` and
        ``kurt``: count, mean, std, min, max, skew, kurt of every numeric
        column in one pass of the ``summary`` kernel per column
        (``obj.agg(["count", "mean", "std", "min", "max", "skew",
        "kurt"])``'s values).

        pandas' semantics: NaN and ``<NA>`` left out (``skipna=True``);
        ``std`` with ``ddof=1``; ``skew`` and ``kurt`` the bias-corrected
        sample statistics (G1, and Fisher's G2); NaN where a column has
        fewer than 2 (``std``), 3 (``skew``) or 4 (``kurt``) values, and
        ``skew``/``kurt`` NaN for a constant column.  The numeric columns
        that are not bool are described, as by pandas' ``describe()`` (bool,
        datetime, string and object columns left out; TypeError where none
        is left); a Series must be numeric and not bool.  Every statistic is
        float64 (a nullable column's ``Float64``), as in ``describe()``.

        The quartiles (25%, 50%, 75%) are not given: a quantile is not a
        one-pass statistic whose partial results merge (it needs the values
        sorted, or a second pass), which every statistic here is.

        Returns
        -------
        DataFrame or Series
            The statistics as rows, one column per numeric column (a
            DataFrame's); indexed by statistic (a Series').

        See Also
        --------
        numreduce.describe
        numreduce.skew
        numreduce.kurtosis

        Examples
        --------
        >>> import pandas as pd
        >>> import numreduce.pandas
        >>> df = pd.DataFrame({"a": [1., 3., 5., 9.], "b": [2, 2, 4, 7], "c": list("wxyz")})
        >>> df.nr.describe()
                      a         b
        count  4.000000  4.000000
        mean   4.500000  3.750000
        std    3.415650  2.362908
        min    1.000000  2.000000
        max    9.000000  7.000000
        skew   0.752837  1.193824
        kurt   0.342857  0.435732
        """
        return self._whole("describe")


@pd.api.extensions.register_dataframe_accessor("nr")
class NumreduceDataFrameAccessor(_Accessor):
    """``DataFrame.nr``: numreduce's statistics; see ``numreduce.pandas``."""


@pd.api.extensions.register_series_accessor("nr")
class NumreduceSeriesAccessor(_Accessor):
    """``Series.nr``: numreduce's statistics; see ``numreduce.pandas``."""
