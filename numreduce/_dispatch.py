"""One array-type policy, decided once at the entry of every public function.

``@public_function(...)`` wraps a public function (``minmax``, ...,
``reduce``).  The input array -- and the ``out`` entries, where the function
has ``out`` -- decide what happens (docs/semantics.md, "Array types"):

============================================  =================================
input                                          what happens
============================================  =================================
plain ``ndarray``                              the function itself (one
                                               ``type(a) is np.ndarray`` test)
type overriding ``__array_function__``         NEP 18: ``type(x).__array_function__``
(duck arrays, dask, astropy ``Quantity``)      with the public function as
                                               ``func``; ``TypeError`` when all
                                               return ``NotImplemented``
``__array_ufunc__ = None``                     ``TypeError``
``dask.array.Array``                           the Dask backend: lazy dask
                                               arrays, one pass per chunk
                                               (``numreduce/_dask.py``)
CuPy arrays (every operand)                    the CuPy backend
                                               (``numreduce/_cupy.py``)
``np.ma.MaskedArray``                          mask -> ``where`` (or a neutral
                                               fill), results masked where
                                               nothing was left, as ``np.ma``
plain ``ndarray`` subclass                     computed on the base array, the
                                               results wrapped with the input's
                                               ``__array_wrap__`` (as ``np.min``)
``np.matrix``, subclasses overriding           ``TypeError``
``__array_ufunc__``
pandas nullable data (``Float64``, ``Int64``,  an ``np.ma.MaskedArray`` of its
``boolean`` ... arrays, Series and Index)      values with ``<NA>`` masked
                                               (``<NA>`` is skipped, as
                                               pandas and np.min skip it)
anything else (lists, scalars, pandas)         ``np.asarray``; an object-dtype
                                               result is a ``TypeError``
============================================  =================================

The other data operands (``weights=``, ``b=``, ``y``, the sources of a tuple
given to a ufunc of several sources) get the same policy (``_several``): a
mask on any operand counts (an element takes part only where no operand
masks it), a subclass is refused or read as its base array as the first
operand is, and duck arrays among them take part in NEP 18.

The wrapped function's ``_implementation`` is the policy without the NEP 18
step, which ``ndarray.__array_function__`` calls when a subclass defers to it
(``super().__array_function__``), as for NumPy's own functions.

The policy's outcome is a backend: every public function is one statistic
or method of ``_stats`` / ``_methods``, called as ``f(backend, qualname,
**arguments)`` with ``_host`` (NumPy), ``_dask`` or ``_cupy``.  Adding a
backend is one module of primitives and one line in ``_policy``.

Layer: dispatch (imports the layers below it; docs/architecture.md).
"""

from __future__ import annotations

import functools
import inspect
import math
import warnings

import numpy as np

from . import _host, _mapped
from . import _methods as methods
from ._args import NoValue, axis_index, is_cupy_array, is_dask_array, is_given
from ._dtypes import MULTI_OUTPUT, MULTI_SOURCE, mask_initials

__all__ = ["masked_arg", "masked_fill", "masked_moments", "masked_refuse", "masked_where",
           "operands_backend", "public_function"]

_ndarray = np.ndarray
_MaskedArray = np.ma.MaskedArray
_ND_ARRAY_FUNCTION = np.ndarray.__array_function__
_ND_ARRAY_UFUNC = np.ndarray.__array_ufunc__


def public_function(stat, masked, array="a", wrap_scalars=True, passthrough=None):
    """Decorator: the array-type policy for one public function, whose
    signature and docstring the decorated function gives (its body is not
    used).

    stat          the statistic or method, ``stat(backend, qualname, **arguments)``
    masked        handler for ``np.ma.MaskedArray`` input (``masked_*`` below)
    array         name of the array parameter (``reduce``'s is ``array``)
    wrap_scalars  a full reduction of a subclass gives a 0-d subclass array
                  (``np.min``); False keeps NumPy scalars (``np.argmin``)
    passthrough   ``f(first_argument) -> bool``: True hands the call unchanged
                  to the function (``reduce`` of NumPy's own ufuncs, which
                  apply their own dispatch)
    """

    def decorate(face):
        sig = inspect.signature(face)
        names = list(sig.parameters)
        pos = names.index(array)
        qualname = f"numreduce.{face.__name__}"
        impl = functools.partial(stat, _host, qualname)  # impl(**arguments): NumPy
        kinds = {p.kind for p in sig.parameters.values()}
        if kinds & {inspect.Parameter.VAR_POSITIONAL, inspect.Parameter.VAR_KEYWORD}:
            raise TypeError(f"public_function: {qualname} has *args or **kwargs")
        if any(sig.parameters[n].kind is inspect.Parameter.POSITIONAL_ONLY
               for n in names[pos + 1:]):
            raise TypeError(f"public_function: {qualname} has positional-only parameters "
                            f"after {array!r}")
        # the policy and the handlers call impl(**arguments)
        policy = functools.partial(_policy, stat, impl, sig, array, qualname, masked,
                                   wrap_scalars)
        public = _make_entry(face.__name__, stat, qualname, sig, names[:pos + 1],
                             names[pos + 1:], array, policy, passthrough)
        functools.update_wrapper(public, face)
        public.__signature__ = sig
        public._statistic = stat
        # ndarray.__array_function__ calls func._implementation(*args, **kwargs).
        public._implementation = functools.wraps(face)(
            lambda *args, **kwargs: policy(public, False, args, kwargs))
        return public

    return decorate


