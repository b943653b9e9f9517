// (count, mean, M2) -- mean and variance in one pass.  M2 is the sum of
// squared deviations from the mean: var = M2 / (count - ddof).
//
// Accumulates in A (float64 for bool/integer/float16/float32 data, the input
// type for float64/longdouble), so float32 data never loses precision to its
// own rounding and counts stay exact up to 2**53.  Merging is Chan et al.'s
// parallel update; the contiguous fast path (block_reduce) works on data
// shifted by a reference value in L1-sized blocks with the corrected
// two-pass formula, which is what makes it as accurate as np.var on data
// with a large offset (see docs/accuracy.md).  Finite data whose squared
// deviations overflow give M2 = +inf and a finite mean on every path (the
// weighted mean where a difference overflows; the halved frame where a
// shifted value or mean would), never a negative or NaN M2.
#pragma once
#include "common.hpp"

namespace nr {

template <class T, class A, bool SKIP_NAN = false>
struct Moments {
    using in_t = T;
    using out_t = A;
    static constexpr int nout = 3;
    using real_traits = Moments<A, A, SKIP_NAN>;  // step(a, x) is its step(a, to_real<A>(x))
    struct acc_t {
        A v[3];  // count, mean, M2
    };
    // The working frame of contiguous streams (see frame() below).
    struct frame_t {
        A K;
        A S;
    };

    NR_HD static bool skip(in_t x) { return SKIP_NAN && is_nan(to_real<A>(x)); }

    NR_HD static acc_t lift(in_t x) {
        if (skip(x)) return {{A(0), A(0), A(0)}};
        return {{A(1), to_real<A>(x), A(0)}};
    }
    // Welford's update: used where each element has its own accumulator
    // (a row of accumulators walking along an input row).
    NR_HD static acc_t step(acc_t a, in_t xin) {
        if (skip(xin)) return a;
        return step_real(a, to_real<A>(xin));
    }
    NR_HD static acc_t step_real(acc_t a, A x) {
        A n = a.v[0] + A(1);
        if (!is_finite(x) || !is_finite(a.v[1])) {
            // inf/NaN: the mean is the plain sum (inf stays inf, inf - inf is
            // NaN) and M2 is NaN, as np.mean / np.var give.
            return {{n, a.v[1] + x, (x - x) + (a.v[1] - a.v[1])}};
        }
        A d = x - a.v[1];
        if (!is_finite(d)) {
            // Finite values further apart than the largest double: the mean
            // is the weighted one (no overflow), M2 >= d^2 / 2 overflows.
            return {{n, a.v[1] * (a.v[0] / n) + x / n, -neg_inf<A>()}};
        }
        A mean = a.v[1] + d / n;
        return {{n, mean, a.v[2] + d * (x - mean)}};
    }
    // Chan et al.: merge two (count, mean, M2) summaries.
    NR_HD static acc_t combine(acc_t a, acc_t b) {
        if (b.v[0] == A(0)) return a;
        if (a.v[0] == A(0)) return b;
        A n = a.v[0] + b.v[0];
        A d = a.v[1] == b.v[1] ? A(0) : b.v[1] - a.v[1];  // inf == inf: no NaN
        if (!is_finite(d)) {
            if (is_finite(a.v[1]) && is_finite(b.v[1])) {
                // Finite means further apart than the largest double: the
                // weighted mean is finite, the squared spread overflows.
                return {{n, a.v[1] * (a.v[0] / n) + b.v[1] * (b.v[0] / n), -neg_inf<A>()}};
            }
            // A non-finite mean: the union's mean is the plain weighted sum
            // (inf stays inf, inf - inf is NaN) and M2 is NaN, as np.var.
            return {{n, (a.v[0] * a.v[1] + b.v[0] * b.v[1]) / n, d - d}};
        }
        A w = b.v[0] / n;
        return {{n, a.v[1] + d * w, a.v[2] + b.v[2] + d * d * a.v[0] * w}};
    }
    // The scatter loop's working slot (loops.hpp scatter_block, fresh slots
    // of reduce_by_group): shifted sums s = sum(x - K), q = sum((x - K)^2)
    // over a slot's n elements, no division per element.  The shift K
    // starts at the slot's first value and moves to the running mean
    // whenever n reaches a power of two, and every 64 elements beyond 64
    // (rebase: K += s/n, q -= s^2/n, exact up to rounding), so that
    // n (mean - K)^2 -- the cancellation in q - s^2/n -- stays within about
    // M2 (the mean of the first half against that of the whole) whatever
    // the first value, and far below it once n >> 64: M2's rounding is then
    // that of the plain sum of squares, and with data offset far from 0 the
    // shifted values are exact (Sterbenz).  One division per rebase.  Non-finite s or q
    // (inf/NaN data, overflowing differences) are sticky and reported by
    // scatter_finish: the caller then redoes the pass with step().
    struct scatter_t {
        A K, s, q;
        long long n;
    };
    NR_HD static scatter_t scatter_start() { return {A(0), A(0), A(0), 0}; }
    NR_HD static bool scatter_add(scatter_t &w, in_t xin) {
        if (skip(xin)) return true;
        const A x = to_real<A>(xin);
        if (w.n == 0) w.K = x;
        const A d = x - w.K;
        w.s += d;
        w.q += d * d;
        w.n += 1;
        if (w.n > 1 && ((w.n & (w.n - 1)) == 0 || (w.n & 63) == 0)) {
            const A cnt = A(w.n);
            const A K2 = w.K + w.s / cnt, dl = K2 - w.K;
            w.q -= dl * (A(2) * w.s - cnt * dl);
            w.s -= cnt * dl;
            w.K = K2;
        }
        return true;
    }
    // -1: s, q or K is not finite (redo with step()); 0: no element (the
    // empty initials (0, 0, 0)).
    NR_HD static int scatter_finish(const scatter_t &w, acc_t &a) {
        if (!is_finite(w.s) || !is_finite(w.q) || !is_finite(w.K)) return -1;
        if (w.n == 0) return 0;
        const A cnt = A(w.n), md = w.s / cnt, m2 = w.q - w.s * md;
        a = {{cnt, w.K + md, m2 > A(0) ? m2 : A(0)}};
        return 1;
    }

