"""Grouped reductions and ``at`` for multi-output ufuncs (issue 11).

``reduce_by_group`` (one accumulator set per group, unsorted group ids, one
pass) and ``at`` (in place, repeated indices accumulate) run on the engine
through each loop's scatter loop (``scatter_block`` in loops.hpp), found in
the loop table like ``reduce``'s.  Argument checks reuse the shared
validators of ``numreduce._args`` and the dtype resolution of
``numreduce._engine``, and run before anything is written: the scatter pass
writes into temporaries, copied into ``out`` only once every check passed.
The grouped user functions (``group_minmax``, ``group_meanvar``, ...) are
thin layers over ``reduce_by_group``.
"""

from __future__ import annotations

import math
import operator

import numpy as np

from . import _core
from ._args import check_outs, finish_outs, inplace_outs, one_axis, where_mask
from ._dispatch import masked_refuse, public_function
from ._engine import NoValue, _parse_initial, _parse_out, _resolve, _resolve_outs, has_initials
from ._methods import _multi_output

__all__ = ["at", "group_argminmax", "group_fsum", "group_logsumexp", "group_meanvar",
           "group_minmax", "reduce_by_group"]

_MASKED_HINT = "pass m.filled(value) or np.ma.getdata(m) (and where=~m.mask) explicitly"


def _group_ids(group_ids, n: int, name: str):
    """-> (original ids array, intp ids): 1-d integers of length n."""
    ids = np.asarray(group_ids)
    if ids.size == 0 and ids.dtype.kind == "f":
        ids = ids.astype(np.intp)  # [] (NumPy indexes with an empty list too)
    check_group_ids(ids.dtype, ids.shape, n, name)
    return ids, np.ascontiguousarray(ids, dtype=np.intp)


def check_group_ids(dtype, shape, n: int, name: str) -> None:
    """The group ids' dtype and shape rules (NumPy or dask ids alike): 1-d
    integers, one per element along the reduced axis."""
    if dtype.kind not in "iu":
        raise TypeError(f"{name}: 'group_ids' must be an array of integers, not of dtype "
                        f"{dtype}")
    if len(shape) != 1 or shape[0] != n:
        raise ValueError(f"{name}: 'group_ids' must be 1-d with one id per element along the "
                         f"reduced axis ({n}), got shape {shape}")


def _num_groups(num_groups, ids, name: str) -> int:
    if num_groups is None:
        return int(ids.max()) + 1 if ids.size else 0
    if isinstance(num_groups, (bool, np.bool_)):
        raise TypeError(f"{name}: 'num_groups' must be an integer or None, not a bool")
    try:
        g = operator.index(num_groups)
    except TypeError:
        raise TypeError(f"{name}: 'num_groups' must be an integer or None, not "
                        f"{type(num_groups).__name__}") from None
    if g < 0:
        raise ValueError(f"{name}: 'num_groups' must be >= 0, got {g}")
    return g


def _bad_id(ids, g: int, name: str):
    """The IndexError for the first id outside [0, g)."""
    k = int(np.flatnonzero((ids < 0) | (ids >= g))[0])
    return IndexError(f"{name}: group_ids[{k}] = {ids[k]} is outside [0, num_groups) = "
                      f"[0, {g})")


