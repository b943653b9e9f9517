#pragma once
#include <atomic>
#include <system_error>
#include <thread>
#include <vector>

#include "numpy_api.hpp"
#include "ufuncs.hpp"

namespace nr {
PyObject *engine_reduce(PyObject *self, PyObject *args);
PyObject *engine_argminmax(PyObject *self, PyObject *args);
PyObject *engine_reduce_all(PyObject *self, PyObject *args);
PyObject *engine_set_num_threads(PyObject *self, PyObject *arg);
PyObject *engine_set_default_threads(PyObject *self, PyObject *arg);
PyObject *engine_get_num_threads(PyObject *self, PyObject *unused);
PyObject *engine_task_mode(PyObject *self, PyObject *arg);
PyObject *engine_reduce_rows(PyObject *self, PyObject *args);
PyObject *engine_reduce_trailing(PyObject *self, PyObject *args);
// engine_merge.cpp, engine_scan.cpp
PyObject *engine_merge(PyObject *self, PyObject *args);
PyObject *engine_accumulate(PyObject *self, PyObject *args);
// engine_segments.cpp; engine.cpp's thread count for this call: the
// setting, or 1 in a Dask task of numreduce's Dask backend unless the user
// chose the count (set_num_threads, NUMREDUCE_NUM_THREADS)
PyObject *engine_segments(PyObject *self, PyObject *args);
int engine_num_threads();
// engine_scatter.cpp
PyObject *engine_scatter(PyObject *self, PyObject *args);
PyObject *scatter_floor(PyObject *self, PyObject *args);  // the bench's bound

// The iterator-free paths behind _reduce_all / _reduce_rows /
// _reduce_trailing, callable from C++ (fastpath.cpp): a new tuple, a new
// reference to Py_None where the array is not for that path, or nullptr.
PyObject *reduce_all_array(PyObject *ufunc, PyArrayObject *a);
// reduce_all_array's values without the scalars: 1 (each output's value in
// values[i], all of type *out_type; values 16-byte aligned, meaningful
// only on 1), 0 (not for this path), -1 (error).
int reduce_all_raw(PyObject *ufunc, PyArrayObject *a, char (*values)[32], int *out_type);
PyObject *reduce_rows_array(PyObject *ufunc, PyArrayObject *a);
PyObject *reduce_trailing_array(PyObject *ufunc, PyArrayObject *a);
// fastpath.cpp: the C callables of the user functions (module.cpp's table)
PyObject *fast_function_new(PyObject *self, PyObject *args);

// Shared by the engine methods (engine_scan/segments/scatter.cpp).
// The loop entry of `ufunc` for input descriptor `in` (sets *nout, and
// *name if given), or nullptr with a TypeError naming the missing loop.
// The methods' stream `x` holds elements of `in`; for a reduction of K
// sources (entry->nsrc = K) an element is K consecutive values of `in` (the
// traits' sources<T, K>: the K sources packed as records, viewed as T), so
// x has K times the elements of the (outer, n, inner) block
// (stream_width).
inline const LoopEntry *method_loop(PyObject *ufunc, PyArray_Descr *in, const char *what,
                                    int *nout, const char **name = nullptr) {
    const char *found = "?";
    const LoopEntry *entry = find_loop(ufunc, in->type_num, nout, &found);
    if (entry == nullptr) {
        PyErr_Format(PyExc_TypeError, "numreduce: %R has no %s loop for dtype %R", ufunc, what,
                     (PyObject *)in);
    }
    if (name != nullptr) *name = found;
    return entry;
}
// The values of `in` per element of a method's stream (see method_loop).
inline npy_intp stream_width(const LoopEntry *entry) { return entry->nsrc > 1 ? entry->nsrc : 1; }
// An operand the loops can walk directly: C-contiguous, aligned, native
// byte order, `size` elements, and of `type_num` unless that is -1.
inline bool plain_array(PyArrayObject *a, npy_intp size, int type_num = -1) {
    return PyArray_IS_C_CONTIGUOUS(a) && PyArray_ISALIGNED(a) &&
           PyArray_ISNBO(PyArray_DESCR(a)->byteorder) && PyArray_SIZE(a) == size &&
           (type_num < 0 || PyArray_DESCR(a)->type_num == type_num);
}
// The engine's piece size for splitting one stream (whole-array reductions,
// grouped reductions): 2**21 elements, whatever the thread count, so that
// results do not depend on it (see engine.cpp).
constexpr npy_intp kChunk = npy_intp(1) << 21;

// task(lo, hi) for the ranges [lo, hi) that cover [0, ntasks) in batches
// of `batch` (the last one shorter), handed out in order to up to nthreads
// threads (the caller's included; fewer where the system refuses threads).
// The tasks must be independent; call with the GIL released.
template <class F>
void run_tasks(npy_intp ntasks, npy_intp nthreads, npy_intp batch, F &&task) {
    if (batch < 1) batch = 1;
    std::atomic<npy_intp> next(0);
    auto worker = [&]() {
        for (npy_intp t; (t = next.fetch_add(batch)) < ntasks;) {
            task(t, t + batch < ntasks ? t + batch : ntasks);
        }
    };
    std::vector<std::thread> pool;
    for (npy_intp t = 1; t < nthreads; t++) {
        try {
            pool.emplace_back(worker);
        } catch (const std::system_error &) {
            break;  // no more threads: the ones started (and this one) do the rest
        }
    }
    worker();
    for (std::thread &th : pool) th.join();
}
}
