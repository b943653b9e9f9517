// Host-only members of the reduction traits: the row-block kernels over
// axis 0 (rows_reduce) and the other loops that call the SIMD kernels of
// simd.hpp outside a guarded block.  They were defined inside the traits
// structs; they live here so that everything under traits/ is device-pure
// (NR_HD only, no library includes: the headers the CuPy mirror and NVRTC
// compile, installed as package data).  The traits declare these members only
// under NR_HOST_TRAITS, which this header defines before it includes them,
// so a host translation unit must include this header (loops.hpp does)
// before any traits header; the bodies are the in-class ones, moved verbatim
// (their indentation kept), defined out of class (and `inline`, as the in-class definitions were implicitly,
// so that the compiler's inlining and the generated code stay the same).
#pragma once
#define NR_HOST_TRAITS 1
#include <type_traits>

#include "simd.hpp"  // NR_HAVE_HOST_SIMD, NR_TARGET_CLONES, the vector kernels

#include "traits/argminmax.hpp"
#include "traits/logsumexp.hpp"
#include "traits/minmax.hpp"
#include "traits/moments.hpp"
#include "traits/summary.hpp"
#include "traits/twosum.hpp"

namespace nr {

// ---------------------------------------------------------------------------
// minmax.hpp (MinMaxOf: minimummaximum, fminfmax)
// ---------------------------------------------------------------------------

    // Rows of a C-ordered block reduced over axis 0 into the accumulator rows
    // acc[0] (min) and acc[1] (max), in place.  Integer/float data on the
    // host, NaN-propagating or skipping (fmin/fmax): per block of rows, column
    // tiles kept in vector registers while the block's rows stream past
    // (simd.hpp); the remaining columns, and every other case, step row by
    // row.  `stride` is in elements.
    template <class T, bool SKIP_NAN>
    NR_TARGET_CLONES inline void MinMaxOf<T, SKIP_NAN>::rows_reduce(out_t *const *acc, const in_t *x, long long rows,
                                            long long cols, long long stride) {
#if defined(NR_HAVE_HOST_SIMD)
        if constexpr (plain_arith<T>::value && sizeof(T) <= 8) {
            // rows whose accumulators fit in L1: streamed whole, in memory order
            if (2 * cols * (long long)sizeof(T) <= simd::row_stream_bytes() &&
                simd::rows_from_memory(rows * stride * (long long)sizeof(T)) &&
                simd::minmax_rows<T, SKIP_NAN && (T(0.5) != T(0))>(acc[0], acc[1], x, rows, cols,
                                                                   stride) == cols) {
                return;
            }
        }
#endif
        // Wider rows, blocks of 16: few enough concurrent row streams for the
        // prefetchers, enough rows to amortise the accumulator load/store.
        constexpr long long RB = 16;
        for (long long r0 = 0; r0 < rows; r0 += RB) {
            const long long rb = rows - r0 < RB ? rows - r0 : RB;
            const in_t *xb = x + r0 * stride;
            long long c0 = 0;
#if defined(NR_HAVE_HOST_SIMD)
            if constexpr (plain_arith<T>::value && sizeof(T) <= 8) {
                // (fmin/fmax of integers: the propagating kernel, there is no NaN)
                c0 = simd::minmax_cols<T, SKIP_NAN && (T(0.5) != T(0))>(acc[0], acc[1], xb, rb,
                                                                        cols, stride);
            }
#endif
            // (alias-free row pointers, so that the compiler vectorises
            // step() where it is branch-free: fmin/fmax, ...)
            out_t *__restrict lo = acc[0];
            out_t *__restrict hi = acc[1];
            for (long long r = 0; r < rb; r++) {
                const in_t *__restrict xr = xb + r * stride;
                for (long long c = c0; c < cols; c++) {
                    const acc_t a = step(acc_t{{lo[c], hi[c]}}, xr[c]);
                    lo[c] = a.v[0];
                    hi[c] = a.v[1];
                }
            }
        }
    }

    // The native axis-0 pattern: the column-tile kernel on a one-row block
    // (the vector min/max over the row, accumulators in place).
    template <class T, bool SKIP_NAN>
    inline bool MinMaxOf<T, SKIP_NAN>::row_walk(out_t *const *acc, const in_t *x, long long n) {
#if defined(NR_HAVE_HOST_SIMD)
        if constexpr (!SKIP_NAN && plain_arith<T>::value && sizeof(T) <= 8) {
            rows_reduce(acc, x, 1, n, n);
            return true;
        }
#endif
        return false;
    }

// ---------------------------------------------------------------------------
// moments.hpp (Moments: moments, nanmoments)
// ---------------------------------------------------------------------------

