"""The methods layer: ``reduce``, ``accumulate``, ``merge``, ``reduceat``,
``segmented_reduce``, ``reduce_by_group`` and ``at`` for multi-output
ufuncs, once for every backend.

Each method is its argument checks -- the rules layer's (``_args``,
``_dtypes``) and the backend's own (``be.asarray``, ``be.parse_out``,
``be.check_outs``, ``be.where``: what a NumPy, Dask or CuPy operand must
be) -- all before anything is written, then one primitive of the backend
``be`` (``_host``, ``_dask``, ``_cupy``).  ``qualname`` is the public
function's name (``numreduce.reduce``), for the backends' messages.

Layer: methods (imports the rules layer; backends come in as arguments).
"""

from __future__ import annotations

import numpy as np

from ._args import (NoValue, check_out_dtypes, inplace_outs, keepdims_flag, masked_ids,
                    normalize_axes, one_axis, parse_initial, reduced_shape, reduceat_bounds,
                    slice_offsets)
from ._dtypes import (MULTI_OUTPUT, MULTI_SOURCE, merge_descrs, pieces_start, reduce_start,
                      resolve_outs, seed_values, stream_dtype)

__all__ = ["accumulate", "at", "merge", "reduce", "reduce_by_group", "reduceat",
           "segmented_reduce"]


def reduce(be, qualname, ufunc, array, axis=0, dtype=None, out=None, keepdims=False,
           initial=NoValue, where=True, finish=None, label=None, dtypes=None,
           broadcast=False):
    """``ufunc.reduce`` for the engine's ufuncs on backend ``be``.  A plain
    ndarray without options takes the backend's quick path first (no
    argument handling); any other ufunc goes to ``be.foreign``.
    ``finish(xp, states)``: a statistic's last step (nanminmax's warning,
    the weighted moments' mean and variance); ``dtypes``: its results'
    dtypes where they are not the states' (for lazy backends); ``label``:
    the name of the graph or kernel (default: the ufunc's); ``broadcast``:
    the K sources of ``array`` are ``be.sources``' already (``_source_list``)."""
    nout = MULTI_OUTPUT.get(ufunc)
    if keepdims is not False and keepdims is not True:
        keepdims = keepdims_flag(keepdims)
    if (nout is not None and type(array) is np.ndarray and out is None and dtype is None
            and where is True and initial is NoValue and be.quick_reduce is not None):
        res = be.quick_reduce(ufunc, array, axis, keepdims)
        if res is not None:
            return res if finish is None else finish(np, res)
    if nout is None:
        ufunc, nout = _engine_ufunc(be, ufunc)
    if nout is None:
        return be.foreign(qualname, "reduce", ufunc, array, axis=axis, dtype=dtype, out=out,
                          keepdims=keepdims, initial=initial, where=where)
    # Every check below runs before the backend writes anything.
    name = ufunc.__name__
    scalars = out is not Ellipsis
    outs = be.parse_out(None if out is Ellipsis else out, nout, name, qualname)
    nsrc = MULTI_SOURCE.get(ufunc)
    if nsrc is not None:
        # A reduction of K sources: `array` is the tuple of the K arrays,
        # broadcast together (the backend's `sources`).
        arr = tuple(_source_list(be, qualname, ufunc, name, array, nsrc,
                                 broadcast=broadcast))
        shape, arr_dtype = arr[0].shape, arr[0].dtype
    else:
        arr = array if type(array) is np.ndarray else be.asarray(array, "the array", name,
                                                                 qualname)
        shape, arr_dtype = arr.shape, arr.dtype
    axes = normalize_axes(axis, len(shape))
    mode, initials = parse_initial(initial, nout)
    if nsrc is not None and mode == 1:
        raise ValueError(f"{qualname}: {name} starts from its initials; initial=None is not "
                         "supported for a reduction of several arrays")
    mask = None if where is True else be.where(where, shape, name, qualname)
    if out is not None and out is not Ellipsis:
        be.check_outs(outs, reduced_shape(shape, axes, keepdims), name)
    descrs = resolve_outs(ufunc, arr_dtype, outs, dtype, nout, name)
    if not be.loops_check_start:
        reduce_start(ufunc, descrs, mode, mask is not None, shape, axes)
    return be.reduce(ufunc, arr, axes, keepdims, descrs, outs, mode, initials, mask, finish,
                     scalars, label or name, qualname, dtypes)


def _engine_ufunc(be, ufunc):
    """(the engine's ufunc, its number of outputs): ``ufunc`` itself, or the
    engine's ufunc it stands for on this backend (``numreduce.cupy``'s
    device ufuncs); None outputs for a ufunc the engine does not know."""
    nout = MULTI_OUTPUT.get(ufunc)
    if nout is None:
        ufunc = be.own_ufunc(ufunc)
        nout = MULTI_OUTPUT.get(ufunc)
    return ufunc, nout


