"""Device compilation with a real NVRTC (no GPU needed; ``pip install
'.[nvrtc]'``, ``pytest -k nvrtc``).

1. Every traits struct x every dtype its ufunc registers on the CPU (those the
   device has) x {compute_80, compute_90}: a kernel instantiating lift, step,
   combine, initials and block_reduce, compiled from the INSTALLED headers
   (numreduce/include/numreduce/traits, the package data) with NVRTC's
   default options (only -arch and -I).
2. The CuPy mirror's generated kernels (numreduce._cupy_source), those of
   the reductions of several sources (K-input kernels) included: each
   ElementwiseKernel / ReductionKernel body inside a harness shaped like the
   code CuPy generates around them (CArray / CIndexer parameters, REDUCE and
   POST_MAP macros wrapping the expressions in parentheses, a typedef'd
   _type_reduce built from the identity, shared-memory tree, _J index), with
   stand-ins for CuPy's types and, where CuPy is installed, with its own
   carray.cuh / complex.cuh.

nvcc is deliberately not used: it accepts host code in headers that NVRTC
rejects.
"""

from __future__ import annotations

import importlib.util
import os
import re

import numpy as np
import pytest

import numreduce
from numreduce import _cupy_source as src

try:
    from cuda.bindings import nvrtc
    _err = None
    try:
        _ver = nvrtc.nvrtcVersion()
        if _ver[0] != nvrtc.nvrtcResult.NVRTC_SUCCESS:
            raise RuntimeError(f"nvrtcVersion returned {_ver[0]}")
    except Exception as e:  # the bindings are there, libnvrtc is not
        _err = f"libnvrtc could not be loaded through cuda.bindings ({e}); pip install nvidia-cuda-nvrtc"
except ImportError as e:
    nvrtc = None
    _err = f"cuda.bindings is not installed ({e}); pip install '.[nvrtc]'"

needs_nvrtc = pytest.mark.skipif(_err is not None, reason=_err or "")

ARCHS = ("compute_80", "compute_90")
INCLUDE = src.include_dir()


def nvrtc_compile(source: str, arch: str, name: str = "k.cu", extra=()):
    """Compile with NVRTC's default options plus -arch and -I; raise
    AssertionError with NVRTC's log on failure."""
    err, prog = nvrtc.nvrtcCreateProgram(source.encode(), name.encode(), 0, [], [])
    assert err == nvrtc.nvrtcResult.NVRTC_SUCCESS, err
    opts = [f"--gpu-architecture={arch}".encode(), f"-I{INCLUDE}".encode()]
    opts += [o.encode() for o in extra]
    try:
        (res,) = nvrtc.nvrtcCompileProgram(prog, len(opts), opts)
        _, size = nvrtc.nvrtcGetProgramLogSize(prog)
        log = b" " * size
        nvrtc.nvrtcGetProgramLog(prog, log)
        log = log.decode(errors="replace").rstrip("\x00 \n")
    finally:
        nvrtc.nvrtcDestroyProgram(prog)
    if res != nvrtc.nvrtcResult.NVRTC_SUCCESS:
        numbered = "\n".join(f"{i + 1:4d} {line}" for i, line in enumerate(source.splitlines()))
        raise AssertionError(f"NVRTC ({arch}) failed to compile {name}:\n{log}\n--- source ---\n"
                             f"{numbered}")
    return log


def test_headers_installed_as_package_data():
    traits = os.path.join(INCLUDE, "numreduce", "traits")
    pkg = os.path.dirname(os.path.abspath(numreduce.__file__))
    assert os.path.commonpath([traits, pkg]) == pkg
    names = sorted(os.listdir(traits))
    for h in ("argminmax.hpp", "comoments.hpp", "common.hpp", "expfn.hpp", "fminfmax.hpp",
              "logsumexp.hpp", "minmax.hpp", "moments.hpp", "twosum.hpp", "wmoments.hpp"):
        assert h in names
    for h in names:  # device-pure: nothing outside traits/ is included
        with open(os.path.join(traits, h)) as f:
            text = f.read()
        assert '#include "../' not in text, h


