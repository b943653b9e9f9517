// Shared scalar vocabulary for the reduction traits.
//
// Everything in src/numreduce/traits/ is plain C++17 arithmetic with no
// library includes (but <cmath> on the host: long double's exp, and
// std::fma where GCC's builtins are not there, MSVC), so the same headers
// compile on the host (the NumPy extension) and under NVRTC (the CuPy
// mirror).  Host/device qualifiers are hidden behind NR_HD.  Host-only
// members (the row-block kernels, the SIMD block pass of argminmax) are
// declared here only under NR_HOST_TRAITS and defined in ../host_traits.hpp;
// the SIMD fast paths inside block_reduce are compiled only under
// NR_HAVE_HOST_SIMD, which ../simd.hpp defines (host translation units
// include it, through loops.hpp, before the traits).  The headers are
// installed as package data (numreduce/include/numreduce/traits) and
// tests/test_nvrtc.py compiles them with NVRTC's default options.
// tests/test_msvc_sources.py checks that no GNU-only construct reaches MSVC.
#pragma once

#if !defined(__CUDACC__) && !defined(__CUDACC_RTC__) && !defined(__GNUC__) && !defined(__clang__)
#include <cmath>  // std::fma (fused_mul_add): the host compilers without GCC's builtins (MSVC)
#endif

#if defined(__CUDACC__) || defined(__CUDACC_RTC__)
#define NR_HD __host__ __device__ __forceinline__
#else
#define NR_HD inline
#endif
// The same, always inlined on the host: the scalar TwoSum and its helpers
// inside the SIMD kernels' tails and the row-block loops, which the compiler
// otherwise calls out of line from target-specific code, and exp64_nonpos_v
// (expfn.hpp), whose vector instantiations must compile into their SIMD
// variant's code.  The one definition: GCC/Clang (clang-cl included) the
// attribute, MSVC __forceinline, any other compiler plain inline.
#if defined(__CUDACC__) || defined(__CUDACC_RTC__)
#define NR_HD_ALWAYS NR_HD
#elif defined(__GNUC__) || defined(__clang__)
#define NR_HD_ALWAYS inline __attribute__((always_inline))
#elif defined(_MSC_VER)
#define NR_HD_ALWAYS __forceinline
#else
#define NR_HD_ALWAYS inline
#endif

