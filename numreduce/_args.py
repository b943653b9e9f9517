"""Argument validators shared by the engine and the user functions.

One place for NumPy's argument rules (``axis``, ``keepdims``, ``where``,
``out``), so that every public function raises the exception type NumPy
raises, with a message that names the argument, before any output is
written.  The plain call (no options) never reaches these helpers except
``normalize_axes`` on the fast paths' cheap checks.
"""

from __future__ import annotations

import operator

import numpy as np
from numpy.lib.array_utils import normalize_axis_index

__all__ = ["axis_index", "check_out_dtypes", "check_outs", "check_where", "finish_outs",
           "inplace_outs", "keepdims_flag", "normalize_axes", "one_axis", "where_mask",
           "work_outs"]


def axis_index(ax, ndim: int) -> int:
    """One axis: an integer (``operator.index``), not a bool, in range."""
    if isinstance(ax, (bool, np.bool_)):
        # NumPy: "TypeError: an integer is required" (True is not axis 1).
        raise TypeError(f"'axis' must be an integer or a tuple of integers, not a bool ({ax!r})")
    try:
        i = operator.index(ax)
    except TypeError:
        raise TypeError("'axis' must be None, an integer or a tuple of integers, not "
                        f"{type(ax).__name__}") from None
    return normalize_axis_index(i, ndim)  # AxisError ("axis 2 is out of bounds ...")


def normalize_axes(axis, ndim: int, scalar_rule: bool = True) -> tuple[int, ...]:
    """``axis`` (None, an int, or a tuple of ints) -> distinct normalised axes.

    ``scalar_rule``: ufunc.reduce's backwards-compatible case, ``axis=0`` /
    ``-1`` on a 0-d input reduces nothing (np.mean and np.var do not have it).
    Lists, arrays, floats and bools raise TypeError, as in NumPy."""
    if axis is None:
        return tuple(range(ndim))
    if type(axis) is tuple:
        axes = tuple(axis_index(a, ndim) for a in axis)
        if len(set(axes)) != len(axes):
            raise ValueError("duplicate value in 'axis'")
        return axes
    if scalar_rule and ndim == 0 and not isinstance(axis, (bool, np.bool_)):
        try:
            if operator.index(axis) in (0, -1):
                return ()
        except TypeError:
            pass  # axis_index raises the proper error
    return (axis_index(axis, ndim),)


def keepdims_flag(keepdims) -> bool:
    """``keepdims`` as ufunc.reduce converts it: a Python int (bool included)
    or an object with ``__index__``; strings, NumPy bools and arrays raise
    TypeError, as ``np.add.reduce(a, keepdims='yes')`` does."""
    if keepdims is False or keepdims is True:
        return keepdims
    try:
        return bool(operator.index(keepdims))
    except TypeError:
        raise TypeError(f"'keepdims' must be a Python bool (or int), got {keepdims!r}") from None


def check_where(dtype, mask_shape, shape=None) -> None:
    """The rules a ``where`` mask (NumPy's or CuPy's) must meet: its dtype
    casts to bool safely (an integer or float mask raises TypeError, as in
    NumPy) and, with ``shape`` (the input's), it broadcasts to that shape
    (ValueError)."""
    if not np.can_cast(dtype, np.bool_, casting="safe"):
        raise TypeError(f"'where' must be a boolean array: cannot cast array data from "
                        f"{np.dtype(dtype)!r} to dtype('bool') according to the rule 'safe'")
    if shape is not None and tuple(mask_shape) != tuple(shape):
        try:
            ok = np.broadcast_shapes(mask_shape, shape) == tuple(shape)
        except ValueError:
            ok = False
        if not ok:
            raise ValueError(f"'where' of shape {tuple(mask_shape)} does not broadcast to the "
                             f"input's shape {tuple(shape)}")


def where_mask(where, shape=None):
    """``where`` as ufunc.reduce's converter: ``True`` -> None (no mask);
    an ndarray must cast to bool safely (an integer or float array raises
    TypeError, as in NumPy); any other object is converted with
    ``dtype=bool`` (Python scalars and lists, as NumPy does).  With
    ``shape`` (the input's), the mask must broadcast to it (ValueError)."""
    if where is True:
        return None
    if isinstance(where, np.ndarray):
        check_where(where.dtype, where.shape)
    mask = np.asarray(where, dtype=bool)
    check_where(mask.dtype, mask.shape, shape)
    return mask


