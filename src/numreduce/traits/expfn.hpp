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
NR_HD_ALWAYS void bitcast_to(const From &f, To &t) {
    static_assert(sizeof(To) == sizeof(From), "bitcast needs equal sizes");
    union {
        From f;
        To t;
    } u;
    u.f = f;
    t = u.t;
}
// The same as a value (scalars; a wide vector is passed by reference,
// through bitcast_to: see exp64_scale).
template <class To, class From>
NR_HD To bitcast(From f) {
    To t;
    bitcast_to(f, t);
    return t;
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

// The block kernels' exp (the contiguous stream's reduce_block and the SIMD
// sum_exp kernels of simd.hpp): 2^64 exp(x) for x in [-745.5, 0] (and NaN,
// which stays NaN), by a table of 2^(j/16): N = round(16 x / ln 2) =
// 16 q + j, r = x - N ln2/16 (Cody-Waite, |r| <= ln2/32), exp(r) - 1 by a
// degree-7 Taylor polynomial (truncation < 1.3e-18 relative), and
//     exp(x) = 2^q 2^(j/16) (1 + (exp(r) - 1) + lo_j / hi_j),
// hi_j = 2^(j/16) rounded to double, lo_j its remainder, hi_j's exponent
// field raised by q + 64 in integer arithmetic.  Six fewer multiply-adds than
// exp_nonpos_v, and no selects: within 0.52 ulp before the caller's 2^-64.
// The result is scaled by 2^64 so that it is a normal number down to
// x = -745.5 (the callers sum the scaled terms and multiply the sum by
// 2^-64 once: a subnormal sum is rounded once).  For x < -745.5 (-inf
// included) the result is meaningless (NaN or garbage): the callers select
// 0 there -- exp(x) < 2^-1075 rounds to 0.  V is double or a GCC vector of
// doubles, U the matching unsigned int64 (vector); Look::get(j, kb, rel)
// fetches, per lane, exp_tab_bits(j & 15) and exp_tab_rel(j & 15) (ExpTab
// below for scalars; simd.hpp has in-register permutes of the same table).
// The table (j = 0..7, 8..15): bits(hi_j) - (j << 48) + (64 << 52), so that
// (N << 48) + entry is the pattern of hi_j 2^(q + 64); and lo_j / hi_j, with
// lo_j = 2^(j/16) - hi_j, rounded.  Macros so that simd.hpp builds its
// vector constants from the same digits.
#define NR_EXP_TAB_BITS_0                                                                 \
    0x43f0000000000000ULL, 0x43efb5586cf9890fULL, 0x43ef72b83c7d517bULL, 0x43ef387a6e756238ULL, \
        0x43ef06fe0a31b715ULL, 0x43eedea64c123422ULL, 0x43eebfdad5362a27ULL, 0x43eeab07dd485429ULL
#define NR_EXP_TAB_BITS_1                                                                 \
    0x43eea09e667f3bcdULL, 0x43eea11473eb0187ULL, 0x43eeace5422aa0dbULL, 0x43eec49182a3f090ULL, \
        0x43eee89f995ad3adULL, 0x43ef199bdd85529cULL, 0x43ef5818dcfba487ULL, 0x43efa4afa2a490daULL
#define NR_EXP_TAB_REL_0                                                                  \
    0.0, 8.189317638195515e-17, -2.7939114859515733e-17, 7.826573258636076e-17,            \
        3.3484623336251524e-17, 3.750854201303127e-17, 1.9572585293112036e-17, 5.68648095791174e-17
#define NR_EXP_TAB_REL_1                                                                  \
    -6.835808657661922e-17, -2.3591094770850053e-17, 5.1548301170786783e-17,               \
        1.5341410053603723e-17, 4.875160526227062e-17, 1.685487290628973e-17,              \
        1.790126907604513e-17, -5.545065618639427e-17
NR_HD unsigned long long exp_tab_bits(unsigned long long j) {
    const unsigned long long t[16] = {NR_EXP_TAB_BITS_0, NR_EXP_TAB_BITS_1};
    return t[j & 15];
}
NR_HD double exp_tab_rel(unsigned long long j) {
    const double t[16] = {NR_EXP_TAB_REL_0, NR_EXP_TAB_REL_1};
    return t[j & 15];
}
// Below this argument the callers of exp64_nonpos_v take 0 (exp < 2^-1075).
constexpr double EXP64_FLOOR = -745.5;
// Always inlined on the host (NR_HD_ALWAYS, common.hpp): the vector
// instantiations must compile into their SIMD variant's code (a call would
// pass wide vectors across an ISA boundary: the baseline ABI).
// exp64_nonpos_v in its two halves around the table lookup, for callers
// whose lookup needs an instruction set of its own (simd.hpp's AVX-512
// permutes: a function with a target attribute may be inlined into one with
// a wider target, never into one without): the reduction (t with N in its
// low bits, r, and the polynomial p = (exp(r) - 1) / r) ...
// Their steps as macros, PIN(v) applied to every product that the next add
// could fuse with: nothing here (the compiler may fuse, -ffp-contract=fast);
// simd.hpp's exp64u_* passes NR_UNFUSED (every product rounded on its own,
// the scalar baseline's bits at every level) -- a register pin needs its
// vector's instruction set, which these target-free templates do not have,
// so the pinned copy is expanded inside each SIMD variant.
#define NR_EXP64_NOPIN(v) ((void)0)
#define NR_EXP64_REDUCE_STEPS(V, x, t, r, p, PIN)                                          \
    do {                                                                                 \
        V nr_a = (x) * 23.083120654223414; /* 16 / ln 2 */                               \
        PIN(nr_a);                                                                       \
        t = nr_a + 6755399441055744.0; /* 1.5 * 2^52: N in t's low bits (ulp 1) */       \
        const V nr_n = t - 6755399441055744.0;                                           \
        /* (ln 2)/16 in two parts, the high one of 32 significant bits: */               \
        /* N l_hi is exact */                                                            \
        V nr_nh = nr_n * 0.04332169877307024, nr_nl = nr_n * 1.1926343307941173e-11;     \
        PIN(nr_nh);                                                                      \
        PIN(nr_nl);                                                                      \
        r = ((x) - nr_nh) - nr_nl;                                                       \
        p = r * (1.0 / 5040.0);                                                          \
        PIN(p);                                                                          \
        p = p + 1.0 / 720.0;                                                             \
        const double nr_cf[5] = {1.0 / 120.0, 1.0 / 24.0, 1.0 / 6.0, 0.5, 1.0};          \
        for (int nr_i = 0; nr_i < 5; nr_i++) {                                           \
            V nr_q = p * r;                                                              \
            PIN(nr_q);                                                                   \
            p = nr_q + nr_cf[nr_i];                                                      \
        }                                                                                \
        /* p = (exp(r) - 1) / r */                                                       \
    } while (0)
// ... and the result from them and the table's entry (kb, rel) for t's
// bits tb: q = exp(r) (1 + lo/hi) - 1, to first order; t's pattern is
// 0x4338000000000000 + N, shifted by 48 (mod 2^64, unsigned) that is
// N << 48 = (q << 52) + (j << 48), so the sum has the exponent field of
// hi_j plus q + 64 (in [11, 1087] for x in [-745.5, 0]).
#define NR_EXP64_SCALE_STEPS(V, tb, r, p, kb, rel, out, PIN)                               \
    do {                                                                                 \
        V nr_pr = (p) * (r);                                                             \
        PIN(nr_pr);                                                                      \
        const V nr_q = nr_pr + (rel);                                                    \
        V nr_s;                                                                          \
        bitcast_to(((tb) << 48) + (kb), nr_s);                                           \
        V nr_sq = nr_s * nr_q;                                                           \
        PIN(nr_sq);                                                                      \
        out = nr_sq + nr_s;                                                              \
    } while (0)
template <class V>
NR_HD_ALWAYS void exp64_reduce(const V &x, V &t, V &r, V &p) {
    NR_EXP64_REDUCE_STEPS(V, x, t, r, p, NR_EXP64_NOPIN);
}
// (Vectors by reference, results in out-parameters: a wide vector passed
// or returned by value from a function without its ISA would change the
// calling convention -- Clang refuses that even where the function is
// always inlined.)
template <class V, class U>
NR_HD_ALWAYS void exp64_scale(const U &tb, const V &r, const V &p, const U &kb, const V &rel, V &out) {
    NR_EXP64_SCALE_STEPS(V, tb, r, p, kb, rel, out, NR_EXP64_NOPIN);
}
template <class V, class U, class Look>
NR_HD_ALWAYS V exp64_nonpos_v(V x) {
    V t, r, p;
    exp64_reduce(x, t, r, p);
    U tb;
    bitcast_to(t, tb);
    U kb;
    V rel;
    Look::get(tb, kb, rel);
    V out;
    exp64_scale(tb, r, p, kb, rel, out);
    return out;
}
struct ExpTab {
    NR_HD static void get(unsigned long long j, unsigned long long &kb, double &rel) {
        kb = exp_tab_bits(j);
        rel = exp_tab_rel(j);
    }
};
NR_HD double exp64_nonpos(double x) { return exp64_nonpos_v<double, unsigned long long, ExpTab>(x); }

// log(x) for x >= 0, the library's (device: CUDA's), for the few states
// that move a small sum into their reference (logsumexp.hpp MaxSumExpB).
// A: double or long double (the device has double only).
template <class A>
NR_HD A log_nonneg(A x) {
#if defined(__CUDACC_RTC__)
    return log((double)x);
#else
    return std::log(x);
#endif
}

NR_HD long double exp_nonpos(long double x) {
#if defined(__CUDACC_RTC__)
    return exp((double)x);
#else
    return std::exp(x);
#endif
}

}  // namespace nr
