"""twosum / fsum along axis 0 of C-ordered 2-D data (the column-tile kernel:
(sum, error) of 1-4 vectors of columns in registers while the rows stream
past) and along the last axis (the vector lanes merged in a tree): at every
SIMD level, for column counts around the tile widths (one vector of 2 to 16
lanes, four vectors), with inf/NaN at every kind of position and columns
whose TwoSum overflows inside (the tile is redone in order).  References:
math.fsum per column, NumPy's np.sum for the non-finite cases, and the
row-by-row loop of the same reduction (a strided view of the same data, which
steps every column in row order, as the tiles must, bit for bit, where
there is more than one column)."""

import math
import textwrap

import numpy as np
import pytest

import numreduce as nr
from helpers import run_at_simd_level

CHECK = textwrap.dedent(r'''
    import math
    import numpy as np
    import numreduce as nr
    from numreduce import _config

    print(_config.config()["simd_kernels"])
    rng = np.random.default_rng(21)
    checked = 0

    def strided(a):  # the same values, every column stepped in row order
        return np.repeat(a, 2, axis=1)[:, ::2]

    def value(s, e):
        with np.errstate(invalid="ignore", over="ignore"):
            return np.where(np.isfinite(s) & (e != 0), s + e, s)

    for dt in (np.float64, np.float32):
        eps = np.finfo(dt).eps
        for cols in (1, 2, 3, 4, 5, 7, 8, 9, 15, 16, 17, 31, 32, 33, 63, 64, 65, 100, 129):
            for rows in (1, 2, 7, 64, 65, 150):
                a = (rng.standard_normal((rows, cols)) * 10.0 ** rng.integers(-3, 4, (rows, cols)))
                a = a.astype(dt)
                if cols > 1:  # (one column is one contiguous stream: the lanes)
                    s, e = nr.reduce(nr.twosum, a, axis=0)
                    s2, e2 = nr.reduce(nr.twosum, strided(a), axis=0)
                    assert np.array_equal(s, s2) and np.array_equal(e, e2), (dt, rows, cols)
                got = nr.fsum(a, axis=0)
                for j in range(cols):
                    col = a[:, j].astype(np.float64).tolist()
                    exact = math.fsum(col)
                    bound = eps * abs(exact) + rows * eps * eps * math.fsum(abs(v) for v in col)
                    assert abs(float(got[j]) - exact) <= 2 * bound + np.finfo(dt).tiny, (dt, rows, cols, j)
                    # the last axis: the same column as a row, through the lanes
                    t = float(nr.fsum(np.ascontiguousarray(a[:, j])))
                    assert abs(t - exact) <= 2 * bound + np.finfo(dt).tiny, (dt, rows, cols, j)
                checked += 1
        # specials at first / middle / last row, in a full tile and the rest
        big = np.finfo(dt).max
        for special in (np.inf, -np.inf, np.nan):
            for pos in (0, 31, 63):
                a = rng.standard_normal((64, 37)).astype(dt)
                a[pos, ::3] = special
                s, e = nr.reduce(nr.twosum, a, axis=0)
                s2, e2 = nr.reduce(nr.twosum, strided(a), axis=0)
                assert np.array_equal(s, s2, equal_nan=True), (dt, special, pos)
                assert np.array_equal(e, e2, equal_nan=True), (dt, special, pos)
                with np.errstate(invalid="ignore"):
                    want = np.sum(a, axis=0)
                nonfinite = ~np.isfinite(want)
                assert np.array_equal(s[nonfinite], want[nonfinite], equal_nan=True), (dt, special)
                assert (e[nonfinite] == 0).all()
                checked += 1
        # inf - inf in one column, +inf and -inf in others
        a = rng.standard_normal((40, 70)).astype(dt)
        a[3, 5], a[9, 5], a[0, 6], a[39, 7] = np.inf, -np.inf, np.inf, -np.inf
        s, e = nr.reduce(nr.twosum, a, axis=0)
        assert np.isnan(s[5]) and s[6] == np.inf and s[7] == -np.inf and e[5] == e[6] == e[7] == 0
        # TwoSum overflowing inside (s - a overflows: a partial sum and an
        # element near the largest value, of opposite signs; finite results)
        # in one column of a tile: the tile is redone in order
        with np.errstate(over="ignore"):
            xs = [dt(big) * dt(k / 4096) for k in range(1, 4096)]
            x = next(v for v in xs if np.isinf((dt(big) - v) + v))
        a = np.zeros((70, 40), dtype=dt)
        a[0, 10], a[50, 10] = -x, big
        a[1, :] += dt(1)
        s, e = nr.reduce(nr.twosum, a, axis=0)
        s2, e2 = nr.reduce(nr.twosum, strided(a), axis=0)
        assert np.array_equal(s, s2) and np.array_equal(e, e2), (dt, "overflow inside")
        assert np.isfinite(s).all() and np.isfinite(e).all(), (dt, s, e)
        got = nr.fsum(a, axis=0)
        for j in range(a.shape[1]):
            exact = math.fsum(a[:, j].astype(np.float64).tolist())
            assert abs(float(got[j]) - exact) <= eps * abs(exact), (dt, j, got[j], exact)
        # signed zeros: a column of -0.0 sums to -0.0 (rows of -0.0 too)
        z = np.full((9, 33), -0.0, dtype=dt)
        z[4, 1] = 0.0
        r = nr.fsum(z, axis=0)
        assert np.signbit(r[0]) and not np.signbit(r[1]), r
        r = nr.fsum(np.ascontiguousarray(z.T), axis=1)
        assert np.signbit(r[0]) and not np.signbit(r[1]), r
        checked += 1
    # integer and float16 columns take the float64 / float32 tiles after a conversion
    for dt, acc in ((np.int64, np.float64), (np.int32, np.float64), (np.uint8, np.float64),
                    (np.bool_, np.float64), (np.float16, np.float32)):
        for shape in ((70, 33), (300, 301), (5, 1000)):
            if dt == np.bool_:
                a = rng.random(shape) < 0.5
            elif np.dtype(dt).kind == "f":
                a = (rng.standard_normal(shape) * 100).astype(dt)
            else:
                info = np.iinfo(dt)
                a = rng.integers(info.min, info.max, size=shape, dtype=dt, endpoint=True)
            for f in (lambda x: nr.reduce(nr.twosum, x, axis=0), lambda x: nr.fsum(x, axis=0)):
                got, want = f(a), f(a.astype(acc))
                for g, w in zip(got if isinstance(got, tuple) else (got,),
                                want if isinstance(want, tuple) else (want,)):
                    assert np.array_equal(g, w), (dt, shape)
            checked += 1
    print("checked", checked)
''')

