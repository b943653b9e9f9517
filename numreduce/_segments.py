"""Segment reductions for multi-output ufuncs (issue 11): ``reduceat``
(``ufunc.reduceat``'s index rules) and ``segmented_reduce`` (separate start
and stop offsets with slice-bound semantics).

Both turn their offsets into one list of segments ``[starts[s], stops[s])``
of one axis and run on the engine through each loop's segment loop
(``segment_block`` in loops.hpp), found in the loop table like
``reduce``'s.  Argument checks reuse the shared validators of
``numreduce._args`` and the dtype resolution of ``numreduce._engine``, and
every one runs before anything is written.
"""

from __future__ import annotations

import math
import operator

import numpy as np

from . import _core
from ._args import check_outs, finish_outs, one_axis, where_mask, work_outs
from ._dispatch import masked_refuse, public_function
from ._engine import (MULTI_OUTPUT, NoValue, _parse_initial, _parse_out, _resolve_outs,
                      has_initials)
from ._methods import _multi_output

__all__ = ["reduceat", "segmented_reduce"]


def check_segments(ufunc, nout, name, arr_dtype, arr_shape, ax, starts, stops, dtype, outs,
                   mode, initial, masked):
    """The checks of a segment reduction that need no data (the NumPy path
    and the dask graph alike): out, dtype, initial and where against the
    segments.  Returns (descrs, seeds: the initial's 0-d arrays or None)."""
    nseg = starts.shape[0]
    shape = arr_shape[:ax] + (nseg,) + arr_shape[ax + 1:]
    if any(o is not None for o in outs):
        check_outs(outs, shape, name)
    descrs = _resolve_outs(ufunc, arr_dtype, outs, dtype, nout, name)
    seeds = seed_values(initial, descrs, name) if mode == 2 else None
    seeded = mode == 2 or (mode == 0 and has_initials(ufunc, descrs[0]))
    if masked and not seeded:
        raise ValueError(f"reduction operation '{ufunc.__name__}' does not have an identity, "
                         "so to use a where mask one has to specify 'initial'")
    if not seeded:  # reduce's rule: an empty reduction needs a start value
        empty = np.flatnonzero(stops <= starts)
        if empty.size:
            s = int(empty[0])
            raise ValueError(f"{name}: segment {s} ([{int(starts[s])}:{int(stops[s])}] along "
                             f"axis {ax}) is empty and {ufunc.__name__} has no identity; "
                             "pass 'initial' for empty segments")
    return descrs, seeds


def _run(ufunc, nout, name, arr, ax, starts, stops, dtype, outs, mode=0, initial=None,
         where=True):
    """Validate out/dtype/initial/where against the segments, then reduce
    every segment [starts[s], stops[s]) of axis `ax` on the engine."""
    nseg = starts.shape[0]
    shape = arr.shape[:ax] + (nseg,) + arr.shape[ax + 1:]
    mask = where_mask(where, arr.shape)
    descrs, seeds = check_segments(ufunc, nout, name, arr.dtype, arr.shape, ax, starts, stops,
                                   dtype, outs, mode, initial, mask is not None)

    # The segment loop wants C-contiguous, aligned, native blocks (outer, n, inner).
    x = np.require(arr.astype(descrs[0], copy=False), requirements=["C", "A"])
    if mask is not None:
        mask = np.require(np.broadcast_to(mask, arr.shape), requirements=["C", "A"])
    outer, n, inner = math.prod(arr.shape[:ax]), arr.shape[ax], math.prod(arr.shape[ax + 1:])
    res = work_outs(outs, descrs[1:], shape, x, mask)
    _core._segments(ufunc, x, mask, tuple(res), outer, n, inner, starts, stops, mode, seeds)
    return finish_outs(outs, res)


@public_function(masked_refuse("pass m.filled(value) or np.ma.getdata(m) explicitly"),
                 array="array", passthrough=lambda ufunc: ufunc not in MULTI_OUTPUT)