    // (0, 0, 0) for every reduction, empty or not: a copied first element
    // would be a wrong count.
    NR_HD static bool initials(acc_t &a, bool) {
        a = {{A(0), A(0), A(0)}};
        return true;
    }

    // A block whose shifted sum is not finite: with inf/NaN data the mean is
    // the plain (inf/NaN) sum and M2 NaN, as np.mean/np.var.  With finite
    // data (x - K, or the sum of the shifted values, overflowed), summarise
    // it again, by the same formula, in the frame scaled by 2^-600 more
    // (exact, where nothing finite overflows) and scale back.  Returned in
    // the frame f, as the callers expect.  Where even the block's shifted
    // mean overflows, the frame cannot hold the block (its data spans more
    // than the double range, so M2 is +inf exactly): M2 is +inf, the mean a
    // finite placeholder, and the callers redo the stream in the halved
    // frame (rescaled()), where no shifted value or mean overflows.
    NR_HD static acc_t overflowed_block(const in_t *xb, long long m, frame_t f, A mb, A cnt) {
        bool finite = true;
        for (long long j = 0; j < m; j++) finite = finite && (skip(xb[j]) || is_finite(to_real<A>(xb[j])));
        const A scale = A(1.0 / 4.149515568880993e+180);  // 2^-600
        if (!finite || f.S < A(1e-100)) return {{cnt, mb, mb - mb}};
        const acc_t r = block_stats<true>(xb, m, frame_t{f.K, f.S * scale});
        const A mean = r.v[1] / scale;
        if (!is_finite(mean)) return {{r.v[0], A(0), -neg_inf<A>()}};
        return {{r.v[0], mean, r.v[2] / scale / scale}};
    }

    static constexpr long long RB = 64, CB = 256;
#if defined(NR_HOST_TRAITS)
    // Host only (defined in ../host_traits.hpp): row blocks reduced over
    // axis 0, and one column redone in the halved frame.
    NR_TARGET_CLONES static void rows_reduce(A *const *acc, const in_t *x, long long rows,
                                             long long cols, long long stride);
    static acc_t column_scaled(acc_t acc, const in_t *x, long long rows, long long stride);
    // One input row into one accumulator row (the native axis-0 pattern):
    // Welford's update, vectorised over blocks of finite values; false: not
    // handled here.
    NR_TARGET_CLONES static bool row_walk(A *const *acc, const in_t *x, long long n);
#endif