@pytest.mark.parametrize("level", ["baseline", "avx2", "avx512"])
def test_twosum_rows_and_lanes_at_every_level(level):
    checked = run_at_simd_level(CHECK, level, timeout=900)
    assert checked == f"checked {2 * (19 * 6 + 9 + 1) + 5 * 3}", checked


def test_fsum_rows_of_every_length_against_math_fsum():
    # the lanes (padded last step, tree merge) for row lengths 1..200
    rng = np.random.default_rng(5)
    for dt in (np.float64, np.float32):
        for n in range(1, 201):
            x = (rng.standard_normal(n) * 10.0 ** rng.integers(-8, 9, n)).astype(dt)
            exact = math.fsum(x.astype(np.float64).tolist())
            got = float(np.asarray(nr.fsum(x)))
            eps = float(np.finfo(dt).eps)
            bound = eps * abs(exact) + n * eps * eps * math.fsum(abs(v) for v in x.tolist())
            assert abs(got - exact) <= bound + float(np.finfo(dt).tiny), (dt, n, got, exact)
            # reversed and misaligned views of the same values
            assert float(np.asarray(nr.fsum(x[::-1]))) == pytest.approx(got, rel=2 * eps, abs=0)


TAIL = textwrap.dedent(r'''
    import math
    from fractions import Fraction
    import numpy as np
    import numreduce as nr
    from numreduce import _config

    print(_config.config()["simd_kernels"])
    rng = np.random.default_rng(33)
    checked = 0

    def strided(a):  # the same values, every column stepped in row order
        return np.repeat(a, 2, axis=1)[:, ::2]

    # the last W columns as one tile, only the columns not yet done kept:
    # every column count 2..70, bit for bit the row-by-row loop, within the
    # bound of math.fsum; specials and an overflowing TwoSum in the columns
    # stepped again (dropped) and in the kept ones
    for dt in (np.float64, np.float32):
        eps = float(np.finfo(dt).eps)
        big = np.finfo(dt).max
        with np.errstate(over="ignore"):
            xs = [dt(big) * dt(k / 4096) for k in range(1, 4096)]
            x = next(v for v in xs if np.isinf((dt(big) - v) + v))
        for cols in range(2, 71):
            for rows in (1, 3, 66):
                a = (rng.standard_normal((rows, cols)) * 10.0 ** rng.integers(-3, 4, (rows, cols)))
                a = a.astype(dt)
                variants = [a]
                if rows > 1:
                    b = a.copy()
                    b[0, 0], b[rows - 1, 0] = -x, big  # overflow inside, first column
                    c = a.copy()
                    c[0, -1], c[rows - 1, -1] = -x, big  # overflow inside, last column
                    d = a.copy()
                    d[rows // 2, ::2] = np.inf
                    d[rows - 1, 1::3] = np.nan
                    variants += [b, c, d]
                for v in variants:
                    s, e = nr.reduce(nr.twosum, v, axis=0)
                    s2, e2 = nr.reduce(nr.twosum, strided(v), axis=0)
                    assert np.array_equal(s, s2, equal_nan=True), (dt, rows, cols)
                    assert np.array_equal(e, e2, equal_nan=True), (dt, rows, cols)
                    got = nr.fsum(v, axis=0)
                    assert np.array_equal(got, nr.fsum(strided(v), axis=0), equal_nan=True)
                    # reversed rows and columns (negative strides), out=, keepdims
                    r = nr.fsum(v[::-1, ::-1], axis=0)
                    assert np.array_equal(r, nr.fsum(np.ascontiguousarray(v[::-1, ::-1]), axis=0),
                                          equal_nan=True)
                    o = (np.empty(cols, dtype=dt), np.empty(cols, dtype=dt))
                    assert nr.reduce(nr.twosum, v, axis=0, out=o)[0] is o[0]
                    assert np.array_equal(o[0], s, equal_nan=True)
                    assert np.array_equal(o[1], e, equal_nan=True)
                    k = nr.fsum(v, axis=0, keepdims=True)
                    assert k.shape == (1, cols) and np.array_equal(k[0], got, equal_nan=True)
                    for j in range(cols):
                        col = v[:, j].astype(np.float64).tolist()
                        if not all(math.isfinite(t) for t in col):
                            with np.errstate(invalid="ignore"):
                                w = np.sum(v[:, j])
                            assert np.array_equal(got[j], w, equal_nan=True), (dt, rows, cols, j)
                            continue
                        # exactly (math.fsum overflows on the overflow columns)
                        exact = sum(map(Fraction, col))
                        bound = (Fraction(eps) * abs(exact)
                                 + rows * Fraction(eps) ** 2 * sum(abs(Fraction(t)) for t in col))
                        err = abs(Fraction(float(got[j])) - exact)
                        assert err <= 2 * bound + Fraction(float(np.finfo(dt).tiny)), \
                            (dt, rows, cols, j, got[j], float(exact))
                    checked += 1
    # float16 / integer columns: the tiles of the converted values
    for dt, acc in ((np.float16, np.float32), (np.int32, np.float64)):
        for cols in (3, 9, 17, 33, 100):
            if dt == np.float16:
                a = (rng.standard_normal((70, cols)) * 100).astype(dt)
            else:
                a = rng.integers(-2**31, 2**31 - 1, size=(70, cols), dtype=dt)
            assert np.array_equal(nr.fsum(a, axis=0), nr.fsum(a.astype(acc), axis=0)), (dt, cols)
            checked += 1
    print("checked", checked)
''')


