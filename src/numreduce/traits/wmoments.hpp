// Weighted moments of two sources (x, w): (W, K, m, M2) with W = sum(w),
// mean = K + m and M2 = sum(w (x - mean)^2) -- frequency weights: integer
// weights give the moments of x repeated w times, var = M2 / (W - ddof).
//
// K is an origin: the first value of x with a nonzero weight (the state's
// own data), and m the mean relative to it.  Every difference is taken
// relative to the origin, so on data far from 0 (1e8 + N(0, 1)) the shifted
// values x - K are exact and the merge of two states compares their means
// through (K_b - K_a) + m_b - m_a, exact where the origins are close: the
// accuracy of a two-pass variance on every path (stream, strided steps,
// chunks, Dask blocks, groups), with no working frame.  The state is what
// `reduce` returns; numreduce's user functions finish it.
//
// An element with weight 0 is no element (as np.repeat(x, 0)); with
// SKIP_NAN an element whose x is NaN is dropped with its weight.  A
// negative weight is the caller's error (the user functions raise before
// any work).  inf/NaN data give a non-finite mean (K = 0, m the plain sum)
// and a NaN M2, as np.average / np.var give.  A weight sum W that is not
// finite -- an inf or NaN weight, or finite weights whose sum overflows --
// makes the state (W, 0, NaN, NaN) on every path (lift, step, chunk,
// combine, scatter): no mean is left that a finite W no longer weighs (as
// np.average's sum(w x) / sum(w) is inf / inf); the user functions finish
// it as NaN with NumPy's warning.  Accumulates in A (float64 for float32
// sources).
#pragma once
#include "common.hpp"

namespace nr {

template <class T, class A, bool SKIP_NAN = false>
struct WMoments {
    static constexpr int nsrc = 2;
    using in_t = sources<T, 2>;  // (x, w)
    using out_t = A;
    static constexpr int nout = 4;
    struct acc_t {
        A v[4];  // W, K, m, M2
    };
    struct xw_t {  // one element in A
        A x, w;
    };

    NR_HD static bool skip(A x, A w) { return w == A(0) || (SKIP_NAN && x != x); }

    NR_HD static acc_t lift(in_t s) { return lift_xw(xw_t{to_real<A>(s.v[0]), to_real<A>(s.v[1])}); }
    NR_HD static acc_t step(acc_t a, in_t s) { return step_xw(a, xw_t{to_real<A>(s.v[0]), to_real<A>(s.v[1])}); }
    // Chan et al.'s merge with weights, in a's origin (b's mean moved to it
    // through the difference of the origins).
    NR_HD static acc_t combine(acc_t a, acc_t b) {
        if (b.v[0] == A(0)) return a;
        if (a.v[0] == A(0)) return b;
        const A W = a.v[0] + b.v[0];
        if (!is_finite(W)) return unweighable(W);
        if (!is_finite(a.v[2]) || !is_finite(b.v[2])) {
            return {{W, A(0), (a.v[1] + a.v[2]) + (b.v[1] + b.v[2]), (a.v[2] - a.v[2]) + (b.v[2] - b.v[2])}};
        }
        const A mb = (b.v[1] - a.v[1]) + b.v[2], d = mb - a.v[2];
        const A f = b.v[0] / W;
        if (!is_finite(d)) {
            return {{W, A(0), (a.v[1] + a.v[2]) * (A(1) - f) + (b.v[1] + b.v[2]) * f, -neg_inf<A>()}};
        }
        return {{W, a.v[1], a.v[2] + d * f, a.v[3] + b.v[3] + d * d * a.v[0] * f}};
    }
    // (0, 0, 0, 0) for every reduction, empty or not.
    NR_HD static bool initials(acc_t &a, bool) {
        a = {{A(0), A(0), A(0), A(0)}};
        return true;
    }