def _make_entry(fname, stat, qualname, sig, head, tail, array, policy, passthrough):
    """The entry function, generated with the function's own signature so
    that the plain-ndarray call forwards its arguments positionally (no
    *args/**kwargs repacking): one `type(a) is np.ndarray` test (and `out is
    None`) is all the policy costs there."""
    params = sig.parameters
    P = inspect.Parameter
    ns = {"_ndarray": _ndarray, "_stat": stat, "_host": _host, "_qualname": qualname,
          "_policy": policy, "_passthrough": passthrough}
    # the function's own markers: "/" after the positional-only parameters,
    # "*" before the keyword-only ones (passed on by keyword)
    header, call, prev = [], [], P.POSITIONAL_ONLY
    for n in head + tail:
        kind = params[n].kind
        if prev is P.POSITIONAL_ONLY and kind is not P.POSITIONAL_ONLY and header:
            header.append("/")
        if kind is P.KEYWORD_ONLY and prev is not P.KEYWORD_ONLY:
            header.append("*")
        prev = kind
        if params[n].default is P.empty:
            header.append(n)
        else:
            ns[f"_d_{n}"] = params[n].default
            header.append(f"{n}=_d_{n}")
        call.append(f"{n}={n}" if kind is P.KEYWORD_ONLY else n)
    if prev is P.POSITIONAL_ONLY and header:
        header.append("/")
    fast = f"type({array}) is _ndarray" + (" and out is None" if "out" in params else "")
    # the other data operands (weights=, b=, y): None, a plain ndarray or a
    # Python scalar stay on the direct call; anything else (a masked array,
    # a subclass, a duck array, a list) goes through the policy
    ns["_plain_types"] = _PLAIN_TYPES
    fast += "".join(f" and type({n}) in _plain_types" for n in _OPERANDS if n in params)
    if passthrough is not None:
        fast = f"({fast}) or _passthrough({head[0]})"
    call = ", ".join(call)
    src = (f"def {fname}({', '.join(header)}):\n"
           f"    if {fast}:\n"
           f"        return _stat(_host, _qualname, {call})\n"
           f"    return _policy({fname}, True, ({', '.join(head)},),\n"
           f"                   {{{', '.join(f'{n!r}: {n}' for n in tail)}}})\n")
    exec(src, ns)  # noqa: S102 - generated from the function's own signature
    return ns[fname]


# The data operands other than the first, by parameter name: one policy for
# each (docs/semantics.md, "Array types"): ``weights`` (meanvar, meanstd,
# nanmeanvar, group_meanvar), ``b`` (logsumexp), ``y`` (covariance,
# correlation, sumprod); with the sources of a tuple (a reduction of several
# arrays: reduce, accumulate, reduceat, segmented_reduce, reduce_by_group, at).
_OPERANDS = ("weights", "b", "y")
_PLAIN_TYPES = frozenset({type(None), _ndarray, float, int, bool})


def _overrides(x) -> bool:
    f = getattr(type(x), "__array_function__", None)
    return f is not None and f is not _ND_ARRAY_FUNCTION


def _nullable(x):
    """A pandas nullable array (or a Series / Index of one: ``Float64``,
    ``Int8`` .. ``UInt64``, ``boolean``) as an ``np.ma.MaskedArray`` of its
    values with ``<NA>`` masked (its plain values where it has no
    ``<NA>``); anything else as it is.  np.asarray would
    turn ``<NA>`` into NaN (propagated) or fail; pandas' own reductions and
    NumPy's np.min / np.sum on the same object skip it, and a masked array
    is numreduce's way to skip it."""
    if not type(x).__module__.startswith("pandas"):
        return x
    arr = getattr(x, "array", x)  # Series / Index -> their ExtensionArray
    dt = getattr(arr, "dtype", None)
    np_dt = getattr(dt, "numpy_dtype", None)
    if np_dt is None or not hasattr(arr, "isna") or getattr(dt, "na_value", None) is not _PD_NA():
        return x
    mask = np.asarray(arr.isna(), dtype=bool)
    fill = np_dt.type(0) if np_dt.kind != "b" else False
    data = arr.to_numpy(dtype=np_dt, na_value=fill)
    return np.ma.MaskedArray(data, mask=mask) if mask.any() else data


@functools.cache
def _PD_NA():
    import pandas as pd  # only reached for a pandas object: pandas is imported
    return pd.NA