namespace nr {

// ---------------------------------------------------------------------------
// Storage types that need their own ordering / NaN rules.
// ---------------------------------------------------------------------------

// IEEE binary16, stored as its bit pattern (numpy.float16).
struct half16 {
    unsigned short bits;
};

// numpy.complex64/128/clongdouble: two adjacent reals.
template <class F>
struct cplx {
    F re, im;
};

// numpy.datetime64 / numpy.timedelta64: int64 ticks; INT64_MIN is NaT.
struct datetime64 {
    long long v;
};
struct timedelta64 {
    long long v;
};

constexpr long long NAT = -9223372036854775807LL - 1;

NR_HD float half_to_float(half16 h) {
    unsigned int sign = (unsigned int)(h.bits & 0x8000u) << 16;
    unsigned int exp = (h.bits >> 10) & 0x1fu;
    unsigned int man = h.bits & 0x3ffu;
    unsigned int f;
    if (exp == 0) {
        if (man == 0) {
            f = sign;
        } else {  // subnormal half -> normal float
            int e = -1;
            do {
                ++e;
                man <<= 1;
            } while ((man & 0x400u) == 0);
            f = sign | ((unsigned int)(127 - 15 - e) << 23) | ((man & 0x3ffu) << 13);
        }
    } else if (exp == 0x1f) {
        f = sign | 0x7f800000u | (man << 13);
    } else {
        f = sign | ((exp + 127 - 15) << 23) | (man << 13);
    }
    union {
        unsigned int u;
        float x;
    } cv;
    cv.u = f;
    return cv.x;
}

template <class A, class B>
struct same_type {
    static constexpr bool value = false;
};
template <class A>
struct same_type<A, A> {
    static constexpr bool value = true;
};

// Built-in integer and IEEE floating types: the ones whose min/max the
// compiler maps onto vector instructions (no <type_traits> under NVRTC).
template <class T>
struct plain_arith {
    static constexpr bool value = false;
};
#define NR_PLAIN(T)                          \
    template <>                              \
    struct plain_arith<T> {                  \
        static constexpr bool value = true;  \
    };
NR_PLAIN(signed char)
NR_PLAIN(unsigned char)
NR_PLAIN(short)
NR_PLAIN(unsigned short)
NR_PLAIN(int)
NR_PLAIN(unsigned int)
NR_PLAIN(long)
NR_PLAIN(unsigned long)
NR_PLAIN(long long)
NR_PLAIN(unsigned long long)
NR_PLAIN(float)
NR_PLAIN(double)
#undef NR_PLAIN

// ---------------------------------------------------------------------------
// NumPy's total "propagating" order: is_nan(x) marks the values that win
// every min/max (NaN for floats and complex, NaT for datetimes); le/ge is
// the ordinary order on everything else (lexicographic for complex, as
// NumPy's complex minimum/maximum).
// ---------------------------------------------------------------------------

template <class T>
NR_HD bool is_nan(T x) {
    return x != x;  // false for integers and bool
}
NR_HD bool is_nan(half16 x) { return (x.bits & 0x7c00u) == 0x7c00u && (x.bits & 0x3ffu) != 0; }
template <class F>
NR_HD bool is_nan(cplx<F> x) {
    return x.re != x.re || x.im != x.im;
}
NR_HD bool is_nan(datetime64 x) { return x.v == NAT; }
NR_HD bool is_nan(timedelta64 x) { return x.v == NAT; }

template <class T>
NR_HD bool le(T a, T b) {
    return a <= b;
}
template <class T>
NR_HD bool ge(T a, T b) {
    return a >= b;
}
NR_HD bool le(half16 a, half16 b) { return half_to_float(a) <= half_to_float(b); }
NR_HD bool ge(half16 a, half16 b) { return half_to_float(a) >= half_to_float(b); }
// Like IEEE comparisons, le/ge are false whenever b is NaN/NaT, so that
// nan_min/nan_max below let a NaN in the second argument win too.
template <class F>
NR_HD bool le(cplx<F> a, cplx<F> b) {
    return !is_nan(b) && (a.re < b.re || (a.re == b.re && a.im <= b.im));
}
template <class F>
NR_HD bool ge(cplx<F> a, cplx<F> b) {
    return !is_nan(b) && (a.re > b.re || (a.re == b.re && a.im >= b.im));
}
NR_HD bool le(datetime64 a, datetime64 b) { return b.v != NAT && a.v <= b.v; }
NR_HD bool ge(datetime64 a, datetime64 b) { return b.v != NAT && a.v >= b.v; }
NR_HD bool le(timedelta64 a, timedelta64 b) { return b.v != NAT && a.v <= b.v; }
NR_HD bool ge(timedelta64 a, timedelta64 b) { return b.v != NAT && a.v >= b.v; }

// np.minimum / np.maximum on one pair: a NaN (NaT) in either argument wins,
// the first one if both are.
// (Bitwise | on the bools: no short-circuit branch, so loops over these
// if-convert and vectorise.)
template <class T>
NR_HD T nan_min(T a, T b) {
    const bool na = is_nan(a), c = le(a, b);
    return (na | c) ? a : b;
}
template <class T>
NR_HD T nan_max(T a, T b) {
    const bool na = is_nan(a), c = ge(a, b);
    return (na | c) ? a : b;
}

}  // namespace nr

