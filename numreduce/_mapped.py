"""mapreduce: a reduction of ``f(*arrays)`` without the full-size image.

The mapped operand is one more backend.  ``Mapped`` stands for the
broadcast image ``f(*sources)`` (its shape, and its dtype from ``f`` on the
first block); the backend ``MappedBackend`` reduces it block by block: ``f``
runs on one cache-sized block of the broadcast sources (``BLOCK``
elements), the block goes straight into the NumPy backend's reduction, and
the block's states merge into the result's states at the block's place.
Every statistic of ``_stats`` and ``methods.reduce`` run unchanged on it
(each statistic once; everything but the reduction itself is the NumPy
backend's).  The blocks and the order of their merges follow from the
shape alone, so results are bitwise the same for any thread count.

Fused maps: where ``f`` and the reduction's ufunc have a loop that maps
each element itself (``_FUSED``: ``np.square`` and ``twosum``, the sum of
squares, through the ``sqtwosum`` ufunc), a float32 or float64 source whose
image keeps its dtype is reduced by that loop straight from the source: no
blocks, no image, the engine's kernels (threads, SIMD) -- and the very bits
of the reduction of ``f(source)`` wherever the engine walks both the same
way (C- and F-ordered sources).

The public ``mapreduce``'s array-type policy (``_dispatch.mapreduce``)
picks this backend for NumPy sources of more than one block.

Layer: backends (imports the rules layer, ``_core`` and ``_host``).
"""

from __future__ import annotations

import math

import numpy as np

from . import _core, _host
from ._args import is_cupy_array, is_dask_array
from ._dtypes import has_initials, merge_descrs, sources_plan

__all__ = ["BLOCK", "Mapped", "MappedBackend", "image"]

BLOCK = 1 << 16  # elements of the image per block (512 KiB of float64)

# idempotent combines: a given initial may seed every block
_IDEMPOTENT = ("minimummaximum", "fminfmax")

def _reported(res):
    """Whether a fused result stands as it is: np.seterr ignores overflow,
    or every value is finite.  Else (a square may have overflowed) the
    caller redoes the reduction through the blocks, where f's own calls
    report the overflow as f(x) would, with the same non-finite result."""
    if np.geterr()["over"] == "ignore":
        return True
    parts = res if isinstance(res, (tuple, list)) else (res,)
    return all(_reported(p) if isinstance(p, (tuple, list)) else bool(np.isfinite(p).all())
               for p in parts)


# (f, ufunc, the ufunc whose loops reduce f(x) reading x): the fused maps
_FUSED = ((np.square, _core.twosum, _core.sqtwosum),)
_FUSED_DTYPES = (np.dtype(np.float32), np.dtype(np.float64))


def fused(ufunc, x, dtypes=()):
    """(the fused ufunc, the source) where ``ufunc`` over the image ``x``
    has a fused map (``_FUSED``): one float32/float64 source, an image of
    its dtype, and no other dtype in ``dtypes`` (the loop's); else None.
    Never where np.seterr asks for underflow reports, or for an exception
    on overflow: the loop sets no floating-point flags, and only f's own
    calls on the blocks report them as f(x) would."""
    if not isinstance(x, Mapped) or len(x.sources) != 1:
        return None
    err = np.geterr()
    if err["under"] != "ignore" or err["over"] in ("raise", "call"):
        return None
    src = x.sources[0]
    for f, u, g in _FUSED:
        if x.f is f and ufunc is u and src.dtype in _FUSED_DTYPES and x.dtype == src.dtype \
                and all(d is None or np.dtype(d) == src.dtype for d in dtypes):
            return g, src
    return None


