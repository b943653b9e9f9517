// (n, min, max, K, m, M2, M3, M4) -- the summary of a sample in one pass:
// its count, extremes, mean = K + m and central moments M_k = sum((x -
// mean)^k), from which describe, skew and kurtosis are finished (var = M2 /
// (n - ddof), skewness = sqrt(n) M3 / M2^1.5, kurtosis = n M4 / M2^2 - 3).
//
// As the co-moments (comoments.hpp), K is an origin -- a value of the
// state's own data, its first element -- and the mean is kept relative to
// it: two states' means are compared as ((Kb - Ka) + mb) - ma, where Kb - Ka
// is a difference of two data values (exact where they are close), so the
// merges of every path (threads, Dask chunks, the engine's merges, single
// steps of strided data) keep on offset data (1e8 + N(0, 1)) the accuracy
// of centred data: a mean rounded at the data's magnitude would carry that
// rounding (1e-8 here) into every merge.
//
// Accumulates in A (float64 for bool/integer/float16/float32 data, the
// input type for float64/longdouble), the extremes included (exact for
// every input that A holds exactly; the statistics layer redoes the
// extremes of 64-bit integers beyond 2**53).  Two summaries merge by
// Pebay's (2008) pairwise update of the central moments (Terriberry's form
// for one element), which is exact in exact arithmetic and, where the two
// means are close, adds to each moment only terms of the order of its own
// size.  The contiguous fast path (block_reduce) summarises blocks of
// BLOCK elements by the corrected two-pass formulas on data shifted by a
// reference value K (the running mean, or the first element), and merges
// the block summaries in a pairwise tree inside that frame: offset data
// (1e8 + N(0, 1)) keep the accuracy of centred data, and the moments' sums
// round like pairwise sums (log2(n / BLOCK) merges deep).
//
// Non-finite data: a NaN makes every output NaN (min and max too, as
// np.min; the NaN-skipping form drops it); an inf makes the mean inf (or
// NaN for inf - inf) and the central moments NaN, as np.var.  Finite data
// whose spread overflows (values further apart than the largest double)
// give M2 = M4 = +inf and M3 = NaN with a finite mean (K = 0).
#pragma once
#include "common.hpp"

namespace nr {

template <class T, class A, bool SKIP_NAN = false>
struct Summary {
    using in_t = T;
    using out_t = A;
    static constexpr int nout = 8;
    using real_traits = Summary<A, A, SKIP_NAN>;  // step(a, x) is its step(a, to_real<A>(x))
    struct acc_t {
        A v[8];  // n, min, max, K, m, M2, M3, M4 (mean = K + m)
    };

    NR_HD static A qnan() { return A(0) / A(0); }
    NR_HD static acc_t empty() { return {{A(0), qnan(), qnan(), A(0), A(0), A(0), A(0), A(0)}}; }
    NR_HD static bool skip(in_t x) { return SKIP_NAN && is_nan(to_real<A>(x)); }

    NR_HD static acc_t lift(in_t x) {
        if (skip(x)) return empty();
        return lift_real(to_real<A>(x));
    }
    NR_HD static acc_t lift_real(A v) {
        if (!is_finite(v)) {  // inf/NaN: no origin, the mean v, the moments NaN
            const A z = v - v;
            return {{A(1), v, v, A(0), v, z, z, z}};
        }
        return {{A(1), v, v, v, A(0), A(0), A(0), A(0)}};
    }
    NR_HD static acc_t step(acc_t a, in_t x) {
        if (skip(x)) return a;
        return a.v[0] == A(0) ? lift(x) : combine(a, lift(x));
    }

