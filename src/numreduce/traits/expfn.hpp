// exp() for the log-sum-exp reductions: correctly rounded to about 1 ulp and
// written without library calls or branches on the hot path, so that the
// compiler vectorises the loops that call it (std::exp does not vectorise
// without -ffast-math, which the project never uses).  long double goes to
// the library (no vector units for it anyway).
#pragma once
#include "common.hpp"

#if !defined(__CUDACC_RTC__)
#include <cmath>
#endif

namespace nr {

// Reinterpret the bits of a value (scalar or GCC vector) as another type of
// the same size, through a union: defined for GCC/Clang (their documented
// type-punning rule, vector types included) and for NVCC/NVRTC, and -- unlike
// __builtin_memcpy -- known to NVRTC.  Compiles to a register move.
template <class To, class From>
NR_HD To bitcast(From f) {
    static_assert(sizeof(To) == sizeof(From), "bitcast needs equal sizes");
    union {
        From f;
        To t;
    } u;
    u.f = f;
    return u.t;
}

// exp(x) for x <= 0 (and NaN/-inf), the only arguments log-sum-exp needs:
// n = round(x / ln 2), r = x - n ln 2 (Cody-Waite, two-part ln 2), exp(r) by
// a degree-13 Taylor polynomial (|r| <= 0.347: truncation < 1e-17 relative),
// then scaled by 2^n built from exponent bits.  V is double or a GCC vector
// of doubles and U the matching (vector of) *unsigned* int64 -- the exponent
// arithmetic below wraps and shifts bit patterns, which is defined only for
// unsigned integers (a NaN's pattern is negative as a signed int64) -- so the
// same code runs element by element and lane-parallel (simd.hpp).
template <class V, class U>
NR_HD V exp_nonpos_v(V x) {
    const double log2e = 1.4426950408889634;
    const double ln2_hi = 0.6931471803691238;  // 32 significant bits: n * ln2_hi is exact
    const double ln2_lo = 1.9082149292705877e-10;
    const double shifter = 6755399441055744.0;  // 1.5 * 2^52: rounds to an integer
    const V zero = V{};  // 0.0, or a vector of zeros
    const V lowest = zero - 745.5;
    const V xc = x < -745.5 ? lowest : x;
    const V t = xc * log2e + shifter;
    const V n = t - shifter;
    const V r = (xc - n * ln2_hi) - n * ln2_lo;
    V p = r * (1.0 / 6227020800.0) + 1.0 / 479001600.0;  // 1/13!, 1/12!
    p = p * r + 1.0 / 39916800.0;
    p = p * r + 1.0 / 3628800.0;
    p = p * r + 1.0 / 362880.0;
    p = p * r + 1.0 / 40320.0;
    p = p * r + 1.0 / 5040.0;
    p = p * r + 1.0 / 720.0;
    p = p * r + 1.0 / 120.0;
    p = p * r + 1.0 / 24.0;
    p = p * r + 1.0 / 6.0;
    p = p * r + 0.5;
    p = p * r + 1.0;
    p = p * r + 1.0;
    // n sits in the low bits of t (t's ulp is 1): 2^(n + 64) -- a normal
    // number for n >= -1086 -- from integer operations, then scaled back.
    // Unsigned throughout: for x in [-745.5, 0] the pattern of t is
    // 0x4338000000000000 + n with n in [-1076, 0], so the sum is the biased
    // exponent of 2^(n + 64) in [11, 1087]; for a NaN x the bits wrap
    // (defined for unsigned) and the NaN in p makes the product NaN anyway.
    const U e = (bitcast<U>(t) - 0x4338000000000000ULL + (64ULL + 1023ULL)) << 52;
    const V scaled = (p * bitcast<V>(e)) * 5.421010862427522e-20;  // 2^-64
    // 0 for -inf / underflow; NaN stays NaN (its comparison is false).
    return x < -745.5 ? zero : scaled;
}

NR_HD double exp_nonpos(double x) { return exp_nonpos_v<double, unsigned long long>(x); }

NR_HD long double exp_nonpos(long double x) {
#if defined(__CUDACC_RTC__)
    return exp((double)x);
#else
    return std::exp(x);
#endif
}

}  // namespace nr
