// Generic loop templates: turn one traits struct (traits/*.hpp) into the
// strided functions NumPy's ArrayMethod API and numreduce's engine call.
// Nothing here knows about a particular reduction.
#pragma once

#include <cstring>
#include <new>
#include <type_traits>

#include "numpy_api.hpp"
#include "simd.hpp"
#include "host_traits.hpp"  // the traits' host-only members (before any traits header)
#include "loop_entry.hpp"

// A software prefetch of the cache line at p for reading (a hint: it never
// changes a result).  GCC/Clang's builtin; under MSVC on x86/x64 SSE's
// _mm_prefetch into every cache level, as the builtin's default; nothing
// elsewhere.
#if defined(__GNUC__) || defined(__clang__)
#define NR_PREFETCH(p) __builtin_prefetch(p)
#elif defined(_MSC_VER) && (defined(_M_X64) || defined(_M_IX86)) && !defined(_M_ARM64EC)
#include <xmmintrin.h>
#define NR_PREFETCH(p) _mm_prefetch(reinterpret_cast<const char *>(p), _MM_HINT_T0)
#else
#define NR_PREFETCH(p) ((void)(p))
#endif

namespace nr {

template <class Tr>
using acc_of = typename Tr::acc_t;

// Accumulator <-> the nout output (or accumulator) operands.
template <class Tr>
inline acc_of<Tr> load_acc(char *const *p) {
    acc_of<Tr> a;
    for (int i = 0; i < Tr::nout; i++) {
        std::memcpy(&a.v[i], p[i], sizeof(typename Tr::out_t));
    }
    return a;
}
template <class Tr>
inline void store_acc(const acc_of<Tr> &a, char *const *p) {
    for (int i = 0; i < Tr::nout; i++) {
        std::memcpy(p[i], &a.v[i], sizeof(typename Tr::out_t));
    }
}
template <class Tr>
inline typename Tr::in_t load_in(const char *p) {
    typename Tr::in_t x;
    std::memcpy(&x, p, sizeof(x));
    return x;
}

// m elements of T, K elements apart from p, into buf, in a loop of that
// known stride (vector loads and shuffles), the source prefetched 4 KiB
// ahead, a cache line per step.  x[::2] of 1e7 elements out of memory,
// one thread: fsum float32 6.1 -> 4.9 ms (np.sum 4.6), float64 14.4 ->
// 11.3 ms (np.sum 9.3); minmax float64 11.5 -> 9.8 ms.
// (The prefetch follows the streaming kernels' policy, simd.hpp's
// prefetch_bytes: off on AMD family 19h.)
template <int K, class T>
inline void gather_k(T *buf, const T *p, npy_intp m) {
    constexpr npy_intp S = 64 / (K * (npy_intp)sizeof(T)) > 0 ? 64 / (K * (npy_intp)sizeof(T)) : 1;
#if defined(NR_HAVE_HOST_SIMD)
    const bool pf = simd::prefetch_bytes() > 0;
#else
    constexpr bool pf = true;
#endif
    npy_intp j = 0;
    for (; j + S <= m; j += S) {
        if (pf) NR_PREFETCH(reinterpret_cast<const char *>(p + K * j) + 4096);
        for (npy_intp i = 0; i < S; i++) buf[j + i] = p[K * (j + i)];
    }
    for (; j < m; j++) buf[j] = p[K * j];
}

// m elements of T, sx bytes apart from x, into buf: a stride of 2, 3 or 4
// whole elements (x[::2], a column of a narrow C array) by gather_k, any
// other stride element by element.
template <class T>
inline void gather(T *buf, const char *x, npy_intp sx, npy_intp m) {
    if (sx > 0 && sx % (npy_intp)sizeof(T) == 0 && reinterpret_cast<std::uintptr_t>(x) % alignof(T) == 0) {
        const T *p = reinterpret_cast<const T *>(x);
        switch (sx / (npy_intp)sizeof(T)) {
            case 2: return gather_k<2>(buf, p, m);
            case 3: return gather_k<3>(buf, p, m);
            case 4: return gather_k<4>(buf, p, m);
            default: break;
        }
    }
    for (npy_intp j = 0; j < m; j++, x += sx) std::memcpy(&buf[j], x, sizeof(T));
}

// The number of sources of a traits struct: Tr::nsrc where it declares one
// (in_t is then sources<T, nsrc>, traits/common.hpp), else 1.
template <class Tr, class = void>
struct nsrc_of : std::integral_constant<int, 1> {};
template <class Tr>
struct nsrc_of<Tr, std::void_t<decltype(Tr::nsrc)>> : std::integral_constant<int, int(Tr::nsrc)> {};
// The type of one source value: in_t, or T of sources<T, K>.
template <class Tr, class = void>
struct source_type {
    using type = typename Tr::in_t;
};
template <class Tr>
struct source_type<Tr, std::enable_if_t<(nsrc_of<Tr>::value > 1)>> {
    using type = std::remove_extent_t<decltype(Tr::in_t::v)>;
};
template <class Tr>
using source_of = typename source_type<Tr>::type;

// One element of K strided sources.
template <class Tr>
inline typename Tr::in_t load_sources(const char *const *p) {
    typename Tr::in_t s;
    for (int j = 0; j < nsrc_of<Tr>::value; j++) std::memcpy(&s.v[j], p[j], sizeof(s.v[j]));
    return s;
}

// Forward (elementwise) loop: (a, b) -> store(combine(lift(a), lift(b))),
// and for K-source traits (x_0 .. x_{K-1}) -> store(lift(x)): the state of
// one element.  Operands: data[0 .. nin) inputs, data[nin .. nin+nout)
// outputs (nin = 2, or K).
template <class Tr>
int forward_loop(PyArrayMethod_Context *, char *const data[], npy_intp const dimensions[],
                 npy_intp const strides[], NpyAuxData *) {
    const npy_intp n = dimensions[0];
    if constexpr (nsrc_of<Tr>::value > 1) {
        constexpr int K = nsrc_of<Tr>::value;
        const char *src[K];
        char *out[Tr::nout];
        for (int j = 0; j < K; j++) src[j] = data[j];
        for (int i = 0; i < Tr::nout; i++) out[i] = data[K + i];
        for (npy_intp k = 0; k < n; k++) {
            store_acc<Tr>(Tr::lift(load_sources<Tr>(src)), out);
            for (int j = 0; j < K; j++) src[j] += strides[j];
            for (int i = 0; i < Tr::nout; i++) out[i] += strides[K + i];
        }
        return 0;
    }
    const char *a = data[0], *b = data[1];
    char *out[Tr::nout];
    for (int i = 0; i < Tr::nout; i++) out[i] = data[2 + i];
    for (npy_intp k = 0; k < n; k++) {
        store_acc<Tr>(Tr::combine(Tr::lift(load_in<Tr>(a)), Tr::lift(load_in<Tr>(b))), out);
        a += strides[0];
        b += strides[1];
        for (int i = 0; i < Tr::nout; i++) out[i] += strides[2 + i];
    }
    return 0;
}

// Traits may bring their own contiguous-stream algorithm (vector min/max
// lanes, blocked two-pass moments, block-max log-sum-exp, TwoSum lanes);
// otherwise the stream is stepped in order.
template <class Tr, class = void>
struct has_block_reduce : std::false_type {};
template <class Tr>
struct has_block_reduce<Tr, std::void_t<decltype(&Tr::block_reduce)>> : std::true_type {};

// Traits whose blocks merge in a tree (merge_blocks(acc, n, block) over
// block states reduce_block(x, m), m <= BLOCK: log-sum-exp) get the same
// tree on a gathered strided stream, so strided data is as accurate as
// contiguous data.
template <class Tr, class = void>
struct has_merge_blocks : std::false_type {};
template <class Tr>
struct has_merge_blocks<Tr, std::void_t<decltype(&Tr::reduce_block)>> : std::true_type {};

// Traits may bring a kernel for several contiguous rows of one length,
// each reduced from one start state (rows_stream(acc, x, rows, n, out):
// out[i][r] = reduce_stream(acc, row r)[i], the same bits): the rows of a
// reduction along the last axis, reduced side by side.
template <class Tr, class = void>
struct has_rows_stream : std::false_type {};
template <class Tr>
struct has_rows_stream<Tr, std::void_t<decltype(&Tr::rows_stream)>> : std::true_type {};

template <class Tr>
inline acc_of<Tr> reduce_stream(acc_of<Tr> acc, const typename Tr::in_t *x, npy_intp n) {
    if constexpr (has_block_reduce<Tr>::value) {
        return Tr::block_reduce(acc, x, n);
    } else {
        for (npy_intp k = 0; k < n; k++) acc = Tr::step(acc, x[k]);
        return acc;
    }
}

// The same reduction on A-typed input, A = Tr::out_t, where the traits
// declare it: `using real_traits = X<A, A, ...>;` promises that step(acc, x)
// and lift(x) are real_traits' step(acc, to_real<A>(x)) and
// lift(to_real<A>(x)) (Moments, TwoSum, MaxSumExp); void otherwise.
template <class Tr, class = void>
struct real_input {
    using type = void;
};
template <class Tr>
struct real_input<Tr, std::void_t<typename Tr::real_traits>> {
    using type = typename Tr::real_traits;
};
// Whether the row loops below convert a row to out_t first and run the
// A-typed traits' loop on it: for every input type but A itself, so that
// bool/integer/float16/float32 data give, by construction, the bits of the
// same values in A (one loop body, vectorised and contracted by the
// compiler alike for every type, instead of one per type with the
// conversion inside).
template <class Tr>
constexpr bool converts_first() {
    using R = typename real_input<Tr>::type;
    if constexpr (std::is_void<R>::value) {
        return false;
    } else {
        return !std::is_same<typename Tr::in_t, typename Tr::out_t>::value &&
               std::is_same<typename R::in_t, typename Tr::out_t>::value &&
               std::is_same<typename R::out_t, typename Tr::out_t>::value && R::nout == Tr::nout;
    }
}
// Rows converted first are converted in pieces of this many elements (on
// the stack, L1-resident).
constexpr npy_intp kConvertBlock = 256;

// acc[i][k] = step(acc[k], x[k]) for k < n, accumulator rows in place
// (compiled for AVX-512, AVX2 and the baseline: NR_TARGET_CLONES; a static
// member of a class template, since Clang's target_clones takes no function
// template).
template <class Tr>
struct RowStep {
    NR_TARGET_CLONES static void run(char *const *data, const typename Tr::in_t *__restrict x, npy_intp n);
};
template <class Tr>
inline void row_step(char *const *data, const typename Tr::in_t *__restrict x, npy_intp n) {
    RowStep<Tr>::run(data, x, n);
}
template <class Tr>
NR_TARGET_CLONES void RowStep<Tr>::run(char *const *data, const typename Tr::in_t *__restrict x, npy_intp n) {
    using out_t = typename Tr::out_t;
    constexpr int N = Tr::nout;
    if constexpr (converts_first<Tr>()) {
        using R = typename real_input<Tr>::type;
        out_t buf[kConvertBlock];
        char *d[N];
        for (npy_intp k0 = 0; k0 < n; k0 += kConvertBlock) {
            const npy_intp m = n - k0 < kConvertBlock ? n - k0 : kConvertBlock;
            for (npy_intp k = 0; k < m; k++) buf[k] = to_real<out_t>(x[k0 + k]);
            for (int i = 0; i < N; i++) d[i] = data[i] + k0 * (npy_intp)sizeof(out_t);
            row_step<R>(d, buf, m);
        }
    } else if constexpr (N == 2) {
        out_t *__restrict p0 = reinterpret_cast<out_t *>(data[0]);
        out_t *__restrict p1 = reinterpret_cast<out_t *>(data[1]);
        for (npy_intp k = 0; k < n; k++) {
            acc_of<Tr> a = Tr::step(acc_of<Tr>{{p0[k], p1[k]}}, x[k]);
            p0[k] = a.v[0];
            p1[k] = a.v[1];
        }
    } else {
        out_t *p[N];
        for (int i = 0; i < N; i++) p[i] = reinterpret_cast<out_t *>(data[i]);
        for (npy_intp k = 0; k < n; k++) {
            acc_of<Tr> a;
            for (int i = 0; i < N; i++) a.v[i] = p[i][k];
            a = Tr::step(a, x[k]);
            for (int i = 0; i < N; i++) p[i][k] = a.v[i];
        }
    }
}

// Traits may bring their own kernel for one row of accumulators walking
// along one input row (row_walk(acc, x, n): acc[i][k] = step(acc[k], x[k]);
// it returns false where it does not handle the type: row_step runs),
// the pattern NumPy's reduction iterator produces for an axis-0 reduction of
// a C-ordered array, one call per row: the native path's counterpart of the
// engine's row-block kernel (rows_reduce), which sees the whole block.
template <class Tr, class = void>
struct has_row_walk : std::false_type {};
template <class Tr>
struct has_row_walk<Tr, std::void_t<decltype(&Tr::row_walk)>> : std::true_type {};

// K-source traits may bring a kernel for the K contiguous streams
// themselves (block_reduce_sources(acc, src, n): src[j] the n values of
// source j; the weighted moments, the co-moments, log-sum-exp with b,
// sumprod), which reads the streams as they lie instead of gathering them
// into blocks of sources<T, K>.  It must give the bits of any split of the
// stream at multiples of 1024 elements (reduce_sources_loop's gathered
// blocks: strided data give the bits of contiguous data); traits with a
// tree of block states (merge_blocks) bring reduce_block_sources(src, m)
// instead, the state of one block, and the strided streams are gathered
// one block at a time into the same tree.
template <class Tr, class = void>
struct has_sources_reduce : std::false_type {};
template <class Tr>
struct has_sources_reduce<Tr, std::void_t<decltype(&Tr::block_reduce_sources)>> : std::true_type {};

// Reduction loop, NumPy's (nout + 1)-in / nout-out layout:
//   data[0 .. nout)          accumulators (aliased with the outputs)
//   data[nout]               the streamed input
//   data[nout+1 .. 2nout+1)  outputs
//
// K-source traits: data[nout .. nout+K) are the K streams and the outputs
// follow them (reduce_sources_loop).
template <class Tr>
int reduce_sources_loop(const char *const *src, const npy_intp *sstr, char *const *acc_p,
                        const npy_intp *astr, char *const *out_p, const npy_intp *ostr,
                        npy_intp n) {
    constexpr int N = Tr::nout, K = nsrc_of<Tr>::value;
    using in_t = typename Tr::in_t;
    using S = source_of<Tr>;
    bool acc_fixed = true;
    for (int i = 0; i < N; i++) acc_fixed = acc_fixed && astr[i] == 0 && ostr[i] == 0;
    const char *x[K];
    for (int j = 0; j < K; j++) x[j] = src[j];
    if (acc_fixed) {
        // One state: the streams gathered into blocks of elements, so the
        // traits' contiguous-stream algorithm applies.
        acc_of<Tr> acc = load_acc<Tr>(acc_p);
        constexpr npy_intp B = 256;
        if constexpr (has_sources_reduce<Tr>::value) {
            // Contiguous, aligned streams are read in place; the others are
            // gathered, 1024 elements of each at a time, into aligned buffers.
            bool direct = true;
            const S *p[K];
            for (int j = 0; j < K; j++) {
                direct = direct && sstr[j] == (npy_intp)sizeof(S) &&
                         reinterpret_cast<std::uintptr_t>(x[j]) % alignof(S) == 0;
                p[j] = reinterpret_cast<const S *>(x[j]);
            }
            if (direct) {
                acc = Tr::block_reduce_sources(acc, p, n);
            } else if constexpr (has_merge_blocks<Tr>::value) {
                // a tree of block states (log-sum-exp): the same tree over
                // blocks gathered one at a time
                alignas(64) S buf[K][Tr::BLOCK];
                for (int j = 0; j < K; j++) p[j] = buf[j];
                acc = Tr::merge_blocks(acc, n, [&](long long k, long long m) {
                    for (int j = 0; j < K; j++) {
                        const char *q = x[j] + k * sstr[j];
                        for (long long t = 0; t < m; t++, q += sstr[j]) std::memcpy(&buf[j][t], q, sizeof(S));
                    }
                    return Tr::reduce_block_sources(p, m);
                });
            } else {
                constexpr npy_intp BS = 1024;
                alignas(64) S buf[K][BS];
                for (int j = 0; j < K; j++) p[j] = buf[j];
                for (npy_intp k = 0; k < n; k += BS) {
                    const npy_intp m = n - k < BS ? n - k : BS;
                    for (int j = 0; j < K; j++) {
                        const char *q = x[j];
                        if (sstr[j] == (npy_intp)sizeof(S)) {
                            std::memcpy(buf[j], q, m * sizeof(S));
                        } else {
                            for (npy_intp t = 0; t < m; t++, q += sstr[j]) std::memcpy(&buf[j][t], q, sizeof(S));
                        }
                        x[j] += m * sstr[j];
                    }
                    acc = Tr::block_reduce_sources(acc, p, m);
                }
            }
            store_acc<Tr>(acc, out_p);
            return 0;
        }
        in_t buf[B];
        for (npy_intp k = 0; k < n; k += B) {
            const npy_intp m = n - k < B ? n - k : B;
            for (int j = 0; j < K; j++) {
                const char *p = x[j];
                if (sstr[j] == (npy_intp)sizeof(S)) {
                    for (npy_intp t = 0; t < m; t++) std::memcpy(&buf[t].v[j], p + t * sizeof(S), sizeof(S));
                } else {
                    for (npy_intp t = 0; t < m; t++, p += sstr[j]) std::memcpy(&buf[t].v[j], p, sizeof(S));
                }
                x[j] += m * sstr[j];
            }
            acc = reduce_stream<Tr>(acc, buf, m);
        }
        store_acc<Tr>(acc, out_p);
        return 0;
    }
    // Every element has its own accumulator.
    char *a[N], *o[N];
    for (int i = 0; i < N; i++) {
        a[i] = acc_p[i];
        o[i] = out_p[i];
    }
    for (npy_intp k = 0; k < n; k++) {
        store_acc<Tr>(Tr::step(load_acc<Tr>(a), load_sources<Tr>(x)), o);
        for (int j = 0; j < K; j++) x[j] += sstr[j];
        for (int i = 0; i < N; i++) {
            a[i] += astr[i];
            o[i] += ostr[i];
        }
    }
    return 0;
}

template <class Tr>
int reduce_loop_one(char *const data[], npy_intp n, npy_intp const strides[]) {
    constexpr int N = Tr::nout;
    using in_t = typename Tr::in_t;
    const char *x = data[N];
    const npy_intp sx = strides[N];

    bool acc_fixed = true;
    for (int i = 0; i < N; i++) {
        acc_fixed = acc_fixed && strides[i] == 0 && strides[N + 1 + i] == 0;
    }
    if (acc_fixed) {
        acc_of<Tr> acc = load_acc<Tr>(data);
        if (sx == (npy_intp)sizeof(in_t) &&
            reinterpret_cast<std::uintptr_t>(x) % alignof(in_t) == 0) {
            acc = reduce_stream<Tr>(acc, reinterpret_cast<const in_t *>(x), n);
        } else {
            // Strided, reversed or unaligned stream: gather blocks into a
            // contiguous buffer so the same stream algorithm (and its
            // accuracy) applies.
            if constexpr (has_merge_blocks<Tr>::value) {
                in_t buf[Tr::BLOCK];
                acc = Tr::merge_blocks(acc, n, [&](long long k, long long m) {
                    gather(buf, x + k * sx, sx, m);
                    return Tr::reduce_block(buf, m);
                });
                store_acc<Tr>(acc, data + N + 1);
                return 0;
            }
            constexpr npy_intp B = 512;
            in_t buf[B];
            for (npy_intp k = 0; k < n; k += B) {
                const npy_intp m = n - k < B ? n - k : B;
                gather(buf, x, sx, m);
                x += m * sx;
                acc = reduce_stream<Tr>(acc, buf, m);
            }
        }
        store_acc<Tr>(acc, data + N + 1);
        return 0;
    }
    // Row walk: a contiguous row of accumulators (updated in place) walks
    // along a contiguous input row -- what an axis=0 reduction of a C-ordered
    // array produces.  Typed, unit-stride, alias-free loop: the compiler
    // vectorises it when step() is branch-free (min/max, sums).
    using out_t = typename Tr::out_t;
    bool row_walk = sx == (npy_intp)sizeof(in_t) &&
                    reinterpret_cast<std::uintptr_t>(x) % alignof(in_t) == 0;
    for (int i = 0; i < N; i++) {
        row_walk = row_walk && strides[i] == (npy_intp)sizeof(out_t) && data[i] == data[N + 1 + i] &&
                   strides[N + 1 + i] == strides[i] &&
                   reinterpret_cast<std::uintptr_t>(data[i]) % alignof(out_t) == 0;
    }
    if (row_walk) {
        if constexpr (has_row_walk<Tr>::value) {
            out_t *acc[N];
            for (int i = 0; i < N; i++) acc[i] = reinterpret_cast<out_t *>(data[i]);
            if (Tr::row_walk(acc, reinterpret_cast<const in_t *>(x), n)) return 0;
        }
        row_step<Tr>(data, reinterpret_cast<const in_t *>(x), n);
        return 0;
    }
    // General case: every element has its own accumulator.
    char *acc_p[N], *out_p[N];
    for (int i = 0; i < N; i++) {
        acc_p[i] = data[i];
        out_p[i] = data[N + 1 + i];
    }
    for (npy_intp k = 0; k < n; k++, x += sx) {
        store_acc<Tr>(Tr::step(load_acc<Tr>(acc_p), load_in<Tr>(x)), out_p);
        for (int i = 0; i < N; i++) {
            acc_p[i] += strides[i];
            out_p[i] += strides[N + 1 + i];
        }
    }
    return 0;
}

template <class Tr>
int reduce_loop(PyArrayMethod_Context *, char *const data[], npy_intp const dimensions[],
                npy_intp const strides[], NpyAuxData *) {
    const npy_intp n = dimensions[0];
    if (n <= 0) return 0;
    if constexpr (nsrc_of<Tr>::value > 1) {
        constexpr int N = Tr::nout, K = nsrc_of<Tr>::value;
        return reduce_sources_loop<Tr>(data + N, strides + N, data, strides, data + N + K,
                                       strides + N + K, n);
    } else {
        return reduce_loop_one<Tr>(data, n, strides);
    }
}

// NPY_METH_get_reduction_loop (slot 11) for the native path.
template <class Tr>
int get_reduction_loop(PyArrayMethod_Context *, int, int, const npy_intp *,
                       PyArrayMethod_StridedLoop **out_loop, NpyAuxData **out_transferdata,
                       NPY_ARRAYMETHOD_FLAGS *flags) {
    *out_loop = &reduce_loop<Tr>;
    *out_transferdata = nullptr;
    *flags = NPY_METH_NO_FLOATINGPOINT_ERRORS;
    return 0;
}

// NPY_METH_get_multi_reduction_initials (slot 12): 1 = filled, 0 = none.
template <class Tr>
int get_initials(PyArrayMethod_Context *, npy_bool reduction_is_empty, void **initials) {
    acc_of<Tr> a;
    if (!Tr::initials(a, reduction_is_empty != 0)) return 0;
    store_acc<Tr>(a, reinterpret_cast<char *const *>(initials));
    return 1;
}

// Traits may reduce whole row blocks over axis 0 themselves (rows_reduce:
// the moments' column-parallel blocked two-pass); the engine's leading-axes
// path then calls it once instead of one loop call per row.
template <class Tr, class = void>
struct has_rows_reduce : std::false_type {};
template <class Tr>
struct has_rows_reduce<Tr, std::void_t<decltype(&Tr::rows_reduce)>> : std::true_type {};

template <class Tr>
void rows_buffers(char *const *acc, const char *x, npy_intp rows, npy_intp cols) {
    using out_t = typename Tr::out_t;
    out_t *typed[Tr::nout];
    for (int i = 0; i < Tr::nout; i++) typed[i] = reinterpret_cast<out_t *>(acc[i]);
    Tr::rows_reduce(typed, reinterpret_cast<const typename Tr::in_t *>(x), rows, cols, cols);
}
template <class Tr>
constexpr void (*rows_fn())(char *const *, const char *, npy_intp, npy_intp) {
    if constexpr (has_rows_reduce<Tr>::value) {
        return &rows_buffers<Tr>;
    } else {
        return nullptr;
    }
}

// Merge two accumulator buffer sets: a = combine(a, b) (the engine's
// merge of a stream split into chunks, one per thread).
template <class Tr>
void combine_buffers(char *const *a, char *const *b) {
    store_acc<Tr>(Tr::combine(load_acc<Tr>(a), load_acc<Tr>(b)), a);
}

// Traits whose contiguous-stream accuracy rests on a working frame (the
// moments' shift) expose it: frame_t, frame(acc, x, n), to_frame(acc, f),
// from_frame(acc, f), block_reduce_framed(acc, x, n, f), rescaled(acc, f)
// (true, f changed, where a result reduced in f must be redone in the new
// f: the moments' overflow), merge(a, b, err) (a compensated combine, its
// error collected in err) and settle(a, err) (the error folded in).  A stream split
// into chunks is then reduced chunk by chunk inside one frame chosen for
// the whole stream, and the chunks merge there with combine() -- as exactly
// as the stream in one piece (FrameHooks, ufuncs.hpp, type-erase it for
// the engine).  Without a frame the chunks go through the reduction loop
// and merge with combine() directly.
template <class Tr, class = void>
struct has_frame : std::false_type {};
template <class Tr>
struct has_frame<Tr, std::void_t<typename Tr::frame_t>> : std::true_type {};

template <class Tr>
struct framed {
    using F = typename Tr::frame_t;
    static_assert(sizeof(F) <= kFrameBytes, "frame too large");
    static F get(const void *p) {
        F f;
        std::memcpy(&f, p, sizeof(F));
        return f;
    }
    static void choose(char *const *acc, const char *x, npy_intp n, void *frame) {
        const acc_of<Tr> a = load_acc<Tr>(acc);
        const F f = Tr::frame(a, reinterpret_cast<const typename Tr::in_t *>(x), n);
        std::memcpy(frame, &f, sizeof(F));
        store_acc<Tr>(Tr::to_frame(a, f), acc);
    }
    static void enter(char *const *acc, const void *frame) {
        store_acc<Tr>(Tr::to_frame(load_acc<Tr>(acc), get(frame)), acc);
    }
    static void reduce(char *const *acc, const char *x, npy_intp n, const void *frame) {
        store_acc<Tr>(Tr::block_reduce_framed(load_acc<Tr>(acc),
                                              reinterpret_cast<const typename Tr::in_t *>(x), n,
                                              get(frame)),
                      acc);
    }
    static void leave(char *const *acc, const void *frame) {
        store_acc<Tr>(Tr::from_frame(load_acc<Tr>(acc), get(frame)), acc);
    }
    static bool rescale(const char *const *acc, void *frame) {
        F f = get(frame);
        if (!Tr::rescaled(load_acc<Tr>(const_cast<char *const *>(acc)), f)) return false;
        std::memcpy(frame, &f, sizeof(F));
        return true;
    }
    // a = merge(a, b) in the frame, the traits' compensated merge (its
    // running error in `err`, zeroed by the caller), and the error folded
    // into a at the end: chunks merged in order so are as accurate as the
    // blocks of one stream.
    static void merge(char *const *a, char *const *b, void *err) {
        typename Tr::out_t e;
        std::memcpy(&e, err, sizeof(e));
        store_acc<Tr>(Tr::merge(load_acc<Tr>(a), load_acc<Tr>(b), e), a);
        std::memcpy(err, &e, sizeof(e));
    }
    static void settle(char *const *a, const void *err) {
        typename Tr::out_t e;
        std::memcpy(&e, err, sizeof(e));
        store_acc<Tr>(Tr::settle(load_acc<Tr>(a), e), a);
    }
    static constexpr FrameHooks hooks{&choose, &enter, &reduce, &leave, &rescale, &merge, &settle};
};
template <class Tr>
constexpr const FrameHooks *frame_hooks() {
    if constexpr (has_frame<Tr>::value) {
        return &framed<Tr>::hooks;
    } else {
        return nullptr;
    }
}

// Merge loop: out = combine(a, b) elementwise on two sets of partial
// states (numreduce.merge).  Operands: data[0 .. nout) states a,
// data[nout .. 2nout) states b, data[2nout .. 3nout) outputs, every one of
// out_t; any strides (the engine's NpyIter broadcasts and buffers).
template <class Tr>
int merge_loop(PyArrayMethod_Context *, char *const data[], npy_intp const dimensions[],
               npy_intp const strides[], NpyAuxData *) {
    constexpr int N = Tr::nout;
    const npy_intp n = dimensions[0];
    char *a[N], *b[N], *o[N];
    for (int i = 0; i < N; i++) {
        a[i] = data[i];
        b[i] = data[N + i];
        o[i] = data[2 * N + i];
    }
    for (npy_intp k = 0; k < n; k++) {
        store_acc<Tr>(Tr::combine(load_acc<Tr>(a), load_acc<Tr>(b)), o);
        for (int i = 0; i < N; i++) {
            a[i] += strides[i];
            b[i] += strides[N + i];
            o[i] += strides[2 * N + i];
        }
    }
    return 0;
}

// Scan loop (numreduce.accumulate) over the middle axis of a C-contiguous,
// aligned (outer, n, inner) block of in_t: out[k][o, i, j] is the reduction
// of x[o, 0..i, j] -- started, as reduce starts, from the traits' initials
// where it has them, else from the first element (lift) -- stored for every
// i.  The outputs are C-contiguous, aligned (outer, n, inner) blocks of
// out_t.  With inner > 1 the accumulators are the previous output row, and
// the unit-stride row loop vectorises as row_step does.
// One row of scan_block's inner > 1 case: out[k][row + j] for j < count,
// from the previous row's states at out[k][prev + j] (first: from the
// traits' initials where it has them, else lift()), converted first where
// converts_first says so (as row_step).
template <class Tr>
void scan_row(typename Tr::out_t *const *p, npy_intp row, npy_intp prev, npy_intp count,
              const typename Tr::in_t *x, bool first) {
    using out_t = typename Tr::out_t;
    constexpr int N = Tr::nout;
    if constexpr (converts_first<Tr>()) {
        using R = typename real_input<Tr>::type;
        out_t buf[kConvertBlock];
        for (npy_intp k0 = 0; k0 < count; k0 += kConvertBlock) {
            const npy_intp m = count - k0 < kConvertBlock ? count - k0 : kConvertBlock;
            for (npy_intp k = 0; k < m; k++) buf[k] = to_real<out_t>(x[k0 + k]);
            scan_row<R>(p, row + k0, prev + k0, m, buf, first);
        }
    } else {
        acc_of<Tr> init;
        const bool have = Tr::initials(init, false);
        for (npy_intp j = 0; j < count; j++) {
            acc_of<Tr> a;
            if (first) {
                a = have ? Tr::step(init, x[j]) : Tr::lift(x[j]);
            } else {
                for (int i = 0; i < N; i++) a.v[i] = p[i][prev + j];
                a = Tr::step(a, x[j]);
            }
            for (int i = 0; i < N; i++) p[i][row + j] = a.v[i];
        }
    }
}

template <class Tr>
void scan_block(const char *x, char *const *outs, npy_intp outer, npy_intp n, npy_intp inner) {
    using in_t = typename Tr::in_t;
    using out_t = typename Tr::out_t;
    constexpr int N = Tr::nout;
    const in_t *xs = reinterpret_cast<const in_t *>(x);
    out_t *p[N];
    for (int i = 0; i < N; i++) p[i] = reinterpret_cast<out_t *>(outs[i]);
    acc_of<Tr> init;
    const bool have = Tr::initials(init, false);
    auto put = [&](npy_intp idx, const acc_of<Tr> &a) {
        for (int i = 0; i < N; i++) p[i][idx] = a.v[i];
    };
    for (npy_intp o = 0; o < outer && n > 0; o++) {
        const npy_intp base = o * n * inner;
        const in_t *xo = xs + base;
        if (inner == 1) {
            acc_of<Tr> acc = have ? Tr::step(init, xo[0]) : Tr::lift(xo[0]);
            put(base, acc);
            for (npy_intp i = 1; i < n; i++) {
                acc = Tr::step(acc, xo[i]);
                put(base + i, acc);
            }
            continue;
        }
        scan_row<Tr>(p, base, base, inner, xo, true);
        for (npy_intp i = 1; i < n; i++) {
            const npy_intp row = base + i * inner;
            scan_row<Tr>(p, row, row - inner, inner, xo + i * inner, false);
        }
    }
}

// Segment loop (numreduce.reduceat, numreduce.segmented_reduce) over the
// middle axis of a C-contiguous, aligned (outer, n, inner) block of in_t:
// out[k][o, s, j] is the reduction of x[o, starts[s]..stops[s]), j] for
// the nseg segments (0 <= starts[s] <= stops[s] <= n, checked by the
// engine), into C-contiguous, aligned (outer, nseg, inner) blocks of out_t.
// A segment starts, as reduce starts, from a seed -- the traits' initials
// (mode 0, where it has them), or `given` (mode 2: nout pointers to out_t
// values) -- else (no initials) from its first element (lift); mode 1
// (initial=None) starts as mode 0 but has no empty seed;
// an empty segment is its seed (the traits' empty initials in mode 0), and
// without a seed the engine has refused empty segments before any call.
// `mask` (nullable, bool, x's layout) keeps only the elements it marks;
// it comes with a seed only (reduce's rule for `where`).  Unmasked
// segments run the traits' stream algorithm (block_reduce) where inner == 1
// and its row-block algorithm (rows_reduce) or the row walk where inner > 1,
// so a segment is reduced as reduce reduces the slice.  Segments [s0, s1)
// of outer block o only: threads take disjoint ranges of (o, s).
template <class Tr>
void segment_block(const char *x, const npy_bool *mask, char *const *outs, npy_intp outer,
                   npy_intp n, npy_intp inner, const npy_intp *starts, const npy_intp *stops,
                   npy_intp nseg, int mode, const char *const *given, npy_intp t0, npy_intp t1) {
    using in_t = typename Tr::in_t;
    using out_t = typename Tr::out_t;
    constexpr int N = Tr::nout;
    const in_t *xs = reinterpret_cast<const in_t *>(x);
    acc_of<Tr> seed{}, seed_empty{};  // (value-initialized: every path sets what it reads)
    bool have = false;
    if (mode == 0 || mode == 1) {
        // mode 1 (initial=None) starts a segment as mode 0 and the scatter
        // loop do, from the traits' initials where it has them (moments of
        // [NaN] and [inf]: M2 NaN, as np.var; lift() would give 0); the
        // engine has refused empty segments and where= before the call
        have = Tr::initials(seed, false);
        if (have) Tr::initials(seed_empty, true);
    } else if (mode == 2) {
        seed = load_acc<Tr>(const_cast<char *const *>(given));
        seed_empty = seed;
        have = true;
    }
    (void)outer;
    if constexpr (has_rows_stream<Tr>::value) {
        // whole rows from one seed (a reduction along the last axis):
        // task t is row t of the (outer, n) block
        if (inner == 1 && mask == nullptr && nseg == 1 && starts[0] == 0 && stops[0] == n && n > 0 &&
            have && t1 > t0) {
            out_t *row[N];
            for (int i = 0; i < N; i++) row[i] = reinterpret_cast<out_t *>(outs[i]) + t0;
            Tr::rows_stream(seed, xs + t0 * n, t1 - t0, n, row);
            return;
        }
    }
    // task t: outer block o = t / nseg, segment s = t % nseg
    for (npy_intp t = t0, o = t0 / nseg, s = t0 % nseg; t < t1; t++, s = s + 1 == nseg ? (o++, 0) : s + 1) {
        const npy_intp lo = starts[s], hi = stops[s];
        const in_t *xo = xs + o * n * inner;
        const npy_bool *mo = mask == nullptr ? nullptr : mask + o * n * inner;
        out_t *row[N];
        for (int i = 0; i < N; i++) row[i] = reinterpret_cast<out_t *>(outs[i]) + t * inner;
        if (hi <= lo) {  // empty: the seed (the engine guarantees one)
            for (npy_intp j = 0; j < inner; j++)
                for (int i = 0; i < N; i++) row[i][j] = seed_empty.v[i];
            continue;
        }
        if (inner == 1) {
            acc_of<Tr> acc;
            npy_intp k = lo;
            if (have) {
                acc = seed;
            } else {
                acc = Tr::lift(xo[k++]);
            }
            if (mo != nullptr) {
                for (; k < hi; k++) if (mo[k]) acc = Tr::step(acc, xo[k]);
            } else {
                acc = reduce_stream<Tr>(acc, xo + k, hi - k);
            }
            for (int i = 0; i < N; i++) row[i][0] = acc.v[i];
            continue;
        }
        npy_intp k = lo;
        if (have) {
            for (npy_intp j = 0; j < inner; j++)
                for (int i = 0; i < N; i++) row[i][j] = seed.v[i];
        } else {
            for (npy_intp j = 0; j < inner; j++) {
                const acc_of<Tr> a = Tr::lift(xo[k * inner + j]);
                for (int i = 0; i < N; i++) row[i][j] = a.v[i];
            }
            k++;
        }
        if (mo != nullptr) {
            for (; k < hi; k++) {
                for (npy_intp j = 0; j < inner; j++) {
                    if (!mo[k * inner + j]) continue;
                    acc_of<Tr> a;
                    for (int i = 0; i < N; i++) a.v[i] = row[i][j];
                    a = Tr::step(a, xo[k * inner + j]);
                    for (int i = 0; i < N; i++) row[i][j] = a.v[i];
                }
            }
            continue;
        }
        if constexpr (has_rows_reduce<Tr>::value) {
            if (hi > k) Tr::rows_reduce(row, xo + k * inner, hi - k, inner, inner);
        } else {
            char *rp[N];
            for (int i = 0; i < N; i++) rp[i] = reinterpret_cast<char *>(row[i]);
            for (; k < hi; k++) row_step<Tr>(rp, xo + k * inner, inner);
        }
    }
}

// Index-carrying reductions (argminmax) over the rows of a 2-D strided view:
// row r is data + r * srow, its elements step by scol.  Writes the two
// indices per row (-1 where a NaN-skipping row had no candidate).
template <class Tr>
void arg_rows(const char *data, npy_intp nrows, npy_intp ncols, npy_intp srow, npy_intp scol,
              npy_intp *lo, npy_intp *hi) {
    using in_t = typename Tr::in_t;
    // Rows side by side (a reduction over a leading axis): the columns
    // stepped together where the traits have a kernel for them.
    if (nrows > 1 && srow == (npy_intp)sizeof(in_t) && scol % (npy_intp)sizeof(in_t) == 0 &&
        reinterpret_cast<std::uintptr_t>(data) % alignof(in_t) == 0 &&
        Tr::cols_reduce(reinterpret_cast<const in_t *>(data), nrows, ncols, scol / (npy_intp)sizeof(in_t),
                        lo, hi)) {
        return;
    }
    // Contiguous rows shorter than the prefetch distance prefetch the rows
    // ahead of them (simd.hpp's rows_prefetch_ahead).
#if defined(NR_HAVE_HOST_SIMD)
    const npy_intp rbytes = ncols * (npy_intp)sizeof(in_t);
    const npy_intp pf_rows = scol == (npy_intp)sizeof(in_t) ? (npy_intp)simd::rows_prefetch_ahead(rbytes, srow) : 0;
#endif
    for (npy_intp r = 0; r < nrows; r++) {
        const char *row = data + r * srow;
        typename Tr::acc_t acc = Tr::empty();
#if defined(NR_HAVE_HOST_SIMD)
        if (pf_rows > 0 && r + pf_rows < nrows) simd::prefetch_span(row + pf_rows * srow, rbytes);
#endif
        if (scol == (npy_intp)sizeof(in_t) &&
            reinterpret_cast<std::uintptr_t>(row) % alignof(in_t) == 0) {
            acc = Tr::block_reduce(acc, reinterpret_cast<const in_t *>(row), ncols);
        } else if (ncols >= 64) {
            // Strided (or unaligned) rows: gathered a piece at a time into an
            // aligned buffer, each piece summarised there by block_reduce (the
            // vector kernels) and its indices moved to the row's; combine()
            // breaks ties by index, so the first occurrence (the first NaN)
            // still wins, as in the element-by-element walk.
            constexpr npy_intp P = 16384 / sizeof(in_t) > 0 ? 16384 / sizeof(in_t) : 1;
            alignas(64) in_t buf[P];
            for (npy_intp k0 = 0; k0 < ncols; k0 += P) {
                const npy_intp m = ncols - k0 < P ? ncols - k0 : P;
                gather(buf, row + k0 * scol, scol, m);
                typename Tr::acc_t part = Tr::block_reduce(Tr::empty(), buf, m);
                if (part.ilo >= 0) part.ilo += k0;
                if (part.ihi >= 0) part.ihi += k0;
                acc = Tr::combine(acc, part);
            }
        } else {
            for (npy_intp k = 0; k < ncols; k++) acc = Tr::step(acc, load_in<Tr>(row + k * scol), k);
        }
        lo[r] = (npy_intp)acc.ilo;
        hi[r] = (npy_intp)acc.ihi;
    }
}

// The alignment of scatter_block's slots: the power of two at or above a
// state's size, up to a cache line.
template <size_t S>
constexpr size_t slot_align() {
    size_t a = 8;
    while (a < S && a < 64) a *= 2;
    return a;
}

// The stream of the scatter loops, K > 1 sources read in place
// (LoopEntry::scatter_sources): xs[i] is element i, {src[0][i], ...,
// src[K-1][i]} as in_t -- what xs[i] is in a packed stream (a const in_t
// *), so one loop template serves both and a slot sees the same elements
// in the same order either way.
template <class Tr>
struct split_sources {
    static_assert(nsrc_of<Tr>::value > 1, "one source: the stream itself (scatter_block)");
    const source_of<Tr> *src[nsrc_of<Tr>::value];
    typename Tr::in_t operator[](npy_intp i) const {
        typename Tr::in_t s;
        for (int j = 0; j < nsrc_of<Tr>::value; j++) s.v[j] = src[j][i];
        return s;
    }
};

// scatter_block's common case: a 1-d stream of n elements (xs[i]: a
// packed const in_t * or split_sources) into G slots read and written
// through get(g) / put(g, acc).  Once every slot has started (soon, where
// the groups are few next to the stream) the rest of the stream only
// steps, without the seen test.  Returns -1, or the index of the first id
// outside [0, G).
template <class Tr, class Src, class Get, class Put>
inline npy_intp scatter_stream(const Src &xs, const npy_intp *ids, npy_intp n,
                               npy_intp G, unsigned char *seen, const acc_of<Tr> &init, bool have,
                               Get get, Put put) {
    npy_intp i = 0;
    if (seen != nullptr) {
        npy_intp unseen = G;
        for (; i < n && unseen > 0; i++) {
            const npy_intp g = ids[i];
            if ((npy_uintp)g >= (npy_uintp)G) return i;
            const typename Tr::in_t v = xs[i];
            if (!seen[g]) {
                seen[g] = 1;
                unseen--;
                put(g, have ? Tr::step(init, v) : Tr::lift(v));
            } else {
                put(g, Tr::step(get(g), v));
            }
        }
    }
    for (; i < n; i++) {
        const npy_intp g = ids[i];
        if ((npy_uintp)g >= (npy_uintp)G) return i;
        put(g, Tr::step(get(g), xs[i]));
    }
    return -1;
}

// Traits may bring a working slot of their own for scatter streams into
// fresh slots (reduce_by_group): scatter_t with scatter_start() (a slot
// before its first element), scatter_add(w, x) (false: this element needs
// step(); the pass is redone with step()) and scatter_finish(w, acc) (1:
// the slot as a state; 0: no element reached it; -1: redo with step(), e.g.
// non-finite shifted sums).  The moments' shifted sums (traits/moments.hpp:
// no division per element) and plain min/max (traits/minmax.hpp: one
// compare-select each, NaN redone).
template <class Tr, class = void>
struct has_scatter_slot : std::false_type {};
template <class Tr>
struct has_scatter_slot<Tr, std::void_t<typename Tr::scatter_t>> : std::true_type {};
// ... and optionally scatter_run(w, x, n): n contiguous elements into one
// slot, as n scatter_add calls in order (minmax.hpp: a vector kernel, for
// the long runs of sorted ids).
template <class Tr, class = void>
struct has_scatter_run : std::false_type {};
template <class Tr>
struct has_scatter_run<Tr, std::void_t<decltype(Tr::scatter_run(
                               std::declval<typename Tr::scatter_t &>(),
                               std::declval<const typename Tr::in_t *>(), 0LL))>>
    : std::true_type {};

// The L1d (level 1) and L2 (level 2) bytes the scatter loop's choices
// assume: the OS's where there are vector kernels (simd.hpp), else
// simd.hpp's assumed sizes.
inline long long cache_bytes(int level) {
#if defined(NR_HAVE_HOST_SIMD)
    return level == 1 ? simd::l1d_bytes() : simd::l2_bytes();
#else
    return level == 1 ? kAssumedL1dBytes : kAssumedL2Bytes;
#endif
}

// The first j in [0, n) with ids[j] != g, or n (the end of a run of equal
// ids: a vector search where there are vector kernels).
inline npy_intp first_other_id(const npy_intp *ids, npy_intp n, npy_intp g) {
#if defined(NR_HAVE_HOST_SIMD)
    return (npy_intp)simd::find_eq<npy_intp, true>(ids, n, g);
#else
    npy_intp j = 0;
    while (j < n && ids[j] == g) j++;
    return j;
#endif
}

// The traits' working slots of K (1..4) rows that share their n ids, into
// fresh slots, in one pass over the ids: each id is read once and its
// group's K slots updated, side by side (K minmax slots of doubles: one
// cache line).  Every slot sees its row's elements in order through
// scatter_add, so a row's result is the same whatever K.  Rows whose slots
// all finish are written (row r's slot g at p[k][r * pstride + g], and
// seen[r][g] set where an element reached it) and their done[r] set; the
// others are left untouched for the caller.  Returns -1, or the index of
// the first id outside [0, G) (nothing written); -2: no memory.  A row
// xs[r] is a packed const in_t * or split_sources (scatter_stream).
template <class Tr, int K, class Src>
npy_intp scatter_slots_rows(const Src *xs, const npy_intp *ids, npy_intp n, npy_intp G,
                            typename Tr::out_t *const *p, npy_intp pstride,
                            unsigned char *const *seen, bool *done) {
    using W = typename Tr::scatter_t;
    struct alignas(slot_align<sizeof(W)>()) Slot {
        W w;
    };
    // a group's K slots: aligned so that they span as few cache lines as
    // they can (K minmax slots of doubles: one)
    struct alignas(slot_align<sizeof(Slot) * K>()) Group {
        Slot s[K];
    };
    Group *w = new (std::nothrow) Group[(size_t)G];
    if (w == nullptr) return -2;
    for (npy_intp g = 0; g < G; g++) {
        for (int r = 0; r < K; r++) w[g].s[r].w = Tr::scatter_start();
    }
    bool ok[K];
    Src x[K];
    for (int r = 0; r < K; r++) {
        ok[r] = true;
        x[r] = xs[r];
    }
    // The group PF elements ahead is prefetched (its slots' cache lines)
    // for several rows (4 rows of moments of 1e7 doubles into 1e4 groups:
    // 17.2 -> 13.8 ms per row) and for one row's slots of more than 16
    // bytes (the moments': their longer chains per element keep fewer slot
    // loads in flight; 1-d: 26 -> 24.5 ms); one row of minmax slots gained
    // nothing (Zen 4; on an Intel SPR class core 5% at 1e4 and 3e4 groups,
    // 15% lost at 1e5).  Not where the slots fit in half the L1d: lines
    // already there only cost the prefetch's instructions (Intel SPR class,
    // 1e7 float64 into 100 and 500 groups: group_meanvar 25.0-26.3 ms
    // without it, 27.7-30.4 with; into 1e4, 26.3-26.8 with, 28.4-28.8
    // without; group_minmax into 100: 19.6-19.8 against 24.7-25.3).
    const long long l1d = cache_bytes(1);
    const npy_intp PF = (K > 1 || sizeof(W) > 16) && (long long)sizeof(Group) * G > l1d / 2 ? 16 : 0;
    // The loop over random ids takes four at a time (by4) where the slots
    // are past half the L1d and within half the L2.  1e7 float64 into
    // random groups, group_minmax, Intel SPR class (48 KiB L1d, 2 MiB L2),
    // one thread, against the one-at-a-time loop: 1e4 groups 18.1-20.2 ->
    // 17.3-18.0 ms (an add per element into the same slots, the bound:
    // 14.5-15), 3e4 22.9-23.1 -> 21.3-21.6, 5e4 23.9-24.7 -> 22.3-23.1;
    // at 1e5 (1.6 MB of slots) 36.0-41.4 against 37.1-44.4, none gained.
    const long long slot_bytes = (long long)sizeof(Group) * G;
    const bool by4 = slot_bytes > l1d / 2 && slot_bytes <= cache_bytes(2) / 2;
    // Runs of equal ids (sorted keys, resampled time) chain every element
    // of a run through its slot's store and reload.  A block whose ids
    // mostly repeat their predecessor is therefore run with the current
    // group's slots held in registers, written back where the id changes;
    // the other blocks update the slots in memory (where ids change at
    // random, the held group's compare mispredicts).  A block's first S ids
    // choose its mode.  Where the traits have scatter_run (a vector kernel)
    // and the rows are packed arrays, a run whose id is still there RUN ids
    // on goes at once: its end found by the vector search (simd::find_eq's
    // NE), its elements through scatter_run.  Every mode hands every slot
    // its elements in order, so the bits are the same.  1e7 float64 into
    // 1e4 groups (Zen 4): sorted ids minmax 30 -> 11.6 ms, meanvar 36 -> 22
    // ms, held in registers.  Intel SPR class, one thread, minmax: the runs
    // through the kernel 23.7 -> 14.1-14.6 ms (into 1e5 groups 25.7 ->
    // 17.2; into 1e6 and 3e6, runs of 10 and 3, the same as held).
    constexpr npy_intp B = 1024, S = 64;
    constexpr npy_intp RUN =
        has_scatter_run<Tr>::value && std::is_same<Src, const typename Tr::in_t *>::value ? 16 : 0;
    npy_intp i = 0;
    while (i < n) {
        const npy_intp e = n - i < B ? n : i + B;
        npy_intp eq = 0;
        for (npy_intp j = i + 1; j < (e - i < S ? e : i + S); j++) eq += ids[j] == ids[j - 1];
        if (4 * eq > 3 * S) {
            npy_intp cg = -1;  // (no group held yet)
            Group cur{};
            for (; i < e; i++) {
                const npy_intp g = ids[i];
                if (g != cg) {
                    if ((npy_uintp)g >= (npy_uintp)G) break;
                    if (cg >= 0) w[cg] = cur;
                    cg = g;
                    cur = w[g];
                    if constexpr (RUN > 0) {
                        if (i + RUN < n && ids[i + RUN] == g) {
                            // a long run (its id still there RUN ahead):
                            // all of it at once (it may end past e)
                            const npy_intp j = i + 1 + first_other_id(ids + i + 1, n - i - 1, g);
                            for (int r = 0; r < K; r++) {
                                W t = cur.s[r].w;  // (cur's address untaken: registers)
                                ok[r] &= Tr::scatter_run(t, x[r] + i, j - i);
                                cur.s[r].w = t;
                            }
                            i = j - 1;
                            continue;
                        }
                    }
                }
                for (int r = 0; r < K; r++) ok[r] &= Tr::scatter_add(cur.s[r].w, x[r][i]);
            }
            if (cg >= 0) w[cg] = cur;
        } else {
            const npy_intp epf = PF > 0 && e > n - PF ? (n - PF > i ? n - PF : i) : e;
            for (; PF > 0 && i < epf; i++) {
                const npy_intp g = ids[i];
                if ((npy_uintp)g >= (npy_uintp)G) break;
                const npy_uintp ga = (npy_uintp)ids[i + PF];
                const char *pa = reinterpret_cast<const char *>(w + (ga < (npy_uintp)G ? ga : 0));
                NR_PREFETCH(pa);
                if constexpr (K > 1 && sizeof(Group) > 64) NR_PREFETCH(pa + 64);
                Slot *wg = w[g].s;
                for (int r = 0; r < K; r++) ok[r] &= Tr::scatter_add(wg[r].w, x[r][i]);
            }
            if (PF > 0 && i < epf) break;  // a bad id
            // by4: four ids at a time, one branch for their bounds (a bad
            // id among them: the loop below takes them one by one), the
            // elements in order.
            for (; by4 && i + 4 <= e; i += 4) {
                const npy_intp g0 = ids[i], g1 = ids[i + 1], g2 = ids[i + 2], g3 = ids[i + 3];
                if (((npy_uintp)g0 >= (npy_uintp)G) | ((npy_uintp)g1 >= (npy_uintp)G) |
                    ((npy_uintp)g2 >= (npy_uintp)G) | ((npy_uintp)g3 >= (npy_uintp)G)) {
                    break;
                }
                const npy_intp gs[4] = {g0, g1, g2, g3};
                for (int k = 0; k < 4; k++) {
                    Slot *wg = w[gs[k]].s;
                    for (int r = 0; r < K; r++) ok[r] &= Tr::scatter_add(wg[r].w, x[r][i + k]);
                }
            }
            for (; i < e; i++) {
                const npy_intp g = ids[i];
                if ((npy_uintp)g >= (npy_uintp)G) break;
                Slot *wg = w[g].s;
                for (int r = 0; r < K; r++) ok[r] &= Tr::scatter_add(wg[r].w, x[r][i]);
            }
        }
        if (i < e) break;  // a bad id
    }
    if (i < n) {
        delete[] w;
        return i;
    }
    for (int r = 0; r < K; r++) {
        for (npy_intp g = 0; ok[r] && g < G; g++) {
            acc_of<Tr> a{};
            ok[r] = Tr::scatter_finish(w[g].s[r].w, a) >= 0;
        }
        done[r] = ok[r];
        if (!ok[r]) continue;
        for (npy_intp g = 0; g < G; g++) {
            acc_of<Tr> a{};  // (scatter_finish writes it where it returns 1)
            if (Tr::scatter_finish(w[g].s[r].w, a) == 0) continue;
            for (int k = 0; k < Tr::nout; k++) p[k][r * pstride + g] = a.v[k];
            seen[r][g] = 1;
        }
    }
    delete[] w;
    return -1;
}

// scatter_block's 1-d stream into fresh slots (seen given) through the
// traits' working slots: scatter_slots_rows' one-row case.  Every slot an
// element reached is written and marked seen (the others are left to
// scatter_block's empty initials).  Returns -1, the index of the first id
// outside [0, G), or -2: an element or slot needs step(), or no memory
// (nothing written, seen untouched).
template <class Tr, class Src>
npy_intp scatter_slots(const Src &xs, const npy_intp *ids, npy_intp n, npy_intp G,
                       typename Tr::out_t *const *p, unsigned char *seen) {
    bool done = false;
    const npy_intp bad = scatter_slots_rows<Tr, 1>(&xs, ids, n, G, p, G, &seen, &done);
    return bad == -1 && !done ? -2 : bad;
}

// Scatter loop (numreduce.reduce_by_group, numreduce.at): accumulator slots
// indexed by group id.  x is a C-contiguous, aligned (outer, n, inner) block
// of in_t, ids n group ids, accs nout C-contiguous, aligned (outer, G,
// inner) blocks of out_t, mask nullptr or an (outer, n, inner) block of
// npy_bool (elements to include).  Element (o, i, j) is absorbed into slot
// (o, ids[i], j) through step(), in order, so repeated ids accumulate.
//   seen == nullptr: the slots hold states already (a given initial, or the
//     caller's accumulators for at()) and only step.
//   seen, an (outer, G, inner) block of zeros: a slot's first element starts
//     it as reduce starts -- step(initials) where the traits have initials,
//     else lift() -- and sets seen; after the pass, slots never seen get the
//     traits' empty initials (left as they are where there are none: the
//     caller raises on them).
// Returns -1, or the index i of the first id outside [0, G) (the pass stops
// there: callers pass temporaries, or ids they checked).
// scatter_block reads the stream x (K sources packed: sources<T, K>
// records), scatter_sources_block (LoopEntry::scatter_sources) K sources
// in place, xs[j] a C-contiguous, aligned (outer, n, inner) block of T:
// one loop (scatter_from), whose element (o, i, j) is the same in_t
// either way, so the results are bitwise the same.
template <class Tr, class Src>
npy_intp scatter_from(const Src &xs, const npy_intp *ids, const npy_bool *mask, npy_intp outer,
                      npy_intp n, npy_intp inner, npy_intp G, char *const *accs,
                      unsigned char *seen) {
    using in_t = typename Tr::in_t;
    using out_t = typename Tr::out_t;
    constexpr int N = Tr::nout;
    out_t *p[N];
    for (int i = 0; i < N; i++) p[i] = reinterpret_cast<out_t *>(accs[i]);
    acc_of<Tr> init{};  // (read only when have)
    const bool have = Tr::initials(init, false);
    auto get = [&](npy_intp s) {
        acc_of<Tr> a;
        for (int i = 0; i < N; i++) a.v[i] = p[i][s];
        return a;
    };
    auto put = [&](npy_intp s, const acc_of<Tr> &a) {
        for (int i = 0; i < N; i++) p[i][s] = a.v[i];
    };
    const npy_intp slots = outer * G * inner;
    if (outer == 1 && inner == 1 && mask == nullptr) {
        // The common case (a 1-d stream into 1-d slots): one id per element.
        // Where the slots are no more than the stream, they are worked on in
        // one interleaved buffer (a slot's nout values side by side: one
        // cache line per element instead of nout), copied in and out.
        // A slot is padded to a power of two (a 24-byte state takes 32), so
        // that none straddles two cache lines.
        struct alignas(slot_align<sizeof(acc_of<Tr>)>()) Slot {
            acc_of<Tr> a;
        };
        npy_intp bad = -2;
        if constexpr (has_scatter_slot<Tr>::value) {
            // -2: a slot or element needs step() (NaN, overflow): redo below
            if (seen != nullptr && G > 0 && G <= n) bad = scatter_slots<Tr>(xs, ids, n, G, p, seen);
        }
        Slot *w = bad == -2 && G > 0 && G <= n ? new (std::nothrow) Slot[(size_t)G] : nullptr;
        if (bad != -2) {
            // done by the traits' working slots
        } else if (w != nullptr) {
            if (seen == nullptr) {
                for (npy_intp g = 0; g < G; g++) w[g].a = get(g);
            }
            bad = scatter_stream<Tr>(
                xs, ids, n, G, seen, init, have, [&](npy_intp g) { return w[g].a; },
                [&](npy_intp g, const acc_of<Tr> &a) { w[g].a = a; });
            for (npy_intp g = 0; g < G; g++) {
                if (seen == nullptr || seen[g]) put(g, w[g].a);
            }
            delete[] w;
        } else {
            bad = scatter_stream<Tr>(xs, ids, n, G, seen, init, have, get, put);
        }
        if (bad >= 0) return bad;
        outer = 0;  // done; the empties are filled below
    }
    for (npy_intp o = 0; o < outer; o++) {
        const npy_intp xbase = o * n * inner, sbase = o * G * inner;
        for (npy_intp i = 0; i < n; i++) {
            const npy_intp g = ids[i];
            if ((npy_uintp)g >= (npy_uintp)G) return i;
            const npy_intp xrow = xbase + i * inner, srow = sbase + g * inner;
            for (npy_intp j = 0; j < inner; j++) {
                if (mask != nullptr && !mask[xrow + j]) continue;
                const in_t v = xs[xrow + j];
                const npy_intp s = srow + j;
                if (seen == nullptr) {
                    put(s, Tr::step(get(s), v));
                } else if (seen[s]) {
                    put(s, Tr::step(get(s), v));
                } else {
                    seen[s] = 1;
                    put(s, have ? Tr::step(init, v) : Tr::lift(v));
                }
            }
        }
    }
    if (seen != nullptr && Tr::initials(init, true)) {
        for (npy_intp s = 0; s < slots; s++) {
            if (!seen[s]) put(s, init);
        }
    }
    return -1;
}

template <class Tr>
npy_intp scatter_block(const char *x, const npy_intp *ids, const npy_bool *mask, npy_intp outer,
                       npy_intp n, npy_intp inner, npy_intp G, char *const *accs,
                       unsigned char *seen) {
    return scatter_from<Tr>(reinterpret_cast<const typename Tr::in_t *>(x), ids, mask, outer, n,
                            inner, G, accs, seen);
}

template <class Tr>
npy_intp scatter_sources_block(const char *const *xs, const npy_intp *ids, const npy_bool *mask,
                               npy_intp outer, npy_intp n, npy_intp inner, npy_intp G,
                               char *const *accs, unsigned char *seen) {
    split_sources<Tr> src;
    for (int j = 0; j < nsrc_of<Tr>::value; j++) {
        src.src[j] = reinterpret_cast<const source_of<Tr> *>(xs[j]);
    }
    return scatter_from<Tr>(src, ids, mask, outer, n, inner, G, accs, seen);
}

// LoopEntry::scatter_sources of the traits (make_loop): the loop above for
// K > 1 sources, nullptr for one (whose scatter reads its stream in place
// already; no second instance of its loop is made).
template <class Tr>
constexpr decltype(LoopEntry::scatter_sources) scatter_sources_of() {
    if constexpr (nsrc_of<Tr>::value > 1) {
        return &scatter_sources_block<Tr>;
    } else {
        return nullptr;
    }
}

// The grouped reduction of R rows that share their n ids, into fresh
// slots: x holds R rows of n elements `xstride` elements apart (the
// engine's pieces of a C-contiguous (R, N) block), accs nout C-contiguous
// (R, G) blocks of out_t, seen an (R, G) block of zeros.  Row r's result
// is bitwise that of scatter_block(x + r * xstride, ids, nullptr, 1, n, 1,
// G, accs of row r, seen of row r) -- which it is, for traits without
// working slots, for more groups than elements, and for a row whose slots
// need step() (NaN, overflow) -- but the rows' working slots are filled in
// one pass over the ids (engine_scatter.cpp; numreduce's own loops only,
// no part of LoopEntry).  Returns -1, or the index of the first id
// outside [0, G).
template <class Tr>
npy_intp scatter_rows(const char *x, npy_intp xstride, const npy_intp *ids, npy_intp R,
                      npy_intp n, npy_intp G, char *const *accs, unsigned char *seen) {
    using in_t = typename Tr::in_t;
    using out_t = typename Tr::out_t;
    constexpr int N = Tr::nout;
    const in_t *xs = reinterpret_cast<const in_t *>(x);
    bool done[4] = {false, false, false, false};
    npy_intp r0 = 0;
    if constexpr (has_scatter_slot<Tr>::value) {
        if (G > 0 && G <= n) {
            out_t *p[N];
            for (; r0 + 2 <= R;) {
                const int k = R - r0 >= 4 ? 4 : int(R - r0);
                const in_t *xr[4];
                unsigned char *sr[4];
                for (int r = 0; r < k; r++) {
                    xr[r] = xs + (r0 + r) * xstride;
                    sr[r] = seen + (r0 + r) * G;
                }
                for (int j = 0; j < N; j++) p[j] = reinterpret_cast<out_t *>(accs[j]) + r0 * G;
                for (int r = 0; r < 4; r++) done[r] = false;
                npy_intp bad = -2;
                if (k == 4) {
                    bad = scatter_slots_rows<Tr, 4>(xr, ids, n, G, p, G, sr, done);
                } else if (k == 3) {
                    bad = scatter_slots_rows<Tr, 3>(xr, ids, n, G, p, G, sr, done);
                } else {
                    bad = scatter_slots_rows<Tr, 2>(xr, ids, n, G, p, G, sr, done);
                }
                if (bad >= 0) return bad;
                // rows not done (no memory, or a slot needs step()): one by
                // one; the done rows' slots no element reached get the
                // empty initials, as scatter_block gives them
                acc_of<Tr> init;
                const bool empties = Tr::initials(init, true);
                for (int r = 0; r < k; r++) {
                    if (done[r]) {
                        for (npy_intp g = 0; empties && g < G; g++) {
                            if (sr[r][g]) continue;
                            for (int j = 0; j < N; j++) p[j][r * G + g] = init.v[j];
                        }
                        continue;
                    }
                    char *acc[N];
                    for (int j = 0; j < N; j++) acc[j] = accs[j] + (size_t)((r0 + r) * G) * sizeof(out_t);
                    const npy_intp b = scatter_block<Tr>(reinterpret_cast<const char *>(xr[r]), ids,
                                                         nullptr, 1, n, 1, G, acc, sr[r]);
                    if (b >= 0) return b;
                }
                r0 += k;
            }
        }
    }
    for (; r0 < R; r0++) {
        char *acc[N];
        for (int j = 0; j < N; j++) acc[j] = accs[j] + (size_t)(r0 * G) * sizeof(out_t);
        const npy_intp b = scatter_block<Tr>(reinterpret_cast<const char *>(xs + r0 * xstride), ids,
                                             nullptr, 1, n, 1, G, acc, seen + r0 * G);
        if (b >= 0) return b;
    }
    return -1;
}

}  // namespace nr