def _sources(be, qualname, ufunc, name, array, broadcast=False, group=False):
    """The operand of a method of ``ufunc``: the array, or for a reduction
    of K sources (``MULTI_SOURCE``) the K arrays of the tuple ``array``
    broadcast together in the loop's dtype (``_source_list``) and packed as
    one array of K-field records of that shape (``be.pack_sources``; for
    ``reduce_by_group`` (``group``), ``be.group_sources``: on the host, the
    K arrays standing for their records, which the scatter loop reads in
    place), so that the methods' axis, shape and out rules are the
    one-source ones.  TypeError where a K-source ufunc gets anything but a
    K-tuple."""
    nsrc = MULTI_SOURCE.get(ufunc)
    if nsrc is None:
        return array if type(array) is np.ndarray else be.asarray(array, "the array", name,
                                                                  qualname)
    pack = be.group_sources if group else be.pack_sources
    return pack(_source_list(be, qualname, ufunc, name, array, nsrc, broadcast=broadcast))


def _source_list(be, qualname, ufunc, name, array, nsrc, what="array", broadcast=False):
    """The K = ``nsrc`` arrays of the tuple ``array`` (the argument
    ``what``) broadcast together in the loop's dtype (the backend's
    ``sources``); TypeError for anything but a K-tuple.  ``broadcast``:
    they are ``be.sources``' result already (a statistic's, which needs
    their shape and dtype before it calls the method), taken as they are."""
    if broadcast and isinstance(array, (tuple, list)) and len(array) == nsrc:
        return list(array)
    if not isinstance(array, (tuple, list)) or len(array) != nsrc:
        raise TypeError(f"{qualname}: {ufunc.__name__} reduces {nsrc} arrays together; pass "
                        f"'{what}' as one tuple (x_0, ..., x_{nsrc - 1}), got "
                        f"{type(array).__name__}")
    return be.sources(array, [f"{what}[{i}]" for i in range(nsrc)], name, qualname)


def _along_axis(be, qualname, method, ufunc, nout, array, out, axis, verb, broadcast=False):
    """The operands of a method along one axis: (its name for messages,
    the ``out`` entries, the array (``_sources``), the normalised axis)."""
    name = f"{method}({ufunc.__name__})"
    outs = be.parse_out(out, nout, name, qualname)
    arr = _sources(be, qualname, ufunc, name, array, broadcast, group=method == "reduce_by_group")
    return name, outs, arr, one_axis(axis, arr, name, verb)


def merge(be, qualname, ufunc, states_a, states_b, out=None):
    """combine(states_a, states_b) elementwise, with broadcasting."""
    ufunc, nout = _engine_ufunc(be, ufunc)
    if nout is None:
        return be.foreign(qualname, "merge", ufunc, states_a, states_b, out=out)
    name = f"merge({ufunc.__name__})"
    a = be.states(states_a, nout, name, "states_a")
    b = be.states(states_b, nout, name, "states_b")
    outs = be.parse_out(out, nout, name, qualname)
    try:
        shape = np.broadcast_shapes(*(s.shape for s in a + b))
    except ValueError:
        raise ValueError(f"{name}: the states do not broadcast together: states_a shapes "
                         f"{[s.shape for s in a]}, states_b shapes {[s.shape for s in b]}"
                         ) from None
    be.check_outs(outs, shape, name)
    descrs = merge_descrs(ufunc, [s.dtype for s in a], [s.dtype for s in b], nout, name)
    check_out_dtypes(outs, descrs[1:], name)
    return be.merge(ufunc, a, b, outs, descrs, label=name)


def accumulate(be, qualname, ufunc, array, axis=0, dtype=None, out=None):
    """``ufunc.accumulate`` for the engine's ufuncs: every output's running
    reduction along one axis; any other ufunc goes to ``be.foreign``."""
    ufunc, nout = _engine_ufunc(be, ufunc)
    if nout is None:
        return be.foreign(qualname, "accumulate", ufunc, array, axis=axis, dtype=dtype,
                          out=out)
    # Every check below runs before anything is written.
    name, outs, arr, ax = _along_axis(be, qualname, "accumulate", ufunc, nout, array, out, axis,
                                      "accumulate on")
    if out is not None:
        be.check_outs(outs, arr.shape, name)
    descrs = resolve_outs(ufunc, stream_dtype(arr), outs, dtype, nout, name)
    return be.scan(ufunc, arr, ax, descrs, outs, name, qualname)


def reduceat(be, qualname, ufunc, array, indices, axis=0, dtype=None, out=None):
    """``ufunc.reduceat`` for the engine's ufuncs (its index rules); any
    other ufunc goes to ``be.foreign``."""
    ufunc, nout = _engine_ufunc(be, ufunc)
    if nout is None:
        return be.foreign(qualname, "reduceat", ufunc, array, indices, axis=axis, dtype=dtype,
                          out=out)
    # Every check below runs before anything is written.
    name, outs, arr, ax = _along_axis(be, qualname, "reduceat", ufunc, nout, array, out, axis,
                                      "reduceat on")
    n = be.axis_length(arr, ax, "the segment axis", qualname)
    lo, hi = reduceat_bounds(be.host_indices(indices, "indices", name), n, name,
                             ufunc.__name__)
    return _segments(be, qualname, ufunc, nout, name, arr, ax, lo, hi, dtype, outs, "reduceat")


