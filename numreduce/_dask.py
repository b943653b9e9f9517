"""numreduce on Dask arrays: one pass per chunk, a tree of merges, one graph.

``_dispatch.public_function`` routes a call whose array is a ``dask.array``
``Array`` here (``is_dask_array`` looks in ``sys.modules``: numreduce never
imports Dask itself).  Every function builds one tree reduction, the graph
of ``dask.array.reduction`` (``_reduction``: Dask's own tree step, the block
layer built here so that the block function is one shared key):

* ``chunk``: numreduce's C++ reduction of one block into its partial state
  (``reduce(ufunc, block, axis, keepdims=True)``; for argminmax the values
  and global indices of the block's extrema);
* ``combine``: the reduction's own ``merge`` folded over the states of up to
  ``split_every`` blocks (``concatenate=False``: the states travel as dicts);
* ``aggregate``: the last merge and the NumPy path's finish step (``M2 / (n -
  ddof)``, ``m + log1p(t)``, ``s + e``), written into one structured array
  with one field per output.

The outputs are ``map_blocks`` views of that one structured result, so
computing them together reads and reduces every chunk once.  The arguments
are checked at graph-build time by running the NumPy path on a one-element
(or, for empty input, the real empty) probe array: the same exceptions, and
the result dtypes.  See docs/dask.md.
"""

from __future__ import annotations

import functools
import math
import warnings

import numpy as np

from . import _api, _core
from ._args import axis_index, keepdims_flag, normalize_axes, where_mask
from ._engine import NoValue, _parse_initial, _resolve, has_initials
from ._dispatch import _is_dask_array as is_dask_array
from ._methods import merge

__all__ = ["is_dask_array", "dispatch"]


def dispatch(qualname, arguments):
    """The Dask implementation of public function `qualname`, called with
    the bound `arguments`; a TypeError for the functions that have none."""
    name = qualname.rsplit(".", 1)[-1]
    handler = _HANDLERS.get(name)
    if handler is None:
        raise TypeError(f"{qualname}: dask arrays are not supported by this function; "
                        "compute the array first (x.compute()) or apply the function per "
                        "block (x.map_blocks)")
    return handler(qualname, dict(arguments))


# ---------------------------------------------------------------------------
# shared pieces
# ---------------------------------------------------------------------------

def _as_dask(qualname, a, out=None):
    import dask.array as da

    if out is not None:
        raise TypeError(f"{qualname}: out= is not supported for dask arrays (the results are "
                        "lazy dask arrays); compute them and assign the values")
    x = a if is_dask_array(a) else da.asarray(a)
    meta = getattr(x, "_meta", None)
    if type(meta) is not np.ndarray:
        raise TypeError(f"{qualname}: dask arrays of {type(meta).__name__} chunks are not "
                        "supported (numreduce reduces NumPy ndarray chunks); for masked "
                        "chunks use da.ma.filled or compute the array first")
    return x


def _known(shape) -> bool:
    return not any(math.isnan(n) for n in shape)


def _where(qualname, where, x):
    """``where`` as a NumPy or dask boolean mask (None: no mask), checked
    against ``x``'s shape as ``where_mask`` checks it."""
    if where is True:
        return None
    if is_dask_array(where):
        if not np.can_cast(where.dtype, np.bool_, casting="safe"):
            raise TypeError(f"'where' must be a boolean array: cannot cast array data from "
                            f"{where.dtype!r} to dtype('bool') according to the rule 'safe'")
        w = where.astype(bool) if where.dtype != bool else where
    else:
        w = where_mask(where)
    if _known(x.shape) and _known(w.shape):
        where_mask(np.broadcast_to(np.True_, w.shape), x.shape)  # the NumPy path's check
    return w


def _probe_array(x):
    """The NumPy stand-in that checks the arguments at graph-build time: the
    real (empty) array when ``x`` is empty, else one element per axis."""
    if _known(x.shape) and math.prod(x.shape) == 0:
        return np.zeros(x.shape, x.dtype)
    return np.zeros((1,) * x.ndim, x.dtype)


def _probe_where(w, probe):
    if w is None:
        return True
    if probe.size == 0 and _known(w.shape):
        return np.broadcast_to(np.True_, w.shape)
    return np.ones((1,) * w.ndim, bool)


def _probe(func, arguments, array, x, w=None):
    """Run the NumPy path on the probe: its exceptions now, its result dtypes."""
    args = dict(arguments)
    probe = _probe_array(x)
    args[array] = probe
    if "where" in args:
        args["where"] = _probe_where(w, probe)
    if "out" in args:
        args["out"] = None
    with warnings.catch_warnings(), np.errstate(all="ignore"):
        warnings.simplefilter("ignore")
        res = func(**args)
    res = res if isinstance(res, tuple) else (res,)
    return [np.asarray(r).dtype for r in res]


def _flatten(parts):
    """The states of a combine/aggregate step (nested lists, one level per
    reduced axis, or one state), in block order; empty states dropped."""
    if isinstance(parts, list):
        out = []
        for p in parts:
            out.extend(_flatten(p))
        return out
    return [] if parts is None or parts.get("empty") else [parts]


def _fold(merge_states, parts):
    states = _flatten(parts)
    if not states:
        return {"empty": True}
    acc = states[0]["s"]
    for st in states[1:]:
        acc = merge_states(acc, st["s"])
    return {"empty": False, "s": acc}


def _pack(results, out_dt):
    results = [np.asarray(r) for r in results]
    res = np.empty(np.broadcast_shapes(*(r.shape for r in results)), out_dt)
    for i, r in enumerate(results):
        res[f"f{i}"] = r
    return res


def _field(block, i):
    r = np.array(block[f"f{i}"])
    return r[()] if r.ndim == 0 else r


def _chunk(block_state, out_dt, x_chunk, weights_chunk=None, axis=None, keepdims=True,
           computing_meta=False):
    if computing_meta:
        return np.empty((0,) * np.ndim(x_chunk), out_dt)
    return block_state(x_chunk, weights_chunk, axis)


def _combine(merge_states, out_dt, parts, axis=None, keepdims=True, computing_meta=False):
    if computing_meta:
        return np.empty((0,) * np.ndim(parts), out_dt)
    return _fold(merge_states, parts)


def _squeeze(states, axis):
    """The states without the reduced axes (keepdims=False)."""
    if isinstance(states, tuple):
        return tuple(_squeeze(s, axis) for s in states)
    return np.squeeze(np.asarray(states), axis=axis)


def _aggregate(merge_states, finish, out_dt, parts, axis=None, keepdims=False,
               computing_meta=False):
    if computing_meta:
        return np.empty((0,) * max(np.ndim(parts) - (0 if keepdims else len(axis)), 0), out_dt)
    st = _fold(merge_states, parts)
    states = None if st["empty"] else st["s"]
    if states is not None and not keepdims:
        states = _squeeze(states, axis)
    return _pack(finish(states), out_dt)


_SPLIT_EVERY = 16


def _apply_block(x_chunk, weights_chunk=None, axis=None, block_fn=None):
    return block_fn(x_chunk, weights_chunk, axis=axis)


def _tree_reduce_fn():
    """Dask's own tree step of ``da.reduction`` (the merge tree over the
    chunk states), where this Dask version has it; None otherwise."""
    try:
        from dask.array._reductions_generic import _tree_reduce
    except ImportError:
        try:
            from dask.array.reductions import _tree_reduce
        except ImportError:
            return None
    return _tree_reduce