# ---------------------------------------------------------------------------
# 1. The traits structs
# ---------------------------------------------------------------------------

def _trait_cases():
    cases = []
    for name, (template, header, _) in src.TRAITS.items():
        for c, oc in src.loop_types(name).items():
            if c in "lL":
                continue  # the same dtype as q/Q on LP64
            cases.append((name, c, src._struct(template, c, oc), header, False))
    for name, (template, header) in src.ARG_TRAITS.items():
        for c in src.loop_types("minimummaximum"):
            if c in "lL":
                continue
            cases.append((name, c, template.format(T=src.DEVICE_TYPES[c][1]), header, True))
    return cases


TRAIT_CASES = _trait_cases() + [
    # the host-only ufunc of mapreduce's fused sum of squares (no CuPy mirror):
    # its traits are device-pure all the same
    ("sqtwosum", c, f"nr::SquareSum<{t}, {t}>", "twosum.hpp", False)
    for c, t in (("f", "float"), ("d", "double"))]

_TRAIT_KERNEL = r"""
#include "numreduce/traits/{header}"
typedef {struct} Tr;
extern "C" __global__ void nr_trait_kernel(const Tr::in_t *x, long long n, Tr::acc_t *out) {{
    const long long i = (long long)blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
{body}
}}
"""
_VALUE_BODY = r"""
    Tr::acc_t a = Tr::lift(x[i]);
    a = Tr::step(a, x[(i + 1) % n]);
    Tr::acc_t init;
    if (Tr::initials(init, n == 0)) a = Tr::combine(init, a);
    a = Tr::combine(a, Tr::block_reduce(a, x, n < 8 ? n : 8));
    out[i] = a;
"""
_ARG_BODY = r"""
    Tr::acc_t a = Tr::combine(Tr::empty(), Tr::lift(x[i], i));
    a = Tr::step(a, x[(i + 1) % n], (i + 1) % n);
    a = Tr::combine(a, Tr::block_reduce(Tr::empty(), x, n < 8 ? n : 8));
    out[i] = a;
"""


@needs_nvrtc
@pytest.mark.parametrize("arch", ARCHS)
@pytest.mark.parametrize("name,char,struct,header,arg", TRAIT_CASES,
                         ids=[f"{n}-{c}" for n, c, *_ in TRAIT_CASES])
def test_nvrtc_traits(name, char, struct, header, arg, arch):
    code = _TRAIT_KERNEL.format(header=header, struct=struct,
                                body=_ARG_BODY if arg else _VALUE_BODY)
    nvrtc_compile(code, arch, f"{name}_{char}.cu")


def test_trait_cases_cover_the_issue_minimum():
    # float, double, int32, int64 for every traits header (issue 13's 100
    # kernels were 4 dtypes x 2 archs x the structs)
    have = {(n, c) for n, c, *_ in TRAIT_CASES}
    for name in src.TRAITS:
        for c in "fd":
            assert (name, c) in have
    for name in ("minimummaximum", "fminfmax", "moments", "maxsumexp", "twosum", "argminmax",
                 "nanargminmax"):
        for c in "iq":
            assert (name, c) in have
    assert len(TRAIT_CASES) >= 60


# The reductions of two sources (in_t = sources<T, 2>): their headers
# compile for the device as well, float32 (float64 accumulators) and float64.
SOURCE_TRAITS = [
    ("wmoments.hpp", "nr::WMoments<{T}, double, false>"),
    ("wmoments.hpp", "nr::WMoments<{T}, double, true>"),
    ("comoments.hpp", "nr::CoMoments<{T}, double>"),
    ("logsumexp.hpp", "nr::MaxSumExpB<{T}, double>"),
    ("twosum.hpp", "nr::SumProd<{T}, {T}>"),
]


