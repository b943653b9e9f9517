"""The NumPy backend: array primitives on host memory through the C++ core.

A backend knows arrays, not statistics (docs/architecture.md).  Every
primitive here gets arguments that the methods and statistics layers
already checked (``_args``, ``_dtypes``), and runs one of the engine's
loops -- reduction, merge, scan, segment, scatter, arg-reduce -- found in
the C++ loop table, so that nothing is written before every check passed.
The Dask backend (``_dask``) runs these same primitives on each block; the
CuPy backend (``_cupy``) has the same interface on the device.

Primitives (the interface every backend implements; docs/architecture.md):

``asarray``, ``where``, ``parse_out``, ``check_outs``, ``check_dtypes``,
``group_ids``, ``states``, ``axis_length``, ``host_indices``
    operands as this backend's arrays, and its own checks of them (masks,
    outputs, group ids, merge states, result dtypes it cannot make)
``reduce``, ``reduce_parts``
    the states of one reduction over ``axes`` (a method's), or of each of a
    statistic's ``parts`` of the array (the real and imaginary parts of
    complex data), then the statistic's ``finish(xp, states)``
``merge``, ``scan``, ``segments``, ``group_reduce``, ``at``
    the methods' loops; ``scan_parts`` and ``group_reduce_parts`` those of
    a statistic's parts, then its finish; ``scan_output`` a scan's result
    with ``include_initial``
``arg_reduce``, ``group_arg``
    (argmin, argmax) along one axis, and per group
``into``, ``foreign``
    results into ``out``; the methods of ufuncs the engine does not know
``quick_reduce``, ``quick_arg``
    the NumPy backend's paths of the plain call, before any argument
    handling (None on the other backends)

Layer: backends (imports the rules layer and ``_core``).
"""

from __future__ import annotations

import math

import numpy as np

from . import _core
from ._args import (bad_group_id, check_outs as _check_outs, empty_group_error, finish_outs,
                    group_ids as _group_ids, is_cupy_array, is_dask_array, is_given,
                    normalize_axes, num_groups,
                    parse_out as _parse_out, where_mask, work_outs)
from ._dtypes import (MULTI_SOURCE, at_descrs, merge_descrs, multi_output, resolve,
                      sources_plan, stream_dtype)

__all__ = ["arg_reduce", "array_code", "asarray", "at", "axis_length",
           "check_outs", "foreign", "group_arg", "group_ids", "group_reduce", "group_reduce_parts",
           "group_sources", "in_place_sources", "pack_sources", "Sources",
           "host_indices", "into", "merge", "merge_states", "nonempty", "nonnegative",
           "own_ufunc", "parse_out", "quick_arg", "quick_reduce", "reduce", "reduce_parts", "scan", "scan_output", "scan_parts", "sources",
           "segments", "states", "where"]

name = "numpy"
xp = np
arrays = "NumPy arrays"  # what the messages call this backend's arrays
prefix = ""  # the messages' prefix (numreduce.cupy's: "numreduce.cupy.")
loops_check_start = True  # the engine's loops raise reduce's start-value errors
lazy = False  # results are computed now: no result dtypes needed up front


def asarray(x, what="the array", label="", qualname=""):
    """The operand as a NumPy array (array_like input converted)."""
    return np.asarray(x)


def sources(arrays, names, label="", qualname=""):
    """Several source arrays of one reduction (x and its weights, x and y):
    NumPy arrays broadcast together (views, no copy) in the dtype of the
    loop (``sources_dtype``: a converted copy where a source has another).
    ValueError where they do not broadcast; TypeError for a dtype that is
    not real."""
    for x in arrays:
        if is_dask_array(x) or is_cupy_array(x):
            raise TypeError(f"{qualname or label}: do not mix NumPy and "
                            f"{type(x).__module__.split('.')[0]} arrays (pass the first "
                            "array as one of that type)")
    arrs = [np.asarray(x) for x in arrays]
    dt, shape = sources_plan(qualname or label, names, arrs)
    return [np.broadcast_to(a.astype(dt, copy=False), shape) for a in arrs]


def pack_sources(arrays):
    """K broadcast source arrays of one dtype (``sources``) as one array of
    their shape whose elements are K-field records (fields f0 .. f{K-1}):
    the stream of the methods of a reduction of K sources, whose loops read
    an element as K consecutive values (a copy)."""
    dt = arrays[0].dtype
    out = np.empty(arrays[0].shape, np.dtype([(f"f{i}", dt) for i in range(len(arrays))]))
    for i, a in enumerate(arrays):
        out[f"f{i}"] = a
    return out


