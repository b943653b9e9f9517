// The engine: ufunc.reduce for numreduce's multi-output ufuncs on every
// NumPy >= 2.0, built on the public NpyIter API and calling the very
// reduction-loop functions the native path registers (loops.hpp).  It follows
// NumPy's own reduction wrapper step by step, so both paths mean the same.
//
// Argument normalisation (axis, out, where, dtype resolution through the
// ufunc's own promoters) happens in numreduce/_engine.py; this file gets
// validated arrays and descriptors.
#include "engine.hpp"

#include <array>
#include <atomic>
#include <cstring>
#include <memory>
#include <thread>
#include <vector>

#include "simd.hpp"  // rows_total_bytes (the axis-0 row layout hint)
#include "ufuncs.hpp"

#if defined(_WIN32)
#define NR_EXPORT __declspec(dllexport)
#else
#define NR_EXPORT __attribute__((visibility("default")))
#endif

// NumPy's flag for an op_axes entry that is a reduction axis (NumPy's
// private common.h; the encoding is part of NpyIter_AdvancedNew's op_axes
// contract since NumPy 1.21, and NumPy's own reduce passes it this way).
#ifndef NPY_ITER_REDUCTION_AXIS
#define NPY_ITER_REDUCTION_AXIS(axis) ((axis) + (1 << (NPY_BITSOF_INT - 2)))
#endif

namespace nr {

// Whole-array reductions of more than kChunk elements are split into
// chunks of kChunk elements (the last one shorter), whatever the thread
// count; the chunks' partial results merge pairwise in index order.  The
// pieces and the merge tree depend on the array's size alone, so a result
// is bitwise the same for any numreduce.set_num_threads: threads only
// decide who computes which chunk (at most engine_num_threads() of them).
//
// The setting: a count (the usable cores by default, numreduce/_config.py
// sets it at import) and whether the user chose it (set_num_threads or
// NUMREDUCE_NUM_THREADS).  A thread running a Dask task of numreduce's Dask
// backend marks itself (t_task, _task_mode): there the calls take one thread
// unless the count was chosen, since Dask runs one task per thread already.
// Atomics: threadpoolctl reads and sets the count through ctypes, without
// the GIL.
static std::atomic<int> g_num_threads{1};
static std::atomic<bool> g_explicit{false};
static thread_local bool t_task = false;

static npy_intp chunks_for(npy_intp n) { return n > kChunk ? (n + kChunk - 1) / kChunk : 1; }

// n as a thread count 1..1024, or -1 with the exception set.
static long thread_count_arg(PyObject *arg) {
    // An exact integer (operator.index semantics), never a bool; numreduce's
    // set_num_threads checks the same in Python with a friendlier message.
    if (PyBool_Check(arg) || !PyIndex_Check(arg)) {
        PyErr_Format(PyExc_TypeError, "set_num_threads: n must be an integer, not %.100s",
                     Py_TYPE(arg)->tp_name);
        return -1;
    }
    int overflow = 0;
    PyObject *index = PyNumber_Index(arg);
    if (index == nullptr) return -1;
    long n = PyLong_AsLongAndOverflow(index, &overflow);
    Py_DECREF(index);
    if (n == -1 && PyErr_Occurred()) return -1;
    if (overflow != 0 || n < 1 || n > 1024) {
        PyErr_SetString(PyExc_ValueError, "set_num_threads: n must be between 1 and 1024");
        return -1;
    }
    return n;
}

// _set_num_threads(n): the user's count (explicit); returns the previous count.
PyObject *engine_set_num_threads(PyObject *, PyObject *arg) {
    const long n = thread_count_arg(arg);
    if (n < 0) return nullptr;
    const long old = g_num_threads.exchange((int)n);
    g_explicit.store(true);
    return PyLong_FromLong(old);
}

// _set_default_threads(n): the default count (not explicit); returns the previous count.
PyObject *engine_set_default_threads(PyObject *, PyObject *arg) {
    const long n = thread_count_arg(arg);
    if (n < 0) return nullptr;
    const long old = g_num_threads.exchange((int)n);
    g_explicit.store(false);
    return PyLong_FromLong(old);
}

// _get_num_threads() -> (count, explicit, this thread's count for a call now)
PyObject *engine_get_num_threads(PyObject *, PyObject *) {
    return Py_BuildValue("(iOi)", g_num_threads.load(), g_explicit.load() ? Py_True : Py_False,
                         engine_num_threads());
}

// _task_mode(flag) -> previous flag, for the calling thread only.
PyObject *engine_task_mode(PyObject *, PyObject *arg) {
    const int flag = PyObject_IsTrue(arg);
    if (flag < 0) return nullptr;
    const bool old = t_task;
    t_task = flag != 0;
    return PyBool_FromLong(old);
}

int engine_num_threads() {
    if (t_task && !g_explicit.load(std::memory_order_relaxed)) return 1;
    return g_num_threads.load(std::memory_order_relaxed);
}

}  // namespace nr

// The symbols threadpoolctl's controller for numreduce (numreduce/_threadpool.py)
// finds in this shared library and calls through ctypes: the count alone
// (whether the user chose it is left as it is, so that threadpool_limits
// restores the state it found).
extern "C" {
NR_EXPORT int numreduce_get_num_threads(void) { return nr::g_num_threads.load(); }
NR_EXPORT int numreduce_set_num_threads(int n) {
    if (n < 1) n = 1;
    if (n > 1024) n = 1024;
    return nr::g_num_threads.exchange(n);
}
}