def _policy(stat, impl, sig, array, qualname, masked, wrap_scalars, public, nep18, args,
            kwargs):
    bound = sig.bind(*args, **kwargs)  # a wrong call raises TypeError here, as impl would
    bound.apply_defaults()
    arguments = bound.arguments
    # pandas nullable data on any data operand: masked arrays (<NA> skipped)
    first = arguments[array]
    if arguments.get("ufunc") in MULTI_SOURCE and isinstance(first, (tuple, list)):
        arguments[array] = type(first)(_nullable(x) for x in first)
    else:
        arguments[array] = _nullable(first)
    for n in _OPERANDS:
        if arguments.get(n) is not None:
            arguments[n] = _nullable(arguments[n])
    a = arguments[array]
    out = arguments.get("out")
    outs = tuple(out) if type(out) is tuple else ()
    relevant = (a,) + tuple(o for o in outs if o is not None)
    relevant += _cupy_operands(arguments)  # CuPy accumulators, ids, masks (else nothing)
    ops = _data_operands(arguments, array, a)

    if arguments.get("ufunc") in MULTI_SOURCE and isinstance(a, (tuple, list)):
        # reduce of K sources: Dask where any source is a Dask array, CuPy
        # where any source (or out entry) is a CuPy array, else NumPy (the
        # backends' `sources` convert, broadcast and refuse mixed inputs)
        if any(is_dask_array(x) for x in a):
            from . import _dask
            return stat(_dask, qualname, **arguments)
        every = tuple(a) + relevant[1:]
        if any(is_cupy_array(x) for x in every):
            return stat(_cupy_backend(qualname, every), qualname, **arguments)
        if nep18 and any(_overrides(x) for x in every):
            return _array_function(public, qualname, every, args, kwargs)
        _no_ufuncs(qualname, every)
        return _several(impl, qualname, array, arguments, ops, masked, True)
    if is_dask_array(a):
        # dask.array: lazy, one pass per chunk (numreduce/_dask.py); checked
        # before NEP 18, whose dask implementation would compute the array
        from . import _dask
        return stat(_dask, qualname, **arguments)
    if any(is_cupy_array(x) for x in relevant):  # CuPy arrays: the GPU backend
        return stat(_cupy_backend(qualname, relevant), qualname, **arguments)
    # the other operands take part in NEP 18 and the __array_ufunc__ = None
    # rule; Dask and CuPy arrays among them go to the backend of the first
    # operand, whose `sources` refuses a mix naming the argument
    relevant += tuple(v for _, v in ops[1:] if not (is_dask_array(v) or is_cupy_array(v)))
    if nep18 and any(_overrides(x) for x in relevant):
        return _array_function(public, qualname, relevant, args, kwargs)
    _no_ufuncs(qualname, relevant)
    if len(ops) > 1:
        # several data operands: a mask on any of them counts, each is a
        # plain array for the function (the first keeps its own policy below)
        done = _several(impl, qualname, array, arguments, ops, masked, False)
        if done is not _UNMASKED:
            return done
        a = arguments[array]
    if type(a) is _ndarray:
        return impl(**arguments)
    if isinstance(a, _MaskedArray):
        return masked(impl, qualname, array, arguments, a)
    if isinstance(a, _ndarray):
        return _subclass(impl, qualname, array, arguments, a, wrap_scalars)
    # array_like (lists, scalars, pandas objects ...): np.asarray, as NumPy does.
    arr = np.asarray(a)
    if arr.dtype == object:
        src = type(a).__name__
        if getattr(a, "dtype", None) is not None:
            src += f" of dtype {a.dtype}"
        raise TypeError(
            f"{qualname}: unsupported input: {src} converts to an array of dtype object "
            "(np.asarray), which numreduce does not reduce; convert it to a numeric, bool, "
            "datetime64 or timedelta64 array first (for a tz-aware pandas Series, e.g. "
            "s.dt.tz_convert(None).to_numpy())")
    arguments[array] = arr
    return impl(**arguments)


def _no_ufuncs(qualname, relevant):
    for x in relevant:
        if getattr(type(x), "__array_ufunc__", _ND_ARRAY_UFUNC) is None:
            raise TypeError(f"{qualname}: operand of type {type(x).__name__!r} does not "
                            "support ufuncs (__array_ufunc__=None)")


def _data_operands(arguments, array, a):
    """[(name, value)] of the data operands: the first (``array``, or each
    source of a tuple given to a ufunc of several sources), then the other
    ones given (``_OPERANDS``)."""
    if isinstance(a, (tuple, list)) and arguments.get("ufunc") in MULTI_SOURCE:
        return [(f"{array}[{i}]", x) for i, x in enumerate(a)]
    return [(array, a)] + [(n, arguments[n]) for n in _OPERANDS
                           if arguments.get(n) is not None]


_UNMASKED = object()


