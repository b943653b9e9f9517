"""The Dask backend: numreduce's primitives as graphs over host blocks.

Every primitive has the NumPy backend's (``_host``) meaning and signature
and runs ``_host``'s primitives on each block; a statistic's parts and
finish come in as arguments.  A reduction is one tree reduction
(``_dask_graph.reduction``: each block's states, the reduction's own merge,
the finish in the aggregate, one structured result whose fields are the
lazy outputs), a scan a chain of carries (``_dask_graph.scan_chain``).
Every task function runs under ``_config.dask_task``: Dask runs one task
per thread already, so numreduce's calls inside take one thread unless the
user chose the count (``set_num_threads``, ``NUMREDUCE_NUM_THREADS``).
The arguments were checked with the rules every backend shares before any
graph is built (docs/dask.md, docs/architecture.md).

Layer: backends (imports the rules layer (``_config`` too), ``_host`` and ``_dask_graph``).
"""

from __future__ import annotations

import functools
import math
import warnings

import numpy as np

from . import _core, _host
from ._args import (bad_group_id, check_group_ids, check_where, empty_group_error,
                    group_ids as host_ids, is_cupy_array, is_dask_array,
                    num_groups as host_num_groups,
                    where_mask)
from ._config import dask_task
from ._dask_graph import (align, align_to, build, outputs, pack, reduction, scan_chain, struct,
                          unpack)
from ._dtypes import (MULTI_SOURCE, has_identity, has_initials, mask_initials, merge_descrs,
                      resolve, seed_values, sources_dtype, sources_plan,
                      stream_dtype)

__all__ = ["arg_reduce", "asarray", "at", "group_arg", "group_reduce", "group_reduce_parts",
           "merge_pair", "nonnegative", "reduce", "reduce_parts", "scan", "scan_output", "scan_parts",
           "segments", "sources", "where"]

name = "dask"
arrays = "dask arrays"  # what the messages call this backend's arrays
prefix = ""
loops_check_start = False  # the start-value rules are checked before the graph
lazy = True  # a graph: the statistics give their result dtypes up front
quick_reduce = None  # no iterator-free path: every call builds a graph
quick_arg = None


def sources(arrays, names, label="", qualname=""):
    """Several source arrays of one reduction (x and its weights, x and y):
    Dask arrays (NumPy operands become one-chunk Dask arrays) broadcast
    together in the loop's dtype (``sources_dtype``), every one in the
    chunks of the first Dask source, so their blocks line up (with unknown
    chunk sizes: ``_dask_graph.align``, Dask's rules, each block checked).
    ValueError where they do not broadcast or cannot be lined up; TypeError for a CuPy
    operand or a dtype that is not real."""
    import dask.array as da

    for x in arrays:
        if is_cupy_array(x):
            raise TypeError(f"{qualname or label}: do not mix CuPy and Dask arrays")
    arrs = [x if is_dask_array(x) else da.asarray(np.asarray(x)) for x in arrays]
    if not all(_known(a.shape) for a in arrs):
        # unknown chunk sizes (x[x > 0]): lined up as Dask's elementwise
        # operations line them up, each block checked as it is computed
        dt = sources_dtype(qualname or label, *(a.dtype for a in arrs))
        return align([a.astype(dt) for a in arrs], names, qualname or label)
    dt, shape = sources_plan(qualname or label, names, arrs)
    arrs = [da.broadcast_to(a.astype(dt), shape) for a in arrs]
    lead = next(a for a, x in zip(arrs, arrays) if is_dask_array(x))
    return [a if a.chunks == lead.chunks else a.rechunk(lead.chunks) for a in arrs]


def _pack_block(*blocks):
    return _host.pack_sources(blocks)


def pack_sources(xs):
    """K aligned source arrays of one dtype (``sources``) as one array of
    K-field records: ``_host.pack_sources`` of each block's K blocks."""
    import dask.array as da

    dt = struct([x.dtype for x in xs])
    return da.map_blocks(_pack_block, *xs, dtype=dt, meta=np.empty((0,) * xs[0].ndim, dt))


# reduce_by_group's operand of K sources: packed, as the other methods'
# (the host reads them in place: _host.group_sources)
group_sources = pack_sources


def nonnegative(w, message):
    """``w``, whose blocks raise ValueError(message) when computed where
    they hold a negative value (a lazy check: the values are not known
    before)."""
    return w.map_blocks(_check_nonnegative, message, dtype=w.dtype)


@dask_task
def _check_nonnegative(block, message):
    if bool((block < 0).any()):
        raise ValueError(message)
    return block


def __getattr__(attr):
    if attr == "xp":  # dask.array, imported on first use
        import dask.array as da
        return da
    raise AttributeError(f"module {__name__!r} has no attribute {attr!r}")


# ---------------------------------------------------------------------------
# operands and their checks
# ---------------------------------------------------------------------------

def asarray(a, what="the array", label="", qualname=""):
    """The operand as a dask array of NumPy chunks."""
    import dask.array as da

    x = a if is_dask_array(a) else da.asarray(a)
    meta = getattr(x, "_meta", None)
    if type(meta) is not np.ndarray:
        raise TypeError(f"{qualname}: dask arrays of {type(meta).__name__} chunks are not "
                        "supported (numreduce reduces NumPy ndarray chunks); for masked "
                        "chunks use da.ma.filled or compute the array first")
    return x