    // Pebay's update: the union of two summaries, in a's origin.
    NR_HD static acc_t combine(acc_t a, acc_t b) {
        if (b.v[0] == A(0)) return a;
        if (a.v[0] == A(0)) return b;
        const A na = a.v[0], nb = b.v[0], n = na + nb;
        const A lo = nan_min(a.v[1], b.v[1]), hi = nan_max(a.v[2], b.v[2]);
        const A ma = a.v[4], mb = b.v[4];
        const A dK = a.v[3] == b.v[3] ? A(0) : b.v[3] - a.v[3];
        const A d = (dK + mb) - ma;  // mean_b - mean_a
        if (!is_finite(d) || !is_finite(ma) || !is_finite(mb)) {
            const A mean_a = a.v[3] + ma, mean_b = b.v[3] + mb;
            if (is_finite(mean_a) && is_finite(mean_b)) {
                // Finite means further apart than the largest double: the
                // weighted mean is finite, the even moments overflow and
                // the sign of M3 is lost.
                const A inf = -neg_inf<A>();
                return {{n, lo, hi, A(0), mean_a * (na / n) + mean_b * (nb / n), inf, qnan(), inf}};
            }
            // A non-finite mean: the plain weighted sum (inf stays inf,
            // inf - inf is NaN), the central moments NaN.
            const A mean = mean_a == mean_b ? mean_a : mean_a * (na / n) + mean_b * (nb / n);
            const A bad = (mean_a - mean_a) + (mean_b - mean_b) + qnan();
            return {{n, lo, hi, A(0), mean, bad, bad, bad}};
        }
        const A w = nb / n, v = na / n, d2 = d * d;
        const A M2a = a.v[5], M2b = b.v[5], M3a = a.v[6], M3b = b.v[6];
        const A M2 = (M2a + M2b) + d2 * na * w;
        const A M3 = (M3a + M3b) + d * (d2 * na * w * (v - w) + A(3) * (v * M2b - w * M2a));
        const A M4 = (a.v[7] + b.v[7]) +
                     d * (d * (d2 * na * w * (v * v - v * w + w * w) + A(6) * (v * v * M2b + w * w * M2a)) +
                          A(4) * (v * M3b - w * M3a));
        // (an overflowed M2 makes M4 >= M2^2 / n overflow too, whatever a
        // NaN M3 -- its sign lost -- made of the formula)
        return {{n, lo, hi, a.v[3], ma + d * w, M2, M3, M2 == -neg_inf<A>() ? M2 : M4}};
    }

    // The scatter loop's working slot (loops.hpp scatter_block, fresh slots
    // of reduce_by_group): the extremes and the power sums s_k = sum((x -
    // K)^k), k = 1..4, about a shift K, no division per element.  K starts
    // at the slot's first value and moves to the running mean whenever n
    // reaches a power of two, and every 64 elements beyond 64 (rebase: the
    // sums shifted by the binomial expansion, exact up to rounding), as the
    // moments' slot (moments.hpp) does for s_1, s_2: the mean stays within
    // about a standard deviation / sqrt(n) of K, so the central moments
    // finished from the sums lose only a few roundings to cancellation,
    // and K is the state's origin.  Non-finite sums (inf/NaN data,
    // overflow) are sticky and reported by scatter_finish: the caller then
    // redoes the pass with step().
    struct scatter_t {
        A K, s1, s2, s3, s4, lo, hi;
        long long n;
    };
    NR_HD static scatter_t scatter_start() {
        return {A(0), A(0), A(0), A(0), A(0), -neg_inf<A>(), neg_inf<A>(), 0};
    }
    NR_HD static bool scatter_add(scatter_t &w, in_t xin) {
        if (skip(xin)) return true;
        const A x = to_real<A>(xin);
        if (w.n == 0) w.K = x;
        const A d = x - w.K, q = d * d;
        w.s1 += d;
        w.s2 += q;
        w.s3 += q * d;
        w.s4 += q * q;
        w.lo = x < w.lo ? x : w.lo;
        w.hi = x > w.hi ? x : w.hi;
        w.n += 1;
        if (w.n > 1 && ((w.n & (w.n - 1)) == 0 || (w.n & 63) == 0)) {
            const A cnt = A(w.n);
            const A K2 = w.K + w.s1 / cnt, dl = K2 - w.K;
            w.s4 -= dl * (A(4) * w.s3 - dl * (A(6) * w.s2 - dl * (A(4) * w.s1 - cnt * dl)));
            w.s3 -= dl * (A(3) * w.s2 - dl * (A(3) * w.s1 - cnt * dl));
            w.s2 -= dl * (A(2) * w.s1 - cnt * dl);
            w.s1 -= cnt * dl;
            w.K = K2;
        }
        return true;
    }
    // -1: a sum or K is not finite (redo with step()); 0: no element (the
    // empty initials).
    NR_HD static int scatter_finish(const scatter_t &w, acc_t &a) {
        if (!is_finite(w.s1 + w.s2 + w.s3 + w.s4) || !is_finite(w.K)) return -1;
        if (w.n == 0) return 0;
        const A cnt = A(w.n), mu = w.s1 / cnt;
        const A M2 = w.s2 - w.s1 * mu;
        const A M3 = w.s3 - mu * (A(3) * w.s2 - A(2) * mu * w.s1);
        const A M4 = w.s4 - mu * (A(4) * w.s3 - mu * (A(6) * w.s2 - A(3) * mu * w.s1));
        a = {{cnt, w.lo, w.hi, w.K, mu, M2 > A(0) ? M2 : A(0), M3, M4 > A(0) ? M4 : A(0)}};
        return 1;
    }

