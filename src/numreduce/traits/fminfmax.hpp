// (fmin, fmax) in one pass: NaN/NaT-*skipping* like np.fmin/np.fmax (a NaN
// results only where every element is NaN).  Same concept as minmax.hpp.
#pragma once
#include "common.hpp"
#include "../simd.hpp"  // host-only vector kernels (nothing under NVRTC)

namespace nr {

template <class T>
NR_HD T skip_min(T a, T b) {
    return (is_nan(b) | (!is_nan(a) & le(a, b))) ? a : b;
}
template <class T>
NR_HD T skip_max(T a, T b) {
    return (is_nan(b) | (!is_nan(a) & ge(a, b))) ? a : b;
}

template <class T>
struct FMinFMax {
    using in_t = T;
    using out_t = T;
    static constexpr int nout = 2;
    struct acc_t {
        out_t v[2];
    };

    NR_HD static acc_t lift(in_t x) { return {{x, x}}; }
    NR_HD static acc_t step(acc_t a, in_t x) { return {{skip_min(a.v[0], x), skip_max(a.v[1], x)}}; }
    NR_HD static acc_t combine(acc_t a, acc_t b) {
        return {{skip_min(a.v[0], b.v[0]), skip_max(a.v[1], b.v[1])}};
    }
    // No identity, like np.fmin / np.fmax.
    NR_HD static bool initials(acc_t &, bool) { return false; }

    // Contiguous stream: the NaN-skipping vector kernel of simd.hpp on the
    // host (lanes merged with combine()), in-order steps elsewhere.
    NR_HD static acc_t block_reduce(acc_t acc, const in_t *x, long long n) {
        long long k = 0;
#if defined(NR_HAVE_HOST_SIMD)
        if constexpr (plain_arith<T>::value && sizeof(T) <= 8) {
            constexpr int L = simd::minmax_lanes<T>();
            T lo[L], hi[L], seen[L];
            if (simd::minmax<T, true>(x, n, lo, hi, seen, &k)) {
                for (int j = 0; j < L; j++) {
                    if (!is_nan(seen[j])) acc = combine(acc, acc_t{{lo[j], hi[j]}});
                    else acc = combine(acc, lift(seen[j]));  // an all-NaN lane
                }
            }
        }
#endif
        for (; k < n; k++) acc = step(acc, x[k]);
        return acc;
    }
};

}  // namespace nr
