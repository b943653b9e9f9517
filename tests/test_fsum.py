"""The twosum ufunc (error-free transformation) checked with exact rational
arithmetic, and fsum (its compensated-sum reduction) against math.fsum."""

import math
from fractions import Fraction

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis.extra import numpy as hnp

import numreduce as nr
from helpers import INT_DTYPES

TS = nr.twosum
F64_MAX = float(np.finfo(np.float64).max)
F32_MAX = float(np.finfo(np.float32).max)
# One ulp at the largest finite value (np.spacing there is inf, with an
# overflow warning): the pairs below sit half an ulp from overflow.
F64_MAX_ULP = math.ulp(F64_MAX)                                       # 2**971
F32_MAX_ULP = F32_MAX - float(np.nextafter(np.float32(F32_MAX), np.float32(0)))  # 2**104


def exact(v):
    return Fraction(float(v))


def ulp_of(s, dtype):
    """Spacing of the floats of `dtype` just above |s| (finite even at the
    largest finite value, unlike np.spacing)."""
    info = np.finfo(dtype)
    if s == 0:
        return Fraction(float(info.smallest_subnormal))
    _, ex = math.frexp(abs(float(s)))
    return max(Fraction(2) ** (ex - info.nmant - 1), Fraction(float(info.smallest_subnormal)))


def assert_error_free(a, b, s, e, dtype):
    """s = fl(a + b) in `dtype`; s + e == a + b exactly where s is finite; e == 0 elsewhere."""
    a, b, s, e = (np.asarray(v) for v in (a, b, s, e))
    assert s.dtype == e.dtype == np.dtype(dtype)
    with np.errstate(all="ignore"):
        direct = np.add(a.astype(dtype), b.astype(dtype), dtype=dtype)
    np.testing.assert_array_equal(s, direct)          # NaN where NaN, same infinities
    for ai, bi, si, ei in zip(a.ravel(), b.ravel(), s.ravel(), e.ravel()):
        if np.isfinite(si):
            assert exact(si) + exact(ei) == exact(ai) + exact(bi), (ai, bi, si, ei)
            assert abs(exact(ei)) <= ulp_of(si, dtype) / 2, (ai, bi, si, ei)
        else:
            assert ei == 0, (ai, bi, si, ei)


# ---------------------------------------------------------------------------
# twosum elementwise
# ---------------------------------------------------------------------------

def test_is_a_real_ufunc():
    assert isinstance(TS, np.ufunc) and (TS.nin, TS.nout) == (2, 2)


@given(a=st.floats(width=64), b=st.floats(width=64))
def test_twosum_float64_pairs_exact(a, b):
    s, e = TS(np.float64(a), np.float64(b))
    assert_error_free([a], [b], [s], [e], np.float64)


@given(a=st.floats(width=32), b=st.floats(width=32))
def test_twosum_float32_pairs_exact(a, b):
    s, e = TS(np.float32(a), np.float32(b))
    assert_error_free([a], [b], [s], [e], np.float32)


@settings(max_examples=60)
@given(data=st.data())
def test_twosum_float64_arrays_mixed_magnitudes(data):
    n = data.draw(st.integers(1, 40))
    rng = np.random.default_rng(data.draw(st.integers(0, 2**32 - 1)))
    exps_a = rng.integers(-1074, 1024, n)
    exps_b = exps_a + rng.integers(-60, 61, n)       # often overlapping, sometimes far
    a = np.ldexp(rng.uniform(-1, 1, n), np.clip(exps_a, -1074, 1023))
    b = np.ldexp(rng.uniform(-1, 1, n), np.clip(exps_b, -1074, 1023))
    specials = np.array([np.inf, -np.inf, np.nan, 0.0, -0.0, F64_MAX, -F64_MAX, 5e-324])
    a[rng.random(n) < 0.1] = rng.choice(specials)
    s, e = TS(a, b)
    assert_error_free(a, b, s, e, np.float64)
    s, e = TS(b[::-1], a[::-1])
    assert_error_free(b[::-1], a[::-1], s, e, np.float64)


