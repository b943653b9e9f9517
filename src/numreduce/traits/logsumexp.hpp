// (max, sum of exp(x - max) - 1) -- log-sum-exp in one pass, with scipy's
// semantics: logsumexp = max + log1p(t).  The second output t leaves out the
// maximum's own exp(0) = 1 (one occurrence of it), so that a sum just above
// 1 keeps its small part: logsumexp([0, -40]) = log1p(exp(-40)) = 4.2e-18
// (scipy gh-18295), not log(1.0) = 0.  The empty state is (-inf, -1)
// (sum 0).  NaN propagates in the max (as np.max) and makes t NaN; +inf
// wins (t counts the other +infs); all -inf gives max -inf (t = count - 1).
// Accumulates in A (float64 for everything up to float64, long double for
// long double).
#pragma once
#include "expfn.hpp"

namespace nr {

template <class T, class A>
struct MaxSumExp {
    using in_t = T;
    using out_t = A;
    static constexpr int nout = 2;
    using real_traits = MaxSumExp<A, A>;  // step(a, x) is its step(a, to_real<A>(x))
    struct acc_t {
        A v[2];  // running max m, sum of exp(x - m) over all but one m
    };

    NR_HD static acc_t lift(in_t x) {
        const A v = to_real<A>(x);
        return {{v, v != v ? v : A(0)}};  // a NaN max comes with a NaN sum
    }
    // Branch-free (selects only), so a row of accumulators walking an input
    // row vectorises: a larger x rescales the sum (t' = (t + 1) e, the old
    // maximum's 1 joining the sum), an equal one (also +-inf == +-inf) adds
    // 1, a smaller one adds exp(x - m); a NaN on either side makes the max
    // NaN (x != x selects it; a NaN max stays: x > NaN is false) and t NaN.
    NR_HD static acc_t step(acc_t a, in_t xin) {
        const A x = to_real<A>(xin), m = a.v[0], t = a.v[1];
        const bool up = x > m;
        const A e = x == m ? A(1) : exp_nonpos(up ? m - x : x - m);
        return {{up || x != x ? x : m, up ? t * e + e : t + e}};
    }
    NR_HD static acc_t combine(acc_t a, acc_t b) {
        if (a.v[0] == b.v[0]) return {{a.v[0], (a.v[1] + b.v[1]) + A(1)}};
        if (a.v[0] > b.v[0]) {
            const A e = exp_nonpos(b.v[0] - a.v[0]);
            return {{a.v[0], a.v[1] + (b.v[1] * e + e)}};
        }
        if (b.v[0] > a.v[0]) {
            const A e = exp_nonpos(a.v[0] - b.v[0]);
            return {{b.v[0], b.v[1] + (a.v[1] * e + e)}};
        }
        const A nan = a.v[0] + b.v[0];  // a NaN max on either side
        return {{nan, nan}};
    }
    // (-inf, -1) always: the empty sum is 0, so t = -1 and the empty
    // log-sum-exp is -inf + log1p(-1) = -inf.
    NR_HD static bool initials(acc_t &a, bool) {
        a = {{neg_inf<A>(), A(-1)}};
        return true;
    }

