// numreduce._core: module init, the native-slot probe, the ufunc table.
#define NR_IMPORT_NUMPY_HERE
#include "numpy_api.hpp"

#include <cstdio>
#include <string>

#include "engine.hpp"
#include "extension.hpp"
#include "simd.hpp"
#include "ufuncs.hpp"

// The compiler that built the module (show_config's "compiler"): GCC's and
// Clang's __VERSION__ string (MinGW-w64 and clang-cl included); MSVC has no
// __VERSION__, its full version number instead.
#if defined(__VERSION__)
#define NR_BUILD_COMPILER __VERSION__
#elif defined(_MSC_FULL_VER)
#define NR_STRINGIFY_(x) #x
#define NR_STRINGIFY(x) NR_STRINGIFY_(x)
#define NR_BUILD_COMPILER "MSVC " NR_STRINGIFY(_MSC_FULL_VER)
#else
#define NR_BUILD_COMPILER "unknown"
#endif

namespace {

PyObject *kernel_policy(PyObject *, PyObject *);  // below

PyMethodDef methods[] = {
    {"_reduce", (PyCFunction)nr::engine_reduce, METH_VARARGS,
     "_reduce(ufunc, operand, outs, where, axes, initial_mode, initials, descrs)\n"
     "The engine's reduction core; call numreduce.reduce instead."},
    {"_reduce_all", (PyCFunction)nr::engine_reduce_all, METH_VARARGS,
     "_reduce_all(ufunc, a) -> tuple or None: whole-array reduction fast path."},
    {"_reduce_rows", (PyCFunction)nr::engine_reduce_rows, METH_VARARGS,
     "_reduce_rows(ufunc, a2d) -> tuple or None: axis-0 reduction, column-blocked."},
    {"_reduce_trailing", (PyCFunction)nr::engine_reduce_trailing, METH_VARARGS,
     "_reduce_trailing(ufunc, a2d) -> tuple or None: axis-1 reduction, row by row."},
    {"_set_num_threads", (PyCFunction)nr::engine_set_num_threads, METH_O,
     "_set_num_threads(n) -> previous n.  Call numreduce.set_num_threads instead."},
    {"_set_default_threads", (PyCFunction)nr::engine_set_default_threads, METH_O,
     "_set_default_threads(n) -> previous n: the count not chosen by the user (import)."},
    {"_get_num_threads", (PyCFunction)nr::engine_get_num_threads, METH_NOARGS,
     "_get_num_threads() -> (n, chosen by the user, this thread's n for a call now).  Call numreduce.get_num_threads instead."},
    {"_task_mode", (PyCFunction)nr::engine_task_mode, METH_O,
     "_task_mode(flag) -> previous flag: this thread runs Dask tasks (one thread per call\n"
     "unless the user chose the count)."},
    {"_argminmax", (PyCFunction)nr::engine_argminmax, METH_VARARGS,
     "_argminmax(rows, skip_nan) -> (argmin, argmax) per row of a 2-D array, or along\n"
     "axis 1 of a 3-D one (flattened over axes 0 and 2).\n"
     "Call numreduce.argminmax instead."},
    {"_merge", (PyCFunction)nr::engine_merge, METH_VARARGS,
     "_merge(ufunc, states_a, states_b, outs, stream_descr, acc_descr) -> tuple.\n"
     "Call numreduce.merge instead."},
    {"_accumulate", (PyCFunction)nr::engine_accumulate, METH_VARARGS,
     "_accumulate(ufunc, x, outs, outer, n, inner) -> None.  Call numreduce.accumulate instead."},
    {"_segments", (PyCFunction)nr::engine_segments, METH_VARARGS,
     "_segments(ufunc, x, mask, outs, outer, n, inner, starts, stops, mode, initials) -> None.\n"
     "Call numreduce.reduceat or numreduce.segmented_reduce instead."},
    {"_scatter", (PyCFunction)nr::engine_scatter, METH_VARARGS,
     "_scatter(ufunc, x, ids, mask, accs, seen, outer, n, inner, G) -> -1 or bad index.\n"
     "x: the stream (K sources packed), or for a reduction of K sources whose loop\n"
     "scatters them in place (_scatters_sources) a tuple of the K source arrays,\n"
     "each (outer, n, inner) C-contiguous, aligned, native, of the loop's dtype.\n"
     "Call numreduce.reduce_by_group or numreduce.at instead."},
    {"_scatter_floor", (PyCFunction)nr::scatter_floor, METH_VARARGS,
     "_scatter_floor(x, ids, G) -> float: every float64 element added into its group's\n"
     "16-byte slot, in order (the bench's bound for grouped reductions: their reads and\n"
     "random slot updates with the least work)."},
    {"_fast_function", (PyCFunction)nr::fast_function_new, METH_VARARGS,
     "_fast_function(name, general, ufunc, nan_ufunc) -> the C fast-path callable of the\n"
     "user function `name` (numreduce/_fastpath.py binds the public names to them)."},
    {"_kernel_policy", (PyCFunction)kernel_policy, METH_NOARGS,
     "_kernel_policy() -> dict: the CPU and the kernel choices made for it (show_config)."},
    {"_has_initials", (PyCFunction)nr::registry_has_initials, METH_VARARGS,
     "_has_initials(ufunc, dtype) -> bool: whether the loop for `dtype` has initials."},
    {"_scatters_sources", (PyCFunction)nr::registry_scatters_sources, METH_VARARGS,
     "_scatters_sources(ufunc, dtype) -> bool: whether the loop for `dtype` takes its K\n"
     "sources in place in _scatter (C API 1.2's LoopEntry::scatter_sources)."},
    {nullptr, nullptr, 0, nullptr},
};

PyModuleDef moduledef = {PyModuleDef_HEAD_INIT, "numreduce._core",
                         "numreduce's compiled core (ufuncs, loops, engine).", -1, methods};

// The vector-kernel variant in use (simd.hpp), for show_config().
const char *simd_kernels() {
#if defined(NR_HAVE_HOST_SIMD)
    return nr::simd::simd_level_name();
#elif defined(NR_DISABLE_HOST_SIMD)
    return "none (scalar loops: disabled by the build, -Dsimd=false; NUMREDUCE_SIMD has no effect)";
#else
    return "none (scalar loops: no vector kernels for this compiler or CPU)";
#endif
}

// _kernel_policy() -> dict: what the kernels were chosen by on this CPU,
// for show_config(): the CPU (cpuid), the width of the memory-streaming
// kernels and why, the software prefetch and why, the axis-0 row layout
// (by the L1 data cache the OS reports), argminmax's row kernels, the
// width of short blocks (moments, TwoSum) under AVX-512.
PyObject *kernel_policy(PyObject *, PyObject *) {
#if defined(NR_HAVE_HOST_SIMD)
    namespace s = nr::simd;
    const s::mem_choice m = s::choose_mem_level();
    const s::prefetch_choice p = s::choose_prefetch();
    const bool l1_os = s::os_cache_bytes(1) > 0, l2_os = s::os_cache_bytes(2) > 0;
    char stream[320], prefetch[200], rows[320];
    std::snprintf(stream, sizeof stream, "%s (%s)", s::mem_level_name(s::mem_level()), m.why);
    if (p.bytes > 0) {
        std::snprintf(prefetch, sizeof prefetch, "%lld KiB ahead (%s)", p.bytes / 1024, p.why);
    } else {
        std::snprintf(prefetch, sizeof prefetch, "off (%s)", p.why);
    }
    std::snprintf(rows, sizeof rows,
                  "rows with up to %lld KiB of accumulators stream whole where the reduction "
                  "is larger than the L2 (%lld KiB%s), else register tiles (half the L1d: %lld "
                  "KiB %s)",
                  s::row_stream_bytes() / 1024, s::l2_bytes() / 1024,
                  l2_os ? "" : ", assumed: the OS did not say", s::l1d_bytes() / 1024,
                  l1_os ? "from the OS" : "assumed: the OS did not say");
    char arg[448];
    const int level = s::simd_level();
    const int n = std::snprintf(arg, sizeof arg,
                                "rows of up to %lld elements in one pass of value and index lanes, "
                                "longer rows by the blocked min/max pass; rows side by side (a "
                                "leading axis) stepped together, a lane per row, 4 KiB of them at "
                                "a time",
                                s::argminmax_short());
    if (level == 2 && n > 0 && n < (int)sizeof arg) {
        const s::arg_width_choice w = s::choose_argminmax_width();
        std::snprintf(arg + n, sizeof arg - n,
                      "; the 64-byte pass from %lld bytes a row, AVX2's below (%s)", w.bytes, w.why);
    }
    char shorter[400];
    int k;
    if (level == 2) {
        k = std::snprintf(shorter, sizeof shorter,
                          "AVX2's lanes for moments' blocks of fewer than %lld elements and TwoSum "
                          "streams of fewer than %lld KiB, AVX-512's from there (a rule by length, "
                          "the same on every CPU)",
                          s::MOMENTS_WIDE, s::TWO_SUM_WIDE_BYTES / 1024);
    } else {
        k = std::snprintf(shorter, sizeof shorter, "one width at every length (%s)",
                          level == 1 ? "AVX2" : "the baseline level");
    }
    if (k > 0 && k < (int)sizeof shorter) {
        const s::rows_at_once_choice rr = s::choose_two_sum_rows_at_once();
        std::snprintf(shorter + k, sizeof shorter - k,
                      "; fsum along the last axis steps %d row%s at a time (%s)", rr.rows,
                      rr.rows == 1 ? "" : "s", rr.why);
    }
    return Py_BuildValue("{s:s,s:s,s:s,s:s,s:s,s:s}", "cpu", s::cpu().text, "stream_kernels", stream,
                         "prefetch", prefetch, "row_layout", rows, "arg_rows", arg, "short_blocks",
                         shorter);
#else
    return Py_BuildValue("{s:s,s:s,s:s,s:s,s:s,s:s}", "cpu", "unknown", "stream_kernels",
                         "none (scalar loops)", "prefetch", "off (scalar loops)", "row_layout",
                         "scalar loops", "arg_rows", "scalar loops", "short_blocks", "scalar loops");
#endif
}

int native_reduce_c() { return nr::native_reduce() ? 1 : 0; }

// The C API other extension modules import (nr::import_numreduce,
// extension.hpp): the registration route numreduce's own ufuncs take too.
const nr::CApi c_api = {NUMREDUCE_API_VERSION, int(nr::kLoopEntrySize_1_1), &nr::register_spec,
                        &native_reduce_c, int(sizeof(nr::LoopEntry))};

int add_capsule(PyObject *m) {
    PyObject *c = PyCapsule_New(const_cast<nr::CApi *>(&c_api), NUMREDUCE_CAPSULE_NAME, nullptr);
    if (c == nullptr) return -1;
    const int res = PyModule_AddObjectRef(m, "_C_API", c);
    Py_DECREF(c);
    return res;
}

}  // namespace

PyMODINIT_FUNC PyInit__core(void) {
    import_array();
    import_umath();
    PyObject *m = PyModule_Create(&moduledef);
    if (m == nullptr) return nullptr;

    std::string reason;
    const bool native = nr::probe_native_reduce(&reason);
    if (nr::register_ufuncs(m, native) < 0 ||
        PyModule_AddObjectRef(m, "_HAVE_NATIVE_REDUCE", native ? Py_True : Py_False) < 0 ||
        PyModule_AddStringConstant(m, "_NATIVE_REASON", reason.c_str()) < 0 ||
        add_capsule(m) < 0 ||
        PyModule_AddIntConstant(m, "_C_API_VERSION", NUMREDUCE_API_VERSION) < 0 ||
        PyModule_AddStringConstant(m, "_BUILD_COMPILER", NR_BUILD_COMPILER) < 0 ||
        PyModule_AddStringConstant(m, "_SIMD_KERNELS", simd_kernels()) < 0 ||
        PyModule_AddIntConstant(m, "_BUILD_NPY_TARGET_VERSION", NPY_FEATURE_VERSION) < 0) {
        Py_DECREF(m);
        return nullptr;
    }
    return m;
}