    // The scatter loop's working slot (loops.hpp scatter_block: fresh slots
    // of reduce_by_group), the weighted form of Moments' (moments.hpp):
    // shifted sums s0 = sum w, s1 = sum w (x - K), s2 = sum w (x - K)^2 over
    // a slot's n weighted elements, no division per element.  The shift K
    // starts at the slot's first weighted value and moves to the running
    // mean whenever n reaches a power of two, and every 64 elements beyond
    // 64 (rebase: K' = K + s1/s0, s2 -= (K' - K)(2 s1 - s0 (K' - K)), s1 -=
    // s0 (K' - K), with K' - K as stored), so the cancellation in
    // s2 - s1^2/s0 stays within about M2.
    // Non-finite sums (inf/NaN data, overflow) are sticky and reported by
    // scatter_finish: the caller then redoes the pass with step().
    struct scatter_t {
        A K, s0, s1, s2;
        long long n;
    };
    NR_HD static scatter_t scatter_start() { return {A(0), A(0), A(0), A(0), 0}; }
    NR_HD static bool scatter_add(scatter_t &w, in_t s) {
        const A x = to_real<A>(s.v[0]), wt = to_real<A>(s.v[1]);
        if (skip(x, wt)) return true;
        if (w.n == 0) w.K = x;
        const A d = x - w.K, wd = wt * d;
        w.s0 += wt;
        w.s1 += wd;
        w.s2 += wd * d;
        w.n += 1;
        if (w.n > 1 && ((w.n & (w.n - 1)) == 0 || (w.n & 63) == 0)) {
            // dl: the change of K as stored (exact: K2 and K are close)
            const A K2 = w.K + w.s1 / w.s0, dl = K2 - w.K;
            w.s2 -= dl * (A(2) * w.s1 - w.s0 * dl);
            w.s1 -= w.s0 * dl;
            w.K = K2;
        }
        return true;
    }
    // -1: a sum or K is not finite (redo with step()); 0: no weighted
    // element (the initials (0, 0, 0, 0)).
    NR_HD static int scatter_finish(const scatter_t &w, acc_t &a) {
        if (!is_finite(w.s0) || !is_finite(w.s1) || !is_finite(w.s2) || !is_finite(w.K)) return -1;
        if (w.n == 0) return 0;
        const A md = w.s1 / w.s0, m2 = w.s2 - w.s1 * md;
        a = {{w.s0, w.K, md, m2 > A(0) ? m2 : A(0)}};
        return 1;
    }

    // Contiguous stream: chunks of BLOCK elements from the stream's start,
    // each as the sums of its shifted values (no division per element),
    // S0 = sum w, S1 = sum w (x - K), S2 = sum w (x - K)^2, in LANES
    // partial sums (element j in lane j % LANES, folded pairwise at the
    // chunk's end: vector lanes on the host), the chunk's state (S0, K,
    // S1/S0, S2 - S1^2/S0) merged into acc (the corrected two-pass formula:
    // the shifted values are small next to K where the data are
    // clustered).  K is the origin, the first element with a weight.  Where
    // a chunk's sum is not finite (inf/NaN data, overflow) that chunk is
    // stepped instead.  The AoS stream (block_reduce) and the K contiguous
    // streams (block_reduce_sources, loops.hpp) run the same arithmetic on
    // the same chunks: the same bits.
    static constexpr int BLOCK = 256;
    static constexpr int LANES = 8;
    // get(j): element j of the chunk (xw_t); groups(j0, j1, K, s0, s1, s2):
    // elements [j0, j1) (whole groups of LANES) into the lanes.
    template <class G, class H>
    NR_HD static acc_t chunk_reduce(acc_t acc, long long n, G get, H groups) {
        long long k = 0;
        acc_t a = acc;
        if (a.v[0] == A(0)) {  // the origin: the first element with a weight
            while (k < n && skip(get(k).x, get(k).w)) k++;
            if (k == n) return acc;
            a = lift_xw(get(k++));
        }
        if (!is_finite(a.v[2])) return steps_xw(a, k, n, get);
        const A K = a.v[1];
        A s0[LANES], s1[LANES], s2[LANES];
        for (int l = 0; l < LANES; l++) s0[l] = s1[l] = s2[l] = A(0);
        long long j = k;
        for (; j < n && j % LANES != 0; j++) add_one(s0[j % LANES], s1[j % LANES], s2[j % LANES], get(j), K);
        const long long g = j < n ? j + (n - j) / LANES * LANES : j;
        groups(j, g, K, s0, s1, s2);
        j = g;
        for (; j < n; j++) add_one(s0[j % LANES], s1[j % LANES], s2[j % LANES], get(j), K);
        const A t0 = fold(s0), t1 = fold(s1), t2 = fold(s2);
        if (!is_finite(t0) || !is_finite(t1) || !is_finite(t2)) return steps_xw(acc, 0, n, get);
        if (t0 == A(0)) return a;
        const A mb = t1 / t0, m2 = t2 - t1 * mb;
        return combine(a, acc_t{{t0, K, mb, m2 > A(0) ? m2 : A(0)}});
    }
    NR_HD static acc_t block_reduce(acc_t acc, const in_t *x, long long n) {
        for (long long c = 0; c < n; c += BLOCK) {
            const in_t *p = x + c;
            auto get = [p](long long j) { return xw_t{to_real<A>(p[j].v[0]), to_real<A>(p[j].v[1])}; };
            acc = chunk_reduce(acc, n - c < BLOCK ? n - c : BLOCK, get,
                               [get](long long j0, long long j1, A K, A *s0, A *s1, A *s2) {
                                   lanes(get, j0, j1, K, s0, s1, s2);
                               });
        }
        return acc;
    }
    // The same on the two contiguous streams src[0] (x) and src[1] (w) (on
    // the host, float64 lanes: simd.hpp's wsums, the same arithmetic).
    NR_HD static acc_t block_reduce_sources(acc_t acc, const T *const *src, long long n) {
        for (long long c = 0; c < n; c += BLOCK) {
            const T *px = src[0] + c, *pw = src[1] + c;
            auto get = [px, pw](long long j) { return xw_t{to_real<A>(px[j]), to_real<A>(pw[j])}; };
            acc = chunk_reduce(acc, n - c < BLOCK ? n - c : BLOCK, get,
                               [=](long long j0, long long j1, A K, A *s0, A *s1, A *s2) {
#if defined(NR_HAVE_HOST_SIMD)
                                   if constexpr (simd::f64_lanes<T>::value && same_type<A, double>::value) {
                                       simd::wsums<T, SKIP_NAN>(px + j0, pw + j0, j1 - j0, K, s0, s1, s2);
                                       return;
                                   }
#endif
                                   lanes(get, j0, j1, K, s0, s1, s2);
                               });
        }
        return acc;
    }