    // Contiguous stream: per block, pass 1 finds the block max, pass 2 sums
    // exp(x - max) over the other elements and counts the ones equal to the
    // max (t = (count - 1) + sum, one rounding): the state of one block
    // (1 <= m <= BLOCK elements), merged pairwise by merge_blocks.  For A =
    // double pass 2 sums the table exp's 2^64 exp(x - max) (exp64_nonpos,
    // also in the SIMD kernel) and scales the block's sum back once.
    static constexpr int BLOCK = 1024;
    NR_HD static acc_t reduce_block(const in_t *xb, long long m) {
        A mx = to_real<A>(xb[0]), s = A(0), cnt = A(0);
        long long j0 = 1, j1 = 0;
#if defined(NR_HAVE_HOST_SIMD)
        if constexpr (simd::f64_lanes<T>::value && same_type<A, double>::value) {
            j0 = simd::max(xb, m, &mx);
            if (j0 == 0) j0 = 1;
        }
#endif
        for (long long j = j0; j < m; j++) {
            A v = to_real<A>(xb[j]);
            mx = v > mx || v != v ? v : mx;  // NaN-propagating
        }
#if defined(NR_HAVE_HOST_SIMD)
        if constexpr (simd::f64_lanes<T>::value && same_type<A, double>::value) {
            j1 = simd::sum_exp(xb, m, mx, &s, &cnt);
        }
#else
        if constexpr (same_type<A, double>::value) j1 = sum_exp_lanes(xb, m, mx, &s, &cnt);
#endif
        if constexpr (same_type<A, double>::value) {
            // s: 2^64 times the sum (exp64_nonpos), scaled back once
            for (long long j = j1; j < m; j++) {
                const double v = to_real<double>(xb[j]), d = v - mx;
                const bool eq = v == mx;  // also for +-inf; never for NaN
                cnt += eq ? 1.0 : 0.0;
                s += eq || d < EXP64_FLOOR ? 0.0 : exp64_nonpos(d);
            }
            s *= 5.421010862427522e-20;  // 2^-64
        } else {
            for (long long j = j1; j < m; j++) {
                A v = to_real<A>(xb[j]);
                const bool eq = v == mx;  // also for +-inf; never for NaN
                cnt += eq ? A(1) : A(0);
                s += eq ? A(0) : exp_nonpos(v - mx);
            }
        }
        if (mx != mx) return {{mx, mx}};
        return {{mx, (cnt - A(1)) + s}};
    }
    // acc merged with the states of blocks [k, k + BLOCK) of a stream of n
    // elements, block(k, m) giving one block's state: merge_pairwise's tree
    // (common.hpp).  The contiguous stream below and the gathered strided
    // stream (loops.hpp) share it.
    template <class F>
    NR_HD static acc_t merge_blocks(acc_t acc, long long n, F block) {
        return merge_pairwise<MaxSumExp>(acc, n, BLOCK, block);
    }
#if defined(NR_HOST_TRAITS)
    // Host only: row blocks reduced over axis 0 (defined in ../host_traits.hpp).
    static void rows_reduce(A *const *acc, const in_t *x, long long rows, long long cols,
                            long long stride);
    static void cols_block(const in_t *x, long long rows, long long cols, long long stride,
                           double *M, double *Tt, double *Ec);
    // One input row into one accumulator row (the row-walk pattern), on A
    // values for every input type, as rows_reduce.
    NR_TARGET_CLONES static bool row_walk(A *const *acc, const in_t *x, long long n);
#endif
    NR_HD static acc_t block_reduce(acc_t acc, const in_t *x, long long n) {
        return merge_blocks(acc, n, [x](long long k, long long m) { return reduce_block(x + k, m); });
    }
    // Where there are no vector kernels (not x86-64 with GCC/Clang, the
    // build option -Dsimd=false, the device): pass 2 of a block in scalar
    // code with the lanes of simd.hpp's SSE2 baseline sum_exp -- element j
    // in lane j % 8, the lanes folded in its order -- into *out (2^64 times
    // the sum) and *cnt (the maxima); returns the elements covered (a
    // multiple of 8), the caller adds the rest.  A block's sum is then 128
    // additions deep, not 1024: the bound of docs/accuracy.md (k = 144 +
    // ...) holds without SIMD, and on x86-64 these are the baseline level's
    // bits.
    NR_HD static long long sum_exp_lanes(const in_t *x, long long m, double mx, double *out,
                                         double *cnt) {
        double a[8] = {}, c[8] = {};
        long long k = 0;
        for (; k + 8 <= m; k += 8) {
            for (int l = 0; l < 8; l++) {
                const double v = to_real<double>(x[k + l]), d = v - mx;
                const bool eq = v == mx;  // also for +-inf; never for NaN
                c[l] += eq ? 1.0 : 0.0;
                a[l] += eq || d < EXP64_FLOOR ? 0.0 : exp64_nonpos(d);
            }
        }
        *out = lanes_fold(a);
        *cnt = lanes_fold(c);
        return k;
    }
    // The 8 lanes (two per SSE2 vector, four vectors) as the baseline adds
    // them: the vectors pairwise, then the two lanes.
    NR_HD static double lanes_fold(const double *a) {
        return ((a[0] + a[2]) + (a[4] + a[6])) + ((a[1] + a[3]) + (a[5] + a[7]));
    }
};

// log(|sum(b exp(x))|) of two sources (x, b), scipy.special.logsumexp(x,
// b=b)'s meaning: the states of MaxSumExp with each element's exp scaled by
// its b, t = sum(b exp(x - m)) - 1, so the sum may be negative (t < -1) or
// zero (t = -1); the result is m + log(|t + 1|), computed as m + log1p(t)
// where t > -1 (its precision near 0: logsumexp([0, -40], b=[1, 1]) =
// 4.2e-18), and the sign is that of t + 1.  An element with b = 0 is no
// element (scipy masks its x to -inf: an inf there does not count).  The
// max is taken over the elements that count; NaN propagates.
//
// A sum far below the max's 1 (|t + 1| < 1/2: small or cancelling b) would
// lose its digits in t = sum - 1 (b = 1e-20 gives t = -1 exactly), so every
// state that the traits make (lift, a block, a merge) is kept normal: m is
// a reference, the sum is exp(m) (1 + t), and where m is finite either
// |1 + t| >= 1/2 or the sum is zero.  A smaller sum S moves into the
// reference, (m + log|S|, 0) or (m + log|S|, -2) by its sign, so its
// relative precision is kept; a zero sum is the empty state (-inf, -1).
// m is then at most the max, and the result m + log(|t + 1|) is within a
// few ulps of log|S| + max wherever the sum itself is (no cancellation).
// A sum above 2^512 (b near the largest double) moves the same way, so no
// sum overflows: b = [1e308, 1e308] gives log(2e308), as SciPy.
template <class T, class A>
struct MaxSumExpB {
    static constexpr int nsrc = 2;
    using in_t = sources<T, 2>;  // (x, b)
    using out_t = A;
    static constexpr int nout = 2;
    using base = MaxSumExp<A, A>;
    using acc_t = typename base::acc_t;