def reduceat(ufunc, array, indices, axis=0, dtype=None, out=None):
    """``ufunc.reduceat`` for multi-output ufuncs: every output's reduction
    over the slices ``indices[i]:indices[i+1]`` of one axis, in one pass.

    The index rules are ``ufunc.reduceat``'s: for ``i < len(indices) - 1``
    result ``i`` along ``axis`` reduces ``array[indices[i]:indices[i+1]]``
    when ``indices[i] < indices[i+1]``, and is ``array[indices[i]]`` (one
    element) otherwise; the last result reduces ``array[indices[-1]:]``.
    Every index must lie in ``[0, array.shape[axis])`` (IndexError
    otherwise; negative indices are errors, as in NumPy).  So no segment is
    ever empty.  Any other ``np.ufunc`` is passed through to its own
    ``reduceat``.

    Parameters
    ----------
    ufunc : np.ufunc
    array : array_like
        At least 1-d.
    indices : array_like of int
        1-d.  An ndarray must cast safely to ``np.intp``; other sequences
        are converted as NumPy converts them.
    axis : int, default 0
        One axis (``None`` only for 1-d input, as in NumPy).
    dtype : dtype, optional
        Loop dtype for every output, as for ``reduce``.
    out : tuple of (ndarray or None), optional
        One entry per output, of exactly the result's shape (``array``'s with
        ``len(indices)`` along ``axis``), writeable, no two sharing memory.
        Results are cast into it as by ``reduce``; an ``out`` that overlaps
        ``array`` is fine (computed into a temporary first).

    Returns
    -------
    tuple of ndarray
        One array per output.

    Examples
    --------
    >>> import numpy as np, numreduce as nr
    >>> a = np.array([3, 1, 4, 1, 5, 9, 2, 6])
    >>> nr.reduceat(nr.minimummaximum, a, [0, 3, 7])
    (array([1, 1, 6]), array([4, 9, 6]))
    >>> nr.reduceat(nr.minimummaximum, a, [5, 2])    # 5 >= 2: just a[5]
    (array([9, 1]), array([9, 9]))
    """
    nout = MULTI_OUTPUT.get(ufunc)
    if nout is None:
        if not isinstance(ufunc, np.ufunc):
            raise TypeError(f"reduceat() expects a numpy ufunc, got {type(ufunc).__name__}")
        return ufunc.reduceat(array, indices, axis=axis, dtype=dtype, out=out)
    # Every check below runs before anything is written.
    name = f"reduceat({ufunc.__name__})"
    outs = _parse_out(out, nout)
    arr = np.asarray(array)
    ax = one_axis(axis, arr, name, "reduceat on")
    idx, stops = reduceat_bounds(indices, arr.shape[ax], name, ufunc.__name__)
    return _run(ufunc, nout, name, arr, ax, idx, stops, dtype, outs)


def seed_values(initial, descrs, name: str) -> tuple:
    """The values of a given `initial`, one 0-d array per output, cast as
    reduce casts 'initial' (assignment into the output dtype; descrs[1:]).
    Shared by the NumPy and CuPy paths."""
    seeds = []
    for v, d in zip(initial, descrs[1:]):
        buf = np.empty((), dtype=d)
        try:
            buf[()] = v
        except (TypeError, ValueError, OverflowError) as e:
            raise type(e)(f"{name}: 'initial' {v!r} does not fit the output dtype {d}: "
                          f"{e}") from None
        seeds.append(buf)
    return tuple(seeds)


def reduceat_bounds(indices, n: int, name: str, ufunc_name: str):
    """``ufunc.reduceat``'s index rules -> (starts, stops), intp arrays:
    segment i is [indices[i], indices[i+1]) where indices[i] < indices[i+1],
    else just element indices[i]; the last runs to n.  Shared by the NumPy
    and CuPy paths (the indices live on the host)."""
    if isinstance(indices, np.ndarray):
        if not np.can_cast(indices.dtype, np.intp, casting="safe"):
            raise TypeError(f"{name}: 'indices' must be integers: cannot cast array data from "
                            f"{indices.dtype!r} to {np.dtype(np.intp)!r} according to the rule "
                            "'safe'")
        idx = indices
    else:
        try:
            idx = np.array(indices, dtype=np.intp)
        except (TypeError, ValueError) as e:
            raise type(e)(f"{name}: 'indices' must be a 1-d sequence of integers: {e}") from None
    if idx.ndim != 1:
        raise ValueError(f"{name}: 'indices' must be 1-d, got {idx.ndim} dimensions")
    idx = np.ascontiguousarray(idx, dtype=np.intp)
    bad = np.flatnonzero((idx < 0) | (idx >= n))
    if bad.size:
        raise IndexError(f"index {int(idx[bad[0]])} out-of-bounds in "
                         f"{ufunc_name}.reduceat [0, {n})")
    stops = np.empty_like(idx)
    if idx.size:
        nxt = idx[1:]
        stops[:-1] = np.where(idx[:-1] < nxt, nxt, idx[:-1] + 1)
        stops[-1] = n
    return idx, stops


