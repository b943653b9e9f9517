// Co-moments of two sources (x, y): (n, Kx, Ky, mx, my, Mxx, Myy, Cxy) with
// mean_x = Kx + mx, mean_y = Ky + my, Mxx = sum((x - mean_x)^2), Myy the
// same for y and Cxy = sum((x - mean_x)(y - mean_y)): covariance =
// Cxy / (n - ddof), correlation = Cxy / sqrt(Mxx Myy).
//
// As the weighted moments (wmoments.hpp): (Kx, Ky) is an origin, the first
// pair of the state's own data, and every difference is taken relative to
// it, so offset data keep a two-pass accuracy on every path, and two states
// merge by Chan et al.'s update extended to the co-moment -- never through
// raw sums of products, which cancel.  A pair with a NaN or inf makes the
// means the plain sums and the co-moments NaN, as np.cov gives.
// Accumulates in A (float64 for float32 sources).
#pragma once
#include "common.hpp"

namespace nr {

template <class T, class A>
struct CoMoments {
    static constexpr int nsrc = 2;
    using in_t = sources<T, 2>;  // (x, y)
    using out_t = A;
    static constexpr int nout = 8;
    struct acc_t {
        A v[8];  // n, Kx, Ky, mx, my, Mxx, Myy, Cxy
    };

    NR_HD static acc_t lift(in_t s) { return lift_xy(xy_t{to_real<A>(s.v[0]), to_real<A>(s.v[1])}); }
    NR_HD static acc_t step(acc_t a, in_t s) { return a.v[0] == A(0) ? lift(s) : combine(a, lift(s)); }
    NR_HD static acc_t combine(acc_t a, acc_t b) {
        if (b.v[0] == A(0)) return a;
        if (a.v[0] == A(0)) return b;
        const A n = a.v[0] + b.v[0];
        const A f = b.v[0] / n, g = a.v[0] * f;
        if (!is_finite(a.v[3] + a.v[4]) || !is_finite(b.v[3] + b.v[4])) {
            // a non-finite mean: plain sums for the means, NaN co-moments
            const A mx = (a.v[1] + a.v[3]) * (A(1) - f) + (b.v[1] + b.v[3]) * f;
            const A my = (a.v[2] + a.v[4]) * (A(1) - f) + (b.v[2] + b.v[4]) * f;
            const A nan = (mx - mx) + (my - my) + (a.v[5] - a.v[5]) + (b.v[5] - b.v[5]);
            const A bad = nan == nan ? A(0) / A(0) : nan;
            return {{n, A(0), A(0), mx, my, bad, bad, bad}};
        }
        const A dx = ((b.v[1] - a.v[1]) + b.v[3]) - a.v[3];
        const A dy = ((b.v[2] - a.v[2]) + b.v[4]) - a.v[4];
        return {{n, a.v[1], a.v[2], a.v[3] + dx * f, a.v[4] + dy * f, a.v[5] + b.v[5] + dx * dx * g,
                 a.v[6] + b.v[6] + dy * dy * g, a.v[7] + b.v[7] + dx * dy * g}};
    }
    NR_HD static bool initials(acc_t &a, bool) {
        a = {{A(0), A(0), A(0), A(0), A(0), A(0), A(0), A(0)}};
        return true;
    }

