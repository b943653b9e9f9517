"""CUDA source of the CuPy mirror (``numreduce.cupy``), generated from the
traits headers -- importable without CuPy or a GPU, so that the generation is
unit-tested and NVRTC-compiled everywhere (tests/test_nvrtc.py).

One table maps each numreduce ufunc to its traits struct (the same structs the
CPU extension registers in src/numreduce/ufuncs.cpp); the loop dtypes of each
ufunc are read from the CPU ufunc itself (``ufunc.resolve_dtypes``), so the
mirror supports exactly the CPU's loops that exist on the device.  Per dtype
only typedefs change; the kernel code is one fixed adapter (``ADAPTER``) over
the traits' ``lift`` / ``combine`` / ``initials``.
"""

from __future__ import annotations

import functools
import os

import numpy as np

__all__ = ["TRAITS", "SOURCE_TRAITS", "ARG_TRAITS", "DEVICE_TYPES", "include_dir", "loop_types",
           "preamble", "elementwise_parts", "reduction_parts", "arg_reduction_parts",
           "merge_parts", "accumulate_source", "raw_prologue", "segments_source"]

# ufunc name -> (traits struct, header, nout); {T} = stream element, {A} = acc.
TRAITS = {
    "minimummaximum": ("nr::MinMax<{T}>", "minmax.hpp", 2),
    "fminfmax": ("nr::FMinFMax<{T}>", "fminfmax.hpp", 2),
    "moments": ("nr::Moments<{T}, {A}, false>", "moments.hpp", 3),
    "nanmoments": ("nr::Moments<{T}, {A}, true>", "moments.hpp", 3),
    "summary": ("nr::Summary<{T}, {A}, false>", "summary.hpp", 8),
    "nansummary": ("nr::Summary<{T}, {A}, true>", "summary.hpp", 8),
    "maxsumexp": ("nr::MaxSumExp<{T}, {A}>", "logsumexp.hpp", 2),
    "twosum": ("nr::TwoSum<{T}, {A}>", "twosum.hpp", 2),
}
# The reductions of K source arrays (the ufuncs of ``_core._MULTI_SOURCE``):
# ufunc name -> (traits struct, header, nout, K).  Their ``in_t`` is
# ``nr::sources<T, K>``: the Elementwise/ReductionKernels take K inputs and
# the map expression lifts (x_0, ..., x_{K-1}) into the state; the scan and
# segments RawKernels read an element as K consecutive values of T (the
# sources packed side by side, ``nr_load``), as the CPU's loops do.
SOURCE_TRAITS = {
    "wmoments": ("nr::WMoments<{T}, {A}, false>", "wmoments.hpp", 4, 2),
    "nanwmoments": ("nr::WMoments<{T}, {A}, true>", "wmoments.hpp", 4, 2),
    "comoments": ("nr::CoMoments<{T}, {A}>", "comoments.hpp", 8, 2),
    "wsummary": ("nr::WSummary<{T}, {A}, false>", "wsummary.hpp", 8, 2),
    "nanwsummary": ("nr::WSummary<{T}, {A}, true>", "wsummary.hpp", 8, 2),
    "maxsumexpb": ("nr::MaxSumExpB<{T}, {A}>", "logsumexp.hpp", 2, 2),
    "twoprod": ("nr::SumProd<{T}, {A}>", "twosum.hpp", 2, 2),
}
# The index-carrying reductions of argminmax / nanargminmax (no ufunc).
ARG_TRAITS = {
    "argminmax": ("nr::ArgMinMax<{T}, false>", "argminmax.hpp"),
    "nanargminmax": ("nr::ArgMinMax<{T}, true>", "argminmax.hpp"),
}

# NumPy type char -> (CuPy's C type of an element, the traits' storage type).
# Only dtypes CuPy has: no long double, datetime64 or timedelta64 on the device.
DEVICE_TYPES = {
    "?": ("bool", "bool"),
    "b": ("signed char", "signed char"),
    "B": ("unsigned char", "unsigned char"),
    "h": ("short", "short"),
    "H": ("unsigned short", "unsigned short"),
    "i": ("int", "int"),
    "I": ("unsigned int", "unsigned int"),
    "l": ("long long", "long long"),
    "L": ("unsigned long long", "unsigned long long"),
    "q": ("long long", "long long"),
    "Q": ("unsigned long long", "unsigned long long"),
    "e": ("float16", "nr::half16"),
    "f": ("float", "float"),
    "d": ("double", "double"),
    "F": ("complex<float>", "nr::cplx<float>"),
    "D": ("complex<double>", "nr::cplx<double>"),
}
# Real types of the accumulators (out_t), by type char.
_REAL = {"f": "float", "d": "double"}