def array_code(x):
    """``x`` without its empty chunks, for array code in dask.array (Dask's
    where/reshape/concatenate trip over them)."""
    if _known(x.shape) and x.size and any(0 in c for c in x.chunks):
        x = x.rechunk(tuple(tuple(n for n in c if n) for c in x.chunks))
    return x


def _known(shape) -> bool:
    return not any(math.isnan(n) for n in shape)


def nonempty(x) -> bool:
    return _known(x.shape) and x.size > 0


def axis_length(x, ax, what="the axis", qualname="", offsets=False):
    """The length of axis ``ax``; ValueError where Dask does not know it."""
    n = x.shape[ax]
    if math.isnan(n):
        if offsets:
            raise ValueError(f"{qualname}: dask arrays with unknown chunk sizes are not "
                             "supported (the global indices need the chunk offsets); call "
                             "x.compute_chunk_sizes() first")
        raise ValueError(f"{qualname}: {what} has unknown chunk sizes; call "
                         "x.compute_chunk_sizes() first")
    return n


def where(where, shape, label="", qualname=""):
    """``where`` as a NumPy or dask boolean mask (None: no mask), checked
    against ``shape`` as ``_args.where_mask`` checks it where both are known."""
    if where is True:
        return None
    if is_dask_array(where):
        check_where(where.dtype, (1,) * where.ndim)
        w = where.astype(bool) if where.dtype != bool else where
    else:
        w = where_mask(where)
    if _known(shape) and _known(w.shape):
        where_mask(np.broadcast_to(np.True_, w.shape), shape)  # the NumPy path's check
    return w


def _no_out(label):
    return TypeError(f"{label}: out= is not supported for dask arrays (the results are lazy "
                     "dask arrays); compute them and assign the values")


def parse_out(out, nout, label="", qualname=""):
    if out is not None:
        raise _no_out(qualname or label)
    return (None,) * nout


def check_outs(outs, shape, label):
    if any(o is not None for o in outs):
        raise _no_out(label)


# as on the host: every result dtype (the blocks are NumPy's), host offsets,
# the engine's own ufuncs
check_dtypes, host_indices, own_ufunc = _host.check_dtypes, _host.host_indices, _host.own_ufunc


def into(results, outs):
    return tuple(results)


def foreign(qualname, method, ufunc, *args, **kwargs):
    """A method of a ufunc the engine does not know: refused on dask arrays."""
    raise TypeError(f"{qualname}: dask arrays are supported for numreduce's multi-output "
                    f"ufuncs, not {getattr(ufunc, '__name__', ufunc)!r} (for NumPy's ufuncs: "
                    "dask's own reductions)")


def at(ufunc, outs, indices, values, label, qualname=""):
    raise TypeError(f"{qualname}: dask arrays are not supported by this function; compute "
                    "the array first (x.compute()) or apply the function per block "
                    "(x.map_blocks)")


# ---------------------------------------------------------------------------
# merges of states
# ---------------------------------------------------------------------------

def _ufunc_ref(ufunc):
    """What the graph's functions carry for `ufunc`: the name of one of
    numreduce's own ufuncs, which Dask tokenizes cheaply (a ufunc it
    pickles, per task), or the ufunc itself for one registered through the
    C API by another package (its name need not be unique; it pickles by
    its module and name, so process and distributed workers import it)."""
    uname = ufunc.__name__
    return uname if getattr(_core, uname, None) is ufunc else ufunc


def _ufunc(ref):
    return getattr(_core, ref) if isinstance(ref, str) else ref  # of a _ufunc_ref


_MERGE_LOOPS: dict = {}


def merge_pair(ufunc, a, b):
    """The merge of two states of one graph (tuples of one array or scalar
    per output): the merge loop for their dtypes is resolved once per
    (ufunc, dtypes) and kept (2 us a merge instead of about 25 us; a combine
    task folds up to ``split_every`` states).  States that do not broadcast
    together are a ValueError (the core merge's)."""
    a = tuple(np.asarray(s) for s in a)
    b = tuple(np.asarray(s) for s in b)
    nout = ufunc.nout
    key = (ufunc, tuple(s.dtype for s in a + b))
    descrs = _MERGE_LOOPS.get(key)
    if descrs is None:
        descrs = _MERGE_LOOPS[key] = merge_descrs(ufunc, [s.dtype for s in a],
                                                  [s.dtype for s in b], nout,
                                                  f"merge({ufunc.__name__})")
    return _host.merge(ufunc, a, b, (None,) * nout, descrs)


@dask_task
def _merge_ufunc(ref, a, b):
    return merge_pair(_ufunc(ref), a, b)


@dask_task
def _merge_parts(ref, a, b):
    """merge of states made of one state per part (complex data); a part in
    a frame (``_framed``: one array more than the ufunc's outputs, the
    shift K) merges in its frame (``_merge_framed``)."""
    ufunc = _ufunc(ref)
    return tuple(_merge_framed(ufunc, pa, pb) if len(pa) > ufunc.nout else
                 merge_pair(ufunc, pa, pb) for pa, pb in zip(a, b))


