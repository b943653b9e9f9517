#pragma once
#include "numpy_api.hpp"

namespace nr {
PyObject *engine_reduce(PyObject *self, PyObject *args);
PyObject *engine_argminmax(PyObject *self, PyObject *args);
PyObject *engine_reduce_all(PyObject *self, PyObject *args);
PyObject *engine_set_num_threads(PyObject *self, PyObject *arg);
PyObject *engine_reduce_rows(PyObject *self, PyObject *args);
PyObject *engine_reduce_trailing(PyObject *self, PyObject *args);
// engine_merge.cpp, engine_scan.cpp
PyObject *engine_merge(PyObject *self, PyObject *args);
PyObject *engine_accumulate(PyObject *self, PyObject *args);
// engine_segments.cpp; engine.cpp's thread count (set_num_threads)
PyObject *engine_segments(PyObject *self, PyObject *args);
int engine_num_threads();
// engine_scatter.cpp
PyObject *engine_scatter(PyObject *self, PyObject *args);
}
