// (argmin, argmax) in one pass -- an index-carrying accumulator, which NumPy's
// ufunc.reduce cannot express, so it runs on the engine only.  Semantics of
// np.argmin / np.argmax: the first occurrence wins ties; the first NaN (NaT)
// wins both.  With SKIP_NAN (np.nanargmin / np.nanargmax) NaNs are ignored
// and an all-NaN slice leaves index -1 (the caller raises).
#pragma once
#include "common.hpp"
#include "minmax.hpp"  // the block summaries of the host fast path (MinMaxOf)

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

    // A contiguous row x[0..n), indices counted from 0.  On the host,
    // integers and IEEE floats (rows of 64 or more) take two steps: blocks of
    // up to BLOCK elements are
    // summarised by the min/max vector kernel (minmax.hpp's block_reduce: no
    // index lanes, so it runs at the speed of a fused min/max), keeping for
    // each side the block where the running value last strictly improved;
    // then that block alone is searched for the first element equal to the
    // winner.  First-occurrence semantics follow: an equal value in a later
    // block never moves the winning block, and the search takes the first
    // equal element (-0.0 == 0.0, as np.argmin's comparisons treat them).  A
    // NaN block (propagating) ends the scan: the first NaN wins both.
    // float16 takes the same two steps (minmax.hpp's float16 kernel, and
    // searches on the bits: a value's only bit pattern, either zero, the
    // first NaN).  Short rows (simd::argminmax_short() elements or fewer)
    // of 4- and 8-byte types take one pass instead, of value and index lanes
    // (simd.hpp's argminmax kernel), unless they hold a NaN (then the
    // blocked pass; with SKIP_NAN the one pass skips NaNs itself).
    static constexpr long long BLOCK = 4096;
    NR_HD static acc_t block_reduce(acc_t acc, const in_t *x, long long n) {
#if defined(NR_HOST_TRAITS) && defined(NR_HAVE_HOST_SIMD)
        if constexpr (plain_arith<T>::value && (sizeof(T) == 4 || sizeof(T) == 8)) {
            long long il, ih;
            // (nanargminmax: NaNs skipped in the lanes, floats only)
            constexpr bool skip = SKIP_NAN && (same_type<T, float>::value || same_type<T, double>::value);
            if (n >= 16 && n <= simd::argminmax_short() && simd::argminmax<T, skip>(x, n, &il, &ih)) {
                return combine(acc, acc_t{x[il], x[ih], il, ih});
            }
        }
        if constexpr ((plain_arith<T>::value && sizeof(T) <= 8) || same_type<T, half16>::value) {
            if (n >= 64) return combine(acc, blocked(x, n));
        }
#endif
        for (long long k = 0; k < n; k++) acc = step(acc, x[k], k);
        return acc;
    }

#if defined(NR_HOST_TRAITS)
    // The reduction over a leading axis in place: n outputs side by side,
    // output j's elements x[j + k * stride] for k < len (len >= 1).  Where
    // the host has a kernel for it (4- and 8-byte integers and IEEE floats,
    // simd.hpp's argminmax_cols: the columns stepped in lanes, the rows read
    // in order), writes the indices and returns true; else false, and
    // loops.hpp's arg_rows takes the rows one at a time (a strided row
    // gathered a piece at a time for block_reduce).
    template <class O>
    static bool cols_reduce(const in_t *x, long long n, long long len, long long stride, O *ilo,
                            O *ihi);
#endif

  private:
#if defined(NR_HOST_TRAITS) && defined(NR_HAVE_HOST_SIMD)
    // Host only (defined in ../host_traits.hpp): the block pass for n >= 1
    // elements, and the first element equal to v in the block at k.
    static acc_t blocked(const in_t *x, long long n);
    static long long first_equal(const in_t *x, long long n, long long k, T v);
#endif
};

}  // namespace nr