# ---------------------------------------------------------------------------
# the moments in a frame: a block's (count, mean, M2) carries its mean
# rounded at the data's magnitude, and Chan's merge of two blocks compares
# their means, so that rounding (1e8 + N(0, 1): an ulp of 1e8) would enter
# every merge (2e-10 relative, where the NumPy path gives 1e-16).  Each
# block's state is taken about a shift K instead -- its own mean, as the
# NumPy path's _ends takes the rows' -- (count, mean - K, M2, K), and two
# states merge in the frame of the first (the second's mean moved by the
# difference of the shifts, exact where they are close); the finish puts
# the mean back (K + m).  Only where the states keep the data's own
# precision (float64, long double, integer data; float32 data have
# float64 states).
# ---------------------------------------------------------------------------

def _frames(ufunc, dt) -> bool:
    """Whether the states of ``ufunc`` over a part of dtype ``dt`` are taken
    in a frame: the moments' (their mean is output 1) of float64, long
    double or integer data."""
    return ufunc in (_core.moments, _core.nanmoments) and (
        dt.kind in "iu" or (dt.kind == "f" and dt.itemsize >= 8))


def _framed(p, reduce_one, spread):
    """The state of part ``p`` in a frame: ``reduce_one(a)`` (a's (count,
    mean, M2) with the reduced axes kept) of ``p`` itself gives the shift K
    (its mean where finite, else 0), then of ``p - spread(K)`` (K broadcast
    to ``p``) the moments about K: (count, mean - K, M2, K).  Where those
    are not finite (``p - K`` overflowed), the plain state with K = 0."""
    s0 = tuple(reduce_one(p))
    dt = s0[1].dtype
    ok = np.isfinite(s0[1]) & (s0[0] > 0)
    K = np.where(ok, s0[1], np.zeros((), dt)).astype(dt, copy=False)
    if not K.any():
        return (*s0, K)
    with np.errstate(all="ignore"):
        y = np.subtract(p, spread(K), dtype=dt)
    s1 = tuple(reduce_one(y))
    bad = ~(np.isfinite(s1[1]) & np.isfinite(s1[2]))
    if bad.any():  # inf/NaN data (the same state), or x - K overflowed
        s1 = tuple(np.where(bad, a0, a1) for a0, a1 in zip(s0, s1))
        K = np.where(bad, np.zeros((), dt), K)
    return (*s1, K)


def _merge_framed(ufunc, a, b):
    """Two framed states (count, m, M2, K) merged in the frame of ``a`` (of
    ``b`` where ``a`` is empty): b's mean moved by K_b - K_a, then the
    ufunc's merge; where the difference of the shifts overflows, in the
    frame 0."""
    (na, ma, m2a, ka), (nb, mb, m2b, kb) = a, b
    K = np.where(na > 0, ka, kb)
    with np.errstate(all="ignore"):
        da_, db_ = ka - K, kb - K
    ok = np.isfinite(da_) & np.isfinite(db_)
    if not ok.all():
        K = np.where(ok, K, np.zeros((), K.dtype))
        da_, db_ = np.where(ok, da_, ka), np.where(ok, db_, kb)
    with np.errstate(all="ignore"):
        ma = np.where(na > 0, ma + da_, ma)
        mb = np.where(nb > 0, mb + db_, mb)
    n, m, m2 = merge_pair(ufunc, (na, ma, m2a), (nb, mb, m2b))
    return n, m, m2, np.broadcast_to(K, np.shape(m))


def _unframe(states, nout):
    """The parts' states with every framed one's mean put back (K + m)."""
    out = []
    for st in states:
        if len(st) > nout:
            n, m, m2, K = st
            st = (n, np.asarray(m + K, dtype=np.asarray(m).dtype), m2)
        out.append(tuple(st))
    return out


def _whole(xp, a):
    return [a]


def _seeds_once(qualname, ufunc, mode, initials, descrs, has_init):
    """The user's ``initial`` as one state (0-d arrays in the output dtypes),
    merged once into the merged block states -- or None where the blocks
    may take it themselves.  Every block seeded with ``initial`` counts it
    once per block: exact only where the seed merged with itself is the
    seed, bit for bit (min/max seeds, a zero sum), which also gives an
    empty block its state; wrong for the others (a moments seed's count,
    a twosum seed's value, a maxsumexp seed's term).  Their blocks start
    from the ufunc's own initials (identities of its merge) instead."""
    if mode != 2:
        return None
    seeds = seed_values(initials, descrs, qualname)
    twice = merge_pair(ufunc, seeds, seeds)
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
    return merge_pair(ufunc, tuple(np.broadcast_to(sd, shape) for sd in seeds), states)


# ---------------------------------------------------------------------------
# reduce
# ---------------------------------------------------------------------------