    // Rows of a C-ordered block reduced over axis 0 (one accumulator per
    // column, the accumulator rows count/mean/m2 updated in place),
    // column-parallel in tiles of CB columns.  Each column keeps a fixed
    // frame K (its running mean, else its first finite value) for the whole
    // call.  A block of RB rows is summarised in one pass by shifted sums
    //   S1 = sum(y), S2 = sum(y^2),   y = x - Kb,
    // Kb = K + the column's previous block mean in the frame (four rows per
    // sweep of the loops over columns, which vectorise; the accumulator rows
    // stay in L1), and M2_b = S2 - S1^2 / n_b.  That formula loses at most one bit
    // while the block mean lies within one standard deviation of Kb
    // (S2 <= 2 M2_b), which the previous block's mean makes the normal case,
    // slow trends included; a column block that fails the test (a first
    // block far from its first value, a jump, inf/NaN, overflow) is summarised
    // again exactly by the stream algorithm (two-pass per block).  Blocks
    // merge with Chan's update in the frame, M2 compensated, and a column's
    // frame moves to its first block's mean.  `stride` is in elements.
    template <class T, class A, bool SKIP_NAN>
    NR_TARGET_CLONES inline void Moments<T, A, SKIP_NAN>::rows_reduce(A *const *acc, const in_t *x, long long rows,
                                                              long long cols, long long stride) {
        A *cnt = acc[0], *mean = acc[1], *m2 = acc[2];
        A K[CB], cnt0[CB], mean0[CB], m20[CB], sc[CB], sm[CB], sq[CB], err[CB], last[CB], kb[CB], s1[CB], s2[CB], bn[CB];
        for (long long c0 = 0; c0 < cols; c0 += CB) {
            const long long cb = cols - c0 < CB ? cols - c0 : CB;
            // A fresh column's frame: the mean of its first block (one more
            // sweep over those rows), so that the block's shifted sums are
            // centred and its one-pass M2 holds; with the first value as
            // the frame, a column whose first value lay more than a standard
            // deviation from its mean (a third of normal data) failed the
            // test below and was gathered and summarised again by the
            // stream algorithm.  Where that mean is not finite (inf/NaN,
            // overflow, no number): the first finite value, as before.
            bool fresh_tile = false;
            for (long long c = 0; c < cb; c++) {
                fresh_tile = fresh_tile || cnt[c0 + c] == A(0);
                s1[c] = s2[c] = A(0);
            }
            if (fresh_tile) {
                const long long rb0 = rows < RB ? rows : RB;
                for (long long r = 0; r < rb0; r++) {
                    const in_t *xr = x + r * stride + c0;
                    for (long long c = 0; c < cb; c++) {
                        const A v = to_real<A>(xr[c]);
                        const bool use = !(SKIP_NAN && is_nan(v));
                        s1[c] += use ? v : A(0);
                        s2[c] += use ? A(1) : A(0);
                    }
                }
            }
            for (long long c = 0; c < cb; c++) {
                A k = A(0);
                if (cnt[c0 + c] > A(0)) {
                    k = mean[c0 + c];
                } else if (s2[c] > A(0) && is_finite(s1[c])) {
                    k = s1[c] / s2[c];
                } else {  // no finite first-block mean: the column's first finite value
                    for (long long r = 0; r < rows; r++) {
                        k = to_real<A>(x[r * stride + c0 + c]);
                        if (is_finite(k)) break;
                    }
                }
                K[c] = is_finite(k) ? k : A(0);
                cnt0[c] = cnt[c0 + c];
                mean0[c] = mean[c0 + c];
                m20[c] = m2[c0 + c];
                sc[c] = cnt[c0 + c];
                sm[c] = cnt[c0 + c] > A(0) ? mean[c0 + c] - K[c] : A(0);
                sq[c] = m2[c0 + c];
                err[c] = A(0);
                last[c] = sm[c];
            }
            for (long long r0 = 0; r0 < rows; r0 += RB) {
                const long long rb = rows - r0 < RB ? rows - r0 : RB;
                for (long long c = 0; c < cb; c++) {
                    kb[c] = K[c] + (is_finite(last[c]) ? last[c] : A(0));
                    s1[c] = s2[c] = A(0);
                    bn[c] = SKIP_NAN ? A(0) : A(rb);
                }
                long long r = r0;
                // The sums run on A values for every input type (rows
                // converted first where T is not A), so that integer and
                // float32 data give the bits of the same values in A: one
                // loop, contracted alike by the compiler for every type.
                A cv[4][CB];
                auto row = [&](long long rr, int slot) -> const A * {
                    if constexpr (same_type<T, A>::value) {
                        return x + rr * stride + c0;
                    } else {
                        const in_t *xi = x + rr * stride + c0;
                        for (long long c = 0; c < cb; c++) cv[slot][c] = to_real<A>(xi[c]);
                        return cv[slot];
                    }
                };
                if constexpr (!SKIP_NAN) {  // four rows per sweep: fewer L1 round trips
                    for (; r + 4 <= r0 + rb; r += 4) {
                        const A *x0 = row(r, 0), *x1 = row(r + 1, 1), *x2 = row(r + 2, 2),
                                *x3 = row(r + 3, 3);
                        for (long long c = 0; c < cb; c++) {
                            const A y0 = x0[c] - kb[c], y1 = x1[c] - kb[c];
                            const A y2 = x2[c] - kb[c], y3 = x3[c] - kb[c];
                            s1[c] += (y0 + y1) + (y2 + y3);
                            s2[c] += (y0 * y0 + y1 * y1) + (y2 * y2 + y3 * y3);
                        }
                    }
                }
                for (; r < r0 + rb; r++) {
                    const A *xr = row(r, 0);
                    for (long long c = 0; c < cb; c++) {
                        const bool use = !(SKIP_NAN && is_nan(xr[c]));
                        const A y = use ? xr[c] - kb[c] : A(0);
                        s1[c] += y;
                        s2[c] += y * y;
                        if (SKIP_NAN) bn[c] += use ? A(1) : A(0);
                    }
                }
                for (long long c = 0; c < cb; c++) {
                    if (bn[c] == A(0)) continue;
                    const A mb = s1[c] / bn[c], m2b = s2[c] - s1[c] * mb;
                    acc_t blk;
                    if (is_finite(s2[c]) && s1[c] * mb <= m2b) {
                        blk = {{bn[c], (kb[c] - K[c]) + mb, m2b}};
                    } else {  // gather the column's block: the exact stream algorithm
                        in_t col[RB];
                        for (long long r = 0; r < rb; r++) col[r] = x[(r0 + r) * stride + c0 + c];
                        blk = block_reduce_framed(acc_t{{A(0), A(0), A(0)}}, col, rb, frame_t{K[c], A(1)});
                    }
                    const bool fresh = sc[c] == A(0);
                    const acc_t m = merge(acc_t{{sc[c], sm[c], sq[c]}}, blk, err[c]);
                    sc[c] = m.v[0];
                    sm[c] = m.v[1];
                    sq[c] = m.v[2];
                    if (fresh && is_finite(sm[c])) {
                        // Move the frame to the first block's mean (exactly:
                        // K + sm = new K + new sm), so that a first value far
                        // from the rest costs no accuracy in later merges.
                        A k2, e;
                        two_sum(K[c], sm[c], k2, e);
                        K[c] = k2;
                        sm[c] = last[c] = e;
                    } else {
                        last[c] = blk.v[1];
                    }
                }
            }
            for (long long c = 0; c < cb; c++) {
                if (sq[c] == -neg_inf<A>()) {
                    // M2 overflowed: the column's frame may have too (see
                    // frame_t); redo it as one stream, in the halved frame.
                    const acc_t a0 = {{cnt0[c], mean0[c], m20[c]}};
                    const acc_t r = column_scaled(a0, x + c0 + c, rows, stride);
                    cnt[c0 + c] = r.v[0];
                    mean[c0 + c] = r.v[1];
                    m2[c0 + c] = r.v[2];
                    continue;
                }
                cnt[c0 + c] = sc[c];
                mean[c0 + c] = K[c] + sm[c];
                m2[c0 + c] = is_finite(sq[c]) ? sq[c] + err[c] : sq[c];
            }
        }
    }