@pytest.mark.parametrize("level", ["baseline", "avx2", "avx512"])
def test_twosum_rows_last_tile_at_every_level(level):
    checked = run_at_simd_level(TAIL, level, timeout=900)
    assert checked == f"checked {2 * 69 * (1 + 2 * 4) + 10}", checked


# The last axis of a C-ordered 2-D array: every row a segment of one
# segment-loop call, rows summed a block at a time (simd.hpp's
# two_sum_rows: blocks of as many rows as a vector has lanes, their lanes
# transposed to finish together).  Each row must give the bits of the same
# row reduced alone (the 1-D stream), for every dtype the lanes read, row
# counts around the block size, lengths around the lane counts, and rows
# with inf / NaN / an overflow inside a TwoSum (that row steps in order) or
# inside a merge of two lanes (the block's rows redone one by one).
ROWS = textwrap.dedent(r'''
    import numpy as np
    import numreduce as nr
    from numreduce import _config

    print(_config.config()["simd_kernels"])
    rng = np.random.default_rng(33)
    checked = 0

    def same(x, y):
        x, y = np.asarray(x), np.asarray(y)
        return x.dtype == y.dtype and x.tobytes() == y.tobytes()

    big = {np.float64: 1.7e308, np.float32: 3.3e38, np.float16: 65000.0}
    # a pair whose TwoSum overflows inside (t = a + b finite, t - a not) where
    # two lanes merge: the lanes alone are fine (test_fsum's near-overflow pair)
    near = {np.float64: (-4.0857562922753104e+307, float(np.finfo(np.float64).max)),
            np.float32: (-7.733860252956414e+37, float(np.finfo(np.float32).max))}
    for dt in (np.float64, np.float32, np.float16, np.int32, np.int64, np.uint8, np.bool_):
        for cols in (1, 3, 4, 7, 8, 9, 15, 16, 17, 31, 32, 33, 64, 100):
            for rows in (1, 3, 4, 7, 8, 9, 16, 17, 33):
                a = rng.standard_normal((rows, cols)) * 10.0 ** rng.integers(-3, 4, (rows, cols))
                if np.dtype(dt).kind in "iub":
                    a = (a * 100).clip(0 if dt in (np.uint8, np.bool_) else -1e6, 255 if dt == np.uint8 else 1e6)
                a = a.astype(dt)
                if np.dtype(dt).kind == "f" and rows > 2:
                    r1, r2, r3 = rng.choice(rows, 3, replace=False)
                    a[r1, rng.integers(cols)] = rng.choice([np.inf, -np.inf, np.nan])
                    if cols > 1:  # an overflow inside a TwoSum: that row in order
                        a[r2, :2] = (big[dt], -big[dt])
                    if cols > 1 and dt in near:  # ... inside a merge of two lanes
                        a[r3, rng.choice(cols, 2, replace=False)] = near[dt]
                s, e = nr.reduce(nr.twosum, a, axis=1)
                f = nr.fsum(a, axis=1)
                for r in range(rows):
                    s1, e1 = nr.reduce(nr.twosum, np.ascontiguousarray(a[r]))
                    assert same(s[r], s1) and same(e[r], e1), (dt, rows, cols, r, s[r], s1, e[r], e1)
                    assert same(f[r], nr.fsum(np.ascontiguousarray(a[r]))), (dt, rows, cols, r)
                checked += 1
    print("checked", checked)
''')


@pytest.mark.parametrize("rows_at_once", ["1", "2"])
@pytest.mark.parametrize("level", ["baseline", "avx2", "avx512"])
def test_fsum_last_axis_rows_at_every_level(level, rows_at_once):
    # both row counts of two_sum_rows' steps, whichever this CPU would choose
    checked = run_at_simd_level(ROWS, level, timeout=900,
                                env={"NUMREDUCE_ROWS_AT_ONCE": rows_at_once})
    assert checked == f"checked {7 * 14 * 9}", checked
