"""numreduce on CuPy arrays: the same multi-output ufuncs and reductions on
the GPU, compiled from the same traits headers (docs/gpu.md).

``import numreduce`` never imports this module or CuPy; the user functions
and ``numreduce.reduce`` route CuPy arrays here (numreduce/_dispatch.py).

* ``numreduce.cupy.<ufunc>(x1, x2, out=(..), dtype=..)``: a
  ``cupy.ElementwiseKernel`` (broadcasting, every output);
* ``numreduce.cupy.<ufunc>.reduce(a, axis=0, dtype=None, out=None,
  keepdims=False, initial=..., where=True)``: a ``cupy.ReductionKernel``
  whose accumulator is the traits' ``acc_t`` (with a seen-flag, the identity
  of the reduction for traits without initials): map = lift, reduce =
  combine, the post-map writes every output (passed positionally, all
  returned);
* ``accumulate`` (a RawKernel) and ``merge`` (an ElementwiseKernel);
* ``reduceat``, ``segmented_reduce``, ``reduce_by_group``, ``at`` and the
  grouped user functions ``group_minmax``, ``group_meanvar``,
  ``group_logsumexp``, ``group_fsum`` (one segments RawKernel: one thread
  per output slot walks its segment; the grouped methods sort the group ids
  stably first, docs/gpu.md);
* the user functions minmax, nanminmax, argminmax, nanargminmax, meanvar,
  meanstd, nanmeanvar, logsumexp, fsum (complex data too: the meanvar
  family and fsum by parts, logsumexp by the NumPy path's array code).

Kernel source comes from numreduce._cupy_source (one table, the CPU ufuncs'
loops); CuPy caches the compiled kernels (its kernel cache, on disk).

NOT YET RUN ON A GPU: the kernels are NVRTC-compiled in CI
(tests/test_nvrtc.py) and the differential checks are prepared
(benchmarks/gpu_check.py, tests/test_cupy.py), but no GPU has been available.
Every kernel's logic has run on the host (tests/test_cupy_emulated.py: the
RawKernels, and the Elementwise/ReductionKernels through host stand-ins for
CuPy's classes).
"""

from __future__ import annotations

import math
import warnings

try:
    import cupy
except ImportError as _e:  # pragma: no cover - depends on the environment
    raise ImportError(
        "numreduce.cupy needs CuPy, which is not installed "
        f"({_e}); install a CuPy wheel for your CUDA (e.g. pip install cupy-cuda12x)"
    ) from None


def _device_count():
    try:
        return cupy.cuda.runtime.getDeviceCount(), None
    except Exception as e:  # CUDARuntimeError: no driver, insufficient driver, no device
        return 0, e


_n, _why = _device_count()
if _n == 0:
    raise ImportError(
        f"numreduce.cupy needs a CUDA device: CuPy {cupy.__version__} is installed but "
        + (f"cupy.cuda.runtime.getDeviceCount() failed ({_why})" if _why is not None
           else "no CUDA device is visible")
    )

import numpy as np  # noqa: E402

from . import _core  # noqa: E402
from . import _cupy_source as _src  # noqa: E402
from ._args import axis_index, check_where, inplace_outs, keepdims_flag, normalize_axes  # noqa: E402
from ._engine import NoValue, _parse_initial, _resolve_outs  # noqa: E402

__all__ = list(_src.TRAITS) + ["minmax", "nanminmax", "argminmax", "nanargminmax", "meanvar",
                               "meanstd", "nanmeanvar", "logsumexp", "fsum", "reduce",
                               "accumulate", "merge", "is_cupy_array", "reduceat",
                               "segmented_reduce", "reduce_by_group", "at", "group_minmax",
                               "group_argminmax",
                               "group_meanvar", "group_logsumexp", "group_fsum", "cumminmax",
                               "nancumminmax", "logcumsumexp", "cumfsum", "cummeanvar"]

_ndarray = cupy.ndarray
_KERNELS: dict = {}
_WITH_INITIALS = {"moments", "nanmoments", "maxsumexp", "twosum"}


def is_cupy_array(x) -> bool:
    return isinstance(x, _ndarray)


def _kernel(kind, name, char, where=False):
    key = (kind, name, char, where)
    k = _KERNELS.get(key)
    if k is None:
        if kind == "elementwise":
            p = _src.elementwise_parts(name, char)
            k = cupy.ElementwiseKernel(p["in_params"], p["out_params"], p["operation"],
                                       name=p["name"], preamble=p["preamble"],
                                       options=p["options"])
        else:
            p = (_src.arg_reduction_parts(name, char) if kind == "arg"
                 else _src.reduction_parts(name, char, where))
            k = cupy.ReductionKernel(p["in_params"], p["out_params"], p["map_expr"],
                                     p["reduce_expr"], p["post_map_expr"], p["identity"],
                                     name=p["name"], reduce_type=p["reduce_type"],
                                     preamble=p["preamble"], options=p["options"])
        _KERNELS[key] = k
    return k


def _raw_kernel(name, char):
    key = ("accumulate", name, char, False)
    k = _KERNELS.get(key)
    if k is None:
        code, kname = _src.accumulate_source(name, char)
        k = _KERNELS[key] = cupy.RawKernel(code, kname, options=("-I" + _src.include_dir(),))
    return k


def _merge_kernel(name, char):
    key = ("merge", name, char, False)
    k = _KERNELS.get(key)
    if k is None:
        p = _src.merge_parts(name, char)
        k = _KERNELS[key] = cupy.ElementwiseKernel(p["in_params"], p["out_params"],
                                                   p["operation"], name=p["name"],
                                                   preamble=p["preamble"], options=p["options"])
    return k


def _device_array(x, what, name):
    """A CuPy array for an operand; NumPy arrays (and other array objects)
    are refused: no silent host<->device copies."""
    if isinstance(x, _ndarray):
        return x
    if isinstance(x, (bool, int, float, complex, np.generic)):
        return cupy.asarray(x)
    raise TypeError(f"numreduce.cupy.{name}: {what} is a {type(x).__module__}."
                    f"{type(x).__name__}, not a cupy.ndarray (mixing NumPy and CuPy inputs is "
                    "not supported: move it with cupy.asarray or .get() first)")


def _device_outs(out, nout, name):
    if out is None:
        return (None,) * nout
    if type(out) is not tuple or len(out) != nout:
        raise TypeError(f"numreduce.cupy.{name}: out must be a tuple of {nout} arrays "
                        "(or None entries)")
    for i, o in enumerate(out):
        if o is not None and not isinstance(o, _ndarray):
            raise TypeError(f"numreduce.cupy.{name}: out[{i}] is a {type(o).__name__}, "
                            "not a cupy.ndarray")
    return out