@public_function(masked_refuse(_MASKED_HINT), array="array")
def reduce_by_group(ufunc, array, group_ids, num_groups=None, axis=0, dtype=None, out=None,
                    initial=NoValue, where=True):
    """One reduction per group, in one pass: result ``g`` along ``axis`` is
    ``reduce(ufunc, array[..., group_ids == g, ...], axis)``.

    Group ids may come in any order; every element is absorbed into its
    group's accumulators through the reduction's step (for
    ``minimummaximum`` the group's running (min, max), for ``moments`` its
    (count, mean, M2)).  The jax ``segment_*`` / pandas ``groupby`` building
    block.

    Parameters
    ----------
    ufunc : one of numreduce's multi-output ufuncs
    array : array_like
        At least 1-d.
    group_ids : array_like of integers
        1-d, one id per element along ``axis``, each in ``[0, num_groups)``
        (``IndexError`` otherwise, before anything is written).
    num_groups : int, optional
        Number of groups; ``None``: ``max(group_ids) + 1``.
    axis : int, default 0
        The axis to group along; the result has ``num_groups`` there.
    dtype : dtype, optional
        Loop dtype for every output, as for ``reduce``.
    out : tuple of (ndarray or None), optional
        One entry per output, of exactly the result's shape; written only
        when every check passed.
    initial : scalar or tuple, optional
        Start value of every group (a tuple: one per output); ``None``
        unsets the ufunc's own initials.
    where : array_like of bool, optional
        Elements to include (broadcast to ``array``'s shape).

    An empty group (no element, or none selected by ``where``) gets the
    ufunc's initials (``moments``: (0, 0, 0)) or ``initial``; where there are
    none (``minimummaximum`` without ``initial``) it is a ``ValueError``,
    before anything is written.

    Returns
    -------
    tuple of ndarray
        One array per output.

    Examples
    --------
    >>> import numpy as np, numreduce as nr
    >>> x = np.array([3., 1., 4., 1., 5., 9., 2.])
    >>> g = np.array([1, 0, 1, 2, 0, 2, 1])
    >>> nr.reduce_by_group(nr.minimummaximum, x, g)
    (array([1., 2., 1.]), array([5., 4., 9.]))
    >>> n, mean, m2 = nr.reduce_by_group(nr.moments, x, g, num_groups=4)
    >>> n, mean
    (array([2., 3., 2., 0.]), array([3., 3., 5., 0.]))
    """
    nout = _multi_output(ufunc, "reduce_by_group")
    # Every check below runs before anything is written.
    name = f"reduce_by_group({ufunc.__name__})"
    outs = _parse_out(out, nout)
    arr = np.asarray(array)
    ax = one_axis(axis, arr, name, "group")
    ids, ids_p = _group_ids(group_ids, arr.shape[ax], name)
    g = _num_groups(num_groups, ids, name)
    mode, initials = _parse_initial(initial, nout)
    mask = where_mask(where, arr.shape)
    shape = arr.shape[:ax] + (g,) + arr.shape[ax + 1:]
    if any(o is not None for o in outs):
        check_outs(outs, shape, name)
    descrs = _resolve_outs(ufunc, arr.dtype, outs, dtype, nout, name)

    no_start = seen_needed = mode != 2
    if seen_needed:
        no_start = mode == 1 or not has_initials(ufunc, descrs[0])
    if mask is not None and no_start:
        # reduce's rule (np.minimum.reduce's too)
        raise ValueError(f"{name}: reduction operation '{ufunc.__name__}' does not have an "
                         "identity, so to use a where mask one has to specify 'initial'")

    outer, n, inner = math.prod(arr.shape[:ax]), arr.shape[ax], math.prod(arr.shape[ax + 1:])
    x = np.require(arr.astype(descrs[0], copy=False), requirements=["C", "A"])
    if mask is not None:
        mask = np.ascontiguousarray(np.broadcast_to(mask, arr.shape))
    if mode == 2:
        accs = tuple(np.full(shape, v, dtype=d) for v, d in zip(initials, descrs[1:]))
        seen = None
    else:
        accs = tuple(np.empty(shape, dtype=d) for d in descrs[1:])
        seen = np.zeros(shape, dtype=np.uint8)
    if x.size == 0 and n > 0 and ((ids < 0) | (ids >= g)).any():
        raise _bad_id(ids, g, name)  # no element for the engine to check the ids on
    bad = _core._scatter(ufunc, x, ids_p, mask, accs, seen, outer, n, inner, g)
    if bad >= 0:
        raise _bad_id(ids, g, name)
    if no_start:
        # As np.minimum.reduce: an empty slice raises even where the result
        # is empty (shape (0, 0) over axis 0); where= is refused above here.
        if outer * inner:
            empty = (seen == 0).reshape(outer, g, inner).any(axis=(0, 2))
        else:
            empty = np.bincount(ids_p, minlength=g) == 0
        if empty.any():
            k = int(np.flatnonzero(empty)[0])
            raise ValueError(f"{name}: group {k} is empty and the reduction has no initial "
                             "value (pass initial=..., or group_ids without empty groups)")
    return finish_outs(outs, accs)


_reduce_by_group = reduce_by_group.__wrapped__  # for the user functions below


