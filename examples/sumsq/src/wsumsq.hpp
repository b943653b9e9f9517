// A reduction of two arrays: the weighted sums (sum(w x), sum(w x**2)) of
// data x with weights w, in one pass over both -- numreduce's extension API
// 1.1 (`nsrc`).  numreduce's loop templates make the ufunc wsumsq(x, w) =
// (w x, w x**2) (one element's state) and its reduction:
// numreduce.reduce(wsumsq, (x, w), axis) broadcasts x and w together and
// returns (sum(w x), sum(w x**2)); merge combines two such states.
#pragma once

#include <numreduce/traits/common.hpp>  // NR_HD, nr::sources, nr::to_real

// T: the element type of both sources; A: the accumulation and output type.
template <class T, class A = double>
struct WSumSq {
    static constexpr int nsrc = 2;       // two sources per element: (x, w)
    using in_t = nr::sources<T, 2>;      // s.v[0] is x, s.v[1] is w
    using out_t = A;
    static constexpr int nout = 2;
    struct acc_t {
        A v[2];  // sum(w x), sum(w x**2)
    };

    NR_HD static acc_t lift(in_t s) {
        const A x = nr::to_real<A>(s.v[0]), wx = nr::to_real<A>(s.v[1]) * x;
        return {{wx, wx * x}};
    }
    NR_HD static acc_t step(acc_t a, in_t s) {
        const acc_t b = lift(s);
        return {{a.v[0] + b.v[0], a.v[1] + b.v[1]}};
    }
    NR_HD static acc_t combine(acc_t a, acc_t b) {
        return {{a.v[0] + b.v[0], a.v[1] + b.v[1]}};
    }
    NR_HD static bool initials(acc_t &a, bool) {
        a = acc_t{{A(0), A(0)}};
        return true;
    }
};
