"""The engine's Python half: ``ufunc.reduce``'s argument handling.

Everything here mirrors NumPy's ``ufunc.reduce`` (``_parse_axis``,
``_set_full_args_out``, ``_wheremask_converter``, multi-output dtype
resolution through the ufunc's own loops and promoters); the reduction itself
runs in ``numreduce._core._reduce`` on NpyIter with the registered loops.
"""

from __future__ import annotations

import math

import numpy as np
from . import _core
from ._args import check_out_dtypes, check_outs, keepdims_flag, normalize_axes, where_mask
from ._dispatch import masked_where, public_function

__all__ = ["reduce", "NoValue"]


class _NoValueType:
    """Sentinel for "argument not given" (``initial``), like ``np._NoValue``."""

    __slots__ = ()
    _instance = None

    def __new__(cls):
        if cls._instance is None:
            cls._instance = super().__new__(cls)
        return cls._instance

    def __repr__(self) -> str:
        return "<no value>"

    def __reduce__(self):
        return (_NoValueType, ())


NoValue = _NoValueType()
_NUMPY_NOVALUE = getattr(np, "_NoValue", NoValue)

# The ufuncs the engine knows -> number of outputs: the C++ registry's dict,
# which numreduce's own ufuncs and those other extensions register through
# the C API (extension.hpp) enter alike.
MULTI_OUTPUT: dict = _core._MULTI_OUTPUT


def has_initials(ufunc, stream) -> bool:
    """Whether the loop of `ufunc` for `stream` data has initials of its own
    (moments: (0, 0, 0); minimummaximum: none), from the loop table."""
    return bool(_core._has_initials(ufunc, stream))


def _parse_out(out, nout: int):
    if out is None:
        return (None,) * nout
    if type(out) is tuple:
        if len(out) != nout:
            raise ValueError("The 'out' tuple must have exactly one entry per ufunc output")
        for o in out:
            if o is not None and not isinstance(o, np.ndarray):
                raise TypeError("return arrays must be of ArrayType")
        return out
    raise TypeError("'out' must be a tuple of arrays")


def _parse_initial(initial, nout: int):
    """-> (mode, values): 0 = the loop's initials, 1 = none, 2 = given."""
    if initial is NoValue or initial is _NUMPY_NOVALUE:
        return 0, None
    if initial is None:
        return 1, None
    if isinstance(initial, tuple):
        if len(initial) != nout:
            raise ValueError(
                "'initial' must be a scalar or a tuple with one entry per reduction "
                f"output ({nout}), got length {len(initial)}"
            )
        if any(v is None for v in initial):
            raise ValueError("entries of a tuple 'initial' cannot be None")
        return 2, initial
    return 2, (initial,) * nout


def _squeeze_outs(outs, axes):
    """keepdims=True: views of the given outputs (already checked against the
    keepdims result shape) without the reduced axes."""
    return tuple(o if o is None else o.squeeze(axis=axes) for o in outs)


def _resolve(ufunc, arr_dtype, outs, dtype, nout):
    """Descriptors (stream, out_0, ..., out_{n-1}) as native reduce resolves them:
    the forward loop for (a.dtype, a.dtype) -> out dtypes, `dtype=` pinning
    every output.

    NumPy 2.4's ``ufunc.resolve_dtypes`` keeps one reference to a resolved
    descriptor per call when an unspecified (None) output comes before a given
    one (``out=(None, arr)``).  Such a call is made in two steps that leak
    nothing and resolve the same: first with every output unspecified (the
    loop's own descriptors), then with those descriptors in the unspecified
    slots.  numreduce's promoter and descriptor resolvers derive the loop from
    the inputs alone, so a given output can only fail to cast to the loop's
    DType (that error still comes from the second call);
    tests/test_refcounts.py checks the results against the one-step call."""
    sig = None if dtype is None else np.dtype(dtype)
    fwd = (arr_dtype, arr_dtype) + tuple(o.dtype if o is not None else sig for o in outs)
    signature = (None, None) + (sig,) * nout
    out_dtypes = fwd[2:]
    if None in out_dtypes and any(d is not None for d in out_dtypes[out_dtypes.index(None):]):
        try:
            own = ufunc.resolve_dtypes((arr_dtype, arr_dtype) + (None,) * nout,
                                       signature=signature, casting="unsafe")
        except TypeError:
            pass  # the one-step call below raises (or resolves) as NumPy does
        else:
            fwd = fwd[:2] + tuple(d if d is not None else r for d, r in zip(out_dtypes, own[2:]))
    res = ufunc.resolve_dtypes(fwd, signature=signature, casting="unsafe")
    if res[0] != res[1]:
        raise TypeError(
            f"{ufunc.__name__}.reduce is not supported: the resolved loop requires "
            f"different descriptors for its inputs ({res[0]!r} and {res[1]!r})"
        )
    return (res[0],) + tuple(res[2:])


def _resolve_outs(ufunc, arr_dtype, outs, dtype, nout, name):
    """``_resolve``, then the cast rules into the given ``out`` entries
    (``check_out_dtypes``); a resolution that fails for the given ``out``
    dtypes names them.  Shared by every engine method."""
    try:
        descrs = _resolve(ufunc, arr_dtype, outs, dtype, nout)
    except TypeError as e:
        if all(o is None for o in outs):
            raise
        given = ", ".join(f"out[{i}]: {o.dtype}" for i, o in enumerate(outs) if o is not None)
        raise TypeError(f"{name}: no loop for input dtype {arr_dtype} with the given out "
                        f"dtypes ({given}): {e}") from e
    check_out_dtypes(outs, descrs[1:], name)
    return descrs