def _reduction(name, x, axes, keepdims, out_dt, block_state, merge_states, finish, w=None,
               output_size=1):
    """``da.reduction(..., concatenate=False)`` of the per-block states,
    with one difference in the graph: the block function is one shared key
    of the graph (a Delayed), a keyword argument of every block's task.  Each
    block's task then has two dependencies, so Dask's linear fusion leaves
    it alone instead of wrapping it and its source block into a fused
    subgraph (run through ``_execute_subgraph``, which orders a small graph
    per task: about 80 us of scheduler overhead per block, measured on
    Dask 2026.8, more than the C++ work of a 1e6-element minmax).  The
    merge tree is Dask's own (``split_every`` as in ``da.reduction``)."""
    import dask
    import dask.array as da
    from dask.base import tokenize

    ndim = x.ndim if keepdims else x.ndim - len(axes)
    meta = np.empty((0,) * ndim, out_dt)
    # dask.config's split_every where the user set one; else 16 states per
    # merge task (the states are a few numbers per output element, so a
    # flatter tree than Dask's default of 4 saves tasks, not memory)
    split_every = dask.config.get("split_every", None) or _SPLIT_EVERY
    chunk = functools.partial(_chunk, block_state, out_dt)
    aggregate = functools.partial(_aggregate, merge_states, finish, out_dt)
    combine = functools.partial(_combine, merge_states, out_dt)
    tree_reduce = _tree_reduce_fn()
    if tree_reduce is None:  # pragma: no cover - a Dask without the tree step
        return da.reduction(x, chunk, aggregate, combine=combine, axis=axes,
                            keepdims=keepdims, dtype=out_dt, concatenate=False, meta=meta,
                            weights=w, name=f"numreduce-{name}", split_every=split_every,
                            output_size=output_size)
    inds = tuple(range(x.ndim))
    args = [x, inds]
    if w is not None:
        wgt = da.asanyarray(w)
        try:
            wgt = da.broadcast_to(wgt, x.shape)
        except ValueError:
            raise ValueError(f"Weights with shape {wgt.shape} are not broadcastable to x with "
                             f"shape {x.shape}") from None
        if wgt.chunks != x.chunks:
            # x's own chunks, empty ones included (blockwise's unification
            # of different chunkings drops empty chunks, and the tree step
            # then meets states it did not make)
            wgt = wgt.rechunk(x.chunks)
        args += [wgt, inds]
    fn = dask.delayed(chunk, pure=True, traverse=False,
                      name=f"numreduce-fn-{name}-{tokenize(chunk)}")
    # (a keyword argument: a positional one without index would make
    # blockwise unify the chunks, which drops empty chunks)
    tmp = da.blockwise(_apply_block, inds, *args, axis=axes, block_fn=fn,
                       token=f"numreduce-{name}", dtype=out_dt,
                       meta=np.empty((0,) * x.ndim, out_dt))
    tmp._chunks = tuple((output_size,) * len(c) if i in axes else c
                        for i, c in enumerate(tmp.chunks))
    res = tree_reduce(tmp, aggregate, axes, keepdims, out_dt, split_every, combine,
                      name=f"numreduce-{name}", concatenate=False,
                      reduced_meta=np.empty((0,) * x.ndim, out_dt))
    if keepdims and output_size != 1:
        res._chunks = tuple((output_size,) if i in axes else c
                            for i, c in enumerate(tmp.chunks))
    res._meta = meta
    return res


def _outputs(name, res, dtypes, ndim):
    """The lazy outputs: views of the fields of the one structured result."""
    return tuple(res.map_blocks(_field, i, dtype=dt, meta=np.empty((0,) * ndim, dt),
                                token=f"numreduce-{name}-out{i}")
                 for i, dt in enumerate(dtypes))


def _build(name, x, axes, keepdims, dtypes, block_state, merge_states, finish, w=None):
    """One reduction whose aggregate packs the outputs into a structured
    array; the outputs are lazy views of its fields."""
    out_dt = np.dtype([(f"f{i}", dt) for i, dt in enumerate(dtypes)])
    ndim = x.ndim if keepdims else x.ndim - len(axes)
    res = _reduction(name, x, axes, keepdims, out_dt, block_state, merge_states, finish, w)
    return _outputs(name, res, dtypes, ndim)


def _reduced_size(shape, axes):
    return math.prod(shape[i] for i in axes)


# ---------------------------------------------------------------------------
# reduce (and minmax, nanminmax)
# ---------------------------------------------------------------------------

def _ufunc_ref(ufunc):
    """What the graph's functions carry for `ufunc`: the name of one of
    numreduce's own ufuncs, which Dask tokenizes cheaply (a ufunc it
    pickles, per task), or the ufunc itself for one registered through the
    C API by another package (its name need not be unique; it pickles by
    its module and name, so process and distributed workers import it)."""
    name = ufunc.__name__
    return name if getattr(_core, name, None) is ufunc else ufunc


def _ufunc(ref):
    """The ufunc of a `_ufunc_ref`."""
    return getattr(_core, ref) if isinstance(ref, str) else ref


def _keep_reduce(ufunc, block, axes, dtype=None, initial=NoValue, where=True):
    """``reduce(ufunc, block, axes, keepdims=True)``; a whole block without
    options through the engine's iterator-free full reduction (the path of
    ``reduce(..., axis=None)``), reshaped."""
    if (len(axes) == block.ndim and dtype is None and initial is NoValue
            and where is True):
        return tuple(np.reshape(r, (1,) * block.ndim)
                     for r in _api.reduce(ufunc, block, axis=None))
    return _api.reduce(ufunc, block, axis=axes, dtype=dtype, keepdims=True, initial=initial,
                       where=where)


def _reduce_state(ufunc, dtype, initial, identity, block, w, axes):
    ufunc = _ufunc(ufunc)
    if not identity and _reduced_size(block.shape, axes) == 0:
        return {"empty": True}  # no initial: the block adds nothing
    where = True if w is None else w
    return {"empty": False, "s": _keep_reduce(ufunc, block, axes, dtype=dtype,
                                              initial=initial, where=where)}


_MERGE_LOOPS: dict = {}


def _merge2(ufunc, a, b):
    """``merge(ufunc, a, b)`` of two states of one graph.  The first pair of
    each (ufunc, state dtypes) goes through the public ``merge`` (its checks
    and errors) and leaves its loop resolution here; the next pairs of the
    same dtypes and one shape call the core merge directly (2 us instead of
    about 25 us a merge; a combine task folds up to ``split_every`` states).
    Anything else (shapes that broadcast) takes the public ``merge``."""
    a = tuple(np.asarray(s) for s in a)
    b = tuple(np.asarray(s) for s in b)
    nout = ufunc.nout
    shape = a[0].shape if a else None
    if len(a) != nout or len(b) != nout or any(s.shape != shape for s in a + b):
        return merge(ufunc, a, b)
    key = (ufunc, tuple(s.dtype for s in a + b))
    loop = _MERGE_LOOPS.get(key)
    if loop is None:
        res = merge(ufunc, a, b)
        descrs = _resolve(ufunc, np.result_type(*a, *b), (None,) * nout, None, nout)
        _MERGE_LOOPS[key] = (descrs[0], descrs[1])
        return res
    res = _core._merge(ufunc, a, b, (None,) * nout, loop[0], loop[1])
    return tuple(r[()] if r.ndim == 0 else r for r in res)


def _merge_ufunc(ufunc, a, b):
    return _merge2(_ufunc(ufunc), a, b)


def _merge_parts(ufunc, a, b):
    """merge of states made of one state per real part (complex data)."""
    ufunc = _ufunc(ufunc)
    return tuple(_merge2(ufunc, pa, pb) for pa, pb in zip(a, b))


def _reduce_finish(name, dtypes, after, ref, seeds, states):
    if states is None:
        # only with unknown chunk sizes (known empty input fails at build time)
        raise ValueError(f"zero-size array to reduction operation {name} which has no "
                         "identity")
    if seeds is not None:
        states = _merge_seeds(_ufunc(ref), seeds, states)
    res = tuple(np.asarray(s, dtype=dt) for s, dt in zip(states, dtypes))
    if after is not None:
        after(res)
    return res


