// (min |x|, max |x|): a reduction without initials whose lift is not the
// element itself (lift(-3) is (3, 3)).  Without initial values a reduction
// starts from its first element's *state*, lift(x) -- numreduce does that on
// every path (the whole array, rows, trailing axes, initial=None); starting
// from a copy of the raw first element would give max |[-3, 2]| = 2.  An
// empty reduction has no value (numreduce raises, as NumPy's np.max does).
#pragma once

#include <numreduce/traits/common.hpp>  // NR_HD

template <class T>
struct AbsMinMax {
    using in_t = T;
    using out_t = T;
    static constexpr int nout = 2;
    struct acc_t {
        T v[2];  // min |x|, max |x|
    };

    NR_HD static T mag(T x) { return x < T(0) ? -x : x; }  // NaN stays NaN
    NR_HD static acc_t lift(T x) { return {{mag(x), mag(x)}}; }
    NR_HD static acc_t combine(acc_t a, acc_t b) {
        // NaN-propagating, as np.minimum / np.maximum
        const T lo = a.v[0] != a.v[0] || a.v[0] < b.v[0] ? a.v[0] : b.v[0];
        const T hi = a.v[1] != a.v[1] || a.v[1] > b.v[1] ? a.v[1] : b.v[1];
        return {{lo, hi}};
    }
    NR_HD static acc_t step(acc_t a, T x) { return combine(a, lift(x)); }
    // No identity: every reduction starts from its first element's state.
    NR_HD static bool initials(acc_t &, bool) { return false; }
};