def _keep_reduce(ufunc, block, axes, descrs=None, mode=0, initials=None, mask=None,
                 dtype=None):
    """The block's states with ``keepdims=True``; without options through
    the engine's iterator-free paths (a whole block: the full reduction)."""
    if block.dtype.names is not None:  # K sources packed as records: their views
        block = unpack(block, len(block.dtype.names))
        return _host.reduce(ufunc, block, axes, True, descrs, (None,) * ufunc.nout, mode,
                            initials, mask)
    if mode == 0 and mask is None and dtype is None:
        whole = len(axes) == block.ndim
        res = _host.quick_reduce(ufunc, block, None if whole else axes, not whole)
        if res is not None:
            return tuple(np.reshape(r, (1,) * block.ndim) for r in res) if whole else res
    if descrs is None:  # a statistic's part: the loop for its dtype and dtype=
        descrs = resolve(ufunc, block.dtype, (None,) * ufunc.nout, dtype, ufunc.nout)
    return _host.reduce(ufunc, block, axes, True, descrs, (None,) * ufunc.nout, mode, initials,
                        mask)


@dask_task
def _reduce_state(ref, descrs, mode, initials, identity, block, w, axes):
    ufunc = _ufunc(ref)
    if not identity and math.prod(block.shape[i] for i in axes) == 0:
        return {"empty": True}  # no start value: the block adds nothing
    return {"empty": False, "s": _keep_reduce(ufunc, block, axes, descrs, mode, initials, w)}


@dask_task
def _reduce_finish(uname, dtypes, finish, ref, seeds, states):
    if states is None:
        # only with unknown chunk sizes (known empty input fails at build time)
        raise ValueError(f"zero-size array to reduction operation {uname} which has no "
                         "identity")
    if seeds is not None:
        states = _merge_seeds(_ufunc(ref), seeds, states)
    res = tuple(np.asarray(s, dtype=dt) for s, dt in zip(states, dtypes))
    return res if finish is None else finish(np, res)


@dask_task
def _parts_state(ref, parts, dtype, accurate, block, w, axes):
    ufunc = _ufunc(ref)
    if accurate:  # the moments' blocked two-pass layout, in a frame (_framed)
        states = []
        for p in parts(np, block):
            def one(a, p=p):
                return _host.reduce_parts(ufunc, a, axes, True, _whole, mask=w,
                                          accurate=True)[0]
            states.append(_framed(p, one, lambda K: K) if _frames(ufunc, p.dtype)
                          else one(p))
    else:
        states = [_keep_reduce(ufunc, p, axes, mask=w, dtype=dtype) for p in parts(np, block)]
    return {"empty": False, "s": tuple(tuple(s) for s in states)}


@dask_task
def _parts_finish(nout, finish, states):
    # (np is not passed in the graph: modules do not pickle)
    return finish(np, _unframe(states, nout))


def reduce(ufunc, x, axes, keepdims, descrs, outs, mode=0, initials=None, mask=None,
           finish=None, scalars=True, label="", qualname="", dtypes=None):
    """``_host.reduce`` as one tree reduction (see the module docstring):
    each block's states, merged pairwise, finished in the aggregate; the
    user's ``initial`` merged once where the blocks cannot each start from
    it (``_seeds_once``)."""
    ref = _ufunc_ref(ufunc)
    has_init = has_initials(ufunc, descrs[0])
    seeds = _seeds_once(qualname, ufunc, mode, initials, descrs, has_init)
    block_mode, block_initials = (0, None) if seeds is not None else (mode, initials)
    identity = mode == 2 or (mode == 0 and has_init)
    if isinstance(x, (tuple, list)):  # a reduction of K sources (``sources``)
        x = pack_sources(x)
    return build(label, x, axes, keepdims, descrs[1:] if dtypes is None else dtypes,
                 functools.partial(_reduce_state, ref, descrs, block_mode, block_initials,
                                   identity),
                 functools.partial(_merge_ufunc, ref),
                 functools.partial(_reduce_finish, ufunc.__name__, tuple(descrs[1:]), finish,
                                   ref, seeds), mask)


def reduce_parts(ufunc, x, axes, keepdims, parts, finish=None, dtypes=None, mask=None,
                 dtype=None, accurate=False, label="", qualname=""):
    """``_host.reduce_parts`` as one tree reduction: each block's states of
    every part, merged part by part, the statistic's finish in the aggregate."""
    ref = _ufunc_ref(ufunc)
    return build(label, x, axes, keepdims, dtypes,
                 functools.partial(_parts_state, ref, parts, dtype, accurate),
                 functools.partial(_merge_parts, ref),
                 functools.partial(_parts_finish, ufunc.nout, finish), mask)


# ---------------------------------------------------------------------------
# argminmax, nanargminmax: values and global indices per block
# ---------------------------------------------------------------------------

def _isnan(v):
    if v.dtype.kind in "fc":
        return np.isnan(v)
    if v.dtype.kind in "mM":
        return np.isnat(v)
    return np.zeros(v.shape, bool)


@dask_task
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
        idx = []
        for i in _host.quick_arg(flat, skip):
            multi = np.unravel_index(i, block.shape)
            g = np.ravel_multi_index(tuple(m + s for m, s in zip(multi, start)), shape)
            idx.append((flat[i], g))
        (st["vmin"], st["imin"]), (st["vmax"], st["imax"]) = idx
    else:
        lo, hi = _host.arg_reduce(block, axis, kshape, skip)
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


