"""The CuPy mirror runs WITHOUT a GPU: its generated CUDA source, compiled as
host C++ with the system compiler (CUDA's qualifiers defined away), driven by
numreduce.cupy's own Python code through a NumPy-backed stand-in for the
``cupy`` module, and compared with the NumPy path of numreduce:

* RawKernels (the segments kernel of reduceat, segmented_reduce,
  reduce_by_group, at and the grouped user functions; accumulate and the
  cumulative functions): one loop over the grid's threads;
* ElementwiseKernels (every ufunc's ``__call__``, ``merge``): one loop
  over the broadcast elements, the outputs as references;
* ReductionKernels (every ufunc's ``reduce``, the user functions minmax ...
  fsum): per output element, the map expression of every reduced element
  (``_J`` its index), folded by the reduce expression in a pairwise tree
  with the identity joined at both ends (as CuPy's thread blocks combine
  partial states, identities included), then the post-map expression.

This checks the kernels' logic and the Python orchestration (offsets, the
stable sort of the group ids, seeds, flags, the reduction adapter's state,
out= handling, every error before anything is written), not CUDA itself
(CuPy's own index arithmetic, its reduction order, the device's float
arithmetic): NVRTC compiles the same source in tests/test_nvrtc.py, and
tests/test_cupy.py / benchmarks/gpu_check.py run it on a GPU.  Skipped only
where no host C++ compiler is found (the reason says so).
"""

from __future__ import annotations

import ctypes
import hashlib
import math
import os
import re
import shutil
import subprocess
import sys
import types
import warnings

import numpy as np
import pytest

import numreduce as nr
from numreduce import _cupy_source as src

CXX = shutil.which(os.environ.get("CXX", "c++")) or shutil.which("g++") or shutil.which("clang++")
pytestmark = pytest.mark.skipif(CXX is None, reason="no host C++ compiler (c++/g++/clang++) "
                                "to run the generated kernels on the CPU")

_HOST_SHIM = r"""
#define __global__
#define __device__
#define __forceinline__ inline
struct nr_dim3 { unsigned int x, y, z; };
static nr_dim3 blockIdx, blockDim, threadIdx, gridDim;
"""

_CTYPE = {"?": ctypes.c_bool, "b": ctypes.c_byte, "B": ctypes.c_ubyte, "h": ctypes.c_short,
          "H": ctypes.c_ushort, "i": ctypes.c_int, "I": ctypes.c_uint, "l": ctypes.c_longlong,
          "q": ctypes.c_longlong, "L": ctypes.c_ulonglong, "Q": ctypes.c_ulonglong,
          "f": ctypes.c_float, "d": ctypes.c_double}


def _host_library(code, name, options):
    """The C++ source compiled (cached by its hash) and loaded: nr_launch."""
    key = hashlib.sha1(code.encode()).hexdigest()[:16]
    lib = os.path.join(_HostRawKernel.cache_dir, f"{name}_{key}.so")
    if not os.path.exists(lib):
        cu = lib[:-3] + ".cpp"
        with open(cu, "w") as f:
            f.write(code)
        incs = [o for o in options if o.startswith("-I")]
        subprocess.run([CXX, "-std=c++17", "-O1", "-shared", "-fPIC", *incs, cu, "-o", lib],
                       check=True, capture_output=True, text=True)
    fn = ctypes.CDLL(lib).nr_launch
    fn.restype = None
    return fn


class _HostRawKernel:
    """cupy.RawKernel for the host: the source compiled with the C++
    compiler, ``kernel(grid, block, args)`` runs every thread in turn."""

    cache_dir = None

    def __init__(self, code, name, options=()):
        m = re.search(r'extern "C" __global__ void (\w+)\((.*?)\) \{', code, re.S)
        assert m and m.group(1) == name
        params = [p.strip() for p in m.group(2).split(",")]
        names = [re.findall(r"\w+", p)[-1] for p in params]
        wrapper = (f'\nextern "C" void nr_launch(long long nr_grid, long long nr_block, '
                   f"{m.group(2)}) {{\n"
                   "    blockDim.x = (unsigned)nr_block; gridDim.x = (unsigned)nr_grid;\n"
                   "    for (long long b = 0; b < nr_grid; b++)\n"
                   "        for (long long t = 0; t < nr_block; t++) {\n"
                   "            blockIdx.x = (unsigned)b; threadIdx.x = (unsigned)t;\n"
                   f"            {name}({', '.join(names)});\n        }}\n}}\n")
        self._fn = _host_library(_HOST_SHIM + code + wrapper, name, options)

    def __call__(self, grid, block, args):
        cargs = [ctypes.c_longlong(grid[0]), ctypes.c_longlong(block[0])]
        for a in args:
            if isinstance(a, np.ndarray):
                assert a.flags.c_contiguous or a.size <= 1
                cargs.append(ctypes.c_void_p(a.ctypes.data))
            else:
                cargs.append(_CTYPE[np.asarray(a).dtype.char](a.item()))
        self._fn(*cargs)


# CuPy's parameter type names -> (C type, ctypes type) for the emulated
# Elementwise/ReductionKernels (the dtypes the emulated tests use).
_PARAM_TYPES = {"bool": ("bool", ctypes.c_bool), "int8": ("signed char", ctypes.c_byte),
                "uint8": ("unsigned char", ctypes.c_ubyte), "int16": ("short", ctypes.c_short),
                "uint16": ("unsigned short", ctypes.c_ushort), "int32": ("int", ctypes.c_int),
                "uint32": ("unsigned int", ctypes.c_uint),
                "int64": ("long long", ctypes.c_longlong),
                "uint64": ("unsigned long long", ctypes.c_ulonglong),
                "float32": ("float", ctypes.c_float), "float64": ("double", ctypes.c_double)}


def _params(spec):
    """[(dtype, C type, ctypes type, name)] of a CuPy parameter list."""
    out = []
    for p in spec.split(","):
        tname, name = p.split()
        if tname not in _PARAM_TYPES:
            raise NotImplementedError(f"the emulation has no parameter type {tname!r}")
        out.append((np.dtype(tname), *_PARAM_TYPES[tname], name))
    return out


def _split_args(args, ins, nout, what):
    """(input values, output arrays) of a kernel call: every input, then
    none or all of the outputs (positionally, as numreduce.cupy passes them)."""
    if len(args) not in (len(ins), len(ins) + nout):
        raise TypeError(f"{what}: {len(args)} arguments for {len(ins)} inputs and {nout} outputs")
    vals, outs = list(args[:len(ins)]), list(args[len(ins):])
    for (dt, _, _, pname), v in zip(ins, vals):
        if isinstance(v, np.ndarray) and v.dtype != dt:
            raise TypeError(f"{what}: input {pname} of dtype {v.dtype}, the kernel takes {dt}")
    return vals, outs


class _HostElementwiseKernel:
    """cupy.ElementwiseKernel for the host: ``operation`` run for every
    element of the broadcast inputs (array inputs as values, scalars as
    they are, outputs as references)."""

    def __init__(self, in_params, out_params, operation, name="kernel", preamble="",
                 options=()):
        self.ins, self.outs = _params(in_params), _params(out_params)
        arrays = [f"const {c} *nr_p_{n}" for _, c, _, n in self.ins]
        outs = [f"{c} *nr_p_{n}" for _, c, _, n in self.outs]
        body = "".join(f"        const {c} {n} = nr_p_{n}[i];\n" for _, c, _, n in self.ins) \
            + "".join(f"        {c} &{n} = nr_p_{n}[i];\n" for _, c, _, n in self.outs)
        code = (_HOST_SHIM + preamble + "\n"
                f'extern "C" void nr_launch(long long nr_n, {", ".join(arrays + outs)}) {{\n'
                "    for (long long i = 0; i < nr_n; i++) {\n" + body
                + "        {\n" + operation + "\n        }\n    }\n}\n")
        self._fn = _host_library(code, name, options)
        self.name = name

    def __call__(self, *args):
        vals, outs = _split_args(args, self.ins, len(self.outs), self.name)
        vals = [np.asarray(v, dtype=dt) for (dt, _, _, _), v in zip(self.ins, vals)]
        shape = np.broadcast_shapes(*[v.shape for v in vals])
        vals = [np.ascontiguousarray(np.broadcast_to(v, shape)) for v in vals]
        if not outs:
            import cupy
            outs = [cupy.empty(shape, dt) for dt, _, _, _ in self.outs]
        res = [np.empty(shape, dt) for dt, _, _, _ in self.outs]
        for o, (dt, _, _, n) in zip(outs, self.outs):
            assert o.shape == shape and o.dtype == dt, (n, o.shape, shape, o.dtype, dt)
        self._fn(ctypes.c_longlong(math.prod(shape)),
                 *[ctypes.c_void_p(v.ctypes.data) for v in vals + res])
        for o, r in zip(outs, res):
            np.copyto(o, r)
        return outs[0] if len(outs) == 1 else tuple(outs)


class _HostReductionKernel:
    """cupy.ReductionKernel for the host.  The array inputs broadcast, the
    scalar inputs are values; per output element, ``map_expr`` of every
    reduced element (``_J``: its index in the reduced axes, C order) is
    folded by ``reduce_expr`` in a pairwise tree (left operand the lower
    indices; an odd one out joined with the identity on its right), the
    identity joined on the left of the result, then ``post_map_expr`` with
    the outputs as references.  CuPy returns the first output only."""

    def __init__(self, in_params, out_params, map_expr, reduce_expr, post_map_expr, identity,
                 name="reduce_kernel", reduce_type=None, preamble="", options=()):
        self.ins, self.outs = _params(in_params), _params(out_params)
        params = [f"const {c} *nr_p_{n}, {c} nr_s_{n}" for _, c, _, n in self.ins]
        outs = [f"{c} *nr_p_{n}" for _, c, _, n in self.outs]
        ins = "".join(f"            const {c} {n} = nr_p_{n} ? nr_p_{n}[i * nr_m + j] "
                      f": nr_s_{n};\n" for _, c, _, n in self.ins)
        scal = "".join(f"        const {c} {n} = nr_s_{n};\n" for _, c, _, n in self.ins)
        refs = "".join(f"        {c} &{n} = nr_p_{n}[i];\n" for _, c, _, n in self.outs)
        code = (_HOST_SHIM + "#include <vector>\n" + preamble + "\n"
                f"#define REDUCE(a, b) ({reduce_expr})\n"
                f"#define POST_MAP(a) ({post_map_expr})\n"
                f"typedef {reduce_type} nr_type_reduce;\n"
                f'extern "C" void nr_launch(long long nr_rows, long long nr_m, '
                f'{", ".join(params + outs)}) {{\n'
                "    std::vector<nr_type_reduce> nr_buf((std::size_t)(nr_m > 0 ? nr_m : 1));\n"
                "    for (long long i = 0; i < nr_rows; i++) {\n"
                "        for (long long j = 0; j < nr_m; j++) {\n"
                "            const long long _J = j;\n" + ins
                + f"            nr_buf[j] = static_cast<nr_type_reduce>({map_expr});\n"
                "        }\n"
                "        long long m = nr_m;\n"
                "        while (m > 1) {\n"
                "            for (long long k = 0; 2 * k + 1 < m; k++)\n"
                "                nr_buf[k] = REDUCE(nr_buf[2 * k], nr_buf[2 * k + 1]);\n"
                f"            if (m % 2) nr_buf[m / 2] = REDUCE(nr_buf[m - 1], "
                f"nr_type_reduce({identity}));\n"
                "            m = (m + 1) / 2;\n"
                "        }\n"
                f"        nr_type_reduce nr_s = nr_type_reduce({identity});\n"
                "        if (nr_m > 0) nr_s = REDUCE(nr_s, nr_buf[0]);\n" + scal + refs
                + "        POST_MAP(nr_s);\n    }\n}\n")
        self._fn = _host_library(code, name, options)
        self.name = name

    def __call__(self, *args, axis=None, keepdims=False):
        vals, outs = _split_args(args, self.ins, len(self.outs), self.name)
        arrays = [v for v in vals if isinstance(v, np.ndarray)]
        shape = np.broadcast_shapes(*[a.shape for a in arrays])
        nd = len(shape)
        axes = tuple(range(nd)) if axis is None else \
            tuple(sorted(a % nd for a in ((axis,) if isinstance(axis, int) else axis)))
        assert len(set(axes)) == len(axes), axes
        kept = [i for i in range(nd) if i not in axes]
        rows, m = math.prod(shape[i] for i in kept), math.prod(shape[i] for i in axes)
        oshape = tuple(1 if i in axes else n for i, n in enumerate(shape)) if keepdims \
            else tuple(shape[i] for i in kept)
        cargs = [ctypes.c_longlong(rows), ctypes.c_longlong(m)]
        keep = []
        for (dt, _, ct, n), v in zip(self.ins, vals):
            if isinstance(v, np.ndarray):
                w = np.ascontiguousarray(np.broadcast_to(v, shape).transpose(kept + list(axes)))
                keep.append(w)
                cargs += [ctypes.c_void_p(w.ctypes.data), ct(0)]
            else:
                cargs += [ctypes.c_void_p(None), ct(np.asarray(v, dtype=dt).item())]
        if not outs:
            import cupy
            outs = [cupy.empty(oshape, dt) for dt, _, _, _ in self.outs]
        res = [np.empty(oshape, dt) for dt, _, _, _ in self.outs]
        for o, (dt, _, _, n) in zip(outs, self.outs):
            assert o.shape == oshape and o.dtype == dt, (n, o.shape, oshape, o.dtype, dt)
        self._fn(*cargs, *[ctypes.c_void_p(r.ctypes.data) for r in res])
        for o, r in zip(outs, res):
            np.copyto(o, r)
        return outs[0]


def _fake_cupy():
    """A stand-in ``cupy`` on NumPy: its ndarray is a NumPy subclass whose
    module is 'cupy' (so that numreduce's dispatch sees a CuPy array and
    numreduce.cupy refuses plain NumPy arrays)."""
    mod = types.ModuleType("cupy")
    ndarray = type("ndarray", (np.ndarray,), {"__module__": "cupy",
                                              "get": lambda self: np.array(self).view(np.ndarray)})

    def view(r):
        return r.view(ndarray) if isinstance(r, np.ndarray) else r

    def wrap(f):
        return lambda *a, **k: view(f(*a, **k))

    for fname in ("empty", "arange", "ascontiguousarray", "broadcast_to", "flatnonzero",
                  "searchsorted", "where", "isfinite", "isinf", "isnan", "log1p", "maximum", "sqrt",
                  "moveaxis", "zeros", "ones", "full", "concatenate", "log", "exp", "sum", "max",
                  "abs", "sign", "clip", "true_divide", "square", "subtract"):
        setattr(mod, fname, wrap(getattr(np, fname)))
    mod.asarray = lambda x, dtype=None: view(np.array(x, dtype=dtype))
    mod.argsort = lambda a, axis=-1, kind=None: view(np.argsort(a, axis=axis, kind="stable"))
    mod.copyto = np.copyto
    mod.shares_memory = np.shares_memory
    mod.broadcast_shapes = np.broadcast_shapes
    mod.ndarray = ndarray
    mod.nan = np.nan
    mod.__version__ = "0+numpy-emulation"
    mod.RawKernel = _HostRawKernel

    mod.ElementwiseKernel = _HostElementwiseKernel
    mod.ReductionKernel = _HostReductionKernel
    mod.cuda = types.SimpleNamespace(runtime=types.SimpleNamespace(getDeviceCount=lambda: 1))
    return mod


