"""The rules layer: loop resolution, result dtypes and start values.

Every dtype rule of a method or statistic, written once for every backend:
the loop a ufunc runs for given data (``resolve``, as native
``ufunc.reduce`` resolves it), the cast rules into ``out``, the values a
reduction starts from (the loop's initials, a given ``initial``, the fill
values that let ``where`` stand for a mask), and the result dtypes of the
user functions (np.mean / np.var's, np.sum's, SciPy's logsumexp's).  Nothing
here touches array data: the Dask and CuPy backends plan with the same rules
and raise the same errors as the NumPy path, before any work.

Layer: rules (imports ``_core`` and ``_args`` only; docs/architecture.md).
"""

from __future__ import annotations

import numpy as np

from . import _core
from ._args import check_out_dtypes, dtype_arg

__all__ = ["MULTI_OUTPUT", "MULTI_SOURCE", "arg_dtype", "at_descrs", "cumfsum_dtypes",
           "fsum_dtypes", "has_identity", "has_initials", "logcumsumexp_dtype", "logsumexp_dtype",
           "mask_initials", "meanvar_dtypes", "merge_descrs", "moments_ufunc", "multi_output",
           "pieces_start", "real_dtype", "reduce_start", "resolve", "resolve_outs", "seed_values",
           "sources_dtype", "sources_plan", "stream_dtype", "sum_dtype"]

# The ufuncs the engine knows -> number of outputs: the C++ registry's dict,
# which numreduce's own ufuncs and those other extensions register through
# the C API (extension.hpp) enter alike.
MULTI_OUTPUT: dict = _core._MULTI_OUTPUT
# {ufunc: K} of the reductions of K > 1 source arrays (wmoments, comoments,
# ...): numreduce.reduce(ufunc, (x_0, ..., x_{K-1})).
MULTI_SOURCE: dict = _core._MULTI_SOURCE


def multi_output(ufunc, method: str) -> int:
    """The number of outputs of one of the engine's ufuncs; TypeError else."""
    nout = MULTI_OUTPUT.get(ufunc)
    if nout is None:
        what = getattr(ufunc, "__name__", type(ufunc).__name__)
        raise TypeError(f"{method}() expects one of numreduce's multi-output ufuncs "
                        f"(minimummaximum, fminfmax, moments, nanmoments, maxsumexp, twosum) "
                        f"or one registered through numreduce's C API, got {what!r}")
    return nout


def has_initials(ufunc, stream) -> bool:
    """Whether the loop of `ufunc` for `stream` data has initials of its own
    (moments: (0, 0, 0); minimummaximum: none), from the loop table."""
    return bool(_core._has_initials(ufunc, stream))


def has_identity(ufunc, dt, dtype=None) -> bool:
    """Whether the loop that reduces `dt` data (with `dtype=`) has initials.
    Where the data's dtype has no loop of its own (a user function converts
    it first: complex meanvar, ...), the ufunc is one of numreduce's, whose
    loops all agree: only minimummaximum and fminfmax lack initials."""
    try:
        stream = resolve(ufunc, np.dtype(dt), (None,) * ufunc.nout, dtype, ufunc.nout)[0]
    except TypeError:
        return ufunc not in (_core.minimummaximum, _core.fminfmax)
    return has_initials(ufunc, stream)


def resolve(ufunc, arr_dtype, outs, dtype, nout):
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
    nin = ufunc.nin  # 2, or K for a reduction of K sources (each of arr_dtype)
    ins = (arr_dtype,) * nin
    for o in outs:
        if o is not None:
            break
    else:
        if dtype is None:  # the common call: the loop of the data alone
            res = ufunc.resolve_dtypes(ins + (None,) * nout, casting="unsafe")
            if any(r != res[0] for r in res[1:nin]):
                raise _different_inputs(ufunc, res)
            return (res[0],) + res[nin:]
    sig = None if dtype is None else np.dtype(dtype)
    fwd = ins + tuple(o.dtype if o is not None else sig for o in outs)
    signature = (None,) * nin + (sig,) * nout
    out_dtypes = fwd[nin:]
    if None in out_dtypes and any(d is not None for d in out_dtypes[out_dtypes.index(None):]):
        try:
            own = ufunc.resolve_dtypes(ins + (None,) * nout, signature=signature,
                                       casting="unsafe")
        except TypeError:
            pass  # the one-step call below raises (or resolves) as NumPy does
        else:
            fwd = fwd[:nin] + tuple(d if d is not None else r
                                    for d, r in zip(out_dtypes, own[nin:]))
    res = ufunc.resolve_dtypes(fwd, signature=signature, casting="unsafe")
    if any(r != res[0] for r in res[1:nin]):
        raise _different_inputs(ufunc, res)
    return (res[0],) + tuple(res[nin:])