def _check_device_outs(outs, shape, name):
    """_args.check_outs for CuPy outputs (the same rules and messages: exactly
    the result's shape, no two sharing memory; CuPy arrays are writeable)."""
    given = []
    for i, o in enumerate(outs):
        if o is None:
            continue
        if o.shape != shape:
            raise ValueError(f"{name}: out[{i}] has shape {o.shape}, but the result has shape "
                             f"{shape}")
        for j, p in given:
            if cupy.shares_memory(o, p):
                raise ValueError(f"{name}: out[{j}] and out[{i}] share memory; every output "
                                 "needs its own array")
        given.append((i, o))


def _device_char(dt, name):
    c = np.dtype(dt).char
    if c not in _src.DEVICE_TYPES:
        raise TypeError(f"numreduce.cupy.{name}: dtype {np.dtype(dt)} has no device loop")
    return c


def _into(results, outs, name):
    """Results written into the given out entries (a same-kind cast, as the
    CPU path's check_out_dtypes allowed)."""
    final = []
    for r, o in zip(results, outs):
        if o is None or o is r:
            final.append(r)
        else:
            cupy.copyto(o, r, casting="unsafe")
            final.append(o)
    return tuple(final)


class DeviceUFunc:
    """One numreduce ufunc on CuPy arrays (same name, nin = 2, nout)."""

    def __init__(self, name):
        self.__name__ = name
        self.cpu = getattr(_core, name)
        self.nout = _src.TRAITS[name][2]
        self.nin = 2
        self.__doc__ = f"numreduce.{name} on CuPy arrays (ElementwiseKernel; .reduce: " \
                       "ReductionKernel).\n\n" + (self.cpu.__doc__ or "")

    def __repr__(self):
        return f"<numreduce.cupy ufunc {self.__name__!r}>"

    def __call__(self, x1, x2, out=None, dtype=None):
        name = self.__name__
        x1 = _device_array(x1, "x1", name)
        x2 = _device_array(x2, "x2", name)
        outs = _device_outs(out, self.nout, name)
        sig = None if dtype is None else np.dtype(dtype)
        res = self.cpu.resolve_dtypes((x1.dtype, x2.dtype) + (None,) * self.nout,
                                      signature=(None, None) + (sig,) * self.nout,
                                      casting="unsafe")
        in_dt, out_dt = res[0], res[2]
        char = _device_char(in_dt, name)
        shape = cupy.broadcast_shapes(x1.shape, x2.shape)
        for i, o in enumerate(outs):
            if o is not None and not np.can_cast(out_dt, o.dtype, casting="same_kind"):
                raise TypeError(f"numreduce.cupy.{name}: cannot cast output {i} from "
                                f"{out_dt} to {o.dtype} with casting rule 'same_kind'")
        direct = [o if o is not None and o.dtype == out_dt and o.shape == shape else None
                  for o in outs]
        work = [d if d is not None else cupy.empty(shape, out_dt) for d in direct]
        _kernel("elementwise", name, char)(x1.astype(in_dt, copy=False),
                                           x2.astype(in_dt, copy=False), *work)
        return _into(work, outs, name)

    def reduce(self, a, axis=0, dtype=None, out=None, keepdims=False, initial=NoValue,
               where=True):
        return _reduce(self, a, axis, dtype, out, keepdims, initial, where)


def _reduce(u, a, axis, dtype, out, keepdims, initial, where):
    name, nout = u.__name__, u.nout
    a = _device_array(a, "the array", name)
    keepdims = keepdims_flag(keepdims)
    outs = _device_outs(out, nout, name)
    axes = normalize_axes(axis, a.ndim)
    mode, initials = _parse_initial(initial, nout)
    mask = _device_where(where, a.shape, name, contiguous=False)
    shape = tuple(1 if i in axes else n for i, n in enumerate(a.shape)) if keepdims \
        else tuple(n for i, n in enumerate(a.shape) if i not in axes)
    if any(o is not None for o in outs):
        _check_device_outs(outs, shape, name)
    descrs = _resolve_outs(u.cpu, a.dtype, outs, dtype, nout, name)
    in_dt, out_dt = descrs[0], descrs[1]
    char = _device_char(in_dt, name)
    n_reduced = math.prod(a.shape[i] for i in axes)
    has_initials = name in _WITH_INITIALS
    if mode == 1 and has_initials:
        return _reduce_copy_first(u, a, axes, shape, keepdims, outs, mask, n_reduced, in_dt,
                                  out_dt, char)
    if not has_initials and mode != 2:
        if mask is not None:
            raise ValueError(f"reduction operation '{name}' does not have an identity, so to "
                             "use a where mask one has to specify 'initial'")
        if n_reduced == 0 and a.size == 0:
            raise ValueError(f"zero-size array to reduction operation {name} which has no "
                             "identity")
    kmode = 2 if mode == 2 else (3 if n_reduced == 0 else 0)
    scalar = np.dtype(out_dt).type
    inits = [scalar(v) for v in initials] if mode == 2 else [scalar(0)] * nout
    direct = [o if o is not None and o.dtype == out_dt else None for o in outs]
    work = [d if d is not None else cupy.empty(shape, out_dt) for d in direct]
    args = [a.astype(in_dt, copy=False)] + ([mask] if mask is not None else [])
    _kernel("reduce", name, char, mask is not None)(*args, np.int32(kmode), *inits, *work,
                                                   axis=tuple(axes), keepdims=keepdims)
    return _into(work, outs, name)


def _reduce_copy_first(u, a, axes, shape, keepdims, outs, mask, n_reduced, in_dt, out_dt,
                       char):
    """reduce with initial=None for the ufuncs with initials: NumPy's copy of
    the first element (index 0 along every reduced axis) into every output,
    the remaining elements folded into it (_core._reduce's mode 1).  On the
    device: the copy (a cast, as PyArray_CopyInto from the input's dtype),
    the other elements reduced from the traits' initials (the ReductionKernel
    with a broadcast mask that leaves out the first slice) and the two
    states combined (the merge kernel): combine(copy, rest), as the CPU's
    contiguous loops fold a block into the accumulator.  The errors of the
    NumPy path: no identity, so where= and empty reductions are refused."""
    name = u.__name__
    if mask is not None:
        raise ValueError(f"reduction operation '{name}' does not have an identity, so to use "
                         "a where mask one has to specify 'initial'")
    if n_reduced == 0:
        raise ValueError(f"zero-size array to reduction operation {name} which has no "
                         "identity")
    first = a[tuple(slice(0, 1) if i in axes else slice(None) for i in range(a.ndim))] \
        if a.ndim else a
    seeds = [first.astype(out_dt).reshape(shape) for _ in range(u.nout)]
    if n_reduced == 1:  # nothing else to fold: the copy itself (signed zeros kept)
        return _into(seeds, outs, name)
    skip = cupy.ones(tuple(n if i in axes else 1 for i, n in enumerate(a.shape)), np.bool_)
    skip[(0,) * a.ndim] = False
    skip = cupy.broadcast_to(skip, a.shape)
    scalar = np.dtype(out_dt).type
    rest = [cupy.empty(shape, out_dt) for _ in range(u.nout)]
    _kernel("reduce", name, char, True)(a.astype(in_dt, copy=False), skip, np.int32(0),
                                        *[scalar(0)] * u.nout, *rest, axis=tuple(axes),
                                        keepdims=keepdims)
    direct = [o if o is not None and o.dtype == out_dt else None for o in outs]
    work = [d if d is not None else cupy.empty(shape, out_dt) for d in direct]
    _merge_kernel(name, np.dtype(out_dt).char)(*seeds, *rest, *work)
    return _into(work, outs, name)