def _several(impl, qualname, array, arguments, ops, masked, sources):
    """The policy for several data operands (``ops``, the first operand's
    first; ``sources``: the sources of one tuple argument).  Each is one of
    the array types the first operand may be: a plain ndarray subclass is
    its base array, ``np.matrix`` and subclasses overriding
    ``__array_ufunc__`` are a TypeError naming the argument.  A mask on any
    operand counts (np.ma's rule for np.ma.average's weights, np.ma.cov's
    y): an element takes part only where no operand masks it.  The function's
    masked handler then runs with that common mask on the first operand, the
    other operands' plain data filled with 0 where it is masked (a weight or
    a ``b`` of 0 drops the element; the where-handlers do not read it);
    a handler that refuses masked arrays refuses, naming the masked
    operands.  Without any mask: the other operands become plain arrays in
    ``arguments`` and ``_UNMASKED`` is returned (the first operand's own
    policy follows), or the function runs (``sources``)."""
    datas, masks, names = [], [], []
    for i, (name, v) in enumerate(ops):
        mask = None
        if isinstance(v, _MaskedArray):
            v, mask = _split(v)
            names.append(name)
        elif (isinstance(v, _ndarray) and type(v) is not _ndarray and (i or sources)
              and not is_cupy_array(v)):  # (CuPy: the backend refuses a mix, naming it)
            _refuse_subclass(qualname, v, f"{name!r} is ")
            v = v.view(_ndarray)
        datas.append(v)
        masks.append(mask)
    if not names:
        if sources:
            arguments[array] = type(arguments[array])(datas)
            return impl(**arguments)
        for (name, _), v in zip(ops[1:], datas[1:]):
            arguments[name] = v
        return _UNMASKED
    if getattr(masked, "refuses", False):
        return masked(impl, qualname, array, arguments, None, names=names)
    arrays = [np.asarray(d) for d in datas]
    try:
        shape = np.broadcast_shapes(*(x.shape for x in arrays))
    except ValueError:
        shape = None
    if shape is None or arrays[0].dtype == object:
        # the function's own error (operands that do not broadcast, an
        # unsupported dtype), raised on the plain data
        if sources:
            arguments[array] = type(arguments[array])(datas)
        else:
            arguments.update((name, d) for (name, _), d in zip(ops, datas))
        impl(**arguments)
        raise TypeError(f"{qualname}: masked operands of shapes "
                        f"{', '.join(str(x.shape) for x in arrays)} are not supported")
    common = np.zeros(shape, dtype=bool)
    for mk in masks:
        if mk is not None:
            common |= mk
    arrays = [np.broadcast_to(x, shape) for x in arrays]
    m = np.ma.MaskedArray(arrays[0], mask=common)
    if sources:
        return masked(impl, qualname, array, arguments, m, data=tuple(arrays))
    for (name, _), x in zip(ops[1:], arrays[1:]):
        arguments[name] = np.where(common, np.zeros((), x.dtype), x)
    return masked(impl, qualname, array, arguments, m, data=arrays[0])


def _array_function(public, qualname, relevant, args, kwargs):
    """NEP 18: try each overriding argument type, subclasses before superclasses."""
    types, overloaded = [], []
    for x in relevant:
        t = type(x)
        if t in types or getattr(t, "__array_function__", None) is None:
            continue
        types.append(t)
        if _overrides(x):
            index = len(overloaded)
            for i, other in enumerate(overloaded):
                if issubclass(t, type(other)):
                    index = i
                    break
            overloaded.insert(index, x)
    types = tuple(types)
    for x in overloaded:
        result = type(x).__array_function__(x, public, types, args, kwargs)
        if result is not NotImplemented:
            return result
    raise TypeError(f"no implementation found for '{qualname}' on types that implement "
                    f"__array_function__: {[type(x) for x in overloaded]}")


# ---------------------------------------------------------------------------
# ndarray subclasses
# ---------------------------------------------------------------------------

def _refuse_subclass(qualname, a, which=""):
    """TypeError for the subclasses computed on their plain data would be
    wrong for; ``which``: the operand's name, for the others than the first."""
    if isinstance(a, np.matrix):
        what = f"{which}an np.matrix, which is" if which else "np.matrix is"
        raise TypeError(f"{qualname}: {what} not supported (its reductions keep two "
                        "dimensions); pass np.asarray(m)")
    if getattr(type(a), "__array_ufunc__", _ND_ARRAY_UFUNC) is not _ND_ARRAY_UFUNC:
        what = f"{which}a {type(a).__name__}, which" if which else type(a).__name__
        raise TypeError(
            f"{qualname}: {what} overrides __array_ufunc__, so a result computed on its plain "
            "data could be wrong for it (units, for example); pass np.asarray(x) (or its "
            "plain values) explicitly")


def _subclass(impl, qualname, array, arguments, a, wrap_scalars):
    _refuse_subclass(qualname, a)
    arguments[array] = a.view(_ndarray)
    results = impl(**arguments)
    if not isinstance(results, tuple):  # logsumexp, fsum
        return _wrap(a, results, wrap_scalars)
    out = arguments.get("out")
    outs = out if type(out) is tuple else (None,) * len(results)
    return tuple(r if o is not None else _wrap(a, r, wrap_scalars)
                 for r, o in zip(results, outs))