def _different_inputs(ufunc, res):
    return TypeError(f"{ufunc.__name__}.reduce is not supported: the resolved loop requires "
                     f"different descriptors for its inputs ({res[0]!r} and {res[1]!r})")


def resolve_outs(ufunc, arr_dtype, outs, dtype, nout, name):
    """``resolve``, then the cast rules into the given ``out`` entries
    (``check_out_dtypes``); a resolution that fails for the given ``out``
    dtypes names them.  Shared by every method."""
    try:
        descrs = resolve(ufunc, arr_dtype, outs, dtype, nout)
    except TypeError as e:
        if all(o is None for o in outs):
            raise
        given = ", ".join(f"out[{i}]: {o.dtype}" for i, o in enumerate(outs) if o is not None)
        raise TypeError(f"{name}: no loop for input dtype {arr_dtype} with the given out "
                        f"dtypes ({given}): {e}") from e
    check_out_dtypes(outs, descrs[1:], name)
    return descrs


def merge_descrs(ufunc, dtypes_a, dtypes_b, nout, name):
    """merge's loop (stream, accumulators) for states of the given dtypes:
    the states cast safely to the accumulator of ``reduce`` for their
    common dtype (NumPy, Dask and CuPy states alike)."""
    try:
        common = np.result_type(*dtypes_a, *dtypes_b)
        descrs = resolve(ufunc, common, (None,) * nout, None, nout)
    except TypeError as e:
        raise TypeError(f"{name}: no merge loop for states of dtypes "
                        f"{[str(d) for d in dtypes_a]} and {[str(d) for d in dtypes_b]}: {e}"
                        ) from e
    acc = descrs[1]
    if not np.can_cast(common, acc, casting="safe"):
        raise TypeError(f"{name}: states of dtype {common} cannot be cast safely to the "
                        f"accumulator dtype {acc}")
    return descrs


def at_descrs(ufunc, values_dtype, out_dtypes, nout, name):
    """at's loop: the ufunc's loop for ``np.result_type(values, *outs)``,
    its results cast back into the accumulators ('same_kind')."""
    try:
        common = np.result_type(values_dtype, *out_dtypes)
        descrs = resolve(ufunc, common, (None,) * nout, None, nout)
    except TypeError as e:
        raise TypeError(f"{name}: no loop for values of dtype {values_dtype} with accumulators "
                        f"of dtypes {[str(d) for d in out_dtypes]}: {e}") from e
    for i, (o, d) in enumerate(zip(out_dtypes, descrs[1:])):
        if not np.can_cast(d, o, casting="same_kind"):
            raise TypeError(f"{name}: cannot cast the result of dtype {d} into outs[{i}] of "
                            f"dtype {o} with casting rule 'same_kind'")
    return descrs


def seed_values(initial, descrs, name: str) -> tuple:
    """The values of a given `initial`, one 0-d array per output, cast as
    reduce casts 'initial' (assignment into the output dtype; descrs[1:])."""
    seeds = []
    for v, d in zip(initial, descrs[1:]):
        buf = np.empty((), dtype=d)
        try:
            buf[()] = v
        except (TypeError, ValueError, OverflowError) as e:
            raise type(e)(f"{name}: 'initial' {v!r} does not fit the output dtype {d}: "
                          f"{e}") from None
        seeds.append(buf)
    return tuple(seeds)


