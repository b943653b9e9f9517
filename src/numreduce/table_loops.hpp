// Internal: the loop entries of the registration table's rows (ufuncs.cpp's
// table()), one function a row, and the dtype lists they are built from.
// The functions are defined in the table_loops_*.cpp files, a few rows each:
// instantiating the loop templates (loops.hpp) for every traits class and
// dtype is nearly all of the extension's compile time, and split across
// translation units it is compiled in parallel (meson/ninja -j).  Each
// traits class's loops are instantiated in one of these files only: Clang
// 14 emits the resolver of a target_clones function (NR_TARGET_CLONES) as a
// strong symbol, so the same instantiation in two files would not link.
#pragma once

#include <vector>

#include "extension.hpp"
#include "ufuncs.hpp"

namespace nr {

// table_loops_order.cpp: every dtype NumPy orders
std::vector<LoopEntry> minimummaximum_loops();
std::vector<LoopEntry> fminfmax_loops();
// table_loops_moments.cpp, table_loops_nanmoments.cpp: bool, integers and
// floats (nanmoments: floats), accumulated in float64 (long double in itself)
std::vector<LoopEntry> moments_loops();
std::vector<LoopEntry> nanmoments_loops();
// table_loops_summary.cpp: the same dtypes (nansummary: floats), in float64
// (long double in itself)
std::vector<LoopEntry> summary_loops();
std::vector<LoopEntry> nansummary_loops();
// (and, with frequency weights, the two-source loops of the sources' dtypes)
std::vector<LoopEntry> wsummary_loops();
std::vector<LoopEntry> nanwsummary_loops();
// table_loops_sums.cpp: the same dtypes (float32 sums in float32)
std::vector<LoopEntry> maxsumexp_loops();
std::vector<LoopEntry> twosum_loops();
std::vector<LoopEntry> sqtwosum_loops();  // float32, float64
// table_loops_sources.cpp: float32, float64 and long double sources
std::vector<LoopEntry> wmoments_loops();
std::vector<LoopEntry> nanwmoments_loops();
std::vector<LoopEntry> comoments_loops();
std::vector<LoopEntry> maxsumexpb_loops();
std::vector<LoopEntry> twoprod_loops();

namespace dtype_lists {

// Every dtype NumPy orders (np.minimum's dtypes less object): calls
// f(type_num, T{}) once per NumPy type number with its storage type T.
template <class F>
void for_ordered_types(F &&f) {
    f(NPY_BOOL, npy_bool{});
    f(NPY_BYTE, npy_byte{});
    f(NPY_UBYTE, npy_ubyte{});
    f(NPY_SHORT, npy_short{});
    f(NPY_USHORT, npy_ushort{});
    f(NPY_INT, npy_int{});
    f(NPY_UINT, npy_uint{});
    f(NPY_LONG, npy_long{});
    f(NPY_ULONG, npy_ulong{});
    f(NPY_LONGLONG, npy_longlong{});
    f(NPY_ULONGLONG, npy_ulonglong{});
    f(NPY_HALF, half16{});
    f(NPY_FLOAT, float{});
    f(NPY_DOUBLE, double{});
    f(NPY_LONGDOUBLE, static_cast<long double>(0));
    f(NPY_CFLOAT, cplx<float>{});
    f(NPY_CDOUBLE, cplx<double>{});
    f(NPY_CLONGDOUBLE, cplx<long double>{});
    f(NPY_DATETIME, datetime64{});
    f(NPY_TIMEDELTA, timedelta64{});
}

// make_loop for numreduce's own table, with the traits' scatter_rows
// (loops.hpp) registered for the engine's grouped reductions of several
// rows (engine_scatter.cpp).
template <class Tr>
LoopEntry builtin_loop(int in_type, int out_type) {
    register_scatter_rows(&scatter_block<Tr>, &scatter_rows<Tr>);
    return make_loop<Tr>(in_type, out_type);
}

// Order-only reductions Tr<T>: output = input, every ordered dtype.
template <template <class> class Tr>
std::vector<LoopEntry> ordered_dtypes() {
    std::vector<LoopEntry> v;
    for_ordered_types([&](int type, auto tag) {
        v.push_back(builtin_loop<Tr<decltype(tag)>>(type, type));
    });
    return v;
}

template <class A>
constexpr int npy_type_of() {
    return std::is_same<A, float>::value    ? NPY_FLOAT
           : std::is_same<A, double>::value ? NPY_DOUBLE
                                            : NPY_LONGDOUBLE;
}

// Real-valued reductions Tr<T, A>: bool and integers accumulate in float64,
// float16 in F16A, float32 in F32A, float64 and long double in themselves.
template <template <class, class> class Tr, class F16A, class F32A>
std::vector<LoopEntry> real_dtypes(bool with_integers) {
    std::vector<LoopEntry> v;
    if (with_integers) {
        v = {
            builtin_loop<Tr<npy_bool, double>>(NPY_BOOL, NPY_DOUBLE),
            builtin_loop<Tr<npy_byte, double>>(NPY_BYTE, NPY_DOUBLE),
            builtin_loop<Tr<npy_ubyte, double>>(NPY_UBYTE, NPY_DOUBLE),
            builtin_loop<Tr<npy_short, double>>(NPY_SHORT, NPY_DOUBLE),
            builtin_loop<Tr<npy_ushort, double>>(NPY_USHORT, NPY_DOUBLE),
            builtin_loop<Tr<npy_int, double>>(NPY_INT, NPY_DOUBLE),
            builtin_loop<Tr<npy_uint, double>>(NPY_UINT, NPY_DOUBLE),
            builtin_loop<Tr<npy_long, double>>(NPY_LONG, NPY_DOUBLE),
            builtin_loop<Tr<npy_ulong, double>>(NPY_ULONG, NPY_DOUBLE),
            builtin_loop<Tr<npy_longlong, double>>(NPY_LONGLONG, NPY_DOUBLE),
            builtin_loop<Tr<npy_ulonglong, double>>(NPY_ULONGLONG, NPY_DOUBLE),
        };
    }
    v.push_back(builtin_loop<Tr<half16, F16A>>(NPY_HALF, npy_type_of<F16A>()));
    v.push_back(builtin_loop<Tr<float, F32A>>(NPY_FLOAT, npy_type_of<F32A>()));
    v.push_back(builtin_loop<Tr<double, double>>(NPY_DOUBLE, NPY_DOUBLE));
    v.push_back(builtin_loop<Tr<long double, long double>>(NPY_LONGDOUBLE, NPY_LONGDOUBLE));
    return v;
}

// Reductions of two sources Tr<T, A>: float32 sources accumulate in
// F32A, float64 and long double in themselves (numreduce's functions cast
// other sources to float64 first).
template <template <class, class> class Tr, class F32A>
std::vector<LoopEntry> source_dtypes() {
    return {builtin_loop<Tr<float, F32A>>(NPY_FLOAT, npy_type_of<F32A>()),
            builtin_loop<Tr<double, double>>(NPY_DOUBLE, NPY_DOUBLE),
            builtin_loop<Tr<long double, long double>>(NPY_LONGDOUBLE, NPY_LONGDOUBLE)};
}


}  // namespace dtype_lists
}  // namespace nr