    // One column (elements `stride` apart) reduced onto acc as a stream in
    // its halved frame, gathered in blocks (rows_reduce's overflow case).
    template <class T, class A, bool SKIP_NAN>
    inline auto Moments<T, A, SKIP_NAN>::column_scaled(acc_t acc, const in_t *x, long long rows, long long stride)
        -> acc_t {
        in_t col[RB];
        long long k = 0;
        while (k < rows && skip(x[k * stride])) k++;
        frame_t f = frame(acc, k < rows ? x + k * stride : x, k < rows ? 1 : 0);
        f.S = A(0.5);
        acc_t sh = to_frame(acc, f);
        for (long long r0 = 0; r0 < rows; r0 += RB) {
            const long long rb = rows - r0 < RB ? rows - r0 : RB;
            for (long long r = 0; r < rb; r++) col[r] = x[(r0 + r) * stride];
            sh = block_reduce_framed(sh, col, rb, f);
        }
        return from_frame(sh, f);
    }

// ---------------------------------------------------------------------------
// logsumexp.hpp (MaxSumExp: maxsumexp)
// ---------------------------------------------------------------------------

    // Rows of a C-order block reduced over axis 0 (the engine's _reduce_rows;
    // host only), in column blocks of CB and runs of R ~ sqrt(rows) rows
    // (R = 32 -- 16 for long double -- doubled while R * R < rows).  For
    // A = double (every input type but long double) each run merges into the
    // column states as a block of the contiguous stream is reduced, one
    // column per lane: pass 1 the new column maxima M' (the states' M and
    // the run's elements), pass 2 in row order the sum of the table exp's
    // 2^64 exp(x - M') over the elements other than M' and the count of
    // those equal to it, added to the state's sum rescaled to M' (T e + e,
    // e = exp(M - M'), where the max grew) -- simd.hpp's lse_cols in vector
    // lanes across the columns (every product rounded on its own, so every
    // level gives the bits of cols_block below, which runs without vector
    // kernels and for blocks narrower than one vector): a summation depth
    // of R + 4 rows / R, with no exp per column and run but one vector
    // exp64.  Not target_clones: the vector code is in the kernels
    // (dispatched by simd_level()), and cols_block's exp then has the
    // baseline's bits on every CPU.  long double steps every element into
    // the runs' states (the branch-free step vectorises across the
    // columns), and each run's states combine() into the accumulators.
    // Zen 4, one thread, AVX-512, ns per element of (rows, 2500): float32
    // 1.31 / 1.25 / 1.23 at 100 / 1000 / 4000 rows, float64 1.09 / 1.04 /
    // 1.25 (the former step loop with a combine() per run and column: 1.33 /
    // 1.60 / 1.75 and 1.28 / 1.41 / 1.45).
    template <class T, class A>
    inline void MaxSumExp<T, A>::rows_reduce(A *const *acc, const in_t *x, long long rows,
                                             long long cols, long long stride) {
        constexpr long long CB = 512;
        A bm[CB], bt[CB], ec[CB];  // run maxima and sums (scratch), the compensations
        long long R = same_type<A, double>::value ? 32 : 16;
        while (R * R < rows) R *= 2;
        for (long long c0 = 0; c0 < cols; c0 += CB) {
            const long long cb = cols - c0 < CB ? cols - c0 : CB;
            A *m = acc[0] + c0, *t = acc[1] + c0;
            for (long long c = 0; c < cb; c++) ec[c] = A(0);
            for (long long r0 = 0; r0 < rows; r0 += R) {
                const long long rb = rows - r0 < R ? rows - r0 : R;
                const in_t *x0 = x + r0 * stride + c0;
                if constexpr (same_type<A, double>::value) {
                    long long done = 0;
#if defined(NR_HAVE_HOST_SIMD)
                    if constexpr (simd::f64_lanes<T>::value) {
                        A be[CB];  // (scratch)
                        const long long ahead = rows - r0 - rb < R ? rows - r0 - rb : R;  // the next run
                        done = simd::lse_cols(x0, rb, cb, stride, m, t, ec, bm, bt, be, ahead);
                    }
#endif
                    if (done < cb) cols_block(x0, rb, cb, stride, m, t, ec);
                } else {
                    for (long long c = 0; c < cb; c++) {
                        bm[c] = to_real<A>(x0[c]);
                        bt[c] = A(0);
                    }
                    for (long long r = 1; r < rb; r++) {
                        const in_t *xr = x0 + r * stride;
                        for (long long c = 0; c < cb; c++) {
                            const acc_t a = step(acc_t{{bm[c], bt[c]}}, xr[c]);
                            bm[c] = a.v[0];
                            bt[c] = a.v[1];
                        }
                    }
                    for (long long c = 0; c < cb; c++) {
                        const acc_t a = combine(acc_t{{m[c], t[c]}}, acc_t{{bm[c], bt[c]}});
                        m[c] = a.v[0];
                        t[c] = a.v[1];
                    }
                }
            }
            // the runs' rounding errors (zero for long double)
            for (long long c = 0; c < cb; c++) t[c] = t[c] + ec[c];
        }
    }
    // A run (rows >= 1) merged into the column states (M, T) in scalar
    // code: simd.hpp's lse_cols, column by column (its lanes' arithmetic:
    // x86-64's baseline has no fused multiply-add).
    template <class T, class A>
    inline void MaxSumExp<T, A>::cols_block(const in_t *x, long long rows, long long cols,
                                            long long stride, double *M, double *Tt, double *Ec) {
        for (long long j = 0; j < cols; j++) {
            const double mo = M[j], to = Tt[j];
            double mx = mo;
            for (long long r = 0; r < rows; r++) {
                const double v = to_real<double>(x[r * stride + j]);
                mx = v > mx || v != v ? v : mx;  // NaN-propagating
            }
            const double dm = mo - mx;
            const double e = dm < EXP64_FLOOR ? 0.0 : exp64_nonpos(dm) * 5.421010862427522e-20;
            const bool up = mx > mo;
            const double t0 = up ? to * e + e : to, eo = up ? Ec[j] * e : Ec[j];
            double s = 0.0, cnt = up ? -1.0 : 0.0;
            for (long long r = 0; r < rows; r++) {
                const double v = to_real<double>(x[r * stride + j]), d = v - mx;
                const bool eq = v == mx;  // also for +-inf; never for NaN
                cnt += eq ? 1.0 : 0.0;
                s += eq || d < EXP64_FLOOR ? 0.0 : exp64_nonpos(d);
            }
            M[j] = mx;
            // t0 + y and its rounding error (TwoSum) into the compensation
            const double y = cnt + s * 5.421010862427522e-20, t = t0 + y, yv = t - t0;  // 2^-64
            Ec[j] = eo + ((t0 - (t - yv)) + (y - yv));
            Tt[j] = mx != mx ? mx : t;
        }
    }

// ---------------------------------------------------------------------------
// twosum.hpp (TwoSum: twosum)
// ---------------------------------------------------------------------------