def _wrap(a, r, wrap_scalars):
    if isinstance(r, np.generic) and not wrap_scalars:
        return r
    arr = np.asarray(r)
    try:
        return a.__array_wrap__(arr, None, True)
    except TypeError:  # an __array_wrap__ without return_scalar
        return a.__array_wrap__(arr, None)


# ---------------------------------------------------------------------------
# masked arrays
# ---------------------------------------------------------------------------

def _split(m):
    """(plain data, full boolean mask) of a masked array."""
    return m.view(_ndarray), np.ma.getmaskarray(m)


def _keep(mask, where, qualname):
    """Elements that take part: unmasked and selected by the user's `where`."""
    keep = ~mask
    if where is True:
        return keep
    w = np.asarray(where)
    if w.dtype != bool:
        raise TypeError(f"{qualname}: 'where' must be a boolean array, got dtype {w.dtype}")
    return np.logical_and(keep, w)


def _empty_slices(impl, arguments, keep, axis, keepdims):
    """Mask of the results that nothing was left for (np.ma's "all masked").
    An invalid axis is reported by the function itself."""
    try:
        return ~np.logical_or.reduce(keep, axis=axis, keepdims=bool(keepdims))
    except Exception:
        impl(**arguments)  # raises the function's own error for this axis
        raise


def _masked_result(m, r, newmask, o):
    """One result as np.ma returns it: a MaskedArray, np.ma.masked for an
    all-masked full reduction, or the value; an `out` gets the mask (a
    MaskedArray) or NaN (a plain float array)."""
    if o is not None:
        if isinstance(o, _MaskedArray):
            o.mask = newmask
        elif np.any(newmask):
            np.copyto(o, np.nan, where=newmask)
        return o
    if np.ndim(r) == 0 and not isinstance(r, _ndarray):
        return np.ma.masked if newmask else r
    res = np.asarray(r).view(type(m))
    res.mask = newmask
    if np.any(newmask):
        np.copyto(res.view(_ndarray), res.fill_value, where=newmask, casting="unsafe")
    return res


def _outs(impl, arguments, n, qualname):
    """The `out` entries (None where not given); a malformed `out` gets the
    function's own error."""
    out = arguments.get("out")
    if out is None or out is Ellipsis:
        return (None,) * n
    if type(out) is not tuple or len(out) != n:
        impl(**arguments)
        raise TypeError(f"{qualname}: out must be a tuple of {n} arrays (or None entries)")
    return out


def _check_outs(outs, masks, qualname):
    """np.ma's rule, before anything is written: a masked result cannot go
    into a plain integer (or bool, datetime) `out` (np.ma.MaskError)."""
    for o, mk in zip(outs, masks):
        if (o is not None and not isinstance(o, _MaskedArray) and isinstance(o, _ndarray)
                and o.dtype.kind not in "fc" and np.any(mk)):
            raise np.ma.MaskError(
                f"{qualname}: masked results cannot be stored in an 'out' array of dtype "
                f"{o.dtype} (masked data information would be lost); pass a MaskedArray "
                "or a float array")


def _out_data(out):
    """The data of MaskedArray `out` entries (the function writes the values,
    the handler the masks)."""
    if type(out) is not tuple:
        return out
    return tuple(o.view(_ndarray) if isinstance(o, _MaskedArray) else o for o in out)


def _quiet(impl, arguments):
    """Run `impl`, holding back its warnings (empty slices that the mask
    emptied are masked, not warned about)."""
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        results = impl(**arguments)
    return results, caught


def _replay(caught, results, masks):
    """Re-issue held-back warnings: RuntimeWarnings only when an unmasked
    result is NaN (an all-NaN or empty slice that the mask did not hide, as
    np.nanmin warns), the others always."""
    nan_left = any(np.any(np.isnan(r) & ~mk) for r, mk in zip(results, masks)
                   if np.asarray(r).dtype.kind in "fc")
    for w in caught:
        if nan_left or not issubclass(w.category, RuntimeWarning):
            warnings.warn_explicit(w.message, w.category, w.filename, w.lineno)


def masked_where(ufunc=None):
    """Handler for minmax / nanminmax / reduce: the mask becomes `where`
    (and-ed with the user's `where`), `initial` defaults to
    ``_dtypes.mask_initials``; every output is masked where no element was left.
    ``ufunc=None`` takes the `ufunc` argument (reduce)."""

    def handler(impl, qualname, array, arguments, m, data=None):
        u = arguments["ufunc"] if ufunc is None else ufunc
        plain, mask = _split(m)
        data = plain if data is None else data  # (the sources of a tuple)
        keep = _keep(mask, arguments["where"], qualname)
        arguments[array] = data
        user_where = arguments["where"]
        arguments["where"] = keep
        if not is_given(arguments["initial"]) and plain.size == 0:
            # np.ma.min of an empty array raises as np.min does: nothing to
            # mask, so the function's own rules (no initial: ValueError)
            arguments["where"] = True if user_where is True else keep
        elif not is_given(arguments["initial"]):
            dt = plain.dtype if arguments.get("dtype") is None else np.dtype(arguments["dtype"])
            initials = mask_initials(u, dt)
            if initials is not None:
                arguments["initial"] = initials
        outs = _outs(impl, arguments, u.nout, qualname)
        newmask = _empty_slices(impl, arguments, keep, arguments["axis"], arguments["keepdims"])
        masks = (newmask,) * u.nout
        _check_outs(outs, masks, qualname)
        arguments["out"] = _out_data(arguments["out"])
        results, caught = _quiet(impl, arguments)
        _replay(caught, results, masks)
        return tuple(_masked_result(m, r, mk, o) for r, mk, o in zip(results, masks, outs))

    return handler


