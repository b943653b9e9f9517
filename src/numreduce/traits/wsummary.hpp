// The summary of two sources (x, w) with frequency weights: the state of
// summary.hpp, (W, min, max, K, m, M2, M3, M4), with the weight sum W as
// the count, mean = K + m and M_k = sum(w (x - mean)^k): integer weights
// give the summary of x repeated w times (np.repeat(x, w)).
//
// Pebay's update is the same for weights as for counts (a state of weight
// W is W elements at its mean, with its central moments), so the merge is
// Summary's, the origin K keeping offset data accurate on every path.  An
// element with weight 0 is no element -- no count, and no part in min and
// max; with SKIP_NAN an element whose x is NaN is dropped with its weight.
// A negative weight is the caller's error (the user functions raise
// before any work).  A weight sum that is not finite (an inf or NaN
// weight, or finite weights whose sum overflows) makes the mean and the
// moments NaN on every path (np.average's inf / inf); the user
// functions finish that as NaN with NumPy's warning.  Contiguous streams
// are summarised in blocks by the corrected two-pass formulas (as
// Summary's), strided ones one merge per element.  Accumulates in A
// (float64 for float32 sources).
#pragma once
#include "common.hpp"
#include "summary.hpp"

namespace nr {

template <class T, class A, bool SKIP_NAN = false>
struct WSummary {
    static constexpr int nsrc = 2;
    using in_t = sources<T, 2>;  // (x, w)
    using out_t = A;
    static constexpr int nout = 8;
    using S = Summary<A, A, false>;  // the state and its merge
    using acc_t = typename S::acc_t;

    NR_HD static acc_t lift(in_t s) { return lift_xw(to_real<A>(s.v[0]), to_real<A>(s.v[1])); }
    NR_HD static acc_t step(acc_t a, in_t s) {
        const acc_t b = lift(s);
        return a.v[0] == A(0) ? b : combine(a, b);
    }
    NR_HD static acc_t combine(acc_t a, acc_t b) { return unweighable(S::combine(a, b)); }
    // The empty summary (W = 0, min and max NaN) for every reduction.
    NR_HD static bool initials(acc_t &a, bool e) { return S::initials(a, e); }

    // Contiguous streams: blocks of BLOCK elements, each summarised by the
    // corrected two-pass formulas with weights in the frame x - K (K: acc's
    // origin where acc has weight, else the first weighted value; 0 where
    // that is not finite), in L lanes, the blocks merged in a pairwise
    // tree in the origin K; a block whose sums are not finite (inf/NaN,
    // overflow) is stepped instead.  The AoS stream (block_reduce) and the
    // two contiguous streams (block_reduce_sources) run the same arithmetic.
    static constexpr int BLOCK = 512, L = 8;
    struct xw_t {
        A x, w;
    };
    template <class G>
    NR_HD static acc_t stream(acc_t acc, long long n, G get) {
        A K = A(0);
        if (acc.v[0] != A(0)) {
            K = acc.v[3];
        } else {
            for (long long k = 0; k < n; k++) {
                const xw_t e = get(k);
                if (!(e.w == A(0) || (SKIP_NAN && e.x != e.x))) {
                    K = e.x;
                    break;
                }
            }
        }
        if (!is_finite(K)) K = A(0);
        return merge_pairwise<WSummary>(acc, n, BLOCK, [&](long long k, long long m) {
            return block_stats(k, m, K, get);
        });
    }
    NR_HD static acc_t block_reduce(acc_t acc, const in_t *x, long long n) {
        return stream(acc, n, [x](long long j) { return xw_t{to_real<A>(x[j].v[0]), to_real<A>(x[j].v[1])}; });
    }
    NR_HD static acc_t block_reduce_sources(acc_t acc, const T *const *src, long long n) {
        const T *px = src[0], *pw = src[1];
        return stream(acc, n, [px, pw](long long j) { return xw_t{to_real<A>(px[j]), to_real<A>(pw[j])}; });
    }
    template <class G>
    NR_HD static acc_t block_stats(long long k0, long long m, A K, G get) {
        A s0[L], s1[L], lo[L], hi[L];
        for (int u = 0; u < L; u++) {
            s0[u] = s1[u] = A(0);
            lo[u] = -neg_inf<A>();
            hi[u] = neg_inf<A>();
        }
        for (long long j = 0; j < m; j++) {
            const int u = (int)(j % L);
            const xw_t e = get(k0 + j);
            const bool use = !((e.w == A(0)) | (SKIP_NAN & (e.x != e.x)));
            s0[u] += use ? e.w : A(0);
            s1[u] += use ? e.w * (e.x - K) : A(0);
            lo[u] = (use && e.x < lo[u]) ? e.x : lo[u];
            hi[u] = (use && e.x > hi[u]) ? e.x : hi[u];
        }
        const A W = S::fold(s0), t1 = S::fold(s1);
        if (W == A(0)) return S::empty();
        if (!is_finite(W) || !is_finite(t1)) return steps(k0, m, get);
        A mn = lo[0], mx = hi[0];
        for (int u = 1; u < L; u++) {
            mn = lo[u] < mn ? lo[u] : mn;
            mx = hi[u] > mx ? hi[u] : mx;
        }
        const A mb = t1 / W;
        A l1[L], l2[L], l3[L], l4[L];
        for (int u = 0; u < L; u++) l1[u] = l2[u] = l3[u] = l4[u] = A(0);
        for (long long j = 0; j < m; j++) {
            const int u = (int)(j % L);
            const xw_t e = get(k0 + j);
            const bool use = !((e.w == A(0)) | (SKIP_NAN & (e.x != e.x)));
            const A dy = use ? (e.x - K) - mb : A(0), wd = use ? e.w * dy : A(0), q = wd * dy;
            l1[u] += wd;
            l2[u] += q;
            l3[u] += q * dy;
            l4[u] += (q * dy) * dy;
        }
        const A S2 = S::fold(l2);
        if (!is_finite(S2)) return steps(k0, m, get);
        return S::corrected(K, W, mn, mx, mb, S::fold(l1), S2, S::fold(l3), S::fold(l4));
    }

  private:
    // elements [k0, k0 + m), one step each (in their own origin)
    template <class G>
    NR_HD static acc_t steps(long long k0, long long m, G get) {
        acc_t a = S::empty();
        for (long long j = 0; j < m; j++) {
            const xw_t e = get(k0 + j);
            const acc_t b = lift_xw(e.x, e.w);
            a = a.v[0] == A(0) ? b : combine(a, b);
        }
        return a;
    }
    NR_HD static acc_t lift_xw(A x, A w) {
        if (w == A(0) || (SKIP_NAN && x != x)) return S::empty();
        acc_t a = S::lift_real(x);
        a.v[0] = w;
        return unweighable(a);
    }
    // a, or where its weight sum W is not finite (an inf or NaN weight,
    // finite weights whose sum overflows) a with the mean and the moments
    // NaN: no mean is left that a finite W no longer weighs (as wmoments)
    NR_HD static acc_t unweighable(acc_t a) {
        if (is_finite(a.v[0])) return a;
        const A nan = (a.v[0] - a.v[0]) + (a.v[0] - a.v[0]);
        a.v[3] = A(0);
        a.v[4] = a.v[5] = a.v[6] = a.v[7] = nan;
        return a;
    }
};

}  // namespace nr
