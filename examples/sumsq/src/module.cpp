// nrsumsq._sumsq: the sumsq ufunc, registered through numreduce's C API.
#define NR_IMPORT_NUMPY_HERE  // this translation unit holds NumPy's API tables
#include <numreduce/extension.hpp>

#include "sumsq.hpp"
#include "wsumsq.hpp"
#include "absminmax.hpp"

namespace {

const char kDoc[] =
    "sumsq(x1, x2, /, out=(None, None), *, where=True, ...)\n\n"
    "(x1 + x2, x1**2 + x2**2).  Its reduction gives (sum(a), sum(a**2)) in one\n"
    "pass, in float64 (long double for long double):\n"
    "numreduce.reduce(sumsq, a, axis) on every NumPy 2.x, sumsq.reduce(a, axis)\n"
    "where NumPy has the multi-output reduction slots, and every numreduce\n"
    "method (accumulate, reduceat, segmented_reduce, reduce_by_group, at, merge).";

const char kWDoc[] =
    "wsumsq(x, w, /, out=(None, None), *, where=True, ...)\n\n"
    "(w x, w x**2): one element's weighted sums.  numreduce.reduce(wsumsq, (x, w),\n"
    "axis) reduces both arrays (broadcast together) in one pass to\n"
    "(sum(w x), sum(w x**2)), in float64 (float32 data) or the data's float type;\n"
    "numreduce.merge combines two such states.";

const char kAbsDoc[] =
    "absminmax(x1, x2, /, out=(None, None), *, where=True, ...)\n\n"
    "(min(|x1|, |x2|), max(|x1|, |x2|)).  A reduction without initial values whose\n"
    "lift is not the element itself: numreduce.reduce(absminmax, a, axis) gives\n"
    "(min |a|, max |a|), each slice starting from its first element's state.";

PyModuleDef moduledef = {PyModuleDef_HEAD_INIT, "nrsumsq._sumsq",
                         "The sumsq ufunc (a numreduce extension).", -1, nullptr};

}  // namespace

PyMODINIT_FUNC PyInit__sumsq(void) {
    if (nr::import_numreduce() < 0) return nullptr;
    PyObject *m = PyModule_Create(&moduledef);
    if (m == nullptr) return nullptr;
    // The one registration call: a loop per input dtype.
    if (nr::register_ufunc(m, "sumsq", kDoc,
                           {
                               nr::make_loop<SumSq<npy_bool>>(NPY_BOOL, NPY_DOUBLE),
                               nr::make_loop<SumSq<npy_byte>>(NPY_BYTE, NPY_DOUBLE),
                               nr::make_loop<SumSq<npy_ubyte>>(NPY_UBYTE, NPY_DOUBLE),
                               nr::make_loop<SumSq<npy_short>>(NPY_SHORT, NPY_DOUBLE),
                               nr::make_loop<SumSq<npy_ushort>>(NPY_USHORT, NPY_DOUBLE),
                               nr::make_loop<SumSq<npy_int>>(NPY_INT, NPY_DOUBLE),
                               nr::make_loop<SumSq<npy_uint>>(NPY_UINT, NPY_DOUBLE),
                               nr::make_loop<SumSq<npy_long>>(NPY_LONG, NPY_DOUBLE),
                               nr::make_loop<SumSq<npy_ulong>>(NPY_ULONG, NPY_DOUBLE),
                               nr::make_loop<SumSq<npy_longlong>>(NPY_LONGLONG, NPY_DOUBLE),
                               nr::make_loop<SumSq<npy_ulonglong>>(NPY_ULONGLONG, NPY_DOUBLE),
                               nr::make_loop<SumSq<nr::half16>>(NPY_HALF, NPY_DOUBLE),
                               nr::make_loop<SumSq<float>>(NPY_FLOAT, NPY_DOUBLE),
                               nr::make_loop<SumSq<double>>(NPY_DOUBLE, NPY_DOUBLE),
                               nr::make_loop<SumSq<long double, long double>>(NPY_LONGDOUBLE,
                                                                              NPY_LONGDOUBLE),
                           }) < 0) {
        Py_DECREF(m);
        return nullptr;
    }
    // A reduction of two arrays (C API 1.1): the traits say nsrc = 2; the
    // inputs are cast to the loop's dtype (integers to float64).
    if (nr::register_ufunc(m, "wsumsq", kWDoc,
                           {
                               nr::make_loop<WSumSq<float>>(NPY_FLOAT, NPY_DOUBLE),
                               nr::make_loop<WSumSq<double>>(NPY_DOUBLE, NPY_DOUBLE),
                               nr::make_loop<WSumSq<long double, long double>>(NPY_LONGDOUBLE,
                                                                               NPY_LONGDOUBLE),
                           }) < 0) {
        Py_DECREF(m);
        return nullptr;
    }
    // No initials: every reduction starts from its first element's state.
    if (nr::register_ufunc(m, "absminmax", kAbsDoc,
                           {
                               nr::make_loop<AbsMinMax<float>>(NPY_FLOAT, NPY_FLOAT),
                               nr::make_loop<AbsMinMax<double>>(NPY_DOUBLE, NPY_DOUBLE),
                               nr::make_loop<AbsMinMax<npy_longlong>>(NPY_LONGLONG, NPY_LONGLONG),
                           }) < 0) {
        Py_DECREF(m);
        return nullptr;
    }
    return m;
}