@pytest.fixture(scope="module")
def emu(tmp_path_factory):
    """(fake cupy, numreduce.cupy on it); the real modules restored after."""
    _HostRawKernel.cache_dir = str(tmp_path_factory.mktemp("hostkernels"))
    saved = {k: sys.modules.get(k) for k in ("cupy", "numreduce.cupy", "numreduce._cupy")}
    # the real numreduce.cupy and its backend numreduce._cupy, where a GPU imported them
    attrs = {a: getattr(nr, a) for a in ("cupy", "_cupy") if hasattr(nr, a)}
    sys.modules.pop("numreduce.cupy", None)
    sys.modules.pop("numreduce._cupy", None)
    for a in attrs:
        delattr(nr, a)
    cp = sys.modules["cupy"] = _fake_cupy()
    import numreduce.cupy as nrc
    try:
        yield cp, nrc
    finally:
        for k, v in saved.items():  # the real modules back (or none)
            if v is None:
                sys.modules.pop(k, None)
            else:
                sys.modules[k] = v
        for a in ("cupy", "_cupy"):
            if a in attrs:
                setattr(nr, a, attrs[a])
            elif hasattr(nr, a):
                delattr(nr, a)


EXACT = {"minimummaximum", "fminfmax"}


def _check(cpu, dev, cp, exact=False):
    if not isinstance(cpu, tuple):
        cpu, dev = (cpu,), (dev,)
    assert len(cpu) == len(dev)
    for c, d in zip(cpu, dev):
        assert isinstance(d, cp.ndarray), type(d)
        c, d = np.asarray(c), d.get()
        assert c.shape == d.shape and c.dtype == d.dtype, (c.shape, d.shape, c.dtype, d.dtype)
        if c.dtype.kind == "f":
            np.testing.assert_array_equal(np.isnan(d), np.isnan(c))
            # the signs of zeros too (twosum's empty (0, 0) vs its -0 seed)
            z = (c == 0) & (d == 0)
            np.testing.assert_array_equal(np.signbit(d[z]), np.signbit(c[z]))
        if exact or c.dtype.kind != "f":
            np.testing.assert_array_equal(d, c)
        else:
            fin = np.abs(c[np.isfinite(c)])
            scale = float(fin.max()) if fin.size else 0.0  # cancellation: an absolute floor
            np.testing.assert_allclose(d, c, rtol=1e-12, atol=1e-13 * scale)


