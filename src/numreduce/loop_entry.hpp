// Public (installed as <numreduce/loop_entry.hpp>): one dtype loop of one
// ufunc as numreduce's engine and NumPy's ArrayMethod API see it -- the
// function pointers that loops.hpp generates from a traits struct.  Part of
// the extension ABI (extension.hpp): within one NUMREDUCE_API_VERSION_MAJOR
// it only grows at the end (C API 1.2 added scatter_sources), and
// registration takes the entries of every minor version's headers by their
// size (UFuncSpec::entry_size: kLoopEntrySize_1_1 for 1.0 and 1.1, whose
// entries are copied into a full LoopEntry with the newer members nullptr).
#pragma once

#include <cstddef>

#include "numpy_api.hpp"

namespace nr {

// A reduction's working frame for chunks of one contiguous stream (the
// moments' shift; loops.hpp), type-erased.
struct FrameHooks {
    // Choose the frame for acc + x[0..n) into `frame` (kFrameBytes), and
    // move acc into it.
    void (*choose)(char *const *acc, const char *x, npy_intp n, void *frame);
    void (*enter)(char *const *acc, const void *frame);
    // acc (in the frame) reduced with the contiguous, aligned x[0..n).
    void (*reduce)(char *const *acc, const char *x, npy_intp n, const void *frame);
    void (*leave)(char *const *acc, const void *frame);
    // true (and the frame changed) where the merged result `acc` (in the
    // frame) must be recomputed in the new frame, from the start.
    bool (*rescale)(const char *const *acc, void *frame);
    // a = combine(a, b) in the frame, compensated: the running error in
    // `err` (kFrameBytes, zeroed first), folded into a by settle().
    void (*merge)(char *const *a, char *const *b, void *err);
    void (*settle)(char *const *a, const void *err);
};
constexpr std::size_t kFrameBytes = 32;

// One dtype loop of one ufunc, generated from a traits struct by loops.hpp.
struct LoopEntry {
    int in_type;   // NumPy type number of both forward inputs / the reduced stream
                   // (of every source, for K sources)
    int out_type;  // NumPy type number of every output (and accumulator)
    PyArrayMethod_StridedLoop *forward;
    PyArrayMethod_StridedLoop *reduce;
    PyArrayMethod_GetLoop *get_reduce;
    PyArrayMethod_GetMultiReductionInitials *initials;  // nullptr: no initials
    PyArrayMethod_ResolveDescriptors *resolve;           // nullptr: NumPy's default
    // a = combine(a, b) on two sets of nout accumulator buffers (chunks of
    // a stream split across threads), and the traits' working frame for
    // such chunks (nullptr: none; see loops.hpp).
    void (*combine)(char *const *a, char *const *b);
    const FrameHooks *frame;
    // Optional: reduce a C-contiguous (rows, cols) block over axis 0 into
    // contiguous accumulator rows in place (nullptr: one loop call per row).
    void (*rows)(char *const *acc, const char *x, npy_intp rows, npy_intp cols);
    // numreduce.merge: out = combine(a, b) elementwise, operands
    // (a_0..a_{n-1}, b_0..b_{n-1}, out_0..out_{n-1}), all of out_type.
    PyArrayMethod_StridedLoop *merge;
    // numreduce.accumulate: prefix reductions along the middle axis of a
    // C-contiguous (outer, n, inner) block of in_type into nout such blocks
    // of out_type (scan_block, loops.hpp).
    void (*scan)(const char *x, char *const *outs, npy_intp outer, npy_intp n, npy_intp inner);
    // numreduce.reduceat / segmented_reduce: reductions of segments
    // [starts[s], stops[s]) of the middle axis of a C-contiguous (outer, n,
    // inner) block, tasks [t0, t1) of the outer * nseg (segment_block,
    // loops.hpp).
    void (*segment)(const char *x, const npy_bool *mask, char *const *outs, npy_intp outer,
                    npy_intp n, npy_intp inner, const npy_intp *starts, const npy_intp *stops,
                    npy_intp nseg, int mode, const char *const *given, npy_intp t0, npy_intp t1);
    // numreduce.reduce_by_group and numreduce.at: group-indexed accumulator
    // slots (scatter_block, loops.hpp); -1, or the index of the first bad id.
    npy_intp (*scatter)(const char *x, const npy_intp *ids, const npy_bool *mask, npy_intp outer,
                        npy_intp n, npy_intp inner, npy_intp G, char *const *accs,
                        unsigned char *seen);
    // What the traits declare (make_loop, extension.hpp): Tr::nout, the
    // sizes of in_t and out_t and their NumPy kinds (kind_of; 0: any), checked
    // against the ufunc's nout and the dtypes at registration.
    int nout;
    int in_size;
    int out_size;
    char in_kind;
    char out_kind;
    // C API 1.1: the number of sources K of the traits (Tr::nsrc, 1 for a
    // one-source reduction), whose in_t is sources<T, K>: in_type and
    // in_size/in_kind are then those of T.  It sits in what was padding, so
    // sizeof(LoopEntry) is that of 1.0; numreduce reads it only from
    // registrations built with 1.1 headers or newer (1.0's: K = 1).
    char nsrc;
    // C API 1.2: scatter with the K sources read in place, no packed
    // stream: xs[0 .. K) each a C-contiguous, aligned (outer, n, inner)
    // block of in_type, element (o, i, j) of source k at xs[k][(o * n + i)
    // * inner + j]; the other arguments and the result are scatter's, and
    // so are the results, bitwise (one loop template, scatter_from in
    // loops.hpp).  make_loop fills it for traits of K > 1 sources
    // (nullptr for one source: scatter reads its stream in place already,
    // and a second instance of the loop would only grow the binary);
    // nullptr in entries registered with 1.0 / 1.1 headers, whose K
    // sources the engine then packs as before.
    npy_intp (*scatter_sources)(const char *const *xs, const npy_intp *ids, const npy_bool *mask,
                                npy_intp outer, npy_intp n, npy_intp inner, npy_intp G,
                                char *const *accs, unsigned char *seen);
};

// sizeof(LoopEntry) in C API 1.0 and 1.1 (UFuncSpec::entry_size of their
// registrations, CApi::entry_size): everything before scatter_sources.
constexpr std::size_t kLoopEntrySize_1_1 = offsetof(LoopEntry, scatter_sources);

}  // namespace nr