def _contiguous_axes_fast_path(ufunc, array, axis, keepdims):
    """Reduction of a C-contiguous array over its leading axes (axis=0 of a
    2-D array: the column-blocked C++ path) or its trailing axes (one
    iterator-free loop call per row); None where neither applies."""
    try:
        axes = sorted(normalize_axes(axis, array.ndim))
    except (TypeError, ValueError, IndexError):
        return None  # let the general path raise the proper error
    k, ndim = len(axes), array.ndim
    if k == 0 or k == ndim:
        return None
    if axes == list(range(k)):
        kept = array.shape[k:]
        res = _core._reduce_rows(ufunc, array.reshape(math.prod(array.shape[:k]), math.prod(kept)))
        shape = (1,) * k + kept if keepdims else kept
    elif axes == list(range(ndim - k, ndim)):
        kept = array.shape[:ndim - k]
        res = _core._reduce_trailing(ufunc, array.reshape(math.prod(kept),
                                                          math.prod(array.shape[ndim - k:])))
        shape = kept + (1,) * k if keepdims else kept
    else:
        return None
    if res is None:
        return None
    return tuple(r.reshape(shape) for r in res)


@public_function(masked_where(), array="array",
                 passthrough=lambda ufunc: ufunc not in MULTI_OUTPUT)
def reduce(ufunc, array, axis=0, dtype=None, out=None, keepdims=False, initial=NoValue,
           where=True):
    """``ufunc.reduce`` for multi-output ufuncs on every NumPy >= 2.0.

    Same signature, defaults and results as ``ufunc.reduce``; for
    numreduce's ufuncs it returns a tuple with one array (or NumPy scalar, for
    a full reduction without ``out``) per output.  Any other ``np.ufunc`` is
    passed through to its own ``reduce``.

    Parameters
    ----------
    ufunc : np.ufunc
    array : array_like
    axis : None, int or tuple of ints, default 0
    dtype : dtype, optional
        Loop dtype for every output (the input is cast to it).
    out : tuple of (ndarray or None), optional
        One entry per output, each of exactly the result's shape (no
        broadcasting), writeable, and sharing no memory with another entry.
    keepdims : bool
    initial : scalar or tuple, optional
        A scalar seeds every output, a tuple gives one value per output,
        ``None`` unsets the loop's own initials.
    where : array_like of bool, optional
        Elements to include; needs an ``initial`` when the reduction has none.

    Examples
    --------
    >>> import numpy as np, numreduce as nr
    >>> a = np.array([[3., 1., 4.], [1., 5., 9.]])
    >>> nr.reduce(nr.minimummaximum, a, axis=1)
    (array([1., 1.]), array([4., 9.]))
    >>> nr.reduce(nr.minimummaximum, a, axis=None)
    (np.float64(1.0), np.float64(9.0))
    """
    nout = MULTI_OUTPUT.get(ufunc)
    if keepdims is not False and keepdims is not True:
        keepdims = keepdims_flag(keepdims)
    if (nout is not None and type(array) is np.ndarray and out is None and dtype is None
            and where is True and initial is NoValue):
        # No options: the iterator-free C++ paths (each returns None when the
        # array is not plain native data of the layout it handles).
        res = None
        if not keepdims and (axis is None or (array.ndim == 1 and type(axis) is int
                                              and axis in (0, -1))):
            res = _core._reduce_all(ufunc, array)
        elif array.ndim >= 2 and array.flags.c_contiguous and axis is not None:
            res = _contiguous_axes_fast_path(ufunc, array, axis, keepdims)
        if res is not None:
            return res
    if nout is None:
        if not isinstance(ufunc, np.ufunc):
            raise TypeError(f"reduce() expects a numpy ufunc, got {type(ufunc).__name__}")
        kwargs = {} if initial is NoValue else {"initial": initial}
        return ufunc.reduce(array, axis=axis, dtype=dtype, out=out, keepdims=keepdims,
                            where=where, **kwargs)

    # Every check below runs before the engine writes anything.
    name = ufunc.__name__
    return_scalar = out is not Ellipsis
    outs = _parse_out(None if out is Ellipsis else out, nout)
    arr = np.asarray(array)
    axes = normalize_axes(axis, arr.ndim)
    mode, initials = _parse_initial(initial, nout)
    mask = where_mask(where, arr.shape)
    if any(o is not None for o in outs):
        shape = tuple(1 if i in axes else n for i, n in enumerate(arr.shape)) if keepdims \
            else tuple(n for i, n in enumerate(arr.shape) if i not in axes)
        check_outs(outs, shape, name)
    descrs = _resolve_outs(ufunc, arr.dtype, outs, dtype, nout, name)
    core_outs = _squeeze_outs(outs, axes) if keepdims else outs
    results = _core._reduce(ufunc, arr, core_outs, mask, axes, mode, initials, descrs)
    if keepdims:
        results = tuple(o if o is not None else np.expand_dims(r, axes)
                        for r, o in zip(results, outs))
    else:
        results = tuple(o if o is not None else r for r, o in zip(results, outs))
    if return_scalar:
        results = tuple(
            r[()] if o is None and r.ndim == 0 else r for r, o in zip(results, outs)
        )
    return results
