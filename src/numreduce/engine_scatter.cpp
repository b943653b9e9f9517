// numreduce.reduce_by_group and numreduce.at on the engine: one pass over
// the data into accumulator slots indexed by group id, through the scatter
// loop of loops.hpp (scatter_block), found in the loop table by the stream
// dtype.  numreduce/_groups.py validates the arguments, resolves the dtypes
// as reduce does, and hands over C-contiguous, aligned, native blocks
// (temporaries for the results of reduce_by_group; for at, the
// accumulators themselves or a copy written back).
#include <cstdint>
#include <cstring>
#include <new>
#include <utility>
#include <vector>

#include "engine.hpp"
#include "ufuncs.hpp"

namespace nr {

namespace {

// numreduce's own loops' scatter_rows, by their scatter functions
// (registered at import, before any lookup).
std::vector<std::pair<decltype(LoopEntry::scatter), ScatterRowsFn>> &rows_registry() {
    static std::vector<std::pair<decltype(LoopEntry::scatter), ScatterRowsFn>> r;
    return r;
}

// The slots of the pieces of a grouped pass into fresh slots: piece 0
// scatters into the caller's (acc, seen), every other piece k into slots of
// its own -- nout blocks of ssize out_t, then ssize seen flags, each
// piece's start rounded up to 64 bytes (the out_t blocks stay aligned
// whatever ssize is) -- and merge() folds them into the caller's in index
// order through the traits' combine, so the result is bitwise the same for
// any thread count; run() dispatches the pieces to threads and merges them
// (the one-stream and the rows paths).  One piece where the pieces' slots would take more
// than a quarter of the stream's bytes (few groups next to the stream), or
// cannot be allocated.
struct Pieces {
    int nout;
    npy_intp ssize, osize, stride, count;
    std::vector<char> buf;
    // (the quarter-of-the-stream rule on `row_slots` slots: those of one
    // row where R rows share a pass, so that each decides as alone)
    Pieces(int nout_, npy_intp ssize_, npy_intp osize_, npy_intp count_, double stream_bytes,
           npy_intp row_slots = -1)
        : nout(nout_), ssize(ssize_), osize(osize_), count(count_) {
        stride = (ssize * (nout * osize + 1) + 63) / 64 * 64;
        const npy_intp rs = row_slots < 0 ? ssize : row_slots;
        const double rule = double(count - 1) * double((rs * (nout * osize + 1) + 63) / 64 * 64);
        if (count > 1 && rule > stream_bytes / 4) count = 1;
        const double bytes = double(count - 1) * double(stride);
        if (count > 1) {
            try {
                buf.resize((size_t)bytes + 64);
            } catch (const std::bad_alloc &) {
                count = 1;  // no room for the pieces' slots: one pass
            }
        }
    }
    // piece k's slots (k >= 1): acc[0 .. nout) and the seen flags returned
    unsigned char *slots(npy_intp k, char **acc) {
        const std::uintptr_t p0 = reinterpret_cast<std::uintptr_t>(buf.data());
        char *base = buf.data() + ((64 - p0 % 64) % 64) + (size_t)(k - 1) * (size_t)stride;
        for (int i = 0; i < nout; i++) acc[i] = base + (size_t)i * (size_t)(ssize * osize);
        return (unsigned char *)base + (size_t)nout * (size_t)(ssize * osize);
    }
    // acc[0 .. nout) of piece k: the caller's for piece 0, its own (seen
    // zeroed) for the others; the seen flags returned
    unsigned char *start(npy_intp k, char *const *aptr, unsigned char *seen, char **acc) {
        if (k == 0) {
            for (int i = 0; i < nout; i++) acc[i] = aptr[i];
            return seen;
        }
        unsigned char *sk = slots(k, acc);
        std::memset(sk, 0, (size_t)ssize);
        return sk;
    }
    // pieces 1 .. count merged into (aptr, seen) in index order
    void merge(const LoopEntry *entry, char *const *aptr, unsigned char *seen) {
        for (npy_intp k = 1; k < count; k++) {
            char *acc[NPY_MAXARGS], *a[NPY_MAXARGS], *b[NPY_MAXARGS];
            const unsigned char *sk = slots(k, acc);
            for (npy_intp s = 0; s < ssize; s++) {
                if (!sk[s]) continue;
                for (int i = 0; i < nout; i++) {
                    a[i] = aptr[i] + s * osize;
                    b[i] = acc[i] + s * osize;
                }
                if (seen[s]) {
                    entry->combine(a, b);
                } else {
                    for (int i = 0; i < nout; i++) std::memcpy(a[i], b[i], (size_t)osize);
                    seen[s] = 1;
                }
            }
        }
    }
    // The pieces run on up to engine_num_threads() threads, then merged
    // where every piece is good (without the GIL).  Piece k holds elements
    // [k * len, (k + 1) * len) of the n (all n where there is one piece);
    // scatter(r0, r1, acc, seen) reduces elements [r0, r1) into the piece's
    // slots (start()) and returns -1, or the index within the piece of the
    // first id outside [0, G).  Returns -1, or the first such index in the
    // stream.
    template <class F>
    npy_intp run(const LoopEntry *entry, char *const *aptr, unsigned char *seen, npy_intp n,
                 npy_intp len, F &&scatter) {
        std::vector<npy_intp> bads((size_t)count, -1);
        const npy_intp nthreads = engine_num_threads() < count ? engine_num_threads() : count;
        run_tasks(count, nthreads, 1, [&](npy_intp k, npy_intp) {
            const npy_intp r0 = k * len, r1 = count == 1 ? n : (r0 + len < n ? r0 + len : n);
            char *acc[NPY_MAXARGS];
            unsigned char *sk = start(k, aptr, seen, acc);
            const npy_intp b = scatter(r0, r1, acc, sk);
            bads[(size_t)k] = b < 0 ? -1 : r0 + b;
        });
        npy_intp bad = -1;
        for (npy_intp k = 0; bad < 0 && k < count; k++) bad = bads[(size_t)k];
        if (bad < 0) merge(entry, aptr, seen);
        return bad;
    }
};

// engine_scatter's grouped reduction of R rows of n elements sharing
// their ids into fresh slots (accs nout (R, G) blocks, seen (R, G) zeros):
// the pieces, their sizes and whether there are any, and the merges in
// index order are those of each row reduced alone (outer 1; see
// engine_scatter), so every row's result is bitwise the same, for any
// thread count; each piece of all R rows is one scatter_rows call.
PyObject *scatter_rows_pieces(const LoopEntry *entry, ScatterRowsFn rows_fn, PyArrayObject *x,
                              PyArrayObject *ids, char *const *aptr, unsigned char *seen,
                              npy_intp R, npy_intp n, npy_intp G) {
    const int nout = entry->nout;
    const npy_intp isize = PyArray_DESCR(x)->elsize * stream_width(entry);
    const npy_intp osize = entry->out_size;
    const npy_intp ssize = R * G;
    // each row's pieces as engine_scatter cuts one row alone
    Pieces pc(nout, ssize, osize, n > kChunk ? (n + kChunk - 1) / kChunk : 1,
              double(n) * double(isize), G);
    const npy_intp *idp = (const npy_intp *)PyArray_BYTES(ids);
    const char *xp = PyArray_BYTES(x);
    npy_intp bad = -1;
    if (n > 0 || ssize > 0) {
        Py_BEGIN_ALLOW_THREADS;
        bad = pc.run(entry, aptr, seen, n, kChunk,
                     [&](npy_intp r0, npy_intp r1, char *const *acc, unsigned char *sk) {
                         return rows_fn(xp + r0 * isize, n, idp + r0, R, r1 - r0, G, acc, sk);
                     });
        Py_END_ALLOW_THREADS;
    }
    return PyLong_FromSsize_t(bad);
}

}  // namespace

void register_scatter_rows(decltype(LoopEntry::scatter) scatter, ScatterRowsFn rows) {
    for (const auto &e : rows_registry()) {
        if (e.first == scatter) return;
    }
    rows_registry().emplace_back(scatter, rows);
}

ScatterRowsFn scatter_rows_of(const LoopEntry *entry) {
    for (const auto &e : rows_registry()) {
        if (e.first == entry->scatter) return e.second;
    }
    return nullptr;
}

// _scatter(ufunc, x, ids, mask, accs, seen, outer, n, inner, G) -> int
//   x: (outer, n, inner) C-contiguous aligned native array of the stream
//   dtype (K values per element for K sources: method_loop), or, for a
//   loop with scatter_sources (C API 1.2) and outer <= 1, a tuple of its K
//   sources read in place, each such an array of the loop's dtype (the
//   same bits as the packed stream: loops.hpp's scatter_from); ids: n
//   intp; mask: None or (outer, n, inner) bool; accs: tuple
//   of nout (outer, G, inner) arrays of the loop's output dtype; seen: None
//   (accs hold states: step only) or (outer, G, inner) uint8 zeros (see
//   scatter_block).  Returns -1, or the index of the first id outside
//   [0, G).
PyObject *engine_scatter(PyObject *, PyObject *args) {
    PyObject *ufunc, *xobj, *maskobj, *accs, *seenobj;
    PyArrayObject *ids;
    Py_ssize_t outer, n, inner, G;
    if (!PyArg_ParseTuple(args, "OOO!OO!Onnnn", &ufunc, &xobj, &PyArray_Type, &ids, &maskobj,
                          &PyTuple_Type, &accs, &seenobj, &outer, &n, &inner, &G)) {
        return nullptr;
    }
    // the stream, or the K sources (nsrc > 0)
    const bool split = PyTuple_Check(xobj);
    const Py_ssize_t nsrc = split ? PyTuple_GET_SIZE(xobj) : 0;
    PyObject *x0 = split && nsrc > 0 ? PyTuple_GET_ITEM(xobj, 0) : xobj;
    if (!PyArray_Check(x0)) {
        PyErr_SetString(PyExc_ValueError, "numreduce: internal argument mismatch (_scatter)");
        return nullptr;
    }
    PyArrayObject *x = (PyArrayObject *)x0;
    PyArray_Descr *in = PyArray_DESCR(x);
    int nout = 0;
    const LoopEntry *entry = method_loop(ufunc, in, "scatter", &nout);
    if (entry == nullptr) return nullptr;
    const auto plain = plain_array;
    const bool dims_ok = outer >= 0 && n >= 0 && inner >= 0 && G >= 0;
    const npy_intp xsize = dims_ok ? outer * n * inner : -1;
    const npy_intp ssize = dims_ok ? outer * G * inner : -1;
    const char *xps[4] = {nullptr, nullptr, nullptr, nullptr};
    bool sources_ok = !split || (nsrc == stream_width(entry) && entry->scatter_sources != nullptr &&
                                 outer <= 1);
    for (Py_ssize_t j = 0; sources_ok && j < nsrc; j++) {
        PyObject *o = PyTuple_GET_ITEM(xobj, j);
        sources_ok = dims_ok && PyArray_Check(o) && plain((PyArrayObject *)o, xsize, in->type_num);
        if (sources_ok) xps[j] = PyArray_BYTES((PyArrayObject *)o);
    }
    if (!dims_ok || !sources_ok ||
        (!split && !plain(x, xsize * stream_width(entry), in->type_num)) || !plain(ids, n, NPY_INTP) ||
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
    // Several rows sharing their ids (outer > 1, inner 1, no mask), into
    // fresh slots, by a loop of numreduce's own: every piece of the rows
    // in one pass over its ids (scatter_rows), each row bitwise as if
    // reduced alone (below, outer 1): the same pieces, the same merges.
    const ScatterRowsFn rows_fn =
        outer > 1 && inner == 1 && mask == nullptr && seen != nullptr ? scatter_rows_of(entry)
                                                                      : nullptr;
    if (rows_fn != nullptr) return scatter_rows_pieces(entry, rows_fn, x, ids, aptr, seen, outer, n, G);
    // A grouped reduction into fresh slots (seen given) of one long stream
    // (outer == 1) is cut into pieces of about kChunk elements (whole rows
    // of `inner`), whatever the thread count: piece 0 scatters into the
    // caller's slots, every other piece into slots of its own, and the
    // pieces merge into the caller's in index order through the traits'
    // combine, so the result is bitwise the same for any thread count.
    // Only where the pieces' slots take at most a quarter of the stream's
    // bytes (few groups next to the stream); otherwise one pass.
    const npy_intp isize = in->elsize * stream_width(entry), osize = PyArray_DESCR((PyArrayObject *)PyTuple_GET_ITEM(accs, 0))->elsize;
    const npy_intp esize = in->elsize;
    const npy_intp prows = inner > 0 && kChunk / inner > 0 ? kChunk / inner : 1;
    Pieces pc(nout, ssize, osize,
              seen != nullptr && outer == 1 && n > prows ? (n + prows - 1) / prows : 1,
              double(xsize) * double(isize));
    const npy_intp *idp = (const npy_intp *)PyArray_BYTES(ids);
    const char *xp = PyArray_BYTES(x);
    // elements [r0, r0 + len) of the n (whole rows of `inner`) into (acc, sk)
    auto scatter = [&](npy_intp r0, npy_intp len, npy_intp rows, char *const *acc,
                       unsigned char *sk) {
        const npy_bool *m = mask == nullptr ? nullptr : mask + r0 * inner;
        if (!split) {
            return entry->scatter(xp + r0 * inner * isize, idp + r0, m, rows, len, inner, G, acc,
                                  sk);
        }
        const char *p[4];
        for (Py_ssize_t j = 0; j < nsrc; j++) p[j] = xps[j] + r0 * inner * esize;
        return entry->scatter_sources(p, idp + r0, m, rows, len, inner, G, acc, sk);
    };
    npy_intp bad = -1;
    if (xsize > 0 || (seen != nullptr && ssize > 0)) {
        Py_BEGIN_ALLOW_THREADS;
        if (pc.count == 1) {
            bad = scatter(0, n, outer, aptr, seen);
        } else {
            bad = pc.run(entry, aptr, seen, n, prows,
                         [&](npy_intp r0, npy_intp r1, char *const *acc, unsigned char *sk) {
                             return scatter(r0, r1 - r0, 1, acc, sk);
                         });
        }
        Py_END_ALLOW_THREADS;
    }
    return PyLong_FromSsize_t(bad);
}

// _scatter_floor(x, ids, G) -> float: the bench's bound for a grouped
// reduction of one float64 stream into G slots of 16 bytes (the minmax
// state of a double): every element added into its group's slot, in
// order -- the same reads of x and ids and the same random slot updates
// as any grouped reduction, with the least work per element.  Returns the
// slots' sum (so that the pass is kept); ValueError on an id outside
// [0, G) or arrays that are not contiguous float64 / intp of one length.
PyObject *scatter_floor(PyObject *, PyObject *args) {
    PyArrayObject *x, *ids;
    Py_ssize_t G;
    if (!PyArg_ParseTuple(args, "O!O!n", &PyArray_Type, &x, &PyArray_Type, &ids, &G)) {
        return nullptr;
    }
    const npy_intp n = PyArray_SIZE(x);
    if (G <= 0 || !plain_array(x, n, NPY_DOUBLE) || !plain_array(ids, n, NPY_INTP)) {
        PyErr_SetString(PyExc_ValueError,
                        "_scatter_floor: x contiguous float64, ids intp of x's size, G > 0");
        return nullptr;
    }
    struct alignas(16) Slot {
        double v, pad;
    };
    std::vector<Slot> w((size_t)G, Slot{0.0, 0.0});
    const double *xs = (const double *)PyArray_DATA(x);
    const npy_intp *is = (const npy_intp *)PyArray_DATA(ids);
    npy_intp i = 0;
    Py_BEGIN_ALLOW_THREADS;
    for (; i < n; i++) {
        const npy_intp g = is[i];
        if ((npy_uintp)g >= (npy_uintp)G) break;
        w[g].v += xs[i];
    }
    Py_END_ALLOW_THREADS;
    if (i < n) {
        PyErr_Format(PyExc_ValueError, "_scatter_floor: id %zd outside [0, %zd)", (Py_ssize_t)is[i],
                     G);
        return nullptr;
    }
    double total = 0.0;
    for (const Slot &s : w) total += s.v;
    return PyFloat_FromDouble(total);
}

}  // namespace nr