def accumulate(ufunc, array, axis=0, dtype=None, out=None):
    """``numreduce.accumulate`` for CuPy arrays: every output's running
    reduction along one axis (a RawKernel, one thread per position of the
    other axes)."""
    from ._args import one_axis
    name = _ufunc_name(ufunc, "accumulate")
    u = globals()[name]
    label = f"accumulate({name})"
    outs = _device_outs(out, u.nout, label)
    a = _device_array(array, "the array", label)
    ax = one_axis(axis, a, label, "accumulate on")
    if any(o is not None for o in outs):
        _check_device_outs(outs, a.shape, label)
    descrs = _resolve_outs(u.cpu, a.dtype, outs, dtype, u.nout, label)
    char = _device_char(descrs[0], label)
    n = a.shape[ax]
    x = cupy.ascontiguousarray(cupy.moveaxis(a.astype(descrs[0], copy=False), ax, 0))
    cols = x.size // n if n else 0
    work = [cupy.empty(x.shape, descrs[1]) for _ in range(u.nout)]
    if x.size:
        threads = 256
        _raw_kernel(name, char)(((cols + threads - 1) // threads,), (threads,),
                                (x, *work, np.int64(n), np.int64(cols)))
    res = tuple(cupy.moveaxis(w, 0, ax) for w in work)
    return _into(res, outs, label)


# ---------------------------------------------------------------------------
# the cumulative user functions: accumulate on the device, finished as the
# NumPy path finishes (numreduce._cumulative's dtype rules)
# ---------------------------------------------------------------------------

def _scan_input(name, x, axis):
    from ._cumulative import scan_axis
    return scan_axis(name, _device_array(x, "x", name), axis)


def _scan_result(name, values, ax, out, include_initial, initial):
    """The result (``out`` checked first: exactly the result's shape, a
    dtype the result casts into) with ``include_initial``'s first slice."""
    from ._args import check_out_dtypes
    shape = list(values.shape)
    shape[ax] += include_initial
    shape = tuple(shape)
    if out is not None:
        if not isinstance(out, _ndarray):
            raise TypeError(f"numreduce.cupy.{name}: out must be a cupy.ndarray, not "
                            f"{type(out).__module__}.{type(out).__name__}")
        _check_device_outs((out,), shape, name)
        check_out_dtypes((out,), (values.dtype,), name)
    if include_initial:
        head = list(values.shape)
        head[ax] = 1
        values = cupy.concatenate([cupy.full(tuple(head), initial, dtype=values.dtype), values],
                                  axis=ax)
    if out is None:
        return values
    cupy.copyto(out, values, casting="unsafe")
    return out


def cumminmax(x, *, axis=None, dtype=None, out=None):
    """``numreduce.cumminmax`` for CuPy arrays (accumulate(minimummaximum))."""
    a, ax = _scan_input("cumminmax", x, axis)
    return accumulate(_core.minimummaximum, a, axis=ax, dtype=dtype, out=out)


def nancumminmax(x, *, axis=None, dtype=None, out=None):
    """``numreduce.nancumminmax`` for CuPy arrays (accumulate(fminfmax))."""
    a, ax = _scan_input("nancumminmax", x, axis)
    return accumulate(_core.fminfmax, a, axis=ax, dtype=dtype, out=out)


def logcumsumexp(x, *, axis=None, dtype=None, out=None, include_initial=False):
    """``numreduce.logcumsumexp`` for CuPy arrays: accumulate(maxsumexp),
    then ``m + log1p(t)``."""
    from ._cumulative import _include_initial_arg, logcumsumexp_dtype
    name = "logcumsumexp"
    a, ax = _scan_input(name, x, axis)
    include_initial = _include_initial_arg(name, include_initial)
    rdt = logcumsumexp_dtype(name, a.dtype, dtype)
    mx, t = accumulate(_core.maxsumexp, a, axis=ax)
    return _scan_result(name, (mx + cupy.log1p(t)).astype(rdt, copy=False), ax, out,
                        include_initial, -np.inf)


def cumfsum(x, *, axis=None, dtype=None, out=None, include_initial=False):
    """``numreduce.cumfsum`` for CuPy arrays: accumulate(twosum), then
    ``s + e`` where finite; complex data: the real and imaginary parts each
    compensated."""
    from ._cumulative import _include_initial_arg, cumfsum_dtypes
    name = "cumfsum"
    a, ax = _scan_input(name, x, axis)
    include_initial = _include_initial_arg(name, include_initial)
    acc, rdt = cumfsum_dtypes(name, a.dtype, dtype)
    _no_long_double(name, rdt)
    sums = []
    for part in _real_parts(a):
        s_, e = accumulate(_core.twosum, part, axis=ax, dtype=acc)
        sums.append(_fsum_finish(s_, e))
    res = _complex(sums[0], sums[1], np.result_type(rdt, np.complex64)) if len(sums) == 2 \
        else sums[0]
    return _scan_result(name, res.astype(rdt, copy=False), ax, out, include_initial, 0)


def cummeanvar(x, *, axis=None, dtype=None, ddof=0, out=None):
    """``numreduce.cummeanvar`` for CuPy arrays: accumulate(moments), then
    the running mean and ``M2 / (count - ddof)``; complex data: the real and
    imaginary parts apart, the variance the sum of their M2."""
    from ._api import _ddof_arg, _result_dtype
    name = "cummeanvar"
    a, ax = _scan_input(name, x, axis)
    ddof = _ddof_arg(name, ddof)
    mean_dt, var_dt = _result_dtype(name, a.dtype, dtype)
    _no_long_double(name, mean_dt, var_dt)
    if out is not None:
        if not isinstance(out, tuple) or len(out) != 2:
            raise TypeError(f"{name}: out must be a tuple of two arrays (or None entries), "
                            f"got {type(out).__name__}")
        for o in out:
            if o is not None and not isinstance(o, _ndarray):
                raise TypeError(f"numreduce.cupy.{name}: out must hold cupy.ndarrays")
        _check_device_outs(out, a.shape, name)
        from ._args import check_out_dtypes
        check_out_dtypes(out, (mean_dt, var_dt), name)
    n = a.shape[ax]
    if 0 < n <= ddof and a.size:
        warnings.warn("Degrees of freedom <= 0 for slice", RuntimeWarning, stacklevel=2)
    states = [accumulate(_core.moments, p, axis=ax)
              for p in _real_parts(a)]
    m2 = states[0][2] if len(states) == 1 else states[0][2] + states[1][2]
    mean, var = _finish_device_meanvar(states[0][0], [st[1] for st in states], m2, mean_dt,
                                       var_dt, ddof, False, False)
    if out is None:
        return mean, var
    res = []
    for o, r in zip(out, (mean, var)):
        if o is None:
            res.append(r)
        else:
            cupy.copyto(o, r, casting="unsafe")
            res.append(o)
    return tuple(res)


def merge(ufunc, states_a, states_b, out=None):
    """``numreduce.merge`` for CuPy states: combine(a, b) elementwise, with
    broadcasting (an ElementwiseKernel over the 2 * nout state arrays)."""
    name = _ufunc_name(ufunc, "merge")
    u = globals()[name]
    label = f"merge({name})"
    for what, st in (("states_a", states_a), ("states_b", states_b)):
        if type(st) is not tuple or len(st) != u.nout:
            raise TypeError(f"{label}: {what} must be a tuple of {u.nout} arrays")
    sa = [_device_array(x, "states_a", label) for x in states_a]
    sb = [_device_array(x, "states_b", label) for x in states_b]
    dt = np.result_type(*[x.dtype for x in sa + sb])
    char = _device_char(dt, label)
    if _src.loop_types(name).get(char) != char:
        raise TypeError(f"{label}: states of dtype {dt} are not {name} accumulators")
    shape = cupy.broadcast_shapes(*[x.shape for x in sa + sb])
    outs = _device_outs(out, u.nout, label)
    _check_device_outs(outs, shape, label)
    work = [o if o is not None and o.dtype == dt else cupy.empty(shape, dt) for o in outs]
    _merge_kernel(name, char)(*[x.astype(dt, copy=False) for x in sa + sb], *work)
    return _into(work, outs, label)


def _ufunc_name(ufunc, method):
    name = getattr(ufunc, "__name__", None)
    if name not in _src.TRAITS or (getattr(_core, name) is not ufunc
                                   and globals().get(name) is not ufunc):
        raise TypeError(f"numreduce.cupy.{method}: {ufunc!r} is not a numreduce multi-output "
                        "ufunc")
    return name


for _name in _src.TRAITS:
    globals()[_name] = DeviceUFunc(_name)
del _name


def reduce(ufunc, array, axis=0, dtype=None, out=None, keepdims=False, initial=NoValue,
           where=True):
    """``numreduce.reduce`` for CuPy arrays (numreduce's ufuncs only)."""
    name = _ufunc_name(ufunc, "reduce")
    return globals()[name].reduce(array, axis=axis, dtype=dtype, out=out, keepdims=keepdims,
                                  initial=initial, where=where)


def minmax(a, axis=None, out=None, keepdims=False, initial=NoValue, where=True):
    """``numreduce.minmax`` on the GPU: (min, max), NaN-propagating."""
    return globals()["minimummaximum"].reduce(a, axis=axis, out=out, keepdims=keepdims,
                                              initial=initial, where=where)


def nanminmax(a, axis=None, out=None, keepdims=False, initial=NoValue, where=True):
    """``numreduce.nanminmax`` on the GPU (All-NaN slice warning as NumPy)."""
    res = globals()["fminfmax"].reduce(a, axis=axis, out=out, keepdims=keepdims,
                                       initial=initial, where=where)
    if res[0].dtype.kind in "fc" and bool(cupy.isnan(res[0]).any()):
        warnings.warn("All-NaN slice encountered", RuntimeWarning, stacklevel=2)
    return res


def _arg(a, axis, keepdims, out, name):
    a = _device_array(a, "the array", name)
    keepdims = keepdims_flag(keepdims)
    char = _device_char(a.dtype, name)
    zero_d = a.ndim == 0
    if zero_d:
        a = a.reshape(1)
    if axis is None:
        x, axes = a.reshape(-1), (0,)
        shape = (1,) * a.ndim if keepdims else ()
    else:
        ax = axis_index(axis, a.ndim)
        x, axes = a, (ax,)
        shape = tuple(1 if i == ax else n for i, n in enumerate(a.shape)) if keepdims \
            else tuple(n for i, n in enumerate(a.shape) if i != ax)
    if zero_d:
        shape = ()
    outs = _device_outs(out, 2, name)
    _check_device_outs(outs, shape, name)
    for i, o in enumerate(outs):
        if o is not None and not np.can_cast(o.dtype, np.intp, casting="safe"):
            raise TypeError(f"{name}: cannot store indices in out[{i}] of dtype {o.dtype}")
    if x.shape[axes[0]] == 0:
        raise ValueError("attempt to get argmin of an empty sequence")
    lo = cupy.empty(shape, np.int64)
    hi = cupy.empty(shape, np.int64)
    kshape = tuple(n for i, n in enumerate(x.shape) if i != axes[0])
    _kernel("arg", name, char)(x, lo.reshape(kshape), hi.reshape(kshape), axis=axes)
    if name == "nanargminmax" and bool((lo < 0).any()):
        raise ValueError("All-NaN slice encountered")
    return _into((lo, hi), outs, name)


def argminmax(a, axis=None, keepdims=False, out=None):
    """``numreduce.argminmax`` on the GPU: first occurrences, first NaN wins."""
    return _arg(a, axis, keepdims, out, "argminmax")


def nanargminmax(a, axis=None, keepdims=False, out=None):
    """``numreduce.nanargminmax`` on the GPU (ValueError for an all-NaN slice)."""
    return _arg(a, axis, keepdims, out, "nanargminmax")


def _meanvar(name, a, axis, dtype, ddof, keepdims, where, std, nan=False):
    from ._api import _ddof_arg, _result_dtype
    a = _device_array(a, "the array", name)
    ddof = _ddof_arg(name, ddof)
    mean_dt, var_dt = _result_dtype(name, a.dtype, dtype, nan)
    _no_long_double(name, mean_dt, var_dt)
    skip = nan and a.dtype.kind in "fc"
    ufunc = globals()["nanmoments" if skip else "moments"]
    if axis is None:
        axis = tuple(range(a.ndim))
    # complex data: the real and imaginary parts' moments (the NumPy path's
    # _moment_parts); NaN-skipping skips an element whose real or imaginary
    # part is NaN in both parts
    parts = [a]
    if a.dtype.kind == "c":
        parts = [a.real, a.imag]
        if skip:
            bad = cupy.isnan(a)
            if bool(bad.any()):
                parts = [cupy.where(bad, np.nan, p) for p in parts]
    states = [ufunc.reduce(p, axis=axis, keepdims=keepdims, where=where) for p in parts]
    m2 = states[0][2] if len(states) == 1 else states[0][2] + states[1][2]
    return _finish_device_meanvar(states[0][0], [s[1] for s in states], m2, mean_dt, var_dt,
                                  ddof, std, skip)


def _finish_device_meanvar(count, means, m2, mean_dt, var_dt, ddof, std, nan_dof):
    """(mean, var or std) from (count, one mean per real part, M2), as
    _api._finish_meanvar."""
    if bool((count == 0).any()):
        warnings.warn("Mean of empty slice.", RuntimeWarning, stacklevel=4)
    dof = cupy.maximum(count - ddof, 0)
    if bool((dof <= 0).any()):
        warnings.warn("Degrees of freedom <= 0 for slice" + ("." if nan_dof else ""),
                      RuntimeWarning, stacklevel=4)
    means = [cupy.where(count > 0, m, cupy.nan) for m in means]
    var = m2 / dof
    if nan_dof:
        var = cupy.where(dof > 0, var, cupy.nan)
    if std:
        var = cupy.sqrt(var)
    if len(means) == 2:
        # np.mean divides the complex sum by the count as a complex number:
        # an inf or NaN in one part makes the other NaN (inf * 0)
        re, im = means[0] + means[1] * 0, means[1] - means[0] * 0
        mean = _complex(re, im, mean_dt)
    else:
        mean = means[0].astype(mean_dt, copy=False)
    return mean, var.astype(var_dt, copy=False)


def _real_parts(a):
    """a, or the real and imaginary parts of complex a (the NumPy path's
    parts: reduced apart by the real kernels)."""
    return [a.real, a.imag] if a.dtype.kind == "c" else [a]


def _fsum_finish(s, e):
    """s + e of twosum states (s where the sum is not finite or exact), as
    _api._fsum_finish."""
    return cupy.where(cupy.isfinite(s) & (e != 0), s + e, s).astype(s.dtype, copy=False)


def _no_long_double(name, *dtypes):
    """TypeError for a long double result dtype (``dtype=``): no device type."""
    for dt in dtypes:
        if dt is not None and np.dtype(dt).kind in "fc" and \
                np.finfo(dt).dtype.itemsize > 8:
            raise TypeError(f"numreduce.cupy.{name}: dtype {np.dtype(dt)} (long double) has "
                            "no device type")


def _complex(re, im, dt):
    """The complex array re + i im of dtype dt (no arithmetic on the parts:
    1j * inf would be NaN + inf j)."""
    res = cupy.empty(re.shape, dt)
    res.real[...] = re
    res.imag[...] = im
    return res


def meanvar(a, axis=None, dtype=None, ddof=0, keepdims=False, where=True):
    """``numreduce.meanvar`` on the GPU (float64 accumulation for float32 data)."""
    return _meanvar("meanvar", a, axis, dtype, ddof, keepdims, where, std=False)


def meanstd(a, axis=None, dtype=None, ddof=0, keepdims=False, where=True):
    """``numreduce.meanstd`` on the GPU."""
    return _meanvar("meanstd", a, axis, dtype, ddof, keepdims, where, std=True)


def nanmeanvar(a, axis=None, dtype=None, ddof=0, keepdims=False, where=True):
    """``numreduce.nanmeanvar`` on the GPU."""
    return _meanvar("nanmeanvar", a, axis, dtype, ddof, keepdims, where, std=False, nan=True)


def logsumexp(a, axis=None, keepdims=False):
    """``numreduce.logsumexp`` on the GPU: m + log1p(t) of one maxsumexp pass."""
    a = _device_array(a, "the array", "logsumexp")
    if a.dtype.kind == "c":  # SciPy's complex rules: the NumPy path's array code, on CuPy
        from ._api import _logsumexp_complex
        return _logsumexp_complex(a, axis, keepdims, xp=cupy)
    if a.dtype.kind not in "biuf":
        raise TypeError(f"numreduce.cupy.logsumexp: unsupported dtype {a.dtype}")
    if axis is None:
        axis = tuple(range(a.ndim))
    mx, t = globals()["maxsumexp"].reduce(a, axis=axis, keepdims=keepdims)
    res = mx + cupy.log1p(t)
    return res.astype(a.dtype if a.dtype.kind == "f" else np.float64, copy=False)


def fsum(a, axis=None, dtype=None, keepdims=False):
    """``numreduce.fsum`` on the GPU: compensated (TwoSum) sum s + e; complex
    data sum their real and imaginary parts, each compensated."""
    from ._api import _fsum_dtype
    a = _device_array(a, "the array", "fsum")
    acc, rdt = _fsum_dtype(a.dtype, dtype)
    _no_long_double("fsum", rdt)
    if axis is None:
        axis = tuple(range(a.ndim))
    sums = []
    for part in _real_parts(a):
        s, e = globals()["twosum"].reduce(part, axis=axis, dtype=acc, keepdims=keepdims)
        sums.append(_fsum_finish(s, e))
    if rdt is None:
        return sums[0]
    if len(sums) == 2:
        return _complex(sums[0], sums[1], rdt)
    return sums[0].astype(rdt, copy=False)


# ---------------------------------------------------------------------------
# Segments and groups: reduceat, segmented_reduce, reduce_by_group, at and the
# grouped user functions, on one RawKernel per (ufunc, dtype)
# (_cupy_source.segments_source: one thread per output slot walks its
# segment).  The argument rules and messages are the NumPy path's
# (numreduce/_segments.py, numreduce/_groups.py); every check runs before
# the kernel writes, into new arrays, copied into out= at the end.
# ---------------------------------------------------------------------------

def _segments_kernel(name, char):
    key = ("segments", name, char, False)
    k = _KERNELS.get(key)
    if k is None:
        code, kname = _src.segments_source(name, char)
        k = _KERNELS[key] = cupy.RawKernel(code, kname, options=("-I" + _src.include_dir(),))
    return k


def _device_where(where, shape, label, contiguous=True):
    """where= as _args.where_mask for CuPy (the same rules: check_where):
    True -> None, else a boolean CuPy array broadcast to `shape` (a NumPy
    mask is refused: mixed inputs); a contiguous copy for the RawKernels,
    a broadcast view for the ReductionKernel."""
    if where is True:
        return None
    w = _device_array(where, "where", label)
    check_where(w.dtype, w.shape, shape)
    w = cupy.broadcast_to(w, shape)
    return cupy.ascontiguousarray(w) if contiguous else w


def _seed_scalars(initials, descrs, label):
    """initial= values cast into the output dtypes as the NumPy path casts them."""
    from ._segments import seed_values
    return [b[()] for b in seed_values(initials, descrs, label)]


def _launch_segments(name, descrs, x, mask, perm, starts, stops, shape3, mode, seeds=None,
                     seed_arrays=None, empty_unseen=False):
    """Run the segments kernel: x a C-contiguous (outer, n, inner) CuPy block
    of the stream dtype, starts/stops int64 CuPy arrays (nseg,), perm an int64
    CuPy array or None; returns nout new arrays (outer, nseg, inner)."""
    outer, n, inner = shape3
    nseg = int(starts.shape[0])
    nout = _src.TRAITS[name][2]
    out_dt = np.dtype(descrs[1])
    work = [cupy.empty((outer, nseg, inner), out_dt) for _ in range(nout)]
    total = outer * nseg * inner
    if total == 0:
        return work
    dummy = cupy.empty(1, np.int64)
    flags = ((_src.SEG_WHERE if mask is not None else 0)
             | (_src.SEG_PERM if perm is not None else 0)
             | (_src.SEG_EMPTY_UNSEEN if empty_unseen else 0))
    scal = np.dtype(out_dt).type
    inits = [scal(v) for v in seeds] if seeds is not None else [scal(0)] * nout
    sarr = list(seed_arrays) if seed_arrays is not None else [work[0]] * nout
    threads = 256
    _segments_kernel(name, np.dtype(descrs[0]).char)(
        ((total + threads - 1) // threads,), (threads,),
        (x, mask if mask is not None else dummy, perm if perm is not None else dummy,
         starts, stops, *work, *sarr, np.int32(mode), *inits, np.uint32(flags),
         np.int64(outer), np.int64(n), np.int64(inner), np.int64(nseg)))
    return work


def _block(a, ax, stream_dt):
    shape3 = (math.prod(a.shape[:ax]), a.shape[ax], math.prod(a.shape[ax + 1:]))
    return cupy.ascontiguousarray(a.astype(stream_dt, copy=False)), shape3


def _device_start(u, a, outs, shape, dtype, mode, initials, label):
    """The checks and start values shared by the segment and group methods:
    the given outs against `shape`, the loop's descriptors, the seeds of a
    given `initial` and whether the reduction has an identity: initials of
    its own, and no initial=None (mode 1; the kernel then runs it as mode 0
    -- a segment starts from the traits' initials where there are any, as
    the CPU loops do -- after empty segments and where= are refused)."""
    if any(o is not None for o in outs):
        _check_device_outs(outs, shape, label)
    descrs = _resolve_outs(u.cpu, a.dtype, outs, dtype, u.nout, label)
    _device_char(descrs[0], label)
    seeds = _seed_scalars(initials, descrs, label) if mode == 2 else None
    has_identity = mode != 1 and u.__name__ in _WITH_INITIALS
    return descrs, seeds, has_identity


def _segments_run(u, label, a, ax, lo, hi, dtype, outs, mode=0, initials=None, where=True):
    """_segments._run on the device: lo/hi are the host (NumPy intp) bounds."""
    name = u.__name__
    nseg = lo.shape[0]
    shape = a.shape[:ax] + (nseg,) + a.shape[ax + 1:]
    mask = _device_where(where, a.shape, label)
    descrs, seeds, has_identity = _device_start(u, a, outs, shape, dtype, mode, initials, label)
    seeded = mode == 2 or has_identity
    if mask is not None and not seeded:
        raise ValueError(f"reduction operation '{name}' does not have an identity, "
                         "so to use a where mask one has to specify 'initial'")
    if not seeded:
        empty = np.flatnonzero(hi <= lo)
        if empty.size:
            s = int(empty[0])
            raise ValueError(f"{label}: segment {s} ([{int(lo[s])}:{int(hi[s])}] along "
                             f"axis {ax}) is empty and {name} has no identity; "
                             "pass 'initial' for empty segments")
    x, shape3 = _block(a, ax, descrs[0])
    work = _launch_segments(name, descrs, x, mask, None, cupy.asarray(lo, np.int64),
                            cupy.asarray(hi, np.int64), shape3, 2 if mode == 2 else 0, seeds)
    return _into(tuple(w.reshape(shape) for w in work), outs, label)


def _host_offsets(v, label, arg):
    """Offsets (indices, starts, stops) as host values: a CuPy array is
    copied to the host (len(segments) values, not data); a NumPy array is
    refused (mixed inputs); Python sequences as the NumPy path takes them."""
    if isinstance(v, _ndarray):
        return v.get()
    if isinstance(v, np.ndarray):
        raise TypeError(f"numreduce.cupy.{label}: '{arg}' is a numpy.ndarray, not a "
                        "cupy.ndarray (mixing NumPy and CuPy inputs is not supported: pass a "
                        "CuPy array or a Python sequence)")
    return v


def reduceat(ufunc, array, indices, axis=0, dtype=None, out=None):
    """``numreduce.reduceat`` on the GPU (``ufunc.reduceat``'s index rules)."""
    name = _ufunc_name(ufunc, "reduceat")
    u = globals()[name]
    label = f"reduceat({name})"
    outs = _device_outs(out, u.nout, label)
    a = _device_array(array, "the array", label)
    from ._args import one_axis
    ax = one_axis(axis, a, label, "reduceat on")
    indices = _host_offsets(indices, label, "indices")
    from ._segments import reduceat_bounds
    idx, stops = reduceat_bounds(indices, a.shape[ax], label, name)
    return _segments_run(u, label, a, ax, idx, stops, dtype, outs)


def segmented_reduce(ufunc, array, starts, stops, axis=0, dtype=None, out=None,
                     initial=NoValue, where=True):
    """``numreduce.segmented_reduce`` on the GPU (slice-bound semantics)."""
    from ._args import one_axis
    from ._segments import _offsets
    name = _ufunc_name(ufunc, "segmented_reduce")
    u = globals()[name]
    label = f"segmented_reduce({name})"
    outs = _device_outs(out, u.nout, label)
    a = _device_array(array, "the array", label)
    ax = one_axis(axis, a, label, "segmented_reduce on")
    n = a.shape[ax]
    lo = _offsets(_host_offsets(starts, label, "starts"), n, label, "starts")
    hi = _offsets(_host_offsets(stops, label, "stops"), n, label, "stops")
    if lo.shape != hi.shape:
        raise ValueError(f"{label}: 'starts' and 'stops' must have the same length, got "
                         f"{lo.shape[0]} and {hi.shape[0]}")
    mode, initials = _parse_initial(initial, u.nout)
    return _segments_run(u, label, a, ax, lo, hi, dtype, outs, mode, initials, where)


def _group_segments(ids64, g):
    """The two-phase layout of the grouped methods: the stable sort of the ids
    (perm) and each group's [start, stop) in it."""
    perm = cupy.argsort(ids64)  # stable: a group's elements keep their order
    srt = ids64[perm]
    grid = cupy.arange(g, dtype=np.int64)
    starts = cupy.searchsorted(srt, grid, side="left").astype(np.int64, copy=False)
    stops = cupy.searchsorted(srt, grid, side="right").astype(np.int64, copy=False)
    return perm.astype(np.int64, copy=False), starts, stops


def reduce_by_group(ufunc, array, group_ids, num_groups=None, axis=0, dtype=None, out=None,
                    initial=NoValue, where=True):
    """``numreduce.reduce_by_group`` on the GPU: group ids sorted (stable),
    then one thread per output slot reduces its group's run."""
    from ._args import one_axis
    from ._groups import _num_groups, check_group_ids
    name = _ufunc_name(ufunc, "reduce_by_group")
    u = globals()[name]
    nout = u.nout
    label = f"reduce_by_group({name})"
    outs = _device_outs(out, nout, label)
    a = _device_array(array, "the array", label)
    ax = one_axis(axis, a, label, "group")
    ids = _device_array(group_ids, "group_ids", label)
    check_group_ids(ids.dtype, ids.shape, a.shape[ax], label)
    g = _num_groups(num_groups, ids, label)
    mode, initials = _parse_initial(initial, nout)
    mask = _device_where(where, a.shape, label)
    shape = a.shape[:ax] + (g,) + a.shape[ax + 1:]
    descrs, seeds, has_identity = _device_start(u, a, outs, shape, dtype, mode, initials, label)
    no_start = mode != 2 and not has_identity
    if mask is not None and no_start:
        raise ValueError(f"{label}: reduction operation '{name}' does not have an "
                         "identity, so to use a where mask one has to specify 'initial'")
    n = a.shape[ax]
    if n:
        bad = (ids < 0) | (ids >= g) if ids.dtype.kind == "i" else ids >= g
        if bool(bad.any()):
            k = int(cupy.flatnonzero(bad)[0])
            raise IndexError(f"{label}: group_ids[{k}] = {ids[k]} is outside [0, num_groups) = "
                             f"[0, {g})")
    perm, starts, stops = _group_segments(ids.astype(np.int64), g)
    if no_start and g:
        empty = stops == starts
        if bool(empty.any()):
            k = int(cupy.flatnonzero(empty)[0])
            raise ValueError(f"{label}: group {k} is empty and the reduction has no initial "
                             "value (pass initial=..., or group_ids without empty groups)")
    x, shape3 = _block(a, ax, descrs[0])
    work = _launch_segments(name, descrs, x, mask, perm, starts, stops, shape3,
                            2 if mode == 2 else 0, seeds, empty_unseen=True)
    return _into(tuple(w.reshape(shape) for w in work), outs, label)


def _at_index(indices, shape, label):
    """The flat slot of every indexed element, by NumPy's indexing rules
    (CuPy's own indexing wraps out-of-range integers around silently, so
    every integer index is bounds-checked first, and the shape of every
    boolean array against the axes it indexes).  An ellipsis stands for the
    axes that the other components leave; a scalar boolean (or 0-d boolean
    array) is NumPy's new axis indexed by an integer array of length 1
    (True) or 0 (False) -- an advanced index on an axis of length 1 -- so
    the map of slots gets that axis of length 1 and the component becomes
    that integer array (CuPy is given integer, boolean arrays of at least
    one dimension, slices, integers, None and Ellipsis only)."""
    comps = list(indices) if isinstance(indices, tuple) else [indices]
    # pass 1: every component as CuPy will see it, and the axes each consumes
    # kinds: "e" ellipsis, "n" newaxis, "s" slice, "i" integer (array; as a CuPy
    # array in ints[d]), "b" boolean array, "z" scalar boolean (its value in comps[d])
    kinds, ints = [], {}
    for d, c in enumerate(comps):
        if c is Ellipsis:
            if "e" in kinds:
                raise IndexError(f"{label}: an index can only have a single ellipsis ('...')")
            kinds.append("e")
            continue
        if c is None or isinstance(c, slice):
            kinds.append("n" if c is None else "s")
            continue
        if isinstance(c, np.ndarray) and not isinstance(c, _ndarray):
            raise TypeError(f"numreduce.cupy.{label}: 'indices' holds a numpy.ndarray, not a "
                            "cupy.ndarray (mixing NumPy and CuPy inputs is not supported)")
        if isinstance(c, (bool, np.bool_)):
            comps[d] = bool(c)
            kinds.append("z")
            continue
        if isinstance(c, _ndarray):
            arr = c
        else:
            try:
                arr = cupy.asarray(np.asarray(c))
            except Exception as e:
                raise IndexError(f"{label}: unsupported index {c!r} ({e})") from None
            if arr.size == 0 and isinstance(c, (list, tuple)):
                arr = arr.astype(np.int64)  # an empty list: no indices (NumPy's rule too)
        if arr.dtype.kind == "b":
            if arr.ndim == 0:  # a 0-d boolean array is a scalar boolean (one value read)
                comps[d] = bool(arr)
                kinds.append("z")
                continue
            comps[d] = arr
            kinds.append("b")
            continue
        if arr.dtype.kind not in "iu":
            if arr.ndim:
                raise IndexError(f"{label}: arrays used as indices must be of integer (or "
                                 "boolean) type")
            raise IndexError(f"{label}: only integers, slices (`:`), ellipsis (`...`), "
                             "numpy.newaxis (`None`) and integer or boolean arrays are valid "
                             "indices")
        comps[d] = c if not isinstance(c, _ndarray) and arr.ndim == 0 else arr
        ints[d] = arr
        kinds.append("i")
    ndim = len(shape)
    used = sum(comps[d].ndim if k == "b" else 1 for d, k in enumerate(kinds)
               if k not in ("e", "n", "z"))
    if used > ndim:
        raise IndexError(f"{label}: too many indices for an array of dimension {ndim}")
    # pass 2: the checks, axis by axis (dim: the axis of `shape` that a
    # component indexes), and the axes of length 1 of the scalar booleans
    # (at: their position in the map of slots, counting those inserted)
    checked, new_axes = [], []
    dim = 0
    for d, (c, k) in enumerate(zip(comps, kinds)):
        if k == "e":
            dim += ndim - used
            checked.append(c)
        elif k == "n":
            checked.append(c)
        elif k == "s":
            dim += 1
            checked.append(c)
        elif k == "z":
            new_axes.append(dim + len(new_axes))
            checked.append(cupy.zeros(1 if c else 0, np.int64))
        elif k == "b":
            for j in range(c.ndim):
                if c.shape[j] != shape[dim + j]:
                    raise IndexError(f"{label}: boolean index did not match indexed array "
                                     f"along axis {dim + j}; size of axis is {shape[dim + j]} "
                                     f"but size of corresponding boolean axis is "
                                     f"{c.shape[j]}")
            dim += c.ndim
            checked.append(c)
        else:
            arr, size = ints[d], shape[dim]
            if arr.size:
                badm = (arr < -size) | (arr >= size) if arr.dtype.kind == "i" else arr >= size
                if bool(badm.any()):
                    j = int(cupy.flatnonzero(badm.reshape(-1))[0])
                    raise IndexError(f"{label}: index {arr.reshape(-1)[j]} is out of bounds "
                                     f"for axis {dim} with size {size}")
            dim += 1
            checked.append(c)
    # the advanced indices must broadcast together (CuPy's own error differs)
    adv = [tuple(ints[d].shape) if k == "i" else ((int(c.sum()),) if k == "b" else
                                                   (1 if c else 0,))
           for d, (c, k) in enumerate(zip(comps, kinds))
           if k in "ibz" and (k != "i" or isinstance(c, _ndarray))]
    if len(adv) > 1:
        try:
            np.broadcast_shapes(*adv)
        except ValueError:
            raise IndexError(f"{label}: shape mismatch: indexing arrays could not be broadcast "
                             "together with shapes " + " ".join(str(a) for a in adv)) from None
    sh = list(shape)
    for ax in new_axes:
        sh.insert(ax, 1)
    slots = cupy.arange(math.prod(shape), dtype=np.int64).reshape(tuple(sh))
    return slots[tuple(checked) if isinstance(indices, tuple) else checked[0]]


def at(ufunc, outs, indices, values):
    """``numreduce.at`` on the GPU: in place, repeated indices accumulate in
    order (the indices sorted stably, then one thread per slot steps its
    accumulators through its values)."""
    from ._engine import _resolve
    name = _ufunc_name(ufunc, "at")
    u = globals()[name]
    nout = u.nout
    label = f"at({name})"
    outs = inplace_outs(outs, nout, label)
    for i, o in enumerate(outs):
        if not isinstance(o, _ndarray):
            raise TypeError(f"numreduce.cupy.{label}: outs[{i}] is a {type(o).__module__}."
                            f"{type(o).__name__}, not a cupy.ndarray (updated in place on the "
                            "device)")
    shape = outs[0].shape
    _check_device_outs(outs, shape, label)
    vals = _device_array(values, "values", label)
    idx = _at_index(indices, shape, label)
    try:
        vals = cupy.broadcast_to(vals, idx.shape)
    except ValueError:
        raise ValueError(f"{label}: 'values' of shape {vals.shape} does not broadcast to the "
                         f"indexed shape {idx.shape}") from None
    try:
        common = np.result_type(vals.dtype, *(o.dtype for o in outs))
        descrs = _resolve(u.cpu, common, (None,) * nout, None, nout)
    except TypeError as e:
        raise TypeError(f"{label}: no loop for values of dtype {vals.dtype} with accumulators "
                        f"of dtypes {[str(o.dtype) for o in outs]}: {e}") from e
    for i, (o, d) in enumerate(zip(outs, descrs[1:])):
        if not np.can_cast(d, o.dtype, casting="same_kind"):
            raise TypeError(f"{label}: cannot cast the result of dtype {d} into outs[{i}] of "
                            f"dtype {o.dtype} with casting rule 'same_kind'")
    _device_char(descrs[0], label)
    size = math.prod(shape)
    ids = idx.reshape(-1)
    x = cupy.ascontiguousarray(vals.astype(descrs[0])).reshape(-1)  # a copy: read first
    seeds = [cupy.ascontiguousarray(o.astype(d)).reshape(-1) for o, d in zip(outs, descrs[1:])]
    perm, starts, stops = _group_segments(ids, size)
    work = _launch_segments(name, descrs, x, None, perm, starts, stops, (1, x.size, 1), 4,
                            seed_arrays=seeds)
    for o, w in zip(outs, work):
        cupy.copyto(o, w.reshape(shape), casting="unsafe")


def group_minmax(a, group_ids, num_groups=None, axis=0, out=None, initial=NoValue, where=True):
    """``numreduce.group_minmax`` on the GPU."""
    return reduce_by_group(_core.minimummaximum, a, group_ids, num_groups, axis=axis, out=out,
                           initial=initial, where=where)


def group_argminmax(a, group_ids, num_groups=None):
    """``numreduce.group_argminmax`` on the GPU: the NumPy path's two passes
    (group_minmax; then each group's first position equal to its extreme, a
    NaN extreme matching the first NaN) with the segments kernel for both
    (the second reduces the candidate positions, n where no hit)."""
    name = "group_argminmax"
    a = _device_array(a, "the array", name)
    if a.ndim != 1:
        raise ValueError(f"{name}: 'a' must be 1-d, got shape {a.shape}")
    group_ids = _device_array(group_ids, "group_ids", name)
    from ._groups import extreme_positions
    lo, hi = reduce_by_group(_core.minimummaximum, a, group_ids, num_groups)
    ids = group_ids.astype(np.intp, copy=False)
    g, n = lo.shape[0], a.shape[0]

    def first(hit, pos):  # the segments kernel over the candidate positions
        return reduce_by_group(_core.minimummaximum, cupy.where(hit, pos, n), ids, g)[0]

    return extreme_positions(cupy, a, ids, (lo, hi), first)


def group_meanvar(a, group_ids, num_groups=None, axis=0, dtype=None, ddof=0, where=True):
    """``numreduce.group_meanvar`` on the GPU (complex data: the real and
    imaginary parts reduced apart, as the NumPy path)."""
    from ._api import _ddof_arg, _result_dtype
    name = "group_meanvar"
    a = _device_array(a, "the array", name)
    ddof = _ddof_arg(name, ddof)
    mean_dt, var_dt = _result_dtype(name, a.dtype, dtype)
    _no_long_double(name, mean_dt, var_dt)
    res = [reduce_by_group(_core.moments, p, group_ids, num_groups, axis=axis, where=where)
           for p in _real_parts(a)]
    m2 = res[0][2] if len(res) == 1 else res[0][2] + res[1][2]
    return _finish_device_meanvar(res[0][0], [r[1] for r in res], m2, mean_dt, var_dt, ddof,
                                  False, False)


def group_logsumexp(a, group_ids, num_groups=None, axis=0):
    """``numreduce.group_logsumexp`` on the GPU."""
    a = _device_array(a, "the array", "group_logsumexp")
    if a.dtype.kind not in "biuf":
        raise TypeError(f"group_logsumexp: unsupported dtype {a.dtype} (need bool, "
                        "integer or floating point)")
    mx, t = reduce_by_group(_core.maxsumexp, a, group_ids, num_groups, axis=axis)
    res = mx + cupy.log1p(t)
    return res.astype(a.dtype if a.dtype.kind == "f" else np.float64, copy=False)


def group_fsum(a, group_ids, num_groups=None, axis=0):
    """``numreduce.group_fsum`` on the GPU."""
    a = _device_array(a, "the array", "group_fsum")
    if a.dtype.kind not in "biuf":
        raise TypeError(f"group_fsum: unsupported dtype {a.dtype} (need bool, integer or "
                        "floating point)")
    s, e = reduce_by_group(_core.twosum, a, group_ids, num_groups, axis=axis)
    return _fsum_finish(s, e)


# The user functions by name, for numreduce._dispatch (numreduce.<name>).
FUNCTIONS = {f.__name__: f for f in (minmax, nanminmax, argminmax, nanargminmax, meanvar,
                                     meanstd, nanmeanvar, logsumexp, fsum, reduce,
                                     accumulate, reduceat, segmented_reduce, reduce_by_group,
                                     at, group_minmax, group_meanvar, group_logsumexp,
                                     group_fsum, cumminmax, nancumminmax, logcumsumexp,
                                     cumfsum, cummeanvar, merge, group_argminmax)}