def masked_moments(nan):
    """Handler for meanvar / meanstd (``nan=False``) and nanmeanvar
    (``nan=True``): the mask becomes `where`.  The mean is masked where no
    element was left; the variance, as np.ma.var, where count - ddof <= 0
    (meanvar, meanstd), or as np.nanvar on a masked array where no element
    was left (nanmeanvar: NaN with a warning where ddof >= the count of
    non-NaN values)."""

    def handler(impl, qualname, array, arguments, m, data=None):
        plain, mask = _split(m)
        keep = _keep(mask, arguments["where"], qualname)
        arguments[array] = plain if data is None else data
        arguments["where"] = keep
        results, caught = _quiet(impl, arguments)  # validates axis, ddof, dtype
        axis, keepdims = arguments["axis"], bool(arguments["keepdims"])
        count = np.add.reduce(keep, axis=axis, keepdims=keepdims, dtype=np.intp)
        empty = count == 0
        masks = (empty, empty if nan else count - arguments["ddof"] <= 0)
        _replay(caught, results, masks)
        return tuple(_masked_result(m, r, mk, None) for r, mk in zip(results, masks))

    return handler


def masked_fill(fill, float_ints=False):
    """Handler for reductions with a neutral element (logsumexp: -inf, fsum:
    0, np.ma.sum's fill): the masked elements are filled with it; results
    are masked where every element was masked.  ``float_ints``: bool and
    integer data are converted to float64 first (logsumexp's result dtype)."""

    def handler(impl, qualname, array, arguments, m, data=None):
        _, mask = _split(m)
        if float_ints and m.dtype.kind in "biu":
            m = m.astype(np.float64)
        try:
            filled = np.asarray(m.filled(fill))
        except (TypeError, ValueError) as e:
            raise TypeError(f"{qualname}: masked arrays of dtype {m.dtype} are not "
                            f"supported ({e})") from None
        arguments[array] = filled
        results = impl(**arguments)
        axis, keepdims = arguments["axis"], bool(arguments["keepdims"])
        newmask = np.logical_and.reduce(mask, axis=axis, keepdims=keepdims)
        if isinstance(results, tuple):
            return tuple(_masked_result(m, r, newmask, None) for r in results)
        return _masked_result(m, results, newmask, None)

    return handler


def masked_arg(nan):
    """Handler for argminmax (``nan=False``) / nanargminmax (``nan=True``):
    np.ma.argmin / argmax's rule -- masked elements are filled with
    np.ma.minimum_fill_value (for the argmin) and maximum_fill_value (for the
    argmax), then the indices of the filled data are returned as plain arrays
    (the function runs once per fill; once without a mask).  nanargminmax
    raises "All-NaN slice encountered" where every unmasked element of a
    slice is NaN, as np.nanargmin does on masked arrays."""

    def handler(impl, qualname, array, arguments, m, data=None):
        data, mask = _split(m)
        if not mask.any():
            arguments[array] = data
            return impl(**arguments)
        arguments[array] = np.asarray(m.filled(np.ma.minimum_fill_value(m)))
        if nan and data.dtype.kind in "fc":
            axis = arguments["axis"]
            if axis is not None:  # the function's own axis errors first
                axis_index(axis, max(data.ndim, 1), one=True)
            gone = mask | np.isnan(data)
            all_gone = np.logical_and.reduce(gone, axis=axis)
            if np.any(all_gone & ~np.logical_and.reduce(mask, axis=axis)):
                raise ValueError("All-NaN slice encountered")  # before any out is written
        lo, _ = impl(**arguments)  # checks (and writes) both outs
        out = arguments.get("out")
        arguments["out"] = None
        arguments[array] = np.asarray(m.filled(np.ma.maximum_fill_value(m)))
        _, hi = impl(**arguments)
        if out is not None and out[1] is not None:
            out[1][...] = hi
            hi = out[1]
        return lo, hi

    return handler


def masked_refuse(hint):
    """Handler for functions that have no masked semantics yet (accumulate,
    cumminmax): a clear TypeError rather than the hidden data."""

    def handler(impl, qualname, array, arguments, m, data=None, names=None):
        which = ", ".join(names or (array,))
        raise TypeError(f"{qualname}: masked arrays are not supported (the mask of {which} "
                        f"would be ignored); {hint}")

    handler.refuses = True
    return handler