namespace nr {

namespace {

struct Buffers {
    char *p[NPY_MAXARGS] = {};
    int n = 0;
    ~Buffers() {
        for (int i = 0; i < n; i++) PyMem_Free(p[i]);
    }
};

struct IterGuard {
    NpyIter *it = nullptr;
    ~IterGuard() {
        if (it != nullptr) NpyIter_Deallocate(it);
    }
};

// One call of the strided reduction loop, expanding the iterator's
// [acc..., stream] operands into NumPy's [acc..., stream, out...] layout.
// (K streams: [acc..., stream_0 .. stream_{K-1}, out...].)
inline int call_loop(PyArrayMethod_StridedLoop *loop, PyArrayMethod_Context *ctx, int nout,
                     char *const *ptrs, const npy_intp *strides, npy_intp offset, npy_intp count,
                     int nsrc = 1) {
    char *d[2 * NPY_MAXARGS + 4];
    npy_intp s[2 * NPY_MAXARGS + 4];
    for (int i = 0; i < nout; i++) {
        d[i] = d[nout + nsrc + i] = ptrs[i] + offset * strides[i];
        s[i] = s[nout + nsrc + i] = strides[i];
    }
    for (int j = nout; j < nout + nsrc; j++) {
        d[j] = ptrs[j] + offset * strides[j];
        s[j] = strides[j];
    }
    return loop(ctx, d, &count, s, nullptr);
}

// Runs the reduction.  `skip_first` elements (already copied into the
// outputs as the start values) are skipped on their first visit, as NumPy's
// reduce_loop does.  A where= mask splits each inner loop into runs.
int run(NpyIter *iter, PyArrayMethod_StridedLoop *loop, PyArrayMethod_Context *ctx, int nout,
        bool masked, npy_intp skip_first, int nsrc = 1) {
    NpyIter_IterNextFunc *iternext = NpyIter_GetIterNext(iter, nullptr);
    if (iternext == nullptr) return -1;
    char **ptrs = NpyIter_GetDataPtrArray(iter);
    npy_intp *strides = NpyIter_GetInnerStrideArray(iter);
    npy_intp *countp = NpyIter_GetInnerLoopSizePtr(iter);
    int res = 0;
    do {
        npy_intp count = *countp;
        npy_intp start = 0;
        if (skip_first > 0 && NpyIter_IsFirstVisit(iter, 0)) {
            if (strides[0] == 0) {
                start = 1;
                --skip_first;
            } else {
                skip_first -= count;
                start = count;
            }
        }
        if (!masked) {
            if (count > start) {
                res = call_loop(loop, ctx, nout, ptrs, strides, start, count - start, nsrc);
            }
        } else {
            const char *m = ptrs[nout + nsrc];
            const npy_intp ms = strides[nout + nsrc];
            npy_intp k = start;
            while (k < count && res == 0) {
                while (k < count && !*(const npy_bool *)(m + k * ms)) k++;
                npy_intp run_start = k;
                while (k < count && *(const npy_bool *)(m + k * ms)) k++;
                if (k > run_start) {
                    res = call_loop(loop, ctx, nout, ptrs, strides, run_start, k - run_start, nsrc);
                }
            }
        }
        if (res < 0) return res;
    } while (iternext(iter));
    return res;
}

// View of the first element along every reduced axis (NumPy's
// CopyInitialReduceValues), broadcast-compatible with the result.
PyObject *first_values_view(PyArrayObject *operand, const bool *axis_flags, const char *name) {
    int ndim = PyArray_NDIM(operand);
    npy_intp shape[NPY_MAXDIMS], strides[NPY_MAXDIMS];
    int j = 0;
    for (int i = 0; i < ndim; i++) {
        if (axis_flags[i]) {
            if (PyArray_DIM(operand, i) == 0) {
                PyErr_Format(PyExc_ValueError,
                             "zero-size array to reduction operation %s which has no identity",
                             name);
                return nullptr;
            }
        } else {
            shape[j] = PyArray_DIM(operand, i);
            strides[j++] = PyArray_STRIDE(operand, i);
        }
    }
    PyArray_Descr *descr = PyArray_DESCR(operand);
    Py_INCREF(descr);
    PyObject *view = PyArray_NewFromDescr(&PyArray_Type, descr, j, shape, strides,
                                          PyArray_DATA(operand), 0, nullptr);
    if (view == nullptr) return nullptr;
    Py_INCREF(operand);
    if (PyArray_SetBaseObject((PyArrayObject *)view, (PyObject *)operand) < 0) {
        Py_DECREF(view);
        return nullptr;
    }
    return view;
}

// The state of each element of `first` (the first element of every
// reduced run), lift(x) through the entry's scan loop over runs of one
// element, copied into the outputs `dst` (of descrs `descrs`).  0, or -1
// with an exception.
int lift_into(const LoopEntry *entry, PyArray_Descr *stream, PyArrayObject *first,
              PyArray_Descr **descrs, PyArrayObject **dst, int nout) {
    Py_INCREF(stream);
    PyArrayObject *x = (PyArrayObject *)PyArray_FromArray(
        first, stream, NPY_ARRAY_C_CONTIGUOUS | NPY_ARRAY_ALIGNED | NPY_ARRAY_FORCECAST);
    if (x == nullptr) return -1;
    PyObject *lifted[NPY_MAXARGS] = {};
    char *optr[NPY_MAXARGS];
    int r = 0;
    for (int i = 0; i < nout && r == 0; i++) {
        Py_INCREF(descrs[i]);
        lifted[i] = PyArray_NewFromDescr(&PyArray_Type, descrs[i], PyArray_NDIM(x),
                                         PyArray_DIMS(x), nullptr, nullptr, 0, nullptr);
        if (lifted[i] == nullptr) r = -1;
        else optr[i] = PyArray_BYTES((PyArrayObject *)lifted[i]);
    }
    const npy_intp count = PyArray_SIZE(x);
    if (r == 0 && count > 0) entry->scan(PyArray_BYTES(x), optr, count, 1, 1);
    for (int i = 0; i < nout && r == 0; i++) {
        r = PyArray_CopyInto(dst[i], (PyArrayObject *)lifted[i]);
    }
    for (int i = 0; i < nout; i++) Py_XDECREF(lifted[i]);
    Py_DECREF(x);
    return r < 0 ? -1 : 0;
}

}  // namespace

// _reduce(ufunc, operand, outs, where, axes, initial_mode, initials, descrs)
//   outs: tuple of nout (ndarray or None), shaped as the result without the
//   reduced axes (keepdims is handled by the Python half with views);
//   where: bool ndarray or None
//   axes: tuple of distinct normalised ints; initial_mode: 0 = the loop's own
//   initials (if any), 1 = none (initial=None), 2 = `initials` (one per output)
//   descrs: (stream descr, out descr 0, ..., out descr nout-1)
PyObject *engine_reduce(PyObject *, PyObject *args) {
    PyObject *ufunc, *outs, *where, *axes, *initials, *descrs, *operands;
    int mode;
    if (!PyArg_ParseTuple(args, "OOO!OO!iOO!", &ufunc, &operands, &PyTuple_Type, &outs, &where,
                          &PyTuple_Type, &axes, &mode, &initials, &PyTuple_Type, &descrs)) {
        return nullptr;
    }
    PyArray_Descr *stream = (PyArray_Descr *)PyTuple_GET_ITEM(descrs, 0);
    int nout = 0;
    const char *name = "?";
    const LoopEntry *entry = find_loop(ufunc, stream->type_num, &nout, &name);
    if (entry == nullptr) {
        PyErr_Format(PyExc_TypeError, "numreduce: %R has no reduction loop for dtype %R", ufunc,
                     (PyObject *)stream);
        return nullptr;
    }
    // The streams: the array, or the K source arrays of a K-source ufunc (a
    // tuple of arrays of one shape: the caller broadcast them).
    const int nsrc = entry->nsrc;
    PyArrayObject *src[4] = {};
    if (nsrc == 1 && PyArray_Check(operands)) {
        src[0] = (PyArrayObject *)operands;
    } else if (nsrc > 1 && PyTuple_Check(operands) && PyTuple_GET_SIZE(operands) == nsrc) {
        for (int j = 0; j < nsrc; j++) {
            PyObject *o = PyTuple_GET_ITEM(operands, j);
            if (!PyArray_Check(o) ||
                !PyArray_SAMESHAPE((PyArrayObject *)o, (PyArrayObject *)PyTuple_GET_ITEM(operands, 0))) {
                PyErr_SetString(PyExc_ValueError, "numreduce: the sources must be arrays of one shape");
                return nullptr;
            }
            src[j] = (PyArrayObject *)o;
        }
        if (mode == 1) {
            PyErr_Format(PyExc_ValueError,
                         "%s: a reduction of %d sources starts from its initials; "
                         "initial=None is not supported",
                         name, nsrc);
            return nullptr;
        }
    } else {
        PyErr_Format(PyExc_TypeError, "numreduce: %s reduces %d source array%s", name, nsrc,
                     nsrc == 1 ? "" : "s (a tuple)");
        return nullptr;
    }
    PyArrayObject *operand = src[0];
    if (PyTuple_GET_SIZE(outs) != nout || PyTuple_GET_SIZE(descrs) != nout + 1) {
        PyErr_SetString(PyExc_ValueError, "numreduce: internal argument mismatch");
        return nullptr;
    }
    for (int i = 0; i < nout; i++) {
        if (((PyArray_Descr *)PyTuple_GET_ITEM(descrs, 1 + i))->type_num != entry->out_type) {
            PyErr_Format(PyExc_TypeError, "numreduce: %s has no reduction loop %R -> %R", name,
                         (PyObject *)stream, PyTuple_GET_ITEM(descrs, 1 + i));
            return nullptr;
        }
    }

    const int ndim = PyArray_NDIM(operand);
    bool axis_flags[NPY_MAXDIMS] = {};
    for (Py_ssize_t i = 0; i < PyTuple_GET_SIZE(axes); i++) {
        long ax = PyLong_AsLong(PyTuple_GET_ITEM(axes, i));
        if (ax == -1 && PyErr_Occurred()) return nullptr;
        if (ax < 0 || ax >= ndim || axis_flags[ax]) {
            PyErr_SetString(PyExc_ValueError, "numreduce: axes must be normalised and distinct");
            return nullptr;
        }
        axis_flags[ax] = true;
    }
    const bool masked = where != Py_None;
    if (masked && !PyArray_Check(where)) {
        PyErr_SetString(PyExc_TypeError, "numreduce: where must be an array or None");
        return nullptr;
    }

    // Iterator: [out_0 .. out_{n-1}, operand, (where)], as NumPy's wrapper;
    // reduced axes are op_axes -1 of the writeable outputs (NPY_ITER_REDUCE_OK).
    PyArrayObject *op[NPY_MAXARGS] = {};
    PyArray_Descr *op_dtypes[NPY_MAXARGS] = {};
    npy_uint32 op_flags[NPY_MAXARGS];
    for (int i = 0; i < nout; i++) {
        PyObject *o = PyTuple_GET_ITEM(outs, i);
        if (o != Py_None && !PyArray_Check(o)) {
            PyErr_SetString(PyExc_TypeError, "numreduce: out entries must be arrays or None");
            return nullptr;
        }
        op[i] = o == Py_None ? nullptr : (PyArrayObject *)o;
        op_dtypes[i] = (PyArray_Descr *)PyTuple_GET_ITEM(descrs, 1 + i);
        op_flags[i] = NPY_ITER_READWRITE | NPY_ITER_ALIGNED | NPY_ITER_ALLOCATE | NPY_ITER_NO_SUBTYPE;
    }
    for (int j = 0; j < nsrc; j++) {
        op[nout + j] = src[j];
        op_dtypes[nout + j] = stream;
        op_flags[nout + j] = NPY_ITER_READONLY | NPY_ITER_ALIGNED | NPY_ITER_NO_BROADCAST;
    }
    if (masked) {
        op[nout + nsrc] = (PyArrayObject *)where;
        op_dtypes[nout + nsrc] = PyArray_DESCR((PyArrayObject *)where);
        op_flags[nout + nsrc] = NPY_ITER_READONLY;
    }
    // Reduced axes are NPY_ITER_REDUCTION_AXIS(-1), as in NumPy's wrapper:
    // the iterator then reduces over those axes only, and an output axis of
    // length 1 where the result axis is longer is an error, not a second
    // reduction (the explicit check below names `out` and both shapes).
    int result_axes[NPY_MAXDIMS];
    int *op_axes[NPY_MAXARGS] = {};
    for (int i = 0; i < nout; i++) op_axes[i] = result_axes;
    npy_intp result_shape[NPY_MAXDIMS];
    int cur = 0;
    for (int i = 0; i < ndim; i++) {
        if (axis_flags[i]) {
            result_axes[i] = NPY_ITER_REDUCTION_AXIS(-1);
        } else {
            result_shape[cur] = PyArray_DIM(operand, i);
            result_axes[i] = cur++;
        }
    }
    for (int i = 0; i < nout; i++) {
        if (op[i] == nullptr) continue;
        bool same = PyArray_NDIM(op[i]) == cur;
        for (int d = 0; same && d < cur; d++) same = PyArray_DIM(op[i], d) == result_shape[d];
        if (!same) {
            PyObject *got = PyArray_IntTupleFromIntp(PyArray_NDIM(op[i]), PyArray_DIMS(op[i]));
            PyObject *want = PyArray_IntTupleFromIntp(cur, result_shape);
            if (got != nullptr && want != nullptr) {
                PyErr_Format(PyExc_ValueError,
                             "%s: out[%d] has shape %S, but the result has shape %S", name, i,
                             got, want);
            }
            Py_XDECREF(got);
            Py_XDECREF(want);
            return nullptr;
        }
    }
    const npy_uint32 it_flags = NPY_ITER_REDUCE_OK | NPY_ITER_BUFFERED | NPY_ITER_EXTERNAL_LOOP | NPY_ITER_GROWINNER |
                                NPY_ITER_ZEROSIZE_OK | NPY_ITER_REFS_OK | NPY_ITER_DELAY_BUFALLOC |
                                NPY_ITER_DONT_NEGATE_STRIDES | NPY_ITER_COPY_IF_OVERLAP;
    IterGuard guard;
    guard.it = NpyIter_AdvancedNew(nout + nsrc + (masked ? 1 : 0), op, it_flags, NPY_KEEPORDER,
                                   NPY_UNSAFE_CASTING, op_flags, op_dtypes, ndim, op_axes,
                                   nullptr, 0);
    NpyIter *iter = guard.it;
    if (iter == nullptr) return nullptr;
    PyArrayObject **iter_ops = NpyIter_GetOperandArray(iter);
    PyArray_Descr **iter_descrs = NpyIter_GetDescrArray(iter);

    // The loop context sees NumPy's (nout + 1) -> nout descriptor layout
    // (nout + K -> nout for K sources).
    PyArray_Descr *ctx_descrs[2 * NPY_MAXARGS + 4];
    for (int i = 0; i < nout; i++) ctx_descrs[i] = ctx_descrs[nout + nsrc + i] = iter_descrs[i];
    for (int j = 0; j < nsrc; j++) ctx_descrs[nout + j] = iter_descrs[nout + j];
    PyArrayMethod_Context ctx;
    std::memset(&ctx, 0, sizeof(ctx));
    ctx.caller = ufunc;
    ctx.descriptors = ctx_descrs;

    const bool empty_iteration = NpyIter_GetIterSize(iter) == 0;
    Buffers init;
    bool have_initial = false;
    if (mode == 2 || (mode == 0 && entry->initials != nullptr)) {
        for (int i = 0; i < nout; i++) {
            init.p[i] = (char *)PyMem_Calloc(1, iter_descrs[i]->elsize);
            init.n = i + 1;
            if (init.p[i] == nullptr) return PyErr_NoMemory();
        }
        if (mode == 2) {
            if (!PyTuple_Check(initials) || PyTuple_GET_SIZE(initials) != nout) {
                PyErr_SetString(PyExc_ValueError, "numreduce: initials must be a tuple per output");
                return nullptr;
            }
            for (int i = 0; i < nout; i++) {
                if (PyArray_Pack(iter_descrs[i], init.p[i], PyTuple_GET_ITEM(initials, i)) < 0) {
                    return nullptr;
                }
            }
            have_initial = true;
        } else {
            int r = entry->initials(&ctx, empty_iteration, (void **)init.p);
            if (r < 0) return nullptr;
            have_initial = r == 1;
        }
    }

    npy_intp skip_first = 0;
    if (have_initial) {
        for (int i = 0; i < nout; i++) {
            Py_INCREF(iter_descrs[i]);
            PyObject *scalar = PyArray_NewFromDescr(&PyArray_Type, iter_descrs[i], 0, nullptr,
                                                    nullptr, init.p[i], 0, nullptr);
            if (scalar == nullptr) return nullptr;
            int r = PyArray_CopyInto(iter_ops[i], (PyArrayObject *)scalar);
            Py_DECREF(scalar);
            if (r < 0) return nullptr;
        }
    } else {
        if (masked) {
            PyErr_Format(PyExc_ValueError,
                         "reduction operation '%s' does not have an identity, so to use a "
                         "where mask one has to specify 'initial'",
                         name);
            return nullptr;
        }
        PyObject *first = first_values_view(operand, axis_flags, name);
        if (first == nullptr) return nullptr;
        skip_first = PyArray_SIZE((PyArrayObject *)first);
        // Every output starts from the first element's state, lift(x) --
        // what "no initial" means for a reduction whose lift is not x in
        // every output (moments: (1, x, 0), not (x, x, x)); for min/max it
        // is NumPy's copy of the first element.  The scan loop over runs of
        // one element computes it (the traits' initials stepped with x where
        // they have them, as the segment and group loops start).
        int r = nsrc == 1 ? lift_into(entry, stream, (PyArrayObject *)first, iter_descrs,
                                      iter_ops, nout)
                          : -2;
        if (r == -2) {  // K sources without initials: no state to start from
            PyErr_Format(PyExc_ValueError,
                         "reduction operation '%s' of several sources has no initial values: "
                         "give 'initial' (its first element's state is not a copy of the first "
                         "source's value)",
                         name);
            r = -1;
        }
        Py_DECREF(first);
        if (r < 0) return nullptr;
    }

    if (!NpyIter_Reset(iter, nullptr)) return nullptr;
    if (!empty_iteration) {
        const bool needs_api = NpyIter_IterationNeedsAPI(iter);
        int r;
        if (needs_api) {
            r = run(iter, entry->reduce, &ctx, nout, masked, skip_first, nsrc);
        } else {
            Py_BEGIN_ALLOW_THREADS;
            r = run(iter, entry->reduce, &ctx, nout, masked, skip_first, nsrc);
            Py_END_ALLOW_THREADS;
        }
        if (r < 0 || PyErr_Occurred()) return nullptr;
    }

    PyObject *ret = PyTuple_New(nout);
    if (ret == nullptr) return nullptr;
    for (int i = 0; i < nout; i++) {
        // An iterator operand may be a COPY_IF_OVERLAP temporary: return out.
        PyObject *res = op[i] != nullptr ? (PyObject *)op[i] : (PyObject *)iter_ops[i];
        Py_INCREF(res);
        PyTuple_SET_ITEM(ret, i, res);
    }
    guard.it = nullptr;
    if (!NpyIter_Deallocate(iter)) {  // resolves write-back copies
        Py_DECREF(ret);
        return nullptr;
    }
    return ret;
}

// A reduction-loop call without NpyIter, for plain arrays: the loop entry,
// the output descriptor (the input's own when the types agree, keeping a
// datetime unit) and the context in NumPy's [acc..., stream, out...] layout.
struct DirectCall {
    const LoopEntry *entry = nullptr;
    int nout = 0;
    PyArray_Descr *out = nullptr;  // owned
    PyArray_Descr *descrs[2 * NPY_MAXARGS + 1];
    PyArrayMethod_Context ctx;
    DirectCall() { std::memset(&ctx, 0, sizeof(ctx)); }
    ~DirectCall() { Py_XDECREF(out); }