    NR_HD static acc_t lift(in_t s) { return lift_xb(to_real<A>(s.v[0]), to_real<A>(s.v[1])); }
    NR_HD static acc_t lift_xb(A x, A b) {
        if (b == A(0)) return {{neg_inf<A>(), A(-1)}};
        if (x != x || b != b) return {{x + b, x + b}};
        return of_sum(x, b, A(0));
    }
    // One element into a state (the walks of columns, scans, groups): no
    // log unless the sum itself falls below 1/2 (lift's small-b move would
    // take one per element): a larger x takes the old sum down by e and
    // adds b, a smaller or equal one adds b exp(x - m); then normal().
    NR_HD_ALWAYS static acc_t step(acc_t a, in_t s) {
        const A x = to_real<A>(s.v[0]), b = to_real<A>(s.v[1]), m = a.v[0], t = a.v[1];
        if (b == A(0)) return a;
        if (b != b || m != m || !is_finite(x)) return combine(a, lift_xb(x, b));
        if (x > m) {
            const A e = exp_nonpos(m - x);
            return of_sum(x, b, t * e + e);  // sum (1 + t) e + b, t' = (b - 1) + (1 + t) e
        }
        const A tb = t + (x == m ? b : b * exp_nonpos(x - m));
        // the common case first: a positive sum in [1/2, 2^512), normal as it is
        if (tb >= A(-0.5) && tb < A(1e154)) return {{m, tb}};
        return normal({{m, tb}});
    }
    NR_HD_ALWAYS static acc_t combine(acc_t a, acc_t b) { return normal(base::combine(a, b)); }
    // The state of the sum c + s times exp(mx), c the b of the elements at
    // the max (t = (c - 1) + s, one rounding), with the sum moved into the
    // reference where it is below 1/2 (see above).
    NR_HD_ALWAYS static acc_t of_sum(A mx, A c, A s) {
        const A sum = c + s;
        if (is_finite(mx) && !within(sum)) return moved(mx, sum);
        return {{mx, (c - A(1)) + s}};
    }
    // A state whose |1 + t| fell below 1/2 (a merge of cancelling sums:
    // 1 + t is exact there, Sterbenz) or grew past 2^512 (b near the
    // largest double) moves its sum into the reference.
    NR_HD_ALWAYS static acc_t normal(acc_t a) {
        const A t = a.v[1];
        if (is_finite(a.v[0]) && !within(A(1) + t)) return moved(a.v[0], A(1) + t);
        return a;
    }
    // |sum| in [1/2, 2^512] (or NaN): a normal state's sum.  The upper bound
    // keeps every merge of two normal states finite (2^512 + 2^512 e), so
    // weights b up to the largest double sum without overflowing.
    NR_HD_ALWAYS static bool within(A sum) {
        const A big = A(1.3407807929942597e+154);  // 2^512
        return !(sum < A(0.5) && sum > A(-0.5)) && !(sum > big || sum < -big);
    }
    NR_HD static acc_t moved(A m, A sum) {
        if (sum == A(0)) return {{neg_inf<A>(), A(-1)}};
        return {{m + log_nonneg(sum < A(0) ? -sum : sum), sum < A(0) ? A(-2) : A(0)}};
    }
    NR_HD static bool initials(acc_t &a, bool empty) { return base::initials(a, empty); }

