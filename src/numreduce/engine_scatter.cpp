// numreduce.reduce_by_group and numreduce.at on the engine: one pass over
// the data into accumulator slots indexed by group id, through the scatter
// loop of loops.hpp (scatter_block), found in the loop table by the stream
// dtype.  numreduce/_groups.py validates the arguments, resolves the dtypes
// as reduce does, and hands over C-contiguous, aligned, native blocks
// (temporaries for the results of reduce_by_group; for at, the
// accumulators themselves or a copy written back).
#include "engine.hpp"
#include "ufuncs.hpp"

namespace nr {

// _scatter(ufunc, x, ids, mask, accs, seen, outer, n, inner, G) -> int
//   x: (outer, n, inner) C-contiguous aligned native array of the stream
//   dtype; ids: n intp; mask: None or (outer, n, inner) bool; accs: tuple
//   of nout (outer, G, inner) arrays of the loop's output dtype; seen: None
//   (accs hold states: step only) or (outer, G, inner) uint8 zeros (see
//   scatter_block).  Returns -1, or the index of the first id outside
//   [0, G).
PyObject *engine_scatter(PyObject *, PyObject *args) {
    PyObject *ufunc, *maskobj, *accs, *seenobj;
    PyArrayObject *x, *ids;
    Py_ssize_t outer, n, inner, G;
    if (!PyArg_ParseTuple(args, "OO!O!OO!Onnnn", &ufunc, &PyArray_Type, &x, &PyArray_Type, &ids,
                          &maskobj, &PyTuple_Type, &accs, &seenobj, &outer, &n, &inner, &G)) {
        return nullptr;
    }
    PyArray_Descr *in = PyArray_DESCR(x);
    int nout = 0;
    const LoopEntry *entry = method_loop(ufunc, in, "scatter", &nout);
    if (entry == nullptr) return nullptr;
    const auto plain = plain_array;
    const bool dims_ok = outer >= 0 && n >= 0 && inner >= 0 && G >= 0;
    const npy_intp xsize = dims_ok ? outer * n * inner : -1;
    const npy_intp ssize = dims_ok ? outer * G * inner : -1;
    if (!dims_ok || !plain(x, xsize, in->type_num) || !plain(ids, n, NPY_INTP) ||
        PyTuple_GET_SIZE(accs) != nout ||
        (maskobj != Py_None &&
         (!PyArray_Check(maskobj) || !plain((PyArrayObject *)maskobj, xsize, NPY_BOOL))) ||
        (seenobj != Py_None &&
         (!PyArray_Check(seenobj) || !plain((PyArrayObject *)seenobj, ssize, NPY_UINT8) ||
          !PyArray_ISWRITEABLE((PyArrayObject *)seenobj)))) {
        PyErr_SetString(PyExc_ValueError, "numreduce: internal argument mismatch (_scatter)");
        return nullptr;
    }
    char *aptr[NPY_MAXARGS];
    for (int i = 0; i < nout; i++) {
        PyObject *o = PyTuple_GET_ITEM(accs, i);
        if (!PyArray_Check(o) || !plain((PyArrayObject *)o, ssize, entry->out_type) ||
            !PyArray_ISWRITEABLE((PyArrayObject *)o)) {
            PyErr_SetString(PyExc_ValueError,
                            "numreduce: internal argument mismatch (_scatter accumulators)");
            return nullptr;
        }
        aptr[i] = PyArray_BYTES((PyArrayObject *)o);
    }
    const npy_bool *mask =
        maskobj == Py_None ? nullptr : (const npy_bool *)PyArray_BYTES((PyArrayObject *)maskobj);
    unsigned char *seen =
        seenobj == Py_None ? nullptr : (unsigned char *)PyArray_BYTES((PyArrayObject *)seenobj);
    npy_intp bad = -1;
    if (xsize > 0 || (seen != nullptr && ssize > 0)) {
        Py_BEGIN_ALLOW_THREADS;
        bad = entry->scatter(PyArray_BYTES(x), (const npy_intp *)PyArray_BYTES(ids), mask, outer,
                             n, inner, G, aptr, seen);
        Py_END_ALLOW_THREADS;
    }
    return PyLong_FromSsize_t(bad);
}

}  // namespace nr
