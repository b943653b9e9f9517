"""Dask graphs over blocks of states: the tree reduction and the scan chain
of the Dask backend (``_dask``), with no numreduce semantics of their own:
the block function, the merge and the finish come in as arguments.

* ``reduction``: ``dask.array.reduction(..., concatenate=False)`` of the
  blocks' states, the block function one shared key of the graph (so that
  Dask's linear fusion leaves every block's task alone), the merge tree
  Dask's own ``_tree_reduce``; ``build`` packs the finished outputs into one
  structured array and ``outputs`` returns lazy views of its fields, so that
  computing them together reads every chunk once.
* ``scan_chain``: the running states of every block, and along the axis a
  chain of carries (the state of every element before a block), merged
  into each block's running states.

Layer: backends (imports nothing of numreduce; docs/architecture.md).
"""

from __future__ import annotations

import functools
import math

import numpy as np

__all__ = ["align", "build", "known", "outputs", "pack", "reduction", "scan_chain", "struct",
           "unpack"]


def known(chunks) -> bool:
    """Whether Dask knows every size in ``chunks`` (a shape, or one axis's
    chunks): no NaN."""
    return not any(math.isnan(n) for n in chunks)


def _same_chunks(a, b) -> bool:
    """One axis's chunks alike, NaN (an unknown size) equal to NaN."""
    return len(a) == len(b) and all(p == q or (math.isnan(p) and math.isnan(q))
                                    for p, q in zip(a, b))


def unknown_sizes(label, what):
    """Dask's own advice where arrays of unknown chunk sizes cannot be lined
    up (its ValueError for ``u * v`` of different chunk structures)."""
    return ValueError(f"{label}: {what}, and Dask does not know the chunk sizes, so the "
                      "arrays cannot be lined up block by block. A possible solution: "
                      "x.compute_chunk_sizes() on each array first")


def align(arrays, names, label):
    """Dask arrays, some with unknown chunk sizes (``x[x > 0]``), broadcast
    together in blocks that line up, as Dask's elementwise operations line
    them up: along an axis of unknown sizes, every array that has the axis
    with more than one element must have the same chunk structure (the same
    number of chunks, the same known sizes); the others have it of length 1
    (broadcast).  Otherwise ValueError with Dask's advice (compute the chunk
    sizes), at graph-build time.  Known axes are rechunked as the first
    array that has them in full.  Where Dask only assumes that blocks of
    unknown size line up, each block of the result checks it when computed
    (a ValueError where two blocks differ in length, where Dask's ``u * v``
    would broadcast them silently).  ``names``: the arrays' names for the
    messages."""
    import dask.array as da

    ndim = max(a.ndim for a in arrays)
    arrs = [a[(None,) * (ndim - a.ndim) + (Ellipsis,)] if a.ndim < ndim else a for a in arrays]
    unknown = tuple(tuple(d for d in range(ndim) if not known(a.chunks[d])) for a in arrs)
    rechunk = [{} for _ in arrs]
    for d in range(ndim):
        unk = [k for k in range(len(arrs)) if d in unknown[k]]
        if unk:
            lead = arrs[unk[0]].chunks[d]
            for k, a in enumerate(arrs):
                if k in unk and not _same_chunks(a.chunks[d], lead):
                    raise unknown_sizes(label, f"{names[unk[0]]} and {names[k]} have different "
                                        f"chunks along axis {d - ndim} ({lead} and "
                                        f"{a.chunks[d]})")
                if k not in unk and a.shape[d] != 1:
                    raise unknown_sizes(label, f"{names[k]} has {a.shape[d]} elements along "
                                        f"axis {d - ndim} where {names[unk[0]]} has an unknown "
                                        "number")
            continue
        lens = {a.shape[d] for a in arrs} - {1}
        if len(lens) > 1:
            shapes = ", ".join(f"{n} {a.shape}" for n, a in zip(names, arrays))
            raise ValueError(f"{label}: the arrays do not broadcast together: {shapes}")
        if lens:
            lead = next(a.chunks[d] for a in arrs if a.shape[d] != 1)
            for k, a in enumerate(arrs):
                if a.shape[d] != 1 and a.chunks[d] != lead:
                    rechunk[k][d] = lead
    arrs = [a.rechunk(r) if r else a for a, r in zip(arrs, rechunk)]
    ind = tuple(range(ndim))
    args = [v for a in arrs for v in (a, ind)]
    return [da.blockwise(_aligned_block, ind, *args, k=k, unknown=unknown, label=label,
                         dtype=a.dtype, meta=np.empty((0,) * ndim, a.dtype),
                         token=f"numreduce-align{k}")
            for k, a in enumerate(arrs)]


def align_to(x, w, label, what="the mask"):
    """``w`` (an auxiliary array of a reduction: the where mask) broadcast to
    ``x`` in ``x``'s blocks (``align``), where either has unknown chunk
    sizes; ValueError where ``w`` would broadcast ``x`` instead."""
    lead = x.ndim - w.ndim
    if lead < 0 or any(x.shape[lead + d] == 1 and w.shape[d] != 1 for d in range(w.ndim)):
        raise ValueError(f"{label}: {what} of shape {w.shape} does not broadcast to the "
                         f"array's shape {x.shape}")
    return align([x, w], ("the array", what), label)[1]


