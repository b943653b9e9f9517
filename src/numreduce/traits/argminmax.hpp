// (argmin, argmax) in one pass -- an index-carrying accumulator, which NumPy's
// ufunc.reduce cannot express, so it runs on the engine only.  Semantics of
// np.argmin / np.argmax: the first occurrence wins ties; the first NaN (NaT)
// wins both.  With SKIP_NAN (np.nanargmin / np.nanargmax) NaNs are ignored
// and an all-NaN slice leaves index -1 (the caller raises).
#pragma once
#include "common.hpp"
#include "../simd.hpp"  // host-only vector kernels (nothing under NVRTC)

namespace nr {

template <class T, bool SKIP_NAN = false>
struct ArgMinMax {
    using in_t = T;
    struct acc_t {
        T lo, hi;
        long long ilo, ihi;  // -1: nothing seen yet
    };

    NR_HD static acc_t empty() { return {T(), T(), -1, -1}; }
    // lift(x, i): the "transform(idx, val)" step of an indexed reduction.
    NR_HD static acc_t lift(in_t x, long long i) {
        if (SKIP_NAN && is_nan(x)) return empty();
        return {x, x, i, i};
    }
    // Is (v, i) strictly better than the current (cur, icur) for the minimum
    // (HI = false) or the maximum?  Indices break ties so that combine() is
    // order-independent.
    template <bool HI>
    NR_HD static bool better(T v, long long i, T cur, long long icur) {
        if (icur < 0) return i >= 0;
        if (i < 0) return false;
        if (!SKIP_NAN) {
            if (is_nan(cur)) return is_nan(v) && i < icur;
            if (is_nan(v)) return true;
        }
        const bool v_first = HI ? ge(v, cur) : le(v, cur);
        const bool cur_first = HI ? ge(cur, v) : le(cur, v);
        if (v_first && cur_first) return i < icur;
        return v_first;
    }
    NR_HD static acc_t combine(acc_t a, acc_t b) {
        acc_t r = a;
        if (better<false>(b.lo, b.ilo, a.lo, a.ilo)) {
            r.lo = b.lo;
            r.ilo = b.ilo;
        }
        if (better<true>(b.hi, b.ihi, a.hi, a.ihi)) {
            r.hi = b.hi;
            r.ihi = b.ihi;
        }
        return r;
    }
    NR_HD static acc_t step(acc_t a, in_t x, long long i) { return combine(a, lift(x, i)); }

    // A contiguous row x[0..n), indices counted from 0.  On the host, 32- and
    // 64-bit integers and floats run the vector kernel of simd.hpp in chunks
    // whose indices fit the lanes' integer width; the lanes merge with
    // combine(), whose index tie-break makes the order irrelevant.
    NR_HD static acc_t block_reduce(acc_t acc, const in_t *x, long long n) {
        long long k = 0;
#if defined(NR_HAVE_HOST_SIMD)
        if constexpr (plain_arith<T>::value && (sizeof(T) == 4 || sizeof(T) == 8)) {
            using I = typename int_of_size<sizeof(T)>::type;
            constexpr int L = 2 * (32 / (int)sizeof(T));
            constexpr long long CHUNK = sizeof(T) == 4 ? (1LL << 30) : (1LL << 62);
            T lo[L], hi[L];
            I ilo[L], ihi[L], inan[L];
            while (k < n) {
                const long long m = n - k < CHUNK ? n - k : CHUNK;
                const long long done = simd::argminmax<T, I, SKIP_NAN>(x + k, m, lo, ilo, hi, ihi, inan);
                if (done == 0) break;
                for (int j = 0; j < L; j++) {
                    const bool empty_lo = SKIP_NAN && is_nan(lo[j]);
                    const bool empty_hi = SKIP_NAN && is_nan(hi[j]);
                    acc = combine(acc, acc_t{lo[j], hi[j], empty_lo ? -1 : k + ilo[j],
                                             empty_hi ? -1 : k + ihi[j]});
                    if (!SKIP_NAN && inan[j] >= 0) acc = combine(acc, lift(x[k + inan[j]], k + inan[j]));
                }
                k += done;
            }
        }
#endif
        for (; k < n; k++) acc = step(acc, x[k], k);
        return acc;
    }
};

}  // namespace nr