def _nan_warning(res):
    if any(np.isnan(r).any() for r in res):
        warnings.warn("All-NaN slice encountered", RuntimeWarning, stacklevel=2)


def _has_initials(ufunc, dt, dtype):
    """Whether the loop that reduces `dt` data (with `dtype=`) has initials,
    from the loop table (a ufunc registered through the C API too).  Where
    the data's dtype has no loop of its own (a user function converts it
    first: complex meanvar, ...), the ufunc is one of numreduce's, whose
    loops all agree: only minimummaximum and fminfmax lack initials."""
    try:
        stream = _resolve(ufunc, np.dtype(dt), (None,) * ufunc.nout, dtype, ufunc.nout)[0]
    except TypeError:
        return ufunc not in (_core.minimummaximum, _core.fminfmax)
    return has_initials(ufunc, stream)


def _seeds_once(qualname, ufunc, initial, dtypes, has_init):
    """The user's ``initial`` as one state (0-d arrays in the output dtypes),
    merged once into the merged block states -- or None where the blocks
    may take it themselves.  Every block seeded with ``initial`` counts it
    once per block: exact only where the seed merged with itself is the
    seed, bit for bit (min/max seeds, a zero sum), which also gives an
    empty block its state; wrong for the others (a moments seed's count,
    a twosum seed's value, a maxsumexp seed's term).  Their blocks start
    from the ufunc's own initials (identities of its merge) instead."""
    from ._segments import seed_values

    mode, initials = _parse_initial(initial, ufunc.nout)
    if mode != 2:
        return None
    seeds = seed_values(initials, [None, *dtypes], qualname)
    twice = _merge2(ufunc, seeds, seeds)
    if all(np.asarray(t, dtype=sd.dtype).tobytes() == sd.tobytes()
           for t, sd in zip(twice, seeds)):
        return None
    if not has_init:
        raise TypeError(f"{qualname}: initial= on a dask array needs a ufunc with initial "
                        f"values ({ufunc.__name__} has none), so that every block can start "
                        "without it; reduce a NumPy array, or pass the initial state to "
                        "merge() after the reduction")
    return seeds


def _merge_seeds(ufunc, seeds, states):
    """merge(ufunc, seeds, states): the seeds first, as a reduction's start."""
    shape = np.shape(states[0])
    return _merge2(ufunc, tuple(np.broadcast_to(sd, shape) for sd in seeds), states)


def _reduce(qualname, ufunc, func, arguments, array, after=None):
    x = _as_dask(qualname, arguments[array], arguments.get("out"))
    w = _where(qualname, arguments["where"], x)
    dtypes = _probe(func, arguments, array, x, w)
    axes = normalize_axes(arguments["axis"], x.ndim)
    keepdims = keepdims_flag(arguments["keepdims"])
    initial = arguments["initial"]
    mode, _ = _parse_initial(initial, ufunc.nout)
    dtype = arguments.get("dtype")
    has_init = _has_initials(ufunc, x.dtype, dtype)
    seeds = _seeds_once(qualname, ufunc, initial, dtypes, has_init)
    if seeds is not None:
        initial = NoValue  # the blocks start from the ufunc's initials
    identity = mode == 2 or mode == 0 and has_init
    name, ref = ufunc.__name__, _ufunc_ref(ufunc)
    return _build(name, x, axes, keepdims, dtypes,
                  functools.partial(_reduce_state, ref, dtype, initial, identity),
                  functools.partial(_merge_ufunc, ref),
                  functools.partial(_reduce_finish, name, dtypes, after, ref, seeds), w)


def _reduce_handler(qualname, arguments):
    from ._engine import MULTI_OUTPUT, reduce

    ufunc = arguments["ufunc"]
    if ufunc not in MULTI_OUTPUT:
        raise TypeError(f"{qualname}: dask arrays are supported for numreduce's multi-output "
                        f"ufuncs; for {getattr(ufunc, '__name__', ufunc)!r} use dask's own "
                        "reductions (da.reduction or the ufunc's dask method)")
    return _reduce(qualname, ufunc, reduce, arguments, "array")


def _minmax_handler(qualname, arguments):
    return _reduce(qualname, _core.minimummaximum, _api.minmax, arguments, "a")


def _nanminmax_handler(qualname, arguments):
    return _reduce(qualname, _core.fminfmax, _api.nanminmax, arguments, "a", _nan_warning)


# ---------------------------------------------------------------------------
# meanvar, meanstd, nanmeanvar
# ---------------------------------------------------------------------------

def _moments_state(name, ufunc, mean_dt, nan, block, w, axes):
    ufunc = _ufunc(ufunc)
    parts = _api._moment_parts(block, mean_dt, nan)
    where = True if w is None else w
    return {"empty": False,
            "s": tuple(_api._moments(ufunc, p, axes, True, where)[1:] for p in parts)}


def _moments_finish(mean_dt, var_dt, ddof, std, nan_dof, states):
    count = states[0][0]
    m2 = states[0][2] if len(states) == 1 else np.add(states[0][2], states[1][2])
    return _api._finish_meanvar(count, [s[1] for s in states], m2, mean_dt, var_dt, ddof, std,
                                nan_dof=nan_dof)


def _meanvar_handler(name, std, nan):
    func = getattr(_api, name)

    def handler(qualname, arguments):
        x = _as_dask(qualname, arguments["a"])
        w = _where(qualname, arguments["where"], x)
        dtypes = _probe(func, arguments, "a", x, w)
        meta = np.empty((1,) * x.ndim, x.dtype)
        ddof, mean_dt, var_dt, axis, ufunc = _api._meanvar_args(
            name, meta, arguments["axis"], arguments["dtype"], arguments["ddof"], nan)
        axes = normalize_axes(axis, x.ndim, scalar_rule=False)
        keepdims = keepdims_flag(arguments["keepdims"])
        nan_dof = nan and x.dtype.kind in "fc"
        return _build(name, x, axes, keepdims, dtypes,
                      functools.partial(_moments_state, name, ufunc.__name__, mean_dt, nan),
                      functools.partial(_merge_parts, ufunc.__name__),
                      functools.partial(_moments_finish, mean_dt, var_dt, ddof, std, nan_dof),
                      w)

    return handler


# ---------------------------------------------------------------------------
# logsumexp, fsum
# ---------------------------------------------------------------------------

def _lse_state(block, w, axes):
    return {"empty": False,
            "s": _keep_reduce(_core.maxsumexp, block, axes)}


def _lse_finish(in_dtype, states):
    return (_api._logsumexp_finish(states[0], states[1], in_dtype),)


def _logsumexp_handler(qualname, arguments):
    import dask.array as da

    x = _as_dask(qualname, arguments["a"])
    dtypes = _probe(_api.logsumexp, arguments, "a", x)
    if x.dtype.kind == "c":
        # SciPy's complex rules: the NumPy path's array code on dask arrays
        # (several passes, as on NumPy; not the one-pass reduction), on x
        # without its empty chunks (Dask's where/reshape/concatenate trip
        # over them)
        if _known(x.shape) and x.size and any(0 in c for c in x.chunks):
            x = x.rechunk(tuple(tuple(n for n in c if n) for c in x.chunks))
        return _api._logsumexp_complex(x, arguments["axis"], arguments["keepdims"], xp=da)
    axes = normalize_axes(arguments["axis"], x.ndim)
    keepdims = keepdims_flag(arguments["keepdims"])
    return _build("logsumexp", x, axes, keepdims, dtypes, _lse_state,
                  functools.partial(_merge_ufunc, "maxsumexp"),
                  functools.partial(_lse_finish, x.dtype))[0]


def _fsum_state(acc, rdt, block, w, axes):
    return {"empty": False,
            "s": tuple(_keep_reduce(_core.twosum, p, axes, dtype=acc)
                       for p in _api._fsum_parts(block, rdt))}