@dask_task
def _arg_merge(a, b):
    out = a.copy()
    for v, i, less in (("vmin", "imin", True), ("vmax", "imax", False)):
        take = _arg_pick(a[v], a[i], b[v], b[i], less)
        out[v] = np.where(take, b[v], a[v])
        out[i] = np.where(take, b[i], a[i])
    return out


@dask_task
def _arg_identity(block, w, axes):
    return {"empty": False, "s": block}


@dask_task
def _arg_finish(skip, states):
    st = states
    if (st["imin"] < 0).any() or (st["imax"] < 0).any():
        if skip:
            raise ValueError("All-NaN slice encountered")
        raise ValueError("attempt to get argmin of an empty sequence")
    return (st["imin"].astype(np.intp), st["imax"].astype(np.intp))


def _arg_state_dt(dt):
    return np.dtype([("vmin", dt), ("imin", np.int64), ("vmax", dt), ("imax", np.int64)])


def arg_reduce(x, ax, shape, skip, label="", qualname=""):
    """(argmin, argmax) along ``ax`` (None: the flattened array) as one tree
    reduction of (value, global index) states.  The global indices need the
    chunk offsets along the reduced axes only (all axes for ``ax=None``)."""
    if not _known(x.shape if ax is None else x.chunks[ax]):
        raise ValueError(f"{qualname}: dask arrays with unknown chunk sizes are not "
                         "supported (the global indices need the chunk offsets); call "
                         "x.compute_chunk_sizes() first")
    keepdims = len(shape) == x.ndim  # (a 0-d input arrives as its 1-d view)
    state_dt = _arg_state_dt(x.dtype)
    kchunks = tuple((1,) * len(c) if ax is None or i == ax else c
                    for i, c in enumerate(x.chunks))
    states = x.map_blocks(_arg_block, ax, skip, x.shape, state_dt, chunks=kchunks,
                          dtype=state_dt, meta=np.empty((0,) * x.ndim, state_dt),
                          token=f"numreduce-{label}-chunk")
    axes = tuple(range(x.ndim)) if ax is None else (ax,)
    return build(label, states, axes, keepdims, [np.dtype(np.intp)] * 2, _arg_identity,
                  _arg_merge, functools.partial(_arg_finish, skip))


# ---------------------------------------------------------------------------
# scans: per block, the NumPy backend's scan; then along the axis a chain of
# carries (the state of every element before the block: merge of the
# previous carry and the previous block's last slice), merged into each
# block's running states
# ---------------------------------------------------------------------------

@dask_task
def _scan_block(ref, axis, descrs, block):
    u = _ufunc(ref)
    return _host.scan(u, block, axis, descrs=descrs, outs=(None,) * u.nout)


@dask_task
def _merge_packed(ref, nout, a, b):
    """merge of two packed (structured) blocks of running states."""
    return pack(merge_pair(_ufunc(ref), unpack(a, nout), unpack(b, nout)), b.dtype)


@dask_task
def _finish_block(finish, k, counts, *blocks):
    """Output ``k`` of a scan's finish on one block of the parts' states
    (``counts``: the number of states of each part)."""
    states, i = [], 0
    for c in counts:
        states.append(tuple(blocks[i:i + c]))
        i += c
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # the statistic warns at the call, once
        return np.asarray(finish(np, states)[k])


def scan(ufunc, x, ax, descrs, outs, label="", qualname=""):
    """``_host.scan`` along ``ax`` as blocks and a chain of carries."""
    ref = _ufunc_ref(ufunc)
    return scan_chain(x, ax, struct(descrs[1:]), "accumulate",
                      functools.partial(_scan_block, ref, ax, descrs),
                      functools.partial(_merge_packed, ref, ufunc.nout))


def scan_parts(ufunc, x, ax, parts, finish=None, dtypes=None, dtype=None, label="",
               qualname=""):
    """``_host.scan_parts``: each part's scan graph, the statistic's
    ``finish`` blockwise, one map_blocks per output."""
    import dask.array as da

    states = [scan(ufunc, p, ax, resolve(ufunc, stream_dtype(p), (None,) * ufunc.nout, dtype,
                                         ufunc.nout), None)
              for p in parts(da, x)]
    flat = [s for st in states for s in st]
    counts = tuple(len(st) for st in states)
    return tuple(da.map_blocks(_finish_block, finish, k, counts, *flat, dtype=dt)
                 for k, dt in enumerate(dtypes))


def scan_output(values, ax, rdt, out, include_initial, initial):
    """A scan's result in dtype ``rdt``, after ``initial`` along ``ax`` with
    ``include_initial`` (``out`` is refused before)."""
    import dask.array as da

    values = values.astype(rdt, copy=False)
    if not include_initial:
        return values
    shape = tuple(1 if i == ax else n for i, n in enumerate(values.shape))
    chunks = tuple((1,) if i == ax else c for i, c in enumerate(values.chunks))
    head = da.full(shape, initial, dtype=rdt, chunks=chunks)
    return da.concatenate([head, values], axis=ax)


# ---------------------------------------------------------------------------
# grouped reductions: one tree reduction over the group axis, whose output
# has num_groups entries there (output_size)
# ---------------------------------------------------------------------------