    // Rows of a C-ordered block reduced over axis 0 into the accumulator
    // rows acc[0] (sums) and acc[1] (errors), in place: every column steps
    // through its rows in order, as step() (so the bits are those of one
    // row_step call per row).  float64/float32 on the host: per block of RB
    // rows, column tiles held in vector registers while the rows stream past
    // (simd.hpp's two_sum_cols); other input types are converted to A first,
    // a tile of rows x columns at a time, and take A's loop (the bits of the
    // same values in A, by construction); the remaining columns, and every
    // other case, step row by row.  `stride` is in elements.
    template <class T, class A, class M>
    NR_TARGET_CLONES inline void TwoSum<T, A, M>::rows_reduce(A *const *acc, const in_t *x, long long rows,
                                                           long long cols, long long stride) {
        // Blocks of 16 rows (as MinMaxOf's): few enough concurrent row
        // streams for the hardware prefetchers (64 ran about 2x slower on a
        // 4000 x 4000 block, AVX2 and AVX-512 alike), enough rows to amortise
        // the accumulator load/store.
        constexpr long long RB = 16;
#if defined(NR_HAVE_HOST_SIMD)
        constexpr bool vec = same_type<A, double>::value || same_type<A, float>::value;
        if constexpr (vec && !same_type<T, A>::value) {
            constexpr long long CB = 256, RC = 16;  // a 16 x 256 tile of A: at most 32 KiB
            A buf[RC * CB];
            for (long long r0 = 0; r0 < rows; r0 += RC) {
                const long long rb = rows - r0 < RC ? rows - r0 : RC;
                for (long long c0 = 0; c0 < cols; c0 += CB) {
                    const long long cb = cols - c0 < CB ? cols - c0 : CB;
                    for (long long r = 0; r < rb; r++) {
                        const in_t *xr = x + (r0 + r) * stride + c0;
                        for (long long c = 0; c < cb; c++) buf[r * cb + c] = to_real<A>(xr[c]);
                    }
                    A *const sub[2] = {acc[0] + c0, acc[1] + c0};
                    TwoSum<A, A, M>::rows_reduce(sub, buf, rb, cb, cb);
                }
            }
            return;
        }
#endif
#if defined(NR_HAVE_HOST_SIMD)
        // The data larger than the L2 (likely from memory): the whole-row
        // stream below is taken only then, and the tiles' width follows it
        // (simd.hpp's two_sum_cols_at).
        const bool far = simd::rows_from_memory(rows * stride * (long long)sizeof(A));
        if constexpr (vec && same_type<T, A>::value) {
            // Rows whose accumulators fit in L1 (row_stream_bytes, at most
            // 32 KiB: the start values saved on the stack): streamed whole,
            // in memory order; then, as the tiles, the error zeroed where the
            // sum is not finite and a column whose TwoSum overflowed inside
            // redone from its start with step()'s arithmetic.
            constexpr long long SAVE = 32768 / (2 * (long long)sizeof(A));
            if (cols <= SAVE && 2 * cols * (long long)sizeof(A) <= simd::row_stream_bytes() && far) {
                A s0[SAVE], e0[SAVE];
                std::memcpy(s0, acc[0], cols * sizeof(A));
                std::memcpy(e0, acc[1], cols * sizeof(A));
                if (simd::two_sum_stream<A, M>(acc[0], acc[1], x, rows, cols, stride) == cols) {
                    for (long long c = 0; c < cols; c++) {
                        const A sc = acc[0][c], ec = acc[1][c];
                        if (sc - sc != A(0)) {
                            acc[1][c] = A(0);
                        } else if (ec - ec != A(0)) {
                            acc_t a{{s0[c], e0[c]}};
                            for (long long r = 0; r < rows; r++) a = step(a, x[r * stride + c]);
                            acc[0][c] = a.v[0];
                            acc[1][c] = a.v[1];
                        }
                    }
                    return;
                }
            }
        }
#endif
        for (long long r0 = 0; r0 < rows; r0 += RB) {
            const long long rb = rows - r0 < RB ? rows - r0 : RB;
            const in_t *xb = x + r0 * stride;
            long long c0 = 0;
#if defined(NR_HAVE_HOST_SIMD)
            if constexpr (vec && same_type<T, A>::value) {
                c0 = simd::two_sum_cols_at<A, M>(far, acc[0], acc[1], xb, rb, cols, stride);
            }
#endif
            A *__restrict s = acc[0];
            A *__restrict e = acc[1];
            for (long long r = 0; r < rb; r++) {
                const in_t *__restrict xr = xb + r * stride;
                for (long long c = c0; c < cols; c++) {
                    const acc_t a = step(acc_t{{s[c], e[c]}}, xr[c]);
                    s[c] = a.v[0];
                    e[c] = a.v[1];
                }
            }
        }
    }

// ---------------------------------------------------------------------------
// argminmax.hpp (ArgMinMax: the block pass of the contiguous fast path)
// ---------------------------------------------------------------------------