def _fsum_finish(rdt, states):
    return (_api._fsum_assemble([_api._fsum_finish(s, e) for s, e in states], rdt),)


def _fsum_handler(qualname, arguments):
    x = _as_dask(qualname, arguments["a"])
    dtypes = _probe(_api.fsum, arguments, "a", x)
    acc, rdt = _api._fsum_dtype(x.dtype, arguments["dtype"])
    axes = normalize_axes(arguments["axis"], x.ndim)
    keepdims = keepdims_flag(arguments["keepdims"])
    return _build("fsum", x, axes, keepdims, dtypes,
                  functools.partial(_fsum_state, acc, rdt),
                  functools.partial(_merge_parts, "twosum"),
                  functools.partial(_fsum_finish, rdt))[0]


# ---------------------------------------------------------------------------
# argminmax, nanargminmax: values and global indices per block
# ---------------------------------------------------------------------------

def _isnan(v):
    if v.dtype.kind in "fc":
        return np.isnan(v)
    if v.dtype.kind in "mM":
        return np.isnat(v)
    return np.zeros(v.shape, bool)


def _arg_block(block, axis, skip, shape, state_dt, block_info=None):
    """(vmin, imin, vmax, imax) of one block, keepdims shape; indices global
    (C-order flat for axis=None), -1 where the block has nothing (empty, or
    all NaN when skipping NaNs)."""
    kshape = (1,) * block.ndim if axis is None else \
        tuple(1 if i == axis else n for i, n in enumerate(block.shape))
    st = np.zeros(kshape, state_dt)
    if block_info is None:  # meta
        return st
    start = [lo for lo, _ in block_info[0]["array-location"]]
    if block.size == 0 or (axis is not None and block.shape[axis] == 0):
        st["imin"] = st["imax"] = -1
        return st
    bad = None
    if skip:
        nan = _isnan(block)
        bad = nan.all(axis=axis, keepdims=True)
        if bad.any():
            block = np.where(bad, np.zeros((), block.dtype), block)
    if axis is None:
        flat = block.reshape(-1)
        lo, hi = _api.argminmax(flat) if not skip else _api.nanargminmax(flat)
        idx = []
        for i in (lo, hi):
            st_v = flat[i]
            multi = np.unravel_index(i, block.shape)
            g = np.ravel_multi_index(tuple(m + s for m, s in zip(multi, start)), shape)
            idx.append((st_v, g))
        (st["vmin"], st["imin"]), (st["vmax"], st["imax"]) = idx
    else:
        f = _api.nanargminmax if skip else _api.argminmax
        lo, hi = f(block, axis=axis, keepdims=True)
        st["vmin"] = np.take_along_axis(block, lo, axis)
        st["vmax"] = np.take_along_axis(block, hi, axis)
        st["imin"] = lo + start[axis]
        st["imax"] = hi + start[axis]
    if bad is not None:
        st["imin"] = np.where(bad, -1, st["imin"])
        st["imax"] = np.where(bad, -1, st["imax"])
    return st


def _arg_pick(va, ia, vb, ib, less):
    """Where state b replaces state a: NumPy's rule -- the first NaN (NaT)
    wins both, then the smaller (larger) value, then the smaller index."""
    na, nb = _isnan(va), _isnan(vb)
    with np.errstate(invalid="ignore"):
        better = (vb < va) if less else (vb > va)
        better = (nb & ~na) | (~na & ~nb & better) | \
            ((nb == na) & ((vb == va) | (na & nb)) & (ib < ia))
    return (ib >= 0) & ((ia < 0) | better)


def _arg_merge(a, b):
    out = a.copy()
    for v, i, less in (("vmin", "imin", True), ("vmax", "imax", False)):
        take = _arg_pick(a[v], a[i], b[v], b[i], less)
        out[v] = np.where(take, b[v], a[v])
        out[i] = np.where(take, b[i], a[i])
    return out


def _arg_identity(block, w, axes):
    return {"empty": False, "s": block}


def _arg_finish(skip, states):
    st = states
    if (st["imin"] < 0).any() or (st["imax"] < 0).any():
        if skip:
            raise ValueError("All-NaN slice encountered")
        raise ValueError("attempt to get argmin of an empty sequence")
    return (st["imin"].astype(np.intp), st["imax"].astype(np.intp))


def _argminmax_handler(name, skip_nan):
    func = getattr(_api, name)

    def handler(qualname, arguments):
        x = _as_dask(qualname, arguments["a"], arguments.get("out"))
        dtypes = _probe(func, arguments, "a", x)
        if not _known(x.shape):
            raise ValueError(f"{qualname}: dask arrays with unknown chunk sizes are not "
                             "supported (the global indices need the chunk offsets); call "
                             "x.compute_chunk_sizes() first")
        keepdims = keepdims_flag(arguments["keepdims"])
        axis = arguments["axis"]
        if x.ndim == 0:
            x = x.reshape(1)
            axis, keepdims = None, False
        ax = None if axis is None else axis_index(axis, x.ndim)
        skip = skip_nan and x.dtype.kind in "fc"
        state_dt = np.dtype([("vmin", x.dtype), ("imin", np.int64), ("vmax", x.dtype),
                             ("imax", np.int64)])
        kchunks = tuple((1,) * len(c) if ax is None or i == ax else c
                        for i, c in enumerate(x.chunks))
        states = x.map_blocks(_arg_block, ax, skip, x.shape, state_dt, chunks=kchunks,
                              dtype=state_dt, meta=np.empty((0,) * x.ndim, state_dt),
                              token=f"numreduce-{name}-chunk")
        axes = tuple(range(x.ndim)) if ax is None else (ax,)
        return _build(name, states, axes, keepdims, dtypes, _arg_identity, _arg_merge,
                      functools.partial(_arg_finish, skip))

    return handler


_HANDLERS = {
    "reduce": _reduce_handler,
    "minmax": _minmax_handler,
    "nanminmax": _nanminmax_handler,
    "meanvar": _meanvar_handler("meanvar", std=False, nan=False),
    "meanstd": _meanvar_handler("meanstd", std=True, nan=False),
    "nanmeanvar": _meanvar_handler("nanmeanvar", std=False, nan=True),
    "logsumexp": _logsumexp_handler,
    "fsum": _fsum_handler,
    "argminmax": _argminmax_handler("argminmax", skip_nan=False),
    "nanargminmax": _argminmax_handler("nanargminmax", skip_nan=True),
}


# ---------------------------------------------------------------------------
# grouped reductions: reduce_by_group, group_minmax, group_meanvar,
# group_logsumexp, group_fsum (one da.reduction over the group axis, whose
# output has num_groups entries there: output_size)
# ---------------------------------------------------------------------------

def _group_ids_1d(w_block, block, axis):
    """The block's 1-d group ids from their broadcast block (None where the
    block is empty across the group axis, which hides them)."""
    if w_block.size == 0:
        return None
    return np.ascontiguousarray(w_block[tuple(slice(None) if i == axis else 0
                                              for i in range(w_block.ndim))], dtype=np.intp)


def _group_state(ufunc, g, initial, fill, dtype, parts, masked, block, w, axes):
    from ._groups import _reduce_by_group

    ufunc = _ufunc(ufunc)
    axis = axes[0]
    mask = True
    if masked:  # the where mask rides in the ids' sign: id where selected, -1 - id where not
        mask = w >= 0
        w = np.where(mask, w, -1 - w)
    ids = _group_ids_1d(w, block, axis)
    counts = None if ids is None else np.bincount(ids, minlength=g)
    if ids is None:
        ids = np.zeros(block.shape[axis], np.intp)  # the block has no elements
    init = initial if fill is None else fill
    states = tuple(_reduce_by_group(ufunc, p, ids, g, axis=axis, dtype=dtype, initial=init,
                                    where=mask)
                   for p in parts(block))
    return {"empty": False, "s": (states, counts)}


