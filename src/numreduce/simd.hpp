// Host-only SIMD kernels for the hottest contiguous-stream loops, written
// with GCC/Clang vector extensions and compiled twice -- for the x86-64
// baseline (SSE2) and for AVX2 -- with the variant picked at run time
// (__builtin_cpu_supports), so one wheel is fast on every x86-64 CPU.  Other
// compilers / architectures fall back to the scalar traits loop.  Traits
// headers call these only under NR_HAVE_HOST_SIMD; the CuPy mirror never
// sees this file.
#pragma once

#if !defined(__CUDACC__) && !defined(__CUDACC_RTC__) && (defined(__GNUC__) || defined(__clang__)) && \
    (defined(__x86_64__) || defined(__i386__))
#define NR_HAVE_HOST_SIMD 1
#include <cstring>

// Generic (traits-driven) loops compiled for AVX2 and the baseline, picked
// at load time by the dynamic loader (GCC's target_clones, an ifunc).
#if defined(__GNUC__) && !defined(__clang__) && defined(__linux__)
#define NR_TARGET_CLONES __attribute__((target_clones("avx2", "default")))
#endif
#endif
#ifndef NR_TARGET_CLONES
#define NR_TARGET_CLONES
#endif

#if defined(NR_HAVE_HOST_SIMD)