def include_dir() -> str:
    """The installed headers' root: ``#include "numreduce/traits/..."``."""
    return os.path.join(os.path.dirname(os.path.abspath(__file__)), "include")


def _ufunc(name):
    from . import _core
    return getattr(_core, name)


@functools.lru_cache(maxsize=None)
def loop_types(name: str) -> dict:
    """{input type char: output type char} of the CPU ufunc's loops that the
    device has (read from the ufunc: ``resolve_dtypes`` per device dtype)."""
    u = _ufunc(name)
    found = {}
    for c in DEVICE_TYPES:
        dt = np.dtype(c)
        try:
            res = u.resolve_dtypes((dt, dt) + (None,) * u.nout)
        except TypeError:
            continue
        found[c] = res[2].char
    return found  # (cached: callers must not modify it)


def _entry(name):
    """(traits template, header, nout, number of sources) of ufunc ``name``."""
    if name in SOURCE_TRAITS:
        return SOURCE_TRAITS[name]
    return TRAITS[name] + (1,)


def _nsrc(name):
    return _entry(name)[3]


def _struct(template, in_char, out_char):
    return template.format(T=DEVICE_TYPES[in_char][1],
                           A=_REAL.get(out_char, DEVICE_TYPES[out_char][1]))


# The adapter between CuPy's kernels and the traits, the same for every
# ufunc and dtype (it sees only the typedefs nr_tr, nr_cin, nr_cout).
ADAPTER = r"""
// Byte copy between CuPy's element classes (float16, complex<T>) and the
// traits' storage types (nr::half16, nr::cplx<T>) of the same layout.
template <class To, class From>
struct nr_conv {
    static __device__ __forceinline__ To go(const From &f) {
        static_assert(sizeof(To) == sizeof(From), "nr_conv needs equal sizes");
        To t;
        const char *s = reinterpret_cast<const char *>(&f);
        char *d = reinterpret_cast<char *>(&t);
        for (int i = 0; i < (int)sizeof(To); i++) d[i] = s[i];
        return t;
    }
};
template <class T>
struct nr_conv<T, T> {
    static __device__ __forceinline__ T go(const T &f) { return f; }
};
typedef nr_tr::acc_t nr_acc;
"""
# One element: the stream value as the traits' in_t.
ADAPTER_IN = r"""
__device__ __forceinline__ nr_tr::in_t nr_in(const nr_cin &x) {
    return nr_conv<nr_tr::in_t, nr_cin>::go(x);
}
"""


def _adapter_in(nsrc):
    """``nr_in``: the element (one source) or the K sources' values of one
    element packed into the traits' ``nr::sources<T, K>``."""
    if nsrc == 1:
        return ADAPTER_IN
    params = ", ".join(f"const nr_cin &x{j}" for j in range(nsrc))
    return (f"\n__device__ __forceinline__ nr_tr::in_t nr_in({params}) {{\n"
            "    nr_tr::in_t s;\n"
            + "".join(f"    s.v[{j}] = x{j};\n" for j in range(nsrc))
            + "    return s;\n}\n")

# The state of one element, as the CPU loops start a reduction: step() from
# the traits' initials where it has them, else lift().  (Not lift() alone:
# for moments lift(NaN) is (1, NaN, 0) where step((0, 0, 0), NaN) is
# (1, NaN, NaN), so a one-element slice [NaN] would get the variance 0.)
ADAPTER_FIRST = r"""
__device__ __forceinline__ nr_acc nr_first(const nr_tr::in_t &x) {
    nr_acc init;
    if (nr_tr::initials(init, false)) return nr_tr::step(init, x);
    return nr_tr::lift(x);
}
"""