# ---------------------------------------------------------------------------
# CuPy arrays: detected by the type's module name, so that numreduce never
# imports CuPy itself.  Every operand must then be a CuPy array: mixed
# NumPy/CuPy inputs are a TypeError (no silent host round trip).
# ---------------------------------------------------------------------------

# Python and NumPy scalars go with CuPy arrays (the backend uploads them:
# at(outs, idx, 1.0) with CuPy accumulators, minmax(3.0, out=<CuPy arrays>)).
_SCALARS = (bool, int, float, complex, np.generic)


def _cupy_backend(qualname, relevant):
    """The CuPy backend for operands of which some are CuPy arrays: every
    other one must be a scalar (TypeError otherwise); ImportError with what
    is missing (CuPy, a GPU)."""
    others = [type(x).__name__ for x in relevant
              if not is_cupy_array(x) and not isinstance(x, _SCALARS)]
    if others:
        raise TypeError(f"{qualname}: mixed CuPy and non-CuPy arrays ({', '.join(others)}); "
                        "move every operand to the same device first (cupy.asarray / .get())")
    from . import _cupy
    return _cupy


def operands_backend(qualname, arguments, tuples):
    """The backend of a function whose operands are tuples of arrays
    (``merge``'s states and ``out``): CuPy where any entry is a CuPy array,
    else NumPy."""
    relevant = []
    for key in tuples:
        v = arguments.get(key)
        relevant += [x for x in (v if isinstance(v, (tuple, list)) else (v,)) if x is not None]
    if not any(is_cupy_array(x) for x in relevant):
        return _host
    return _cupy_backend(qualname, tuple(relevant))


def _cupy_operands(arguments):
    """The CuPy arrays among the operands other than the array and ``out=``
    (at's accumulators ``outs``, ``group_ids``, ``where``, ``indices``,
    ``starts``, ``stops``): any of them puts the call on the GPU path, where
    a NumPy array beside them is a TypeError.  Nothing for NumPy calls."""
    found = []
    for key in ("outs", "group_ids", "where", "indices", "starts", "stops"):
        v = arguments.get(key)
        for x in (tuple(v) if key == "outs" and isinstance(v, (tuple, list)) else (v,)):
            if is_cupy_array(x):
                found.append(x)
    return tuple(found)


# ---------------------------------------------------------------------------
# mapreduce: the reduction of f(*arrays), block by block (numreduce/_mapped.py)
# ---------------------------------------------------------------------------

# the statistics a mapped array can go to, by name
_MAP_STATISTICS = ("minmax", "nanminmax", "argminmax", "nanargminmax", "meanvar", "meanstd",
                   "nanmeanvar", "logsumexp", "fsum")


def _statistic(reduction):
    """(the statistic of ``_stats``, its name) of a numreduce user
    function; (None, None) for anything else."""
    from . import _stats
    stat = getattr(reduction, "_statistic", None)
    name = getattr(reduction, "__name__", None)
    if name in _MAP_STATISTICS and stat is getattr(_stats, name, None):
        return stat, name
    return None, None


def _dask_mapreduce(f, reduction, arrays, axis, keepdims, options, qualname):
    """Dask sources: f in each chunk's task (blockwise, fused with the
    reduction's chunk step), then the reduction's Dask form."""
    import dask.array as da

    srcs = da.broadcast_arrays(*[a if is_dask_array(a) else da.asarray(a) for a in arrays])
    shape = srcs[0].shape
    probe = _mapped.image(f, [np.ones((1,) * len(shape), dtype=s.dtype) for s in srcs],
                          (1,) * len(shape), None, qualname)

    def block(*blocks):
        return _mapped.image(f, blocks, np.broadcast_shapes(*(b.shape for b in blocks)),
                             probe.dtype, qualname)

    img = da.map_blocks(block, *srcs, dtype=probe.dtype,
                        meta=np.empty((0,) * len(shape), dtype=probe.dtype))
    if reduction in MULTI_OUTPUT:
        return methods.reduce(_dask_backend(), qualname, reduction, img, axis,
                              options.pop("dtype", None), options.pop("out", None), keepdims,
                              options.pop("initial", NoValue), options.pop("where", True),
                              **_no_more(options, qualname))
    return reduction(img, axis=axis, keepdims=keepdims, **options)