namespace nr {
namespace simd {

// Vectors in flight per loop step of the min/max kernel.
constexpr int MINMAX_UNROLL = 4;

// min / max / "a NaN seen" of x[0..n): lanes of 32-byte vectors, two
// vectors per step.  The selects are exactly vector min/max instructions;
// NaNs are remembered in their own lanes, so the caller can reproduce
// np.minimum/np.maximum (NaN wins) from (lo, hi, nan) with scalar code.
// With SKIP (np.fmin/np.fmax) lanes start at +inf/-inf where the first
// element is NaN and the third output holds, per lane, some non-NaN element
// seen (NaN: the lane saw only NaNs): the caller takes lo/hi of lanes that
// saw a number.  No select depends on the previous iteration's NaN test.
// Returns false (touching nothing) when n is too short for two vectors.
#define NR_MINMAX_KERNEL(NAME, ATTR)                                                  \
    template <class T, bool SKIP>                                                     \
    ATTR bool NAME(const T *x, long long n, T *lo_out, T *hi_out, T *nan_out,         \
                   long long *done) {                                                 \
        constexpr int W = 32 / (int)sizeof(T), U = MINMAX_UNROLL;                     \
        typedef T V __attribute__((vector_size(32)));                                 \
        if (n < U * W) return false;                                                  \
        V lo[U], hi[U], na[U];                                                        \
        for (int u = 0; u < U; u++) {                                                 \
            std::memcpy(&lo[u], x + u * W, 32);                                       \
            hi[u] = na[u] = lo[u];                                                    \
            if constexpr (SKIP && (T)0.5 != (T)0) { /* floats: NaN lanes to +-inf */ \
                const V inf = (V){} + (T)__builtin_huge_val();                        \
                lo[u] = lo[u] != lo[u] ? inf : lo[u];                                 \
                hi[u] = hi[u] != hi[u] ? -inf : hi[u];                                \
            }                                                                         \
        }                                                                             \
        /* the main loop from the first 32-byte boundary: min/max are */              \
        /* idempotent, so the head [0, U*W) seen above may overlap it */              \
        const unsigned mis = (unsigned)((unsigned long long)x % 32);                  \
        long long k = mis == 0 || mis % sizeof(T) ? U * W : (32 - mis) / sizeof(T);   \
        for (; k + U * W <= n; k += U * W) {                                          \
            for (int u = 0; u < U; u++) {                                             \
                V v;                                                                  \
                std::memcpy(&v, x + k + u * W, 32);                                   \
                lo[u] = v < lo[u] ? v : lo[u];                                        \
                hi[u] = v > hi[u] ? v : hi[u];                                        \
                /* propagating: remember a NaN; skipping: remember a number */        \
                if (SKIP) na[u] = v == v ? v : na[u];                                 \
                else na[u] = v != v ? v : na[u];                                      \
            }                                                                         \
        }                                                                             \
        /* fold the U vectors into one (NaN information stays in na) */           \
        for (int u = 1; u < U; u++) {                                                 \
            lo[0] = lo[u] < lo[0] ? lo[u] : lo[0];                                    \
            hi[0] = hi[u] > hi[0] ? hi[u] : hi[0];                                    \
            if (SKIP) na[0] = na[u] == na[u] ? na[u] : na[0];                         \
            else na[0] = na[u] != na[u] ? na[u] : na[0];                              \
        }                                                                             \
        for (int j = 0; j < W; j++) {                                                 \
            lo_out[j] = lo[0][j];                                                     \
            hi_out[j] = hi[0][j];                                                     \
            nan_out[j] = na[0][j];                                                    \
        }                                                                             \
        *done = k;                                                                    \
        return true;                                                                  \
    }

NR_MINMAX_KERNEL(minmax_base, )
NR_MINMAX_KERNEL(minmax_avx2, __attribute__((target("avx2,fma"))))
#undef NR_MINMAX_KERNEL

// Column tiles of a row-major block reduced over its rows (axis 0),
// NaN-propagating: the accumulators lo/hi (one per column, holding the
// start values) stay in registers while all rows stream past, TILE = 4
// vectors of columns at a time.  Returns the number of leading columns done
// (a multiple of the tile); the caller finishes the rest.
#define NR_COLS_KERNEL(NAME, ATTR)                                                    \
    template <class T>                                                                \
    ATTR long long NAME(T *lo_acc, T *hi_acc, const T *x, long long rows, long long cols, \
                        long long stride) {                                           \
        constexpr int W = 32 / (int)sizeof(T), U = 4;                                 \
        typedef T V __attribute__((vector_size(32)));                                 \
        long long c0 = 0;                                                             \
        for (; c0 + U * W <= cols; c0 += U * W) {                                     \
            V lo[U], hi[U], na[U];                                                    \
            for (int u = 0; u < U; u++) {                                             \
                std::memcpy(&lo[u], lo_acc + c0 + u * W, 32);                         \
                std::memcpy(&hi[u], hi_acc + c0 + u * W, 32);                         \
                na[u] = lo[u];                                                        \
            }                                                                         \
            for (long long r = 0; r < rows; r++) {                                    \
                const T *xr = x + r * stride + c0;                                    \
                for (int u = 0; u < U; u++) {                                         \
                    V v;                                                              \
                    std::memcpy(&v, xr + u * W, 32);                                  \
                    lo[u] = v < lo[u] ? v : lo[u];                                    \
                    hi[u] = v > hi[u] ? v : hi[u];                                    \
                    na[u] = v != v ? v : na[u];                                       \
                }                                                                     \
            }                                                                         \
            for (int u = 0; u < U; u++) {                                             \
                lo[u] = na[u] != na[u] ? na[u] : lo[u];                               \
                hi[u] = na[u] != na[u] ? na[u] : hi[u];                               \
                std::memcpy(lo_acc + c0 + u * W, &lo[u], 32);                         \
                std::memcpy(hi_acc + c0 + u * W, &hi[u], 32);                         \
            }                                                                         \
        }                                                                             \
        return c0;                                                                    \
    }

NR_COLS_KERNEL(minmax_cols_base, )
NR_COLS_KERNEL(minmax_cols_avx2, __attribute__((target("avx2,fma"))))
#undef NR_COLS_KERNEL

inline bool cpu_has_avx2() {
    static const bool has = __builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma");
    return has;
}

// Lane count of the kernel's outputs for T (one 32-byte vector).
template <class T>
constexpr int minmax_lanes() {
    return 32 / (int)sizeof(T);
}

template <class T>
inline long long minmax_cols(T *lo, T *hi, const T *x, long long rows, long long cols,
                             long long stride) {
    return cpu_has_avx2() ? minmax_cols_avx2<T>(lo, hi, x, rows, cols, stride)
                          : minmax_cols_base<T>(lo, hi, x, rows, cols, stride);
}

template <class T, bool SKIP>
inline bool minmax(const T *x, long long n, T *lo, T *hi, T *nan, long long *done) {
    return cpu_has_avx2() ? minmax_avx2<T, SKIP>(x, n, lo, hi, nan, done)
                          : minmax_base<T, SKIP>(x, n, lo, hi, nan, done);
}

}  // namespace simd
}  // namespace nr
#endif