def reduce_start(ufunc, descrs, mode, masked, shape, axes):
    """reduce's start-value rules (NumPy's): without a start value (neither
    ``initial`` nor the loop's initials) ``where`` is refused, and so is an
    empty reduction (a reduced axis of length 0; NaN for an unknown length
    passes).  Whether the reduction has a start value."""
    seeded = mode == 2 or (mode == 0 and has_initials(ufunc, descrs[0]))
    if not seeded:
        if masked:
            raise ValueError(f"reduction operation '{ufunc.__name__}' does not have an "
                             "identity, so to use a where mask one has to specify 'initial'")
        if any(shape[i] == 0 for i in axes):
            raise ValueError(f"zero-size array to reduction operation {ufunc.__name__} which "
                             "has no identity")
    return seeded


def pieces_start(ufunc, descrs, mode, masked, name, segments=None, prefix=False):
    """The start-value rules of a reduction of pieces (segments, groups):
    whether every piece starts from a value (``initial`` given, or the
    loop's initials); ``where`` needs one (reduce's rule, ValueError, the
    message after ``name: `` with ``prefix``); so does an empty segment
    (``segments``: (starts, stops, axis) of a segment reduction)."""
    seeded = mode == 2 or (mode == 0 and has_initials(ufunc, descrs[0]))
    if masked and not seeded:
        raise ValueError(f"{name + ': ' if prefix else ''}reduction operation "
                         f"'{ufunc.__name__}' does not have an identity, so to use a where "
                         "mask one has to specify 'initial'")
    if not seeded and segments is not None:
        starts, stops, ax = segments
        empty = np.flatnonzero(stops <= starts)
        if empty.size:
            s = int(empty[0])
            raise ValueError(f"{name}: segment {s} ([{int(starts[s])}:{int(stops[s])}] along "
                             f"axis {ax}) is empty and {ufunc.__name__} has no identity; pass "
                             "'initial' for empty segments")
    return seeded


# ---------------------------------------------------------------------------
# the user functions' result dtypes
# ---------------------------------------------------------------------------

def arg_dtype(name, in_dtype):
    """argminmax's data: booleans, numbers, datetimes and timedeltas (the
    engine's argminmax loops); TypeError for any other dtype (strings,
    objects, records), before any work on every backend (the engine's own
    message)."""
    if in_dtype.kind not in "biufcmM":
        raise TypeError(f"{name}: unsupported dtype {in_dtype!r}")


def real_dtype(dt):
    """The real type of a float or complex dtype (its ``finfo`` dtype)."""
    return np.finfo(dt).dtype


def meanvar_dtypes(name, in_dtype, dtype, nan=False):
    """np.mean / np.var's (np.nanmean / np.nanvar's) result dtypes (mean_dt,
    var_dt) for `in_dtype` data and the ``dtype=`` argument, or a TypeError
    naming the argument.

    NumPy's rules: bool/integer data give float64, float data their own type,
    complex data a complex mean and a real variance; ``dtype=`` sets both.
    Refused (TypeError) where NumPy computes what the float accumulators
    cannot reproduce: an integer/bool/object ``dtype=`` (NumPy casts every
    element to it and truncates each division), and a real ``dtype=`` on
    complex data (NumPy drops the imaginary parts with a ComplexWarning).
    See docs/differences.md."""
    kind = in_dtype.kind
    if kind not in "biufc":
        why = {"m": "; a timedelta64 variance would have squared time units (np.var raises "
                    "too), use np.mean for the mean",
               "O": "; object arrays have no C loop, cast them first (a.astype(float))"}
        raise TypeError(f"{name}: unsupported input dtype {in_dtype} (need bool, integer, "
                        f"floating point or complex){why.get(kind, '')}")
    dt = dtype_arg(name, dtype)
    if dt is None:
        if kind in "biu":
            return np.dtype(np.float64), np.dtype(np.float64)
        native = in_dtype.newbyteorder("=")
        return native, (np.finfo(native).dtype if kind == "c" else native)
    if nan and kind in "fc" and dt.kind not in "fc":
        # np.nanmean / np.nanvar's own check and message
        raise TypeError(f"{name}: If a is inexact, then dtype must be inexact (got dtype={dt})")
    if dt.kind in "biuO":
        raise TypeError(f"{name}: dtype={dt} is not supported: np.mean/np.var accumulate in "
                        f"{dt} (each element cast, each division truncated), numreduce in "
                        "floating point; pass a floating-point dtype and cast the results")
    if dt.kind not in "fc":
        raise TypeError(f"{name}: cannot compute a mean or variance in dtype={dt}")
    if kind == "c" and dt.kind == "f":
        raise TypeError(f"{name}: dtype={dt} would drop the imaginary part of {in_dtype} data "
                        "(NumPy warns ComplexWarning); pass a complex dtype, or a.real")
    return dt, dt