def inplace_outs(outs, nout: int, name: str) -> tuple:
    """The ``outs`` of an in-place method (``at``): a tuple or list of one
    array per ufunc output, as a tuple (the arrays' own type is the
    caller's check: NumPy's or CuPy's)."""
    if not isinstance(outs, (tuple, list)):
        raise TypeError(f"{name}: 'outs' must be a tuple with one array per ufunc output "
                        f"({nout}), not {type(outs).__name__}")
    outs = tuple(outs)
    if len(outs) != nout:
        raise ValueError(f"{name}: 'outs' must have one array per ufunc output ({nout}), got "
                         f"{len(outs)}")
    return outs


def _overlap(a: np.ndarray, b: np.ndarray) -> bool:
    if not np.may_share_memory(a, b):
        return False
    try:
        return bool(np.shares_memory(a, b, max_work=10**5))
    except np.exceptions.TooHardError:
        return True  # cannot prove them apart: refuse rather than guess


def check_outs(outs, shape, name: str) -> None:
    """The given entries of ``outs`` (a tuple, ``None`` entries skipped):
    each an ndarray of exactly the result ``shape`` (no broadcasting: an
    axis of length 1 where the result is longer would otherwise be reduced
    over too), writeable, and no two sharing memory.  ValueError naming
    ``out[i]``, as NumPy raises for a wrong shape or a read-only output."""
    given = []
    for i, o in enumerate(outs):
        if o is None:
            continue
        if not isinstance(o, np.ndarray):
            raise TypeError(f"{name}: out[{i}] must be an ndarray or None, not {type(o).__name__}")
        if o.shape != shape:
            raise ValueError(f"{name}: out[{i}] has shape {o.shape}, but the result has shape "
                             f"{shape}")
        if not o.flags.writeable:
            raise ValueError(f"{name}: out[{i}] is read-only (output array is read-only)")
        for j, p in given:
            if _overlap(o, p):
                raise ValueError(f"{name}: out[{j}] and out[{i}] share memory; every output "
                                 "needs its own array")
        given.append((i, o))


def check_out_dtypes(outs, descrs, name: str) -> None:
    """Results are cast into ``out`` unsafely, as every ufunc.reduce, but
    only between numbers (bool, integer, float, complex) or into object
    arrays, within datetime64 or timedelta64, and between timedelta64 and
    integers (as NumPy); a string, void, datetime or timedelta ``out`` for
    a result of another kind (a float result into ``<U5``, datetimes into
    float) is a TypeError, where NumPy finds no loop either
    (``UFuncTypeError``).
    ``descrs``: the loop's output descriptors, one per entry of ``outs``."""
    for i, (o, d) in enumerate(zip(outs, descrs)):
        if o is None:
            continue
        k, ok = d.kind, o.dtype.kind
        if (ok == "O" or (k in "biufc" and ok in "biufc") or (k == ok and k in "mM")
                or (k + ok) in ("mi", "im")):  # timedelta <-> signed integer ticks
            continue
        raise TypeError(f"{name}: cannot cast the result of dtype {d} into out[{i}] of dtype "
                        f"{o.dtype} (results are cast only between numeric dtypes, into "
                        "object, within datetime64 / timedelta64, or between timedelta64 and "
                        "integers)")


def one_axis(axis, arr, name: str, verb: str) -> int:
    """The one normalised axis of the methods along an axis (accumulate,
    reduceat, segmented_reduce, reduce_by_group): a 0-d ``arr`` is a
    TypeError ("cannot <verb> a scalar"), several axes a ValueError."""
    if arr.ndim == 0:
        raise TypeError(f"{name}: cannot {verb} a scalar (a 0-d 'array')")
    axes = normalize_axes(axis, arr.ndim, scalar_rule=False)
    if len(axes) != 1:
        raise ValueError(f"{name}: 'axis' must be one axis, got {axis!r} (multiple axes are "
                         f"not allowed; the array has dimension {arr.ndim})")
    return axes[0]


def work_outs(outs, descrs, shape, *inputs):
    """Arrays for a loop to write: each given ``out`` itself where the loop
    can walk it directly (its descriptor, C-contiguous, aligned, sharing no
    memory with ``inputs``), else a new array of ``shape``; ``finish_outs``
    copies those back."""
    res = []
    for o, d in zip(outs, descrs):
        direct = (o is not None and o.dtype == d and o.flags.c_contiguous and o.flags.aligned
                  and not any(x is not None and np.may_share_memory(o, x) for x in inputs))
        res.append(o if direct else np.empty(shape, dtype=d))
    return res


def finish_outs(outs, results) -> tuple:
    """The results as returned: a given ``out`` receives its result (cast as
    ufunc.reduce casts into ``out``, unsafely) unless the loop wrote it
    directly; ``None`` entries return the result itself."""
    final = []
    for o, r in zip(outs, results):
        if o is not None and r is not o:
            np.copyto(o, r, casting="unsafe")
            r = o
        final.append(r)
    return tuple(final)
