"""The rules layer: argument rules shared by every method, statistic and backend.

One place for NumPy's argument rules (``axis``, ``keepdims``, ``where``,
``out``, ``initial``, ``ddof``, ``dtype=``, segment offsets, group ids), so
that every public function raises the exception type NumPy raises, with a
message that names the argument, before any output is written -- on NumPy,
Dask and CuPy arrays alike.  The plain call (no options) never reaches these
helpers except ``normalize_axes`` on the fast paths' cheap checks.

Layer: rules (imports nothing of numreduce; docs/architecture.md).
"""

from __future__ import annotations

import numbers
import operator
import sys

import numpy as np
from numpy.lib.array_utils import normalize_axis_index

__all__ = ["NoValue", "axis_index", "bad_group_id", "check_group_ids", "check_index_outs",
           "check_out_dtypes", "check_outs", "check_where", "ddof_arg", "dtype_arg",
           "empty_group_error", "finish_outs", "group_ids", "include_initial_arg",
           "inplace_outs", "is_cupy_array", "is_dask_array", "is_given", "keepdims_flag",
           "masked_ids", "normalize_axes", "num_groups", "one_axis", "out_pair", "parse_initial",
           "parse_out", "reduceat_bounds", "reduced_shape", "scan_axis", "slice_offsets",
           "where_mask", "work_outs"]


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


def is_dask_array(x) -> bool:
    """A ``dask.array.Array`` (looked up in ``sys.modules``: no Dask import)."""
    mod = sys.modules.get("dask.array")
    return mod is not None and isinstance(x, getattr(mod, "Array", ()))


def is_cupy_array(x) -> bool:
    """A CuPy array (by its type's module: no CuPy import)."""
    return type(x).__module__.partition(".")[0] == "cupy"


def is_given(initial) -> bool:
    """Whether ``initial`` was given (not numreduce's or NumPy's no-value)."""
    return initial is not NoValue and initial is not _NUMPY_NOVALUE


def parse_out(out, nout: int):
    """``out`` of a method with one output per ufunc output: None or a tuple
    of ``nout`` entries (None or arrays) -> the tuple."""
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


def parse_initial(initial, nout: int):
    """-> (mode, values): 0 = the loop's initials, 1 = none, 2 = given."""
    if not is_given(initial):
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


def reduced_shape(shape, axes, keepdims: bool) -> tuple:
    """The shape of a reduction of ``shape`` over ``axes``."""
    if keepdims:
        return tuple(1 if i in axes else n for i, n in enumerate(shape))
    return tuple(n for i, n in enumerate(shape) if i not in axes)