    // combine(sh, blk) in a frame, the M2 sum compensated (TwoSum, the
    // error collected in m2_err): over thousands of blocks its rounding
    // would otherwise dominate.
    NR_HD static acc_t merge(acc_t sh, acc_t blk, A &m2_err) {
        const A d = blk.v[1] - sh.v[1];
        if (sh.v[0] > A(0) && is_finite(d) && is_finite(blk.v[2]) && is_finite(sh.v[2])) {
            const A n2 = sh.v[0] + blk.v[0], w = blk.v[0] / n2;
            A s, e;
            two_sum(sh.v[2], blk.v[2] + d * d * sh.v[0] * w, s, e);
            m2_err += e;
            return {{n2, sh.v[1] + d * w, s}};
        }
        return combine(sh, blk);
    }

    // The error collected by merge() folded into M2.
    NR_HD static acc_t settle(acc_t a, A m2_err) {
        return {{a.v[0], a.v[1], is_finite(a.v[2]) ? a.v[2] + m2_err : a.v[2]}};
    }

    // Contiguous streams work in a frame shifted by K: the running mean if
    // there is one, else the first element not skipped (0 if that is not
    // finite: the result is non-finite anyway and combine() propagates it).
    // In the frame the means are small and their differences exact, so
    // chunks of one stream reduced apart (threads, loops.hpp's FrameHooks)
    // merge with combine() as exactly as the stream in one piece.
    // The frame also scales by S, a power of two: y = (x - K) S, the means
    // scaled by S, M2 by S^2.  S = 1 always first; S = 1/2 only where the
    // S = 1 result came out with M2 = +inf (finite data spanning more than
    // about 1e154): there x - K, or a shifted mean, may have overflowed the
    // frame, while with S = 1/2 no shifted value, mean or difference of
    // means can overflow.  Scaling by a power of two is exact, so both
    // frames round alike (apart from subnormals).
    NR_HD static frame_t frame(acc_t acc, const in_t *x, long long n) {
        if (acc.v[0] > A(0)) return {is_finite(acc.v[1]) ? acc.v[1] : A(0), A(1)};
        long long k = 0;
        while (k < n && skip(x[k])) k++;
        const A K = k < n ? to_real<A>(x[k]) : A(0);
        return {is_finite(K) ? K : A(0), A(1)};
    }
    // (S = 1: the same bits without the multiplications and divisions by
    // one, which are exact -- the fixed cost of a short stream.)
    NR_HD static acc_t to_frame(acc_t a, frame_t f) {
        if (f.S == A(1)) return {{a.v[0], a.v[1] - f.K, a.v[2]}};
        return {{a.v[0], a.v[1] * f.S - f.K * f.S, a.v[2] * (f.S * f.S)}};
    }
    NR_HD static acc_t from_frame(acc_t a, frame_t f) {
        if (f.S == A(1)) return {{a.v[0], f.K + a.v[1], a.v[2]}};
        return {{a.v[0], (f.K * f.S + a.v[1]) / f.S, a.v[2] / (f.S * f.S)}};
    }
    // true (and f halved) where a result reduced in f must be redone in
    // the halved frame: see frame_t.
    NR_HD static bool rescaled(acc_t a, frame_t &f) {
        if (f.S != A(1) || a.v[2] != -neg_inf<A>()) return false;
        f.S = A(0.5);
        return true;
    }