def _merge_groups(ufunc, a, b):
    counts = b[1] if a[1] is None else a[1] if b[1] is None else a[1] + b[1]
    return _merge_parts(ufunc, a[0], b[0]), counts


def _group_finish(name, check_empty, finish, dtypes, states):
    parts, counts = states
    # counts None: an output block with no elements across the group axis
    # (the empty groups are then found at build time or by the other blocks)
    if check_empty and counts is not None and (counts == 0).any():
        k = int(np.flatnonzero(counts == 0)[0])
        raise ValueError(f"{name}: group {k} is empty and the reduction has no initial "
                         "value (pass initial=..., or group_ids without empty groups)")
    return tuple(np.asarray(r, dtype=dt) for r, dt in zip(finish(dtypes, parts), dtypes))


def _one_part(block):
    return [block]


def _real_parts(work, block):
    """block (NumPy or dask), or its real and imaginary parts, converted to
    `work` where that is long double."""
    parts = [block.real, block.imag] if block.dtype.kind == "c" else [block]
    return [p.astype(work, copy=False) for p in parts] if work.itemsize > 8 else parts


def _states_finish(dtypes, parts):
    return tuple(np.asarray(s, dtype=dt) for s, dt in zip(parts[0], dtypes))


def _seeded_finish(ref, seeds, finish, dtypes, parts):
    """finish() after the user's initial merged once into every group."""
    return finish(dtypes, [_merge_seeds(_ufunc(ref), seeds, parts[0]), *parts[1:]])


def _group_meanvar_finish(mean_dt, var_dt, ddof, dtypes, parts):
    count = parts[0][0]
    m2 = parts[0][2] if len(parts) == 1 else np.add(parts[0][2], parts[1][2])
    return _api._finish_meanvar(count, [p[1] for p in parts], m2, mean_dt, var_dt, ddof,
                                std=False)


def _group_lse_finish(in_dtype, dtypes, parts):
    return (_api._logsumexp_finish(parts[0][0], parts[0][1], in_dtype),)


def _group_fsum_finish(dtypes, parts):
    return (_api._fsum_finish(*parts[0]),)


def _dask_ids(qualname, label, gids, num_groups, n, chunks, empty_label):
    """(group ids as a dask array chunked as the group axis, num_groups),
    with the NumPy path's checks (messages naming `label`): a dask
    `group_ids` needs `num_groups`; NumPy ids are checked now, out-of-range
    ids and, with `empty_label`, empty groups (the reduction has no start
    value for them)."""
    import dask.array as da

    from ._groups import _bad_id, _group_ids, _num_groups, check_group_ids

    if is_dask_array(gids):
        check_group_ids(gids.dtype, gids.shape, n, label)
        if num_groups is None:
            raise ValueError(f"{qualname}: num_groups is required when group_ids is a dask "
                             "array (the result's length must be known to build the graph)")
        return gids.rechunk((chunks,)), _num_groups(num_groups, None, label)
    _, ids_p = _group_ids(gids, n, label)
    g = _num_groups(num_groups, ids_p, label)
    if ids_p.size and (ids_p.min() < 0 or ids_p.max() >= g):
        raise _bad_id(ids_p, g, label)
    if empty_label is not None:
        empty = np.bincount(ids_p, minlength=g) == 0
        if empty.any():  # the NumPy path's error, at graph-build time
            raise ValueError(f"{empty_label}: group {int(np.flatnonzero(empty)[0])} is empty "
                             "and the reduction has no initial value (pass initial=..., or "
                             "group_ids without empty groups)")
    return da.from_array(ids_p, chunks=(chunks,)), g


def _grouped(qualname, func, arguments, array, ufunc, finish, parts=_one_part,
             dtype=None, identity_needed=False):
    """The Dask graph of one grouped reduction over the group axis."""
    import dask.array as da

    from ._dispatch import _mask_initials

    name = qualname.rsplit(".", 1)[-1]
    x = _as_dask(qualname, arguments[array], arguments.get("out"))
    if x.ndim == 0:
        raise ValueError(f"{qualname}: the array must be at least 1-d")
    axis = axis_index(arguments["axis"], x.ndim)
    n = x.shape[axis]
    if math.isnan(n):
        raise ValueError(f"{qualname}: the group axis has unknown chunk sizes; call "
                         "x.compute_chunk_sizes() first")
    w = _where(qualname, arguments.get("where", True), x)
    gids = arguments["group_ids"]
    if (is_dask_array(gids) and identity_needed and _known(x.shape) and x.size == 0
            and _known(gids.shape) and gids.ndim == 1):
        # no elements, so no block sees the ids: compute them (not the data)
        # for the NumPy path's empty-group check
        gids = gids.compute()
    empty_check = identity_needed and arguments.get("initial", NoValue) is NoValue
    ids, g = _dask_ids(qualname, qualname, gids, arguments["num_groups"], n, x.chunks[axis],
                       name if empty_check else None)
    # the probe: every group present once along the axis
    args = dict(arguments)
    shape = tuple(g if i == axis else 1 for i in range(x.ndim))
    args[array] = np.zeros(shape, x.dtype)
    args["group_ids"] = np.arange(g, dtype=np.intp)
    args["num_groups"] = g
    args["axis"] = axis
    if "out" in args:
        args["out"] = None
    if w is not None:  # a mask, so that the NumPy path's where= rules raise now
        args["where"] = np.ones(shape, bool)
    with warnings.catch_warnings(), np.errstate(all="ignore"):
        warnings.simplefilter("ignore")
        res = func(**args)
    dtypes = [np.asarray(r).dtype for r in (res if isinstance(res, tuple) else (res,))]
    initial = arguments.get("initial", NoValue)
    u = _ufunc(ufunc)
    seeds = _seeds_once(qualname, u, initial, dtypes,
                        _has_initials(u, x.dtype, dtype)) if initial is not NoValue else None
    if seeds is not None:  # the blocks start from the ufunc's initials
        initial = NoValue
        finish = functools.partial(_seeded_finish, ufunc, seeds, finish)
    fill = None
    check_empty = False
    if identity_needed and initial is NoValue:
        stream = x.dtype if dtype is None else np.dtype(dtype)
        fill = _mask_initials(_ufunc(ufunc), stream)
        if fill is None:  # a ufunc registered through the C API, without initials
            raise TypeError(f"{qualname}: {_ufunc(ufunc).__name__} has no initial values, so "
                            "the state of a group that a dask block lacks cannot be "
                            "represented; pass initial=..., or reduce a NumPy array")
        check_empty = True
    # the ids along the group axis, new length-1 axes elsewhere (indexing,
    # not reshape, which Dask mishandles with empty chunks)
    ids_b = ids[tuple(slice(None) if i == axis else None for i in range(x.ndim))]
    ids_b = da.broadcast_to(ids_b, x.shape, chunks=x.chunks)
    if w is not None:
        wb = da.broadcast_to(da.asanyarray(w), x.shape).rechunk(x.chunks)
        ids_b = da.where(wb, ids_b, -1 - ids_b)
    return _build_grouped(name, x, axis, g, dtypes, ids_b,
                          functools.partial(_group_state, ufunc, g, initial, fill, dtype, parts,
                                            w is not None),
                          functools.partial(_merge_groups, ufunc),
                          functools.partial(_group_finish, name, check_empty, finish, dtypes))


def _build_grouped(name, x, axis, g, dtypes, ids_b, block_state, merge_states, finish):
    out_dt = np.dtype([(f"f{i}", dt) for i, dt in enumerate(dtypes)])
    res = _reduction(name, x, (axis,), True, out_dt, block_state, merge_states, finish, ids_b,
                     output_size=g)
    return _outputs(name, res, dtypes, x.ndim)