def segmented_reduce(be, qualname, ufunc, array, starts, stops, axis=0, dtype=None, out=None,
                     initial=NoValue, where=True):
    """Reductions of the segments [starts[i], stops[i]) of one axis
    (slice-bound offsets: negative from the end, clipped)."""
    ufunc, nout = _engine_ufunc(be, ufunc)
    if nout is None:
        return be.foreign(qualname, "segmented_reduce", ufunc, array, starts, stops)
    # Every check below runs before anything is written.
    name, outs, arr, ax = _along_axis(be, qualname, "segmented_reduce", ufunc, nout, array,
                                      out, axis, "segmented_reduce on")
    n = be.axis_length(arr, ax, "the segment axis", qualname)
    lo = slice_offsets(be.host_indices(starts, "starts", name), n, name, "starts")
    hi = slice_offsets(be.host_indices(stops, "stops", name), n, name, "stops")
    if lo.shape != hi.shape:
        raise ValueError(f"{name}: 'starts' and 'stops' must have the same length, got "
                         f"{lo.shape[0]} and {hi.shape[0]}")
    mode, initials = parse_initial(initial, nout)
    return _segments(be, qualname, ufunc, nout, name, arr, ax, lo, hi, dtype, outs,
                     "segmented_reduce", mode, initials, where)


def _segments(be, qualname, ufunc, nout, name, arr, ax, starts, stops, dtype, outs, kind,
              mode=0, initials=None, where=True):
    """The checks of a segment reduction against its segments (out, dtype,
    initial, where), then the backend's segment loop."""
    mask = None if where is True else be.where(where, arr.shape, name, qualname)
    if any(o is not None for o in outs):
        be.check_outs(outs, arr.shape[:ax] + (starts.shape[0],) + arr.shape[ax + 1:], name)
    descrs = resolve_outs(ufunc, stream_dtype(arr), outs, dtype, nout, name)
    seeds = seed_values(initials, descrs, name) if mode == 2 else None

    seeded = pieces_start(ufunc, descrs, mode, mask is not None, name,
                          segments=(starts, stops, ax))
    return be.segments(ufunc, arr, ax, starts, stops, descrs, outs, mode, seeds, initials, mask,
                       seeded, kind, name, qualname)


def reduce_by_group(be, qualname, ufunc, array, group_ids, num_groups=None, axis=0,
                    dtype=None, out=None, initial=NoValue, where=True, parts=None,
                    stream=None, finish=None, dtypes=None, label=None, broadcast=False):
    """One reduction per group along one axis.  ``parts(xp, block)`` and
    ``finish(xp, states)``: a grouped statistic's parts (the real and
    imaginary parts of complex data), the dtype of those parts (``stream``;
    default the data's) and last step; ``dtypes`` its result dtypes (then
    ``out`` is None); ``broadcast``: as ``reduce``'s."""
    ufunc, nout = _engine_ufunc(be, ufunc)
    if nout is None:
        return be.foreign(qualname, "reduce_by_group", ufunc, array, group_ids)
    # Every check below runs before anything is written.
    name, outs, arr, ax = _along_axis(be, qualname, "reduce_by_group", ufunc, nout, array, out,
                                      axis, "group", broadcast)
    n = be.axis_length(arr, ax, "the group axis", qualname)
    ids, g = be.group_ids(group_ids, num_groups, n, name, qualname)
    mode, initials = parse_initial(initial, nout)
    mask = None if where is True else be.where(where, arr.shape, name, qualname)
    if out is not None:
        be.check_outs(outs, arr.shape[:ax] + (g,) + arr.shape[ax + 1:], name)
    descrs = resolve_outs(ufunc, stream_dtype(arr) if stream is None else stream, outs, dtype,
                          nout, name)
    seeded = pieces_start(ufunc, descrs, mode, mask is not None, name, prefix=True)
    if parts is None:
        return be.group_reduce(ufunc, arr, ax, ids, g, descrs, outs, mode, initials, mask,
                               seeded, label or name, qualname)
    return be.group_reduce_parts(ufunc, arr, ax, ids, g, parts, finish, dtypes, mode, initials,
                                 mask, seeded, dtype, label or name, qualname)


def at(be, qualname, ufunc, outs, indices, values):
    """``ufunc.at`` in place: repeated indices accumulate.  A reduction of K
    sources takes ``values`` as the tuple of K arrays, handed to the
    backend as the list of them broadcast together (``be.sources``)."""
    ufunc, nout = _engine_ufunc(be, ufunc)
    if nout is None:
        return be.foreign(qualname, "at", ufunc, outs, indices, values)
    name = f"at({ufunc.__name__})"
    masked_ids(indices, name, "indices")
    outs = inplace_outs(outs, nout, name)
    nsrc = MULTI_SOURCE.get(ufunc)
    if nsrc is not None:  # K sources: the list of the K values, broadcast together
        values = _source_list(be, qualname, ufunc, name, values, nsrc, "values")
    return be.at(ufunc, outs, indices, values, name, qualname)