    // The empty summary for every reduction, empty or not (a copied first
    // element would be a wrong count): n = 0, min and max NaN, the rest 0.
    NR_HD static bool initials(acc_t &a, bool) {
        a = empty();
        return true;
    }

    // Contiguous stream: blocks of BLOCK elements, each summarised by the
    // corrected two-pass formulas in the frame y = x - K (K: acc's origin
    // where acc has elements, else the first element not skipped; 0 where
    // that is not finite), in L lanes (vector lanes on the host), the
    // blocks merged in a pairwise tree, all in the origin K.  A block whose
    // sums are not finite (inf/NaN data, overflow) is stepped instead.
    static constexpr int BLOCK = 512, L = 8;
#if defined(NR_HOST_TRAITS)
    // Host only (defined in ../host_traits.hpp): row blocks reduced over
    // axis 0, column-parallel, by the same block formulas.
    static constexpr long long RB = 512, CB = 64;
    NR_TARGET_CLONES static void rows_reduce(A *const *acc, const in_t *x, long long rows,
                                             long long cols, long long stride);
    // rows_reduce's merges of a column block (its sums, or its gathered
    // values stepped) into the running state, out of the clones.
    NR_OUT_OF_CLONES static acc_t merge_sums(acc_t run, A K, A cnt, A mn, A mx, A mb, A S1, A S2, A S3,
                                             A S4);
    NR_OUT_OF_CLONES static acc_t merge_steps(acc_t run, const in_t *col, long long m);
#endif
    NR_HD static A fold(const A *l) {
        return ((l[0] + l[1]) + (l[2] + l[3])) + ((l[4] + l[5]) + (l[6] + l[7]));
    }
    NR_HD static acc_t block_reduce(acc_t acc, const in_t *x, long long n) {
        A K = A(0);
        if (acc.v[0] > A(0)) {
            K = acc.v[3];
        } else {
            long long k = 0;
            while (k < n && skip(x[k])) k++;
            if (k < n) K = to_real<A>(x[k]);
        }
        if (!is_finite(K)) K = A(0);
        return merge_pairwise<Summary>(acc, n, BLOCK, [x, K](long long k, long long m) {
            return block_stats(x + k, m, K);
        });
    }
    // One block of m <= BLOCK elements in the origin K.
    NR_HD static acc_t block_stats(const in_t *xb, long long m, A K) {
#if defined(NR_HAVE_HOST_SIMD)
        if constexpr (simd::f64_lanes<T>::value && same_type<A, double>::value) {
            // On the host (float64 accumulators, a type the vector kernels
            // read): the shifted values y = x - K made once, into an
            // L1-resident buffer, with the block's sum, count and extremes
            // (shift_minmax), then the deviation sums on y (dev_sums4).
            A y[BLOCK], s = A(0), cnt = A(0), mn = -neg_inf<A>(), mx = neg_inf<A>();
            long long j = simd::shift_minmax<in_t, SKIP_NAN>(xb, m, K, y, &s, &cnt, &mn, &mx);
            if (!SKIP_NAN) cnt = A(j);
            for (; j < m; j++) {
                const A v = to_real<A>(xb[j]);
                y[j] = v - K;
                if (SKIP_NAN && is_nan(v)) continue;
                s += y[j];
                cnt += A(1);
                mn = v < mn ? v : mn;
                mx = v > mx ? v : mx;
            }
            if (cnt == A(0)) return empty();
            if (!is_finite(s)) return framed_steps(xb, m, K);
            const A mb = s / cnt;
            A S[4];
            j = simd::dev_sums4<SKIP_NAN>(y, m, mb, S);
            for (; j < m; j++) {
                if (SKIP_NAN && is_nan(y[j])) continue;
                const A dy = y[j] - mb, q = dy * dy;
                S[0] += dy;
                S[1] += q;
                S[2] += q * dy;
                S[3] += q * q;
            }
            if (!is_finite(S[1])) return framed_steps(xb, m, K);
            return corrected(K, cnt, mn, mx, mb, S[0], S[1], S[2], S[3]);
        }
#endif
        A sl[L], cl[L], lo[L], hi[L];
        for (int u = 0; u < L; u++) {
            sl[u] = cl[u] = A(0);
            lo[u] = -neg_inf<A>();
            hi[u] = neg_inf<A>();
        }
        long long j = 0;
        for (; j + L <= m; j += L) {
            for (int u = 0; u < L; u++) {
                const A v = to_real<A>(xb[j + u]);
                const bool use = !(SKIP_NAN && is_nan(v));
                sl[u] += use ? v - K : A(0);
                cl[u] += use ? A(1) : A(0);
                lo[u] = (use && v < lo[u]) ? v : lo[u];
                hi[u] = (use && v > hi[u]) ? v : hi[u];
            }
        }
        for (int u = 0; u < L; u++) {  // (the last group: as Moments::shifted_stats)
            if (j + u < m) {
                const A v = to_real<A>(xb[j + u]);
                const bool use = !(SKIP_NAN && is_nan(v));
                sl[u] += use ? v - K : A(0);
                cl[u] += use ? A(1) : A(0);
                lo[u] = (use && v < lo[u]) ? v : lo[u];
                hi[u] = (use && v > hi[u]) ? v : hi[u];
            }
        }
        const A s = fold(sl), cnt = fold(cl);
        if (cnt == A(0)) return empty();
        if (!is_finite(s)) return framed_steps(xb, m, K);
        A mn = lo[0], mx = hi[0];
        for (int u = 1; u < L; u++) {
            mn = lo[u] < mn ? lo[u] : mn;
            mx = hi[u] > mx ? hi[u] : mx;
        }
        const A mb = s / cnt;
        A l1[L], l2[L], l3[L], l4[L];
        for (int u = 0; u < L; u++) l1[u] = l2[u] = l3[u] = l4[u] = A(0);
        j = 0;
        for (; j + L <= m; j += L) {
            for (int u = 0; u < L; u++) {
                const A v = to_real<A>(xb[j + u]);
                const bool use = !(SKIP_NAN && is_nan(v));
                const A dy = use ? (v - K) - mb : A(0), q = dy * dy;
                l1[u] += dy;
                l2[u] += q;
                l3[u] += q * dy;
                l4[u] += q * q;
            }
        }
        for (int u = 0; u < L; u++) {  // (the last group: as Moments::shifted_stats)
            if (j + u < m) {
                const A v = to_real<A>(xb[j + u]);
                const bool use = !(SKIP_NAN && is_nan(v));
                const A dy = use ? (v - K) - mb : A(0), q = dy * dy;
                l1[u] += dy;
                l2[u] += q;
                l3[u] += q * dy;
                l4[u] += q * q;
            }
        }
        const A S1 = fold(l1), S2 = fold(l2), S3 = fold(l3), S4 = fold(l4);
        if (!is_finite(S2)) return framed_steps(xb, m, K);
        return corrected(K, cnt, mn, mx, mb, S1, S2, S3, S4);
    }
    // A block's summary from the sums S_k of its deviations d from its
    // computed mean mb: the moments about mb corrected to its exact mean
    // mb + c (c = S1 / n, of the order of mb's rounding).
    NR_HD static acc_t corrected(A K, A cnt, A mn, A mx, A mb, A S1, A S2, A S3, A S4) {
        // (S4 or S3 overflowed, S2 finite: M4 is beyond the range, +inf,
        // and M3 where it overflowed has lost its sign, NaN -- never the
        // clamp's 0 of an inf - inf)
        const A c = S1 / cnt;
        const A M2 = S2 - S1 * c;
        const A M3 = is_finite(S3) ? S3 - c * (A(3) * S2 - A(2) * c * S1) : qnan();
        const A M4 = is_finite(S4) ? S4 - c * (A(4) * S3 - c * (A(6) * S2 - A(3) * c * S1)) : S4;
        const A M4c = M2 == -neg_inf<A>() ? M2 : (M4 > A(0) || M4 != M4 ? M4 : A(0));
        return {{cnt, mn, mx, K, mb + c, M2 > A(0) ? M2 : A(0), M3, M4c}};
    }
    // A block stepped element by element (in its own origin): inf/NaN data
    // and overflowing sums.
    NR_HD static acc_t framed_steps(const in_t *xb, long long m, A) { return step_each<Summary>(empty(), xb, m); }
};

}  // namespace nr