def _reduce_by_group_handler(qualname, arguments):
    from ._engine import MULTI_OUTPUT
    from ._groups import reduce_by_group

    ufunc = arguments["ufunc"]
    if ufunc not in MULTI_OUTPUT:
        raise TypeError(f"{qualname}: dask arrays are supported for numreduce's multi-output "
                        f"ufuncs, not {getattr(ufunc, '__name__', ufunc)!r}")
    data = arguments["array"]
    no_identity = not _has_initials(ufunc, getattr(data, "dtype", None) or np.asarray(data).dtype,
                                    arguments["dtype"])
    return _grouped(qualname, reduce_by_group, arguments, "array", _ufunc_ref(ufunc),
                    _states_finish, dtype=arguments["dtype"],
                    identity_needed=no_identity and arguments["initial"] is NoValue)


def _group_minmax_handler(qualname, arguments):
    from ._groups import group_minmax

    return _grouped(qualname, group_minmax, arguments, "a", "minimummaximum", _states_finish,
                    identity_needed=arguments["initial"] is NoValue)


def _group_meanvar_handler(qualname, arguments):
    from ._groups import group_meanvar

    x = arguments["a"]
    meta = np.empty((1,) * x.ndim, x.dtype)
    ddof = _api._ddof_arg("group_meanvar", arguments["ddof"])
    mean_dt, var_dt = _api._result_dtype("group_meanvar", meta.dtype, arguments["dtype"])
    return _grouped(qualname, group_meanvar, arguments, "a", "moments",
                    functools.partial(_group_meanvar_finish, mean_dt, var_dt, ddof),
                    parts=functools.partial(_real_parts, np.finfo(mean_dt).dtype))


def _group_logsumexp_handler(qualname, arguments):
    from ._groups import group_logsumexp

    return _grouped(qualname, group_logsumexp, arguments, "a", "maxsumexp",
                    functools.partial(_group_lse_finish, arguments["a"].dtype))


def _group_fsum_handler(qualname, arguments):
    from ._groups import group_fsum

    return _grouped(qualname, group_fsum, arguments, "a", "twosum", _group_fsum_finish)


# ---------------------------------------------------------------------------
# group_argminmax: per block, the NumPy path's group_argminmax over the
# groups the block has (global indices, -1 for the others); the states,
# num_groups entries per block, merged by argminmax's own rule (_arg_merge)
# ---------------------------------------------------------------------------

def _group_arg_block(block, ids, g=0, state_dt=None, label="", block_info=None):
    from ._groups import _bad_id, group_argminmax

    st = np.zeros(g, state_dt)
    st["imin"] = st["imax"] = -1
    if block_info is None or block.size == 0:  # meta, or no element
        return st
    start = block_info[0]["array-location"][0][0]
    ids = np.asarray(ids, dtype=np.intp)
    if ((ids < 0) | (ids >= g)).any():
        raise _bad_id(np.concatenate([np.zeros(start, np.intp), ids]), g, label)
    present = np.flatnonzero(np.bincount(ids, minlength=g))
    local = np.full(g, -1, np.intp)
    local[present] = np.arange(present.size)
    lo, hi = group_argminmax(block, local[ids], present.size)
    st["vmin"][present], st["imin"][present] = block[lo], lo + start
    st["vmax"][present], st["imax"][present] = block[hi], hi + start
    return st


def _group_arg_finish(name, states):
    imin, imax = states["imin"], states["imax"]
    if (imin < 0).any():
        k = int(np.flatnonzero(imin < 0)[0])
        raise ValueError(f"{name}: group {k} is empty and the reduction has no initial "
                         "value (pass initial=..., or group_ids without empty groups)")
    return imin.astype(np.intp), imax.astype(np.intp)


def _group_argminmax_handler(qualname, arguments):
    import dask.array as da

    from ._groups import group_argminmax

    x = _as_dask(qualname, arguments["a"])
    if x.ndim != 1:
        raise ValueError(f"group_argminmax: 'a' must be 1-d, got shape {x.shape}")
    n = x.shape[0]
    if math.isnan(n):
        raise ValueError(f"{qualname}: dask arrays with unknown chunk sizes are not "
                         "supported (the global indices need the chunk offsets); call "
                         "x.compute_chunk_sizes() first")
    name = "reduce_by_group(minimummaximum)"  # the NumPy path's messages
    ids, g = _dask_ids(qualname, name, arguments["group_ids"], arguments["num_groups"], n,
                       x.chunks[0], name)
    # the probe: the dtype's loop (TypeError now), every group present once
    group_argminmax(np.zeros(g, x.dtype), np.arange(g), g)
    state_dt = np.dtype([("vmin", x.dtype), ("imin", np.int64), ("vmax", x.dtype),
                         ("imax", np.int64)])
    states = da.map_blocks(_group_arg_block, x, ids, g=g, state_dt=state_dt, label=name,
                           chunks=((g,) * len(x.chunks[0]),), dtype=state_dt,
                           meta=np.empty((0,), state_dt), token="numreduce-group_argminmax-chunk")
    dtypes = [np.dtype(np.intp)] * 2
    out_dt = np.dtype([(f"f{i}", dt) for i, dt in enumerate(dtypes)])
    res = _reduction("group_argminmax", states, (0,), True, out_dt, _arg_identity, _arg_merge,
                     functools.partial(_group_arg_finish, name), output_size=g)
    return _outputs("group_argminmax", res, dtypes, 1)


# ---------------------------------------------------------------------------
# reduceat, segmented_reduce: one tree reduction over the segment axis, each
# block reducing its own pieces of the segments (output_size = the number of
# segments); a piece a block lacks is absent from its state, not an identity,
# so ufuncs without initials merge exactly too
# ---------------------------------------------------------------------------

def _seg_state(ufunc, lo, hi, dtype, initial, block, w, axes):
    """The block's pieces of every segment: (states, present) with the
    segment axis of length nseg, present[s] where the block holds at least
    one element of segment s.  `w` carries each element's position along the
    axis (its sign the where mask: pos where selected, -1 - pos where not)."""
    from ._segments import segmented_reduce

    u = _ufunc(ufunc)
    axis = axes[0]
    m = block.shape[axis]
    nseg = lo.shape[0]
    if m == 0:  # nothing along the segment axis: the block adds nothing
        return {"empty": True}
    if w.size:
        first = int(w[(0,) * w.ndim])
        b0 = first if first >= 0 else -1 - first
    else:  # no element off the axis either: any offset gives empty pieces' shapes
        b0 = 0
    l_lo = np.clip(lo - b0, 0, m)
    l_hi = np.clip(hi - b0, 0, m)
    present = l_hi > l_lo
    where = True if w.size == 0 or w.min() >= 0 else w >= 0
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # the NumPy path's own warnings come at the finish
        part = segmented_reduce(u, block, l_lo[present], l_hi[present], axis=axis, dtype=dtype,
                                initial=initial, where=where)
    shape = tuple(nseg if i == axis else n for i, n in enumerate(block.shape))
    idx = [slice(None)] * block.ndim
    idx[axis] = present
    states = []
    for p in part:
        full = np.zeros(shape, p.dtype)
        full[tuple(idx)] = p
        states.append(full)
    return {"empty": False, "s": (tuple(states), present)}


def _seg_merge(ufunc, axis, a, b):
    (sa, pa), (sb, pb) = a, b
    both = pa & pb
    out = []
    take = [slice(None)] * sa[0].ndim
    take[axis] = both
    take = tuple(take)
    merged = _merge2(_ufunc(ufunc), tuple(x[take] for x in sa), tuple(x[take] for x in sb)) \
        if both.any() else None
    shape = [1] * sa[0].ndim
    shape[axis] = -1
    only_b = (pb & ~pa).reshape(shape)
    for k, (xa, xb) in enumerate(zip(sa, sb)):
        r = np.where(only_b, xb, xa)
        if merged is not None:
            r[take] = merged[k]
        out.append(r)
    return tuple(out), pa | pb