def _data(rng, dtype, shape, nan=False):
    dt = np.dtype(dtype)
    if dt.kind == "b":
        return rng.random(shape) < 0.5
    if dt.kind in "iu":
        return rng.integers(0 if dt.kind == "u" else -50, 50, size=shape).astype(dt)
    x = (rng.standard_normal(shape) * 10).astype(dt)
    if nan and x.size:
        x.reshape(-1)[rng.integers(0, x.size, size=max(1, x.size // 9))] = np.nan
    return x


def _init(dtype):
    return (100, 0) if np.dtype(dtype).kind in "ub" else (100, -100)


UFUNCS = ["minimummaximum", "fminfmax", "moments", "nanmoments", "maxsumexp", "twosum",
          "summary", "nansummary"]
DTYPES = ["float64", "float32", "int32", "uint8", "bool"]


def _cases():
    return [(u, d) for u in UFUNCS for d in DTYPES if np.dtype(d).char in src.loop_types(u)]


@pytest.mark.parametrize("uname,dtype", _cases())
def test_segments_match_numpy_path(emu, uname, dtype):
    cp, nrc = emu
    rng = np.random.default_rng(11)
    u = getattr(nr, uname)
    x = _data(rng, dtype, (23, 9), nan=True)
    ex = uname in EXACT
    for ax in (0, 1):
        idx = [0, 5, 3, 7, 8] if ax == 1 else [0, 5, 3, 12, 22]
        _check_states(uname, nr.reduceat(u, x, idx, axis=ax), nr.reduceat(u, cp.asarray(x), idx, axis=ax),
               cp, ex)
        _check_states(uname, nr.reduceat(u, x, idx, axis=ax),
               nr.reduceat(u, cp.asarray(x), cp.asarray(np.array(idx)), axis=ax), cp, ex)
    starts, stops = [0, 2, -3, 4, 1], [4, 6, 100, 4, 9]
    init = {"initial": _init(dtype)} if uname in EXACT else {}
    _check_states(uname, nr.segmented_reduce(u, x, starts, stops, axis=1, **init),
           nr.segmented_reduce(u, cp.asarray(x), starts, stops, axis=1, **init), cp, ex)
    w = rng.random(x.shape) < 0.6
    w[:, 2] = False
    _check_states(uname, nr.segmented_reduce(u, x, starts, stops, axis=1, where=w, **init),
           nr.segmented_reduce(u, cp.asarray(x), starts, stops, axis=1, where=cp.asarray(w),
                               **init), cp, ex)
    if uname in ("minimummaximum", "twosum"):
        _check_states(uname, nr.segmented_reduce(u, x, starts, stops, axis=0, initial=5),
               nr.segmented_reduce(u, cp.asarray(x), starts, stops, axis=0, initial=5), cp, ex)
    if uname in EXACT:
        with pytest.raises(ValueError, match=r"segment 3 \(\[4:4\] along axis 1\) is empty"):
            nr.segmented_reduce(u, cp.asarray(x), starts, stops, axis=1)
        with pytest.raises(ValueError, match="does not have an identity"):
            nr.segmented_reduce(u, cp.asarray(x), [0], [3], axis=1, where=cp.asarray(w))
    with pytest.raises(IndexError, match="out-of-bounds"):
        nr.reduceat(u, cp.asarray(x), [0, 23])
    with pytest.raises(TypeError, match="not a cupy.ndarray"):
        nr.segmented_reduce(u, cp.asarray(x), [0], [3], where=w)


@pytest.mark.parametrize("uname,dtype", _cases())
def test_groups_match_numpy_path(emu, uname, dtype):
    cp, nrc = emu
    rng = np.random.default_rng(12)
    u = getattr(nr, uname)
    x = _data(rng, dtype, (40, 3), nan=True)
    ex = uname in EXACT
    ids = rng.integers(0, 6, size=40)
    ids[ids == 4] = 5  # group 4 empty (with num_groups=7, 6 too)
    if ex:
        init = {"initial": _init(dtype)}
        with pytest.raises(ValueError, match="group 4 is empty"):
            nr.reduce_by_group(u, cp.asarray(x), cp.asarray(ids), 7)
    else:
        init = {}
    for ax, xx in ((0, x), (1, np.ascontiguousarray(x.T))):
        _check_states(uname, nr.reduce_by_group(u, xx, ids, 7, axis=ax, **init),
                      nr.reduce_by_group(u, cp.asarray(xx), cp.asarray(ids), 7, axis=ax, **init),
                      cp, ex)
    w = rng.random(x.shape) < 0.5
    w[ids == 1] = False  # a group with elements, all masked out
    _check_states(uname, nr.reduce_by_group(u, x, ids, 7, where=w, **init),
                  nr.reduce_by_group(u, cp.asarray(x), cp.asarray(ids), 7, where=cp.asarray(w),
                                     **init), cp, ex)
    outs = tuple(cp.empty((7, 3), d.dtype) for d in nr.reduce_by_group(u, x, ids, 7, **init))
    res = nr.reduce_by_group(u, cp.asarray(x), cp.asarray(ids), 7, out=outs, **init)
    assert all(r is o for r, o in zip(res, outs))
    _check_states(uname, nr.reduce_by_group(u, x, ids, 7, **init), res, cp, ex)
    bad = ids.copy()
    bad[17] = 7
    before = [o.get() for o in outs]
    with pytest.raises(IndexError, match=r"group_ids\[17\] = 7 is outside \[0, num_groups\) = "
                                         r"\[0, 7\)"):
        nr.reduce_by_group(u, cp.asarray(x), cp.asarray(bad), 7, out=outs, **init)
    for o, b in zip(outs, before):  # nothing written
        np.testing.assert_array_equal(o.get(), b)
    with pytest.raises(TypeError, match="group_ids is a numpy.ndarray, not a cupy.ndarray"):
        nr.reduce_by_group(u, cp.asarray(x), ids, 7, **init)


@pytest.mark.parametrize("uname", ["minimummaximum", "moments", "twosum", "maxsumexp"])
def test_at_matches_numpy_path(emu, uname):
    cp, nrc = emu
    rng = np.random.default_rng(13)
    u = getattr(nr, uname)
    vals = rng.standard_normal(50) * 10
    idx = rng.integers(-8, 8, size=50)
    start = {"minimummaximum": (np.inf, -np.inf)}.get(uname, (0.0,) * u.nout)
    cpu = tuple(np.full(8, s) for s in start)
    dev = tuple(cp.asarray(c) for c in cpu)
    nr.at(u, cpu, idx, vals)
    assert nr.at(u, dev, cp.asarray(idx), cp.asarray(vals)) is None
    _check(cpu, dev, cp, uname in EXACT)
    # 2-d accumulators, a tuple index, a scalar value; repeated slots
    cpu2 = tuple(np.full((3, 4), s) for s in start)
    dev2 = tuple(cp.asarray(c) for c in cpu2)
    ii, jj = [0, 2, 0, 0, -1], [1, 3, 1, 1, 0]
    nr.at(u, cpu2, (ii, jj), 2.5)
    nr.at(u, dev2, (cp.asarray(np.array(ii)), jj), 2.5)
    _check(cpu2, dev2, cp, uname in EXACT)
    nr.at(u, cpu2, (slice(None), 1), [1.0, -3.0, 7.0])
    nr.at(u, dev2, (slice(None), 1), cp.asarray(np.array([1.0, -3.0, 7.0])))
    _check(cpu2, dev2, cp, uname in EXACT)
    before = [d.get() for d in dev]
    with pytest.raises(IndexError, match="index 8 is out of bounds for axis 0 with size 8"):
        nr.at(u, dev, cp.asarray(np.array([1, 8])), cp.asarray(np.array([1.0, 2.0])))
    with pytest.raises(ValueError, match="does not broadcast"):
        nr.at(u, dev, cp.asarray(np.array([1, 2])), cp.asarray(np.ones(3)))
    with pytest.raises(TypeError, match="numpy.ndarray"):
        nr.at(u, dev, np.array([1, 2]), cp.asarray(np.ones(2)))
    for d, b in zip(dev, before):
        np.testing.assert_array_equal(d.get(), b)


@pytest.mark.parametrize("dtype", ["float64", "float32", "int32"])
def test_grouped_user_functions_match_numpy_path(emu, dtype):
    cp, nrc = emu
    rng = np.random.default_rng(14)
    x = _data(rng, dtype, (60,))
    ids = rng.integers(0, 5, size=60)
    import warnings
    for f, kw in ((nr.group_minmax, {}), (nr.group_meanvar, {"ddof": 1}),
                  (nr.group_logsumexp, {}), (nr.group_fsum, {})):
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            cpu = f(x, ids, 6 if f is not nr.group_minmax else None, **kw)
            dev = f(cp.asarray(x), cp.asarray(ids), 6 if f is not nr.group_minmax else None,
                    **kw)
        _check(cpu, dev, cp, f is nr.group_minmax)


@pytest.mark.parametrize("uname,dtype", _cases())
def test_accumulate_matches_numpy_path(emu, uname, dtype):
    cp, nrc = emu
    rng = np.random.default_rng(15)
    u = getattr(nr, uname)
    x = _data(rng, dtype, (7, 11), nan=True)
    for ax in (0, 1):
        _check(nr.accumulate(u, x, axis=ax), nr.accumulate(u, cp.asarray(x), axis=ax), cp,
               uname in EXACT)


@pytest.mark.parametrize("dtype", ["float64", "float32", "int32", "bool"])
def test_cumulative_user_functions_match_numpy_path(emu, dtype):
    """cumminmax, nancumminmax, logcumsumexp, cumfsum, cummeanvar on the
    device: accumulate's kernel, finished as the NumPy path finishes; the
    options (axis=None for 1-d, include_initial, dtype, ddof, out) and the
    errors of the NumPy path."""
    cp, nrc = emu
    rng = np.random.default_rng(17)
    x = _data(rng, dtype, (7, 11), nan=True)
    cases = [("cumminmax", {}), ("nancumminmax", {}), ("logcumsumexp", {}),
             ("logcumsumexp", {"include_initial": True}), ("logcumsumexp", {"dtype": np.float32}),
             ("cumfsum", {}), ("cumfsum", {"include_initial": True}), ("cummeanvar", {}),
             ("cummeanvar", {"ddof": 1})]
    if dtype == "bool":
        cases = [c for c in cases if c[0] not in ("cumminmax", "nancumminmax")] + \
            [("cumminmax", {})]
    for fname, kw in cases:
        f, g = getattr(nr, fname), getattr(nrc, fname)
        for ax in (0, 1, -1):
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                cpu = f(x, axis=ax, **kw)
                dev = g(cp.asarray(x), axis=ax, **kw)
            _check(cpu, dev, cp, fname in ("cumminmax", "nancumminmax"))
        _check(f(x[0], **kw), g(cp.asarray(x[0]), **kw), cp,
               fname in ("cumminmax", "nancumminmax"))
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")  # numreduce's own function dispatches to the GPU
            _check(f(x, axis=0, **kw), f(cp.asarray(x), axis=0, **kw), cp,
                   fname in ("cumminmax", "nancumminmax"))
        with pytest.raises(ValueError, match="axis"):
            g(cp.asarray(x), **kw)  # 2-d without axis, as np.cumulative_sum
    # out=: written in place, checked first
    out = cp.asarray(np.empty((7, 12), np.float64))
    r = nrc.cumfsum(cp.asarray(x), axis=1, include_initial=True, out=out)
    assert r is out
    _check(nr.cumfsum(x, axis=1, include_initial=True, out=np.empty((7, 12), np.float64)), out,
           cp)
    with pytest.raises(ValueError, match="shape"):
        nrc.logcumsumexp(cp.asarray(x), axis=1, out=cp.asarray(np.empty((7, 11))),
                         include_initial=True)
    with pytest.raises(TypeError, match="cupy.ndarray"):
        nrc.logcumsumexp(cp.asarray(x), axis=1, out=np.empty((7, 11)))
    with pytest.raises(TypeError, match="long double"):
        nrc.cumfsum(cp.asarray(x), axis=0, dtype=np.longdouble)
    with pytest.raises(TypeError, match="include_initial"):
        nrc.cumfsum(cp.asarray(x), axis=0, include_initial="yes")


@pytest.mark.parametrize("uname", UFUNCS)
@pytest.mark.parametrize("dtype", ["float64", "float32"])
def test_reduction_adapter_one_element(emu, uname, dtype):
    # The ReductionKernel's map + post-map of a one-element slice, the
    # adapter of reduction_parts run on the host: the state of an element
    # is the CPU's start (step from the initials), so [NaN] and [inf] give
    # moments' M2 NaN (np.var), not lift()'s 0.
    cp, nrc = emu
    parts = src.reduction_parts(uname, np.dtype(dtype).char)
    nout = src.TRAITS[uname][2]
    outs = ", ".join(f"nr_cout *o{k}" for k in range(nout))
    code = (parts["preamble"]
            + f'extern "C" __global__ void nr_one(const nr_cin *x, {outs}, long long n) {{\n'
            "    const long long t = (long long)blockIdx.x * blockDim.x + threadIdx.x;\n"
            "    if (t >= n) return;\n    const nr_cout z = nr_cout();\n"
            f"    nr_post(nr_map(x[t]), 0, {', '.join(['z'] * nout)}, "
            f"{', '.join(f'o{k}[t]' for k in range(nout))});\n}}\n")
    k = cp.RawKernel(code, "nr_one", options=parts["options"])
    x = np.array([np.nan, np.inf, -np.inf, 1.5, -0.0, 0.0, -7.25], dtype=dtype)
    u = getattr(nr, uname)
    cpu = nr.reduce(u, x.reshape(-1, 1), axis=1)
    dev = tuple(cp.empty(x.shape, c.dtype) for c in cpu)
    k((1,), (x.size,), (cp.asarray(x), *dev, np.int64(x.size)))
    _check(cpu, dev, cp, exact=True)


# ---------------------------------------------------------------------------
# The ElementwiseKernels and ReductionKernels (host emulation, see the module
# docstring): every ufunc's __call__ and reduce, merge, the user functions.
# ---------------------------------------------------------------------------

@pytest.mark.parametrize("uname,dtype", _cases())
def test_elementwise_matches_numpy_path(emu, uname, dtype):
    cp, nrc = emu
    rng = np.random.default_rng(21)
    u, g = getattr(nr, uname), getattr(nrc, uname)
    x, y = _data(rng, dtype, (5, 7), nan=True), _data(rng, dtype, (7,), nan=True)
    _check(u(x, y), g(cp.asarray(x), cp.asarray(y)), cp, True)  # same expression, same bits
    _check(u(y, x), g(cp.asarray(y), cp.asarray(x)), cp, True)
    cpu = u(x, y)
    outs = tuple(cp.asarray(np.empty((5, 7), c.dtype)) for c in cpu)
    res = g(cp.asarray(x), cp.asarray(y), out=outs)
    assert all(r is o for r, o in zip(res, outs))
    _check(cpu, res, cp, True)
    # out= of another dtype: cast (same_kind), as the ufunc's out=
    if all(c.dtype == np.float64 for c in cpu):
        outs32 = tuple(cp.asarray(np.empty((5, 7), np.float32)) for _ in cpu)
        g(cp.asarray(x), cp.asarray(y), out=outs32)
        _check(tuple(c.astype(np.float32) for c in cpu), outs32, cp, True)
    with pytest.raises(TypeError, match="not a cupy.ndarray"):
        g(cp.asarray(x), y)


def _check_states(uname, cpu, dev, cp, exact=False):
    """_check of reduction states; a twosum state (s, e) as s + e: the split
    of the sum between s and e depends on the order of the additions (the
    ReductionKernel's tree, the CPU's blocks), the pair's value does not."""
    if uname == "twosum":
        with np.errstate(invalid="ignore", over="ignore"):
            cpu, dev = np.add(cpu[0], cpu[1]), dev[0] + dev[1]
    if uname in ("summary", "nansummary"):
        # (count, min, max, K, m, M2, M3, M4): the mean K + m, whose split
        # depends on the path (the CPU's grouped slots rebase K)
        cpu, dev = _summary_mean(np, cpu), _summary_mean(cp, dev)
    _check(cpu, dev, cp, exact)


def _summary_mean(xp, st):
    """A summary state with its mean K + m (K where m is 0) for K, m."""
    n, lo, hi, K, m, m2, m3, m4 = st
    with np.errstate(invalid="ignore", over="ignore"):
        return n, lo, hi, xp.where(m == 0, K, K + m), m2, m3, m4


@pytest.mark.parametrize("uname,dtype", _cases())
def test_reduce_matches_numpy_path(emu, uname, dtype):
    """ufunc.reduce through the ReductionKernel: axes, keepdims, out=,
    initial=, where=, empty slices, the errors of the NumPy path."""
    cp, nrc = emu
    rng = np.random.default_rng(22)

    def check(cpu, dev, cp, exact):
        _check_states(uname, cpu, dev, cp, exact)
    u = getattr(nr, uname)
    ex = uname in EXACT
    x = _data(rng, dtype, (9, 13), nan=True)
    dx = cp.asarray(x)
    for axis in (None, 0, 1, -1, (0, 1)):
        for keepdims in (False, True):
            check(nr.reduce(u, x, axis=axis, keepdims=keepdims),
                   nr.reduce(u, dx, axis=axis, keepdims=keepdims), cp, ex)
    # one-element and many-element slices: the tree's identity joins both ends
    for n in (1, 2, 3, 31, 64):
        xn = _data(rng, dtype, (4, n), nan=True)
        check(nr.reduce(u, xn, axis=1), nr.reduce(u, cp.asarray(xn), axis=1), cp, ex)
    # non-contiguous input
    check(nr.reduce(u, x[::2, ::-3], axis=0), nr.reduce(u, dx[::2, ::-3], axis=0), cp, ex)
    # initial= (a seed merged once)
    init = _init(dtype) if uname in EXACT else None
    if init is not None:
        check(nr.reduce(u, x, axis=1, initial=init), nr.reduce(u, dx, axis=1, initial=init),
               cp, ex)
        check(nr.reduce(u, x, axis=1, initial=init[0]),
               nr.reduce(u, dx, axis=1, initial=init[0]), cp, ex)
    # where= (a mask that empties a whole slice too)
    w = rng.random(x.shape) < 0.5
    w[3] = False
    kw = {"initial": init} if init is not None else {}
    for axis in (0, 1):
        check(nr.reduce(u, x, axis=axis, where=w, **kw),
               nr.reduce(u, dx, axis=axis, where=cp.asarray(w), **kw), cp, ex)
    check(nr.reduce(u, x, axis=1, where=w[:, :1] | True, **kw),
           nr.reduce(u, dx, axis=1, where=cp.asarray(w[:, :1] | True), **kw), cp, ex)
    # out=: written in place and returned; another dtype is cast
    cpu = nr.reduce(u, x, axis=0)
    outs = tuple(cp.asarray(np.empty(13, c.dtype)) for c in cpu)
    res = nr.reduce(u, dx, axis=0, out=outs)
    assert all(r is o for r, o in zip(res, outs))
    check(cpu, res, cp, ex)
    # empty reductions: the initials (or the error of a ufunc without them)
    e = np.empty((0, 4), dtype)
    if uname in EXACT:
        with pytest.raises(ValueError, match="zero-size array"):
            nr.reduce(u, cp.asarray(e), axis=0)
        with pytest.raises(ValueError, match="identity"):
            nr.reduce(u, dx, axis=0, where=cp.asarray(w))
        check(nr.reduce(u, e, axis=0, initial=init), nr.reduce(u, cp.asarray(e), axis=0,
                                                                initial=init), cp, ex)
    else:
        check(nr.reduce(u, e, axis=0), nr.reduce(u, cp.asarray(e), axis=0), cp, ex)
        check(nr.reduce(u, e, axis=1), nr.reduce(u, cp.asarray(e), axis=1), cp, ex)
    with pytest.raises(np.exceptions.AxisError):
        nr.reduce(u, dx, axis=2)
    with pytest.raises(TypeError, match="not a cupy.ndarray"):
        nr.reduce(u, dx, axis=0, where=w, **kw)


@pytest.mark.parametrize("uname", UFUNCS)
def test_merge_matches_numpy_path(emu, uname):
    cp, nrc = emu
    rng = np.random.default_rng(23)
    u = getattr(nr, uname)
    x = _data(rng, "float64", (30, 8), nan=True)
    sa, sb = nr.reduce(u, x[:11], axis=0), nr.reduce(u, x[11:], axis=0)
    ga, gb = nr.reduce(u, cp.asarray(x[:11]), axis=0), nr.reduce(u, cp.asarray(x[11:]), axis=0)
    _check(nr.merge(u, sa, sb), nrc.merge(u, ga, gb), cp, uname in EXACT)
    _check(nr.merge(u, sa, sb), nr.merge(u, ga, gb), cp, uname in EXACT)  # dispatch
    # broadcasting: one state against a row of states
    one = tuple(s[:1] for s in sa)
    _check(nr.merge(u, one, sb), nrc.merge(u, tuple(g[:1] for g in ga), gb), cp,
           uname in EXACT)
    with pytest.raises(TypeError, match="tuple"):
        nrc.merge(u, ga[0], gb)
    with pytest.raises(TypeError, match="mixed CuPy and non-CuPy arrays"):
        nr.merge(u, ga, sb)  # no silent host round trip
    with pytest.raises(TypeError, match="mixed CuPy and non-CuPy arrays"):
        nr.merge(u, sa, sb, out=tuple(cp.asarray(np.empty(8)) for _ in sa))


USER_FUNCTIONS = ["minmax", "nanminmax", "argminmax", "nanargminmax", "meanvar", "meanstd",
                  "nanmeanvar", "logsumexp", "fsum"]


@pytest.mark.parametrize("fname", USER_FUNCTIONS)
@pytest.mark.parametrize("dtype", ["float64", "float32", "int32", "bool"])
def test_user_functions_match_numpy_path(emu, fname, dtype):
    """numreduce's user functions on a (stand-in) CuPy array run the device
    kernels: every axis, keepdims, NaN-laden data, all-NaN slices (the
    warnings and errors of the NumPy path)."""
    cp, nrc = emu
    rng = np.random.default_rng(24)
    f = getattr(nr, fname)
    x = _data(rng, dtype, (17, 23), nan=True)
    exact = "minmax" in fname
    for axis in (None, 0, 1, -1):
        for keepdims in (False, True):
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                try:
                    cpu = f(x, axis=axis, keepdims=keepdims)
                except Exception as e:  # the device raises the same
                    with pytest.raises(type(e)):
                        f(cp.asarray(x), axis=axis, keepdims=keepdims)
                    continue
                dev = f(cp.asarray(x), axis=axis, keepdims=keepdims)
            _check(cpu, dev, cp, exact)
    if fname in ("meanvar", "meanstd", "nanmeanvar"):
        for kw in ({"ddof": 1}, {"dtype": np.float32}, {"where": x != x.flat[0]}):
            wdev = dict(kw)
            if "where" in kw:
                wdev["where"] = cp.asarray(kw["where"])
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                _check(f(x, axis=0, **kw), f(cp.asarray(x), axis=0, **wdev), cp)
    if np.dtype(dtype).kind == "f" and fname.startswith("nan"):
        allnan = np.full((3, 4), np.nan, dtype)
        if fname == "nanargminmax":
            with pytest.raises(ValueError, match="All-NaN"):
                f(cp.asarray(allnan), axis=0)
        else:
            with pytest.warns(RuntimeWarning):
                cpu = f(allnan, axis=0)
            with pytest.warns(RuntimeWarning):
                dev = f(cp.asarray(allnan), axis=0)
            _check(cpu, dev, cp, exact)


@pytest.mark.parametrize("fname", ["meanvar", "meanstd", "nanmeanvar", "fsum"])
@pytest.mark.parametrize("dtype", ["complex128", "complex64"])
def test_complex_user_functions_match_numpy_path(emu, fname, dtype):
    """Complex data on the device: the real and imaginary parts reduced
    apart, assembled as the NumPy path assembles them (np.mean's inf * 0
    rule, np.nanmean skipping an element with a NaN in either part)."""
    cp, nrc = emu
    rng = np.random.default_rng(25)
    x = (rng.standard_normal((13, 9)) + 1j * rng.standard_normal((13, 9))).astype(dtype)
    x[2, 3] = complex(np.nan, 1.0)
    x[5, 1] = complex(2.0, np.nan)
    x[7, 4] = complex(np.inf, 0.5)
    x[9] = complex(np.nan, np.nan)
    f = getattr(nr, fname)
    kws = [{}, {"axis": 0}, {"axis": 1, "keepdims": True}, {"axis": (0, 1)}]
    if fname != "fsum":
        kws += [{"axis": 0, "ddof": 1}, {"axis": 1, "dtype": np.complex64},
                {"axis": 0, "where": np.abs(x) < 1.5}]
    else:
        kws += [{"axis": 0, "dtype": np.complex64}]
    for kw in kws:
        kd = {k: (cp.asarray(v) if k == "where" else v) for k, v in kw.items()}
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            cpu = f(x, **kw)
            dev = f(cp.asarray(x), **kd)
        if not isinstance(cpu, tuple):
            cpu, dev = (cpu,), (dev,)
        for c, d in zip(cpu, dev):
            assert isinstance(d, cp.ndarray)
            c, d = np.asarray(c), d.get()
            assert c.shape == d.shape and c.dtype == d.dtype, (kw, c.dtype, d.dtype)
            np.testing.assert_allclose(d, c, rtol=1e-5 if "64" in dtype else 1e-12,
                                       equal_nan=True, err_msg=str(kw))
            np.testing.assert_array_equal(np.isnan(d), np.isnan(c), err_msg=str(kw))
    with pytest.raises(TypeError, match="long double"):
        nr.meanvar(cp.asarray(x), dtype=np.clongdouble) if fname != "fsum" else \
            nr.fsum(cp.asarray(x), dtype=np.clongdouble)


@pytest.mark.parametrize("dtype", ["complex128", "complex64"])
def test_complex_group_meanvar_matches_numpy_path(emu, dtype):
    cp, nrc = emu
    rng = np.random.default_rng(26)
    x = (rng.standard_normal((40, 3)) + 1j * rng.standard_normal((40, 3))).astype(dtype)
    x[4, 1] = complex(np.inf, 1.0)
    ids = rng.integers(0, 5, size=40)
    ids[ids == 3] = 4  # an empty group
    w = rng.random(x.shape) < 0.7
    for kw in ({}, {"ddof": 1}, {"dtype": np.complex64}):
        for wk in ({}, {"where": w}):
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                cpu = nr.group_meanvar(x, ids, 6, **kw, **wk)
                dev = nr.group_meanvar(cp.asarray(x), cp.asarray(ids), 6, **kw,
                                       **{k: cp.asarray(v) for k, v in wk.items()})
            for c, d in zip(cpu, dev):
                assert isinstance(d, cp.ndarray) and c.dtype == d.dtype
                np.testing.assert_allclose(d.get(), c, rtol=1e-5 if "64" in dtype else 1e-12,
                                           equal_nan=True)
                np.testing.assert_array_equal(np.isnan(d.get()), np.isnan(c))


@pytest.mark.parametrize("dtype", ["float64", "float32", "int32", "uint8", "bool"])
def test_group_argminmax_matches_numpy_path(emu, dtype):
    cp, nrc = emu
    rng = np.random.default_rng(27)
    x = _data(rng, dtype, (80,), nan=True)
    ids = rng.integers(0, 6, size=80)
    if np.dtype(dtype).kind == "f":
        x[ids == 2] = np.nan  # an all-NaN group: its first NaN
        x[np.flatnonzero(ids == 3)[1]] = np.nan  # a NaN later in a group
    for g in (None, 6):
        _check(nr.group_argminmax(x, ids, g), nr.group_argminmax(cp.asarray(x), cp.asarray(ids),
                                                                 g), cp, True)
        _check(nr.group_argminmax(x, ids, g),
               nrc.group_argminmax(cp.asarray(x), cp.asarray(ids), g), cp, True)
    with pytest.raises(ValueError, match="group 6 is empty"):
        nr.group_argminmax(cp.asarray(x), cp.asarray(ids), 7)
    with pytest.raises(ValueError, match="1-d"):
        nr.group_argminmax(cp.asarray(x.reshape(8, 10)), cp.asarray(ids[:8]))
    with pytest.raises(TypeError, match="group_argminmax: group_ids is a numpy.ndarray, not a "
                                        "cupy.ndarray"):
        nr.group_argminmax(cp.asarray(x), ids)


@pytest.mark.parametrize("dtype", ["complex128", "complex64"])
def test_complex_cumulative_functions_match_numpy_path(emu, dtype):
    """cumfsum and cummeanvar of complex data on the device: the real and
    imaginary parts accumulated apart, assembled as the NumPy path."""
    cp, nrc = emu
    rng = np.random.default_rng(28)
    x = (rng.standard_normal((6, 9)) * 1e8 + 1j * rng.standard_normal((6, 9))).astype(dtype)
    x[1, 2] = complex(np.nan, 1.0)
    x[3, 4] = complex(np.inf, -2.0)
    cases = [("cumfsum", {}), ("cumfsum", {"include_initial": True}),
             ("cumfsum", {"dtype": np.complex128}), ("cummeanvar", {}),
             ("cummeanvar", {"ddof": 1}), ("cummeanvar", {"dtype": np.complex64})]
    for fname, kw in cases:
        f = getattr(nr, fname)
        for ax in (0, 1):
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                cpu = f(x, axis=ax, **kw)
                dev = f(cp.asarray(x), axis=ax, **kw)
            cpu, dev = (cpu, dev) if isinstance(cpu, tuple) else ((cpu,), (dev,))
            for c, d in zip(cpu, dev):
                assert isinstance(d, cp.ndarray) and c.dtype == d.dtype, (fname, kw)
                np.testing.assert_allclose(d.get(), c, rtol=1e-5 if c.dtype.itemsize <= 8
                                           and c.dtype.kind == "c" or c.dtype == np.float32
                                           else 1e-12, equal_nan=True, err_msg=f"{fname} {kw}")
                np.testing.assert_array_equal(np.isnan(d.get()), np.isnan(c))


@pytest.mark.parametrize("uname", ["minimummaximum", "moments", "twosum"])
def test_at_boolean_indices_match_numpy_path(emu, uname):
    """Boolean index arrays in at(): NumPy's rules (a mask consumes as many
    axes as it has, its shape must match them), checked before writing."""
    cp, nrc = emu
    rng = np.random.default_rng(29)
    u = getattr(nr, uname)
    start = {"minimummaximum": (np.inf, -np.inf)}.get(uname, (0.0,) * u.nout)
    m2 = rng.random((3, 4)) < 0.5
    cases = [(np.array([True, False, True]), rng.standard_normal((2, 4))),
             ((slice(None), np.array([True, False, True, True])), 1.5),
             (m2, rng.standard_normal(int(m2.sum()))),
             ((np.array([2, 0]), np.array([True, False, True, False])), -0.5),
             (np.zeros((3, 4), bool), 7.0)]
    for idx, vals in cases:
        cpu = tuple(np.full((3, 4), s_) for s_ in start)
        dev = tuple(cp.asarray(c) for c in cpu)
        nr.at(u, cpu, idx, vals)
        didx = tuple(cp.asarray(i) if isinstance(i, np.ndarray) else i for i in idx) \
            if isinstance(idx, tuple) else cp.asarray(idx)
        nr.at(u, dev, didx, cp.asarray(np.asarray(vals)))
        _check(cpu, dev, cp, uname in EXACT)
    dev = tuple(cp.asarray(np.full((3, 4), s_)) for s_ in start)
    before = [d.get() for d in dev]
    for bad, msg in ((np.ones(4, bool), "along axis 0; size of axis is 3 but size of "
                                        "corresponding boolean axis is 4"),
                     ((slice(None), np.ones(3, bool)), "along axis 1; size of axis is 4"),
                     (np.ones((3, 4, 1), bool), "too many indices")):
        with pytest.raises(IndexError, match=msg):
            nr.at(u, tuple(np.full((3, 4), s_) for s_ in start), bad, 1.0)  # the NumPy path
        dbad = tuple(cp.asarray(i) if isinstance(i, np.ndarray) else i for i in bad) \
            if isinstance(bad, tuple) else cp.asarray(bad)
        with pytest.raises(IndexError, match=msg):
            nr.at(u, dev, dbad, 1.0)
    for d, b in zip(dev, before):  # nothing written
        np.testing.assert_array_equal(d.get(), b)


def _device_index(cp, idx):
    """An index with its NumPy arrays as CuPy arrays."""
    conv = (lambda i: cp.asarray(i) if isinstance(i, np.ndarray) else i)
    return tuple(conv(i) for i in idx) if isinstance(idx, tuple) else conv(idx)


def _at_index_cases(rng):
    """(accumulator shape, index): scalar booleans (an axis of length 1 or 0,
    an advanced index that broadcasts with the others), and integer and
    boolean arrays after an ellipsis or a newaxis, with NumPy's placement of
    the advanced axes (adjacent: in place; apart: first)."""
    i2, b4, b3 = np.array([2, 0, 2]), np.array([True, False, True, True]), \
        np.array([False, True, True])
    return [((3, 4), True), ((3, 4), False), ((3, 4), np.True_), ((3, 4), np.False_),
            ((3, 4), (True,)), ((3, 4), (Ellipsis, True)), ((3, 4), (slice(None), True, 1)),
            ((3, 4), (1, True)), ((3, 4), (i2, True)), ((3, 4), (True, i2)),
            ((3, 4), (i2[:1], False, slice(None))), ((3, 4), (True, True)),
            ((3, 4), (None, True, Ellipsis)), ((), True), ((), (Ellipsis, False)),
            ((3, 4), (b3, True)), ((3, 4), (slice(None), True, b4)),
            ((3, 4), (Ellipsis, i2[:2])), ((3, 4), (Ellipsis, b4)), ((3, 4), (Ellipsis, 2)),
            ((3, 4), (None, i2)), ((3, 4), (None, slice(None), i2[:1])),
            ((3, 4), (i2, None, np.array([1, 3, 0]))), ((3, 4), (Ellipsis, None, b4)),
            ((2, 3, 4), (Ellipsis, i2[:2], np.array([True, False, False, True]))),
            ((2, 3, 4), (0, Ellipsis, i2)),
            ((2, 3, 4), (np.array([1, 0]), Ellipsis, i2[:1])),
            ((2, 3, 4), (Ellipsis, b3, slice(1, 3))), ((2, 3, 4), (None, Ellipsis, -1, b4)),
            ((2, 3, 4), (slice(None), None, i2, True)),
            ((2, 3, 4), (np.ones((2, 3), bool), Ellipsis)),
            ((2, 3, 4), (Ellipsis, rng.random((3, 4)) < 0.5)),
            ((2, 3, 4), (np.array([[1], [0]]), Ellipsis, np.array([[0, 3]]))),
            ((2, 3, 4), (Ellipsis, [])), ((2, 3, 4), ([], Ellipsis)), ((5,), []),
            ((2, 3, 4), (Ellipsis,)), ((2, 3, 4), Ellipsis), ((2, 3, 4), None)]


@pytest.mark.parametrize("uname", ["minimummaximum", "moments", "twosum"])
def test_at_scalar_booleans_and_ellipsis_match_numpy_path(emu, uname):
    """at() with scalar booleans and with integer/boolean arrays after an
    ellipsis or newaxis: NumPy's indexing (numreduce.at on the CPU, which
    indexes a map of flat slots with the index itself) on the device;
    repeated slots accumulate; NumPy's errors, nothing written."""
    cp, nrc = emu
    rng = np.random.default_rng(33)
    u = getattr(nr, uname)
    start = {"minimummaximum": (np.inf, -np.inf)}.get(uname, (0.0,) * u.nout)
    for shape, idx in _at_index_cases(rng):
        ishape = np.arange(math.prod(shape)).reshape(shape)[idx].shape
        for vals in (rng.standard_normal(ishape), np.float64(1.5)):
            cpu = tuple(np.full(shape, s_) for s_ in start)
            dev = tuple(cp.asarray(c) for c in cpu)
            nr.at(u, cpu, idx, vals)
            nr.at(u, dev, _device_index(cp, idx), cp.asarray(vals))
            _check(cpu, dev, cp, uname in EXACT)
    # a 0-d boolean CuPy array is a scalar boolean too
    for flag in (True, False):
        cpu = tuple(np.full((3, 4), s_) for s_ in start)
        dev = tuple(cp.asarray(c) for c in cpu)
        nr.at(u, cpu, (np.asarray(flag), 1), 2.0)
        nr.at(u, dev, (cp.asarray(np.asarray(flag)), 1), 2.0)
        _check(cpu, dev, cp, uname in EXACT)
    dev = tuple(cp.asarray(np.full((2, 3, 4), s_)) for s_ in start)
    before = [d.get() for d in dev]
    for bad, msg in (((Ellipsis, np.array([0, 4])), "index 4 is out of bounds for axis 2 "
                                                    "with size 4"),
                     ((None, 0, Ellipsis, np.array([-5])), "index -5 is out of bounds for "
                                                           "axis 2 with size 4"),
                     ((Ellipsis, np.ones(3, bool)), "along axis 2; size of axis is 4"),
                     ((None, Ellipsis, np.ones(2, bool), 0), "along axis 1; size of axis is 3"),
                     ((0, True, Ellipsis, 0, 0, 0), "too many indices"),
                     ((Ellipsis, 0, Ellipsis), "single ellipsis"),
                     ((np.array([1, 0]), False), "shape mismatch: indexing arrays could not "
                                                 r"be broadcast together with shapes \(2,\) "
                                                 r"\(0,\)"),
                     ((Ellipsis, np.ones(3, bool), np.array([0, 1])), "shape mismatch"),
                     ((Ellipsis, np.array([0.5])), "must be of integer"),
                     ((None, 0.5), "only integers")):
        with pytest.raises(IndexError, match=msg):  # the NumPy path: the same error
            nr.at(u, tuple(np.full((2, 3, 4), s_) for s_ in start), bad, 1.0)
        with pytest.raises(IndexError, match=msg):
            nr.at(u, dev, _device_index(cp, bad), 1.0)
    with pytest.raises(ValueError, match="does not broadcast"):  # False: nothing to update
        nr.at(u, dev, (Ellipsis, False), cp.asarray(np.ones(3)))
    for d, b in zip(dev, before):  # nothing written
        np.testing.assert_array_equal(d.get(), b)


@pytest.mark.parametrize("dtype", ["complex128", "complex64"])
def test_complex_logsumexp_matches_numpy_path(emu, dtype):
    """Complex logsumexp on the device: the NumPy path's array code (SciPy's
    complex rules) with CuPy's operations; inf/NaN parts, ties of the
    largest real part, empty and 0-d input."""
    cp, nrc = emu
    rng = np.random.default_rng(30)
    x = (rng.standard_normal((7, 5)) * 3 + 1j * rng.standard_normal((7, 5)) * 4).astype(dtype)
    x[1, 2] = complex(np.inf, 1.0)
    x[3] = x[3, 0]  # ties of the largest real part
    x[5, 4] = complex(np.nan, 0.0)
    for kw in ({}, {"axis": 0}, {"axis": 1}, {"axis": (0, 1), "keepdims": True},
               {"axis": -1, "keepdims": True}):
        cpu = nr.logsumexp(x, **kw)
        dev = nr.logsumexp(cp.asarray(x), **kw)
        assert isinstance(dev, cp.ndarray)
        c, d = np.asarray(cpu), dev.get()
        assert c.shape == d.shape and c.dtype == d.dtype, kw
        np.testing.assert_allclose(d, c, rtol=1e-5 if dtype == "complex64" else 1e-13,
                                   equal_nan=True)
        np.testing.assert_array_equal(np.isnan(d), np.isnan(c))
    e = np.empty((0, 3), dtype)
    _check(nr.logsumexp(e, axis=0), nr.logsumexp(cp.asarray(e), axis=0), cp, True)
    z = np.asarray(x[0, 0])
    np.testing.assert_allclose(nr.logsumexp(cp.asarray(z)).get(), nr.logsumexp(z), rtol=1e-6)


@pytest.mark.parametrize("uname", ["moments", "nanmoments", "maxsumexp", "twosum",
                                   "minimummaximum", "summary", "nansummary"])
def test_initial_none_segments_and_groups_match_numpy_path(emu, uname):
    """initial=None in segmented_reduce / reduce_by_group on the device: no
    identity (empty segments, empty groups and where= raise, before any
    work), non-empty ones as the CPU loops start them; reduce's
    initial=None (NumPy's copy of the first element) stays refused."""
    cp, nrc = emu
    u = getattr(nr, uname)
    x = np.array([[np.nan, np.inf, 2.0, -1.0, 5.0, 0.5]] * 2)
    starts, stops = [0, 1, 2, 0], [1, 2, 6, 6]
    _check_states(uname, nr.segmented_reduce(u, x, starts, stops, axis=1, initial=None),
                  nr.segmented_reduce(u, cp.asarray(x), starts, stops, axis=1, initial=None),
                  cp, uname == "minimummaximum")
    ids = np.array([0, 1, 2, 2, 0, 1])
    _check_states(uname, nr.reduce_by_group(u, x, ids, axis=1, initial=None),
                  nr.reduce_by_group(u, cp.asarray(x), cp.asarray(ids), axis=1, initial=None),
                  cp, uname == "minimummaximum")
    with pytest.raises(ValueError, match="is empty"):
        nr.segmented_reduce(u, cp.asarray(x), [0, 3], [2, 3], axis=1, initial=None)
    with pytest.raises(ValueError, match="is empty"):
        nr.reduce_by_group(u, cp.asarray(x), cp.asarray(ids), 4, axis=1, initial=None)
    with pytest.raises(ValueError, match="identity"):
        nr.segmented_reduce(u, cp.asarray(x), [0], [3], axis=1, initial=None,
                            where=cp.asarray(x > 1))
    _check_states(uname, nr.reduce(u, x, axis=1, initial=None),
                  nr.reduce(u, cp.asarray(x), axis=1, initial=None), cp,
                  uname == "minimummaximum")


# ---------------------------------------------------------------------------
# reduce(..., initial=None) of the ufuncs with initials: NumPy's copy of the
# first element into every output, the rest folded into it (_core._reduce's
# mode 1); on the device combine(copy, rest), the rest reduced from the
# initials with a mask that leaves out the first slice.
# ---------------------------------------------------------------------------

WITH_INITIALS = ["moments", "nanmoments", "maxsumexp", "twosum", "summary", "nansummary"]


def _check_copy_first(uname, cpu, dev, cp):
    """_check_states of initial=None states.  twosum's e starts as a copy of
    the first element, so (s, e) is no compensated pair: s + e is compared in
    float64 (in the states' own float32 it rounds by where the sum was
    split), within float32's rounding of e for float32 states."""
    if uname == "twosum" and np.asarray(cpu[0]).dtype == np.float32:
        c = np.asarray(cpu[0], np.float64) + np.asarray(cpu[1], np.float64)
        d = dev[0].get().astype(np.float64) + dev[1].get().astype(np.float64)
        for r, g in zip(cpu, dev):
            assert isinstance(g, cp.ndarray) and g.shape == np.shape(r)
            assert g.dtype == np.asarray(r).dtype
        np.testing.assert_array_equal(np.isnan(d), np.isnan(c))
        fin = np.abs(c[np.isfinite(c)])
        np.testing.assert_allclose(d, c, rtol=1e-6, atol=1e-6 * float(fin.max(initial=0)))
        return
    _check_states(uname, cpu, dev, cp)


def _copy_first_data(rng, dtype, shape, uname):
    """NaN-laden data; non-negative for the moments family and integers.  A
    first element x0 < 0 copied into moments' count slot makes the count
    x0 + k pass near (an integer: through) 0, where the update divides by
    it: any rounding difference in the rest's state is amplified without
    bound, and for an integer the CPU's own loops differ (a division by 0
    in Welford's update where the reduced axis is strided, a finite combine
    of a contiguous row's block).  test_reduce_initial_none_inf_first has
    negative first elements of a well-conditioned count."""
    x = _data(rng, dtype, shape, nan=True)
    return np.abs(x) if ("moments" in uname or "wsummary" in uname
                        or np.dtype(dtype).kind == "i") else x


def _copy_first_cases():
    return [(u, d) for u in WITH_INITIALS for d in DTYPES if np.dtype(d).char in
            src.loop_types(u)]


@pytest.mark.parametrize("uname,dtype", _copy_first_cases())
def test_reduce_initial_none_matches_numpy_path(emu, uname, dtype):
    """initial=None against the NumPy path: every axis (None, (), tuples),
    keepdims, non-contiguous input, length-1 reduced axes (the copy alone),
    0-d input, out= (written and returned; another dtype cast), dtype=, and
    the NumPy path's errors (where=, empty reductions) before any work."""
    cp, nrc = emu
    rng = np.random.default_rng(31)
    u, g = getattr(nr, uname), getattr(nrc, uname)

    def both(x, **kw):
        with np.errstate(all="ignore"):
            _check_copy_first(uname, nr.reduce(u, x, initial=None, **kw),
                              nr.reduce(u, cp.asarray(x), initial=None, **kw), cp)

    x = _copy_first_data(rng, dtype, (9, 13), uname)
    for axis in (None, (), 0, 1, -1, (0, 1), (1, 0)):
        for keepdims in (False, True):
            both(x, axis=axis, keepdims=keepdims)
            both(x.T, axis=axis, keepdims=keepdims)  # strided
    both(x[::2, ::-3], axis=1)
    x3 = _copy_first_data(rng, dtype, (3, 4, 5), uname)
    for axis in ((0, 2), (2, 0), (1, 2), (0, 1, 2), 1):
        for keepdims in (False, True):
            both(x3, axis=axis, keepdims=keepdims)
    # length-1 reduced axes: the copy of the element, nothing folded
    for shape, axis in (((4, 1), 1), ((1, 5), 0), ((1, 1), None), ((1, 6, 1), (0, 2)),
                        ((5,), ())):
        both(_copy_first_data(rng, dtype, shape, uname), axis=axis)
        both(_copy_first_data(rng, dtype, shape, uname), axis=axis, keepdims=True)
    both(np.asarray(_copy_first_data(rng, dtype, (1,), uname)[0]), axis=None)  # 0-d
    both(_copy_first_data(rng, dtype, (0, 3), uname), axis=1)  # nothing reduced is empty
    # the method and the module function alike
    _check_copy_first(uname, nr.reduce(u, x, axis=0, initial=None),
                      g.reduce(cp.asarray(x), axis=0, initial=None), cp)
    # out=: written in place and returned; float32 outputs cast (same kind)
    cpu = nr.reduce(u, x, axis=0, initial=None)
    outs = tuple(cp.asarray(np.full(13, 7, c.dtype)) for c in cpu)
    res = nr.reduce(u, cp.asarray(x), axis=0, out=outs, initial=None)
    assert all(r is o for r, o in zip(res, outs))
    _check_copy_first(uname, cpu, res, cp)
    outs = tuple(cp.asarray(np.empty((1, 13), np.float32)) for _ in cpu)
    res = nr.reduce(u, cp.asarray(x), axis=0, out=outs, keepdims=True, initial=None)
    assert all(r is o for r, o in zip(res, outs))
    cpu32 = nr.reduce(u, x, axis=0, out=tuple(np.empty((1, 13), np.float32) for _ in cpu),
                      keepdims=True, initial=None)
    if uname == "twosum":
        _check_copy_first(uname, cpu32, res, cp)
    else:
        for c, r in zip(cpu32, res):
            np.testing.assert_allclose(r.get(), c, rtol=1e-6, equal_nan=True)
    # out= sharing memory with the input: the input is read before the write
    if np.dtype(dtype) == np.float64 and cpu[0].dtype == np.float64:
        cx, dx = x.copy(), cp.asarray(x.copy())
        cres = nr.reduce(u, cx, axis=0, out=tuple(cx[k] for k in range(u.nout)), initial=None)
        dres = nr.reduce(u, dx, axis=0, out=tuple(dx[k] for k in range(u.nout)), initial=None)
        _check_copy_first(uname, tuple(np.array(r) for r in cres), dres, cp)
    # dtype=: the loop of that dtype, the first element cast from the input
    if uname == "twosum" and np.dtype(dtype).kind in "iub":
        both(x, axis=1, dtype=np.float32)
    # errors: as the NumPy path raises them, nothing written
    for kw, exc in (({"where": np.ones(x.shape, bool)}, ValueError),
                    ({"where": np.ones(x.shape, bool), "axis": 1}, ValueError)):
        with pytest.raises(exc) as ce:
            nr.reduce(u, x, initial=None, **kw)
        kw = dict(kw, where=cp.asarray(kw["where"]))
        with pytest.raises(exc) as de:
            nr.reduce(u, cp.asarray(x), initial=None, **kw)
        assert str(de.value) == str(ce.value)
        assert "does not have an identity" in str(de.value)
    for shape, axis in (((0, 4), 0), ((0, 4), None), ((3, 0), (0, 1)), ((0,), 0)):
        e = np.empty(shape, dtype)
        with pytest.raises(ValueError) as ce:
            nr.reduce(u, e, axis=axis, initial=None)
        with pytest.raises(ValueError) as de:
            nr.reduce(u, cp.asarray(e), axis=axis, initial=None)
        assert str(de.value) == str(ce.value)
        assert "zero-size array" in str(de.value)
    outs = tuple(cp.asarray(np.full(13, 7.0)) for _ in range(u.nout))
    with pytest.raises(ValueError, match="identity"):
        nr.reduce(u, cp.asarray(x), axis=0, out=outs, initial=None,
                  where=cp.asarray(np.ones(x.shape, bool)))
    for o in outs:
        np.testing.assert_array_equal(o.get(), 7.0)
    with pytest.raises(TypeError, match="not a cupy.ndarray"):
        nr.reduce(u, cp.asarray(x), axis=0, initial=None, where=np.ones(x.shape, bool))


@pytest.mark.parametrize("uname", WITH_INITIALS)
def test_reduce_initial_none_inf_first(emu, uname):
    """inf, -inf, NaN and signed zeros as the copied first element (and
    elsewhere), against the NumPy path where its loop folds the rest into
    the copy by combine (a C-contiguous array's last axis, or every axis):
    there, as on the device, moments of an infinite first element have the
    mean NaN (the count slot holds the inf).  Where the CPU's reduced axis
    is strided its Welford update steps the copy instead, and the mean
    comes out as the first element plus the rest (+-inf): the CPU path's
    own answers depend on its loop for such a copy."""
    cp, nrc = emu
    u = getattr(nr, uname)
    rng = np.random.default_rng(32)
    x = rng.standard_normal((7, 6)) * 10
    x[:, 0] = [np.inf, -np.inf, np.nan, 0.0, -0.0, 2.5, -3.25]
    x[5, 3], x[6, 4], x[3, 2] = np.inf, -np.inf, np.nan
    with np.errstate(all="ignore"):
        for xx in (x, x[:, :1], x[:, :2], np.ascontiguousarray(x[:, [0, 3, 1]])):
            _check_copy_first(uname, nr.reduce(u, xx, axis=1, initial=None),
                              nr.reduce(u, cp.asarray(xx), axis=1, initial=None), cp)
            _check(nr.reduce(u, xx[:, :1], axis=1, initial=None),  # the copy, bit for bit
                   nr.reduce(u, cp.asarray(xx[:, :1]), axis=1, initial=None), cp, True)
        for row in x:
            _check_copy_first(uname, nr.reduce(u, row, axis=None, initial=None),
                              nr.reduce(u, cp.asarray(row), axis=None, initial=None), cp)


# ---------------------------------------------------------------------------
# Reductions of several arrays: the K-source ufuncs' kernels (K inputs, the
# map lifting one element's K values into the state) and the user functions
# on them through the same statistics layer: weights=, b=, covariance,
# correlation, sumprod; and mapreduce of CuPy sources.
# ---------------------------------------------------------------------------

SOURCE_UFUNCS = list(src.SOURCE_TRAITS)


def _canonical(uname, states):
    """The values a K-source state stands for, independent of how the
    reduction was split (the CPU's blocks, the ReductionKernel's tree): the
    weight sum, mean and M2 of wmoments; count, means and co-moments of
    comoments; s + e of twoprod; (log|sum|, sign) of maxsumexpb."""
    st = [np.asarray(s.get() if hasattr(s, "get") else s, dtype=np.float64) for s in states]
    with np.errstate(invalid="ignore", over="ignore"):
        if uname in ("wmoments", "nanwmoments"):
            return st[0], st[1] + st[2], st[3]
        if uname == "comoments":
            return st[0], st[1] + st[3], st[2] + st[4], st[5], st[6], st[7]
        if uname in ("wsummary", "nanwsummary"):
            return st[0], st[1], st[2], st[3] + st[4], st[5], st[6], st[7]
        if uname == "twoprod":
            return (st[0] + st[1],)
        # maxsumexpb: (log|sum|, sign) -- its reference m is the max, or
        # lower where a part's sum fell below half of exp(max)
        with np.errstate(divide="ignore"):
            return st[0] + np.log(np.abs(st[1] + 1)), np.sign(st[1] + 1)


def _close(cpu, dev, rtol=1e-12):
    for c, d in zip(cpu, dev):
        assert c.shape == d.shape, (c.shape, d.shape)
        np.testing.assert_array_equal(np.isnan(d), np.isnan(c))
        fin = np.abs(c[np.isfinite(c)])
        scale = float(fin.max()) if fin.size else 0.0
        np.testing.assert_allclose(d, c, rtol=rtol, atol=rtol * 10 * scale)


def _check_source_states(uname, cpu, dev, cp, rtol=1e-12):
    for c, d in zip(cpu, dev):
        assert isinstance(d, cp.ndarray), type(d)
        assert np.asarray(c).dtype == d.dtype and np.shape(c) == d.shape, (c, d)
    _close(_canonical(uname, cpu), _canonical(uname, dev), rtol)


def _pair_data(rng, uname, dtype, shape, nan=True):
    x = (rng.standard_normal(shape) * 3 + 1e3).astype(dtype)
    if uname in ("wmoments", "nanwmoments", "wsummary", "nanwsummary"):
        y = rng.integers(0, 4, size=shape).astype(dtype)  # zeros: no element
    elif uname == "maxsumexpb":
        y = rng.standard_normal(shape).astype(dtype)  # negative and zero b too
        y[rng.random(shape) < 0.1] = 0
        x = (x - 1e3).astype(dtype)
    else:
        y = (rng.standard_normal(shape) * 2 - 5).astype(dtype)
    if nan:
        x.reshape(-1)[::11] = np.nan
    return x, y


@pytest.mark.parametrize("uname", SOURCE_UFUNCS)
@pytest.mark.parametrize("dtype", ["float64", "float32"])
def test_source_ufuncs_reduce_match_numpy_path(emu, uname, dtype):
    """reduce of a K-source ufunc through the K-input ReductionKernel: axes,
    keepdims, broadcast sources, where=, out=, empty slices, initial=."""
    cp, nrc = emu
    rng = np.random.default_rng(31)
    u, g = getattr(nr, uname), getattr(nrc, uname)
    assert src.loop_types(uname) == {c: o for c, o in src.loop_types(uname).items()}
    tol = 1e-5 if (uname == "twoprod" and dtype == "float32") else 1e-12
    x, y = _pair_data(rng, uname, dtype, (9, 13))
    dx, dy = cp.asarray(x), cp.asarray(y)
    for axis in (None, 0, 1, -1, (0, 1)):
        for keepdims in (False, True):
            _check_source_states(uname, nr.reduce(u, (x, y), axis=axis, keepdims=keepdims),
                                 nr.reduce(u, (dx, dy), axis=axis, keepdims=keepdims), cp, tol)
    # the DeviceUFunc's reduce, numreduce.cupy.reduce, broadcast sources
    _check_source_states(uname, nr.reduce(u, (x, y[0]), axis=0), g.reduce((dx, dy[0]), axis=0),
                         cp, tol)
    _check_source_states(uname, nr.reduce(u, (x, y[:, :1]), axis=1),
                         nrc.reduce(u, (dx, dy[:, :1]), axis=1), cp, tol)
    # mixed dtypes: the sources' common dtype (sources_dtype)
    _check_source_states(uname, nr.reduce(u, (x, y.astype(np.int16)), axis=1),
                         nr.reduce(u, (dx, cp.asarray(y.astype(np.int16))), axis=1), cp, tol)
    # one- and many-element slices, non-contiguous sources
    for n in (1, 2, 3, 64):
        xn, yn = _pair_data(rng, uname, dtype, (4, n))
        _check_source_states(uname, nr.reduce(u, (xn, yn), axis=1),
                             nr.reduce(u, (cp.asarray(xn), cp.asarray(yn)), axis=1), cp, tol)
    _check_source_states(uname, nr.reduce(u, (x[::2, ::-3], y[::2, ::-3]), axis=0),
                         nr.reduce(u, (dx[::2, ::-3], dy[::2, ::-3]), axis=0), cp, tol)
    # where= (a whole slice masked out: the initials)
    w = rng.random(x.shape) < 0.6
    w[2] = False
    for axis in (0, 1):
        _check_source_states(uname, nr.reduce(u, (x, y), axis=axis, where=w),
                             nr.reduce(u, (dx, dy), axis=axis, where=cp.asarray(w)), cp, tol)
    # out=: written in place and returned
    cpu = nr.reduce(u, (x, y), axis=0)
    outs = tuple(cp.asarray(np.empty(13, c.dtype)) for c in cpu)
    res = nr.reduce(u, (dx, dy), axis=0, out=outs)
    assert all(r is o for r, o in zip(res, outs))
    _check_source_states(uname, cpu, res, cp, tol)
    # initial= (the seed merged once, as the CPU loops start from it)
    seed = {"twoprod": (1.5, 0.0), "maxsumexpb": (0.5, -0.25)}.get(uname)
    if seed is not None:
        for axis in (0, 1):
            _check_source_states(uname, nr.reduce(u, (x, y), axis=axis, initial=seed),
                                 nr.reduce(u, (dx, dy), axis=axis, initial=seed), cp, tol)
    # empty reductions: the initials
    e = np.empty((0, 4), dtype)
    for axis in (0, 1, None):
        _check(nr.reduce(u, (e, e), axis=axis), nr.reduce(u, (cp.asarray(e), cp.asarray(e)),
                                                           axis=axis), cp, exact=True)
    # errors, before any work: NumPy beside CuPy, shapes, axis, initial=None
    with pytest.raises(TypeError, match="mixed CuPy and non-CuPy"):
        nr.reduce(u, (dx, y), axis=0)
    with pytest.raises(TypeError, match="not a cupy.ndarray"):
        nrc.reduce(u, (dx, y), axis=0)
    with pytest.raises(ValueError, match="do not broadcast"):
        nr.reduce(u, (dx, dy[:, :5]), axis=0)
    with pytest.raises(np.exceptions.AxisError):
        nr.reduce(u, (dx, dy), axis=2)
    with pytest.raises(ValueError, match="initial=None"):
        nr.reduce(u, (dx, dy), axis=0, initial=None)
    with pytest.raises(TypeError, match="real numbers only"):
        nr.reduce(u, (dx.astype(np.complex128), dy), axis=0)


@pytest.mark.parametrize("uname", SOURCE_UFUNCS)
def test_source_ufuncs_call_and_merge_match_numpy_path(emu, uname):
    cp, nrc = emu
    rng = np.random.default_rng(32)
    u, g = getattr(nr, uname), getattr(nrc, uname)
    assert g.nin == u.nin == 2 and g.nout == u.nout
    x, y = _pair_data(rng, uname, "float64", (6, 5))
    _check(u(x, y[0]), g(cp.asarray(x), cp.asarray(y[0])), cp, exact=True)  # one element's state
    _check(u(x.astype(np.float32), y), g(cp.asarray(x.astype(np.float32)), cp.asarray(y)), cp,
           exact=True)
    with pytest.raises(TypeError, match="not a cupy.ndarray"):
        g(cp.asarray(x), y)
    sa, sb = nr.reduce(u, (x[:2], y[:2]), axis=0), nr.reduce(u, (x[2:], y[2:]), axis=0)
    ga = nr.reduce(u, (cp.asarray(x[:2]), cp.asarray(y[:2])), axis=0)
    gb = nr.reduce(u, (cp.asarray(x[2:]), cp.asarray(y[2:])), axis=0)
    _check_source_states(uname, nr.merge(u, sa, sb), nr.merge(u, ga, gb), cp)
    _check_source_states(uname, nr.merge(u, sa, sb), nrc.merge(g, ga, gb), cp)


def _source_tol(uname, dtype):
    return 1e-5 if (uname == "twoprod" and dtype == "float32") else 1e-12


def _seed(uname, dtype):
    """An initial= state of each K-source ufunc (its empty state, moved)."""
    return {"twoprod": (1.5, 0.0), "maxsumexpb": (0.5, -0.25), "wmoments": (2.0, 1.0, 0.5, 3.0),
            "nanwmoments": (2.0, 1.0, 0.5, 3.0),
            "comoments": (2.0, 1.0, -1.0, 0.5, 0.25, 3.0, 2.0, 0.5),
            "wsummary": (2.0, -1.0, 3.0, 1.0, 0.5, 3.0, 0.25, 9.0),
            "nanwsummary": (2.0, -1.0, 3.0, 1.0, 0.5, 3.0, 0.25, 9.0)}[uname]


@pytest.mark.parametrize("uname", SOURCE_UFUNCS)
@pytest.mark.parametrize("dtype", ["float64", "float32"])
def test_source_ufuncs_scan_and_segments_match_numpy_path(emu, uname, dtype):
    """accumulate, reduceat and segmented_reduce of a K-source ufunc on the
    device (the sources packed side by side, the scan and segments
    RawKernels reading sources<T, K>): both axes, broadcast and mixed-dtype
    sources, empty segments, where=, initial=, dtype=, out=, and every
    error before anything is written."""
    cp, nrc = emu
    rng = np.random.default_rng(35)
    u, g = getattr(nr, uname), getattr(nrc, uname)
    tol = _source_tol(uname, dtype)
    x, y = _pair_data(rng, uname, dtype, (9, 13))
    dx, dy = cp.asarray(x), cp.asarray(y)
    for axis in (0, 1, -1):
        _check_source_states(uname, nr.accumulate(u, (x, y), axis=axis),
                             nrc.accumulate(g, (dx, dy), axis=axis), cp, tol)
    _check_source_states(uname, nr.accumulate(u, (x, y[0]), axis=0),
                         nr.accumulate(u, (dx, dy[0]), axis=0), cp, tol)
    _check_source_states(uname, nr.accumulate(u, (x[:, 3], y[:, 3])),
                         nr.accumulate(u, (dx[:, 3], dy[:, 3])), cp, tol)
    _check_source_states(uname, nr.accumulate(u, (x, y.astype(np.int16)), axis=1),
                         nr.accumulate(u, (dx, cp.asarray(y.astype(np.int16))), axis=1), cp, tol)
    x3, y3 = _pair_data(rng, uname, dtype, (3, 7, 4))
    d3 = (cp.asarray(x3), cp.asarray(y3))
    for axis in (0, 1, 2):
        _check_source_states(uname, nr.accumulate(u, (x3, y3), axis=axis),
                             nr.accumulate(u, d3, axis=axis), cp, tol)
        n = x3.shape[axis]
        _check_source_states(uname, nr.reduceat(u, (x3, y3), [0, n - 1, 1], axis=axis),
                             nr.reduceat(u, d3, [0, n - 1, 1], axis=axis), cp, tol)
    for axis, idx in ((0, [0, 5, 3, 8]), (1, [0, 5, 3, 12, 12])):
        _check_source_states(uname, nr.reduceat(u, (x, y), idx, axis=axis),
                             nrc.reduceat(g, (dx, dy), idx, axis=axis), cp, tol)
        _check_source_states(uname, nr.reduceat(u, (x, y), idx, axis=axis),
                             nr.reduceat(u, (dx, dy), cp.asarray(np.array(idx)), axis=axis), cp,
                             tol)
    starts, stops = [0, 2, -3, 4, 1], [4, 6, 100, 4, 9]  # segment 3 empty
    w = rng.random(x.shape) < 0.6
    w[:, 2] = False
    for axis in (0, 1):
        for kw in ({}, {"initial": _seed(uname, dtype)}):
            _check_source_states(uname, nr.segmented_reduce(u, (x, y), starts, stops, axis=axis,
                                                            **kw),
                                 nrc.segmented_reduce(g, (dx, dy), starts, stops, axis=axis,
                                                      **kw), cp, tol)
            _check_source_states(uname, nr.segmented_reduce(u, (x, y), starts, stops, axis=axis,
                                                            where=w, **kw),
                                 nr.segmented_reduce(u, (dx, dy), starts, stops, axis=axis,
                                                     where=cp.asarray(w), **kw), cp, tol)
    # initial=None: each segment starts as the CPU's (from the initials);
    # an empty segment is then a ValueError, before any work
    ne_starts, ne_stops = [0, 2, -3, 1], [4, 6, 100, 9]
    for axis in (0, 1):
        _check_source_states(uname, nr.segmented_reduce(u, (x, y), ne_starts, ne_stops,
                                                        axis=axis, initial=None),
                             nr.segmented_reduce(u, (dx, dy), ne_starts, ne_stops, axis=axis,
                                                 initial=None), cp, tol)
    with pytest.raises(ValueError, match=r"segment 3 \(\[4:4\] along axis 1\) is empty"):
        nr.segmented_reduce(u, (dx, dy), starts, stops, axis=1, initial=None)
    # dtype=: the float32 sources in the float64 loop
    if dtype == "float32":
        _check_source_states(uname, nr.reduceat(u, (x, y), [0, 4], axis=1, dtype=np.float64),
                             nr.reduceat(u, (dx, dy), [0, 4], axis=1, dtype=np.float64), cp)
    # empty arrays along the axis, and empty segments only
    e = np.empty((0, 4), dtype)
    de = cp.asarray(e)
    _check(nr.accumulate(u, (e, e), axis=0), nr.accumulate(u, (de, de), axis=0), cp, exact=True)
    _check(nr.segmented_reduce(u, (e, e), [0, 0], [0, 0], axis=0),
           nr.segmented_reduce(u, (de, de), [0, 0], [0, 0], axis=0), cp, exact=True)
    # out=: written and returned
    cpu = nr.accumulate(u, (x, y), axis=1)
    outs = tuple(cp.asarray(np.empty(c.shape, c.dtype)) for c in cpu)
    res = nr.accumulate(u, (dx, dy), axis=1, out=outs)
    assert all(r is o for r, o in zip(res, outs))
    _check_source_states(uname, cpu, res, cp, tol)
    cpu = nr.segmented_reduce(u, (x, y), starts, stops, axis=1)
    outs = tuple(cp.asarray(np.full(c.shape, 7, c.dtype)) for c in cpu)
    res = nr.segmented_reduce(u, (dx, dy), starts, stops, axis=1, out=outs)
    assert all(r is o for r, o in zip(res, outs))
    _check_source_states(uname, cpu, res, cp, tol)
    # errors before any work: out= untouched
    before = [o.get() for o in outs]
    for call, exc, msg in [
            (lambda: nr.segmented_reduce(u, dx, [0], [2], axis=1, out=outs), TypeError,
             "reduces 2 arrays together"),
            (lambda: nr.segmented_reduce(u, (dx, dy, dy), [0], [2], axis=1, out=outs),
             TypeError, "reduces 2 arrays together"),
            (lambda: nr.segmented_reduce(u, (dx, dy[:, :4]), [0], [2], axis=1, out=outs),
             ValueError, "do not broadcast"),
            (lambda: nrc.segmented_reduce(u, (dx, y), [0], [2], axis=1, out=outs), TypeError,
             "not a cupy.ndarray"),
            (lambda: nr.segmented_reduce(u, (dx, y), [0], [2], axis=1, out=outs), TypeError,
             "mixed CuPy and non-CuPy"),
            (lambda: nr.segmented_reduce(u, (dx, dy), [0, 1], [2], axis=1, out=outs),
             ValueError, "same length"),
            (lambda: nr.segmented_reduce(u, (dx, dy), starts, stops, axis=1, out=outs,
                                         where=cp.asarray(w[:, :3])), ValueError, "broadcast"),
            (lambda: nr.segmented_reduce(u, (dx, dy), starts, stops, axis=2, out=outs),
             np.exceptions.AxisError, "out of bounds"),
            (lambda: nr.segmented_reduce(u, (dx.astype(np.complex128), dy), [0], [2], axis=1,
                                         out=outs), TypeError, "real numbers only"),
            (lambda: nr.accumulate(u, (dx, dy), axis=(0, 1)), ValueError, "one axis"),
            (lambda: nr.accumulate(u, (dx[0, 0], dy[0, 0])), TypeError, "scalar"),
            (lambda: nr.reduceat(u, (dx, dy), [0, 13], axis=1, out=outs), IndexError,
             "out-of-bounds"),
            (lambda: nr.reduceat(u, (dx, dy), np.array([0, 2]), axis=1), TypeError,
             "not a cupy.ndarray")]:
        with pytest.raises(exc, match=msg):
            call()
    for o, b in zip(outs, before):
        np.testing.assert_array_equal(o.get(), b)


@pytest.mark.parametrize("uname", SOURCE_UFUNCS)
@pytest.mark.parametrize("dtype", ["float64", "float32"])
def test_source_ufuncs_groups_and_at_match_numpy_path(emu, uname, dtype):
    """reduce_by_group and at of a K-source ufunc on the device: both axes,
    an empty group, a group all masked out, initial=, out=, at with a tuple
    of values (broadcast, 2-d accumulators, repeated slots), errors first."""
    cp, nrc = emu
    rng = np.random.default_rng(36)
    u, g = getattr(nr, uname), getattr(nrc, uname)
    tol = _source_tol(uname, dtype)
    x, y = _pair_data(rng, uname, dtype, (40, 3))
    dx, dy = cp.asarray(x), cp.asarray(y)
    ids = rng.integers(0, 6, size=40)
    ids[ids == 4] = 5  # group 4 empty (with num_groups=7, 6 too)
    dids = cp.asarray(ids)
    for kw in ({}, {"initial": _seed(uname, dtype)}):
        for ax, (xx, yy) in ((0, (x, y)), (1, (np.ascontiguousarray(x.T),
                                                np.ascontiguousarray(y.T)))):
            _check_source_states(uname, nr.reduce_by_group(u, (xx, yy), ids, 7, axis=ax, **kw),
                                 nrc.reduce_by_group(g, (cp.asarray(xx), cp.asarray(yy)), dids,
                                                     7, axis=ax, **kw), cp, tol)
        w = rng.random(x.shape) < 0.5
        w[ids == 1] = False  # a group with elements, all masked out
        _check_source_states(uname, nr.reduce_by_group(u, (x, y), ids, 7, where=w, **kw),
                             nr.reduce_by_group(u, (dx, dy), dids, 7, where=cp.asarray(w), **kw),
                             cp, tol)
    # initial=None: every group starts as the CPU's; an empty group is a ValueError
    full = np.arange(40) % 5
    _check_source_states(uname, nr.reduce_by_group(u, (x, y), full, 5, initial=None),
                         nr.reduce_by_group(u, (dx, dy), cp.asarray(full), 5, initial=None), cp,
                         tol)
    with pytest.raises(ValueError, match="group 4 is empty"):
        nr.reduce_by_group(u, (dx, dy), dids, 7, initial=None)
    # broadcast sources: one weight per row
    _check_source_states(uname, nr.reduce_by_group(u, (x, y[:, :1]), ids, 7),
                         nr.reduce_by_group(u, (dx, dy[:, :1]), dids, 7), cp, tol)
    cpu = nr.reduce_by_group(u, (x, y), ids, 7)
    outs = tuple(cp.asarray(np.full(c.shape, 7, c.dtype)) for c in cpu)
    res = nr.reduce_by_group(u, (dx, dy), dids, 7, out=outs)
    assert all(r is o for r, o in zip(res, outs))
    _check_source_states(uname, cpu, res, cp, tol)
    before = [o.get() for o in outs]
    bad = ids.copy()
    bad[17] = 7
    with pytest.raises(IndexError, match=r"group_ids\[17\] = 7 is outside"):
        nr.reduce_by_group(u, (dx, dy), cp.asarray(bad), 7, out=outs)
    with pytest.raises(TypeError, match="reduces 2 arrays together"):
        nr.reduce_by_group(u, dx, dids, 7, out=outs)
    with pytest.raises(TypeError, match="not a cupy.ndarray"):
        nr.reduce_by_group(u, (dx, dy), ids, 7, out=outs)
    for o, b in zip(outs, before):
        np.testing.assert_array_equal(o.get(), b)
    # at: the accumulators start from the empty state; values as one tuple
    v, wv = _pair_data(rng, uname, dtype, (50,), nan=False)
    idx = rng.integers(-8, 8, size=50)
    empty = nr.reduce(u, (v[:0], wv[:0]))
    cpu = tuple(np.full(8, e) for e in empty)
    dev = tuple(cp.asarray(c) for c in cpu)
    nr.at(u, cpu, idx, (v, wv))
    assert nrc.at(g, dev, cp.asarray(idx), (cp.asarray(v), cp.asarray(wv))) is None
    _check_source_states(uname, cpu, dev, cp, tol)
    # the same as reduce_by_group of the slots
    _check_source_states(uname, nr.reduce_by_group(u, (v, wv), idx % 8, 8), dev, cp, tol)
    # 2-d accumulators, a tuple index, a scalar second source; repeated slots
    cpu2 = tuple(np.full((3, 4), e) for e in empty)
    dev2 = tuple(cp.asarray(c) for c in cpu2)
    ii, jj = [0, 2, 0, 0, -1], [1, 3, 1, 1, 0]
    nr.at(u, cpu2, (ii, jj), (v[:5], 2.0))
    nr.at(u, dev2, (cp.asarray(np.array(ii)), jj), (cp.asarray(v[:5]), 2.0))
    _check_source_states(uname, cpu2, dev2, cp, tol)
    nr.at(u, cpu2, (slice(None), 1), (v[:3], wv[:1]))
    nr.at(u, dev2, (slice(None), 1), (cp.asarray(v[:3]), cp.asarray(wv[:1])))
    _check_source_states(uname, cpu2, dev2, cp, tol)
    before = [d.get() for d in dev]
    for call, exc, msg in [
            (lambda: nr.at(u, dev, cp.asarray(np.array([1, 2])), cp.asarray(v[:2])), TypeError,
             "one tuple"),
            (lambda: nr.at(u, dev, cp.asarray(np.array([1, 8])),
                           (cp.asarray(v[:2]), cp.asarray(wv[:2]))), IndexError,
             "index 8 is out of bounds"),
            (lambda: nr.at(u, dev, cp.asarray(np.array([1, 2])),
                           (cp.asarray(v[:3]), cp.asarray(wv[:3]))), ValueError,
             "does not broadcast"),
            (lambda: nr.at(u, dev, cp.asarray(np.array([1, 2])),
                           (cp.asarray(v[:2]), cp.asarray(wv[:3]))), ValueError,
             "do not broadcast"),
            (lambda: nrc.at(u, dev, cp.asarray(np.array([1, 2])), (cp.asarray(v[:2]), wv[:2])),
             TypeError, "not a cupy.ndarray"),
            (lambda: nr.at(u, dev, cp.asarray(np.array([1, 2])), (cp.asarray(v[:2]), wv[:2])),
             TypeError, "mixed CuPy and non-CuPy")]:
        with pytest.raises(exc, match=msg):
            call()
    for d, b in zip(dev, before):
        np.testing.assert_array_equal(d.get(), b)


@pytest.mark.parametrize("dtype", ["float64", "float32", "int32"])
def test_group_meanvar_weights_matches_numpy_path(emu, dtype):
    """group_meanvar(weights=) on the device: reduce_by_group(wmoments) of
    the packed data and weights, finished as on the NumPy path; a group
    whose weights sum to 0 is empty (NaN, NumPy's warning), axis=1,
    broadcast weights, ddof, dtype=, where=; a negative weight is a
    ValueError before any work."""
    cp, nrc = emu
    rng = np.random.default_rng(37)
    x = (rng.standard_normal((60, 4)) * 4 + 1e4).astype(dtype)
    w = rng.integers(0, 5, size=(60, 4)).astype(np.float64)
    ids = rng.integers(0, 5, size=60)
    w[ids == 2] = 0  # group 2: weights summing to 0
    dx, dw, dids = cp.asarray(x), cp.asarray(w), cp.asarray(ids)
    rtol = 1e-5 if dtype == "float32" else 1e-12
    for kw in ({}, {"ddof": 1}, {"num_groups": 6}):
        cpu, dev = _both(nr.group_meanvar, (x, ids), (dx, dids), dict(weights=w, **kw),
                         dict(weights=dw, **kw), "empty slice")
        _check_results(cpu, dev, cp, rtol)
        assert np.isnan(dev[0].get()[2]).all()
    cpu, dev = _both(nr.group_meanvar, (x.T, ids), (cp.asarray(np.ascontiguousarray(x.T)),
                                                    dids), dict(weights=w.T, axis=1),
                     dict(weights=cp.asarray(np.ascontiguousarray(w.T)), axis=1), "empty slice")
    _check_results(cpu, dev, cp, rtol)
    w1 = w[:, :1] + 1  # broadcast weights, none zero
    for kw in ({}, {"dtype": np.float32}, {"where": w > 1}):
        kd = {k: (cp.asarray(v) if isinstance(v, np.ndarray) else v) for k, v in kw.items()}
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", RuntimeWarning)  # a group all masked out
            cpu = nr.group_meanvar(x, ids, weights=w1, **kw)
            dev = nr.group_meanvar(dx, dids, weights=cp.asarray(w1), **kd)
        _check_results(cpu, dev, cp, 1e-5 if kw.get("dtype") or dtype == "float32" else rtol)
    # integer weights are np.repeat's frequencies, per group
    with warnings.catch_warnings(record=True) as rec:  # group 2: empty, no degrees of freedom
        warnings.simplefilter("always")
        m, v = nr.group_meanvar(dx[:, 0], dids, weights=cp.asarray(w[:, 0].astype(np.int64)),
                                ddof=1)
    assert {str(r.message) for r in rec} == {"Mean of empty slice.",
                                             "Degrees of freedom <= 0 for slice"}
    for k in (0, 1, 3, 4):
        rep = np.repeat(x[ids == k, 0].astype(np.float64), w[ids == k, 0].astype(np.int64))
        if rep.size > 1:
            np.testing.assert_allclose(float(m[k]), rep.mean(), rtol=max(rtol, 1e-13))
            np.testing.assert_allclose(float(v[k]), rep.var(ddof=1), rtol=max(rtol, 1e-9))
    # errors before any work
    bad = w.copy()
    bad[5, 1] = -1
    with pytest.raises(ValueError, match="non-negative"):
        nr.group_meanvar(dx, dids, weights=cp.asarray(bad))
    with pytest.raises(ValueError, match="non-negative"):
        nr.group_meanvar(x, ids, weights=bad)  # the NumPy path says the same
    with pytest.raises(ValueError, match="do not broadcast"):
        nr.group_meanvar(dx, dids, weights=dw[:, :3])
    with pytest.raises(TypeError, match="not a cupy.ndarray"):
        nrc.group_meanvar(dx, dids, weights=w)
    with pytest.raises(TypeError, match="not a cupy.ndarray"):
        nr.group_meanvar(dx, ids, weights=dw)
    with pytest.raises(IndexError, match="outside"):
        nr.group_meanvar(dx, cp.asarray(ids + 5), num_groups=2, weights=dw)
    with pytest.raises(TypeError):
        nr.group_meanvar(dx.astype(np.complex128), dids, weights=dw)


def _both(f, cpu_args, dev_args, kw_cpu, kw_dev, warn):
    """f on the NumPy and the device arguments, with the same warnings (or
    none): (cpu, dev) results."""
    out = []
    for args, kw, fp in ((cpu_args, kw_cpu, {"all": "warn"}),
                         (dev_args, kw_dev, {"all": "ignore", "invalid": "warn"})):
        # the device raises no floating-point flags: its warnings must be
        # the statistics' own (np.errstate hides the emulation's flags but
        # keeps the 'invalid' mode, which the statistics' own checks honour
        # as NumPy's flags do: _stats.invalid_operation)
        with warnings.catch_warnings(record=True) as rec, np.errstate(**fp):
            warnings.simplefilter("always")
            out.append(f(*args, **kw))
        got = sorted({str(r.message) for r in rec if issubclass(r.category, RuntimeWarning)})
        if warn is None:
            assert got == [], got
        else:
            assert any(warn in m for m in got), (warn, got)
    return out


def _check_results(cpu, dev, cp, rtol=1e-12):
    if not isinstance(cpu, tuple):
        cpu, dev = (cpu,), (dev,)
    assert len(cpu) == len(dev)
    for c, d in zip(cpu, dev):
        assert isinstance(d, cp.ndarray), type(d)
        c, dd = np.asarray(c), d.get()
        assert c.dtype == dd.dtype and c.shape == dd.shape, (c.dtype, dd.dtype, c.shape, dd.shape)
    _close(tuple(np.asarray(c, np.float64) for c in cpu),
           tuple(np.asarray(d.get(), np.float64) for d in dev), rtol)


@pytest.mark.parametrize("fname", ["meanvar", "meanstd", "nanmeanvar"])
@pytest.mark.parametrize("dtype", ["float64", "float32", "int32"])
def test_weighted_moments_match_numpy_path(emu, fname, dtype):
    cp, nrc = emu
    rng = np.random.default_rng(33)
    f = getattr(nr, fname)
    x = (rng.standard_normal((9, 13)) * 4 + 1e4).astype(dtype)
    if np.dtype(dtype).kind == "f":
        x[4, 5] = np.nan
    w = rng.integers(0, 5, size=(9, 13)).astype(np.float64)
    w[3] = 0  # row 3: weights summing to 0 -> an empty slice along axis 1
    dx, dw = cp.asarray(x), cp.asarray(w)
    rtol = 1e-5 if dtype == "float32" else 1e-12
    for axis, warn in ((None, None), (0, None), (1, "Mean of empty slice"),
                       ((0, 1), None), (-1, "Mean of empty slice")):
        for keepdims in (False, True):
            cpu, dev = _both(f, (x,), (dx,), dict(weights=w, axis=axis, keepdims=keepdims),
                             dict(weights=dw, axis=axis, keepdims=keepdims), warn)
            _check_results(cpu, dev, cp, rtol)
    # ddof, correction=, broadcast weights (one per column, a scalar), where=, dtype=
    kws = [({"axis": 0, "ddof": 1}, {}), ({"axis": 0, "correction": 1}, {}),
           ({"axis": 0}, {"weights": w[0] + 1}), ({"axis": 1}, {"weights": w[0]}),
           ({"axis": 0}, {"weights": 2.5}), ({"axis": 0, "dtype": np.float32}, {}),
           ({"axis": 0, "where": w > 1}, {})]
    for kw, wkw in kws:
        kc = dict(kw, weights=wkw.get("weights", w))
        kd = {k: (cp.asarray(v) if isinstance(v, np.ndarray) else v) for k, v in kc.items()}
        cpu, dev = _both(f, (x,), (dx,), kc, kd, None)
        _check_results(cpu, dev, cp, 1e-5 if kw.get("dtype") or dtype == "float32" else 1e-12)
    # integer weights are np.repeat's frequencies
    xr, wr = x[0].astype(np.float64), w[0].astype(np.int64)
    if not np.isnan(xr).any():
        m, v = f(cp.asarray(xr), weights=cp.asarray(wr), ddof=1)
        rep = np.repeat(xr, wr)
        want = np.std(rep, ddof=1) if fname == "meanstd" else np.var(rep, ddof=1)
        np.testing.assert_allclose([float(m), float(v)], [rep.mean(), want], rtol=1e-12)
    # out=: written in place after every check
    cpu = f(x, weights=w, axis=0)
    outs = (cp.asarray(np.empty(13, cpu[0].dtype)), cp.asarray(np.empty(13, cpu[1].dtype)))
    res = f(dx, weights=dw, axis=0, out=outs)
    assert res[0] is outs[0] and res[1] is outs[1]
    _check_results(cpu, res, cp, rtol)
    # errors before any work: a negative weight (out untouched), mixed arrays,
    # weights that do not broadcast, complex data
    bad = w.copy()
    bad[5, 7] = -1
    sentinel = (cp.asarray(np.full(13, 7.0)), cp.asarray(np.full(13, 7.0)))
    with pytest.raises(ValueError, match="non-negative"):
        f(dx, weights=cp.asarray(bad), axis=0, out=sentinel)
    assert (sentinel[0].get() == 7).all() and (sentinel[1].get() == 7).all()
    with pytest.raises(ValueError, match="non-negative"):
        f(x, weights=bad, axis=0)  # the NumPy path says the same
    with pytest.raises(TypeError, match="not a cupy.ndarray"):
        f(dx, weights=w)
    with pytest.raises(TypeError, match="mix"):
        f(x, weights=dw)
    with pytest.raises(ValueError, match="do not broadcast"):
        f(dx, weights=dw[:, :4])
    with pytest.raises(TypeError):
        f(dx.astype(np.complex128), weights=dw)


def test_weighted_moments_offset_accuracy_on_device(emu):
    """1e8 + N(0, 1) with weights: within NumPy's two-pass error of the exact
    weighted moments (fractions), as the NumPy path."""
    from fractions import Fraction
    cp, nrc = emu
    rng = np.random.default_rng(34)
    x = 1e8 + rng.standard_normal(3001)
    w = rng.integers(0, 4, size=3001).astype(np.float64)
    W = sum(Fraction(v) for v in w)
    mean = sum(Fraction(a) * Fraction(b) for a, b in zip(x, w)) / W
    var = sum(Fraction(b) * (Fraction(a) - mean) ** 2 for a, b in zip(x, w)) / W
    m, v = nr.meanvar(cp.asarray(x), weights=cp.asarray(w))
    assert abs(Fraction(float(m)) - mean) <= 4e-16 * abs(mean)
    assert abs(Fraction(float(v)) - var) <= 1e-8 * var


def test_logsumexp_b_matches_numpy_path(emu):
    cp, nrc = emu
    rng = np.random.default_rng(35)
    a = rng.standard_normal((7, 11)) * 5
    b = rng.standard_normal((7, 11))
    b[2] = 0  # a zero row: -inf (sign 0)
    b[:, 3] = 0
    a[1, 4] = np.inf  # an inf with b = 0 does not count
    b[1, 4] = 0
    da, db = cp.asarray(a), cp.asarray(b)
    for axis in (None, 0, 1, (0, 1)):
        for keepdims in (False, True):
            kw = dict(axis=axis, keepdims=keepdims)
            cpu, dev = _both(nr.logsumexp, (a,), (da,), dict(kw, b=b, return_sign=True),
                             dict(kw, b=db, return_sign=True), None)
            _check_results(cpu, dev, cp)
            # without return_sign a negative sum is NaN (no warning, as SciPy), on both
            cpu, dev = _both(nr.logsumexp, (a,), (da,), dict(kw, b=b), dict(kw, b=db), None)
            _check_results(cpu, dev, cp)
    # broadcast b, scalar b, return_sign without b, float32, integers
    for bc, bd in ((b[0], db[0]), (2.0, 2.0), (None, None), (b[:, :1], db[:, :1])):
        for data in (a, a.astype(np.float32), np.arange(77).reshape(7, 11) % 5):
            cpu = nr.logsumexp(data, axis=0, b=bc, return_sign=True)
            dev = nr.logsumexp(cp.asarray(data), axis=0, b=bd, return_sign=True)
            _check_results(cpu, dev, cp, 1e-6 if data.dtype == np.float32 else 1e-12)
    # log1p's precision near 0
    v = nr.logsumexp(cp.asarray(np.array([0.0, -40.0])), b=cp.asarray(np.array([1.0, 1.0])))
    np.testing.assert_allclose(float(v), 4.248354255291589e-18, rtol=1e-12)
    with pytest.raises(TypeError, match="not a cupy.ndarray"):
        nr.logsumexp(da, b=b)
    with pytest.raises(ValueError, match="do not broadcast"):
        nr.logsumexp(da, b=db[:, :2])


def test_covariance_correlation_match_numpy_path(emu):
    cp, nrc = emu
    rng = np.random.default_rng(36)
    x = rng.standard_normal((8, 15)) + 1e6
    y = 0.3 * x + rng.standard_normal((8, 15))
    x[5] = 7.0  # a constant row: correlation NaN with a warning along axis 1
    x[6, 2] = np.nan
    dx, dy = cp.asarray(x), cp.asarray(y)
    for axis in (None, 0, 1, -1, (0, 1)):
        for keepdims in (False, True):
            kw = dict(axis=axis, keepdims=keepdims)
            for ddof in (0, 1):
                cpu, dev = _both(nr.covariance, (x, y), (dx, dy), dict(kw, ddof=ddof),
                                 dict(kw, ddof=ddof), None)
                _check_results(cpu, dev, cp, 1e-9)
            warn = "invalid value" if axis in (1, -1) else None
            cpu, dev = _both(nr.correlation, (x, y), (dx, dy), kw, kw, warn)
            _check_results(cpu, dev, cp, 1e-9)
            c = dev.get()
            assert np.all((np.abs(c) <= 1) | np.isnan(c))
    # per slice against np.cov / np.corrcoef
    for j in (0, 3):
        np.testing.assert_allclose(float(nrc.covariance(dx[:, j], dy[:, j])),
                                   np.cov(x[:, j], y[:, j])[0, 1], rtol=1e-9)
        np.testing.assert_allclose(float(nrc.correlation(dx[:, j], dy[:, j])),
                                   np.corrcoef(x[:, j], y[:, j])[0, 1], rtol=1e-9)
    # y = 3x + 2: 1 within a few eps; broadcasting; a ddof too large: inf with NumPy's warning
    z = x[0]
    assert abs(float(nr.correlation(cp.asarray(z), cp.asarray(3 * z + 2))) - 1) <= 4e-16
    _check_results(nr.covariance(x, y[0], axis=1), nr.covariance(dx, dy[0], axis=1), cp, 1e-9)
    cpu, dev = _both(nr.covariance, (x[:1], y[:1]), (dx[:1], dy[:1]), dict(axis=0),
                     dict(axis=0), "Degrees of freedom")
    _check_results(cpu, dev, cp)
    with pytest.raises(TypeError, match="not a cupy.ndarray"):
        nr.covariance(dx, y)
    with pytest.raises(TypeError, match="mix"):
        nr.correlation(x, dy)
    with pytest.raises(np.exceptions.AxisError):
        nr.covariance(dx, dy, axis=3)


def test_sumprod_matches_numpy_path_and_exact(emu):
    import math
    cp, nrc = emu
    rng = np.random.default_rng(37)
    x, y = rng.standard_normal((6, 40)), rng.standard_normal((6, 40))
    dx, dy = cp.asarray(x), cp.asarray(y)
    for axis in (None, 0, 1, (0, 1)):
        for keepdims in (False, True):
            kw = dict(axis=axis, keepdims=keepdims)
            _check_results(nr.sumprod(x, y, **kw), nr.sumprod(dx, dy, **kw), cp)
    _check_results(nr.sumprod(x.astype(np.float32), y[0], axis=1),
                   nr.sumprod(cp.asarray(x.astype(np.float32)), dy[0], axis=1), cp)
    _check_results(nr.sumprod(x.astype(np.float32), y.astype(np.float32), axis=1),
                   nrc.sumprod(cp.asarray(x.astype(np.float32)),
                               cp.asarray(y.astype(np.float32)), axis=1), cp, 1e-6)
    # ill-conditioned: cancelling products, the exact sum (math.fsum of exact products)
    a = np.concatenate([rng.standard_normal(500) * 1e15, rng.standard_normal(500)])
    b = np.concatenate([np.ones(500), rng.standard_normal(500)])
    a = np.concatenate([a, -a[:500]])
    b = np.concatenate([b, b[:500]])
    from fractions import Fraction
    exact = float(sum(Fraction(p) * Fraction(q) for p, q in zip(a, b)))
    got = float(nr.sumprod(cp.asarray(a), cp.asarray(b)))
    assert abs(got - exact) <= 2 * np.finfo(float).eps * abs(exact) + 1e-20 * float(
        np.sum(np.abs(a * b)))
    assert math.isclose(got, float(nr.sumprod(a, b)), rel_tol=1e-15)
    with pytest.raises(TypeError, match="not a cupy.ndarray"):
        nr.sumprod(dx, y)


def test_mapreduce_of_cupy_sources_matches_numpy_path(emu):
    """mapreduce of CuPy sources: f on the whole broadcast sources on the
    device, the reduction's CuPy form on the image -- the result of the
    reduction of f(*arrays), as on the NumPy path."""
    cp, nrc = emu
    rng = np.random.default_rng(38)
    X = rng.standard_normal((40, 30))
    v = rng.standard_normal(30)
    dX, dv = cp.asarray(X), cp.asarray(v)
    cases = [(np.square, nr.fsum, (X,), {"axis": 0}),
             (np.subtract, nr.minmax, (X, v), {}),
             (np.subtract, nr.argminmax, (X, v), {"axis": 1}),
             (lambda a: np.abs(a - 1), nr.meanvar, (X,), {"ddof": 1, "axis": (0, 1)}),
             (lambda a, b: a * b, nr.logsumexp, (X, v), {"axis": 1, "keepdims": True}),
             (np.square, nr.moments, (X,), {"axis": 0}),
             (np.subtract, nr.nanminmax, (X, 2.0), {"axis": 0})]
    for f, red, args, kw in cases:
        cpu = nr.mapreduce(f, red, *args, **kw)
        dargs = tuple(cp.asarray(a) if isinstance(a, np.ndarray) else a for a in args)
        dev = nr.mapreduce(f, red, *dargs, **kw)
        if red in (nr.minmax, nr.argminmax, nr.nanminmax):
            _check(cpu, dev, cp, exact=True)
        elif red is nr.moments:
            _check_states("moments", cpu, dev, cp)
        else:
            _check_results(cpu, dev, cp)
        # the same through numreduce.cupy, with its own functions and ufuncs
        dred = getattr(nrc, red.__name__)
        dev2 = nrc.mapreduce(f, dred, *dargs, **kw)
        if red in (nr.minmax, nr.argminmax, nr.nanminmax):
            _check(cpu, dev2, cp, exact=True)
        elif red is nr.moments:
            _check_states("moments", cpu, dev2, cp)
        else:
            _check_results(cpu, dev2, cp)
    # the result is the reduction of the image itself
    _check(nr.fsum(np.square(X), axis=0), nr.mapreduce(np.square, nr.fsum, dX, axis=0), cp,
           exact=True)
    # errors: f returning a NumPy array or the wrong shape, mixed sources,
    # sources that do not broadcast, a bad axis, not numreduce's reduction
    with pytest.raises(TypeError, match="CuPy array"):
        nr.mapreduce(lambda a: np.asarray(a).view(np.ndarray), nr.fsum, dX)
    with pytest.raises(ValueError, match="broadcast shape"):
        nr.mapreduce(lambda a: a[0], nr.fsum, dX)
    with pytest.raises(TypeError, match="mixed CuPy and non-CuPy"):
        nr.mapreduce(np.subtract, nr.minmax, dX, v)
    with pytest.raises(ValueError, match="do not broadcast"):
        nr.mapreduce(np.subtract, nr.minmax, dX, dv[:7])
    with pytest.raises(np.exceptions.AxisError):
        nr.mapreduce(np.square, nr.fsum, dX, axis=2)
    with pytest.raises(TypeError, match="reduction must be"):
        nr.mapreduce(np.square, np.sum, dX)
    with pytest.raises(TypeError, match="must be callable"):
        nr.mapreduce(3, nr.fsum, dX)
    with pytest.raises(TypeError, match="must be CuPy arrays"):
        nrc.mapreduce(np.square, nrc.fsum, X)


@pytest.mark.parametrize("dtype", ["float64", "float32", "int32", "bool"])
def test_describe_skew_kurtosis_match_numpy_path(emu, dtype):
    """describe, skew and kurtosis on the device (numreduce's functions and
    numreduce.cupy's): the summary ReductionKernel, finished as on NumPy
    arrays -- every axis, nan_policy 'omit' and 'propagate', bias, fisher,
    keepdims, where=; a constant row (SciPy's precision warning)."""
    cp, nrc = emu
    rng = np.random.default_rng(39)
    x = _data(rng, dtype, (11, 14), nan=True)
    if np.dtype(dtype).kind != "b":
        x[3] = x.dtype.type(5)  # a constant row
    dx = cp.asarray(x)
    rtol = 1e-5 if dtype == "float32" else 1e-11
    for f, df in ((nr.skew, nrc.skew), (nr.kurtosis, nrc.kurtosis)):
        for axis in (None, 0, 1, -1):
            for kw in ({}, {"nan_policy": "omit"}, {"bias": False, "keepdims": True},
                       {"where": x != x.flat[1], "nan_policy": "omit"}):
                kd = dict(kw)
                if "where" in kw:
                    kd["where"] = cp.asarray(kw["where"])
                with warnings.catch_warnings():
                    warnings.simplefilter("ignore")
                    cpu = f(x, axis=axis, **kw)
                    dev = f(dx, axis=axis, **kd)
                    dev2 = df(dx, axis=axis, **kd)
                _check_results(cpu, dev, cp, rtol)
                _check_results(cpu, dev2, cp, rtol)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        assert isinstance(nr.kurtosis(dx, axis=1, fisher=False), cp.ndarray)
        for axis in (None, 0, 1):
            for kw in ({}, {"nan_policy": "omit", "ddof": 0, "bias": False}):
                cpu = nr.describe(x, axis=axis, **kw)
                for dev in (nr.describe(dx, axis=axis, **kw), nrc.describe(dx, axis=axis, **kw)):
                    assert type(dev) is type(cpu)
                    assert np.array_equal(np.asarray(cpu.nobs), np.asarray(
                        dev.nobs.get() if isinstance(dev.nobs, cp.ndarray) else dev.nobs))
                    _check_results(cpu.minmax, dev.minmax, cp, 0)
                    _check_results((cpu.mean, cpu.variance, cpu.skewness, cpu.kurtosis),
                                   (dev.mean, dev.variance, dev.skewness, dev.kurtosis),
                                   cp, rtol)
    # the errors of the NumPy path, before any kernel
    with pytest.raises(ValueError, match="nan_policy"):
        nrc.skew(dx, nan_policy="bad")
    with pytest.raises(np.exceptions.AxisError):
        nrc.describe(dx, axis=2)
    if np.dtype(dtype).kind == "f":
        with pytest.raises(ValueError, match="nan"):
            nrc.describe(dx, nan_policy="raise")