def moments_ufunc(in_dtype, nan):
    """The moments reduction of the meanvar family: NaN-skipping for float
    and complex data of the nan functions."""
    return _core.nanmoments if nan and in_dtype.kind in "fc" else _core.moments


def fsum_dtypes(in_dtype, dtype, name="fsum"):
    """np.sum's ``dtype=`` rules as far as compensated floating-point
    summation can follow them: (acc, res), the real dtype the twosum
    reduction runs in (None: the loop's choice for the input -- float64 for
    bool/integers, float32 for float16) and the result dtype (None: the
    accumulator's).  Complex data and complex ``dtype=`` sum the real and
    imaginary parts separately.  A TypeError naming the argument for what it
    cannot follow (docs/differences.md); ``name`` is the
    function the messages name (fsum, cumfsum)."""
    kind = in_dtype.kind
    dt = dtype_arg(name, dtype)
    if kind == "m":
        raise TypeError(f"{name}: unsupported input dtype {in_dtype} (np.sum of timedelta64 is "
                        "exact integer arithmetic; use np.sum)")
    if kind == "M":
        raise TypeError(f"{name}: unsupported input dtype {in_dtype} (datetime64 values cannot "
                        "be added; np.sum raises too)")
    if kind not in "biufcO":
        raise TypeError(f"{name}: unsupported input dtype {in_dtype} (need bool, integer, "
                        "floating point or complex)")
    if kind == "O" and (dt is None or dt.kind not in "fc"):
        raise TypeError(f"{name}: object arrays need a floating-point or complex dtype= (the "
                        "elements are then cast, as np.sum(a, dtype=...) casts them)")
    if dt is None:
        return None, (in_dtype.newbyteorder("=") if kind == "c" else None)
    if dt.kind in "biuO":
        raise TypeError(f"{name}: dtype={dt} is not supported: compensated summation runs in "
                        f"floating point (np.sum(a, dtype={dt}) is {dt} arithmetic)")
    if dt.kind not in "fc":
        raise TypeError(f"{name}: cannot sum in dtype={dt}")
    if kind == "c" and dt.kind == "f":
        raise TypeError(f"{name}: dtype={dt} would drop the imaginary part of {in_dtype} data "
                        "(NumPy warns ComplexWarning); pass a complex dtype, or a.real")
    real = np.finfo(dt).dtype
    return (np.dtype(np.float32) if real == np.float16 else real), dt


def cumfsum_dtypes(name, in_dtype, dtype):
    """(accumulator, result dtype) of cumfsum: fsum's ``dtype=`` rules, the
    result the loop's accumulator by default (float64 for bool/integers,
    float32 for float16)."""
    acc, rdt = fsum_dtypes(in_dtype, dtype, name)
    return acc, (sum_dtype(in_dtype) if rdt is None else rdt)


def sum_dtype(in_dtype):
    """The twosum loop's accumulator for real ``in_dtype`` data (fsum's
    result dtype without ``dtype=``): float64 for bool and integers, float32
    for float16, the float dtype otherwise (native byte order)."""
    native = in_dtype.newbyteorder("=")  # '>f2' too
    return (np.dtype(np.float64) if native.kind in "biu" else
            np.dtype(np.float32) if native == np.float16 else native)