def _seg_finish(ufunc, axis, dtypes, empty_state, seeds, states):
    """Absent segments (no element anywhere) take the empty state (the
    ufunc's initials, or the seed); the seed is merged once into the others
    where the blocks did not start from it."""
    if states is None:
        raise ValueError("numreduce: a segment reduction met no block (unknown chunk sizes?)")
    st, present = states
    u = _ufunc(ufunc)
    if seeds is not None and present.any():
        take = [slice(None)] * st[0].ndim
        take[axis] = present
        take = tuple(take)
        merged = _merge_seeds(u, seeds, tuple(x[take] for x in st))
        st = tuple(x.copy() for x in st)
        for x, mg in zip(st, merged):
            x[take] = mg
    shape = [1] * st[0].ndim
    shape[axis] = -1
    absent = (~present).reshape(shape)
    return tuple(np.where(absent, np.asarray(e, dtype=dt), x).astype(dt, copy=False)
                 for x, e, dt in zip(st, empty_state, dtypes))


def _segments_dask(qualname, kind, arguments):
    import dask.array as da

    from ._args import one_axis
    from ._engine import MULTI_OUTPUT, _parse_out
    from ._segments import _offsets, check_segments, reduceat_bounds

    ufunc = arguments["ufunc"]
    nout = MULTI_OUTPUT.get(ufunc)
    if nout is None:
        raise TypeError(f"{qualname}: dask arrays are supported for numreduce's multi-output "
                        f"ufuncs, not {getattr(ufunc, '__name__', ufunc)!r}")
    x = _as_dask(qualname, arguments["array"], arguments.get("out"))
    name = f"{kind}({ufunc.__name__})"
    ax = one_axis(arguments["axis"], x, name, f"{kind} on")
    n = x.shape[ax]
    if math.isnan(n):
        raise ValueError(f"{qualname}: the segment axis has unknown chunk sizes; call "
                         "x.compute_chunk_sizes() first")
    if kind == "reduceat":
        lo, hi = reduceat_bounds(arguments["indices"], n, name, ufunc.__name__)
        initial, where = NoValue, True
    else:
        lo = _offsets(arguments["starts"], n, name, "starts")
        hi = _offsets(arguments["stops"], n, name, "stops")
        if lo.shape != hi.shape:
            raise ValueError(f"{name}: 'starts' and 'stops' must have the same length, got "
                             f"{lo.shape[0]} and {hi.shape[0]}")
        initial, where = arguments["initial"], arguments["where"]
    w = _where(qualname, where, x)
    mode, initials = _parse_initial(initial, nout)
    dtype = arguments["dtype"]
    descrs, _ = check_segments(ufunc, nout, name, x.dtype, x.shape, ax, lo, hi, dtype,
                               _parse_out(None, nout), mode, initials, w is not None)
    dtypes = list(descrs[1:])
    has_init = _has_initials(ufunc, x.dtype, dtype)
    seeds = _seeds_once(qualname, ufunc, initial, dtypes, has_init)
    block_initial = NoValue if seeds is not None else initial
    # the state of a segment with no element: the seed, or the ufunc's initials
    # (a ufunc without them has none: check_segments refused empty segments)
    if mode == 2:
        from ._segments import seed_values
        empty_state = seed_values(initials, descrs, name)
    elif mode == 0 and has_init:
        empty_state = _api.reduce(ufunc, np.zeros(0, descrs[0]), axis=0)
    else:
        empty_state = tuple(np.zeros((), dt) for dt in dtypes)  # never used
    if n == 0:  # no element: every segment is empty (check_segments allowed it)
        shape = x.shape[:ax] + (lo.shape[0],) + x.shape[ax + 1:]
        chunks = x.chunks[:ax] + ((lo.shape[0],),) + x.chunks[ax + 1:]
        return tuple(da.broadcast_to(np.asarray(e, dtype=dt), shape, chunks=chunks)
                     for e, dt in zip(empty_state, dtypes))
    # positions along the axis (the block offsets), the where mask in their sign
    pos = da.arange(n, chunks=(x.chunks[ax],), dtype=np.int64)
    pos = da.broadcast_to(pos[tuple(slice(None) if i == ax else None for i in range(x.ndim))],
                          x.shape, chunks=x.chunks)
    if w is not None:
        wb = da.broadcast_to(da.asanyarray(w), x.shape).rechunk(x.chunks)
        pos = da.where(wb, pos, -1 - pos)
    ref = _ufunc_ref(ufunc)
    out_dt = np.dtype([(f"f{i}", dt) for i, dt in enumerate(dtypes)])
    res = _reduction(kind, x, (ax,), True, out_dt,
                     functools.partial(_seg_state, ref, lo, hi, dtype, block_initial),
                     functools.partial(_seg_merge, ref, ax),
                     functools.partial(_seg_finish, ref, ax, dtypes, empty_state, seeds),
                     pos, output_size=lo.shape[0])
    return _outputs(kind, res, dtypes, x.ndim)


def _reduceat_handler(qualname, arguments):
    return _segments_dask(qualname, "reduceat", arguments)


def _segmented_reduce_handler(qualname, arguments):
    return _segments_dask(qualname, "segmented_reduce", arguments)


# ---------------------------------------------------------------------------
# accumulate (and cumminmax, nancumminmax): per block, the NumPy path's
# accumulate; then along the axis a chain of carries (the state of every
# element before the block: merge of the previous carry and the previous
# block's last slice), merged into each block's running states
# ---------------------------------------------------------------------------

def _acc_block(block, ufunc, axis, dtype, out_dt):
    from ._methods import accumulate

    res = accumulate(_ufunc(ufunc), block, axis=axis, dtype=dtype)
    return _pack(res, out_dt)


def _unpack(block, nout):
    return tuple(block[f"f{i}"] for i in range(nout))


def _carry_step(ufunc, axis, nout, carry, prev):
    """The carry into a block: `carry` (into the previous block; None for
    the first) merged with the previous block's last running state."""
    if prev.shape[axis] == 0:
        return carry
    idx = [slice(None)] * prev.ndim
    idx[axis] = slice(-1, None)
    last = prev[tuple(idx)]
    if carry is None:
        return last
    merged = merge(_ufunc(ufunc), _unpack(carry, nout), _unpack(last, nout))
    return _pack(merged, prev.dtype)


def _apply_carry(ufunc, nout, carry, block):
    if carry is None or block.size == 0:
        return block
    c = tuple(np.broadcast_to(f, block.shape) for f in _unpack(carry, nout))
    return _pack(merge(_ufunc(ufunc), c, _unpack(block, nout)), block.dtype)


def _accumulate_graph(qualname, ufunc, x, ax, dtype, dtypes):
    import dask.array as da
    from dask.base import tokenize
    from dask.highlevelgraph import HighLevelGraph

    ref, nout = _ufunc_ref(ufunc), ufunc.nout
    out_dt = np.dtype([(f"f{i}", dt) for i, dt in enumerate(dtypes)])
    meta = np.empty((0,) * x.ndim, out_dt)
    acc = x.map_blocks(_acc_block, ref, ax, dtype, out_dt, dtype=out_dt, meta=meta,
                       token="numreduce-accumulate-block")
    token = tokenize(acc, ref, ax)
    name, carry = f"numreduce-accumulate-{token}", f"numreduce-accumulate-carry-{token}"
    dsk = {}
    for idx in np.ndindex(*x.numblocks):
        i = idx[ax]
        if i == 0:
            dsk[(name,) + idx] = (acc.name,) + idx
            continue
        prev = idx[:ax] + (i - 1,) + idx[ax + 1:]
        dsk[(carry,) + idx] = (_carry_step, ref, ax, nout,
                               (carry,) + prev if i > 1 else None, (acc.name,) + prev)
        dsk[(name,) + idx] = (_apply_carry, ref, nout, (carry,) + idx, (acc.name,) + idx)
    graph = HighLevelGraph.from_collections(name, dsk, dependencies=[acc])
    res = da.Array(graph, name, chunks=acc.chunks, dtype=out_dt, meta=meta)
    return _outputs("accumulate", res, dtypes, x.ndim)