    template <class T, bool SKIP_NAN>
    template <class O>
    inline bool ArgMinMax<T, SKIP_NAN>::cols_reduce(const in_t *x, long long n, long long len,
                                                    long long stride, O *ilo, O *ihi) {
#if defined(NR_HAVE_HOST_SIMD)
        if constexpr (plain_arith<T>::value && (sizeof(T) == 4 || sizeof(T) == 8)) {
            // (the kernel's lanes: one vector of columns at least; 4-byte
            // index lanes for 4-byte T)
            constexpr bool skip = SKIP_NAN && (same_type<T, float>::value || same_type<T, double>::value);
            if (n >= 16 && len >= 1 && (sizeof(T) == 8 || len < 0x7fffffffLL)) {
                simd::argminmax_cols<T, skip, O>(x, len, n, stride, ilo, ihi);
                return true;
            }
        }
#endif
        (void)x, (void)n, (void)len, (void)stride, (void)ilo, (void)ihi;
        return false;
    }

#if defined(NR_HAVE_HOST_SIMD)
    // The block pass, for n >= 1 elements.
    template <class T, bool SKIP_NAN>
    inline auto ArgMinMax<T, SKIP_NAN>::blocked(const in_t *x, long long n) -> acc_t {
        using MM = MinMaxOf<T, SKIP_NAN>;
        T lo = T(), hi = T();
        long long blo = -1, bhi = -1;  // start of the winning block per side
        for (long long k = 0; k < n; k += BLOCK) {
            const long long m = n - k < BLOCK ? n - k : BLOCK;
            const typename MM::acc_t b = MM::block_reduce(MM::lift(x[k]), x + k + 1, m - 1);
            if (is_nan(b.v[0])) {
                if (SKIP_NAN) continue;  // only NaNs in this block
                lo = hi = b.v[0];        // the block's first NaN wins both
                blo = bhi = k;
                break;
            }
            // (strictly better: le/ge of non-NaN values, float16 included)
            if (blo < 0 || !le(lo, b.v[0])) {
                lo = b.v[0];
                blo = k;
            }
            if (bhi < 0 || !ge(hi, b.v[1])) {
                hi = b.v[1];
                bhi = k;
            }
        }
        return acc_t{lo, hi, first_equal(x, n, blo, lo), first_equal(x, n, bhi, hi)};
    }
    // Index of the first element equal to v (the first NaN for a NaN v) in
    // the block starting at k; -1 for k = -1.
    template <class T, bool SKIP_NAN>
    inline long long ArgMinMax<T, SKIP_NAN>::first_equal(const in_t *x, long long n, long long k, T v) {
        if (k < 0) return -1;
        const long long end = n - k < BLOCK ? n : k + BLOCK;
        if constexpr (same_type<T, half16>::value) {
            // equal float16 values: the same bits, but for the two zeros
            if (is_nan(v)) return k + simd::half_first_nan(x + k, end - k);
            if ((v.bits & 0x7fffu) == 0) return k + simd::half_first_zero(x + k, end - k);
            const unsigned short *u = reinterpret_cast<const unsigned short *>(x);
            return k + simd::find_eq<unsigned short>(u + k, end - k, v.bits);
        } else {
            return k + simd::find_eq<T>(x + k, end - k, v);
        }
    }
#endif

// ---------------------------------------------------------------------------
// Moments::row_walk: step() on every column of a row (the native axis-0
// pattern), in blocks: a block whose values, means and differences are all
// finite (and, for nanmoments, not NaN) takes step()'s finite update without
// branches, so it vectorises (with one reciprocal per block where every
// column has the same count); any other block takes step() column by
// column.
// ---------------------------------------------------------------------------

