// (s, e): compensated summation.  The forward ufunc is the error-free
// transformation twosum(a, b) = (fl(a + b), exact error); the reduction is
// Neumaier / Kahan-Babuska summation: every step's rounding error (TwoSum, so
// no magnitude branch) is accumulated in e, and the sum is s + e.
//
// Bound: |(s + e) - sum(x)| <= eps |sum(x)| + n eps^2 sum|x| (about 1 ulp of
// the result unless n * cond * eps > 1, cond = sum|x| / |sum x|).
// Accumulates in A: float64 for bool/integers, float32 for float16, the input
// type for float32/float64/long double.
#pragma once
#include "common.hpp"

namespace nr {

template <class T, class A>
struct TwoSum {
    using in_t = T;
    using out_t = A;
    static constexpr int nout = 2;
    struct acc_t {
        A v[2];  // sum, accumulated error
    };

    // The error of a non-finite sum is 0 (inf + x = inf exactly; NaN is NaN).
    NR_HD static acc_t add(A s0, A x, A e0) {
        A s, e;
        two_sum(s0, x, s, e);
        return {{s, is_finite(s) ? e0 + e : e0}};
    }
    NR_HD static acc_t lift(in_t x) { return {{to_real<A>(x), A(0)}}; }
    NR_HD static acc_t step(acc_t a, in_t x) { return add(a.v[0], to_real<A>(x), a.v[1]); }
    NR_HD static acc_t combine(acc_t a, acc_t b) { return add(a.v[0], b.v[0], a.v[1] + b.v[1]); }
    // -0.0 seeds non-empty sums (so that sum([-0.0]) is -0.0); 0.0 is the
    // value of an empty one -- NumPy's rule for np.add.
    NR_HD static bool initials(acc_t &a, bool empty) {
        a = empty ? acc_t{{A(0), A(0)}} : acc_t{{-A(0), -A(0)}};
        return true;
    }
};

}  // namespace nr
