// (s, e): compensated summation.  The forward ufunc is the error-free
// transformation twosum(a, b) = (fl(a + b), exact error); the reduction is
// Neumaier / Kahan-Babuska summation: every step's rounding error (TwoSum, so
// no magnitude branch) is accumulated in e, and the sum is s + e.
//
// Bound: |(s + e) - sum(x)| <= eps |sum(x)| + n eps^2 sum|x| (about 1 ulp of
// the result unless n * cond * eps > 1, cond = sum|x| / |sum x|).
// Accumulates in A: float64 for bool/integers, float32 for float16, the input
// type for float32/float64/long double.
//
// M maps each element before it is summed (common.hpp): id_map (twosum,
// fsum), square_map (sqtwosum: the sum of the rounded squares fl(x x), the
// very values np.square(x) holds -- numreduce.mapreduce(np.square, fsum, x)
// without the image, the same bits as TwoSum over np.square(x)).
#pragma once
#include "common.hpp"

namespace nr {

template <class T, class A, class M = id_map>
struct TwoSum {
    using in_t = T;
    using out_t = A;
    static constexpr int nout = 2;
    using real_traits = TwoSum<A, A, M>;  // step(a, x) is its step(a, to_real<A>(x))
    struct acc_t {
        A v[2];  // sum, accumulated error
    };

    // The error of a non-finite sum is 0 (inf + x = inf exactly; NaN is NaN),
    // whatever was accumulated before: once s is inf or NaN it stays so, and
    // e = 0 on every path (stream, lanes, columns, chunks), as elementwise.
    NR_HD_ALWAYS static acc_t add(A s0, A x, A e0) {
        A s, e;
        two_sum(s0, x, s, e);
        return {{s, is_finite(s) ? e0 + e : A(0)}};
    }
    NR_HD static acc_t lift(in_t x) { return {{M::one(to_real<A>(x)), A(0)}}; }
    NR_HD static acc_t step(acc_t a, in_t x) { return add(a.v[0], M::one(to_real<A>(x)), a.v[1]); }
    NR_HD static acc_t combine(acc_t a, acc_t b) { return add(a.v[0], b.v[0], a.v[1] + b.v[1]); }
    // -0.0 seeds non-empty sums (so that a sum of -0.0 values is -0.0, the
    // IEEE left fold); 0.0 is the value of an empty one.  The same empty /
    // non-empty split as the reduction-initial slot documents for np.add.
    NR_HD static bool initials(acc_t &a, bool empty) {
        a = empty ? acc_t{{A(0), A(0)}} : acc_t{{-A(0), -A(0)}};
        return true;
    }

#if defined(NR_HOST_TRAITS)
    // Host only (defined in ../host_traits.hpp): row blocks reduced over
    // axis 0 into the accumulator rows, column states in vector registers.
    NR_TARGET_CLONES static void rows_reduce(A *const *acc, const in_t *x, long long rows,
                                             long long cols, long long stride);
#endif