NEAR_OVERFLOW = [
    (F64_MAX, -F64_MAX_ULP / 2), (F64_MAX, F64_MAX_ULP / 2),
    (F64_MAX, -F64_MAX), (F64_MAX, -1e292), (-F64_MAX, 1e292), (F64_MAX, 1.0),
    (F64_MAX * 0.75, F64_MAX * 0.5), (F64_MAX, F64_MAX), (-F64_MAX, -F64_MAX),
    (F64_MAX, -F64_MAX / 2), (F64_MAX / 2 + float(np.spacing(F64_MAX / 2)), F64_MAX / 2),
    (np.nextafter(F64_MAX, 0), F64_MAX_ULP / 2),
    (np.inf, -np.inf), (np.inf, np.inf), (np.inf, 1.0), (np.nan, 1.0), (1.0, np.nan),
    (-np.inf, F64_MAX), (-4.0857562922753104e+307, F64_MAX), (1e308, -F64_MAX),
    (5e-324, -5e-324), (5e-324, 5e-324), (1e-308, -1e-308 * (1 - 2**-52)),
    (0.0, -0.0), (-0.0, -0.0), (1e16, 1.0), (1.0, 1e16), (2**53, 1.0), (0.1, 0.2),
]


@pytest.mark.parametrize("a,b", NEAR_OVERFLOW, ids=repr)
def test_twosum_float64_special_pairs(a, b):
    with np.errstate(all="ignore"):
        s, e = TS(np.float64(a), np.float64(b))
    assert_error_free([a], [b], [s], [e], np.float64)
    with np.errstate(all="ignore"):
        s, e = TS(np.float64(b), np.float64(a))
    assert_error_free([b], [a], [s], [e], np.float64)


@pytest.mark.parametrize("a,b", [(F32_MAX, -F32_MAX_ULP / 2), (F32_MAX, F32_MAX_ULP / 2),
                                 (F32_MAX, F32_MAX), (F32_MAX, -F32_MAX), (3e38, 1e31),
                                 (1e-45, -1e-45), (16777216.0, 1.0), (np.inf, -np.inf),
                                 (np.nan, 2.0)], ids=repr)
def test_twosum_float32_special_pairs(a, b):
    with np.errstate(all="ignore"):
        s, e = TS(np.float32(a), np.float32(b))
    assert_error_free([np.float32(a)], [np.float32(b)], [s], [e], np.float32)


def test_twosum_output_dtypes():
    for dt, out in [(np.float16, np.float32), (np.float32, np.float32), (np.float64, np.float64),
                    (np.longdouble, np.longdouble), (np.int64, np.float64), (np.int8, np.float64),
                    (np.uint64, np.float64), (np.bool_, np.float64)]:
        s, e = TS(np.ones(2, dt), np.ones(2, dt))
        assert s.dtype == e.dtype == np.dtype(out), (dt, s.dtype)
    # integers convert exactly (below 2**53) and the error is exact
    a = np.array([2**53, -(2**40) + 3], dtype=np.int64)
    b = np.array([1, 2**52 + 1], dtype=np.int64)
    s, e = TS(a, b)
    for ai, bi, si, ei in zip(a, b, s, e):
        assert exact(si) + exact(ei) == int(ai) + int(bi)


# ---------------------------------------------------------------------------
# fsum: ill-conditioned sums against math.fsum
# ---------------------------------------------------------------------------

def gensum(n, cond, rng):
    """After Ogita-Rump-Oishi's GenDot, for sums: n floats whose sum has
    condition number `cond` (= sum|x| / |sum x|), up to a factor ~2.  Half
    random with exponents spread over [0, log2(cond)/2]; then terms that cancel
    the exact running sum with exponents decreasing to 0; a last term sets the
    exact sum to sum|x| / cond."""
    b = math.log2(cond) / 2
    n2 = n // 2
    e = np.rint(rng.random(n2) * b).astype(int)
    e[0], e[-1] = round(b) + 1, 0
    x = list(np.ldexp(2 * rng.random(n2) - 1, e))
    running = sum((Fraction(v) for v in x), Fraction(0))
    for ei in np.rint(np.linspace(b, 0, n - n2 - 1)).astype(int):
        v = float(Fraction(float(np.ldexp(2 * rng.random() - 1, ei))) - running)
        x.append(v)
        running += Fraction(v)
    total_abs = math.fsum(abs(v) for v in x)
    x.append(float(Fraction(total_abs / cond) - running))
    x = np.array(x)
    rng.shuffle(x)
    return x


