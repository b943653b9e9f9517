// numreduce.reduceat and numreduce.segmented_reduce on the engine: the
// reductions of segments [starts[s], stops[s]) of one axis, every ufunc
// output in one pass, through the segment loop of loops.hpp
// (segment_block), found in the loop table by the stream dtype.
// numreduce/_segments.py validates the arguments (the index rules, the
// empty-segment rule), resolves the dtypes as reduce does, and hands over
// C-contiguous, aligned, native blocks; the checks here repeat the ones
// memory safety rests on, before anything is written.
#include <vector>

#include "engine.hpp"
#include "ufuncs.hpp"

namespace nr {

// _segments(ufunc, x, mask, outs, outer, n, inner, starts, stops, mode, initials) -> None
//   x: C-contiguous aligned native array of the stream dtype, size
//   outer * n * inner (times K for K sources: method_loop); mask: None or a bool array of x's size and layout;
//   outs: tuple of nout C-contiguous aligned arrays of the loop's output
//   dtype, size outer * nseg * inner; starts, stops: C-contiguous intp
//   arrays of nseg offsets, 0 <= start, stop <= n; mode: 0 = the loop's
//   initials (if any), 1 = none, 2 = `initials` (a tuple of nout 0-d arrays
//   of the output dtype).  out[k][o, s, j] = reduce(x[o, starts[s]:stops[s], j]).
PyObject *engine_segments(PyObject *, PyObject *args) {
    PyObject *ufunc, *outs, *mask_obj, *initials;
    PyArrayObject *x, *starts, *stops;
    Py_ssize_t outer, n, inner;
    int mode;
    if (!PyArg_ParseTuple(args, "OO!OO!nnnO!O!iO", &ufunc, &PyArray_Type, &x, &mask_obj,
                          &PyTuple_Type, &outs, &outer, &n, &inner, &PyArray_Type, &starts,
                          &PyArray_Type, &stops, &mode, &initials)) {
        return nullptr;
    }
    PyArray_Descr *in = PyArray_DESCR(x);
    int nout = 0;
    const char *name = "?";
    const LoopEntry *entry = method_loop(ufunc, in, "segment", &nout, &name);
    if (entry == nullptr) return nullptr;
    auto bad = [](const char *what) {
        PyErr_Format(PyExc_ValueError, "numreduce: internal argument mismatch (_segments: %s)", what);
        return nullptr;
    };
    auto plain = [](PyArrayObject *a, npy_intp size) { return plain_array(a, size); };
    const npy_intp size = outer >= 0 && n >= 0 && inner >= 0 ? outer * n * inner : -1;
    if (size < 0 || !plain(x, size * stream_width(entry)) || PyTuple_GET_SIZE(outs) != nout || mode < 0 || mode > 2) {
        return bad("x");
    }
    const npy_intp nseg = PyArray_SIZE(starts);
    if (PyArray_DESCR(starts)->type_num != NPY_INTP || PyArray_DESCR(stops)->type_num != NPY_INTP ||
        !plain(starts, nseg) || !plain(stops, nseg)) {
        return bad("starts/stops");
    }
    const npy_bool *mask = nullptr;
    if (mask_obj != Py_None) {
        if (!PyArray_Check(mask_obj) || PyArray_DESCR((PyArrayObject *)mask_obj)->type_num != NPY_BOOL ||
            !plain((PyArrayObject *)mask_obj, size)) {
            return bad("mask");
        }
        mask = (const npy_bool *)PyArray_BYTES((PyArrayObject *)mask_obj);
    }
    char *optr[NPY_MAXARGS];
    const npy_intp osize = outer * nseg * inner;
    for (int i = 0; i < nout; i++) {
        PyObject *o = PyTuple_GET_ITEM(outs, i);
        if (!PyArray_Check(o) || !plain((PyArrayObject *)o, osize) ||
            PyArray_DESCR((PyArrayObject *)o)->type_num != entry->out_type ||
            !PyArray_ISWRITEABLE((PyArrayObject *)o)) {
            return bad("out");
        }
        optr[i] = PyArray_BYTES((PyArrayObject *)o);
    }
    const char *given[NPY_MAXARGS];
    if (mode == 2) {
        if (!PyTuple_Check(initials) || PyTuple_GET_SIZE(initials) != nout) return bad("initials");
        for (int i = 0; i < nout; i++) {
            PyObject *v = PyTuple_GET_ITEM(initials, i);
            if (!PyArray_Check(v) || PyArray_NDIM((PyArrayObject *)v) != 0 ||
                PyArray_DESCR((PyArrayObject *)v)->type_num != entry->out_type ||
                !PyArray_ISALIGNED((PyArrayObject *)v)) {
                return bad("initials");
            }
            given[i] = PyArray_BYTES((PyArrayObject *)v);
        }
    }
    // Offsets in range, and an empty segment only where there is a seed
    // (the Python side raises the user-facing errors first).
    const bool seeded = mode == 2 || (mode == 0 && entry->initials != nullptr);
    const npy_intp *lo = (const npy_intp *)PyArray_BYTES(starts);
    const npy_intp *hi = (const npy_intp *)PyArray_BYTES(stops);
    for (npy_intp s = 0; s < nseg; s++) {
        if (lo[s] < 0 || lo[s] > n || hi[s] < 0 || hi[s] > n) return bad("offsets");
        if (hi[s] <= lo[s] && !seeded) {
            PyErr_Format(PyExc_ValueError,
                         "numreduce: segment %zd is empty and %s has no initial value; pass "
                         "'initial'", (Py_ssize_t)s, name);
            return nullptr;
        }
    }
    if (mask != nullptr && !seeded) return bad("mask without a seed");
    const npy_intp ntasks = outer * nseg;
    if (ntasks == 0 || inner == 0) Py_RETURN_NONE;
    // Work: every segment's elements (overlapping segments count twice).
    double work = 0;
    for (npy_intp s = 0; s < nseg; s++) work += hi[s] > lo[s] ? double(hi[s] - lo[s]) : 1.0;
    work *= double(outer) * double(inner);
    const char *xp = PyArray_BYTES(x);
    // Tasks are independent (one segment of one outer block each), so the
    // result is bitwise the same for any thread count.
    const int threads_wanted = work >= 4e5 ? engine_num_threads() : 1;
    const npy_intp nthreads = ntasks < threads_wanted ? ntasks : threads_wanted;
    Py_BEGIN_ALLOW_THREADS;
    if (nthreads <= 1) {
        entry->segment(xp, mask, optr, outer, n, inner, lo, hi, nseg, mode, given, 0, ntasks);
    } else {
        // Batches of tasks handed out in order; small enough to balance
        // segments of uneven length.
        const npy_intp batch = ntasks / (nthreads * 16) > 0 ? ntasks / (nthreads * 16) : 1;
        run_tasks(ntasks, nthreads, batch, [&](npy_intp t0, npy_intp t1) {
            entry->segment(xp, mask, optr, outer, n, inner, lo, hi, nseg, mode, given, t0, t1);
        });
    }
    Py_END_ALLOW_THREADS;
    Py_RETURN_NONE;
}

}  // namespace nr