@public_function(masked_refuse(_MASKED_HINT), array="values")
def at(ufunc, outs, indices, values):
    """``ufunc.at`` for multi-output ufuncs: unbuffered, in place.

    For each ``j`` in order, the accumulators ``outs[k][indices[j]]`` absorb
    ``values[j]`` through the reduction's step, so repeated indices
    accumulate: for ``minimummaximum`` this is ``np.minimum.at(lo, idx, v);
    np.maximum.at(hi, idx, v)`` in one pass, for ``moments`` a running
    (count, mean, M2) per slot.

    Parameters
    ----------
    ufunc : one of numreduce's multi-output ufuncs
    outs : tuple of ndarray
        One writeable array per output, all of one shape, sharing no memory:
        the accumulators (e.g. ``(np.full(k, np.inf), np.full(k, -np.inf))``
        for ``minimummaximum``, zeros for ``moments``).
    indices : index
        Anything ``ufunc.at`` takes: an integer array (negative counts from
        the end; out of range is an ``IndexError``), a tuple of index arrays,
        slices.  The index rules are NumPy's own.
    values : array_like
        Broadcast to the indexed shape (``ValueError`` where it does not).
        Cast, with the accumulators, to the loop dtype of
        ``np.result_type(values, *outs)``; the results are cast back
        (``same_kind``).

    Every check runs before anything is written.

    Examples
    --------
    >>> import numpy as np, numreduce as nr
    >>> lo, hi = np.full(3, np.inf), np.full(3, -np.inf)
    >>> nr.at(nr.minimummaximum, (lo, hi), [0, 2, 0, 0], [5., 1., -2., 7.])
    >>> lo, hi
    (array([-2., inf,  1.]), array([  7., -inf,   1.]))
    """
    nout = _multi_output(ufunc, "at")
    name = f"at({ufunc.__name__})"
    outs = inplace_outs(outs, nout, name)
    for i, o in enumerate(outs):
        if not isinstance(o, np.ndarray):
            raise TypeError(f"{name}: outs[{i}] must be an ndarray (updated in place), not "
                            f"{type(o).__name__}")
        if isinstance(o, np.ma.MaskedArray):
            raise TypeError(f"{name}: outs[{i}] is a masked array (the mask would be ignored); "
                            "pass np.ma.getdata(m)")
    shape = outs[0].shape
    check_outs(outs, shape, name)
    vals = np.asarray(values)
    size = math.prod(shape)
    # ufunc.at's index rules are NumPy's indexing rules: index a map of flat
    # positions (IndexError, negative indices, tuples, slices, booleans).
    idx = None
    if len(shape) == 1 and not isinstance(indices, tuple):
        cand = np.asarray(indices)
        if cand.dtype.kind in "iu" and cand.ndim == 1:
            idx = cand.astype(np.intp)  # a copy: negative indices are resolved below
            if idx.size and (((cand < -size) | (cand >= size)).any()):
                k = int(np.flatnonzero((cand < -size) | (cand >= size))[0])
                raise IndexError(f"{name}: index {cand[k]} is out of bounds for axis 0 with "
                                 f"size {size}")
            idx[idx < 0] += size
    if idx is None:
        idx = np.arange(size, dtype=np.intp).reshape(shape)[indices]
    idx_shape = np.shape(idx)
    try:
        vals = np.broadcast_to(vals, idx_shape)
    except ValueError:
        raise ValueError(f"{name}: 'values' of shape {vals.shape} does not broadcast to the "
                         f"indexed shape {idx_shape}") from None
    try:
        common = np.result_type(vals.dtype, *(o.dtype for o in outs))
        descrs = _resolve(ufunc, common, (None,) * nout, None, nout)
    except TypeError as e:
        raise TypeError(f"{name}: no loop for values of dtype {vals.dtype} with accumulators "
                        f"of dtypes {[str(o.dtype) for o in outs]}: {e}") from e
    for i, (o, d) in enumerate(zip(outs, descrs[1:])):
        if not np.can_cast(d, o.dtype, casting="same_kind"):
            raise TypeError(f"{name}: cannot cast the result of dtype {d} into outs[{i}] of "
                            f"dtype {o.dtype} with casting rule 'same_kind'")
    ids = np.ascontiguousarray(idx, dtype=np.intp).reshape(-1)
    x = np.ascontiguousarray(vals, dtype=descrs[0]).reshape(-1)
    if any(np.may_share_memory(x, o) for o in outs):
        x = x.copy()  # read every value before any accumulator changes
    accs = []
    for o, d in zip(outs, descrs[1:]):
        direct = o.dtype == d and o.flags.c_contiguous and o.flags.aligned
        accs.append(o.reshape(-1) if direct else np.ascontiguousarray(o, dtype=d).reshape(-1))
    bad = _core._scatter(ufunc, x, ids, None, tuple(accs), None, 1, x.size, 1, size)
    if bad >= 0:  # pragma: no cover - the ids come from NumPy's indexing
        raise IndexError(f"{name}: index {ids[bad]} is out of bounds")
    for o, r in zip(outs, accs):
        if r.base is not o and r is not o:
            np.copyto(o, r.reshape(shape), casting="unsafe")