def _cupy_mapreduce(f, stat, reduction, arrays, axis, keepdims, options, qualname):
    """CuPy sources: ``f`` on the whole broadcast sources on the device (one
    call: CuPy has no cheap blocking), then the reduction of that image on
    the CuPy backend -- exactly ``reduction(f(*cupy.broadcast_arrays(...)))``,
    with the image as one full-size device temporary (docs/gpu.md).  Every
    source must be a CuPy array or a scalar (TypeError otherwise); ``f``
    must return a CuPy array of the broadcast shape (TypeError for another
    type, ValueError for another shape)."""
    be = _cupy_backend(qualname, tuple(arrays))
    cp = be.xp
    srcs = [be.asarray(x, "a source", "mapreduce", qualname) for x in arrays]
    try:
        shape = np.broadcast_shapes(*(s.shape for s in srcs))
    except ValueError:
        raise ValueError(f"{qualname}: the sources do not broadcast together: "
                         f"{', '.join(str(s.shape) for s in srcs)}") from None
    img = f(*[cp.broadcast_to(s, shape) for s in srcs])
    if not is_cupy_array(img):
        raise TypeError(f"{qualname}: f must return a CuPy array for CuPy sources, got "
                        f"{type(img).__module__}.{type(img).__name__}")
    if img.shape != shape:
        raise ValueError(f"{qualname}: f must return an array of the sources' broadcast shape: "
                         f"got shape {img.shape} for sources of shape {shape}")
    if stat is not None:
        return stat(be, qualname, img, axis=axis, keepdims=keepdims, **options)
    return methods.reduce(be, qualname, reduction, img, axis, options.pop("dtype", None),
                          options.pop("out", None), keepdims, options.pop("initial", NoValue),
                          options.pop("where", True), **_no_more(options, qualname))


def _dask_backend():
    from . import _dask
    return _dask


def _no_more(options, qualname):
    if options:
        raise TypeError(f"{qualname}: unexpected keyword argument(s) for a ufunc reduction: "
                        f"{', '.join(sorted(options))}")
    return {}


def mapreduce(f, reduction, arrays, axis, keepdims, options, qualname="numreduce.mapreduce"):
    """The array-type policy of the public ``mapreduce``: its checks, then
    the reduction (a statistic of ``_stats``, or ``_methods.reduce`` of a
    ufunc) of the mapped operand -- the image itself through ``_host`` for
    one block, ``_mapped.Mapped`` on the ``_mapped`` backend for more, the
    Dask form over ``map_blocks`` of ``f`` for Dask sources, the whole
    image on the device for CuPy sources (``_cupy_mapreduce``)."""
    if not callable(f):
        raise TypeError(f"{qualname}: f must be callable, got {type(f).__name__}")
    stat, name = _statistic(reduction)
    if stat is None:
        if not (isinstance(reduction, np.ufunc) and reduction in MULTI_OUTPUT):
            raise TypeError(f"{qualname}: reduction must be one of numreduce's user functions "
                            f"({', '.join(_MAP_STATISTICS)}) or one of its ufuncs, got "
                            f"{reduction!r}")
        if reduction in MULTI_SOURCE:
            raise TypeError(f"{qualname}: {reduction.__name__} reduces "
                            f"{MULTI_SOURCE[reduction]} arrays together; mapreduce maps its "
                            "sources to one array")
    if not arrays:
        raise TypeError(f"{qualname}: at least one source array is needed")
    # a mask (np.ma, or pandas' <NA>) on a source or on weights= / b= would
    # be ignored by f's image: refused, naming the operand
    arrays = tuple(_nullable(x) for x in arrays)
    options = {n: (_nullable(v) if n in _OPERANDS else v) for n, v in options.items()}
    named = [(f"source {i}", x) for i, x in enumerate(arrays)]
    named += [(n, options[n]) for n in _OPERANDS if options.get(n) is not None]
    for what, x in named:
        if isinstance(x, np.ma.MaskedArray):
            raise TypeError(f"{qualname}: masked arrays (np.ma, or pandas data with <NA>) are "
                            f"not supported as {what} (pass the plain data, e.g. "
                            "np.ma.getdata(m), and where=~m.mask where the reduction takes it)")
    if any(is_cupy_array(x) for x in arrays):
        return _cupy_mapreduce(f, stat, reduction, arrays, axis, keepdims, dict(options),
                               qualname)
    if any(is_dask_array(x) for x in arrays):
        return _dask_mapreduce(f, reduction, arrays, axis, keepdims, dict(options), qualname)
    srcs = [np.asarray(x) for x in arrays]
    try:
        shape = np.broadcast_shapes(*(s.shape for s in srcs))
    except ValueError:
        raise ValueError(f"{qualname}: the sources do not broadcast together: "
                         f"{', '.join(str(s.shape) for s in srcs)}") from None
    srcs = [np.broadcast_to(s, shape) for s in srcs]
    if math.prod(shape) <= _mapped.BLOCK:
        # one block: the image itself, through the NumPy backend
        be, operand = _host, _mapped.image(f, srcs, shape, None, qualname)
    else:
        be, operand = _mapped.MappedBackend(qualname), _mapped.Mapped(f, srcs, shape, qualname)
    if stat is not None:
        return stat(be, qualname, operand, axis=axis, keepdims=keepdims, **options)
    options = dict(options)
    return methods.reduce(be, qualname, reduction, operand, axis, options.pop("dtype", None),
                          options.pop("out", None), keepdims, options.pop("initial", NoValue),
                          options.pop("where", True), **_no_more(options, qualname))