def axis_index(ax, ndim: int, one: bool = False) -> int:
    """One axis: an integer (``operator.index``), not a bool, in range.
    ``one``: the function reduces one axis (argminmax, the scans), so the
    message does not offer a tuple."""
    allowed = "an integer (one axis)" if one else "an integer or a tuple of integers"
    if isinstance(ax, (bool, np.bool_)):
        # NumPy: "TypeError: an integer is required" (True is not axis 1).
        raise TypeError(f"'axis' must be {allowed}, not a bool ({ax!r})")
    try:
        i = operator.index(ax)
    except TypeError:
        raise TypeError(f"'axis' must be None or {allowed}, not "
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


def check_outs(outs, shape, name: str, array=None, shares=None) -> None:
    """The given entries of ``outs`` (a tuple, ``None`` entries skipped):
    each an array of exactly the result ``shape`` (no broadcasting: an axis
    of length 1 where the result is longer would otherwise be reduced over
    too), writeable, and no two sharing memory.  ValueError naming
    ``out[i]``, as NumPy raises for a wrong shape or a read-only output.
    ``array(o, i)``: another backend's check of an entry's type (default:
    a writeable ndarray); ``shares(o, p)``: its overlap test."""
    given = []
    for i, o in enumerate(outs):
        if o is None:
            continue
        if array is not None:
            array(o, i)
        elif not isinstance(o, np.ndarray):
            raise TypeError(f"{name}: out[{i}] must be an ndarray or None, not {type(o).__name__}")
        if o.shape != shape:
            raise ValueError(f"{name}: out[{i}] has shape {o.shape}, but the result has shape "
                             f"{shape}")
        if array is None and not o.flags.writeable:
            raise ValueError(f"{name}: out[{i}] is read-only (output array is read-only)")
        for j, p in given:
            if (_overlap if shares is None else shares)(o, p):
                raise ValueError(f"{name}: out[{j}] and out[{i}] share memory; every output "
                                 "needs its own array")
        given.append((i, o))


def check_out_dtypes(outs, descrs, name: str, casting=None, inexact=False) -> None:
    """Results are cast into ``out`` unsafely, as every ufunc.reduce, but
    only between numbers (bool, integer, float, complex) or into object
    arrays, within datetime64 or timedelta64, and between timedelta64 and
    integers (as NumPy); a string, void, datetime or timedelta ``out`` for
    a result of another kind (a float result into ``<U5``, datetimes into
    float) is a TypeError, where NumPy finds no loop either
    (``UFuncTypeError``).
    ``descrs``: the loop's output descriptors, one per entry of ``outs``.

    Stricter where the NumPy function mirrored is stricter (every check
    here, before any work):

    - ``casting``: one entry per out, None (the rule above) or
      ``"same_kind"``: np.std's out, which its final ``sqrt`` writes with
      the ufuncs' same_kind casting (a float std into an integer, bool or
      object out is np.std's ``UFuncTypeError``);
    - ``inexact``: np.nanmean / np.nanvar of float or complex data, whose
      outs must be float or complex ("If a is inexact, then out must be
      inexact", NumPy's TypeError)."""
    for i, (o, d) in enumerate(zip(outs, descrs)):
        if o is None:
            continue
        k, ok = d.kind, o.dtype.kind
        if inexact and ok not in "fc":
            raise TypeError(f"{name}: If a is inexact, then out must be inexact (out[{i}] has "
                            f"dtype {o.dtype}, as np.nanvar / np.nanmean)")
        rule = None if casting is None else casting[i]
        if rule is not None:
            if ok == "O" or not np.can_cast(d, o.dtype, casting=rule):
                raise TypeError(f"{name}: cannot cast the result of dtype {d} into out[{i}] of "
                                f"dtype {o.dtype} with casting rule {rule!r} (as NumPy: "
                                "np.std's out)")
            continue
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


def finish_outs(outs, results, copyto=np.copyto) -> tuple:
    """The results as returned: a given ``out`` receives its result (cast as
    ufunc.reduce casts into ``out``, unsafely) unless the loop wrote it
    directly; ``None`` entries return the result itself.  ``copyto``: the
    backend's (``cupy.copyto`` for device arrays)."""
    final = []
    for o, r in zip(outs, results):
        if o is not None and r is not o:
            copyto(o, r, casting="unsafe")
            r = o
        final.append(r)
    return tuple(final)


def out_pair(out, name: str) -> tuple:
    """``out`` of a user function with two results: None, or a tuple of two
    entries (arrays or None)."""
    if out is None:
        return (None, None)
    if type(out) is not tuple or len(out) != 2:
        raise TypeError(f"{name}: out must be a tuple of two arrays (or None entries), got "
                        f"{type(out).__name__}")
    return out


def check_index_outs(outs, name: str) -> None:
    """np.argmin's rule for ``out``: integer arrays that hold np.intp indices."""
    for i, o in enumerate(outs):
        if o is not None and not np.can_cast(o.dtype, np.intp, casting="safe"):
            raise TypeError(f"{name}: cannot store indices in out[{i}] of dtype {o.dtype}")


def dtype_arg(name, dtype):
    """``np.dtype(dtype)``, or None; a TypeError naming ``dtype`` otherwise."""
    if dtype is None:
        return None
    try:
        return np.dtype(dtype)
    except TypeError as e:
        raise TypeError(f"{name}: dtype={dtype!r} is not a data type") from e


def ddof_arg(name, ddof):
    """``ddof`` as a real scalar (np.var accepts floats and negative values);
    TypeError for anything that is not a real number, ValueError for arrays."""
    if isinstance(ddof, numbers.Real) and not isinstance(ddof, (np.ndarray, np.generic)):
        return ddof if isinstance(ddof, (int, float)) else float(ddof)
    if not isinstance(ddof, (np.ndarray, np.generic, list, tuple)):
        raise TypeError(f"{name}: ddof must be a real number, got {ddof!r}")
    arr = np.asarray(ddof)
    if arr.ndim:
        raise ValueError(f"{name}: ddof must be a scalar, got an array of shape {arr.shape}")
    if arr.dtype.kind not in "biuf":
        raise TypeError(f"{name}: ddof must be a real number, got {ddof!r} (dtype {arr.dtype})")
    return arr[()]


# ---------------------------------------------------------------------------
# scans: np.cumulative_sum's rules
# ---------------------------------------------------------------------------

def scan_axis(name, arr, axis):
    """np.cumulative_sum's rules for an array (NumPy's, Dask's or CuPy's):
    0-d input is 1-d, ``axis=None`` only for 1-d input, one integer axis ->
    (arr, or its 1-d view for 0-d input; the axis index)."""
    if arr.ndim == 0:
        arr = arr.reshape(1)
    if axis is None:
        if arr.ndim > 1:
            raise ValueError(f"{name}: for arrays which have more than one dimension "
                             "``axis`` argument is required.")
        axis = 0
    return arr, axis_index(axis, arr.ndim, one=True)


def include_initial_arg(name, include_initial) -> bool:
    if not isinstance(include_initial, (bool, np.bool_)):
        raise TypeError(f"{name}: include_initial must be True or False, got "
                        f"{include_initial!r}")
    return bool(include_initial)


# ---------------------------------------------------------------------------
# segments: reduceat's indices, segmented_reduce's slice bounds
# ---------------------------------------------------------------------------

def reduceat_bounds(indices, n: int, name: str, ufunc_name: str):
    """``ufunc.reduceat``'s index rules -> (starts, stops), intp arrays:
    segment i is [indices[i], indices[i+1]) where indices[i] < indices[i+1],
    else just element indices[i]; the last runs to n.  The indices live on
    the host for every backend."""
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


def slice_offsets(v, n: int, name: str, arg: str) -> np.ndarray:
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


# ---------------------------------------------------------------------------
# group ids
# ---------------------------------------------------------------------------

def check_group_ids(dtype, shape, n: int, name: str) -> None:
    """The group ids' dtype and shape rules (NumPy, Dask or CuPy ids alike):
    1-d integers, one per element along the reduced axis."""
    if dtype.kind not in "iu":
        raise TypeError(f"{name}: 'group_ids' must be an array of integers, not of dtype "
                        f"{dtype}")
    if len(shape) != 1 or shape[0] != n:
        raise ValueError(f"{name}: 'group_ids' must be 1-d with one id per element along the "
                         f"reduced axis ({n}), got shape {shape}")


def masked_ids(ids, name: str, what: str) -> None:
    """A TypeError for an ``np.ma`` array of ids or indices with masked
    entries: np.asarray would read the data under the mask as real ids."""
    if isinstance(ids, np.ma.MaskedArray) and np.ma.getmaskarray(ids).any():
        raise TypeError(f"{name}: {what!r} is a masked array with masked entries, whose "
                        "values would be read as real ones; drop those elements (e.g. "
                        "where= on the data, or compress both) and pass plain ids")


def group_ids(ids, n: int, name: str):
    """Host group ids -> (original ids array, intp ids): 1-d integers of length n.
    A masked array of ids with masked entries is refused (its data under the
    mask would be read as groups)."""
    masked_ids(ids, name, "group_ids")
    ids = np.asarray(ids)
    if ids.size == 0 and ids.dtype.kind == "f":
        ids = ids.astype(np.intp)  # [] (NumPy indexes with an empty list too)
    check_group_ids(ids.dtype, ids.shape, n, name)
    return ids, np.ascontiguousarray(ids, dtype=np.intp)


_INTP_MAX = int(np.iinfo(np.intp).max)


def num_groups(num_groups, ids, name: str) -> int:
    """``num_groups``: an integer >= 0, or None for ``max(ids) + 1`` (``ids``
    an array with ``.size`` and ``.max()``, or None where it must be given)."""
    if num_groups is None:
        if not ids.size:
            return 0
        top = int(ids.max())
        if top >= _INTP_MAX:
            # max + 1 groups are more than an array can have: the first id
            # beyond (a uint64 id past the intp range), as for a given num_groups
            host = ids.get() if hasattr(ids, "get") else np.asarray(ids)  # CuPy ids: .get()
            raise bad_group_id(host, _INTP_MAX, name)
        return top + 1
    if isinstance(num_groups, (bool, np.bool_)):
        raise TypeError(f"{name}: 'num_groups' must be an integer or None, not a bool")
    try:
        g = operator.index(num_groups)
    except TypeError:
        raise TypeError(f"{name}: 'num_groups' must be an integer or None, not "
                        f"{type(num_groups).__name__}") from None
    if g < 0:
        raise ValueError(f"{name}: 'num_groups' must be >= 0, got {g}")
    return g


def bad_group_id(ids, g: int, name: str):
    """The IndexError for the first id outside [0, g) (host ids)."""
    k = int(np.flatnonzero((ids < 0) | (ids >= g))[0])
    if g == _INTP_MAX:
        return IndexError(f"{name}: group_ids[{k}] = {ids[k]} is outside [0, {g}), the group "
                          "ids an array can hold (num_groups=None: max(group_ids) + 1 groups)")
    return IndexError(f"{name}: group_ids[{k}] = {ids[k]} is outside [0, num_groups) = "
                      f"[0, {g})")


def empty_group_error(name: str, k: int) -> ValueError:
    """The ValueError for group ``k`` without elements and no start value."""
    return ValueError(f"{name}: group {k} is empty and the reduction has no initial value "
                      "(pass initial=..., or group_ids without empty groups)")
