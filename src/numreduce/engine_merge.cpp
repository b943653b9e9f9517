// numreduce.merge on the engine: two sets of partial states (one array per
// ufunc output, as numreduce.reduce returns them) combined elementwise with
// the traits' combine() -- the merge loop of loops.hpp, found in the loop
// table like every other engine loop.  Argument checks (tuple lengths,
// dtypes, broadcastable shapes, out) happen in numreduce/_methods.py.
#include <cstring>

#include "engine.hpp"
#include "ufuncs.hpp"

namespace nr {

// _merge(ufunc, states_a, states_b, outs, stream_descr, acc_descr)
//   states_a, states_b: tuples of nout arrays (broadcastable);
//   outs: tuple of nout (ndarray or None), of the broadcast shape;
//   stream_descr: the input dtype whose loop's combine() runs;
//   acc_descr: that loop's accumulator (output) descriptor; every operand
//   is cast to it (buffered).
PyObject *engine_merge(PyObject *, PyObject *args) {
    PyObject *ufunc, *sa, *sb, *outs;
    PyArray_Descr *stream, *acc;
    if (!PyArg_ParseTuple(args, "OO!O!O!O!O!", &ufunc, &PyTuple_Type, &sa, &PyTuple_Type, &sb,
                          &PyTuple_Type, &outs, &PyArrayDescr_Type, &stream, &PyArrayDescr_Type,
                          &acc)) {
        return nullptr;
    }
    int nout = 0;
    const char *name = "?";
    const LoopEntry *entry = find_loop(ufunc, stream->type_num, &nout, &name);
    if (entry == nullptr || entry->out_type != acc->type_num) {
        PyErr_Format(PyExc_TypeError, "numreduce.merge: %R has no loop for states of dtype %R",
                     ufunc, (PyObject *)acc);
        return nullptr;
    }
    if (PyTuple_GET_SIZE(sa) != nout || PyTuple_GET_SIZE(sb) != nout ||
        PyTuple_GET_SIZE(outs) != nout || 3 * nout > NPY_MAXARGS) {
        PyErr_SetString(PyExc_ValueError, "numreduce: internal argument mismatch (_merge)");
        return nullptr;
    }
    PyArrayObject *op[NPY_MAXARGS] = {};
    PyArray_Descr *op_dtypes[NPY_MAXARGS] = {};
    npy_uint32 op_flags[NPY_MAXARGS];
    for (int k = 0; k < 3 * nout; k++) {
        PyObject *o = PyTuple_GET_ITEM(k < nout ? sa : k < 2 * nout ? sb : outs, k % nout);
        const bool is_out = k >= 2 * nout;
        if (!(PyArray_Check(o) || (is_out && o == Py_None))) {
            PyErr_SetString(PyExc_TypeError, "numreduce: _merge operands must be arrays");
            return nullptr;
        }
        op[k] = o == Py_None ? nullptr : (PyArrayObject *)o;
        op_dtypes[k] = acc;
        op_flags[k] = is_out ? NPY_ITER_WRITEONLY | NPY_ITER_ALLOCATE | NPY_ITER_ALIGNED |
                                   NPY_ITER_NO_SUBTYPE | NPY_ITER_NO_BROADCAST
                             : NPY_ITER_READONLY | NPY_ITER_ALIGNED;
    }
    const npy_uint32 it_flags = NPY_ITER_BUFFERED | NPY_ITER_EXTERNAL_LOOP | NPY_ITER_GROWINNER |
                                NPY_ITER_ZEROSIZE_OK | NPY_ITER_COPY_IF_OVERLAP;
    NpyIter *iter = NpyIter_MultiNew(3 * nout, op, it_flags, NPY_KEEPORDER, NPY_UNSAFE_CASTING,
                                     op_flags, op_dtypes);
    if (iter == nullptr) return nullptr;
    int r = 0;
    if (NpyIter_GetIterSize(iter) > 0) {
        NpyIter_IterNextFunc *iternext = NpyIter_GetIterNext(iter, nullptr);
        if (iternext == nullptr) {
            NpyIter_Deallocate(iter);
            return nullptr;
        }
        char **ptrs = NpyIter_GetDataPtrArray(iter);
        npy_intp *strides = NpyIter_GetInnerStrideArray(iter);
        npy_intp *countp = NpyIter_GetInnerLoopSizePtr(iter);
        PyArrayMethod_Context ctx;
        std::memset(&ctx, 0, sizeof(ctx));
        ctx.caller = ufunc;
        const bool needs_api = NpyIter_IterationNeedsAPI(iter);
        NPY_BEGIN_THREADS_DEF;
        if (!needs_api) NPY_BEGIN_THREADS;
        do {
            r = entry->merge(&ctx, ptrs, countp, strides, nullptr);
        } while (r == 0 && iternext(iter));
        NPY_END_THREADS;
        if (r == 0 && PyErr_Occurred()) r = -1;
    }
    PyArrayObject **iter_ops = NpyIter_GetOperandArray(iter);
    PyObject *ret = r == 0 ? PyTuple_New(nout) : nullptr;
    for (int i = 0; ret != nullptr && i < nout; i++) {
        // An operand may be a COPY_IF_OVERLAP temporary: return the given out.
        PyObject *res = op[2 * nout + i] != nullptr ? (PyObject *)op[2 * nout + i]
                                                    : (PyObject *)iter_ops[2 * nout + i];
        Py_INCREF(res);
        PyTuple_SET_ITEM(ret, i, res);
    }
    if (!NpyIter_Deallocate(iter)) {  // resolves write-back copies
        Py_XDECREF(ret);
        return nullptr;
    }
    return ret;
}

}  // namespace nr