def _accumulate_handler(qualname, arguments):
    from ._args import one_axis
    from ._engine import MULTI_OUTPUT
    from ._methods import accumulate

    ufunc = arguments["ufunc"]
    if ufunc not in MULTI_OUTPUT:
        raise TypeError(f"{qualname}: dask arrays are supported for numreduce's multi-output "
                        f"ufuncs, not {getattr(ufunc, '__name__', ufunc)!r}")
    x = _as_dask(qualname, arguments["array"], arguments.get("out"))
    ax = one_axis(arguments["axis"], x, f"accumulate({ufunc.__name__})", "accumulate on")
    dtypes = _probe(accumulate, arguments, "array", x)
    return _accumulate_graph(qualname, ufunc, x, ax, arguments["dtype"], dtypes)


def _cum_minmax_handler(ufunc_name, func_name):
    def handler(qualname, arguments):
        from . import _cumulative

        x = _as_dask(qualname, arguments["x"], arguments.get("out"))
        x, ax = _cumulative.scan_axis(func_name, x, arguments["axis"])
        # the probe (x is positional-only): the NumPy path's errors now, its dtypes
        with warnings.catch_warnings(), np.errstate(all="ignore"):
            warnings.simplefilter("ignore")
            res = getattr(_cumulative, func_name)(_probe_array(x), axis=ax,
                                                  dtype=arguments["dtype"])
        dtypes = [np.asarray(r).dtype for r in res]
        return _accumulate_graph(qualname, getattr(_core, ufunc_name), x, ax,
                                 arguments["dtype"], dtypes)

    return handler


def _lcse_finish(rdt, mx, t):
    with np.errstate(divide="ignore", invalid="ignore"):
        return (mx + np.log1p(t)).astype(rdt)


def _cfsum_finish(rdt, *states):
    """cumfsum's block: s + e of each part's twosum states (s, e) -- one
    part, or the real and imaginary parts of complex data -- as the NumPy
    path assembles them."""
    sums = [np.asarray(_api._fsum_finish(s, e)) for s, e in zip(states[::2], states[1::2])]
    if len(sums) == 1:
        return sums[0].astype(rdt, copy=False)
    z = np.empty(sums[0].shape, dtype=rdt)
    z.real, z.imag = sums
    return z


def _cmv_finish(mean_dt, var_dt, ddof, which, count, *parts):
    """cummeanvar's block: the NumPy path's finish of (count, mean, M2) of
    each part (one, or the real and imaginary parts: M2 summed)."""
    means, m2s = parts[::2], parts[1::2]
    m2 = m2s[0] if len(m2s) == 1 else np.add(m2s[0], m2s[1])
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # the NumPy path warns at the call, once
        res = _api._finish_meanvar(count, list(means), m2, mean_dt, var_dt, ddof, False,
                                   warn_dof=False)
    return np.asarray(res[which])


def _cum_finished_handler(func_name):
    """logcumsumexp, cumfsum, cummeanvar on dask: the states of the NumPy
    path's accumulate on dask, finished blockwise as the NumPy path
    finishes them (include_initial: the initial slice first).  Complex
    cumfsum / cummeanvar accumulate the real and imaginary parts apart (two
    scans over the same chunks, as the NumPy path's two accumulates);
    complex logcumsumexp is refused (its complex rules are not a real
    scan)."""
    def handler(qualname, arguments):
        import dask.array as da

        from . import _cumulative

        x = _as_dask(qualname, arguments["x"], arguments.get("out"))
        if x.dtype.kind == "c" and func_name == "logcumsumexp":
            raise TypeError(f"{qualname}: complex dask arrays are not supported (complex "
                            "logcumsumexp is not a real scan); compute a NumPy array")
        x, ax = _cumulative.scan_axis(func_name, x, arguments["axis"])
        kw = {k: v for k, v in arguments.items() if k not in ("x", "out")}
        kw["axis"] = ax
        with warnings.catch_warnings(), np.errstate(all="ignore"):
            warnings.simplefilter("ignore")  # the probe: errors now, result dtypes
            probe = getattr(_cumulative, func_name)(_probe_array(x), **kw)
        rdts = [np.asarray(r).dtype for r in (probe if isinstance(probe, tuple) else (probe,))]
        if func_name == "logcumsumexp":
            mx, t = _accumulate_graph(qualname, _core.maxsumexp, x, ax, None,
                                      _accumulate_dtypes(_core.maxsumexp, x, ax, None))
            res = [da.map_blocks(_lcse_finish, rdts[0], mx, t, dtype=rdts[0])]
            initial = -np.inf
        elif func_name == "cumfsum":
            acc, _ = _api._fsum_dtype(x.dtype, arguments["dtype"], func_name)
            states = []
            for p in _real_parts(np.dtype(np.float64), x):
                states += _accumulate_graph(qualname, _core.twosum, p, ax, acc,
                                            _accumulate_dtypes(_core.twosum, p, ax, acc))
            res = [da.map_blocks(_cfsum_finish, rdts[0], *states, dtype=rdts[0])]
            initial = 0
        else:  # cummeanvar
            ddof = _api._ddof_arg(func_name, arguments["ddof"])
            work = np.finfo(rdts[0]).dtype
            parts, count = [], None
            for p in _real_parts(work, x):  # (long double work: the parts converted)
                c, m, q = _accumulate_graph(qualname, _core.moments, p, ax, None,
                                            _accumulate_dtypes(_core.moments, p, ax, None))
                count = c if count is None else count
                parts += [m, q]
            n = x.shape[ax]
            if not math.isnan(n) and 0 < n <= ddof and _known(x.shape) and x.size:
                warnings.warn("Degrees of freedom <= 0 for slice", RuntimeWarning, stacklevel=4)
            res = [da.map_blocks(_cmv_finish, rdts[0], rdts[1], ddof, k, count, *parts,
                                 dtype=rdts[k]) for k in (0, 1)]
            return tuple(res)
        if arguments.get("include_initial"):
            shape = tuple(1 if i == ax else n for i, n in enumerate(x.shape))
            chunks = tuple((1,) if i == ax else c for i, c in enumerate(x.chunks))
            head = da.full(shape, initial, dtype=rdts[0], chunks=chunks)
            res = [da.concatenate([head, res[0]], axis=ax)]
        return res[0]

    return handler


def _accumulate_dtypes(ufunc, x, ax, dtype):
    from ._methods import accumulate

    return [r.dtype for r in accumulate(ufunc, np.zeros((1,) * x.ndim, x.dtype), axis=ax,
                                        dtype=dtype)]


_HANDLERS.update({
    "reduce_by_group": _reduce_by_group_handler,
    "group_minmax": _group_minmax_handler,
    "group_meanvar": _group_meanvar_handler,
    "group_logsumexp": _group_logsumexp_handler,
    "group_fsum": _group_fsum_handler,
    "group_argminmax": _group_argminmax_handler,
    "reduceat": _reduceat_handler,
    "segmented_reduce": _segmented_reduce_handler,
    "accumulate": _accumulate_handler,
    "cumminmax": _cum_minmax_handler("minimummaximum", "cumminmax"),
    "nancumminmax": _cum_minmax_handler("fminfmax", "nancumminmax"),
    "logcumsumexp": _cum_finished_handler("logcumsumexp"),
    "cumfsum": _cum_finished_handler("cumfsum"),
    "cummeanvar": _cum_finished_handler("cummeanvar"),
})