# Reductions whose traits keep nout values of out_t (every ufunc's traits).
ADAPTER_VALUES = r"""
typedef nr_tr::out_t nr_out_t;
__device__ __forceinline__ nr_cout nr_out(const nr_out_t &v) { return nr_conv<nr_cout, nr_out_t>::go(v); }
__device__ __forceinline__ nr_out_t nr_back(const nr_cout &v) { return nr_conv<nr_out_t, nr_cout>::go(v); }
// The reduction state: the traits' accumulator and whether it has seen an
// element (the identity of REDUCE for every traits struct, those without
// initials -- minimum/maximum -- included).
struct nr_state {
    nr_acc a;
    bool any;
};
__device__ __forceinline__ nr_state nr_empty() {
    nr_state s;
    s.any = false;
    return s;
}
__device__ __forceinline__ nr_state nr_reduce(const nr_state &a, const nr_state &b) {
    if (!b.any) return a;
    if (!a.any) return b;
    nr_state s;
    s.a = nr_tr::combine(a.a, b.a);
    s.any = true;
    return s;
}
// The final accumulator: mode 0 starts from the traits' initials of a
// non-empty reduction, 3 from those of an empty one (as the CPU loops; none
// for minimum/maximum), 1 from none, 2 from the given initial values init
// (one per output).  Slots that saw no element get the start values.
__device__ __forceinline__ nr_acc nr_final(const nr_state &s, int mode, const nr_acc &init) {
    nr_acc r;
    if (mode == 2) return s.any ? nr_tr::combine(init, s.a) : init;
    if ((mode == 0 || mode == 3) && nr_tr::initials(r, mode == 3)) return s.any ? nr_tr::combine(r, s.a) : r;
    return s.a;  // non-empty here: the caller refuses empty reductions without initials
}
"""

def _adapter_map(nsrc):
    """The map expressions of the reduction: the element's state (of one
    source, or of the K sources' values of one element), and with a mask."""
    params = ", ".join(f"const nr_cin &x{j}" for j in range(nsrc)) if nsrc > 1 \
        else "const nr_cin &x"
    args = ", ".join(f"x{j}" for j in range(nsrc)) if nsrc > 1 else "x"
    return (f"__device__ __forceinline__ nr_state nr_map({params}) {{\n"
            "    nr_state s;\n"
            f"    s.a = nr_first(nr_in({args}));\n"
            "    s.any = true;\n"
            "    return s;\n}\n"
            f"__device__ __forceinline__ nr_state nr_map_where({params}, bool w) {{\n"
            "    nr_state s;\n"
            f"    if (w) s.a = nr_first(nr_in({args}));\n"
            "    s.any = w;\n"
            "    return s;\n}\n")


def _post(nout):
    """The post-map of an nout-output reduction: a function, since CuPy
    wraps POST_MAP's expression in parentheses."""
    ins = ", ".join(f"nr_cout i{k}" for k in range(nout))
    outs = ", ".join(f"nr_cout &o{k}" for k in range(nout))
    return ("__device__ __forceinline__ void nr_post(const nr_state &s, int mode, "
            f"{ins}, {outs}) {{\n"
            "    nr_acc init;\n"
            + "".join(f"    init.v[{k}] = nr_back(i{k});\n" for k in range(nout))
            + "    const nr_acc r = nr_final(s, mode, init);\n"
            + "".join(f"    o{k} = nr_out(r.v[{k}]);\n" for k in range(nout))
            + "}\n")


def _typedefs(struct, in_char, out_char):
    return (f"typedef {struct} nr_tr;\n"
            f"typedef {DEVICE_TYPES[in_char][0]} nr_cin;\n"
            f"typedef {DEVICE_TYPES[out_char][0]} nr_cout;\n")


def preamble(name: str, in_char: str, out_char: str | None = None) -> str:
    """The kernel preamble of ufunc (or arg reduction) `name` for one input
    dtype: the traits header, the typedefs and the adapter."""
    if name in ARG_TRAITS:
        template, header = ARG_TRAITS[name]
        struct = template.format(T=DEVICE_TYPES[in_char][1])
        return (f'#include "numreduce/traits/{header}"\n' + _typedefs(struct, in_char, "l")
                + ADAPTER + ADAPTER_IN + ADAPTER_ARG)
    template, header, nout, nsrc = _entry(name)
    if out_char is None:
        out_char = loop_types(name)[in_char]
    struct = _struct(template, in_char, out_char)
    return (f'#include "numreduce/traits/{header}"\n' + _typedefs(struct, in_char, out_char)
            + ADAPTER + _adapter_in(nsrc) + ADAPTER_FIRST + ADAPTER_VALUES
            + _adapter_map(nsrc) + _post(nout))


def _dtype_name(char):
    return np.dtype(char).name


