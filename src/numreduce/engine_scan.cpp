// numreduce.accumulate on the engine: prefix reductions of every ufunc
// output in one pass, through the scan loop of loops.hpp (scan_block),
// found in the loop table by the stream dtype.  numreduce/_methods.py
// validates the arguments, resolves the dtypes as reduce does, and hands
// over C-contiguous, aligned, native blocks (copying the input or
// computing into temporaries where out overlaps it or has another layout).
#include "engine.hpp"
#include "ufuncs.hpp"

namespace nr {

// _accumulate(ufunc, x, outs, outer, n, inner) -> None
//   x: C-contiguous aligned native array of the stream dtype, size
//   outer * n * inner (times K for K sources: method_loop); outs: tuple of
//   nout arrays of the loop's output dtype, size outer * n * inner.  out[k][o, i, j] = reduce(x[o, :i+1, j]) for output k.
PyObject *engine_accumulate(PyObject *, PyObject *args) {
    PyObject *ufunc, *outs;
    PyArrayObject *x;
    Py_ssize_t outer, n, inner;
    if (!PyArg_ParseTuple(args, "OO!O!nnn", &ufunc, &PyArray_Type, &x, &PyTuple_Type, &outs,
                          &outer, &n, &inner)) {
        return nullptr;
    }
    PyArray_Descr *in = PyArray_DESCR(x);
    int nout = 0;
    const LoopEntry *entry = method_loop(ufunc, in, "accumulate", &nout);
    if (entry == nullptr) return nullptr;
    const npy_intp width = stream_width(entry);
    const npy_intp size = outer >= 0 && n >= 0 && inner >= 0 ? outer * n * inner : -1;
    auto plain = [&](PyArrayObject *a) { return plain_array(a, size); };
    if (size < 0 || !plain_array(x, size * width) ||
        PyTuple_GET_SIZE(outs) != nout) {
        PyErr_SetString(PyExc_ValueError, "numreduce: internal argument mismatch (_accumulate)");
        return nullptr;
    }
    char *optr[NPY_MAXARGS];
    for (int i = 0; i < nout; i++) {
        PyObject *o = PyTuple_GET_ITEM(outs, i);
        if (!PyArray_Check(o) || !plain((PyArrayObject *)o) ||
            PyArray_DESCR((PyArrayObject *)o)->type_num != entry->out_type ||
            !PyArray_ISWRITEABLE((PyArrayObject *)o)) {
            PyErr_SetString(PyExc_ValueError, "numreduce: internal argument mismatch (_accumulate out)");
            return nullptr;
        }
        optr[i] = PyArray_BYTES((PyArrayObject *)o);
    }
    if (size > 0) {
        // The outer blocks' scans are independent: up to set_num_threads
        // threads take whole blocks (bitwise the same for any thread count).
        const npy_intp nthreads = size >= 400000 && outer > 1
                                      ? (engine_num_threads() < outer ? engine_num_threads() : outer)
                                      : 1;
        const npy_intp isize = in->elsize * width, osize = PyArray_DESCR((PyArrayObject *)PyTuple_GET_ITEM(outs, 0))->elsize;
        const npy_intp block = n * inner;
        Py_BEGIN_ALLOW_THREADS;
        if (nthreads <= 1) {
            entry->scan(PyArray_BYTES(x), optr, outer, n, inner);
        } else {
            const npy_intp batch = outer / (nthreads * 8) > 0 ? outer / (nthreads * 8) : 1;
            run_tasks(outer, nthreads, batch, [&](npy_intp o0, npy_intp o1) {
                char *op[NPY_MAXARGS];
                for (int i = 0; i < nout; i++) op[i] = optr[i] + o0 * block * osize;
                entry->scan(PyArray_BYTES(x) + o0 * block * isize, op, o1 - o0, n, inner);
            });
        }
        Py_END_ALLOW_THREADS;
    }
    Py_RETURN_NONE;
}

}  // namespace nr