def _aligned_block(*blocks, k=0, unknown=(), label=""):
    """Block ``k`` of ``align``'s arrays broadcast to the blocks' shape,
    after checking that the blocks of unknown size have one length."""
    shapes = [np.shape(b) for b in blocks]
    for d in sorted({d for u in unknown for d in u}):
        lens = {s[d] for s, u in zip(shapes, unknown) if d in u}
        if len(lens) > 1:
            raise unknown_sizes(label, f"blocks of the arrays have different lengths "
                                f"({', '.join(map(str, sorted(lens)))}) along axis "
                                f"{d - len(shapes[0])}")
    return np.broadcast_to(blocks[k], np.broadcast_shapes(*shapes))


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


def pack(results, out_dt):
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
    return pack(finish(states), out_dt)


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


def reduction(name, x, axes, keepdims, out_dt, block_state, merge_states, finish, w=None,
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
        if not (known(x.shape) and known(wgt.shape)):
            wgt = align_to(x, wgt, name)  # in x's blocks, checked as they are computed
        else:
            try:
                wgt = da.broadcast_to(wgt, x.shape)
            except ValueError:
                raise ValueError(f"Weights with shape {wgt.shape} are not broadcastable to x "
                                 f"with shape {x.shape}") from None
        if wgt.chunks != x.chunks and known(x.shape):
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


def struct(dtypes):
    return np.dtype([(f"f{i}", dt) for i, dt in enumerate(dtypes)])


def outputs(name, res, dtypes, ndim):
    """The lazy outputs: views of the fields of the one structured result."""
    return tuple(res.map_blocks(_field, i, dtype=dt, meta=np.empty((0,) * ndim, dt),
                                token=f"numreduce-{name}-out{i}")
                 for i, dt in enumerate(dtypes))


def build(name, x, axes, keepdims, dtypes, block_state, merge_states, finish, w=None,
           output_size=1):
    """One reduction whose aggregate packs the outputs into a structured
    array; the outputs are lazy views of its fields."""
    ndim = x.ndim if keepdims else x.ndim - len(axes)
    res = reduction(name, x, axes, keepdims, struct(dtypes), block_state, merge_states,
                     finish, w, output_size)
    return outputs(name, res, dtypes, ndim)


def unpack(block, nout):
    """The fields of a packed (structured) block, as a tuple of arrays."""
    return tuple(block[f"f{i}"] for i in range(nout))


def _scan_block(block, block_fn, out_dt):
    return pack(block_fn(block), out_dt)


def _carry_step(merge, axis, carry, prev):
    """The carry into a block: `carry` (into the previous block; None for
    the first) merged with the previous block's last running state."""
    if prev.shape[axis] == 0:
        return carry
    idx = [slice(None)] * prev.ndim
    idx[axis] = slice(-1, None)
    last = prev[tuple(idx)]
    if carry is None:
        return last
    return merge(carry, last)


def _apply_carry(merge, carry, block):
    if carry is None or block.size == 0:
        return block
    return merge(np.broadcast_to(carry, block.shape), block)


def scan_chain(x, ax, out_dt, name, block_fn, merge):
    """The running states of ``x`` along ``ax``: ``block_fn(block)`` (a
    tuple of running-state arrays per block) packed into ``out_dt``, then
    ``merge(a, b)`` of packed states folds each block's carry into it.
    Returns the outputs (lazy views of the packed fields)."""
    import dask.array as da
    from dask.base import tokenize
    from dask.highlevelgraph import HighLevelGraph

    meta = np.empty((0,) * x.ndim, out_dt)
    acc = x.map_blocks(_scan_block, block_fn, out_dt, dtype=out_dt, meta=meta,
                       token=f"numreduce-{name}-block")
    token = tokenize(acc, block_fn, ax)
    key, carry = f"numreduce-{name}-{token}", f"numreduce-{name}-carry-{token}"
    dsk = {}
    for idx in np.ndindex(*x.numblocks):
        i = idx[ax]
        if i == 0:
            dsk[(key,) + idx] = (acc.name,) + idx
            continue
        prev = idx[:ax] + (i - 1,) + idx[ax + 1:]
        dsk[(carry,) + idx] = (_carry_step, merge, ax, (carry,) + prev if i > 1 else None,
                               (acc.name,) + prev)
        dsk[(key,) + idx] = (_apply_carry, merge, (carry,) + idx, (acc.name,) + idx)
    graph = HighLevelGraph.from_collections(key, dsk, dependencies=[acc])
    res = da.Array(graph, key, chunks=acc.chunks, dtype=out_dt, meta=meta)
    return outputs(name, res, [out_dt[i] for i in range(len(out_dt))], x.ndim)