    // 1: ready; 0: not for this path (native, aligned data of a dtype with a
    // loop that can start from its first element or has initials); -1: error.
    int init(PyObject *ufunc, PyArrayObject *a) {
        PyArray_Descr *in = PyArray_DESCR(a);
        const char *name = nullptr;
        entry = find_loop(ufunc, in->type_num, &nout, &name);
        // A loop without initials starts these paths from a copy of its
        // first element: only for numreduce's own (min/max: lift(x) is x
        // in every output); another extension's traits may lift otherwise
        // (max |x|), and the general path starts from the lifted state.
        if (entry == nullptr || entry->nsrc != 1 || !PyArray_ISNBO(in->byteorder) || !PyArray_ISALIGNED(a) ||
            (entry->initials == nullptr && (entry->out_type != in->type_num || !first_is_state(ufunc)))) {
            return 0;
        }
        if (entry->out_type == in->type_num) {
            Py_INCREF(in);
            out = in;
        } else {
            out = PyArray_DescrFromType(entry->out_type);
            if (out == nullptr) return -1;
        }
        for (int i = 0; i < nout; i++) descrs[i] = descrs[nout + 1 + i] = out;
        descrs[nout] = in;
        ctx.caller = ufunc;
        ctx.descriptors = descrs;
        return 1;
    }
    // The 2-D paths' start: (ufunc, a) parsed, and nout new 1-D outputs
    // with one entry per element of the kept axis (the tuple in *ret, their
    // data pointers in outs[]).  1 = ready, 0 = not for this path (the
    // caller returns None), -1 = error.  The reduced `axis` must not be empty.
    // (axis 0 of a 3-D (outer, n, inner) array: its middle axis, the
    // outputs outer * inner long)
    int start_2d(PyObject *ufunc, PyArrayObject *a, int axis, char **outs, PyObject **ret) {
        const int nd = PyArray_NDIM(a);
        if (!(nd == 2 || (nd == 3 && axis == 0)) || PyArray_DIM(a, nd - 2 + axis) == 0 ||
            !PyArray_IS_C_CONTIGUOUS(a)) {
            return 0;
        }
        const int ok = init(ufunc, a);
        if (ok <= 0) return ok;
        npy_intp length = nd == 3 ? PyArray_DIM(a, 0) * PyArray_DIM(a, 2) : PyArray_DIM(a, 1 - axis);
        *ret = PyTuple_New(nout);
        for (int i = 0; *ret != nullptr && i < nout; i++) {
            Py_INCREF(out);
            PyObject *o = PyArray_NewFromDescr(&PyArray_Type, out, 1, &length, nullptr, nullptr, 0,
                                               nullptr);
            if (o == nullptr) {
                Py_CLEAR(*ret);
                break;
            }
            PyTuple_SET_ITEM(*ret, i, o);
            outs[i] = PyArray_BYTES((PyArrayObject *)o);
        }
        return *ret == nullptr ? -1 : 1;
    }
    // Start values into one accumulator set: 1 = the loop's initials, 0 =
    // none (the caller copies a first element, of the same type), -1 = error.
    int initials(char *const *acc) {
        return entry->initials != nullptr ? entry->initials(&ctx, NPY_FALSE, (void **)acc) : 0;
    }
    // acc = reduce(acc, x[0..count)) with stride-0 accumulators (or rows of
    // accumulators with acc_stride = out->elsize), one loop call.
    int run(char *const *acc, npy_intp acc_stride, const char *x, npy_intp count,
            npy_intp x_stride = 0) {
        char *ptrs[NPY_MAXARGS + 1];
        npy_intp strides[NPY_MAXARGS + 1];
        for (int i = 0; i < nout; i++) {
            ptrs[i] = acc[i];
            strides[i] = acc_stride;
        }
        ptrs[nout] = const_cast<char *>(x);
        strides[nout] = x_stride != 0 ? x_stride : descrs[nout]->elsize;
        return count > 0 ? call_loop(entry->reduce, &ctx, nout, ptrs, strides, 0, count) : 0;
    }
};

// _reduce_all(ufunc, a): the whole-array reduction without options, on the
// shortest path -- no iterator, the reduction loop called once over the
// contiguous data.  Returns None (the caller then takes the general path)
// for anything unusual: non-contiguous, unaligned or byte-swapped data, no
// loop for the dtype, an empty array, a cast of the first element.
PyObject *engine_reduce_all(PyObject *, PyObject *args) {
    PyObject *ufunc;
    PyArrayObject *a;
    if (!PyArg_ParseTuple(args, "OO!", &ufunc, &PyArray_Type, &a)) return nullptr;
    return reduce_all_array(ufunc, a);
}

int reduce_all_raw(PyObject *ufunc, PyArrayObject *a, char (*values)[32], int *out_type) {
    const npy_intp n = PyArray_SIZE(a);
    // Contiguous data, or one strided axis (a[::k], a[::-1]): one stream
    // either way, so the same chunks, block trees and merges as contiguous
    // data (through NpyIter, a strided stream would arrive in iterator-buffer
    // pieces merged one after another on NumPy < 2.3).
    const bool contiguous = PyArray_IS_C_CONTIGUOUS(a) || PyArray_IS_F_CONTIGUOUS(a);
    if (n == 0 || !(contiguous || PyArray_NDIM(a) == 1)) return 0;
    DirectCall call;
    const int ok = call.init(ufunc, a);
    if (ok <= 0) return ok;
    // The moments' frame hooks read contiguous data only.
    if (!contiguous && call.entry->frame != nullptr) return 0;
    const int nout = call.nout;
    const npy_intp isize = PyArray_DESCR(a)->elsize, osize = call.out->elsize;
    const npy_intp xstride = contiguous ? isize : PyArray_STRIDE(a, 0);

    // Large reductions: chunks of kChunk elements (chunks_for); each chunk
    // starts like the whole reduction (initials, or its own first element)
    // and the partial results merge pairwise in index order with the
    // traits' combine().  Traits with a working frame (the moments' shift)
    // reduce every chunk in the one frame chosen from the data for the
    // whole stream and merge inside it, in index order with the compensated
    // merge; where the merged result asks for a new frame (rescale: the
    // moments' overflow), all chunks are redone in it.
    const FrameHooks *frame = call.entry->frame;
    const npy_intp nchunks = frame == nullptr || call.entry->initials != nullptr ? chunks_for(n) : 1;
    if (nchunks == 1) frame = nullptr;
    // Threads only where a second thread gets real work: beyond the first
    // chunk at least a quarter chunk (2**19 elements, hundreds of
    // microseconds against tens for starting a thread); the chunks are
    // the same either way.
    const int nthreads_set = n - kChunk >= kChunk / 4 ? engine_num_threads() : 1;
    const int nthreads = nchunks < nthreads_set ? (int)nchunks : nthreads_set;
    if (nchunks == 1 && n <= 50000) {
        // The small arrays' case (one chunk, no frame, no threads): what
        // run_chunk(0) below does for it, without the chunk bookkeeping --
        // the fixed cost of a call on a few hundred elements.
        // (the state in the caller's values: no copy to reload through a
        // store-forwarding stall)
        char *acc[NPY_MAXARGS];
        for (int i = 0; i < nout; i++) acc[i] = values[i];
        const int have = call.initials(acc);
        if (have < 0) return -1;
        const char *x = PyArray_BYTES(a);
        npy_intp count = n;
        if (have == 0) {  // start from the first element
            for (int i = 0; i < nout; i++) std::memcpy(acc[i], x, isize);
            x += xstride;
            count -= 1;
        }
        if (call.run(acc, 0, x, count, xstride) < 0) {
            if (!PyErr_Occurred()) PyErr_SetString(PyExc_RuntimeError, "numreduce: reduction loop failed");
            return -1;
        }
        *out_type = call.out->type_num;
        return 1;
    }
    // (a single chunk keeps its state on the stack)
    alignas(16) std::array<char, 32> part1[NPY_MAXARGS];
    int status1 = 0;
    std::vector<std::array<char, 32>> part_v(nchunks > 1 ? (size_t)nchunks * nout : 0);  // clongdouble fits
    std::vector<int> status_v(nchunks > 1 ? (size_t)nchunks : 0, 0);
    std::array<char, 32> *part = nchunks > 1 ? part_v.data() : part1;
    int *status = nchunks > 1 ? status_v.data() : &status1;
    alignas(16) char frame_buf[kFrameBytes];
    bool redo = false;
    auto accs = [&](npy_intp c, char **acc) {
        for (int i = 0; i < nout; i++) acc[i] = part[(size_t)c * nout + i].data();
    };
    auto run_chunk = [&](npy_intp c) {
        const npy_intp lo = c * kChunk, hi = lo + kChunk < n ? lo + kChunk : n;
        char *acc[NPY_MAXARGS];
        accs(c, acc);
        const char *x = PyArray_BYTES(a) + lo * xstride;
        npy_intp count = nchunks == 1 ? n : hi - lo;
        if (frame != nullptr) {  // the first try's chunk 0 is in the frame already
            if ((c > 0 || redo) && (status[c] = call.initials(acc)) >= 0) frame->enter(acc, frame_buf);
            if (status[c] >= 0) frame->reduce(acc, x, count, frame_buf);
            return;
        }
        const int have = call.initials(acc);
        if (have < 0) {
            status[c] = -1;
            return;
        }
        if (have == 0) {  // start from the chunk's first element
            for (int i = 0; i < nout; i++) std::memcpy(acc[i], x, isize);
            x += xstride;
            count -= 1;
        }
        status[c] = call.run(acc, 0, x, count, xstride);
    };
    char *acc[NPY_MAXARGS], *b[NPY_MAXARGS];
    accs(0, acc);
    if (frame != nullptr) {
        if (call.initials(acc) < 0) return -1;
        frame->choose(acc, PyArray_BYTES(a), n, frame_buf);
    }
    for (int attempt = 0; attempt < 2; attempt++) {
        if (nthreads > 1) {
            Py_BEGIN_ALLOW_THREADS;
            run_tasks(nchunks, nthreads, 1, [&](npy_intp c, npy_intp) { run_chunk(c); });
            Py_END_ALLOW_THREADS;
        } else if (n > 50000) {
            Py_BEGIN_ALLOW_THREADS;
            for (npy_intp c = 0; c < nchunks; c++) run_chunk(c);
            Py_END_ALLOW_THREADS;
        } else {
            run_chunk(0);
        }
        for (npy_intp c = 0; c < nchunks; c++) {
            if (status[c] < 0) {
                if (!PyErr_Occurred()) PyErr_SetString(PyExc_RuntimeError, "numreduce: reduction loop failed");
                return -1;
            }
        }
        accs(0, acc);
        if (frame != nullptr) {
            // In the frame: in index order with the compensated merge, as
            // the blocks of one stream (as accurate as one piece).
            alignas(16) char err[kFrameBytes] = {};
            for (npy_intp c = 1; c < nchunks; c++) {
                accs(c, b);
                frame->merge(acc, b, err);
            }
            frame->settle(acc, err);
        } else {
            for (npy_intp step = 1; step < nchunks; step *= 2) {  // pairwise, in index order
                for (npy_intp c = 0; c + step < nchunks; c += 2 * step) {
                    accs(c, acc);
                    accs(c + step, b);
                    call.entry->combine(acc, b);
                }
            }
            accs(0, acc);
        }
        if (frame == nullptr || redo || !frame->rescale(acc, frame_buf)) break;
        redo = true;
    }
    if (frame != nullptr) frame->leave(acc, frame_buf);
    for (int i = 0; i < nout; i++) std::memcpy(values[i], acc[i], osize);
    *out_type = call.out->type_num;
    return 1;
}

PyObject *reduce_all_array(PyObject *ufunc, PyArrayObject *a) {
    alignas(16) char values[NPY_MAXARGS][32];
    int out_type = -1;
    const int ok = reduce_all_raw(ufunc, a, values, &out_type);
    if (ok <= 0) {
        if (ok < 0) return nullptr;
        Py_RETURN_NONE;
    }
    int nout = 0;
    const char *name = nullptr;
    find_loop(ufunc, PyArray_DESCR(a)->type_num, &nout, &name);
    // the output descriptor: the input's own where the types agree (a
    // datetime keeps its unit), as DirectCall::init chose it
    PyArray_Descr *out = out_type == PyArray_DESCR(a)->type_num ? PyArray_DESCR(a)
                                                                 : PyArray_DescrFromType(out_type);
    if (out == nullptr) return nullptr;
    if (out == PyArray_DESCR(a)) Py_INCREF(out);
    PyObject *ret = PyTuple_New(nout);
    for (int i = 0; ret != nullptr && i < nout; i++) {
        PyObject *sc = PyArray_Scalar(values[i], out, nullptr);
        if (sc == nullptr) Py_CLEAR(ret);
        else PyTuple_SET_ITEM(ret, i, sc);
    }
    Py_DECREF(out);
    return ret;
}

// _reduce_rows(ufunc, a): reduce a C-contiguous 2-D array over axis 0 (the
// "row walk" pattern: one accumulator per column) without options, one
// reduction-loop call per row (its row-walk fast path) or the traits' own
// row-block algorithm.  Returns None (general path) for anything unusual.
PyObject *engine_reduce_rows(PyObject *, PyObject *args) {
    PyObject *ufunc;
    PyArrayObject *a;
    if (!PyArg_ParseTuple(args, "OO!", &ufunc, &PyArray_Type, &a)) return nullptr;
    return reduce_rows_array(ufunc, a);
}

PyObject *reduce_rows_array(PyObject *ufunc, PyArrayObject *a) {
    char *outs[NPY_MAXARGS];
    PyObject *ret;
    DirectCall call;
    const int ok = call.start_2d(ufunc, a, 0, outs, &ret);
    if (ok <= 0) {
        if (ok < 0) return nullptr;
        Py_RETURN_NONE;
    }
    const int nout = call.nout;
    // a 3-D (outer, rows, cols) array: its middle axis, one slab after another
    const int nd = PyArray_NDIM(a);
    const npy_intp slabs = nd == 3 ? PyArray_DIM(a, 0) : 1;
    const npy_intp rows = PyArray_DIM(a, nd - 2), cols = PyArray_DIM(a, nd - 1);
    const npy_intp osize = call.out->elsize, isize = PyArray_DESCR(a)->elsize;

    // Start values: the initials broadcast along the row, or row 0 itself.
    alignas(16) char one[NPY_MAXARGS][32];
    char *onep[NPY_MAXARGS];
    for (int i = 0; i < nout; i++) onep[i] = one[i];
    const int have = call.initials(onep);
    if (have < 0) {
        Py_DECREF(ret);
        return nullptr;
    }
    int r = 0;
    for (npy_intp sl = 0; sl < slabs && r == 0; sl++) {
        const char *x = PyArray_BYTES(a) + sl * rows * cols * isize;
        char *acc[NPY_MAXARGS];
        for (int i = 0; i < nout; i++) {
            acc[i] = outs[i] + sl * cols * osize;
            if (have) {
                // the initial repeated along the row by doubling copies (one
                // memcpy an element cost ~3 us a call: fsum of (1, 1000)
                // float64 4.2 -> 1.5 us, of (100, 1000) 25.7 -> 21.8; 2000
                // calls)
                const npy_intp total = cols * osize;
                if (total > 0) std::memcpy(acc[i], one[i], osize);
                for (npy_intp done = osize; done < total; done *= 2) {
                    std::memcpy(acc[i] + done, acc[i], done < total - done ? done : total - done);
                }
            } else {
                std::memcpy(acc[i], x, cols * isize);  // same type (DirectCall checked)
            }
        }
        // Whole rows stream past the accumulator rows (sequential reads;
        // column blocking measured slower here), unless the traits reduce
        // row blocks themselves.
        Py_BEGIN_ALLOW_THREADS;
        if (call.entry->rows != nullptr) {
#if defined(NR_HAVE_HOST_SIMD)
            // the whole reduction's size, for the traits' row layout choice
            nr::simd::rows_total_bytes = (long long)(slabs * rows * cols * isize);
#endif
            call.entry->rows(acc, x + (have ? 0 : cols * isize), have ? rows : rows - 1, cols);
#if defined(NR_HAVE_HOST_SIMD)
            nr::simd::rows_total_bytes = 0;
#endif
        } else {
            for (npy_intp row = have ? 0 : 1; row < rows && r == 0; row++) {
                r = call.run(acc, osize, x + row * cols * isize, cols);
            }
        }
        Py_END_ALLOW_THREADS;
    }
    if (r < 0) {
        Py_DECREF(ret);
        return nullptr;
    }
    return ret;
}

// _reduce_trailing(ufunc, a): reduce a C-contiguous 2-D array over axis 1,
// one stride-0 loop call per row (no iterator), without options.  Returns
// None (general path) for anything unusual.
PyObject *engine_reduce_trailing(PyObject *, PyObject *args) {
    PyObject *ufunc;
    PyArrayObject *a;
    if (!PyArg_ParseTuple(args, "OO!", &ufunc, &PyArray_Type, &a)) return nullptr;
    return reduce_trailing_array(ufunc, a);
}

namespace {
// The rows of a C-contiguous (rows, cols) block, cols > 0, each reduced
// from the loop's initials into outs[i][row] by one call of the entry's
// segment loop; false (nothing written) where the loop has no segment loop
// or no initials (the caller then copies each row's first element).
bool segment_rows(DirectCall &call, char *const *outs, const char *x, npy_intp rows, npy_intp cols,
                  int *r) {
    if (call.entry->segment == nullptr || rows == 0) return false;
    *r = call.initials(outs);  // row 0's accumulators: also says whether there are initials
    if (*r <= 0) return *r < 0;
    const npy_intp start = 0, stop = cols;
    call.entry->segment(x, nullptr, outs, rows, cols, 1, &start, &stop, 1, 0, nullptr, 0, rows);
    *r = 0;
    return true;
}
}  // namespace

PyObject *reduce_trailing_array(PyObject *ufunc, PyArrayObject *a) {
    char *outs[NPY_MAXARGS];
    PyObject *ret;
    DirectCall call;
    const int ok = call.start_2d(ufunc, a, 1, outs, &ret);
    if (ok <= 0) {
        if (ok < 0) return nullptr;
        Py_RETURN_NONE;
    }
    const int nout = call.nout;
    const npy_intp rows = PyArray_DIM(a, 0), cols = PyArray_DIM(a, 1);
    const npy_intp osize = call.out->elsize, isize = PyArray_DESCR(a)->elsize;
    int r = 0;
    Py_BEGIN_ALLOW_THREADS;
    // A loop with initials: every row is the segment [0, cols) of the
    // (rows, cols, 1) block, all of them in one segment-loop call
    // (segment_block, mode 0: each row from the traits' initials, then the
    // row's contiguous stream -- the reduction loop's arithmetic for a
    // contiguous row with stride-0 accumulators, so the same bits) instead
    // of one reduction-loop call per row; traits with a several-rows stream
    // kernel (rows_stream) run it there.
    const bool done = segment_rows(call, outs, PyArray_BYTES(a), rows, cols, &r);
    // (rows shorter than the prefetch distance prefetch the rows ahead of
    // them: simd.hpp's rows_prefetch_ahead)
#if defined(NR_HAVE_HOST_SIMD)
    const npy_intp row_bytes = cols * isize;
    const npy_intp pf_rows = (npy_intp)nr::simd::rows_prefetch_ahead(row_bytes, row_bytes);
#endif
    for (npy_intp row = 0; !done && row < rows && r == 0; row++) {
        char *acc[NPY_MAXARGS];
        for (int i = 0; i < nout; i++) acc[i] = outs[i] + row * osize;
        const char *x = PyArray_BYTES(a) + row * cols * isize;
#if defined(NR_HAVE_HOST_SIMD)
        if (pf_rows > 0 && row + pf_rows < rows) nr::simd::prefetch_span(x + pf_rows * row_bytes, row_bytes);
#endif
        npy_intp count = cols;
        r = call.initials(acc);
        if (r == 0) {  // start from the row's first element
            for (int i = 0; i < nout; i++) std::memcpy(acc[i], x, isize);
            x += isize;
            count -= 1;
        }
        if (r >= 0) r = call.run(acc, 0, x, count);
    }
    Py_END_ALLOW_THREADS;
    if (r < 0) {
        Py_DECREF(ret);
        return nullptr;
    }
    return ret;
}

// _argminmax(rows, skip_nan) -> (argmin, argmax): intp arrays, one entry per
// row of the 2-D array `rows` (any strides), -1 for an all-NaN row when
// skip_nan.  The axis handling lives in numreduce/_api.py.
PyObject *engine_argminmax(PyObject *, PyObject *args) {
    PyArrayObject *rows;
    int skip_nan;
    if (!PyArg_ParseTuple(args, "O!p", &PyArray_Type, &rows, &skip_nan)) return nullptr;
    if (PyArray_NDIM(rows) != 2 && PyArray_NDIM(rows) != 3) {
        PyErr_SetString(PyExc_ValueError, "numreduce: _argminmax needs a 2-D or 3-D array");
        return nullptr;
    }
    PyArray_Descr *descr = PyArray_DESCR(rows);
    ArgRowsFn *fn = find_arg_loop(descr->type_num, skip_nan != 0);
    if (fn == nullptr) {
        PyErr_Format(PyExc_TypeError, "numreduce.argminmax: unsupported dtype %R", (PyObject *)descr);
        return nullptr;
    }
    // Native byte order and aligned storage, as the loops read raw elements.
    PyArrayObject *src = rows;
    Py_INCREF(src);
    if (!PyArray_ISNBO(descr->byteorder) || !PyArray_ISALIGNED(rows)) {
        PyArray_Descr *native = PyArray_DescrNewByteorder(descr, NPY_NATIVE);
        if (native == nullptr) {
            Py_DECREF(src);
            return nullptr;
        }
        Py_SETREF(src, (PyArrayObject *)PyArray_FromArray(rows, native, NPY_ARRAY_CARRAY_RO));
        if (src == nullptr) return nullptr;
    }
    // Rows of len = dim 1 elements each: a 2-D array is one block of them
    // along axis 0; a 3-D one (outer, len, inner) is outer blocks of inner
    // rows side by side along axis 2 (a reduction over a middle axis, in
    // place).
    const bool blocks = PyArray_NDIM(src) == 3;
    const int row_axis = blocks ? 2 : 0;
    const npy_intp outer = blocks ? PyArray_DIM(src, 0) : 1;
    const npy_intp souter = blocks ? PyArray_STRIDE(src, 0) : 0;
    const npy_intp inner = PyArray_DIM(src, row_axis);
    npy_intp n = outer * inner;
    PyObject *lo = PyArray_SimpleNew(1, &n, NPY_INTP);
    PyObject *hi = PyArray_SimpleNew(1, &n, NPY_INTP);
    if (lo == nullptr || hi == nullptr) {
        Py_XDECREF(lo);
        Py_XDECREF(hi);
        Py_DECREF(src);
        return nullptr;
    }
    npy_intp *l = (npy_intp *)PyArray_DATA((PyArrayObject *)lo);
    npy_intp *h = (npy_intp *)PyArray_DATA((PyArrayObject *)hi);
    Py_BEGIN_ALLOW_THREADS;
    for (npy_intp o = 0; o < outer; o++) {
        fn(PyArray_BYTES(src) + o * souter, inner, PyArray_DIM(src, 1), PyArray_STRIDE(src, row_axis),
           PyArray_STRIDE(src, 1), l + o * inner, h + o * inner);
    }
    Py_END_ALLOW_THREADS;
    Py_DECREF(src);
    return Py_BuildValue("(NN)", lo, hi);
}

}  // namespace nr