def sources_dtype(label, *dtypes):
    """The loop dtype of a reduction of several source arrays: their common
    dtype, float64 for bool/integers, float32 for float16 (the loops are
    float32, float64 and long double); TypeError for other kinds."""
    for d in dtypes:
        if d.kind not in "biuf":
            raise TypeError(f"{label}: unsupported dtype {d} (real numbers only)")
    dt = np.result_type(*dtypes)
    if dt.kind != "f":
        return np.dtype(np.float64)
    return np.dtype(np.float32) if dt.itemsize < 4 else dt.newbyteorder("=")


def stream_dtype(arr):
    """The dtype of one source value of a method's operand: the array's, or
    the fields' of K sources packed as K-field records (the backends'
    ``pack_sources``)."""
    return arr.dtype if arr.dtype.names is None else arr.dtype[0]


def sources_plan(label, names, arrays):
    """(loop dtype, broadcast shape) of several source arrays (anything with
    ``dtype`` and ``shape``): ``sources_dtype``, and ValueError naming the
    shapes where they do not broadcast together.  A dtype that is not real
    is a TypeError naming the array and the operands that make the
    reduction real-only (``weights``, ``b``, ``return_sign``, ``y``...)."""
    for i, (n, a) in enumerate(zip(names, arrays)):
        if a.dtype.kind not in "biuf":
            # the first source: real only because of the others; another: itself
            why = f" with {' and '.join(map(str, names[1:]))}" if i == 0 and names[1:] else ""
            raise TypeError(f"{label}: unsupported dtype {a.dtype} of {n} (real numbers "
                            f"only{why})")
    dt = sources_dtype(label, *(a.dtype for a in arrays))
    try:
        return dt, np.broadcast_shapes(*(a.shape for a in arrays))
    except ValueError:
        shapes = ", ".join(f"{n} {a.shape}" for n, a in zip(names, arrays))
        raise ValueError(f"{label}: the arrays do not broadcast together: {shapes}") from None


def logsumexp_dtype(in_dtype):
    """SciPy's logsumexp result dtype for real data: the float dtype,
    float64 for bool and integers."""
    return in_dtype.newbyteorder("=") if in_dtype.kind == "f" else np.dtype(np.float64)


def logcumsumexp_dtype(name, in_dtype, dtype):
    """logcumsumexp's result dtype (the input's float type, float64 for
    bool/integers, or a floating-point ``dtype=``); a TypeError otherwise."""
    if in_dtype.kind not in "biuf":
        raise TypeError(f"{name}: unsupported input dtype {in_dtype} (need bool, integer or "
                        "floating point)")
    rdt = logsumexp_dtype(in_dtype)
    if dtype is not None:
        rdt = dtype_arg(name, dtype)
        if rdt.kind != "f":
            raise TypeError(f"{name}: dtype={rdt} is not a floating-point dtype")
    return rdt


def mask_initials(ufunc, dtype):
    """Initials that let `where` stand for a mask (np.ma's rules), or None
    where the reduction's own initials do (moments, maxsumexp, twosum).

    minimummaximum: np.ma's fill values (np.ma.minimum_fill_value /
    maximum_fill_value: +-inf, the integer extremes, ...); fminfmax: NaN (NaT),
    which fmin/fmax skip, so that an all-NaN slice stays NaN (np.nanmin's
    rule), else the fill values."""
    if ufunc is _core.fminfmax and dtype.kind in "fcmM":
        nan = np.array("NaT" if dtype.kind in "mM" else np.nan, dtype=dtype)[()]
        return (nan, nan)
    if ufunc in (_core.minimummaximum, _core.fminfmax) and dtype.kind in "mM":
        # the int64 extremes but NaT (NumPy < 2.1's maximum_fill_value is NaT,
        # which would propagate)
        i64 = np.iinfo(np.int64)
        return tuple(np.array(v).astype(dtype)[()] for v in (i64.max, i64.min + 1))
    if ufunc in (_core.minimummaximum, _core.fminfmax):
        probe = np.empty(0, dtype)
        return tuple(np.array(f).astype(dtype)[()] for f in
                     (np.ma.minimum_fill_value(probe), np.ma.maximum_fill_value(probe)))
    return None