_SOURCES_BODY = r"""
    // compiled, never run: the pointers only give the call its types
    const {T} *src[2] = {{&x[0].v[0], &x[0].v[1]}};
    a = Tr::combine(a, Tr::block_reduce_sources(a, src, n < 8 ? n : 8));
    out[i] = a;
"""


@needs_nvrtc
@pytest.mark.parametrize("arch", ARCHS)
@pytest.mark.parametrize("T", ["float", "double"])
@pytest.mark.parametrize("header,struct", SOURCE_TRAITS, ids=[s for _, s in SOURCE_TRAITS])
def test_nvrtc_source_traits(header, struct, T, arch):
    # block_reduce_sources (the K streams as they lie) too: device-pure as well
    body = _VALUE_BODY.replace("    out[i] = a;", _SOURCES_BODY.format(T=T))
    code = _TRAIT_KERNEL.format(header=header, struct=struct.format(T=T), body=body)
    nvrtc_compile(code, arch, f"src2_{header}_{T}.cu")


# ---------------------------------------------------------------------------
# 2. The mirror's kernels, in a harness shaped like CuPy's generated code
# ---------------------------------------------------------------------------

# Stand-ins with CuPy's names and layouts (cupy/_core/include/cupy/carray.cuh
# defines the real ones): strided n-d arrays indexed by a flat position.
HARNESS_TYPES = r"""
typedef int IndexT;
struct float16 {
    unsigned short data_;
};
template <class T>
struct complex {
    T re, im;
};
template <class T, int ndim>
struct CArray {
    T *data_;
    ptrdiff_t size_;
    ptrdiff_t shape_[ndim > 0 ? ndim : 1];
    ptrdiff_t strides_[ndim > 0 ? ndim : 1];
    __device__ T &operator[](ptrdiff_t i) const { return data_[i]; }
    __device__ ptrdiff_t size() const { return size_; }
};
template <int ndim>
struct CIndexer {
    ptrdiff_t size_, index_;
    __device__ ptrdiff_t size() const { return size_; }
    __device__ void set(ptrdiff_t i) { index_ = i; }
    __device__ ptrdiff_t get() const { return index_; }
};
"""


def _params(spec):
    """'float32 x, bool w' -> [(ctype, name)] with CuPy's C type names."""
    out = []
    for p in spec.split(","):
        t, n = p.split()
        out.append((src.DEVICE_TYPES[np.dtype(t).char][0], n))
    return out


def elementwise_harness(parts) -> str:
    ins, outs = _params(parts["in_params"]), _params(parts["out_params"])
    params = ", ".join([f"CArray<{t}, 2> _raw_{n}" for t, n in ins + outs] + ["CIndexer<2> _ind"])
    refs = "".join(f"    const {t} {n} = _raw_{n}[_ind.get()];\n" for t, n in ins)
    refs += "".join(f"    {t} &{n} = _raw_{n}[_ind.get()];\n" for t, n in outs)
    return (HARNESS_TYPES + parts["preamble"] + f'\nextern "C" __global__ void {parts["name"]}'
            f"({params}) {{\n"
            "  for (ptrdiff_t i = (ptrdiff_t)blockIdx.x * blockDim.x + threadIdx.x;"
            " i < _ind.size(); i += (ptrdiff_t)blockDim.x * gridDim.x) {\n"
            "    _ind.set(i);\n" + refs + parts["operation"] + "\n  }\n}\n")