@public_function(masked_refuse(_MASKED_HINT))
def group_minmax(a, group_ids, num_groups=None, axis=0, out=None, initial=NoValue, where=True):
    """Minimum and maximum of every group, in one pass:
    ``(np.min(a[group_ids == g], axis), np.max(...))`` for each group ``g``
    (pandas ``groupby(...).agg(['min', 'max'])``).

    NaN (NaT) propagates, as ``np.minimum``.  An empty group (and ``where``)
    needs ``initial`` (a scalar, or (min_initial, max_initial)), else
    ``ValueError``.  ``group_ids``, ``num_groups``, ``axis`` and ``out`` as
    for :func:`reduce_by_group`.

    Examples
    --------
    >>> import numpy as np, numreduce as nr
    >>> nr.group_minmax(np.array([3, 1, 4, 1, 5, 9]), np.array([0, 1, 0, 1, 2, 2]))
    (array([3, 1, 5]), array([4, 1, 9]))
    """
    return _reduce_by_group(_core.minimummaximum, a, group_ids, num_groups, axis=axis,
                            out=out, initial=initial, where=where)


@public_function(masked_refuse(_MASKED_HINT))
def group_meanvar(a, group_ids, num_groups=None, axis=0, dtype=None, ddof=0, where=True):
    """Mean and variance of every group, in one pass:
    ``(np.mean(a[group_ids == g], axis), np.var(..., ddof=ddof))`` for each
    group ``g`` (pandas ``groupby(...).mean()`` and ``.var(ddof=...)``).

    Accumulates (count, mean, M2) per group with the ``moments`` ufunc
    (float64 for bool/integer/float16/float32 data): a 1-d stream without
    ``where`` through shifted sums per group (rebased onto the running mean
    at powers of two and every 64 elements; Welford's update where the data
    has inf/NaN), otherwise Welford's update.
    Dtype and ddof rules are :func:`meanvar`'s; an empty group (or one with
    ``count <= ddof``) gives NaN with NumPy's warnings.

    Examples
    --------
    >>> import numpy as np, numreduce as nr
    >>> nr.group_meanvar(np.array([1., 2., 3., 5.]), np.array([0, 1, 0, 1]), ddof=1)
    (array([2. , 3.5]), array([2. , 4.5]))
    """
    from ._api import _ddof_arg, _finish_meanvar, _result_dtype
    name = "group_meanvar"
    a = np.asarray(a)
    ddof = _ddof_arg(name, ddof)
    mean_dt, var_dt = _result_dtype(name, a.dtype, dtype)
    parts = [a.real, a.imag] if a.dtype.kind == "c" else [a]
    work = np.finfo(mean_dt).dtype
    if work.itemsize > 8:
        parts = [p.astype(work, copy=False) for p in parts]
    res = [_reduce_by_group(_core.moments, p, group_ids, num_groups, axis=axis, where=where)
           for p in parts]
    count = res[0][0]
    m2 = res[0][2] if len(res) == 1 else np.add(res[0][2], res[1][2])
    return _finish_meanvar(count, [r[1] for r in res], m2, mean_dt, var_dt, ddof, std=False)