    // Contiguous stream into one accumulator, in the frame f: summarised
    // per block of up to BLOCK elements with the corrected two-pass formula
    //   M2_b = sum((y - m)^2) - (sum(y - m))^2 / n_b,   y = x - K, m = mean(y),
    // and the blocks merged with Chan's update, its M2 sum compensated.
    // 1024 elements (8 KiB of float64 shifted values, L1-resident): each
    // block's fixed cost (the lanes' folds, the block mean's division
    // before the second pass can start, the merge) over half as many
    // blocks as at 512 -- Zen 4, AVX-512, one thread, data in the cache:
    // meanvar of 1e4-1e6 float64 0.22-0.25 ns an element against
    // 0.28-0.30, float32 0.25 against 0.31, nanmeanvar 0.29 against 0.35.
    static constexpr int BLOCK = 1024, L = 8;
    NR_HD static A lanes_sum(const A *l) {
        return ((l[0] + l[1]) + (l[2] + l[3])) + ((l[4] + l[5]) + (l[6] + l[7]));
    }
    NR_HD static acc_t block_reduce(acc_t acc, const in_t *x, long long n) {
        frame_t f = frame(acc, x, n);
        acc_t r = block_reduce_framed(to_frame(acc, f), x, n, f);
        if (rescaled(r, f)) r = block_reduce_framed(to_frame(acc, f), x, n, f);
        return from_frame(r, f);
    }
    NR_HD static acc_t block_reduce_framed(acc_t sh, const in_t *x, long long n, frame_t f) {
        if (f.S == A(1)) return block_reduce_framed_s<false>(sh, x, n, f);
        return block_reduce_framed_s<true>(sh, x, n, f);
    }
    // y = (x - K) S; SCALED = false: S = 1, y = x - K.
    template <bool SCALED>
    NR_HD static A shifted(in_t x, frame_t f) {
        if constexpr (SCALED) {
            return to_real<A>(x) * f.S - f.K * f.S;
        } else {
            return to_real<A>(x) - f.K;
        }
    }
    template <bool SCALED>
    NR_HD static acc_t block_reduce_framed_s(acc_t sh, const in_t *x, long long n, frame_t f) {
        A m2_err = A(0);  // compensation of the M2 sum
        for (long long k = 0; k < n; k += BLOCK) {
            const long long m = (n - k) < BLOCK ? (n - k) : BLOCK;
            const acc_t blk = block_stats<SCALED>(x + k, m, f);
            if (blk.v[0] > A(0)) sh = merge(sh, blk, m2_err);
        }
        return settle(sh, m2_err);
    }
    // One block of m <= BLOCK elements summarised in the frame f.  On the
    // host (float64 accumulators, a type the vector kernels read), the
    // shifted values y = x - K are made once, into an L1-resident buffer
    // (the vector pass converts T as to_real does), and both sums run on
    // them in shifted_stats -- one function for every input type, so that
    // float32, integer and float16 data give, by construction, the bits of
    // the same values in float64.
    template <bool SCALED>
    NR_HD static acc_t block_stats(const in_t *xb, long long m, frame_t f) {
#if defined(NR_HAVE_HOST_SIMD)
        if constexpr (!SCALED && simd::f64_lanes<T>::value && same_type<A, double>::value) {
            A y[BLOCK], s = A(0), cnt = A(0);
            const long long j0 = simd::shift_store<in_t, SKIP_NAN>(xb, m, f.K, y, &s, &cnt);
            for (long long j = j0; j < m; j++) y[j] = to_real<A>(xb[j]) - f.K;
            bool overflow = false;
            const auto r = Moments<A, A, SKIP_NAN>::shifted_stats(y, m, j0, SKIP_NAN ? cnt : A(j0), s,
                                                                  overflow);
            return overflow ? overflowed_block(xb, m, f, r.v[1], r.v[0]) : acc_t{{r.v[0], r.v[1], r.v[2]}};
        }
#endif
        {
            A cnt = A(0), s = A(0);
            // Eight partial sums (as the vector kernels' lanes): sequential
            // sums would let one large term swallow the roundings of many.
            A sl[L] = {}, cl[L] = {};
            long long j = 0;
            for (; j + L <= m; j += L) {
                for (int u = 0; u < L; u++) {
                    const bool use = !skip(xb[j + u]);
                    sl[u] += use ? shifted<SCALED>(xb[j + u], f) : A(0);
                    cl[u] += use ? A(1) : A(0);
                }
            }
            for (int u = 0; u < L; u++) {  // (the last group: as shifted_stats)
                if (j + u < m) {
                    const bool use = !skip(xb[j + u]);
                    sl[u] += use ? shifted<SCALED>(xb[j + u], f) : A(0);
                    cl[u] += use ? A(1) : A(0);
                }
            }
            s += lanes_sum(sl);
            cnt += lanes_sum(cl);
            if (cnt == A(0)) return {{A(0), A(0), A(0)}};
            const A mb = s / cnt;
            A s1 = A(0), s2 = A(0);
            // (the squares' lanes folded every 64 elements, as dev_sums)
            A l1[L] = {}, l2[L] = {}, t2 = A(0);
            j = 0;
            for (; j + L <= m; j += L) {
                for (int u = 0; u < L; u++) {
                    const A dy = skip(xb[j + u]) ? A(0) : (shifted<SCALED>(xb[j + u], f)) - mb;
                    l1[u] += dy;
                    l2[u] += dy * dy;
                }
                if (((j + L) & 63) == 0) {
                    t2 += lanes_sum(l2);
                    for (int u = 0; u < L; u++) l2[u] = A(0);
                }
            }
            for (int u = 0; u < L; u++) {  // (the last group: as shifted_stats)
                if (j + u < m) {
                    const A dy = skip(xb[j + u]) ? A(0) : (shifted<SCALED>(xb[j + u], f)) - mb;
                    l1[u] += dy;
                    l2[u] += dy * dy;
                }
            }
            s1 += lanes_sum(l1);
            s2 += t2 + lanes_sum(l2);
            // (s1^2 / n <= s2 by Cauchy-Schwarz; the clamp keeps rounding
            // from making M2 negative.)
            const A m2b = s2 - s1 * (s1 / cnt);
            // (an overflowed deviation: M2 is +inf, the mean the block's)
            return is_finite(mb) ? acc_t{{cnt, is_finite(s1) ? mb + s1 / cnt : mb,
                                          is_finite(s2) ? (m2b > A(0) ? m2b : A(0)) : s2}}
                                 : overflowed_block(xb, m, f, mb, cnt);
        }
    }
#if defined(NR_HAVE_HOST_SIMD)
    // block_stats on the shifted values y[0..m) (y = x - K, NaN where x is
    // NaN), the vector kernels having summed y[0..j0) into s (cnt elements
    // counted): the rest of the first pass in eight lanes, the block mean,
    // the deviation sums (dev_sums, then eight lanes), the corrected M2.
    // overflow: the block mean is not finite (the caller redoes the block,
    // overflowed_block; r holds (cnt, mb)).
    static acc_t shifted_stats(const A *y, long long m, long long j0, A cnt, A s, bool &overflow) {
        A sl[L] = {}, cl[L] = {};
        long long j = j0;
        for (; j + L <= m; j += L) {
            for (int u = 0; u < L; u++) {
                const bool use = !(SKIP_NAN && is_nan(y[j + u]));
                sl[u] += use ? y[j + u] : A(0);
                cl[u] += use ? A(1) : A(0);
            }
        }
        // (the last, partial group of lanes: a fixed lane loop whose lanes
        // past m stay as they are -- written as j++, u++ GCC vectorized it
        // in pairs through the stack, reloading lanes just stored one at a
        // time: a store-forwarding stall a row, Intel SPR class, float64
        // rows of 300 at AVX-512 0.45 ns an element against 0.29 at 288)
        for (int u = 0; u < L; u++) {
            if (j + u < m) {
                const bool use = !(SKIP_NAN && is_nan(y[j + u]));
                sl[u] += use ? y[j + u] : A(0);
                cl[u] += use ? A(1) : A(0);
            }
        }
        s += lanes_sum(sl);
        cnt += lanes_sum(cl);
        if (cnt == A(0)) return {{A(0), A(0), A(0)}};
        const A mb = s / cnt;
        A s1 = A(0), s2 = A(0);
        j0 = simd::dev_sums<SKIP_NAN>(y, m, mb, &s1, &s2);
        // (the squares' lanes folded every 64 elements, as dev_sums)
        A l1[L] = {}, l2[L] = {}, t2 = A(0);
        j = j0;
        for (; j + L <= m; j += L) {
            for (int u = 0; u < L; u++) {
                const A dy = (SKIP_NAN && is_nan(y[j + u])) ? A(0) : y[j + u] - mb;
                l1[u] += dy;
                l2[u] += dy * dy;
            }
            if (((j - j0 + L) & 63) == 0) {
                t2 += lanes_sum(l2);
                for (int u = 0; u < L; u++) l2[u] = A(0);
            }
        }
        for (int u = 0; u < L; u++) {
            if (j + u < m) {
                const A dy = (SKIP_NAN && is_nan(y[j + u])) ? A(0) : y[j + u] - mb;
                l1[u] += dy;
                l2[u] += dy * dy;
            }
        }
        s1 += lanes_sum(l1);
        s2 += t2 + lanes_sum(l2);
        // (s1^2 / n <= s2 by Cauchy-Schwarz; the clamp keeps rounding from
        // making M2 negative.)
        const A m2b = s2 - s1 * (s1 / cnt);
        overflow = !is_finite(mb);
        if (overflow) return {{cnt, mb, A(0)}};
        // (an overflowed deviation: M2 is +inf, the mean the block's)
        return {{cnt, is_finite(s1) ? mb + s1 / cnt : mb, is_finite(s2) ? (m2b > A(0) ? m2b : A(0)) : s2}};
    }
#endif
};

}  // namespace nr