def reduction_harness(parts, block_size=512) -> str:
    ins, outs = _params(parts["in_params"]), _params(parts["out_params"])
    # the arrays: the data x (x0 .. x{K-1}: the K sources) and the mask w
    arrays = [(t, n) for t, n in ins if n in ("x", "w") or re.fullmatch(r"x\d+", n)]
    scalars = [(t, n) for t, n in ins if (t, n) not in arrays]
    params = ", ".join([f"CArray<{t}, 2> _raw_{n}" for t, n in arrays]
                       + [f"CArray<{t}, 1> _raw_{n}" for t, n in outs]
                       + [f"{t} {n}" for t, n in scalars]
                       + ["CIndexer<2> _in_ind", "CIndexer<1> _out_ind", "int _block_stride"])
    in_refs = "".join(f"      const {t} {n} = _raw_{n}[_in_ind.get()];\n" for t, n in arrays)
    out_refs = "".join(f"      {t} &{n} = _raw_{n}[_out_ind.get()];\n" for t, n in outs)
    return (HARNESS_TYPES + parts["preamble"]
            + f"\n#define REDUCE(a, b) ({parts['reduce_expr']})\n"
            f"#define POST_MAP(a) ({parts['post_map_expr']})\n"
            f"typedef {parts['reduce_type']} _type_reduce;\n"
            f'extern "C" __global__ void {parts["name"]}({params}) {{\n'
            f"  __shared__ char _sdata_raw[{block_size} * sizeof(_type_reduce)];\n"
            "  _type_reduce *_sdata = reinterpret_cast<_type_reduce *>(_sdata_raw);\n"
            "  const unsigned int _tid = threadIdx.x;\n"
            "  for (ptrdiff_t _i = blockIdx.x; _i < _out_ind.size(); _i += gridDim.x) {\n"
            f"    _type_reduce _s = _type_reduce({parts['identity']});\n"
            "    IndexT _J = _tid;\n"
            f"    for (ptrdiff_t _j = _i * {block_size} + _tid; _j < _in_ind.size();"
            f" _j += {block_size}, _J += {block_size}) {{\n"
            "      _in_ind.set(_j);\n" + in_refs
            + f"      _type_reduce _a = static_cast<_type_reduce>({parts['map_expr']});\n"
            "      _s = REDUCE(_s, _a);\n    }\n"
            "    _sdata[_tid] = _s;\n    __syncthreads();\n"
            f"    for (unsigned int _b = {block_size} / 2; _b >= 1; _b >>= 1) {{\n"
            "      if (_tid < _b) { _type_reduce _x = _sdata[_tid], _y = _sdata[_tid + _b];"
            " _sdata[_tid] = REDUCE(_x, _y); }\n"
            "      __syncthreads();\n    }\n"
            "    if (_tid == 0) {\n      _s = _sdata[0];\n"
            "      _out_ind.set(_i);\n" + out_refs + "      POST_MAP(_s);\n    }\n  }\n}\n")


def _mirror_cases():
    cases = []
    for name in src.TRAITS:
        for c in src.loop_types(name):
            if c in "lL":
                continue
            cases.append(("elementwise", name, c))
            cases.append(("reduce", name, c))
            cases.append(("reduce_where", name, c))
    for name in src.ARG_TRAITS:
        for c in src.loop_types("minimummaximum"):
            if c not in "lL":
                cases.append(("arg", name, c))
    for name in src.TRAITS:
        for c, oc in src.loop_types(name).items():
            if c not in "lL":
                cases.append(("accumulate", name, c))
                cases.append(("segments", name, c))
                if c == oc:  # states of the accumulator dtype
                    cases.append(("merge", name, c))
    # the reductions of K sources: K-input kernels (reduce, merge, the call),
    # and the scan and segments RawKernels reading sources<T, K> (nr_load)
    for name in src.SOURCE_TRAITS:
        for c, oc in src.loop_types(name).items():
            cases += [("elementwise", name, c), ("reduce", name, c), ("reduce_where", name, c),
                      ("accumulate", name, c), ("segments", name, c)]
            if c == oc:
                cases.append(("merge", name, c))
    return cases


MIRROR_CASES = _mirror_cases()
# RawKernels (numreduce.cupy compiles them with cupy.RawKernel): accumulate,
# and the segments kernel of reduceat / segmented_reduce / reduce_by_group / at.
RAW_KINDS = ("accumulate", "segments")