class Sources:
    """The operand of ``reduce_by_group`` of a reduction of K sources
    (``group_sources``): the K broadcast arrays (``sources``), standing for
    their ``pack_sources`` records -- ``shape``, ``ndim`` and ``size`` are
    theirs, ``dtype`` the K-field record dtype -- so that ``group_reduce``
    can hand the scatter loop the K arrays in place (``stream``) instead of
    the packed copy."""

    __slots__ = ("arrays", "shape", "ndim", "size", "dtype")

    def __init__(self, arrays):
        self.arrays = list(arrays)
        a = self.arrays[0]
        self.shape, self.ndim, self.size = a.shape, a.ndim, a.size
        self.dtype = np.dtype([(f"f{i}", a.dtype) for i in range(len(self.arrays))])

    def stream(self, ufunc, ax, dt, mask):
        """(the scatter loop's operand, its (outer, n, inner) layout): the K
        arrays C-contiguous in ``dt`` (a copy only where one is not), as a
        tuple, for a 1-d stream without a mask whose loop scatters sources
        in place (``_core._scatters_sources``, C API 1.2); else the packed
        records (``_block3``), as before."""
        shape = self.shape
        layout = (math.prod(shape[:ax]), shape[ax], math.prod(shape[ax + 1:]))
        if mask is None and layout[0] == 1 and layout[2] == 1:
            xs = in_place_sources(ufunc, self.arrays, dt)
            if xs is not None:
                return xs, layout
        return _block3(pack_sources(self.arrays), ax, dt)


# Whether the scatter loop reads K sources in place where it can
# (in_place_sources); the tests set it False to compare with the packed
# path, bit for bit.
SCATTER_SOURCES_IN_PLACE = True


def in_place_sources(ufunc, arrays, dt):
    """The K source ``arrays`` as the scatter loop reads them in place (C API
    1.2's ``_core._scatters_sources``): a tuple of 1-d C-contiguous, aligned,
    native arrays of ``dt`` (a copy only of one that is not); None where the
    loop for ``dt`` packs them instead."""
    if not (SCATTER_SOURCES_IN_PLACE and _core._scatters_sources(ufunc, dt)):
        return None
    return tuple(np.require(a, dtype=dt, requirements=["C", "A"]).reshape(-1) for a in arrays)


def group_sources(arrays):
    """``reduce_by_group``'s operand of K broadcast source arrays of one
    dtype (``sources``): a ``Sources`` over them (no copy; ``pack_sources``
    where the scatter loop cannot read them in place)."""
    return Sources(arrays)


def nonnegative(w, message):
    """``w``; ValueError(message) where it holds a negative value."""
    if w.dtype.kind in "biuf" and w.size:
        # one pass and no temporary where the minimum answers (NaN weights
        # make it NaN: the comparison below then decides)
        lo = w.min()
        if not np.isnan(lo):
            if lo < 0:
                raise ValueError(message)
            return w
    if bool((w < 0).any()):
        raise ValueError(message)
    return w


def array_code(a):
    """``a`` ready for array code in ``xp`` (the complex logsumexp)."""
    return a


def where(where, shape, label="", qualname=""):
    """``where`` as a boolean mask broadcastable to ``shape``, or None."""
    return where_mask(where, shape)


def parse_out(out, nout, label="", qualname=""):
    """A method's ``out``: None or a tuple of ``nout`` ndarrays (or None)."""
    return (None,) * nout if out is None else _parse_out(out, nout)


def check_outs(outs, shape, label):
    """The given ``out`` entries: ndarrays of exactly the result's shape,
    writeable, no two sharing memory (``_args.check_outs``)."""
    if any(o is not None for o in outs):
        _check_outs(outs, shape, label)


check_dtypes = None  # result dtypes this backend cannot produce: none


def into(results, outs):
    """The results as returned: each given ``out`` receives its result
    (cast as ufunc.reduce casts into ``out``), 0-d results as scalars."""
    final = []
    for o, r in zip(outs, results):
        if o is not None:
            if r is not o:
                np.copyto(o, r, casting="unsafe")
            r = o
        elif isinstance(r, np.ndarray) and r.ndim == 0:
            r = r[()]
        final.append(r)
    return tuple(final)


def nonempty(a):
    return a.size > 0


def axis_length(a, ax, what="", qualname="", offsets=False):
    """The length of axis ``ax`` (known on the host)."""
    return a.shape[ax]


def host_indices(v, what, label):
    """Offsets or indices, on the host already."""
    return v


def group_ids(ids, num_groups_, n, label, qualname=""):
    """Checked host group ids -- (as intp for the scatter loop, as given for
    the messages: a uint64 id beyond intp), their values checked by the
    scatter loop -- and the number of groups."""
    given, ids_p = _group_ids(ids, n, label)
    return (ids_p, given), num_groups(num_groups_, given, label)


def _ids(ids):
    """(intp ids, ids as given) of ``group_ids``' pair, or of intp ids."""
    return ids if type(ids) is tuple else (ids, ids)