  private:
    // the state of a weight sum W that is not finite (see the top)
    NR_HD static acc_t unweighable(A W) {
        const A nan = (W - W) + (W - W);  // inf - inf, or NaN
        return {{W, A(0), nan, nan}};
    }
    NR_HD static acc_t lift_xw(xw_t e) {
        if (skip(e.x, e.w)) return {{A(0), A(0), A(0), A(0)}};
        if (!is_finite(e.w)) return unweighable(e.w);
        if (!is_finite(e.x)) return {{e.w, A(0), e.x, e.x - e.x}};
        return {{e.w, e.x, A(0), A(0)}};
    }
    // West's weighted update, relative to the origin.
    NR_HD static acc_t step_xw(acc_t a, xw_t e) {
        const A x = e.x, w = e.w;
        if (skip(x, w)) return a;
        if (a.v[0] == A(0)) return lift_xw(e);
        const A W = a.v[0] + w;
        if (!is_finite(W)) return unweighable(W);
        if (!is_finite(x) || !is_finite(a.v[2])) {
            // inf/NaN: the mean is the plain sum, M2 NaN (np.average, np.var)
            return {{W, A(0), (a.v[1] + a.v[2]) + x, (x - x) + (a.v[2] - a.v[2])}};
        }
        const A y = x - a.v[1], d = y - a.v[2];
        if (!is_finite(d)) {
            // finite values further apart than the largest double
            const A f = w / W;
            return {{W, A(0), (a.v[1] + a.v[2]) * (A(1) - f) + x * f, -neg_inf<A>()}};
        }
        const A m = a.v[2] + d * (w / W);
        return {{W, a.v[1], m, a.v[3] + w * d * (y - m)}};
    }
    // one element into a lane's sums (selects only: vector lanes)
    NR_HD_ALWAYS static void add_one(A &s0, A &s1, A &s2, xw_t e, A K) {
        const bool sk = (e.w == A(0)) | (SKIP_NAN & (e.x != e.x));
        const A d = e.x - K, wd = sk ? A(0) : e.w * d;
        s0 += sk ? A(0) : e.w;
        s1 += wd;
        s2 += sk ? A(0) : wd * d;
    }
    template <class G>
    NR_HD_ALWAYS static void lanes(G get, long long j0, long long j1, A K, A *s0, A *s1, A *s2) {
        for (long long j = j0; j < j1; j += LANES) {
            for (int l = 0; l < LANES; l++) add_one(s0[l], s1[l], s2[l], get(j + l), K);
        }
    }
    NR_HD_ALWAYS static A fold(const A *s) {
        return ((s[0] + s[1]) + (s[2] + s[3])) + ((s[4] + s[5]) + (s[6] + s[7]));
    }
    // a followed by elements [k, n), one step each
    template <class G>
    NR_HD static acc_t steps_xw(acc_t a, long long k, long long n, G get) {
        for (; k < n; k++) a = step_xw(a, get(k));
        return a;
    }
};

}  // namespace nr