    // Contiguous stream: on the host, float64 and float32 run in vector
    // lanes of (s, e) of their own type (4 to 32, the last step padded with
    // -0.0, merged pairwise in a tree by combine()'s arithmetic); float16
    // runs in the float32 lanes and integers (and bool) in the float64
    // lanes, each element converted as to_real does (so an integer sum is
    // the float64 sum of the converted values, bit for bit, and a float16
    // sum the float32 one).  Short streams (fewer than 2 vectors), and a
    // stream whose lanes overflowed inside a TwoSum, step in order.
    NR_HD static acc_t block_reduce(acc_t acc, const in_t *x, long long n) {
#if defined(NR_HAVE_HOST_SIMD)
        if constexpr (host_lanes()) {
            A s, c;
            if (simd::two_sum<T, A, M>(x, n, &s, &c)) return combine(acc, acc_t{{s, c}});
        }
#endif
        for (long long k = 0; k < n; k++) acc = step(acc, x[k]);
        return acc;
    }
    // `rows` contiguous streams of n elements (row r at x + r n), each
    // reduced from acc as block_reduce(acc, row, n) reduces it -- the same
    // bits -- into out[0][r], out[1][r]: on the host in blocks of rows
    // (simd.hpp's two_sum_rows: each row's lanes as the 1-D kernel sums
    // them, then the block's lanes transposed so that the lane merges and
    // the final TwoSum, most of a short row's time, run once per block).
    NR_HD static void rows_stream(acc_t acc, const in_t *x, long long rows, long long n, A *const *out) {
#if defined(NR_HAVE_HOST_SIMD)
        if constexpr (host_lanes()) {
            constexpr long long P = 128;  // rows per piece (stack buffers)
            A s[P], c[P];
            unsigned char ok[P];
            // rows likely from memory: the prefetch runs on into the rows
            // that follow (simd.hpp's two_sum_rows)
            const bool far = simd::rows_from_memory(rows * n * (long long)sizeof(in_t));
            for (long long r0 = 0; r0 < rows; r0 += P) {
                const long long m = rows - r0 < P ? rows - r0 : P;
                simd::two_sum_rows<T, A, M>(x + r0 * n, n, m, n, s, c, ok, far);
                for (long long r = 0; r < m; r++) {
                    acc_t a = acc;
                    if (ok[r]) {
                        a = combine(a, acc_t{{s[r], c[r]}});
                    } else {
                        const in_t *xr = x + (r0 + r) * n;
                        for (long long k = 0; k < n; k++) a = step(a, xr[k]);
                    }
                    out[0][r0 + r] = a.v[0];
                    out[1][r0 + r] = a.v[1];
                }
            }
            return;
        }
#endif
        for (long long r = 0; r < rows; r++) {
            const acc_t a = block_reduce(acc, x + r * n, n);
            out[0][r] = a.v[0];
            out[1][r] = a.v[1];
        }
    }

  private:
#if defined(NR_HAVE_HOST_SIMD)
    // Whether the contiguous stream runs in simd.hpp's TwoSum lanes.
    static constexpr bool host_lanes() {
        return ((same_type<T, double>::value || same_type<T, float>::value) && same_type<A, T>::value) ||
               (simd::f64_lanes<T>::value && same_type<A, double>::value) ||
               (same_type<T, half16>::value && same_type<A, float>::value);
    }
#endif
};

// The compensated sum of the rounded squares (sqtwosum; see TwoSum).
template <class T, class A>
using SquareSum = TwoSum<T, A, square_map>;

// sum(x y) of two sources, compensated (math.sumprod's meaning, and
// numreduce.sumprod's): each product split exactly by TwoProduct (fma) into
// p + e, p summed by TwoSum with every rounding error and every e
// accumulated in the second output.  The states are TwoSum's (s, e), the
// result s + e: error <= eps |sum| + (n eps^2 + 2^-53 eps) sum|x y| roughly,
// against np.dot's n eps sum|x y|.  Products that overflow give inf (e = 0),
// NaN propagates.  Accumulates in A (float64 for float32 sources).
template <class T, class A>
struct SumProd {
    static constexpr int nsrc = 2;
    using in_t = sources<T, 2>;  // (x, y)
    using out_t = A;
    static constexpr int nout = 2;
    using base = TwoSum<A, A>;
    using acc_t = typename base::acc_t;

    NR_HD_ALWAYS static acc_t lift(in_t s) {
        A p, e;
        two_prod(to_real<A>(s.v[0]), to_real<A>(s.v[1]), p, e);
        return {{p, is_finite(p) ? e : A(0)}};
    }
    NR_HD_ALWAYS static acc_t step(acc_t a, in_t s) {
        const acc_t q = lift(s);
        return base::add(a.v[0], q.v[0], a.v[1] + q.v[1]);
    }
    NR_HD static acc_t combine(acc_t a, acc_t b) { return base::combine(a, b); }
    NR_HD static bool initials(acc_t &a, bool empty) { return base::initials(a, empty); }