def states(states_, nout, label, arg):
    """merge's operands: a tuple of ``nout`` arrays (masked arrays refused)."""
    if not isinstance(states_, (tuple, list)):
        raise TypeError(f"{label}: '{arg}' must be a tuple with one array per ufunc output "
                        f"({nout}), not {type(states_).__name__}")
    if len(states_) != nout:
        raise ValueError(f"{label}: '{arg}' must have one entry per ufunc output ({nout}), got "
                         f"{len(states_)}")
    if any(isinstance(s, np.ma.MaskedArray) for s in states_):
        raise TypeError(f"{label}: masked arrays are not supported in '{arg}' (the mask would "
                        "be ignored); merge the states of the unmasked data")
    return tuple(np.asarray(s) for s in states_)


def own_ufunc(ufunc):
    """The engine's ufunc that ``ufunc`` stands for on this backend: itself."""
    return ufunc


def foreign(qualname, method, ufunc, *args, **kwargs):
    """A method of a ufunc the engine does not know: NumPy's own (reduce,
    accumulate, reduceat), else the engine's TypeError."""
    if method in ("reduce", "accumulate", "reduceat"):
        if not isinstance(ufunc, np.ufunc):
            raise TypeError(f"{method}() expects a numpy ufunc, got {type(ufunc).__name__}")
        if method == "reduce" and not is_given(kwargs.get("initial")):
            kwargs.pop("initial")
        return getattr(ufunc, method)(*args, **kwargs)
    multi_output(ufunc, method)  # raises


# ---------------------------------------------------------------------------
# reduce
# ---------------------------------------------------------------------------

def quick_reduce(ufunc, array, axis, keepdims):
    """``reduce`` of a plain ndarray without options (no out, dtype, where or
    initial) through the iterator-free C++ paths, before any argument
    handling; None where they do not apply (the general path then checks
    the arguments and raises the proper errors)."""
    if not keepdims and (axis is None or (array.ndim == 1 and type(axis) is int
                                          and axis in (0, -1))):
        return _core._reduce_all(ufunc, array)
    if array.ndim >= 2 and axis is not None and (array.flags.c_contiguous
                                                 or array.flags.f_contiguous or array.ndim > 2):
        # C-ordered data, and the layouts with a C-ordered view (F-ordered
        # arrays, transposed or moved-axis views: _plain's c_order_view)
        try:
            axes = normalize_axes(axis, array.ndim)
        except (TypeError, ValueError, IndexError):
            return None  # let the general path raise the proper error
        if 0 < len(axes) < array.ndim:
            return _plain(ufunc, array, axes, keepdims)
    return None


def c_order_view(a, axes):
    """The kernels are picked by the memory layout, not by the axis
    numbers: for an ``a`` that is not C-contiguous but whose axes, ordered
    by decreasing stride, give a C-contiguous view (an F-ordered array:
    reversed; a transposed or moved-axis view of a C array), that view,
    the reduced ``axes`` in it, and the permutation that puts the view's
    kept axes back in ``a``'s order; None for any other ``a``."""
    if a.ndim < 2 or a.flags.c_contiguous or not (a.flags.f_contiguous or a.size > 1):
        return None
    perm = sorted(range(a.ndim), key=lambda i: -a.strides[i])
    view = a.transpose(perm)
    if not view.flags.c_contiguous:
        return None
    vaxes = tuple(sorted(perm.index(i) for i in axes))
    kept = [i for i in perm if i not in axes]  # the view's kept axes, as a's axes
    back = tuple(sorted(range(len(kept)), key=lambda j: kept[j]))
    return view, vaxes, back


def _in_order(reduce_view, a, axes, keepdims):
    """``reduce_view(view, view_axes)`` (a tuple of states without the
    reduced axes, or None) of ``a``'s C-ordered view (``c_order_view``),
    its results in ``a``'s axis order; None where there is no such view or
    ``reduce_view`` gives None."""
    moved = c_order_view(a, axes)
    if moved is None:
        return None
    view, vaxes, back = moved
    res = reduce_view(view, vaxes)
    if res is None:
        return None
    res = tuple(r.transpose(back) for r in res)
    return tuple(np.expand_dims(r, axes) for r in res) if keepdims else res


# Elements of a slab below which a run of middle axes is not reduced one
# slab at a time (a call per slab: a few microseconds each)
_SLAB = 1 << 14


