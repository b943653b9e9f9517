// One place that includes Python and the NumPy C API for every translation
// unit.  Built against NumPy >= 2.0 headers with NPY_TARGET_VERSION pinned to
// 2.0 so one binary runs on every NumPy 2.x.  Public (installed with the
// extension API, extension.hpp): a third-party extension may define its own
// NPY_TARGET_VERSION and PY_ARRAY_UNIQUE_SYMBOL / PY_UFUNC_UNIQUE_SYMBOL
// first; NR_IMPORT_NUMPY_HERE marks the one translation unit that holds
// NumPy's API tables (the module init's).
#pragma once

#define PY_SSIZE_T_CLEAN
#include <Python.h>

#include <cstdint>

#ifndef NPY_NO_DEPRECATED_API
#define NPY_NO_DEPRECATED_API NPY_2_0_API_VERSION
#endif
#ifndef NPY_TARGET_VERSION
#define NPY_TARGET_VERSION NPY_2_0_API_VERSION
#endif
#ifndef PY_ARRAY_UNIQUE_SYMBOL
#define PY_ARRAY_UNIQUE_SYMBOL numreduce_ARRAY_API
#endif
#ifndef PY_UFUNC_UNIQUE_SYMBOL
#define PY_UFUNC_UNIQUE_SYMBOL numreduce_UFUNC_API
#endif
#ifndef NR_IMPORT_NUMPY_HERE
#define NO_IMPORT_ARRAY
#define NO_IMPORT_UFUNC
#endif

#include <numpy/arrayobject.h>
#include <numpy/dtype_api.h>
#include <numpy/ufuncobject.h>

// The two ArrayMethod slots NumPy 2.6 adds for multi-output reductions.
// Released headers (2.0 - 2.5) lack them; the values are NumPy's.
#ifndef NPY_METH_get_reduction_loop
#define NPY_METH_get_reduction_loop 11
#endif
#ifndef NPY_METH_get_multi_reduction_initials
#define NPY_METH_get_multi_reduction_initials 12
typedef int(PyArrayMethod_GetMultiReductionInitials)(PyArrayMethod_Context *context,
                                                      npy_bool reduction_is_empty,
                                                      void **initials);
#endif