    // Contiguous stream: per block, pass 1 finds the max of the elements
    // that count, pass 2 sums b exp(x - max) over the others and the b of
    // the ones equal to the max (t = (sum of those b - 1) + sum), merged
    // pairwise by MaxSumExp's tree.
    static constexpr int BLOCK = 1024;
    NR_HD static acc_t reduce_block(const in_t *xb, long long m) {
        A mx = neg_inf<A>();
        bool any = false, nan = false;
        for (long long j = 0; j < m; j++) {
            const A v = to_real<A>(xb[j].v[0]), b = to_real<A>(xb[j].v[1]);
            const bool counts = b != A(0);
            nan = nan || (counts && (v != v || b != b));
            any = any || counts;
            mx = counts && v > mx ? v : mx;
        }
        if (nan) return steps(xb, m);
        if (!any) return {{neg_inf<A>(), A(-1)}};
        A s = A(0), c = A(0);
        for (long long j = 0; j < m; j++) {
            const A v = to_real<A>(xb[j].v[0]), b = to_real<A>(xb[j].v[1]);
            const bool eq = v == mx;  // also for +-inf
            c += eq ? b : A(0);
            s += eq || b == A(0) ? A(0) : b * exp_nonpos(v - mx);
        }
        if (is_finite(mx) && !is_finite(c + s)) return steps(xb, m);
        return of_sum(mx, c, s);
    }
    // A block with a NaN, or whose sums overflowed (b near the largest
    // double) or met an infinite b, element by element: every state normal,
    // nothing overflows.
    NR_HD static acc_t steps(const in_t *xb, long long m) {
        acc_t a = {{neg_inf<A>(), A(-1)}};
        for (long long j = 0; j < m; j++) a = step(a, xb[j]);
        return a;
    }
    NR_HD static acc_t steps_sources(const T *xs, const T *bs, long long m) {
        acc_t a = {{neg_inf<A>(), A(-1)}};
        for (long long j = 0; j < m; j++) a = step(a, in_t{{xs[j], bs[j]}});
        return a;
    }
    template <class F>
    NR_HD static acc_t merge_blocks(acc_t acc, long long n, F block) {
        return merge_pairwise<MaxSumExpB>(acc, n, BLOCK, block);
    }
    NR_HD static acc_t block_reduce(acc_t acc, const in_t *x, long long n) {
        return merge_blocks(acc, n, [x](long long k, long long m) { return reduce_block(x + k, m); });
    }
    // The same on the two streams as they lie (src[0] x, src[1] b; loops.hpp
    // reads contiguous streams in place and gathers strided ones block by
    // block into the same tree): on the host, float64 lanes for both
    // passes (simd.hpp max_b and sum_exp_b); for A = double pass 2 sums
    // b 2^64 exp(x - max) (exp64_nonpos, as MaxSumExp) and scales the sum
    // back once, redone with exp_nonpos where that sum is not finite (b
    // near the largest double).
    NR_HD static acc_t reduce_block_sources(const T *const *src, long long m) {
        const T *xs = src[0], *bs = src[1];
        A mx = neg_inf<A>();
        bool any = false, nan = false;
        long long j0 = 0;
#if defined(NR_HAVE_HOST_SIMD)
        if constexpr (simd::f64_lanes<T>::value && same_type<A, double>::value) {
            double v;
            int f = 0;
            j0 = simd::max_b(xs, bs, m, &v, &f);
            if (j0 > 0) {
                mx = v;
                any = (f & 1) != 0;
                nan = (f & 2) != 0;
            }
        }
#endif
        for (long long j = j0; j < m; j++) {
            const A v = to_real<A>(xs[j]), b = to_real<A>(bs[j]);
            const bool counts = b != A(0);
            nan = nan || (counts && (v != v || b != b));
            any = any || counts;
            mx = counts && v > mx ? v : mx;
        }
        if (nan) return steps_sources(xs, bs, m);
        if (!any) return {{neg_inf<A>(), A(-1)}};
        A s = A(0), c = A(0);
        if constexpr (same_type<A, double>::value) {
            long long j1 = 0;
#if defined(NR_HAVE_HOST_SIMD)
            if constexpr (simd::f64_lanes<T>::value) j1 = simd::sum_exp_b(xs, bs, m, mx, &s, &c);
#else
            j1 = sum_exp_b_lanes(xs, bs, m, mx, &s, &c);
#endif
            for (long long j = j1; j < m; j++) {
                const double v = to_real<double>(xs[j]), b = to_real<double>(bs[j]), d = v - mx;
                const bool eq = v == mx;  // also for +-inf
                c += eq ? b : 0.0;
                s += eq || b == 0.0 || d < EXP64_FLOOR ? 0.0 : b * exp64_nonpos(d);
            }
            s *= 5.421010862427522e-20;  // 2^-64
            if (is_finite(c + s)) return of_sum(mx, c, s);
            s = A(0);
            c = A(0);
        }
        for (long long j = 0; j < m; j++) {
            const A v = to_real<A>(xs[j]), b = to_real<A>(bs[j]);
            const bool eq = v == mx;  // also for +-inf
            c += eq ? b : A(0);
            s += eq || b == A(0) ? A(0) : b * exp_nonpos(v - mx);
        }
        if (is_finite(mx) && !is_finite(c + s)) return steps_sources(xs, bs, m);
        return of_sum(mx, c, s);
    }
    NR_HD static acc_t block_reduce_sources(acc_t acc, const T *const *src, long long n) {
        return merge_blocks(acc, n, [src](long long k, long long m) {
            const T *p[2] = {src[0] + k, src[1] + k};
            return reduce_block_sources(p, m);
        });
    }
    // Without vector kernels: simd.hpp's baseline sum_exp_b in scalar code,
    // as MaxSumExp::sum_exp_lanes (element j in lane j % 8; on x86-64, whose
    // baseline has no FMA, the product b e is rounded on its own as there).
    NR_HD static long long sum_exp_b_lanes(const T *xs, const T *bs, long long m, double mx,
                                           double *out, double *cnt) {
        double a[8] = {}, c[8] = {};
        long long k = 0;
        for (; k + 8 <= m; k += 8) {
            for (int l = 0; l < 8; l++) {
                const double v = to_real<double>(xs[k + l]), b = to_real<double>(bs[k + l]), d = v - mx;
                const double p = b * exp64_nonpos(d);
                const bool eq = v == mx;  // also for +-inf
                a[l] = eq || d < EXP64_FLOOR || b == 0.0 ? a[l] : a[l] + p;
                c[l] = eq ? c[l] + b : c[l];
            }
        }
        *out = base::lanes_fold(a);
        *cnt = base::lanes_fold(c);
        return k;
    }
};

}  // namespace nr