def _plain(ufunc, array, axes, keepdims, frame=False):
    """A reduction without options through the iterator-free C++ paths: the
    whole array, the leading axes of a C-contiguous array (axis=0 of a 2-D
    array: the column-blocked path) or its trailing axes (one loop call per
    row); None where none applies (each path returns None too when the
    array is not plain native data of the layout it handles)."""
    ndim = array.ndim
    k = len(axes)
    if k == ndim:
        if keepdims or type(array) is not np.ndarray:
            return None
        return _core._reduce_all(ufunc, array)
    if ndim < 2 or k == 0:
        return None
    if not array.flags.c_contiguous:
        return _in_order(lambda v, ax: _plain(ufunc, v, ax, False, frame), array, tuple(axes),
                         keepdims)
    axes = sorted(axes)
    if axes == list(range(k)):
        kept = array.shape[k:]
        res = _core._reduce_rows(ufunc, array.reshape(math.prod(array.shape[:k]), math.prod(kept)))
        shape = (1,) * k + kept if keepdims else kept
    elif axes == list(range(ndim - k, ndim)):
        kept = array.shape[:ndim - k]
        res = _core._reduce_trailing(ufunc, array.reshape(math.prod(kept),
                                                          math.prod(array.shape[ndim - k:])))
        shape = kept + (1,) * k if keepdims else kept
    elif axes == list(range(axes[0], axes[0] + k)):
        # a run of middle axes: each (n, inner) slab of the (outer, n, inner)
        # block reduced over its leading axis, one call for all the slabs
        # (the axis-0 row kernels; np.require made a transposed copy),
        # where the slabs are large enough
        i, j = axes[0], axes[0] + k
        outer, n = math.prod(array.shape[:i]), math.prod(array.shape[i:j])
        inner = math.prod(array.shape[j:])
        if n == 0 or n * inner < _SLAB:
            return None
        res = _core._reduce_rows(ufunc, array.reshape(outer, n, inner))  # slab after slab
        kept = array.shape[:i] + array.shape[j:]
        shape = array.shape[:i] + (1,) * k + array.shape[j:] if keepdims else kept
    else:
        return _ends(ufunc, array, axes, keepdims, frame)
    if res is None:
        return None
    return tuple(r.reshape(shape) for r in res)


# Elements of a block that _ends shifts into the moments' frame at a time
# (a float64 temporary of 1 MiB)
_FRAME_BLOCK = 1 << 17