def cancelling(n, cond, rng):
    """Big values of many magnitudes with their exact negatives, plus a tail
    of small values that survives the cancellation."""
    k = max(2, n // 50)
    half = (n - k) // 2
    r = rng.standard_normal(half) * 10.0 ** rng.uniform(0, 6, half)
    tail = rng.uniform(0.5, 1.5, k)
    big = 2 * np.sum(np.abs(r))
    tail *= big / (cond * np.sum(tail))
    x = np.concatenate([r, -r, tail])
    rng.shuffle(x)
    return x


def condition(x):
    return math.fsum(abs(v) for v in x) / abs(math.fsum(x))


def assert_within_one_ulp(got, want):
    got = float(got)
    assert got == want or abs(got - want) <= float(np.spacing(abs(np.float64(want)))), (
        got, want, (got - want) / float(np.spacing(abs(np.float64(want)))))


def assert_within_documented_bound(got, x):
    """fsum's docstring: |fsum - exact| <= eps |exact| + n eps**2 sum|x|, eps = 2**-52
    (math.fsum is the exact sum correctly rounded; allow its half ulp)."""
    want = math.fsum(x)
    n = len(x)
    bound = (float(np.spacing(abs(np.float64(want)))) * 1.5
             + n * 2.0**-104 * math.fsum(abs(v) for v in x))
    assert abs(float(got) - want) <= bound, (float(got), want, n)


@pytest.mark.parametrize("gen", [gensum, cancelling])
@pytest.mark.parametrize("n", [100, 1000, 10_000])
@pytest.mark.parametrize("cond", [1e6, 1e10])
def test_fsum_ill_conditioned_within_one_ulp(gen, n, cond):
    rng = np.random.default_rng(n + int(math.log10(cond)))
    x = gen(n, cond, rng)
    c = condition(x)
    assert cond / 10 <= c <= cond * 10, c            # the data is as ill-conditioned as meant
    want = math.fsum(x)
    for arr in (x, x[::-1], np.repeat(x, 2)[::2], x.reshape(-1, 10 if n % 10 == 0 else 1).T):
        got = nr.fsum(arr)
        assert_within_one_ulp(got, want)
    # naive summation is far off on this data: the test can tell
    assert abs(float(np.sum(x)) - want) > 2 * np.spacing(want) or n < 1000


@pytest.mark.parametrize("k", [1, 2, 3, 10, 100, 1000, 5001])
def test_fsum_exact_on_1e16_one_minus_1e16(k):
    x = np.array([1e16, 1.0, -1e16] * k)
    assert nr.fsum(x) == float(k) == math.fsum(x)
    assert nr.fsum(x[::-1]) == float(k)
    assert nr.fsum(x.reshape(k, 3), axis=1).tolist() == [1.0] * k
    assert nr.fsum(np.repeat(x, 3)[::3]) == float(k)


def test_fsum_docstring_example():
    x = np.array([1e16, 1.0, -1e16] * 10)
    assert float(nr.fsum(x)) == 10.0


@given(data=st.data())
def test_fsum_axis_keepdims_per_slice(data):
    shape = data.draw(hnp.array_shapes(min_dims=1, max_dims=3, min_side=0, max_side=7))
    rng = np.random.default_rng(data.draw(st.integers(0, 2**32 - 1)))
    a = rng.standard_normal(shape) * 10.0 ** rng.integers(-20, 20, shape)
    if a.size and data.draw(st.booleans()):
        flat = a.reshape(-1)
        flat[: flat.size // 2] = -flat[flat.size - flat.size // 2:][::-1][: flat.size // 2]
    if data.draw(st.booleans()):
        a = a[::-1]
    axis = data.draw(st.one_of(st.none(), st.integers(-a.ndim, a.ndim - 1),
                               st.permutations(range(a.ndim)).map(tuple)))
    keepdims = data.draw(st.booleans())
    got = nr.fsum(a, axis=axis, keepdims=keepdims)
    shape_ref = np.sum(a, axis=axis, keepdims=keepdims)
    assert type(got) is type(shape_ref) and np.shape(got) == np.shape(shape_ref)
    assert np.asarray(got).dtype == np.float64
    axes = tuple(range(a.ndim)) if axis is None else (
        (axis,) if isinstance(axis, int) else axis)
    axes = tuple(ax % a.ndim for ax in axes)
    moved = np.moveaxis(a, axes, tuple(range(a.ndim - len(axes), a.ndim)))
    lead = moved.shape[: a.ndim - len(axes)]
    rows = moved.reshape(lead + (int(np.prod(moved.shape[len(lead):])),))
    flat_rows = rows.reshape(int(np.prod(lead)), rows.shape[-1])
    g = np.asarray(got).reshape(len(flat_rows))
    for gi, row in zip(g, flat_rows):
        assert_within_documented_bound(gi, list(row))


@pytest.mark.parametrize("dtype", [np.float32, np.float16])
def test_fsum_low_precision_within_one_ulp_of_exact(dtype):
    rng = np.random.default_rng(3)
    x = (rng.standard_normal(5000) * 10.0 ** rng.integers(-3, 3, 5000)).astype(dtype)
    x = np.concatenate([x, -x[:4900]])
    rng.shuffle(x)
    got = nr.fsum(x)
    assert got.dtype == np.float32                       # float16 accumulates in float32
    ex = sum((Fraction(float(v)) for v in x), Fraction(0))
    assert abs(exact(got) - ex) <= ulp_of(float(ex), np.float32), (got, float(ex))


def test_fsum_dtype_argument():
    rng = np.random.default_rng(4)
    x = (rng.standard_normal((30, 400)) * 1e3).astype(np.float32)
    x[:, 200:] = -x[:, :200]
    x[:, 0] += np.float32(1e-3)
    got = nr.fsum(x, axis=1, dtype=np.float64)
    assert got.dtype == np.float64
    for gi, row in zip(got, x):
        assert_within_one_ulp(gi, math.fsum(row.astype(np.float64)))
    got = nr.fsum(x, axis=None, dtype=np.float64, keepdims=True)
    assert got.shape == (1, 1) and got.dtype == np.float64
    assert_within_one_ulp(got[0, 0], math.fsum(x.astype(np.float64).ravel()))
    ld = nr.fsum(x, axis=0, dtype=np.longdouble)
    assert ld.dtype == np.longdouble
    np.testing.assert_array_equal(ld.astype(np.float64),
                                  [math.fsum(c.astype(np.float64)) for c in x.T])


@pytest.mark.parametrize("dtype", INT_DTYPES + [np.bool_], ids=str)
def test_fsum_integers_accumulate_in_float64(dtype):
    a = np.arange(50).astype(dtype) if dtype is not np.bool_ else np.arange(50) % 3 == 0
    got = nr.fsum(a)
    assert got.dtype == np.float64 and type(got) is np.float64
    assert got == float(np.sum(a.astype(np.int64)))


def test_fsum_big_integers_are_compensated():
    a = np.array([2**53, 1, 1, 1, 1], dtype=np.int64)
    assert nr.fsum(a) == 2.0**53 + 4            # float64 running sum alone gives 2**53
    b = np.array([2**62, 3, -(2**62), 5], dtype=np.int64)
    assert nr.fsum(b) == 8.0
    u = np.array([2**63, 2**63, 1, 1], dtype=np.uint64)
    assert nr.fsum(u) == float(2**64 + 2)


def ieee_fold(xs):
    """Left-to-right IEEE addition without an inserted +0.0 (the empty sum is +0.0)."""
    xs = [float(v) for v in xs]
    if not xs:
        return 0.0
    acc = xs[0]
    for v in xs[1:]:
        acc = acc + v
    return acc


@pytest.mark.parametrize("data", [[], [-0.0], [-0.0, -0.0], [-0.0] * 100, [0.0, -0.0],
                                  [-0.0, 0.0], [0.0], [-0.0] * 40 + [0.0], [1.0, -1.0],
                                  [-1.0, 1.0, -0.0]], ids=repr)
def test_fsum_signed_zeros(data):
    """Zero sums have IEEE's sign (every term -0.0 -> -0.0, otherwise +0.0;
    the empty sum +0.0), which is also what twosum.hpp documents."""
    for dtype in (np.float64, np.float32):
        a = np.array(data, dtype=dtype)
        want = ieee_fold(a)
        for arr in (a, a[::-1]):
            got = nr.fsum(arr)
            assert got == want, (data, dtype, got, want)
            assert bool(np.signbit(got)) == (math.copysign(1.0, want) < 0), (data, dtype, got)


def test_fsum_signed_zeros_along_an_axis():
    a = np.array([[-0.0, -0.0, -0.0], [-0.0, 0.0, -0.0]])
    got = nr.fsum(a, axis=1)
    assert np.signbit(got).tolist() == [True, False]
    got = nr.fsum(np.zeros((0, 3)), axis=0)
    assert got.tolist() == [0.0, 0.0, 0.0] and not np.signbit(got).any()


@pytest.mark.parametrize("data", [[np.inf, 1.0], [1.0, -np.inf], [np.inf, -np.inf],
                                  [np.nan, 1.0], [np.inf, np.nan], [1e308, 1e308],
                                  [1e308, 1e308, -1e308], [-1e308, -1e308, 5.0],
                                  [np.inf] * 50 + [1.0] * 50, [1.0] * 100 + [np.nan],
                                  [1e308] * 40 + [-1e308] * 40, [np.inf, 1e16, 1.0, -1e16]],
                         ids=lambda d: repr(d)[:40])
def test_fsum_inf_nan_like_np_sum(data):
    a = np.array(data)
    with np.errstate(all="ignore"):
        for arr in (a, a[::-1]):
            want = np.sum(arr)
            if np.isfinite(want):
                # np.sum may round differently; the exact sum is finite here
                assert_within_one_ulp(nr.fsum(arr), math.fsum(arr))
            else:
                np.testing.assert_array_equal(nr.fsum(arr), want)


def test_fsum_inf_nan_along_axis_like_np_sum():
    a = np.array([[np.inf, 1.0, 2.0], [1.0, np.nan, 3.0], [np.inf, -np.inf, 0.0],
                  [1e308, 1e308, 0.0]])
    with np.errstate(all="ignore"):
        np.testing.assert_array_equal(nr.fsum(a, axis=1), np.sum(a, axis=1))
        np.testing.assert_array_equal(nr.fsum(a.T, axis=0), np.sum(a.T, axis=0))


def test_twosum_reduce_returns_sum_and_error(reduce_path):
    x = np.array([1e16, 1.0, -1e16, 3.0, 1e-3] * 7)
    s, e = reduce_path(TS, x)
    assert s.dtype == e.dtype == np.float64
    ex = sum((Fraction(float(v)) for v in x), Fraction(0))
    # s + e (unrounded) is the exact sum up to the error term of the bound
    # in fsum's docstring: n eps**2 sum|x|
    assert abs(exact(s) + exact(e) - ex) <= len(x) * Fraction(1, 2**104) * sum(
        abs(Fraction(float(v))) for v in x)
    assert_within_documented_bound(s + e, list(x))
    s, e = reduce_path(TS, np.array([], dtype=np.float64))
    assert s == 0.0 and not np.signbit(s)
    s, e = reduce_path(TS, x.reshape(7, 5), axis=1)
    assert s.shape == e.shape == (7,)
    for si, ei in zip(s, e):
        assert_within_documented_bound(si + ei, list(x[:5]))
    np.testing.assert_array_equal(nr.fsum(x.reshape(7, 5), axis=1), s + e)


@pytest.mark.parametrize("n", [7, 8, 9, 15, 16, 17, 33, 1000, 1031])
@pytest.mark.parametrize("special", [[np.nan], [np.inf], [-np.inf], [np.inf, -np.inf],
                                     [np.inf, np.inf], [np.nan, np.inf]], ids=repr)
def test_fsum_specials_at_every_lane_position(n, special):
    """inf / NaN at the start, at lane boundaries and at the end of contiguous
    float64 data: the result is np.sum's (inf, -inf or NaN)."""
    rng = np.random.default_rng(n)
    base = rng.standard_normal(n) * 1e3
    for p in sorted({0, 1, 3, 4, 7, min(8, n - 1), n // 2, n - 1}):
        a = base.copy()
        for k, v in enumerate(special):
            a[(p + k * (n // 3 + 1)) % n] = v
        for arr in (a, a[::-1], a.reshape(1, -1)):
            with np.errstate(invalid="ignore"):
                want = np.sum(arr, axis=-1)
            np.testing.assert_array_equal(nr.fsum(arr, axis=-1), want, err_msg=f"n={n} p={p}")


@pytest.mark.parametrize("n", [1, 7, 8, 9, 16, 17, 31, 64, 1000, 1031])
def test_fsum_lane_boundaries_exact_cancellation(n):
    """Cancelling pairs spread over the vector lanes.  With integer small
    terms every rounding error is an integer, so the compensated sum is exact;
    with arbitrary small terms (condition number ~1e17, beyond the 1-ulp
    regime) the documented bound applies."""
    rng = np.random.default_rng(n + 7)
    big = np.rint(rng.standard_normal(n) * 1e16)
    x = np.empty(3 * n)
    x[0::3], x[1::3], x[2::3] = big, rng.integers(-1000, 1000, n), -big
    want = math.fsum(x)
    for arr in (x, x[::-1], np.roll(x, 5)):
        assert float(nr.fsum(arr)) == want
    x[1::3] = rng.standard_normal(n)
    for arr in (x, x[::-1], np.roll(x, 5)):
        assert_within_documented_bound(nr.fsum(arr), list(arr))


def test_fsum_threaded_whole_array(two_threads):
    rng = np.random.default_rng(21)
    n = 2**21
    r = rng.standard_normal(n) * 10.0 ** rng.uniform(0, 6, n)
    tail = rng.standard_normal(1001)
    x = np.concatenate([r, -r, tail])
    rng.shuffle(x)
    want = math.fsum(x)
    assert_within_documented_bound(nr.fsum(x), x.tolist())
    assert abs(float(nr.fsum(x)) - want) <= float(np.spacing(abs(want)))
    y = np.array([1e16, 1.0, -1e16] * (2**21 + 5))
    assert nr.fsum(y) == float(2**21 + 5)
    z = np.full(2**22 + 3, -0.0)
    assert nr.fsum(z) == 0.0 and np.signbit(nr.fsum(z))
    z[-1] = np.inf
    z[2**21 + 1] = -np.inf
    assert np.isnan(nr.fsum(z))


@pytest.mark.parametrize("pos", [1, 32, 1000])
def test_fsum_near_overflow_partial_sums_are_not_nan(pos):
    """s - a overflowing inside TwoSum (a partial sum and an element near the
    largest double, of opposite signs) gave a NaN error term and fsum NaN,
    in the scalar step and in the vector lanes (pos 32, 1000: same lane)."""
    x = np.zeros(2000)
    x[0], x[pos] = -4.0857562922753104e+307, F64_MAX
    assert nr.fsum(x) == math.fsum(x)
    assert nr.fsum(x[::-1]) == math.fsum(x)
    assert nr.fsum(x[[0, pos]]) == math.fsum(x)