    // Contiguous stream: chunks of BLOCK pairs from the stream's start, each
    // as the sums of its shifted values (u = x - Kx, v = y - Ky: sums of u,
    // v, u^2, v^2, uv) in LANES partial sums (pair j in lane j % LANES,
    // folded pairwise at the chunk's end: vector lanes on the host), the
    // chunk's state by the corrected two-pass formulas merged into acc
    // ((Kx, Ky) the origin, the first pair); where a chunk's sum is not
    // finite that chunk is stepped instead.  The AoS stream (block_reduce)
    // and the two contiguous streams (block_reduce_sources, loops.hpp) run
    // the same arithmetic on the same chunks: the same bits.
    static constexpr int BLOCK = 256;
    static constexpr int LANES = 8;
    struct xy_t {  // one pair in A
        A x, y;
    };
    // get(j): pair j of the chunk (xy_t); groups(j0, j1, Kx, Ky, s): pairs
    // [j0, j1) (whole groups of LANES) into the lanes s[0..5).
    template <class G, class H>
    NR_HD static acc_t chunk_reduce(acc_t acc, long long n, G get, H groups) {
        if (n == 0) return acc;
        const bool fresh = acc.v[0] == A(0);
        const acc_t a = fresh ? lift_xy(get(0)) : acc;
        const long long k = fresh ? 1 : 0;
        if (!is_finite(a.v[3] + a.v[4] + a.v[5])) return steps_xy(acc, n, get);
        const A Kx = a.v[1], Ky = a.v[2];
        A su[LANES], sv[LANES], suu[LANES], svv[LANES], suv[LANES];
        for (int l = 0; l < LANES; l++) su[l] = sv[l] = suu[l] = svv[l] = suv[l] = A(0);
        long long j = k;
        for (; j < n && j % LANES != 0; j++) {
            const int l = (int)(j % LANES);
            add_one(su[l], sv[l], suu[l], svv[l], suv[l], get(j), Kx, Ky);
        }
        const long long g = j < n ? j + (n - j) / LANES * LANES : j;
        A *const lanes_p[5] = {su, sv, suu, svv, suv};
        groups(j, g, Kx, Ky, lanes_p);
        j = g;
        for (; j < n; j++) {
            const int l = (int)(j % LANES);
            add_one(su[l], sv[l], suu[l], svv[l], suv[l], get(j), Kx, Ky);
        }
        const A tu = fold(su), tv = fold(sv), tuu = fold(suu), tvv = fold(svv), tuv = fold(suv);
        if (!is_finite(tu + tv) || !is_finite(tuu + tvv + tuv)) return steps_xy(acc, n, get);
        if (j == k) return a;  // the origin alone
        const A m = A(n - k), mu = tu / m, mv = tv / m;
        const A muu = tuu - tu * mu, mvv = tvv - tv * mv;
        return combine(a, acc_t{{m, Kx, Ky, mu, mv, muu > A(0) ? muu : A(0), mvv > A(0) ? mvv : A(0),
                                 tuv - tu * mv}});
    }
    NR_HD static acc_t block_reduce(acc_t acc, const in_t *x, long long n) {
        for (long long c = 0; c < n; c += BLOCK) {
            const in_t *p = x + c;
            auto get = [p](long long j) { return xy_t{to_real<A>(p[j].v[0]), to_real<A>(p[j].v[1])}; };
            acc = chunk_reduce(acc, n - c < BLOCK ? n - c : BLOCK, get,
                               [get](long long j0, long long j1, A Kx, A Ky, A *const *s) {
                                   lanes(get, j0, j1, Kx, Ky, s);
                               });
        }
        return acc;
    }
    // The same on the two contiguous streams src[0] (x) and src[1] (y) (on
    // the host, float64 lanes: simd.hpp's cosums, the same arithmetic).
    NR_HD static acc_t block_reduce_sources(acc_t acc, const T *const *src, long long n) {
        for (long long c = 0; c < n; c += BLOCK) {
            const T *px = src[0] + c, *py = src[1] + c;
            auto get = [px, py](long long j) { return xy_t{to_real<A>(px[j]), to_real<A>(py[j])}; };
            acc = chunk_reduce(acc, n - c < BLOCK ? n - c : BLOCK, get,
                               [=](long long j0, long long j1, A Kx, A Ky, A *const *s) {
#if defined(NR_HAVE_HOST_SIMD)
                                   if constexpr (simd::f64_lanes<T>::value && same_type<A, double>::value) {
                                       simd::cosums<T>(px + j0, py + j0, j1 - j0, Kx, Ky, s);
                                       return;
                                   }
#endif
                                   lanes(get, j0, j1, Kx, Ky, s);
                               });
        }
        return acc;
    }

  private:
    NR_HD static acc_t lift_xy(xy_t e) {
        if (!is_finite(e.x) || !is_finite(e.y)) {
            const A nan = (e.x - e.x) + (e.y - e.y);
            return {{A(1), A(0), A(0), e.x, e.y, nan, nan, nan}};
        }
        return {{A(1), e.x, e.y, A(0), A(0), A(0), A(0), A(0)}};
    }
    // one pair into a lane's sums
    NR_HD_ALWAYS static void add_one(A &su, A &sv, A &suu, A &svv, A &suv, xy_t e, A Kx, A Ky) {
        const A u = e.x - Kx, v = e.y - Ky;
        su += u;
        sv += v;
        suu += u * u;
        svv += v * v;
        suv += u * v;
    }
    template <class G>
    NR_HD_ALWAYS static void lanes(G get, long long j0, long long j1, A Kx, A Ky, A *const *s) {
        for (long long j = j0; j < j1; j += LANES) {
            for (int l = 0; l < LANES; l++) add_one(s[0][l], s[1][l], s[2][l], s[3][l], s[4][l], get(j + l), Kx, Ky);
        }
    }
    NR_HD_ALWAYS static A fold(const A *s) {
        return ((s[0] + s[1]) + (s[2] + s[3])) + ((s[4] + s[5]) + (s[6] + s[7]));
    }
    // acc followed by the n pairs, one step each
    template <class G>
    NR_HD static acc_t steps_xy(acc_t a, long long n, G get) {
        for (long long k = 0; k < n; k++) {
            const acc_t b = lift_xy(get(k));
            a = a.v[0] == A(0) ? b : combine(a, b);
        }
        return a;
    }
};

}  // namespace nr
