// (max, sum of exp(x - max)) -- log-sum-exp in one pass, with scipy's
// semantics: logsumexp = max + log(sum).  +inf wins, NaN propagates, all -inf
// (and empty) gives -inf.  Accumulates in A (float64 for everything up to
// float64, long double for long double).
#pragma once
#include "expfn.hpp"
#include "../simd.hpp"  // host-only vector kernels (nothing under NVRTC)

namespace nr {

template <class T, class A>
struct MaxSumExp {
    using in_t = T;
    using out_t = A;
    static constexpr int nout = 2;
    struct acc_t {
        A v[2];  // running max, sum of exp(x - max)
    };

    NR_HD static acc_t lift(in_t x) { return {{to_real<A>(x), A(1)}}; }
    // Branch-free (selects only), so a row of accumulators walking an input
    // row vectorises: a larger x rescales the sum, an equal one (also
    // +-inf == +-inf) adds 1, a NaN on either side turns the sum NaN.
    NR_HD static acc_t step(acc_t a, in_t xin) {
        const A x = to_real<A>(xin), m = a.v[0], s = a.v[1];
        const bool up = x > m;
        const A e = x == m ? A(1) : exp_nonpos(up ? m - x : x - m);
        return {{up ? x : m, up ? s * e + A(1) : s + e}};
    }
    NR_HD static acc_t combine(acc_t a, acc_t b) {
        if (a.v[0] == b.v[0]) return {{a.v[0], a.v[1] + b.v[1]}};
        if (a.v[0] > b.v[0]) return {{a.v[0], a.v[1] + b.v[1] * exp_nonpos(b.v[0] - a.v[0])}};
        if (b.v[0] > a.v[0]) return {{b.v[0], b.v[1] + a.v[1] * exp_nonpos(a.v[0] - b.v[0])}};
        return {{a.v[0] + b.v[0], a.v[1] + b.v[1]}};  // a NaN max
    }
    // (-inf, 0) always: the empty log-sum-exp is -inf + log(0) = -inf.
    NR_HD static bool initials(acc_t &a, bool) {
        a = {{neg_inf<A>(), A(0)}};
        return true;
    }

    // Contiguous stream: per block, pass 1 finds the block max, pass 2 sums
    // exp(x - max) (vectorised exp); blocks merge with combine().
    static constexpr int BLOCK = 1024;
    NR_HD static acc_t block_reduce(acc_t acc, const in_t *x, long long n) {
        for (long long k = 0; k < n; k += BLOCK) {
            const long long m = (n - k) < BLOCK ? (n - k) : BLOCK;
            const in_t *xb = x + k;
            A mx = to_real<A>(xb[0]), s = A(0);
            long long j0 = 1, j1 = 0;
#if defined(NR_HAVE_HOST_SIMD)
            if constexpr (same_type<T, double>::value && same_type<A, double>::value) {
                j0 = simd::max(xb, m, &mx);
                if (j0 == 0) j0 = 1;
            }
#endif
            for (long long j = j0; j < m; j++) {
                A v = to_real<A>(xb[j]);
                mx = v > mx || mx != mx ? v : mx;
            }
#if defined(NR_HAVE_HOST_SIMD)
            if constexpr (same_type<T, double>::value && same_type<A, double>::value) {
                j1 = simd::sum_exp(xb, m, mx, &s);
            }
#endif
            for (long long j = j1; j < m; j++) {
                A v = to_real<A>(xb[j]);
                s += v == mx ? A(1) : exp_nonpos(v - mx);  // v == mx also for inf
            }
            acc = combine(acc, acc_t{{mx, s}});
        }
        return acc;
    }
};

}  // namespace nr