def _in_blocks(a, x, label, what, new=False):
    """An auxiliary array of a reduction over ``x`` (the group ids or the
    positions along the axis (``new``: length 1 on the other axes), a where
    mask) broadcast to ``x``'s shape in ``x``'s blocks; with unknown chunk
    sizes through ``_dask_graph.align_to`` (each block checked)."""
    import dask.array as da

    a = da.asanyarray(a)
    if not (_known(x.shape) and _known(a.shape)):
        return align_to(x, a, label, what)
    if new:
        return da.broadcast_to(a, x.shape, chunks=x.chunks)
    return da.broadcast_to(a, x.shape).rechunk(x.chunks)


@dask_task
def _signed_block(mask, v):
    return np.where(mask, v, -1 - v)


def _signed(mask, v):
    """``v`` (ids or positions, in the blocks of ``mask``) where the mask
    selects, ``-1 - v`` where it does not: the mask in the sign."""
    return mask.map_blocks(_signed_block, v, dtype=v.dtype,
                           meta=np.empty((0,) * v.ndim, v.dtype))


def group_ids(gids, num_groups, n, label, qualname=""):
    """(group ids, num_groups): a dask ``group_ids`` (its dtype and shape
    checked now, its values per block) needs ``num_groups``; NumPy ids are
    checked now, out-of-range ids included."""
    if is_dask_array(gids):
        check_group_ids(gids.dtype, gids.shape, n, label)
        if num_groups is None:
            raise ValueError(f"{qualname}: num_groups is required when group_ids is a dask "
                             "array (the result's length must be known to build the graph)")
        return gids, host_num_groups(num_groups, None, label)
    given, ids_p = host_ids(gids, n, label)
    g = host_num_groups(num_groups, given, label)  # (the ids as given: uint64 beyond intp)
    if given.size and (given.min() < 0 or given.max() >= g):
        raise bad_group_id(given, g, label)
    return ids_p, g


def _ids_along(ids, chunks):
    """The group ids as a dask array chunked as the group axis."""
    import dask.array as da

    if is_dask_array(ids):
        return ids.rechunk((chunks,))
    return da.from_array(ids, chunks=(chunks,))


def _check_no_empty(ids, g, label):
    """A group without elements and no start value: the NumPy path's
    ValueError, at graph-build time (NumPy ids)."""
    empty = np.bincount(ids, minlength=g) == 0
    if empty.any():
        raise empty_group_error(label, int(np.flatnonzero(empty)[0]))


@dask_task
def _group_state(ref, g, descrs, mode, initials, seeded, fill, parts, dtype, masked, label,
                 block, w, axes):
    ufunc = _ufunc(ref)
    axis = axes[0]
    mask = None
    if masked:  # the where mask rides in the ids' sign: id where selected, -1 - id where not
        mask = w >= 0
        w = np.where(mask, w, -1 - w)
    if w.size:  # the block's 1-d ids, from their broadcast block
        ids = np.ascontiguousarray(w[tuple(slice(None) if i == axis else 0
                                           for i in range(w.ndim))], dtype=np.intp)
        counts = np.bincount(ids, minlength=g)
    else:  # empty across the group axis, which hides the ids: no elements
        ids, counts = np.zeros(block.shape[axis], np.intp), None
    if fill is not None:  # groups the block lacks start from the fill values
        mode, initials, seeded = 2, fill, True
    if parts is None:
        states = (_host.group_reduce(ufunc, block, axis, ids, g, descrs, (None,) * ufunc.nout,
                                     mode, initials, mask, seeded, label),)
    else:
        def one(a):
            return _host.group_reduce_parts(ufunc, a, axis, ids, g, _whole, None, None, mode,
                                            initials, mask, seeded, dtype, label)[0]

        def spread(K):  # each element's group's shift
            return np.take(K, ids, axis=axis)

        states = tuple(_framed(p, one, spread) if _frames(ufunc, p.dtype) else tuple(one(p))
                       for p in parts(np, block))
    return {"empty": False, "s": (states, counts)}


@dask_task
def _merge_groups(ref, a, b):
    counts = b[1] if a[1] is None else a[1] if b[1] is None else a[1] + b[1]
    return _merge_parts(ref, a[0], b[0]), counts


@dask_task
def _group_finish(label, check_empty, finish, ref, seeds, dtypes, states):
    parts, counts = states
    # counts None: an output block with no elements across the group axis
    # (the empty groups are then found at build time or by the other blocks)
    if check_empty and counts is not None and (counts == 0).any():
        raise empty_group_error(label, int(np.flatnonzero(counts == 0)[0]))
    if seeds is not None:  # the user's initial, merged once into every group
        parts = (_merge_seeds(_ufunc(ref), seeds, parts[0]), *parts[1:])
    res = parts[0] if finish is None else finish(np, _unframe(parts, _ufunc(ref).nout))
    return tuple(np.asarray(r, dtype=dt) for r, dt in zip(res, dtypes))


def group_reduce(ufunc, x, ax, ids, g, descrs, outs, mode=0, initials=None, mask=None,
                 seeded=True, label="", qualname=""):
    """``_host.group_reduce`` as one tree reduction over the group axis."""
    return _grouped(ufunc, x, ax, ids, g, descrs, None, None, descrs[1:], mode, initials,
                    mask, None, label, qualname)