    // Contiguous stream: LANES independent (s, e) accumulators (the
    // compiler's vector lanes), merged pairwise at the end: the products'
    // and the sums' errors are exact, so the lanes change only the order
    // of the compensated sum, not its bound.
    static constexpr int LANES = 8;
    NR_HD static acc_t block_reduce(acc_t acc, const in_t *x, long long n) {
        if (n < 2 * LANES) {
            for (long long k = 0; k < n; k++) acc = step(acc, x[k]);
            return acc;
        }
        A s[LANES], c[LANES];
        for (int l = 0; l < LANES; l++) {
            s[l] = -A(0);
            c[l] = -A(0);
        }
        const long long m = n - n % LANES;
        for (long long k = 0; k < m; k += LANES) {
            for (int l = 0; l < LANES; l++) {
                A p, e, t, f;
                two_prod(to_real<A>(x[k + l].v[0]), to_real<A>(x[k + l].v[1]), p, e);
                two_sum(s[l], p, t, f);
                s[l] = t;
                c[l] += f + e;
            }
        }
        for (int w = LANES / 2; w >= 1; w /= 2) {
            for (int l = 0; l < w; l++) {
                const acc_t r = combine(acc_t{{s[l], c[l]}}, acc_t{{s[l + w], c[l + w]}});
                s[l] = r.v[0];
                c[l] = r.v[1];
            }
        }
        // Non-finite lanes: their e is meaningless (inf - inf); step the
        // stream in order instead, as the other paths give.
        if (!is_finite(s[0]) || !is_finite(c[0])) {
            for (long long k = 0; k < n; k++) acc = step(acc, x[k]);
            return acc;
        }
        acc = combine(acc, acc_t{{s[0], c[0]}});
        for (long long k = m; k < n; k++) acc = step(acc, x[k]);
        return acc;
    }

    // The two contiguous streams as they lie (src[0] x, src[1] y; loops.hpp
    // reads them in place, or gathers strided ones 256 at a time): chunks
    // of BLOCK elements from the stream's start, each summed in CLANES
    // lanes (s, c) (element j in lane j % CLANES: TwoProduct, then TwoSum
    // of p into s, both errors into c), the lanes folded pairwise by
    // combine()'s arithmetic and the chunk's state merged into acc.  On the
    // host the whole groups of lanes run in simd.hpp's sum_prod, the same
    // exact operations: the same bits at every level.  A chunk whose lanes
    // are not finite (overflow, inf/NaN: e is meaningless) is stepped in
    // order instead, as the other paths give.
    static constexpr int BLOCK = 1024, CLANES = 16;
    NR_HD static acc_t block_reduce_sources(acc_t acc, const T *const *src, long long n) {
        for (long long k = 0; k < n; k += BLOCK) {
            const long long m = n - k < BLOCK ? n - k : BLOCK;
            acc = chunk(acc, src[0] + k, src[1] + k, m);
        }
        return acc;
    }

  private:
    NR_HD_ALWAYS static void lane_step(A &s, A &c, A x, A y) {
        A p, e;
        two_prod(x, y, p, e);
        const A t = s + p, bp = t - s;
        c += ((s - (t - bp)) + (p - bp)) + e;
        s = t;
    }
    NR_HD static acc_t chunk(acc_t acc, const T *x, const T *y, long long m) {
        A s[CLANES], c[CLANES];
        for (int l = 0; l < CLANES; l++) {
            s[l] = -A(0);
            c[l] = A(0);
        }
        const long long g = m - m % CLANES;
        bool done = false;
#if defined(NR_HAVE_HOST_SIMD)
        if constexpr (simd::f64_lanes<T>::value && same_type<A, double>::value) {
            if (!simd::sum_prod(x, y, g, s, c)) return steps(acc, x, y, m);
            done = true;
        }
#endif
        if (!done) {
            for (long long j = 0; j < g; j += CLANES) {
                for (int l = 0; l < CLANES; l++) lane_step(s[l], c[l], to_real<A>(x[j + l]), to_real<A>(y[j + l]));
            }
        }
        for (long long j = g; j < m; j++) lane_step(s[j - g], c[j - g], to_real<A>(x[j]), to_real<A>(y[j]));
        for (int w = CLANES / 2; w >= 1; w /= 2) {
            for (int l = 0; l < w; l++) {
                const acc_t r = combine(acc_t{{s[l], c[l]}}, acc_t{{s[l + w], c[l + w]}});
                s[l] = r.v[0];
                c[l] = r.v[1];
            }
        }
        if (!is_finite(s[0]) || !is_finite(c[0])) return steps(acc, x, y, m);
        return combine(acc, acc_t{{s[0], c[0]}});
    }
    NR_HD static acc_t steps(acc_t acc, const T *x, const T *y, long long m) {
        for (long long j = 0; j < m; j++) {
            in_t e;
            e.v[0] = x[j];
            e.v[1] = y[j];
            acc = step(acc, e);
        }
        return acc;
    }
};

}  // namespace nr