#if defined(NR_HAVE_HOST_SIMD)
#include "traits/expfn.hpp"

namespace nr {
namespace simd {

typedef double vd4 __attribute__((vector_size(32)));
typedef long long vi4 __attribute__((vector_size(32)));

// Kernels over float64 blocks, lane-parallel sums (4 doubles x 2 vectors),
// the lanes added in a fixed order at the end.  Each returns the number of
// elements it covered (a multiple of 8); the caller finishes the tail.
#define NR_F64_KERNELS(SUFFIX, ATTR)                                                    \
    /* sum(x - K) */                                                                    \
    ATTR inline long long shifted_sum_##SUFFIX(const double *x, long long n, double K,  \
                                               double *out) {                           \
        vd4 a0 = {}, a1 = {};                                                           \
        long long k = 0;                                                                \
        for (; k + 8 <= n; k += 8) {                                                    \
            vd4 v0, v1;                                                                 \
            std::memcpy(&v0, x + k, 32);                                                \
            std::memcpy(&v1, x + k + 4, 32);                                            \
            a0 += v0 - K;                                                               \
            a1 += v1 - K;                                                               \
        }                                                                               \
        vd4 a = a0 + a1;                                                                \
        *out = (a[0] + a[1]) + (a[2] + a[3]);                                           \
        return k;                                                                       \
    }                                                                                   \
    /* sum(d) and sum(d*d), d = (x - K) - m; the squares' lanes folded into */        \
    /* a total every 64 elements (8 deep: one large square cannot swallow */            \
    /* the roundings of many small ones) */                                            \
    ATTR inline long long dev_sums_##SUFFIX(const double *x, long long n, double K,     \
                                            double m, double *s1, double *s2) {         \
        vd4 a0 = {}, a1 = {}, q0 = {}, q1 = {}, qt = {};                                \
        long long k = 0;                                                                \
        for (; k + 8 <= n; k += 8) {                                                    \
            vd4 v0, v1;                                                                 \
            std::memcpy(&v0, x + k, 32);                                                \
            std::memcpy(&v1, x + k + 4, 32);                                            \
            vd4 d0 = (v0 - K) - m, d1 = (v1 - K) - m;                                   \
            a0 += d0;                                                                   \
            a1 += d1;                                                                   \
            q0 += d0 * d0;                                                              \
            q1 += d1 * d1;                                                              \
            if (((k + 8) & 63) == 0) {                                                  \
                qt += q0 + q1;                                                          \
                q0 = q1 = vd4{};                                                        \
            }                                                                           \
        }                                                                               \
        vd4 a = a0 + a1, q = qt + (q0 + q1);                                            \
        *s1 = (a[0] + a[1]) + (a[2] + a[3]);                                            \
        *s2 = (q[0] + q[1]) + (q[2] + q[3]);                                            \
        return k;                                                                       \
    }                                                                                   \
    /* max(x) ignoring NaN (NaN only if all are) */                                     \
    ATTR inline long long max_##SUFFIX(const double *x, long long n, double *out) {     \
        if (n < 8) return 0;                                                            \
        vd4 m0, m1;                                                                     \
        std::memcpy(&m0, x, 32);                                                        \
        std::memcpy(&m1, x + 4, 32);                                                    \
        long long k = 8;                                                                \
        for (; k + 8 <= n; k += 8) {                                                    \
            vd4 v0, v1;                                                                 \
            std::memcpy(&v0, x + k, 32);                                                \
            std::memcpy(&v1, x + k + 4, 32);                                            \
            m0 = (v0 > m0) | (m0 != m0) ? v0 : m0;                                      \
            m1 = (v1 > m1) | (m1 != m1) ? v1 : m1;                                      \
        }                                                                               \
        double r = m0[0];                                                               \
        for (int j = 0; j < 4; j++) {                                                   \
            r = (m0[j] > r) | (r != r) ? m0[j] : r;                                     \
            r = (m1[j] > r) | (r != r) ? m1[j] : r;                                     \
        }                                                                               \
        *out = r;                                                                       \
        return k;                                                                       \
    }                                                                                   \
    /* sum((x == mx) ? 1 : exp(x - mx)); four independent vectors per step */ \
    /* hide the exp polynomial's latency */                                     \
    ATTR inline long long sum_exp_##SUFFIX(const double *x, long long n, double mx,     \
                                           double *out) {                               \
        vd4 a[4] = {};                                                                  \
        long long k = 0;                                                                \
        for (; k + 16 <= n; k += 16) {                                                  \
            for (int u = 0; u < 4; u++) {                                               \
                vd4 v;                                                                  \
                std::memcpy(&v, x + k + 4 * u, 32);                                     \
                vd4 e = exp_nonpos_v<vd4, vi4>(v - mx);                                 \
                a[u] += v == mx ? vd4{} + 1.0 : e;                                      \
            }                                                                           \
        }                                                                               \
        vd4 t = (a[0] + a[1]) + (a[2] + a[3]);                                          \
        *out = (t[0] + t[1]) + (t[2] + t[3]);                                           \
        return k;                                                                       \
    }                                                                                   \
    /* compensated sum: lanes of (s, c) with TwoSum; c only while s finite */           \
    ATTR inline long long two_sum_##SUFFIX(const double *x, long long n, double *s_out, \
                                           double *c_out) {                             \
        vd4 s0 = vd4{} * -1.0, s1 = s0, c0 = {}, c1 = {}; /* -0.0: sum([-0.0]) = -0.0 */  \
        long long k = 0;                                                                \
        for (; k + 8 <= n; k += 8) {                                                    \
            vd4 v0, v1;                                                                 \
            std::memcpy(&v0, x + k, 32);                                                \
            std::memcpy(&v1, x + k + 4, 32);                                            \
            vd4 t0 = s0 + v0, t1 = s1 + v1;                                             \
            vd4 b0 = t0 - s0, b1 = t1 - s1;                                             \
            vd4 e0 = (s0 - (t0 - b0)) + (v0 - b0);                                      \
            vd4 e1 = (s1 - (t1 - b1)) + (v1 - b1);                                      \
            c0 = (t0 - t0 == 0.0) ? c0 + e0 : c0;                                       \
            c1 = (t1 - t1 == 0.0) ? c1 + e1 : c1;                                       \
            s0 = t0;                                                                    \
            s1 = t1;                                                                    \
        }                                                                               \
        for (int j = 0; j < 4; j++) {                                                   \
            s_out[2 * j] = s0[j];                                                       \
            s_out[2 * j + 1] = s1[j];                                                   \
            c_out[2 * j] = c0[j];                                                       \
            c_out[2 * j + 1] = c1[j];                                                   \
        }                                                                               \
        return k;                                                                       \
    }

NR_F64_KERNELS(base, )
NR_F64_KERNELS(avx2, __attribute__((target("avx2,fma"))))
#undef NR_F64_KERNELS

#define NR_DISPATCH(NAME, ARGS, CALL) \
    inline long long NAME ARGS { return cpu_has_avx2() ? NAME##_avx2 CALL : NAME##_base CALL; }
NR_DISPATCH(shifted_sum, (const double *x, long long n, double K, double *o), (x, n, K, o))
NR_DISPATCH(dev_sums, (const double *x, long long n, double K, double m, double *a, double *b),
            (x, n, K, m, a, b))
NR_DISPATCH(max, (const double *x, long long n, double *o), (x, n, o))
NR_DISPATCH(sum_exp, (const double *x, long long n, double mx, double *o), (x, n, mx, o))
NR_DISPATCH(two_sum, (const double *x, long long n, double *s, double *c), (x, n, s, c))
#undef NR_DISPATCH

}  // namespace simd
}  // namespace nr
#endif