def _ends(ufunc, array, axes, keepdims, frame=False):
    """Axes [0, k) and [j, ndim) of C-ordered data, k < j (a 3-D array's
    axes (0, 2)): the trailing run reduced row by row (``_reduce_trailing``:
    every row read in place), then the rows' states merged over the leading
    run in a pairwise tree (the merge loop, one call per level; combine()'s
    arithmetic, as the threads' pieces merge).  None for other axes, or
    empty data (the engine takes those).

    ``frame`` (the moments, from ``_accurate``): the rows' means are merged
    in a frame, each output's first value K subtracted first (a block of
    ``_FRAME_BLOCK`` elements at a time) and added back to the merged mean
    -- where the moments' states keep the data's own precision (float64,
    long double and integer data), the rows' means rounded at the data's
    magnitude would otherwise carry that rounding into every merge (1e8 +
    N(0, 1): 1e-9 relative, np.var 1e-15).  None where a merged state is
    not finite (inf/NaN data, or x - K overflowed): ``_accurate``'s copy
    path, whose engine handles those, takes it."""
    ndim = array.ndim
    k = next(i for i in range(ndim) if i not in axes)
    j = max(i for i in range(ndim) if i not in axes) + 1
    if k == 0 or j == ndim or list(axes) != list(range(k)) + list(range(j, ndim)):
        return None
    outer, inner = math.prod(array.shape[:k]), math.prod(array.shape[j:])
    kept = array.shape[k:j]
    m = math.prod(kept)
    if outer * m * inner == 0:
        return None
    dt = array.dtype
    # (the frame shifts output 1, the moments' mean; other states, e.g.
    # the summary's (n, min, max, mean, ...), merge unshifted)
    frame = frame and ufunc in (_core.moments, _core.nanmoments) and (
        dt.kind in "iu" or (dt.kind == "f" and dt.itemsize >= 8))
    if frame:
        block = array.reshape(outer, m, inner)
        K = block[0, :, 0].astype(np.result_type(dt, np.float64))
        K[~np.isfinite(K)] = 0
        step = max(1, _FRAME_BLOCK // (m * inner))
        parts = []  # each block's rows merged over its leading rows
        buf = np.empty((min(step, outer), m, inner), K.dtype)
        for o in range(0, outer, step):
            with np.errstate(all="ignore"):  # (x - K overflowed: the copy path redoes it)
                y = np.subtract(block[o:o + step], K[:, None], out=buf[:min(step, outer - o)])
            part = _core._reduce_trailing(ufunc, y.reshape(-1, inner))
            if part is None:
                return None
            parts.append(_merge_rows(ufunc, [s.reshape(-1, m) for s in part]))
        st = _merge_rows(ufunc, [np.concatenate([p[q] for p in parts]) for q in range(len(parts[0]))])
        st[1] = st[1] + K  # the means back from the frame
        if not all(np.isfinite(s).all() for s in st):
            return None
    else:
        st = _core._reduce_trailing(ufunc, array.reshape(outer * m, inner))
        if st is None:
            return None
        st = _merge_rows(ufunc, [s.reshape(outer, m) for s in st])
    shape = (1,) * k + kept + (1,) * (ndim - j) if keepdims else kept
    return tuple(s.reshape(shape) for s in st)


def _merge_rows(ufunc, st):
    """States (each an (n, m) array) merged over their rows in a pairwise
    tree (the merge loop, one call per level): (1, m) arrays."""
    dts = [s.dtype for s in st]
    descrs = merge_descrs(ufunc, dts, dts, len(st), ufunc.__name__)
    while st[0].shape[0] > 1:
        n = st[0].shape[0]
        h = n // 2
        merged = merge_states(ufunc, tuple(s[0:2 * h:2] for s in st),
                              tuple(s[1:2 * h:2] for s in st), (None,) * len(st), descrs)
        st = [np.concatenate([g, s[2 * h:]]) if n % 2 else g for g, s in zip(merged, st)]
    return st


def _reduce_one(ufunc, x, axes, keepdims, dtype=None, mask=None):
    """The states of one part (no out, no initial): the C++ fast paths, or
    the engine with the loop resolved for the part's dtype."""
    if dtype is None and mask is None and type(x) is np.ndarray:
        res = _plain(ufunc, x, axes, keepdims)
        if res is not None:
            return res
    descrs = resolve(ufunc, x.dtype, (None,) * ufunc.nout, dtype, ufunc.nout)
    return reduce(ufunc, x, axes, keepdims, descrs, (None,) * ufunc.nout, 0, None, mask)


def _accurate(ufunc, a, axes, keepdims, where):
    """(count, mean, M2) over `axes`, always through one of the moments'
    blocked two-pass paths: C-ordered data (or its C-ordered view) through
    ``_plain``'s paths where one applies (the leading axes: the
    column-parallel row-block path); otherwise the reduced axes are moved last
    and the data made contiguous, aligned and native (a copy only where it is
    not already; np.var makes an n-sized temporary too).  Strided
    accumulators would fall back to Welford's update, which loses accuracy on
    data with a large offset (see docs/accuracy.md)."""
    if where is not None:
        where = np.broadcast_to(where, a.shape)
    elif 0 < len(axes) < a.ndim and a.flags.aligned and a.dtype.isnative:
        # the memory order's leading axes, whatever their numbers (F-ordered data)
        res = _in_order(lambda v, ax: _accurate(ufunc, v, ax, False, None)
                        if ax == tuple(range(len(ax))) else None, a, tuple(axes), keepdims)
        if res is not None:
            return res
    if (where is None and 0 < len(axes) < a.ndim and a.flags.c_contiguous and a.flags.aligned
            and a.dtype.isnative):
        # C-ordered data, no copy (_plain): the leading axes (axis=0 of a 2-D
        # array) by the engine's column-parallel blocked two-pass; a run of
        # middle axes the same, one (n, inner) slab at a time; the leading
        # and the trailing axes by each row's blocked two-pass, the rows'
        # moments merged (Chan) over the leading axes in the frame of each
        # output's first value (_ends); the trailing
        # axes row by row.  None (an empty reduction, small slabs, other
        # axes): the copy below.
        res = _plain(ufunc, a, axes, keepdims, frame=True)
        if res is not None:
            return res
    if axes:
        rest = [i for i in range(a.ndim) if i not in axes]
        order = rest + sorted(axes)
        lead = tuple(a.shape[i] for i in rest)
        b = np.require(a.transpose(order), dtype=a.dtype.newbyteorder("="),
                       requirements=["C", "A"])
        flat = lead + (math.prod(a.shape[i] for i in axes),)
        b = b.reshape(flat)
        if where is not None:
            where = np.ascontiguousarray(where.transpose(order)).reshape(flat)
        states = _reduce_one(ufunc, b, (b.ndim - 1,), False, mask=where)
        if keepdims:
            states = tuple(np.expand_dims(r, axes) for r in states)
        return states
    return _reduce_one(ufunc, a, (), keepdims, mask=where)


def reduce(ufunc, x, axes, keepdims, descrs, outs, mode=0, initials=None, mask=None,
           finish=None, scalars=True, label="", qualname="", dtypes=None):
    """The states of ``ufunc`` reduced over ``axes`` (normalised) with the
    resolved loop ``descrs``, into ``outs`` (None entries: new arrays),
    started from the loop's initials (``mode`` 0), none (1) or
    ``initials`` (2), over the elements ``mask`` selects; then
    ``finish(np, states)`` where given.  ``scalars``: 0-d results without
    ``out`` as NumPy scalars; ``label``, ``qualname``: for lazy backends'
    graphs and messages.  The engine's reduce runs on NpyIter with the
    registered loops (keepdims: into the given outputs' views without the
    reduced axes)."""
    core_outs = tuple(o if o is None else o.squeeze(axis=axes) for o in outs) if keepdims \
        else outs
    results = _core._reduce(ufunc, x, core_outs, mask, axes, mode, initials, descrs)
    if keepdims:
        results = [o if o is not None else np.expand_dims(r, axes) for r, o in zip(results, outs)]
    else:
        results = [o if o is not None else r for r, o in zip(results, outs)]
    if scalars:
        results = [r[()] if o is None and r.ndim == 0 else r for r, o in zip(results, outs)]
    results = tuple(results)
    return results if finish is None else finish(np, results)


def reduce_parts(ufunc, x, axes, keepdims, parts, finish=None, dtypes=None, mask=None,
                 dtype=None, accurate=False, label="", qualname=""):
    """A statistic's reduction: ``parts(np, x)`` is the list of real arrays
    to reduce (the real and imaginary parts of complex data), each with the
    loop for its dtype and ``dtype=``, over the elements ``mask`` selects;
    ``finish(np, states)`` gets the list of their state tuples (without
    ``finish``: the list is returned).  ``accurate``: the moments' blocked
    two-pass layout (``_accurate``).  ``dtypes`` (the results' dtypes) is
    for lazy backends."""
    if accurate:
        states = [_accurate(ufunc, p, axes, keepdims, mask) for p in parts(np, x)]
    else:
        states = [_reduce_one(ufunc, p, axes, keepdims, dtype, mask) for p in parts(np, x)]
    return states if finish is None else finish(np, states)


# ---------------------------------------------------------------------------
# merge, scan, segments, groups, at
# ---------------------------------------------------------------------------

def merge_states(ufunc, a, b, outs, descrs):
    """combine(a, b) of two tuples of state arrays (checked, broadcastable),
    in the loop ``descrs`` (stream, accumulators)."""
    return _core._merge(ufunc, a, b, outs, descrs[0], descrs[1])


def merge(ufunc, a, b, outs, descrs, label=""):
    """``merge_states`` as the method returns it: 0-d results as scalars
    where no ``out`` was given."""
    res = merge_states(ufunc, a, b, outs, descrs)
    if all(o is None for o in outs):
        res = tuple(r[()] if r.ndim == 0 else r for r in res)
    return res


def _block3(arr, ax, dt):
    """C-contiguous, aligned, native data in the stream dtype, and its
    (outer, n, inner) layout around axis ``ax``.  K sources packed as
    records (``pack_sources``) become their K values per element, in ``dt``."""
    if arr.dtype.names is not None:
        names = arr.dtype.names
        if any(arr.dtype[f] != dt for f in names):
            arr = pack_sources([arr[f].astype(dt) for f in names])
        x = np.require(arr, requirements=["C", "A"]).reshape(-1).view(dt)
    else:
        x = np.require(arr.astype(dt, copy=False), requirements=["C", "A"])
    shape = arr.shape
    return x, (math.prod(shape[:ax]), shape[ax], math.prod(shape[ax + 1:]))


def scan(ufunc, x, ax, descrs, outs, label="", qualname=""):
    """Every output's running reduction along ``ax`` (the scan loop) in the
    loop ``descrs``, into ``outs`` (an ``out`` may overlap ``x``: computed
    into a temporary first)."""
    arr, (outer, n, inner) = _block3(x, ax, descrs[0])
    res = work_outs(outs, descrs[1:], x.shape, arr)
    _core._accumulate(ufunc, arr, tuple(res), outer, n, inner)
    return finish_outs(outs, res)


def scan_parts(ufunc, x, ax, parts, finish=None, dtypes=None, dtype=None, label="",
               qualname=""):
    """A statistic's scan: each of ``parts(np, x)`` scanned along ``ax`` in
    the loop for its dtype and ``dtype=``, then ``finish(np, states)`` of
    the list of their running states (returned as it is without it)."""
    states = []
    for p in parts(np, x):
        d = resolve(ufunc, stream_dtype(p), (None,) * ufunc.nout, dtype, ufunc.nout)
        states.append(scan(ufunc, p, ax, d, (None,) * ufunc.nout))
    return states if finish is None else finish(np, states)


def scan_output(values, ax, rdt, out, include_initial, initial):
    """A scan's result: ``values`` (one array) in a new array of dtype
    ``rdt`` or in ``out`` (checked), after ``initial`` along ``ax`` with
    ``include_initial``."""
    if out is None and not include_initial and values.dtype == rdt:
        return values  # a new array already
    shape = list(values.shape)
    shape[ax] += include_initial
    res = np.empty(tuple(shape), dtype=rdt) if out is None else out
    body = res
    if include_initial:
        head = [slice(None)] * res.ndim
        head[ax] = slice(0, 1)
        res[tuple(head)] = initial
        head[ax] = slice(1, None)
        body = res[tuple(head)]
    np.copyto(body, values, casting="unsafe")  # complex into a real out: ComplexWarning
    return res


def segments(ufunc, x, ax, starts, stops, descrs, outs, mode=0, seeds=None, initials=None,
             mask=None, seeded=True, kind="segments", label="", qualname=""):
    """Every segment [starts[s], stops[s]) of axis ``ax`` reduced (the
    segment loop; checked offsets on the host), started from the loop's
    initials (``mode`` 0), none (1) or ``seeds`` (2: ``initials`` cast to
    0-d arrays); ``seeded``: whether a start value exists; ``kind``: the
    method (reduceat, segmented_reduce), for lazy backends' graphs."""
    arr, (outer, n, inner) = _block3(x, ax, descrs[0])
    if mask is not None:
        mask = np.require(np.broadcast_to(mask, x.shape), requirements=["C", "A"])
    shape = x.shape[:ax] + (starts.shape[0],) + x.shape[ax + 1:]
    res = work_outs(outs, descrs[1:], shape, arr, mask)
    _core._segments(ufunc, arr, mask, tuple(res), outer, n, inner, starts, stops, mode, seeds)
    return finish_outs(outs, res)


def group_reduce(ufunc, x, ax, ids, g, descrs, outs, mode=0, initials=None, mask=None,
                 seeded=True, label="", qualname=""):
    """One reduction per group along ``ax`` (the scatter loop) in the loop
    ``descrs``, into ``outs``: ``ids`` in [0, g) (IndexError otherwise),
    every group started from the loop's initials (``seeded``), ``initials``
    (``mode`` 2) or its first element; a group without elements and no
    start value is a ValueError."""
    ids, given = _ids(ids)
    shape = x.shape[:ax] + (g,) + x.shape[ax + 1:]
    if isinstance(x, Sources):  # K sources: in place where the loop can (a tuple)
        arr, (outer, n, inner) = x.stream(ufunc, ax, descrs[0], mask)
    else:
        arr, (outer, n, inner) = _block3(x, ax, descrs[0])
    if mask is not None:
        mask = np.ascontiguousarray(np.broadcast_to(mask, x.shape))
    if mode == 2:
        accs = tuple(np.full(shape, v, dtype=d) for v, d in zip(initials, descrs[1:]))
        seen = None
    else:
        accs = tuple(np.empty(shape, dtype=d) for d in descrs[1:])
        seen = np.zeros(shape, dtype=np.uint8)
    if x.size == 0 and n > 0 and ((ids < 0) | (ids >= g)).any():
        raise bad_group_id(given, g, label)  # no element for the engine to check the ids on
    bad = _core._scatter(ufunc, arr, ids, mask, accs, seen, outer, n, inner, g)
    if bad >= 0:
        raise bad_group_id(given, g, label)
    if not seeded:
        # As np.minimum.reduce: an empty slice raises even where the result
        # is empty (shape (0, 0) over axis 0); where= is refused before.
        if outer * inner:
            empty = (seen == 0).reshape(outer, g, inner).any(axis=(0, 2))
        else:
            empty = np.bincount(ids, minlength=g) == 0
        if empty.any():
            raise empty_group_error(label, int(np.flatnonzero(empty)[0]))
    return finish_outs(outs, accs)


def group_reduce_parts(ufunc, x, ax, ids, g, parts, finish=None, dtypes=None, mode=0,
                       initials=None, mask=None, seeded=True, dtype=None, label="",
                       qualname=""):
    """A grouped statistic: each of ``parts(np, x)`` grouped in the loop for
    its dtype and ``dtype=``, then ``finish(np, states)`` of the list of
    their states (returned as it is without it)."""
    states = []
    for p in parts(np, x):
        d = resolve(ufunc, stream_dtype(p), (None,) * ufunc.nout, dtype, ufunc.nout)
        states.append(group_reduce(ufunc, p, ax, ids, g, d, (None,) * ufunc.nout, mode,
                                   initials, mask, seeded, label))
    return states if finish is None else finish(np, states)


def at(ufunc, outs, indices, values, label, qualname=""):
    """``ufunc.at`` in place: ``outs`` checked ndarrays; NumPy's indexing
    rules give the slot of every indexed element."""
    for i, o in enumerate(outs):
        if not isinstance(o, np.ndarray):
            raise TypeError(f"{label}: outs[{i}] must be an ndarray (updated in place), not "
                            f"{type(o).__name__}")
        if isinstance(o, np.ma.MaskedArray):
            raise TypeError(f"{label}: outs[{i}] is a masked array (the mask would be "
                            "ignored); pass np.ma.getdata(m)")
    shape = outs[0].shape
    _check_outs(outs, shape, label)
    nsrc = MULTI_SOURCE.get(ufunc)
    if nsrc is not None:  # K sources: `values` is the list of them (methods.at)
        srcs = values
        vals = srcs[0]  # broadcast together (`sources`): the shape and dtype of each
    else:
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
                raise IndexError(f"{label}: index {cand[k]} is out of bounds for axis 0 with "
                                 f"size {size}")
            idx[idx < 0] += size
    if idx is None:
        idx = np.arange(size, dtype=np.intp).reshape(shape)[indices]
    idx_shape = np.shape(idx)
    try:
        vals = np.broadcast_to(vals, idx_shape)
    except ValueError:
        raise ValueError(f"{label}: 'values' of shape {vals.shape} does not broadcast to the "
                         f"indexed shape {idx_shape}") from None
    descrs = at_descrs(ufunc, vals.dtype, [o.dtype for o in outs], ufunc.nout, label)
    ids = np.ascontiguousarray(idx, dtype=np.intp).reshape(-1)
    x = None if nsrc is None else in_place_sources(
        ufunc, [np.broadcast_to(v, idx_shape) for v in srcs], descrs[0])
    if x is not None:  # the K sources read in place by the scatter loop
        x = tuple(v.copy() if any(np.may_share_memory(v, o) for o in outs) else v for v in x)
    else:
        if nsrc is not None:  # the K values of an element side by side (a copy)
            x = pack_sources([np.broadcast_to(v, idx_shape).astype(descrs[0]) for v in srcs])
            x = x.reshape(-1).view(descrs[0])
        else:
            x = np.ascontiguousarray(vals, dtype=descrs[0]).reshape(-1)
        if any(np.may_share_memory(x, o) for o in outs):
            x = x.copy()  # read every value before any accumulator changes
    accs = []
    for o, d in zip(outs, descrs[1:]):
        direct = o.dtype == d and o.flags.c_contiguous and o.flags.aligned
        accs.append(o.reshape(-1) if direct else np.ascontiguousarray(o, dtype=d).reshape(-1))
    bad = _core._scatter(ufunc, x, ids, None, tuple(accs), None, 1, ids.size, 1, size)
    if bad >= 0:  # pragma: no cover - the ids come from NumPy's indexing
        raise IndexError(f"{label}: index {ids[bad]} is out of bounds")
    for o, r in zip(outs, accs):
        if r.base is not o and r is not o:
            np.copyto(o, r.reshape(shape), casting="unsafe")


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


def arg_rows(a, ax):
    """The rows of ``a`` that the arg kernel reduces for axis ``ax`` (None:
    the flattened array): a 2-D (rows, n) array, or for a middle axis
    (outer, n, inner) blocks whose outputs lie side by side; outputs in the C
    order of the shape without ``ax``.  A view where ``a`` is C-contiguous
    (else one C-order copy, as moving the axis last would make); strided
    rows, a reduction over a leading axis, need no copy: the row loop steps
    the columns together, or gathers a row's pieces."""
    if ax is None:
        return a.reshape(1, -1)
    if 0 < ax < a.ndim - 1:
        return a.reshape(math.prod(a.shape[:ax]), a.shape[ax], math.prod(a.shape[ax + 1:]))
    moved = np.moveaxis(a, ax, -1)
    return moved.reshape(math.prod(moved.shape[:-1]), moved.shape[-1])


def arg_reduce(a, ax, shape, skip_nan, label="", qualname=""):
    """(argmin, argmax) of ``a`` along axis ``ax`` (None: the flattened
    array), as intp arrays of ``shape``; the first occurrence wins ties, the
    first NaN both (``skip_nan``: NaNs skipped, an all-NaN slice raises)."""
    lo, hi = _arg_rows(arg_rows(a, ax), skip_nan)
    return lo.reshape(shape), hi.reshape(shape)


def quick_arg(a, skip_nan):
    """(argmin, argmax) of a non-empty 1-d array, as scalars (the common call)."""
    lo, hi = _arg_rows(a.reshape(1, -1), skip_nan)
    return lo[0], hi[0]


def group_arg(a, ids, g, descrs, label="", qualname=""):
    """(argmin, argmax) of every group of 1-d ``a``: the index of each
    group's first minimum and maximum (NaN propagating as in np.argmin).
    Two passes: each group's (min, max), then the first position equal to
    it (a NaN extreme matching the group's first NaN).  A group without
    elements is a ValueError."""
    lo, hi = group_reduce(_core.minimummaximum, a, 0, ids, g, descrs, (None, None),
                          seeded=False, label=label)
    ids = _ids(ids)[0]
    pos = np.arange(a.shape[0], dtype=np.intp)
    out = []
    for ext in (lo, hi):
        e = ext[ids]
        hit = a == e
        if a.dtype.kind in "fcmM":
            hit |= np.isnan(e) & np.isnan(a)
        first = np.full(g, a.shape[0], dtype=np.intp)
        np.minimum.at(first, ids[hit], pos[hit])
        out.append(first)
    return tuple(out)
