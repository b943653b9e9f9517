// (min, max) in one pass, NaN/NaT-propagating like np.minimum/np.maximum.
//
// The traits concept every reduction follows (see loops.hpp for its users):
//   in_t, out_t, nout       element type streamed in; type of each output
//   acc_t                   nout values of out_t, laid out as the outputs
//   lift(x)                 one element as an accumulator
//   step(acc, x)            acc combined with one more element
//   combine(a, b)           merge two partial accumulators
//   initials(acc, empty)    per-output start values; false if there are none
//                           (then the reduction starts from the first element)
// and optionally
//   block_reduce(acc, x, n) a contiguous stream (vector kernels, blocking)
//   rows_reduce(...)        row blocks over axis 0 (moments.hpp)
//   frame_t, frame, ...     a working frame for chunks of one stream (moments.hpp)
#pragma once
#include "common.hpp"

namespace nr {

// The pair op of an order reduction: NaN-propagating (np.minimum /
// np.maximum, SKIP_NAN = false) or NaN-skipping (np.fmin / np.fmax,
// fminfmax.hpp).  Bitwise | and & keep the selects branch-free.
template <bool SKIP_NAN>
struct order_ops {
    template <class T>
    NR_HD static T lo(T a, T b) {
        return nan_min(a, b);
    }
    template <class T>
    NR_HD static T hi(T a, T b) {
        return nan_max(a, b);
    }
};
template <>
struct order_ops<true> {
    template <class T>
    NR_HD static T lo(T a, T b) {
        const bool na = is_nan(a), nb = is_nan(b), c = le(a, b);
        return (nb | (!na & c)) ? a : b;  // branch-free: bitwise on the flags
    }
    template <class T>
    NR_HD static T hi(T a, T b) {
        const bool na = is_nan(a), nb = is_nan(b), c = ge(a, b);
        return (nb | (!na & c)) ? a : b;  // branch-free: bitwise on the flags
    }
};

// The vector kernel's lanes (simd::minmax: 16 bytes of them) folded into
// one (min, max) in lane order, ties to the first.
template <class E>
NR_HD void fold_lanes(const E *lo, const E *hi, int lanes, E &l, E &h) {
    l = lo[0];
    h = hi[0];
    for (int j = 1; j < lanes; j++) {
        l = lo[j] < l ? lo[j] : l;
        h = hi[j] > h ? hi[j] : h;
    }
}

// The scatter loop's working slot for plain integers and floats
// (loops.hpp scatter_slots): a slot starts at (top, bottom) of the type and
// takes one compare-select per side, v <= lo ? v : lo (ties take the new
// element, as np.minimum.at / np.maximum.at do: their signed zeros, where
// step() and combine() keep the first of equal values); a NaN
// element makes scatter_add report false and the pass is redone with
// step() (NaN propagation or skipping, payloads, as np.minimum.at /
// np.fmin.at).  A slot still at (top, bottom) saw no element.
template <class T, bool PLAIN = plain_arith<T>::value>
struct minmax_scatter {};
template <class T>
struct minmax_scatter<T, true> {
    struct scatter_t {
        T lo, hi;
    };
    NR_HD static T top() {
        if constexpr (T(0.5) != T(0)) {
            return -neg_inf<T>();
        } else if constexpr (T(-1) > T(0)) {
            return T(~T(0));
        } else {
            return T((1ULL << (8 * sizeof(T) - 1)) - 1);
        }
    }
    NR_HD static T bottom() {
        if constexpr (T(0.5) != T(0)) {
            return neg_inf<T>();
        } else if constexpr (T(-1) > T(0)) {
            return T(0);
        } else {
            return T(-top() - 1);
        }
    }
    NR_HD static scatter_t scatter_start() { return {top(), bottom()}; }
    NR_HD static bool scatter_add(scatter_t &w, T v) {
        // (lo < v ? lo : v is v <= lo ? v : lo on numbers: one MINSD)
        w.lo = w.lo < v ? w.lo : v;
        w.hi = w.hi > v ? w.hi : v;
        if constexpr (T(0.5) != T(0)) {
            return v == v;
        } else {
            return true;
        }
    }
    // A run of n elements into one slot (scatter_slots_rows' runs of equal
    // ids): what n scatter_add calls in order give.  Long runs take the
    // vector kernel (simd::minmax): a slot's lo/hi are then the run's
    // extremes merged with the same compare-select, and the bits are the
    // same wherever the extreme is not a zero (equal non-zero numbers have
    // one bit pattern); a run whose extreme is a zero, whose ties pick the
    // last zero's sign, steps in order (integers have one zero).  A NaN
    // makes it report false, as scatter_add does (the pass is redone with
    // step()).  Short runs step in order: scatter_add on a copy of the slot.
    NR_HD static bool scatter_run(scatter_t &w, const T *x, long long n) {
#if defined(NR_HAVE_HOST_SIMD)
        if constexpr (sizeof(T) <= 8) {
            constexpr int L = simd::minmax_lanes<T>();
            T lo[L]{}, hi[L]{}, nan[L]{};  // (the kernel writes `lanes` of them)
            // (runs shorter than the widest kernel's step, 4 vectors of 64
            // bytes, step in order)
            const bool wide = n >= 256 / (long long)sizeof(T);
            if (const int lanes = wide ? simd::minmax<T, false>(x, n, lo, hi, nan) : 0) {
                bool marked = false;
                for (int j = 0; j < lanes; j++) marked = marked | is_nan(nan[j]);
                if (marked) return false;
                T l, h;
                fold_lanes(lo, hi, lanes, l, h);
                if (T(0.5) == T(0) || (l != T(0) && h != T(0))) {
                    w.lo = w.lo < l ? w.lo : l;
                    w.hi = w.hi > h ? w.hi : h;
                    return true;
                }
            }
        }
#endif
        scatter_t s = w;
        bool ok = true;
        for (long long k = 0; k < n; k++) ok = ok & scatter_add(s, x[k]);
        w = s;
        return ok;
    }
    template <class Acc>
    NR_HD static int scatter_finish(const scatter_t &w, Acc &a) {
        if (w.lo > w.hi) return 0;  // no element (any element has lo <= hi)
        a = Acc{{w.lo, w.hi}};
        return 1;
    }
};

template <class T, bool SKIP_NAN>
struct MinMaxOf : minmax_scatter<T> {
    using in_t = T;
    using out_t = T;
    using ops = order_ops<SKIP_NAN>;
    static constexpr int nout = 2;
    struct acc_t {
        out_t v[2];
    };