def elementwise_parts(name: str, in_char: str) -> dict:
    """Arguments of ``cupy.ElementwiseKernel`` for ufunc `name` on (in, in):
    outputs = combine(lift(x1), lift(x2)), as the CPU forward loop; for a
    reduction of K sources (``SOURCE_TRAITS``) on (x1, ..., xK): outputs =
    lift((x1, ..., xK)), the state of one element."""
    out_char = loop_types(name)[in_char]
    _, _, nout, nsrc = _entry(name)
    it, ot = _dtype_name(in_char), _dtype_name(out_char)
    outs = [f"o{k}" for k in range(nout)]
    if nsrc > 1:  # the state of one element of the K sources (the CPU forward loop)
        ins = [f"x{j + 1}" for j in range(nsrc)]
        state = f"nr_tr::lift(nr_in({', '.join(ins)}))"
    else:
        ins = ["x1", "x2"]
        state = "nr_tr::combine(nr_tr::lift(nr_in(x1)), nr_tr::lift(nr_in(x2)))"
    op = (f"nr_acc a = {state};\n"
          + "".join(f"{o} = nr_out(a.v[{k}]);\n" for k, o in enumerate(outs)))
    return dict(in_params=", ".join(f"{it} {x}" for x in ins),
                out_params=", ".join(f"{ot} {o}" for o in outs),
                operation=op, name=f"nr_{name}_{_dtype_name(in_char)}",
                preamble=preamble(name, in_char, out_char), options=("-I" + include_dir(),))


def reduction_parts(name: str, in_char: str, where: bool = False) -> dict:
    """Arguments of ``cupy.ReductionKernel`` for ``ufunc.reduce``: map = the
    element's state (nr_first: step from the initials where the traits have
    them, else lift), reduce = combine, the post-map writes every output.  Scalar
    parameters: nr_mode (initials mode, see nr_final) and one initial value
    per output (used for mode 2).  A reduction of K sources
    (``SOURCE_TRAITS``) takes the K arrays x0, ..., x{K-1} (broadcast
    together by CuPy): map = the state of one element's K values."""
    out_char = loop_types(name)[in_char]
    _, _, nout, nsrc = _entry(name)
    it, ot = _dtype_name(in_char), _dtype_name(out_char)
    outs = [f"o{k}" for k in range(nout)]
    inits = [f"i{k}" for k in range(nout)]
    xs = [f"x{j}" for j in range(nsrc)] if nsrc > 1 else ["x"]
    in_params = ", ".join(f"{it} {x}" for x in xs) + (", bool w" if where else "") + \
        ", int32 nr_mode, " + ", ".join(f"{ot} {i}" for i in inits)
    post = f"nr_post(a, nr_mode, {', '.join(inits)}, {', '.join(outs)})"
    args = ", ".join(xs + (["w"] if where else []))
    return dict(in_params=in_params, out_params=", ".join(f"{ot} {o}" for o in outs),
                map_expr=f"nr_map_where({args})" if where else f"nr_map({args})",
                reduce_expr="nr_reduce(a, b)", post_map_expr=post, identity="nr_empty()",
                name=f"nr_{name}_reduce_{_dtype_name(in_char)}{'_w' if where else ''}",
                reduce_type="nr_state", preamble=preamble(name, in_char, out_char),
                options=("-I" + include_dir(),))


# argminmax: the traits' own empty accumulator (index -1) is REDUCE's identity;
# _J is CuPy's index of the element in the reduced axes.
ADAPTER_ARG = r"""
__device__ __forceinline__ nr_acc nr_arg_empty() { return nr_tr::empty(); }
__device__ __forceinline__ nr_acc nr_arg_map(const nr_cin &x, long long j) { return nr_tr::lift(nr_in(x), j); }
__device__ __forceinline__ nr_acc nr_arg_reduce(const nr_acc &a, const nr_acc &b) { return nr_tr::combine(a, b); }
"""


def arg_reduction_parts(name: str, in_char: str) -> dict:
    """``cupy.ReductionKernel`` arguments of argminmax / nanargminmax: the
    (argmin, argmax) int64 outputs; an all-NaN slice of nanargminmax leaves
    -1 (the caller raises, as the CPU path)."""
    return dict(in_params=f"{_dtype_name(in_char)} x", out_params="int64 o0, int64 o1",
                map_expr="nr_arg_map(x, _J)", reduce_expr="nr_arg_reduce(a, b)",
                post_map_expr="o0 = a.ilo, o1 = a.ihi", identity="nr_arg_empty()",
                name=f"nr_{name}_{_dtype_name(in_char)}", reduce_type="nr_acc",
                preamble=preamble(name, in_char), options=("-I" + include_dir(),))


