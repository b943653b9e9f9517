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
//   outer * n * inner; outs: tuple of nout such arrays of the loop's output
//   dtype, same size.  out[k][o, i, j] = reduce(x[o, :i+1, j]) for output k.
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
    const npy_intp size = PyArray_SIZE(x);
    auto plain = [&](PyArrayObject *a) { return plain_array(a, size); };
    if (outer < 0 || n < 0 || inner < 0 || (npy_intp)(outer * n * inner) != size || !plain(x) ||
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
        Py_BEGIN_ALLOW_THREADS;
        entry->scan(PyArray_BYTES(x), optr, outer, n, inner);
        Py_END_ALLOW_THREADS;
    }
    Py_RETURN_NONE;
}

}  // namespace nr