def group_reduce_parts(ufunc, x, ax, ids, g, parts, finish=None, dtypes=None, mode=0,
                       initials=None, mask=None, seeded=True, dtype=None, label="",
                       qualname=""):
    """``_host.group_reduce_parts`` as one tree reduction over the group axis."""
    return _grouped(ufunc, x, ax, ids, g, None, parts, finish, dtypes, mode, initials, mask,
                    dtype, label, qualname)


def _grouped(ufunc, x, ax, ids, g, descrs, parts, finish, dtypes, mode, initials, mask, dtype,
             label, qualname):
    """Each block's states of every group (the groups it lacks: the ufunc's
    initials, or the fill values of a ufunc without them, with their counts
    to find empty groups), merged blockwise; ``parts`` and ``finish``: a
    grouped statistic's."""

    ref = _ufunc_ref(ufunc)
    has_init = has_initials(ufunc, descrs[0]) if parts is None else \
        has_identity(ufunc, stream_dtype(x), dtype)
    identity_needed = mode == 0 and not has_init
    if (is_dask_array(ids) and identity_needed and _known(x.shape) and x.size == 0
            and _known(ids.shape)):
        # no elements, so no block sees the ids: compute them (not the data)
        # for the NumPy path's empty-group check
        ids = np.asarray(ids.compute(), dtype=np.intp)
    if identity_needed and not is_dask_array(ids):
        _check_no_empty(ids, g, label)
    seeds = _seeds_once(qualname, ufunc, mode, initials, descrs, has_init)
    if seeds is not None:  # the blocks start from the ufunc's initials
        mode, initials = 0, None
    block_seeded = mode == 2 or (mode == 0 and has_init)
    fill = None
    if identity_needed:
        stream = descrs[0] if parts is None else stream_dtype(x) if dtype is None else \
            np.dtype(dtype)
        fill = mask_initials(ufunc, stream)
        if fill is None:  # a ufunc registered through the C API, without initials
            raise TypeError(f"{qualname}: {ufunc.__name__} has no initial values, so the "
                            "state of a group that a dask block lacks cannot be "
                            "represented; pass initial=..., or reduce a NumPy array")
    # the ids along the group axis, new length-1 axes elsewhere (indexing,
    # not reshape, which Dask mishandles with empty chunks)
    ids_d = _ids_along(ids, x.chunks[ax])
    ids_b = ids_d[tuple(slice(None) if i == ax else None for i in range(x.ndim))]
    ids_b = _in_blocks(ids_b, x, label, "the group ids", new=True)
    if mask is not None:
        ids_b = _signed(_in_blocks(mask, x, label, "the where mask"), ids_b)
    dtypes = tuple(dtypes)
    res = reduction(label, x, (ax,), True, struct(dtypes),
                     functools.partial(_group_state, ref, g, descrs, mode, initials,
                                       block_seeded, fill, parts, dtype, mask is not None,
                                       label),
                     functools.partial(_merge_groups, ref),
                     functools.partial(_group_finish, label, identity_needed, finish, ref,
                                       seeds, dtypes),
                     ids_b, output_size=g)
    return outputs(label, res, dtypes, x.ndim)


# group_argminmax: per block, the NumPy backend's group (argmin, argmax) over
# the groups the block has (global indices, -1 for the others); the states,
# num_groups entries per block, merged by argminmax's own rule (_arg_merge)

@dask_task
def _group_arg_block(block, ids, g=0, state_dt=None, descrs=None, label="", block_info=None):
    st = np.zeros(g, state_dt)
    st["imin"] = st["imax"] = -1
    if block_info is None or block.size == 0:  # meta, or no element
        return st
    start = block_info[0]["array-location"][0][0]
    ids = np.asarray(ids, dtype=np.intp)
    if ((ids < 0) | (ids >= g)).any():
        raise bad_group_id(np.concatenate([np.zeros(start, np.intp), ids]), g, label)
    present = np.flatnonzero(np.bincount(ids, minlength=g))
    local = np.full(g, -1, np.intp)
    local[present] = np.arange(present.size)
    lo, hi = _host.group_arg(block, local[ids], present.size, descrs, label=label)
    st["vmin"][present], st["imin"][present] = block[lo], lo + start
    st["vmax"][present], st["imax"][present] = block[hi], hi + start
    return st


@dask_task
def _group_arg_finish(label, states):
    imin, imax = states["imin"], states["imax"]
    if (imin < 0).any():
        raise empty_group_error(label, int(np.flatnonzero(imin < 0)[0]))
    return imin.astype(np.intp), imax.astype(np.intp)


def group_arg(x, ids, g, descrs, label="", qualname=""):
    """(argmin, argmax) of every group of 1-d ``x`` as one tree reduction of
    (value, global index) states per group."""
    import dask.array as da

    if not is_dask_array(ids):
        _check_no_empty(ids, g, label)
    state_dt = _arg_state_dt(x.dtype)
    states = da.map_blocks(_group_arg_block, x, _ids_along(ids, x.chunks[0]), g=g,
                           state_dt=state_dt, descrs=descrs, label=label,
                           chunks=((g,) * len(x.chunks[0]),), dtype=state_dt,
                           meta=np.empty((0,), state_dt),
                           token="numreduce-group_argminmax-chunk")
    dtypes = [np.dtype(np.intp)] * 2
    res = reduction("group_argminmax", states, (0,), True, struct(dtypes), _arg_identity,
                     _arg_merge, functools.partial(_group_arg_finish, label), output_size=g)
    return outputs("group_argminmax", res, dtypes, 1)