def merge_parts(name: str, state_char: str) -> dict:
    """``cupy.ElementwiseKernel`` arguments of ``merge``: two partial states
    (nout arrays each, of the accumulator dtype) combined elementwise, as
    the CPU merge loop: combine(a, b).  The traits are those whose
    accumulator dtype is the states' (stream type = state type)."""
    nout = _entry(name)[2]
    st = _dtype_name(state_char)
    a = [f"a{k}" for k in range(nout)]
    b = [f"b{k}" for k in range(nout)]
    outs = [f"o{k}" for k in range(nout)]
    op = ("nr_acc A, B;\n" + "".join(f"A.v[{k}] = nr_back({x}); B.v[{k}] = nr_back({y});\n"
                                     for k, (x, y) in enumerate(zip(a, b)))
          + "const nr_acc r = nr_tr::combine(A, B);\n"
          + "".join(f"{o} = nr_out(r.v[{k}]);\n" for k, o in enumerate(outs)))
    return dict(in_params=", ".join(f"{st} {x}" for x in a + b),
                out_params=", ".join(f"{st} {o}" for o in outs), operation=op,
                name=f"nr_{name}_merge_{st}", preamble=preamble(name, state_char, state_char),
                options=("-I" + include_dir(),))


def raw_prologue(*chars: str) -> str:
    """CuPy's headers that a RawKernel of these dtypes needs (CuPy adds them
    to its Elementwise/ReductionKernels itself, not to RawKernels): complex
    types from complex.cuh, float16 from float16.cuh.  Guarded by
    NR_STANDALONE_TYPES, which a harness with stand-in types defines."""
    inc = []
    if any(c in "FD" for c in chars):
        inc.append("#include <cupy/complex.cuh>")
    if "e" in chars:
        inc.append("#include <cupy/float16.cuh>")
    if not inc:
        return ""
    return "#ifndef NR_STANDALONE_TYPES\n" + "\n".join(inc) + "\n#endif\n"


def _adapter_load(nsrc):
    """``nr_load(x, i)``: element ``i`` of a RawKernel's stream as the
    traits' ``in_t`` -- ``x[i]``, or for a reduction of K sources the K
    consecutive values ``x[i * K], ..., x[i * K + K - 1]`` (the sources
    packed side by side: ``_cupy.pack_sources``), the CPU loops'
    ``sources<T, K>`` element."""
    if nsrc == 1:
        return ("__device__ __forceinline__ nr_tr::in_t nr_load(const nr_cin *x, long long i) "
                "{ return nr_in(x[i]); }\n")
    vals = ", ".join(f"p[{j}]" for j in range(nsrc))
    return ("__device__ __forceinline__ nr_tr::in_t nr_load(const nr_cin *x, long long i) {\n"
            f"    const nr_cin *p = x + i * {nsrc};\n"
            f"    return nr_in({vals});\n}}\n")


def _raw_preamble(name, in_char):
    """(preamble, nout) of a RawKernel of ufunc ``name`` (one source or K):
    CuPy's type headers, the traits, the adapter and ``nr_load``."""
    _, _, nout, nsrc = _entry(name)
    return (raw_prologue(in_char, loop_types(name)[in_char]) + preamble(name, in_char)
            + _adapter_load(nsrc)), nout


def accumulate_source(name: str, in_char: str) -> tuple[str, str]:
    """(source, kernel name) of the ``cupy.RawKernel`` of ``accumulate``:
    the data as (n, cols) C-contiguous (the axis first), one thread per
    column stepping down it -- out[j] = the first element's state (nr_first:
    step from the initials, else lift) stepped through x[j], the CPU scan's
    running state -- so that a warp's loads are contiguous.  For a reduction
    of K sources an element is its K consecutive values (``nr_load``): the
    data (n, cols, K)."""
    pre, nout = _raw_preamble(name, in_char)
    kname = f"nr_{name}_accumulate_{_dtype_name(in_char)}"
    outs = ", ".join(f"nr_cout *o{k}" for k in range(nout))
    body = (f'extern "C" __global__ void {kname}(const nr_cin *x, {outs}, long long n, '
            "long long cols) {\n"
            "    const long long c = (long long)blockIdx.x * blockDim.x + threadIdx.x;\n"
            "    if (c >= cols) return;\n"
            "    nr_acc a = nr_first(nr_load(x, c));  // as the CPU scan starts\n"
            "    for (long long j = 0; j < n; j++) {\n"
            "        const long long i = j * cols + c;\n"
            "        if (j > 0) a = nr_tr::step(a, nr_load(x, i));\n"
            + "".join(f"        o{k}[i] = nr_out(a.v[{k}]);\n" for k in range(nout))
            + "    }\n}\n")
    return pre + body, kname