    template <class T, class A, bool SKIP_NAN>
    NR_TARGET_CLONES inline bool Moments<T, A, SKIP_NAN>::row_walk(A *const *acc, const in_t *x,
                                                                   long long n) {
        if constexpr (!(plain_arith<T>::value || same_type<T, half16>::value)) {
            return false;
        } else {
            A *__restrict cnt = acc[0];
            A *__restrict mean = acc[1];
            A *__restrict m2 = acc[2];
            constexpr long long B = 256;
            A conv[B];
            for (long long k0 = 0; k0 < n; k0 += B) {
                const long long e = n - k0 < B ? n : k0 + B;
                // on A values for every input type (converted first where T
                // is not A): the same loop, so the bits of the same values in A
                const A *xv;
                if constexpr (same_type<T, A>::value) {
                    xv = x + k0;
                } else {
                    for (long long k = k0; k < e; k++) conv[k - k0] = to_real<A>(x[k]);
                    xv = conv;
                }
                // t is 0 for finite v, mean and d, NaN otherwise; the flags
                // are or-ed as integers so that the check vectorises too.
                int bad = 0, other = 0;
                const A c0 = cnt[k0];
                for (long long k = k0; k < e; k++) {
                    const A v = xv[k - k0];
                    const A d = v - mean[k];
                    const A t = (v - v) + (mean[k] - mean[k]) + (d - d);
                    bad |= int(t != A(0));
                    other |= int(cnt[k] != c0);
                }
                const bool finite = bad == 0, same = other == 0;
                if (finite && same) {
                    // Every column has seen as many values (no mask: the
                    // usual case): one reciprocal for the block, d * (1/c)
                    // for step()'s d / c (within an ulp of it).
                    const A c = c0 + A(1), r = A(1) / c;
                    for (long long k = k0; k < e; k++) {
                        const A v = xv[k - k0];
                        const A d = v - mean[k];
                        const A m = mean[k] + d * r;
                        m2[k] = m2[k] + d * (v - m);
                        mean[k] = m;
                        cnt[k] = c;
                    }
                } else if (finite) {
                    for (long long k = k0; k < e; k++) {
                        const A v = xv[k - k0];
                        const A c = cnt[k] + A(1);
                        const A d = v - mean[k];
                        const A m = mean[k] + d / c;
                        m2[k] = m2[k] + d * (v - m);
                        mean[k] = m;
                        cnt[k] = c;
                    }
                } else {
                    for (long long k = k0; k < e; k++) {
                        const acc_t a = step(acc_t{{cnt[k], mean[k], m2[k]}}, x[k]);
                        cnt[k] = a.v[0];
                        mean[k] = a.v[1];
                        m2[k] = a.v[2];
                    }
                }
            }
            return true;
        }
    }

// ---------------------------------------------------------------------------
// MaxSumExp::row_walk: step() on every column of a row, run on A values for
// every input type (a block converted first where T is not A), the same
// loop for all of them, so integer and float32 data give the bits of the
// same values in A (as rows_reduce does).
// ---------------------------------------------------------------------------