# ---------------------------------------------------------------------------
# segments: one tree reduction over the segment axis, each block reducing
# its own pieces of the segments (output_size = the number of segments); a
# piece a block lacks is absent from its state, not an identity, so ufuncs
# without initials merge exactly too
# ---------------------------------------------------------------------------

@dask_task
def _seg_state(ref, lo, hi, descrs, mode, seeds, block, w, axes):
    """The block's pieces of every segment: (states, present) with the
    segment axis of length nseg, present[s] where the block holds at least
    one element of segment s.  `w` carries each element's position along the
    axis (its sign the where mask: pos where selected, -1 - pos where not)."""
    u = _ufunc(ref)
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
    mask = None if w.size == 0 or w.min() >= 0 else w >= 0
    part = _host.segments(u, block, axis, l_lo[present], l_hi[present], descrs,
                          (None,) * u.nout, mode, seeds, mask=mask)
    shape = tuple(nseg if i == axis else n for i, n in enumerate(block.shape))
    idx = [slice(None)] * block.ndim
    idx[axis] = present
    states = []
    for p in part:
        full = np.zeros(shape, p.dtype)
        full[tuple(idx)] = p
        states.append(full)
    return {"empty": False, "s": (tuple(states), present)}


@dask_task
def _seg_merge(ref, axis, a, b):
    (sa, pa), (sb, pb) = a, b
    both = pa & pb
    out = []
    take = [slice(None)] * sa[0].ndim
    take[axis] = both
    take = tuple(take)
    merged = merge_pair(_ufunc(ref), tuple(x[take] for x in sa), tuple(x[take] for x in sb)) \
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


@dask_task
def _seg_finish(ref, axis, dtypes, empty_state, seeds, states):
    """Absent segments (no element anywhere) take the empty state (the
    ufunc's initials, or the seed); the seed is merged once into the others
    where the blocks did not start from it."""
    if states is None:
        raise ValueError("numreduce: a segment reduction met no block (unknown chunk sizes?)")
    st, present = states
    u = _ufunc(ref)
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


def segments(ufunc, x, ax, starts, stops, descrs, outs, mode=0, seeds=None, initials=None,
             mask=None, seeded=True, kind="segments", label="", qualname=""):
    """``_host.segments`` as one tree reduction over the segment axis."""
    import dask.array as da

    nout = ufunc.nout
    dtypes = list(descrs[1:])
    has_init = has_initials(ufunc, descrs[0])
    once = _seeds_once(qualname, ufunc, mode, initials, descrs, has_init)
    block_mode, block_seeds = (0, None) if once is not None else (mode, seeds)
    # the state of a segment with no element: the seed, or the ufunc's initials
    # (a ufunc without them has none: the methods layer refused empty segments)
    if mode == 2:
        empty_state = seeds
    elif mode == 0 and has_init:
        none = np.zeros(0, descrs[0])  # K empty sources for a reduction of K
        k = MULTI_SOURCE.get(ufunc)
        empty_state = _host.reduce(ufunc, none if k is None else (none,) * k, (0,), False,
                                   descrs, (None,) * nout)
    else:
        empty_state = tuple(np.zeros((), dt) for dt in dtypes)  # never used
    n = x.shape[ax]
    if n == 0:  # no element: every segment is empty (the checks allowed it)
        if not _known(x.shape):
            raise ValueError(f"{qualname}: the array has unknown chunk sizes (the result's "
                             "shape needs them); call x.compute_chunk_sizes() first")
        shape = x.shape[:ax] + (starts.shape[0],) + x.shape[ax + 1:]
        chunks = x.chunks[:ax] + ((starts.shape[0],),) + x.chunks[ax + 1:]
        return tuple(da.broadcast_to(np.asarray(e, dtype=dt), shape, chunks=chunks)
                     for e, dt in zip(empty_state, dtypes))
    # positions along the axis (the block offsets), the where mask in their sign
    pos = da.arange(n, chunks=(x.chunks[ax],), dtype=np.int64)
    pos = _in_blocks(pos[tuple(slice(None) if i == ax else None for i in range(x.ndim))], x,
                     label, "the positions", new=True)
    if mask is not None:
        pos = _signed(_in_blocks(mask, x, label, "the where mask"), pos)
    ref = _ufunc_ref(ufunc)
    res = reduction(kind, x, (ax,), True, struct(dtypes),
                     functools.partial(_seg_state, ref, starts, stops, descrs, block_mode,
                                       block_seeds),
                     functools.partial(_seg_merge, ref, ax),
                     functools.partial(_seg_finish, ref, ax, dtypes, empty_state, once),
                     pos, output_size=starts.shape[0])
    return outputs(kind, res, dtypes, x.ndim)
