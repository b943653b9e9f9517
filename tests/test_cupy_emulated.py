"""The CuPy mirror's RawKernel methods run WITHOUT a GPU: the generated CUDA
source of the segments kernel (reduceat, segmented_reduce, reduce_by_group,
at, the grouped user functions) and of accumulate, compiled as host C++ with
the system compiler (CUDA's qualifiers defined away, one loop over the
grid's threads), driven by numreduce.cupy's own Python code through a
NumPy-backed stand-in for the ``cupy`` module, and compared with the NumPy
path of numreduce.

This checks the kernels' logic and the Python orchestration (offsets, the
stable sort of the group ids, seeds, flags, out= handling, every error
before anything is written), not CUDA itself: NVRTC compiles the same
source in tests/test_nvrtc.py, and tests/test_cupy.py /
benchmarks/gpu_check.py run it on a GPU.  Skipped only where no host C++
compiler is found (the reason says so).
"""

from __future__ import annotations

import ctypes
import hashlib
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
        full = _HOST_SHIM + code + wrapper
        key = hashlib.sha1(full.encode()).hexdigest()[:16]
        lib = os.path.join(self.cache_dir, f"{name}_{key}.so")
        if not os.path.exists(lib):
            cu = lib[:-3] + ".cpp"
            with open(cu, "w") as f:
                f.write(full)
            incs = [o for o in options if o.startswith("-I")]
            subprocess.run([CXX, "-std=c++17", "-O1", "-shared", "-fPIC", *incs, cu, "-o", lib],
                           check=True, capture_output=True, text=True)
        self._fn = ctypes.CDLL(lib).nr_launch
        self._fn.restype = None

    def __call__(self, grid, block, args):
        cargs = [ctypes.c_longlong(grid[0]), ctypes.c_longlong(block[0])]
        for a in args:
            if isinstance(a, np.ndarray):
                assert a.flags.c_contiguous or a.size <= 1
                cargs.append(ctypes.c_void_p(a.ctypes.data))
            else:
                cargs.append(_CTYPE[np.asarray(a).dtype.char](a.item()))
        self._fn(*cargs)


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
                  "searchsorted", "where", "isfinite", "isnan", "log1p", "maximum", "sqrt",
                  "moveaxis", "zeros", "full", "concatenate"):
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

    def no_kernel(*a, **k):
        raise NotImplementedError("the emulation runs RawKernels only")
    mod.ElementwiseKernel = mod.ReductionKernel = no_kernel
    mod.cuda = types.SimpleNamespace(runtime=types.SimpleNamespace(getDeviceCount=lambda: 1))
    return mod


@pytest.fixture(scope="module")
def emu(tmp_path_factory):
    """(fake cupy, numreduce.cupy on it); the real modules restored after."""
    _HostRawKernel.cache_dir = str(tmp_path_factory.mktemp("hostkernels"))
    saved = {k: sys.modules.get(k) for k in ("cupy", "numreduce.cupy")}
    had_attr = hasattr(nr, "cupy")
    attr = getattr(nr, "cupy", None)  # the real numreduce.cupy, where a GPU imported it
    sys.modules.pop("numreduce.cupy", None)
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
        if had_attr:
            nr.cupy = attr
        elif hasattr(nr, "cupy"):
            delattr(nr, "cupy")


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


UFUNCS = ["minimummaximum", "fminfmax", "moments", "nanmoments", "maxsumexp", "twosum"]
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
        _check(nr.reduceat(u, x, idx, axis=ax), nr.reduceat(u, cp.asarray(x), idx, axis=ax),
               cp, ex)
        _check(nr.reduceat(u, x, idx, axis=ax),
               nr.reduceat(u, cp.asarray(x), cp.asarray(np.array(idx)), axis=ax), cp, ex)
    starts, stops = [0, 2, -3, 4, 1], [4, 6, 100, 4, 9]
    init = {"initial": _init(dtype)} if uname in EXACT else {}
    _check(nr.segmented_reduce(u, x, starts, stops, axis=1, **init),
           nr.segmented_reduce(u, cp.asarray(x), starts, stops, axis=1, **init), cp, ex)
    w = rng.random(x.shape) < 0.6
    w[:, 2] = False
    _check(nr.segmented_reduce(u, x, starts, stops, axis=1, where=w, **init),
           nr.segmented_reduce(u, cp.asarray(x), starts, stops, axis=1, where=cp.asarray(w),
                               **init), cp, ex)
    if uname in ("minimummaximum", "twosum"):
        _check(nr.segmented_reduce(u, x, starts, stops, axis=0, initial=5),
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
        _check(nr.reduce_by_group(u, xx, ids, 7, axis=ax, **init),
               nr.reduce_by_group(u, cp.asarray(xx), cp.asarray(ids), 7, axis=ax, **init), cp, ex)
    w = rng.random(x.shape) < 0.5
    w[ids == 1] = False  # a group with elements, all masked out
    _check(nr.reduce_by_group(u, x, ids, 7, where=w, **init),
           nr.reduce_by_group(u, cp.asarray(x), cp.asarray(ids), 7, where=cp.asarray(w), **init),
           cp, ex)
    outs = tuple(cp.empty((7, 3), d.dtype) for d in nr.reduce_by_group(u, x, ids, 7, **init))
    res = nr.reduce_by_group(u, cp.asarray(x), cp.asarray(ids), 7, out=outs, **init)
    assert all(r is o for r, o in zip(res, outs))
    _check(nr.reduce_by_group(u, x, ids, 7, **init), res, cp, ex)
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
    with pytest.raises(TypeError, match="complex"):
        nrc.cumfsum(cp.asarray(x.astype(np.complex128)), axis=0)
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