    NR_HD static acc_t lift(in_t x) { return {{x, x}}; }
    NR_HD static acc_t step(acc_t a, in_t x) { return {{ops::lo(a.v[0], x), ops::hi(a.v[1], x)}}; }
    NR_HD static acc_t combine(acc_t a, acc_t b) {
        return {{ops::lo(a.v[0], b.v[0]), ops::hi(a.v[1], b.v[1])}};
    }
    // No identity: NumPy's minimum/maximum (fmin/fmax) have none either (an
    // empty reduction is an error, non-empty ones start from the first element).
    NR_HD static bool initials(acc_t &, bool) { return false; }

    // Contiguous stream.  For integers and IEEE floats on the host, the
    // vector kernel of simd.hpp keeps lanes of running minima/maxima with
    // plain vector min/max instructions and keeps NaN information in lanes
    // of its own (instead of testing for NaN in every comparison): a NaN seen
    // (propagating), or a number seen (skipping; NaN = the lane saw only
    // NaNs).  Merging the lanes with combine() gives what step() in order
    // gives.  float16 runs the same kernel on int16 order keys of its bits.
    // Other types step in order.
    NR_HD static acc_t block_reduce(acc_t acc, const in_t *x, long long n) {
        long long k = 0;
#if defined(NR_HAVE_HOST_SIMD)
        if constexpr (plain_arith<T>::value && sizeof(T) <= 8) {
            constexpr int L = simd::minmax_lanes<T>();
            T lo[L]{}, hi[L]{}, nan[L]{};  // (the kernel writes `lanes` of them)
            if (const int lanes = simd::minmax<T, SKIP_NAN>(x, n, lo, hi, nan)) {
                k = n;  // the kernel covers the whole stream
                // Usually no lane is marked (no NaN seen; skipping: every
                // lane saw a number): fold the lanes with plain compares.
                bool marked = false;
                for (int j = 0; j < lanes; j++) marked = marked | is_nan(nan[j]);
                if (!marked) {
                    T l, h;
                    fold_lanes(lo, hi, lanes, l, h);
                    acc = combine(acc, acc_t{{l, h}});
                } else {
                    for (int j = 0; j < lanes; j++) {
                        const bool lane_has_numbers = !SKIP_NAN || !is_nan(nan[j]);
                        if (lane_has_numbers) acc = combine(acc, acc_t{{lo[j], hi[j]}});
                        if (is_nan(nan[j])) acc = combine(acc, lift(nan[j]));
                    }
                }
            }
        } else if constexpr (same_type<T, half16>::value) {
            // float16: the kernel's lanes are order keys of the bits
            // (simd::half_key; both zeros key 0, NaNs beyond the infinities).
            // What step() in order gives: propagating, the first NaN wins
            // both sides; skipping, an all-NaN stream leaves acc as it is;
            // a zero result is the stream's first zero (ties keep the first).
            constexpr int L = simd::minmax_lanes<T>();
            short lo[L]{}, hi[L]{};
            if (const int lanes = simd::minmax<T, SKIP_NAN>(x, n, lo, hi, nullptr)) {
                k = n;  // the kernel covers the whole stream
                short l, h;
                fold_lanes(lo, hi, lanes, l, h);
                if (!SKIP_NAN && (l < -simd::HALF_INF_KEY || h > simd::HALF_INF_KEY)) {
                    acc = combine(acc, lift(x[simd::half_first_nan(x, n)]));
                } else if (!SKIP_NAN || l <= simd::HALF_INF_KEY) {
                    half16 a = simd::half_of_key(l), b = simd::half_of_key(h);
                    if (l == 0 || h == 0) {
                        const half16 z = x[simd::half_first_zero(x, n)];
                        a = l == 0 ? z : a;
                        b = h == 0 ? z : b;
                    }
                    acc = combine(acc, acc_t{{a, b}});
                }
            }
        }
#endif
        for (; k < n; k++) acc = step(acc, x[k]);
        return acc;
    }

#if defined(NR_HOST_TRAITS)
    // Host only: row blocks reduced over axis 0 (defined in ../host_traits.hpp).
    NR_TARGET_CLONES static void rows_reduce(out_t *const *acc, const in_t *x, long long rows,
                                             long long cols, long long stride);
    // One input row into one accumulator row (the native axis-0 pattern);
    // false: not handled here (the generic typed loop runs).
    static bool row_walk(out_t *const *acc, const in_t *x, long long n);
#endif
};

template <class T>
using MinMax = MinMaxOf<T, false>;

}  // namespace nr
