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

namespace nr {
namespace simd {

// min / max / "a NaN seen" of x[0..n): lanes of 32-byte vectors, two
// vectors per step.  The selects are exactly vector min/max instructions;
// NaNs are remembered in their own lanes, so the caller can reproduce
// np.minimum/np.maximum (NaN wins) from (lo, hi, nan) with scalar code.
// With SKIP (np.fmin/np.fmax) a NaN lane value is replaced by the next
// number instead, so a lane is NaN only if all its elements were.
// Returns false (touching nothing) when n is too short for two vectors.
#define NR_MINMAX_KERNEL(NAME, ATTR)                                                  \
    template <class T, bool SKIP>                                                     \
    ATTR bool NAME(const T *x, long long n, T *lo_out, T *hi_out, T *nan_out,         \
                   long long *done) {                                                 \
        constexpr int W = 32 / (int)sizeof(T);                                        \
        typedef T V __attribute__((vector_size(32)));                                 \
        if (n < 2 * W) return false;                                                  \
        V lo0, lo1, hi0, hi1, na0, na1;                                               \
        std::memcpy(&lo0, x, 32);                                                     \
        std::memcpy(&lo1, x + W, 32);                                                 \
        hi0 = na0 = lo0;                                                              \
        hi1 = na1 = lo1;                                                              \
        long long k = 2 * W;                                                          \
        for (; k + 2 * W <= n; k += 2 * W) {                                          \
            V v0, v1;                                                                 \
            std::memcpy(&v0, x + k, 32);                                              \
            std::memcpy(&v1, x + k + W, 32);                                          \
            if (SKIP) {                                                               \
                lo0 = (v0 < lo0) | (lo0 != lo0) ? v0 : lo0;                           \
                lo1 = (v1 < lo1) | (lo1 != lo1) ? v1 : lo1;                           \
                hi0 = (v0 > hi0) | (hi0 != hi0) ? v0 : hi0;                           \
                hi1 = (v1 > hi1) | (hi1 != hi1) ? v1 : hi1;                           \
            } else {                                                                  \
                lo0 = v0 < lo0 ? v0 : lo0;                                            \
                lo1 = v1 < lo1 ? v1 : lo1;                                            \
                hi0 = v0 > hi0 ? v0 : hi0;                                            \
                hi1 = v1 > hi1 ? v1 : hi1;                                            \
                na0 = v0 != v0 ? v0 : na0;                                            \
                na1 = v1 != v1 ? v1 : na1;                                            \
            }                                                                         \
        }                                                                             \
        for (int j = 0; j < W; j++) {                                                 \
            lo_out[2 * j] = lo0[j];                                                   \
            lo_out[2 * j + 1] = lo1[j];                                               \
            hi_out[2 * j] = hi0[j];                                                   \
            hi_out[2 * j + 1] = hi1[j];                                               \
            nan_out[2 * j] = na0[j];                                                  \
            nan_out[2 * j + 1] = na1[j];                                              \
        }                                                                             \
        *done = k;                                                                    \
        return true;                                                                  \
    }

NR_MINMAX_KERNEL(minmax_base, )
NR_MINMAX_KERNEL(minmax_avx2, __attribute__((target("avx2"))))
#undef NR_MINMAX_KERNEL

inline bool cpu_has_avx2() {
    static const bool has = __builtin_cpu_supports("avx2");
    return has;
}

// Lane count of the kernels' outputs for T (2 vectors of 32 bytes).
template <class T>
constexpr int minmax_lanes() {
    return 2 * (32 / (int)sizeof(T));
}

template <class T, bool SKIP>
inline bool minmax(const T *x, long long n, T *lo, T *hi, T *nan, long long *done) {
    return cpu_has_avx2() ? minmax_avx2<T, SKIP>(x, n, lo, hi, nan, done)
                          : minmax_base<T, SKIP>(x, n, lo, hi, nan, done);
}

}  // namespace simd
}  // namespace nr
#endif