namespace nr {

// Any stored element as a real number of the accumulator type A (float16 is
// widened through float; integers and bool convert exactly where A can).
template <class A, class T>
NR_HD A to_real(T x) {
    return static_cast<A>(x);
}
template <class A>
NR_HD A to_real(half16 x) {
    return static_cast<A>(half_to_float(x));
}

template <class A>
NR_HD A neg_inf() {
    return -A(1) / A(0);
}

template <class A>
NR_HD_ALWAYS bool is_finite(A x) {
    return x - x == A(0);  // false for inf and NaN
}

template <class A>
NR_HD_ALWAYS A nr_abs(A x) {
    return x < 0 ? -x : x;
}

// Knuth's TwoSum: s = fl(a + b) and the exact rounding error e, a + b = s + e
// exactly, for any magnitudes (branch-free, so it vectorises).  Where s is
// finite but s - a overflowed (b near the largest finite value, a of the
// other sign: e would be NaN), Dekker's FastTwoSum with the larger magnitude
// first gives the exact error without overflow (a select, no branch).
template <class A>
NR_HD_ALWAYS void two_sum(A a, A b, A &s, A &e) {
    s = a + b;
    A bp = s - a;
    e = (a - (s - bp)) + (b - bp);
    const A fast = nr_abs(a) >= nr_abs(b) ? b - (s - a) : a - (s - b);
    const bool fs = is_finite(s), fe = is_finite(e);
    e = (fs & !fe) ? fast : e;
}

// One element of a reduction of K sources (weighted moments: x and its
// weight; co-moments: x and y; ...): the K broadcast source values at one
// position, all of the loop's source type T.  A K-source traits struct has
// `static constexpr int nsrc = K;` and `using in_t = sources<T, K>;`; its
// lift(in_t) / step(acc, in_t) read v[0] .. v[K-1].  An array of sources is
// the K source arrays interleaved, i.e. a C-contiguous (..., K) array of T.
template <class T, int K>
struct sources {
    T v[K];
};

// a * b + c rounded once (fused multiply-add): the instruction on GPUs and
// in the host's vector clones, libm's (exact) fma otherwise.  GCC/Clang's
// builtins and std::fma (MSVC and other host compilers) are the same
// correctly rounded operation.
NR_HD_ALWAYS float fused_mul_add(float a, float b, float c) {
#if defined(__CUDACC__) || defined(__CUDACC_RTC__)
    return fmaf(a, b, c);
#elif defined(__GNUC__) || defined(__clang__)
    return __builtin_fmaf(a, b, c);
#else
    return std::fma(a, b, c);
#endif
}
NR_HD_ALWAYS double fused_mul_add(double a, double b, double c) {
#if defined(__CUDACC__) || defined(__CUDACC_RTC__)
    return fma(a, b, c);
#elif defined(__GNUC__) || defined(__clang__)
    return __builtin_fma(a, b, c);
#else
    return std::fma(a, b, c);
#endif
}
#if !defined(__CUDACC__) && !defined(__CUDACC_RTC__)
NR_HD_ALWAYS long double fused_mul_add(long double a, long double b, long double c) {
#if defined(__GNUC__) || defined(__clang__)
    return __builtin_fmal(a, b, c);
#else
    return std::fma(a, b, c);
#endif
}
#endif

// fl(x x), rounded on its own: never contracted (-ffp-contract=fast) into
// an FMA with an add that follows it, so that a sum of squares sees exactly
// the values np.square(x) holds (SquareSum, twosum.hpp).  On the host the
// product is pinned in a register; on GPUs the round-to-nearest multiply
// intrinsic, which the compiler never fuses.
#if !defined(__CUDACC__) && !defined(__CUDACC_RTC__)
#if (defined(__GNUC__) || defined(__clang__)) && (defined(__x86_64__) || defined(__i386__))
#define NR_OPAQUE_FP(v) __asm__("" : "+x"(v))
#elif (defined(__GNUC__) || defined(__clang__)) && defined(__aarch64__)
#define NR_OPAQUE_FP(v) __asm__("" : "+w"(v))
#else  // MSVC and the rest: a volatile round trip
#define NR_OPAQUE_FP(v)         \
    do {                        \
        volatile auto t_ = (v); \
        (v) = t_;               \
    } while (0)
#endif
#endif
template <class A>  // float or double
NR_HD_ALWAYS A rounded_square(A x) {
#if defined(__CUDACC__) || defined(__CUDACC_RTC__)
    if constexpr (sizeof(A) == 4) {
        return __fmul_rn(x, x);
    } else {
        return __dmul_rn(x, x);
    }
#else
    A p = x * x;
    NR_OPAQUE_FP(p);
    return p;
#endif
}

// Element maps of a reduction's input (TwoSum's third parameter): id_map
// reduces the elements as they are, square_map their rounded squares
// (rounded_square).  simd.hpp has their vector forms (vmap_<variant>).
struct id_map {
    template <class A>
    NR_HD_ALWAYS static A one(A a) {
        return a;
    }
};
struct square_map {
    template <class A>
    NR_HD_ALWAYS static A one(A a) {
        return rounded_square(a);
    }
};

// acc merged with the states of the blocks [k, k + len) of a stream of n
// elements, block(k, m) giving one block's state (m <= len elements): a
// pairwise tree in index order (a binary-counter stack of partial states,
// Tr::combine), so the merge error grows like log2(n / len).  The traits
// with a tree of block states (merge_blocks) share it.
template <class Tr, class F>
NR_HD typename Tr::acc_t merge_pairwise(typename Tr::acc_t acc, long long n, long long len,
                                        F block) {
    using acc_t = typename Tr::acc_t;
    acc_t stack[64];
    int level[64];
    int top = 0;
    for (long long k = 0; k < n; k += len) {
        acc_t cur = block(k, (n - k) < len ? (n - k) : len);
        int lv = 0;
        while (top > 0 && level[top - 1] == lv) {
            cur = Tr::combine(stack[--top], cur);
            lv++;
        }
        stack[top] = cur;
        level[top++] = lv;
    }
    if (top == 0) return acc;
    acc_t r = stack[--top];
    while (top > 0) r = Tr::combine(stack[--top], r);
    return Tr::combine(acc, r);
}

// acc followed by the n elements of x, one step each (Tr::step): the
// fallback of the blocked stream algorithms (inf/NaN data, overflow).
template <class Tr>
NR_HD typename Tr::acc_t step_each(typename Tr::acc_t a, const typename Tr::in_t *x,
                                   long long n) {
    for (long long k = 0; k < n; k++) a = Tr::step(a, x[k]);
    return a;
}

// TwoProduct: p = fl(a b) and its exact rounding error e, a b = p + e
// exactly (where the product neither overflows nor underflows).  With a
// hardware FMA (GPUs, host code built for it, aarch64 always) e is one fused
// multiply-add; without one (the host's baseline x86-64 build, where fma is a slow libm
// call) Dekker's product of Veltkamp halves, exact as well, with the libm
// fma only where a split would overflow (|a| or |b| >= 2**995, 2**115 for
// float).
template <class A>
struct dekker;
template <>
struct dekker<double> {
    static constexpr double split = 134217729.0;  // 2**27 + 1
    static constexpr double limit = 0x1p995;
};
template <>
struct dekker<float> {
    static constexpr float split = 4097.0f;  // 2**12 + 1
    static constexpr float limit = 0x1p115f;
};
template <class A>
NR_HD_ALWAYS void two_prod(A a, A b, A &p, A &e) {
    p = a * b;
#if defined(__CUDACC__) || defined(__CUDACC_RTC__) || defined(__FMA__) || defined(__ARM_FEATURE_FMA)
    // (on an FMA target -ffp-contract=fast would also fuse Dekker's split:
    // GCC's aarch64 code computed a C - (a C - a) = a, exact only by luck)
    e = fused_mul_add(a, b, -p);
#else
    if constexpr (same_type<A, long double>::value) {
        e = fused_mul_add(a, b, -p);  // long double (binary64 under MSVC): libm's fmal
    } else {
        const A ca = dekker<A>::split * a, cb = dekker<A>::split * b;
        const A ah = ca - (ca - a), al = a - ah;
        const A bh = cb - (cb - b), bl = b - bh;
        e = ((ah * bh - p) + ah * bl + al * bh) + al * bl;
        if (!(a < dekker<A>::limit && a > -dekker<A>::limit && b < dekker<A>::limit &&
              b > -dekker<A>::limit)) {
            e = fused_mul_add(a, b, -p);  // huge (or NaN) factors: exact by libm
        }
    }
#endif
}

}  // namespace nr
