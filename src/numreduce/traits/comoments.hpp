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

    NR_HD static acc_t lift(in_t s) {
        const A x = to_real<A>(s.v[0]), y = to_real<A>(s.v[1]);
        if (!is_finite(x) || !is_finite(y)) {
            const A nan = (x - x) + (y - y);
            return {{A(1), A(0), A(0), x, y, nan, nan, nan}};
        }
        return {{A(1), x, y, A(0), A(0), A(0), A(0), A(0)}};
    }
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

    // Contiguous stream: blocks of BLOCK pairs as sums of the shifted values
    // (u = x - Kx, v = y - Ky: sums of u, v, u^2, v^2, uv), each block's
    // state by the corrected two-pass formulas, merged into acc; where a sum
    // is not finite the stream is stepped instead.
    static constexpr int BLOCK = 256;
    NR_HD static acc_t block_reduce(acc_t acc, const in_t *x, long long n) {
        if (n == 0) return acc;
        acc_t a = acc.v[0] == A(0) ? lift(x[0]) : acc;
        const long long k = acc.v[0] == A(0) ? 1 : 0;
        if (!is_finite(a.v[3] + a.v[4] + a.v[5])) return steps(acc, x, n);
        const A Kx = a.v[1], Ky = a.v[2];
        for (long long b = k; b < n; b += BLOCK) {
            const long long e = n - b < BLOCK ? n : b + BLOCK;
            A su = A(0), sv = A(0), suu = A(0), svv = A(0), suv = A(0);
            for (long long j = b; j < e; j++) {
                const A u = to_real<A>(x[j].v[0]) - Kx, v = to_real<A>(x[j].v[1]) - Ky;
                su += u;
                sv += v;
                suu += u * u;
                svv += v * v;
                suv += u * v;
            }
            if (!is_finite(su + sv) || !is_finite(suu + svv + suv)) return steps(acc, x, n);
            const A m = A(e - b), mu = su / m, mv = sv / m;
            const A muu = suu - su * mu, mvv = svv - sv * mv;
            a = combine(a, acc_t{{m, Kx, Ky, mu, mv, muu > A(0) ? muu : A(0),
                                  mvv > A(0) ? mvv : A(0), suv - su * mv}});
        }
        return a;
    }

  private:
    NR_HD static acc_t steps(acc_t a, const in_t *x, long long n) {
        return step_each<CoMoments>(a, x, n);
    }
};

}  // namespace nr