def _parts(kind, name, c):
    if kind == "merge":
        return src.merge_parts(name, c)
    if kind in RAW_KINDS:
        code, kname = (src.accumulate_source if kind == "accumulate"
                       else src.segments_source)(name, c)
        return {"code": code, "name": kname, "options": ("-I" + src.include_dir(),)}
    if kind == "elementwise":
        return src.elementwise_parts(name, c)
    if kind == "arg":
        return src.arg_reduction_parts(name, c)
    return src.reduction_parts(name, c, where=kind == "reduce_where")


def _harness(kind, name, c):
    parts = _parts(kind, name, c)
    if kind in RAW_KINDS:  # a RawKernel: the source as CuPy gets it
        return HARNESS_TYPES + parts["code"]
    return (elementwise_harness if kind in ("elementwise", "merge")
            else reduction_harness)(parts)


@needs_nvrtc
@pytest.mark.parametrize("arch", ARCHS)
@pytest.mark.parametrize("kind,name,char", MIRROR_CASES,
                         ids=[f"{k}-{n}-{c}" for k, n, c in MIRROR_CASES])
def test_nvrtc_mirror(kind, name, char, arch):
    # with the options the mirror hands CuPy (the include path of the package data)
    # (RawKernels include CuPy's complex.cuh / float16.cuh unless the harness
    # brings stand-ins: NR_STANDALONE_TYPES)
    extra = _parts(kind, name, char)["options"] + (
        ("-DNR_STANDALONE_TYPES",) if kind in RAW_KINDS else ())
    nvrtc_compile(_harness(kind, name, char), arch, f"{kind}_{name}_{char}.cu", extra=extra)


@needs_nvrtc
def test_nvrtc_reports_errors_with_the_log():
    # the checker itself can fail: a broken kernel raises with NVRTC's log
    with pytest.raises(AssertionError, match="nr_undefined_symbol"):
        nvrtc_compile('extern "C" __global__ void k() { nr_undefined_symbol(); }', ARCHS[0])
    with pytest.raises(AssertionError, match="error"):
        # host code in a header is what NVRTC rejects (nvcc would accept it)
        nvrtc_compile('#include <vector>\nextern "C" __global__ void k() {}', ARCHS[0])


# The same kernels with CuPy's own headers instead of the stand-ins (where CuPy
# is installed: its wheel ships carray.cuh, complex.cuh and the CCCL headers;
# found without importing CuPy).  float16 is left out: CuPy's float16.cuh needs
# the CUDA toolkit's cuda_fp16.h, which neither wheel ships.
_cupy_spec = importlib.util.find_spec("cupy")
CUPY_INCLUDE = (os.path.join(os.path.dirname(_cupy_spec.origin), "_core", "include")
                if _cupy_spec is not None and _cupy_spec.origin else None)
_no_cupy_headers = None if CUPY_INCLUDE and os.path.isfile(
    os.path.join(CUPY_INCLUDE, "cupy", "carray.cuh")) else "CuPy is not installed (its headers)"
CUPY_CASES = [c for c in MIRROR_CASES if c[2] != "e"]


@needs_nvrtc
@pytest.mark.skipif(_no_cupy_headers is not None, reason=_no_cupy_headers or "")
@pytest.mark.parametrize("kind,name,char", CUPY_CASES,
                         ids=[f"{k}-{n}-{c}" for k, n, c in CUPY_CASES])
def test_nvrtc_mirror_cupy_headers(kind, name, char):
    code = _harness(kind, name, char).replace(HARNESS_TYPES, "typedef int IndexT;\n")
    code = "#include <cupy/complex.cuh>\n#include <cupy/carray.cuh>\n" + code
    cccl = os.path.join(CUPY_INCLUDE, "cupy", "_cccl")
    extra = [f"-I{CUPY_INCLUDE}"] + [f"-I{os.path.join(cccl, d)}" for d in
                                     ("thrust", "libcudacxx", "cub")] + ["-std=c++17"]
    nvrtc_compile(code, ARCHS[0], f"cupy_{kind}_{name}_{char}.cu", extra=extra)