def _offsets(v, n: int, name: str, arg: str) -> np.ndarray:
    """Slice bounds -> intp offsets in [0, n]: negative counts from the end,
    out-of-range values clip, as ``slice(start, stop).indices(n)``."""
    a = v if isinstance(v, np.ndarray) else np.asarray(v)
    if a.ndim != 1:
        raise ValueError(f"{name}: '{arg}' must be 1-d, got {a.ndim} dimensions")
    if a.size == 0:
        return np.empty(0, dtype=np.intp)
    if a.dtype.kind not in "iu":
        if a.dtype == object:
            try:  # Python ints too large for int64 still clip
                vals = [operator.index(e) for e in a]
            except TypeError:
                vals = None
            if vals is not None:
                return np.array([min(max(e + n if e < 0 else e, 0), n) for e in vals],
                                dtype=np.intp)
        raise TypeError(f"{name}: '{arg}' must be integers (slice bounds), got dtype {a.dtype}")
    if a.dtype.kind == "u":
        return np.minimum(a, n).astype(np.intp)
    a = a.astype(np.int64, copy=False)
    return np.clip(np.where(a < 0, a + n, a), 0, n).astype(np.intp)


@public_function(masked_refuse("pass m.filled(value) or np.ma.getdata(m) explicitly"),
                 array="array")
def segmented_reduce(ufunc, array, starts, stops, axis=0, dtype=None, out=None,
                     initial=NoValue, where=True):
    """Reductions of arbitrary segments of one axis, every output in one
    pass: result ``i`` along ``axis`` is
    ``reduce(ufunc, array[..., starts[i]:stops[i], ...], axis)``.

    ``starts`` and ``stops`` are slice bounds: negative values count from
    the end, values out of range are clipped, so segments may skip
    elements, overlap, or be empty.  An empty segment gives the ufunc's
    initials where it has them (``moments``: ``(0, 0, 0)``; ``maxsumexp``:
    ``(-inf, -1)``; ``twosum``: ``(0, 0)``) or ``initial``; for a ufunc
    without initials (``minimummaximum``, ``fminfmax``) an empty segment
    without ``initial`` is a ValueError, raised before any output is
    written.

    Parameters
    ----------
    ufunc : one of numreduce's multi-output ufuncs
    array : array_like
        At least 1-d.
    starts, stops : array_like of int
        1-d, of equal length: the segments' bounds along ``axis``.
    axis : int, default 0
        One axis (``None`` only for 1-d input).
    dtype : dtype, optional
        Loop dtype for every output, as for ``reduce``.
    out : tuple of (ndarray or None), optional
        One entry per output, of exactly the result's shape (``array``'s with
        ``len(starts)`` along ``axis``), as for ``reduceat``.
    initial : scalar or tuple, optional
        As for ``reduce``: seeds every segment (a tuple gives one value per
        output); ``None`` unsets the ufunc's own initials.
    where : array_like of bool, optional
        Elements to include (broadcast to ``array``'s shape); needs an
        ``initial`` when the ufunc has no initials, as for ``reduce``.

    Returns
    -------
    tuple of ndarray
        One array per output.

    Examples
    --------
    >>> import numpy as np, numreduce as nr
    >>> a = np.array([3., 1., 4., 1., 5., 9., 2., 6.])
    >>> nr.segmented_reduce(nr.minimummaximum, a, [0, 2, -3], [4, 6, 100])
    (array([1., 1., 2.]), array([4., 9., 9.]))
    >>> nr.segmented_reduce(nr.minimummaximum, a, [0, 5], [3, 5],
    ...                     initial=(np.inf, -np.inf))   # segment 1 is empty
    (array([ 1., inf]), array([  4., -inf]))
    >>> n, mean, m2 = nr.segmented_reduce(nr.moments, a, [0, 4, 0], [4, 8, 0])
    >>> n, mean
    (array([4., 4., 0.]), array([2.25, 5.5 , 0.  ]))
    """
    nout = _multi_output(ufunc, "segmented_reduce")
    # Every check below runs before anything is written.
    name = f"segmented_reduce({ufunc.__name__})"
    outs = _parse_out(out, nout)
    arr = np.asarray(array)
    ax = one_axis(axis, arr, name, "segmented_reduce on")
    n = arr.shape[ax]
    lo = _offsets(starts, n, name, "starts")
    hi = _offsets(stops, n, name, "stops")
    if lo.shape != hi.shape:
        raise ValueError(f"{name}: 'starts' and 'stops' must have the same length, got "
                         f"{lo.shape[0]} and {hi.shape[0]}")
    mode, initials = _parse_initial(initial, nout)
    return _run(ufunc, nout, name, arr, ax, lo, hi, dtype, outs, mode, initials, where)