# Flags of the segments kernel.
SEG_WHERE, SEG_PERM, SEG_EMPTY_UNSEEN = 1, 2, 4


def segments_source(name: str, in_char: str) -> tuple[str, str]:
    """(source, kernel name) of the ``cupy.RawKernel`` behind ``reduceat``,
    ``segmented_reduce``, ``reduce_by_group`` and ``at``: the data as a
    C-contiguous (outer, n, inner) block, one thread per output slot
    t = (o, s, j) (j fastest: neighbouring threads read neighbouring
    columns), which walks its segment [starts[s], stops[s]) of the axis as
    the CPU's segment loop (segment_block in loops.hpp): lift the first
    element (or step from the seed), step the rest, in order.

    perm (flag SEG_PERM) maps segment positions to axis positions (the
    grouped methods pass the stable sort of the group ids: each group is
    then a segment, in the order of its elements); w (SEG_WHERE) masks
    elements.  Seeds: mode 0 the traits' initials (where there are any),
    2 the scalars i0.. (initial=), 4 per-slot seed arrays s0.. (at's
    accumulators).  An empty segment -- and with SEG_EMPTY_UNSEEN one whose
    elements were all masked out (the scatter loop's rule) -- gets the
    empty seed (the traits' initials(acc, true)).  For a reduction of K
    sources an element is its K consecutive values (``nr_load``): the data
    (outer, n, inner, K); the mask and the slots index elements."""
    pre, nout = _raw_preamble(name, in_char)
    kname = f"nr_{name}_segments_{_dtype_name(in_char)}"
    outs = ", ".join(f"nr_cout *o{k}" for k in range(nout))
    seeds = ", ".join(f"const nr_cout *s{k}" for k in range(nout))
    inits = ", ".join(f"nr_cout i{k}" for k in range(nout))
    body = (f'extern "C" __global__ void {kname}(const nr_cin *x, const bool *w, '
            "const long long *perm, const long long *starts, const long long *stops, "
            f"{outs}, {seeds}, int mode, {inits}, unsigned int flags, long long outer, "
            "long long n, long long inner, long long nseg) {\n"
            "    const long long t = (long long)blockIdx.x * blockDim.x + threadIdx.x;\n"
            "    if (t >= outer * nseg * inner) return;\n"
            "    const long long j = t % inner, r = t / inner;\n"
            "    const long long s = r % nseg, o = r / nseg;\n"
            "    nr_acc seed, seed_empty;\n"
            "    bool have = false;\n"
            "    if (mode == 0) {\n"
            "        have = nr_tr::initials(seed, false);\n"
            "        if (have) nr_tr::initials(seed_empty, true);\n"
            "    } else if (mode == 2) {\n"
            + "".join(f"        seed.v[{k}] = nr_back(i{k});\n" for k in range(nout))
            + "        seed_empty = seed;\n        have = true;\n"
            "    } else if (mode == 4) {\n"
            + "".join(f"        seed.v[{k}] = nr_back(s{k}[t]);\n" for k in range(nout))
            + "        seed_empty = seed;\n        have = true;\n    }\n"
            "    const long long lo = starts[s], hi = stops[s];\n"
            "    nr_acc a = seed;\n"
            "    bool any = false;\n"
            "    for (long long k = lo; k < hi; k++) {\n"
            f"        const long long p = (flags & {SEG_PERM}u) ? perm[k] : k;\n"
            "        const long long i = (o * n + p) * inner + j;\n"
            f"        if ((flags & {SEG_WHERE}u) && !w[i]) continue;\n"
            "        const nr_tr::in_t v = nr_load(x, i);\n"
            "        a = (any || have) ? nr_tr::step(a, v) : nr_tr::lift(v);\n"
            "        any = true;\n"
            "    }\n"
            f"    if (hi <= lo || ((flags & {SEG_EMPTY_UNSEEN}u) && !any)) a = seed_empty;\n"
            + "".join(f"    o{k}[t] = nr_out(a.v[{k}]);\n" for k in range(nout))
            + "}\n")
    return pre + body, kname