def _blocks(shape):
    """The blocks of ``shape`` in C order, as tuples of slices (one per
    axis, so a block keeps the array's number of axes): single indices
    along the leading axes, slabs of about ``BLOCK`` elements along the
    first axis whose trailing part fits in a block, the trailing axes
    whole."""
    d = len(shape)
    k = 0
    while k < d - 1 and math.prod(shape[k + 1:]) > BLOCK:
        k += 1
    step = max(1, BLOCK // max(1, math.prod(shape[k + 1:])))
    rest = (slice(None),) * (d - k - 1)
    for idx in np.ndindex(*shape[:k]):
        lead = tuple(slice(i, i + 1) for i in idx)
        for s in range(0, shape[k], step):
            yield lead + (slice(s, min(s + step, shape[k])),) + rest


def image(f, blocks, shape, dtype=None, label="mapreduce", out=None):
    """``f(*blocks)`` as an ndarray of ``shape`` (and ``dtype`` where
    given): ValueError for another shape, TypeError for another dtype or a
    result that is not an array of numbers.  ``out``: where ``f`` is a
    one-output ufunc, the array it writes into (``f(*blocks, out=out)``)."""
    try:
        r = f(*blocks) if out is None else f(*blocks, out=out)
    except ValueError as e:
        # NumPy's bare "output array is read-only" / "assignment destination
        # is read-only": the blocks are read-only views of the sources
        if "read-only" in str(e) and any(isinstance(b, np.ndarray) and not b.flags.writeable
                                         for b in blocks):
            raise ValueError(f"{label}: f must not write into its input (the blocks it gets "
                             "are read-only views of the sources); return a new array, e.g. "
                             f"np.add(x, 1) instead of np.add(x, 1, out=x) ({e})") from e
        raise
    if is_dask_array(r) or is_cupy_array(r) or isinstance(r, np.ma.MaskedArray):
        raise TypeError(f"{label}: f must return a NumPy array, got {type(r).__name__}")
    r = np.asarray(r)
    if r.shape != shape:
        raise ValueError(f"{label}: f must return an array of the sources' broadcast shape: "
                         f"got shape {r.shape} for sources of shape {shape}")
    if dtype is not None and r.dtype != dtype:
        raise TypeError(f"{label}: f returned dtype {r.dtype} for one block and {dtype} for "
                        "another")
    return r


class Mapped:
    """The image ``f(*sources)`` of broadcast NumPy sources, computed one
    block at a time.  ``first`` is the image of the first block (its dtype
    is the image's)."""

    def __init__(self, f, sources, shape, label):
        self.f, self.sources, self.shape, self.label = f, sources, shape, label
        self.ndim = len(shape)
        self.size = math.prod(shape)
        self._first_slices = next(_blocks(shape))
        self._buf = None
        self.first = self._eval(self._first_slices, None)
        self.dtype = self.first.dtype
        self.cast = self.dtype  # the loop's dtype, where other sources join it (``sources``)
        if isinstance(f, np.ufunc) and f.nout == 1:
            # A one-output ufunc writes every later block into one buffer of
            # the first (largest) block's shape: the same values as a new
            # array each time, without a fresh allocation (and its page
            # faults) per block.  A block is reduced before the next is made.
            self._buf = np.empty(self.first.shape, self.dtype)

    def _eval(self, sl, dtype):
        blocks = [s[sl] for s in self.sources]
        shape = np.broadcast_shapes(*(b.shape for b in blocks))
        out = None
        if self._buf is not None:
            # blocks differ from the first only in the length of their slab
            # axis: the buffer's leading part is C-contiguous
            out = self._buf[tuple(slice(0, n) for n in shape)]
        return image(self.f, blocks, shape, dtype, self.label, out)

    def blocks(self):
        """(slices, image of the block) of every block, in C order."""
        for sl in _blocks(self.shape):
            yield sl, (self.first if sl == self._first_slices else self._eval(sl, self.dtype))


class MappedBackend:
    """The backend of a ``Mapped`` operand: the NumPy backend (``_host``)
    with its reductions done block by block (``reduce``, ``reduce_parts``,
    ``arg_reduce``)."""

    quick_reduce = None  # no C fast path: the operand is not an ndarray
    quick_arg = None
    loops_check_start = False  # reduce's start rules are checked up front

    def __init__(self, qualname):
        self.qualname = qualname

    def __getattr__(self, name):
        return getattr(_host, name)

    def asarray(self, x, what="the array", label="", qualname=""):
        if isinstance(x, Mapped):
            return x
        return _host.asarray(x, what, label, qualname)

    def sources(self, arrays, names, label="", qualname=""):
        """The sources of a reduction of several arrays whose first is the
        image (meanvar's ``weights=``, logsumexp's ``b=``): the image as a
        ``Mapped`` of the broadcast shape of them all, then the other
        operands broadcast to it (views) -- every one in the loop's dtype
        (``_host.sources_plan``, the image's dtype standing for the image).
        ``reduce`` then feeds each block of the image with the same block
        of the others: what the one-block path gives, at every size."""
        x, rest = arrays[0], arrays[1:]
        if not isinstance(x, Mapped):
            return _host.sources(arrays, names, label, qualname)
        for r in rest:
            if isinstance(r, Mapped) or is_dask_array(r) or is_cupy_array(r):
                raise TypeError(f"{qualname or label}: {names[1]} of a mapped array must be a "
                                f"NumPy array, got {type(r).__name__}")
        others = [np.asarray(r) for r in rest]
        probe = np.broadcast_to(np.empty((), x.dtype), x.shape)  # the image's dtype and shape
        dt, shape = sources_plan(qualname or label, names, [probe, *others])
        if shape != x.shape:  # weights that broadcast the image further
            x = Mapped(x.f, [np.broadcast_to(s, shape) for s in x.sources], shape, x.label)
        x.cast = dt
        return [x, *(np.broadcast_to(o.astype(dt, copy=False), shape) for o in others)]

    def nonnegative(self, w, message):
        return _host.nonnegative(w, message)  # the weights are NumPy arrays (``sources``)

    def array_code(self, a):
        """The image as one ndarray, for array code (complex logsumexp's
        several passes): the one-block path's array, at every size -- a
        full-size temporary, as on CuPy."""
        if not isinstance(a, Mapped):
            return a
        return image(a.f, a.sources, a.shape, a.dtype, a.label)

    # -- the block loop -----------------------------------------------------

    @staticmethod
    def _joint(x):
        """(the Mapped image, its blocks' iterator) of the operand ``x``: the
        image, or the tuple (image, other sources...) of a reduction of
        several arrays (``sources``), whose blocks are the tuples (the
        image's block in the loop's dtype, the others' same block)."""
        if isinstance(x, Mapped):
            return x, x.blocks
        img, others = x[0], x[1:]

        def blocks():
            for sl, b in img.blocks():
                yield sl, (b.astype(img.cast, copy=False), *(o[sl] for o in others))

        return img, blocks

    def _run(self, x, axes, mask, block_states):
        """The states (a list of tuples of arrays, in the keepdims shape) of
        ``x`` reduced over ``axes``: ``block_states(image, mask, first)``
        of each block, merged into the states of the block's place (a
        block is the first of its place where it starts every reduced axis
        at 0: it is written there, the later ones merge in C order)."""
        x, blocks = self._joint(x)
        shape = x.shape
        kshape = tuple(1 if i in axes else n for i, n in enumerate(shape))
        if mask is not None:
            mask = np.broadcast_to(mask, shape)
        acc = None
        descrs = {}  # each part's merge loop, resolved once
        for sl, img in blocks():
            first = all((sl[i].start or 0) == 0 for i in axes)
            st = block_states(img, None if mask is None else mask[sl], first)
            place = tuple(slice(0, 1) if i in axes else s for i, s in enumerate(sl))
            if acc is None:
                acc = [[np.empty(kshape, dtype=s.dtype) for s in part] for part in st]
            for k, (part_acc, part) in enumerate(zip(acc, st)):
                if first:
                    for a, s in zip(part_acc, part):
                        a[place] = s
                    continue
                cur = tuple(a[place] for a in part_acc)
                if k not in descrs:
                    descrs[k] = merge_descrs(self._ufunc, [s.dtype for s in cur],
                                             [s.dtype for s in part], len(part), self.qualname)
                # merged in place: the states of the place are the outputs
                _host.merge_states(self._ufunc, cur, tuple(part), cur, descrs[k])
        return acc

    @staticmethod
    def _shape(states, axes, keepdims):
        if keepdims:
            return states
        return [tuple(np.squeeze(s, axis=axes) for s in part) for part in states]

    def reduce(self, ufunc, x, axes, keepdims, descrs, outs, mode=0, initials=None, mask=None,
               finish=None, scalars=True, label="", qualname="", dtypes=None):
        """``_host.reduce`` of the image, block by block: the first block
        of each place starts from ``initial``; the later ones from the
        loop's initials where it has them, else (min/max: idempotent) from
        ``initial`` again or from their own first element."""
        if not (isinstance(x, Mapped) or (isinstance(x, tuple) and isinstance(x[0], Mapped))):
            return _host.reduce(ufunc, x, axes, keepdims, descrs, outs, mode, initials, mask,
                                finish, scalars, label, qualname, dtypes)
        hit = fused(ufunc, x, descrs) if mode == 0 else None  # (an initial is not mapped)
        if hit is not None:
            res = None
            if mask is None and all(o is None for o in outs) and scalars:
                # the path methods.reduce takes for the image as an ndarray
                res = _host.quick_reduce(hit[0], hit[1],
                                         None if len(axes) == x.ndim else axes, keepdims)
            if res is None:
                res = _host.reduce(hit[0], hit[1], axes, keepdims, descrs, outs, mode, initials,
                                   None if mask is None else np.broadcast_to(mask, x.shape),
                                   scalars=scalars)
            if _reported(res):
                return res if finish is None else finish(np, res)
        nout = len(outs)
        later = 0 if has_initials(ufunc, descrs[0]) else mode
        if later == 2 and ufunc.__name__ not in _IDEMPOTENT:
            raise TypeError(f"{self.qualname}: initial= of {ufunc.__name__}, which has no "
                            "initials of its own, is not supported by mapreduce (it would "
                            "seed every block)")
        self._ufunc = ufunc

        def block_states(img, msk, first):
            m = mode if first else later
            return [_host.reduce(ufunc, img, axes, True, descrs, (None,) * nout, m, initials,
                                 msk, scalars=False)]

        states = self._shape(self._run(x, axes, mask, block_states), axes, keepdims)[0]
        res = []
        for s, o in zip(states, outs):
            if o is None:
                res.append(s[()] if scalars and s.ndim == 0 else s)
            else:
                np.copyto(o, s, casting="unsafe")  # resolve_outs checked the cast
                res.append(o)
        res = tuple(res)
        return res if finish is None else finish(np, res)

    def reduce_parts(self, ufunc, x, axes, keepdims, parts, finish=None, dtypes=None, mask=None,
                     dtype=None, accurate=False, label="", qualname=""):
        """``_host.reduce_parts`` of the image, block by block."""
        if not isinstance(x, Mapped):
            return _host.reduce_parts(ufunc, x, axes, keepdims, parts, finish, dtypes, mask,
                                      dtype, accurate, label, qualname)
        hit = fused(ufunc, x, (dtype,))
        if hit is not None:
            res = _host.reduce_parts(hit[0], hit[1], axes, keepdims, parts, None, dtypes,
                                     None if mask is None else np.broadcast_to(mask, x.shape),
                                     dtype, accurate, label, qualname)
            if _reported(res):
                return res if finish is None else finish(np, res)
        self._ufunc = ufunc

        def block_states(img, msk, first):
            return _host.reduce_parts(ufunc, img, axes, True, parts, None, None, msk, dtype,
                                      accurate)

        states = self._shape(self._run(x, axes, mask, block_states), axes, keepdims)
        return states if finish is None else finish(np, states)

    def arg_reduce(self, a, ax, shape, skip_nan, label="", qualname=""):
        """(argmin, argmax) of the image along ``ax`` (None: flattened):
        each block's own (the engine's row kernel; -1 for a block's all-NaN
        row when NaNs are skipped), merged into the best so far by value --
        a strict comparison keeps the first occurrence, as the blocks come
        in C order; the first NaN (NaT) wins where NaNs are not skipped."""
        if not isinstance(a, Mapped):
            return _host.arg_reduce(a, ax, shape, skip_nan, label, qualname)
        oshape = () if ax is None else a.shape[:ax] + a.shape[ax + 1:]
        inexact = a.dtype.kind in "fcmM"
        best = None  # [imin, imax, vmin, vmax] of shape oshape
        for sl, img in a.blocks():
            # the block's rows as the host reads them (in place, any axis)
            lo, hi = _core._argminmax(_host.arg_rows(img, ax), skip_nan)
            if ax is None:
                flat, place, bshape = img.reshape(-1), (), ()
            else:
                bshape = img.shape[:ax] + img.shape[ax + 1:]
                place = sl[:ax] + sl[ax + 1:]
            idx, vals = [], []
            for loc in (lo, hi):
                ok = loc >= 0
                at = np.where(ok, loc, 0)
                if ax is None:
                    v = flat[at]
                    g = np.ravel_multi_index(tuple(
                        j + (s.start or 0) for j, s in zip(np.unravel_index(at, img.shape), sl)),
                        a.shape)
                else:
                    at = at.reshape(bshape)
                    v = np.take_along_axis(img, np.expand_dims(at, ax), ax).squeeze(ax)
                    g = at + (sl[ax].start or 0)
                idx.append(np.where(ok.reshape(bshape), g, -1).astype(np.intp).reshape(bshape))
                vals.append(v.reshape(bshape))
            if best is None:
                best = [np.full(oshape, -1, dtype=np.intp), np.full(oshape, -1, dtype=np.intp),
                        np.zeros(oshape, dtype=a.dtype), np.zeros(oshape, dtype=a.dtype)]
            self._better(best, place, idx, vals, skip_nan, inexact)
        if bool((best[0] < 0).any()) or bool((best[1] < 0).any()):
            raise ValueError("All-NaN slice encountered")  # only where NaNs are skipped
        return best[0].reshape(shape), best[1].reshape(shape)

    @staticmethod
    def _better(best, place, idx, vals, skip_nan, inexact):
        """Merge a block's candidates into the best so far at ``place``."""
        for k, less in ((0, np.less), (1, np.greater)):
            bi, bv = best[k][place], best[2 + k][place]
            ni, nv = idx[k], vals[k]
            with np.errstate(invalid="ignore"):
                take = (bi < 0) & (ni >= 0)
                if inexact and not skip_nan:
                    # the first NaN wins: a NaN candidate beats a non-NaN best
                    take |= (ni >= 0) & (bi >= 0) & np.isnan(nv) & ~np.isnan(bv)
                    take |= (ni >= 0) & (bi >= 0) & ~np.isnan(bv) & less(nv, bv)
                else:
                    take |= (ni >= 0) & (bi >= 0) & less(nv, bv)
            best[k][place] = np.where(take, ni, bi)
            best[2 + k][place] = np.where(take, nv, bv)