@public_function(masked_refuse(_MASKED_HINT))
def group_logsumexp(a, group_ids, num_groups=None, axis=0):
    """``log(sum(exp(a[group_ids == g])))`` of every group in one pass
    (``scipy.special.logsumexp`` per group): (max, sum of exp(x - max) - 1)
    per group with the ``maxsumexp`` step, then ``max + log1p(t)``.  No
    overflow; +inf wins, NaN propagates; an empty group gives -inf.  Real
    data only (float dtypes keep theirs, bool/integers give float64;
    complex is a ``TypeError``).

    Examples
    --------
    >>> import numpy as np, numreduce as nr
    >>> nr.group_logsumexp(np.array([1000., 1000., 0.]), np.array([0, 0, 1]), num_groups=3)
    array([1000.69314718,    0.        ,          -inf])
    """
    arr = np.asarray(a)
    if arr.dtype.kind not in "biuf":
        raise TypeError(f"group_logsumexp: unsupported dtype {arr.dtype} (need bool, "
                        "integer or floating point)")
    mx, t = _reduce_by_group(_core.maxsumexp, arr, group_ids, num_groups, axis=axis)
    with np.errstate(divide="ignore", invalid="ignore"):
        res = np.add(mx, np.log1p(t))
    rdt = arr.dtype.newbyteorder("=") if arr.dtype.kind == "f" else np.dtype(np.float64)
    return np.asarray(res, dtype=rdt)


@public_function(masked_refuse(_MASKED_HINT))
def group_fsum(a, group_ids, num_groups=None, axis=0):
    """Compensated sum of every group in one pass (``math.fsum`` per group,
    to about 1 ulp): (sum, error) per group with the ``twosum`` step, then
    ``sum + error``.  Real data only (float64 accumulators for bool and
    integers, float32 for float16, the input's float dtype otherwise;
    complex is a ``TypeError``); an empty group sums to 0.

    Examples
    --------
    >>> import numpy as np, numreduce as nr
    >>> nr.group_fsum(np.array([1e16, 1., -1e16, 2.]), np.array([0, 0, 0, 1]))
    array([1., 2.])
    """
    arr = np.asarray(a)
    if arr.dtype.kind not in "biuf":
        raise TypeError(f"group_fsum: unsupported dtype {arr.dtype} (need bool, integer or "
                        "floating point)")
    s, e = _reduce_by_group(_core.twosum, arr, group_ids, num_groups, axis=axis)
    with np.errstate(invalid="ignore", over="ignore"):
        res = np.where(np.isfinite(s) & (e != 0), np.add(s, e), s)
    return np.asarray(res, dtype=s.dtype)


@public_function(masked_refuse(_MASKED_HINT))
def group_argminmax(a, group_ids, num_groups=None):
    """``(argmin, argmax)`` of every group of a 1-d array: the index within
    ``a`` of each group's first minimum and first maximum
    (``np.flatnonzero(group_ids == g)[np.argmin(a[group_ids == g])]``).

    NaN (NaT) propagates as in ``np.argmin``: a group with a NaN gives the
    index of its first NaN for both.  Two passes: ``group_minmax``, then the
    first position equal to its group's extreme.  An empty group is a
    ``ValueError``, as ``np.argmin`` of an empty array.

    Examples
    --------
    >>> import numpy as np, numreduce as nr
    >>> nr.group_argminmax(np.array([3., 1., 4., 1., 5.]), np.array([0, 0, 1, 1, 0]))
    (array([1, 3]), array([4, 2]))
    """
    arr = np.asarray(a)
    if arr.ndim != 1:
        raise ValueError(f"group_argminmax: 'a' must be 1-d, got shape {arr.shape}")
    lo, hi = _reduce_by_group(_core.minimummaximum, arr, group_ids, num_groups)
    ids = np.asarray(group_ids).astype(np.intp, copy=False)
    g = lo.shape[0]

    def first(hit, pos):
        f = np.full(g, arr.shape[0], dtype=np.intp)
        np.minimum.at(f, ids[hit], pos[hit])
        return f

    return extreme_positions(np, arr, ids, (lo, hi), first)


def extreme_positions(xp, arr, ids, extremes, first):
    """group_argminmax's second pass (NumPy or CuPy, ``xp``): for each
    group's extreme, ``first(hit, pos)`` -- per group, the smallest position
    where ``hit`` -- of the elements equal to their group's extreme (a NaN
    extreme matching the NaNs: the first NaN)."""
    pos = xp.arange(arr.shape[0], dtype=np.intp)
    out = []
    for ext in extremes:
        e = ext[ids]
        hit = arr == e
        if arr.dtype.kind in "fcmM":
            hit |= xp.isnan(e) & xp.isnan(arr)
        out.append(first(hit, pos))
    return tuple(out)