    template <class T, class A>
    NR_TARGET_CLONES inline bool MaxSumExp<T, A>::row_walk(A *const *acc, const in_t *x,
                                                           long long n) {
        using AA = MaxSumExp<A, A>;
        A *__restrict m = acc[0];
        A *__restrict t = acc[1];
        constexpr long long B = 512;
        A conv[B];
        for (long long k0 = 0; k0 < n; k0 += B) {
            const long long b = n - k0 < B ? n - k0 : B;
            const A *xr;
            if constexpr (same_type<T, A>::value) {
                xr = x + k0;
            } else {
                for (long long k = 0; k < b; k++) conv[k] = to_real<A>(x[k0 + k]);
                xr = conv;
            }
            for (long long k = 0; k < b; k++) {
                const typename AA::acc_t a = AA::step(typename AA::acc_t{{m[k0 + k], t[k0 + k]}}, xr[k]);
                m[k0 + k] = a.v[0];
                t[k0 + k] = a.v[1];
            }
        }
        return true;
    }

// ---------------------------------------------------------------------------
// summary.hpp (Summary: summary, nansummary)
// ---------------------------------------------------------------------------

    // Rows of a C-ordered block reduced over axis 0 into the accumulator rows
    // acc[0..8) in place: per tile of CB columns and block of RB rows, the
    // block's column summaries by block_stats' corrected two-pass formulas
    // (two sweeps over the block's rows, the loops over columns
    // vectorised), each in its column's origin K (the state's, else the
    // column's first value), merged into the running column summaries
    // with combine().  A column block whose sums are not finite (inf/NaN,
    // overflow) is gathered and stepped.  `stride` is in elements.
    template <class T, class A, bool SKIP_NAN>
    NR_TARGET_CLONES inline void Summary<T, A, SKIP_NAN>::rows_reduce(A *const *acc, const in_t *x, long long rows,
                                                              long long cols, long long stride) {
        A K[CB], s[CB], cn[CB], lo[CB], hi[CB], s1[CB], s2[CB], s3[CB], s4[CB];
        for (long long c0 = 0; c0 < cols; c0 += CB) {
            const long long cb = cols - c0 < CB ? cols - c0 : CB;
            for (long long c = 0; c < cb; c++) {
                A k = A(0);
                if (acc[0][c0 + c] > A(0)) {
                    k = acc[3][c0 + c];  // the origin
                } else {
                    for (long long r = 0; r < rows; r++) {
                        k = to_real<A>(x[r * stride + c0 + c]);
                        if (!(SKIP_NAN && is_nan(k))) break;
                    }
                }
                K[c] = is_finite(k) ? k : A(0);
            }
            // Integer rows are converted to A first: the sums then run on A
            // values, vectorised and contracted alike by GCC and Clang (their
            // loops over integers converted inline were not: the bits
            // differed); floats convert inline (float32 twice as fast so).
            A cv[CB];
            auto row = [&](long long r) {
                if constexpr (std::is_integral<T>::value) {
                    const in_t *xi = x + r * stride + c0;
                    for (long long c = 0; c < cb; c++) cv[c] = to_real<A>(xi[c]);
                    return static_cast<const A *>(cv);
                } else {
                    return x + r * stride + c0;
                }
            };
            for (long long r0 = 0; r0 < rows; r0 += RB) {
                const long long rb = rows - r0 < RB ? rows - r0 : RB;
                for (long long c = 0; c < cb; c++) {
                    s[c] = cn[c] = s1[c] = s2[c] = s3[c] = s4[c] = A(0);
                    lo[c] = -neg_inf<A>();
                    hi[c] = neg_inf<A>();
                }
                for (long long r = r0; r < r0 + rb; r++) {
                    const auto *xr = row(r);
                    for (long long c = 0; c < cb; c++) {
                        const A v = to_real<A>(xr[c]);
                        const bool use = !(SKIP_NAN && is_nan(v));
                        s[c] += use ? v - K[c] : A(0);
                        cn[c] += use ? A(1) : A(0);
                        lo[c] = (use && v < lo[c]) ? v : lo[c];
                        hi[c] = (use && v > hi[c]) ? v : hi[c];
                    }
                }
                for (long long c = 0; c < cb; c++) s[c] = cn[c] > A(0) ? s[c] / cn[c] : A(0);  // the block means
                for (long long r = r0; r < r0 + rb; r++) {
                    const auto *xr = row(r);
                    for (long long c = 0; c < cb; c++) {
                        const A v = to_real<A>(xr[c]);
                        const bool use = !(SKIP_NAN && is_nan(v));
                        const A dy = use ? (v - K[c]) - s[c] : A(0), q = dy * dy;
                        s1[c] += dy;
                        s2[c] += q;
                        s3[c] += q * dy;
                        s4[c] += q * q;
                    }
                }
                for (long long c = 0; c < cb; c++) {
                    if (cn[c] == A(0)) continue;
                    acc_t run;
                    for (int i = 0; i < nout; i++) run.v[i] = acc[i][c0 + c];
                    if (is_finite(s[c]) && is_finite(s2[c])) {
                        run = merge_sums(run, K[c], cn[c], lo[c], hi[c], s[c], s1[c], s2[c], s3[c], s4[c]);
                    } else {  // gather the column's block and step it
                        in_t col[RB];
                        for (long long r = 0; r < rb; r++) col[r] = x[(r0 + r) * stride + c0 + c];
                        run = merge_steps(run, col, rb);
                    }
                    for (int i = 0; i < nout; i++) acc[i][c0 + c] = run.v[i];
                }
            }
        }
    }

    template <class T, class A, bool SKIP_NAN>
    NR_OUT_OF_CLONES auto Summary<T, A, SKIP_NAN>::merge_sums(acc_t run, A K, A cnt, A mn, A mx, A mb, A S1,
                                                                   A S2, A S3, A S4) -> acc_t {
        return combine(run, corrected(K, cnt, mn, mx, mb, S1, S2, S3, S4));
    }
    template <class T, class A, bool SKIP_NAN>
    NR_OUT_OF_CLONES auto Summary<T, A, SKIP_NAN>::merge_steps(acc_t run, const in_t *col, long long m)
        -> acc_t {
        return combine(run, step_each<Summary>(empty(), col, m));
    }

}  // namespace nr
