// The whole reduction: (sum, sum of squares) in one pass, as a numreduce
// traits struct.  numreduce's loop templates turn it into the elementwise
// ufunc loop, the reduction loop and every engine method (module.cpp
// registers it).  sumsq(x1, x2) = (x1 + x2, x1**2 + x2**2); its reduction
// over an axis gives (sum(a), sum(a**2)) -- with count, enough for a mean
// and a (naive, cancellation-prone) variance; numreduce's own `moments` is
// the numerically careful one.
#pragma once

#include <numreduce/traits/common.hpp>  // NR_HD, nr::to_real, nr::half16

// T: the element type; A: the accumulation and output type (float64 for
// bool, integers, float16/32/64; long double for long double).  NR_HD
// (inline on the host, __host__ __device__ under NVRTC) and no library
// includes keep the header device-pure, as numreduce's own traits are.
template <class T, class A = double>
struct SumSq {
    using in_t = T;
    using out_t = A;
    static constexpr int nout = 2;
    struct acc_t {
        A v[2];  // sum, sum of squares
    };

    NR_HD static acc_t lift(T x) {
        const A y = nr::to_real<A>(x);
        return {{y, y * y}};
    }
    NR_HD static acc_t step(acc_t a, T x) {
        const A y = nr::to_real<A>(x);
        return {{a.v[0] + y, a.v[1] + y * y}};
    }
    NR_HD static acc_t combine(acc_t a, acc_t b) {
        return {{a.v[0] + b.v[0], a.v[1] + b.v[1]}};
    }
    // Every sum starts from 0 (the identity, so where= and empty slices
    // work): an empty sum is (0, 0), and a sum of -0.0 values is 0.0, as
    // np.sum gives.
    NR_HD static bool initials(acc_t &a, bool) {
        a = acc_t{{A(0), A(0)}};
        return true;
    }
};
