"""Integer (and bool) data run the float64 vector kernels of moments,
log-sum-exp and the compensated sum (fsum) on lanes converted as the scalar
loops convert (static_cast<double>: exact up to 2**53, beyond that rounded
to nearest, ties to even, like NumPy's astype(float64)).  So an integer
reduction is, bit for bit, the float64 reduction of ``a.astype(float64)``
-- at every SIMD level, at sizes around the vector widths, on misaligned
views, with values near 2**53, 2**63 and 2**64 -- and the conversion of
every lane is NumPy's (checked one element at a time at every position of a
vector).  References: NumPy's astype / mean / var, math.fsum, fractions."""

import math
import textwrap
from fractions import Fraction

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis.extra import numpy as hnp

import numreduce as nr
from helpers import run_at_simd_level

INT_DTYPES = ["bool", "int8", "uint8", "int16", "uint16", "int32", "uint32", "int64", "uint64"]

# Values whose float64 conversion rounds (2**53 + 1 -> 2**53, 2**53 + 3 ->
# 2**53 + 4, 2**63 - 1 -> 2**63, ...), or is exact at the edges.
BIG64 = [2**53 - 1, 2**53, 2**53 + 1, 2**53 + 3, 2**62 + 2**10 + 1, 2**62 + 2**9,
         2**63 - 1, 2**63 - 512, 2**63 - 513, 2**63 - 1025]
SIGNED_BIG = BIG64 + [-v for v in BIG64] + [-2**63, -2**63 + 1]
UNSIGNED_BIG = BIG64 + [2**63, 2**63 + 1, 2**64 - 1, 2**64 - 1025, 2**64 - 2049]


def _big(dt):
    return SIGNED_BIG if np.dtype(dt).kind == "i" else UNSIGNED_BIG


CHECK = textwrap.dedent(r'''
    import numpy as np
    import numreduce as nr
    from numreduce import _config

    print(_config.config()["simd_kernels"])
    rng = np.random.default_rng(5)
    sizes = list(range(1, 71)) + [127, 128, 129, 130, 511, 512, 513, 1023, 1024, 1025, 4097]
    big = {"i": BIGS, "u": BIGU}
    checked = 0

    def same(f, x, what):
        global checked
        with np.errstate(all="ignore"):
            got, want = f(x), f(x.astype(np.float64))
        for g, w in zip(np.atleast_1d(got), np.atleast_1d(want)):
            assert np.array_equal(np.float64(g), np.float64(w), equal_nan=True), (what, g, w)
        checked += 1

    for dt in DTYPES:
        info = np.iinfo(dt) if dt != "bool" else None
        for n in sizes:
            kinds = [rng.integers(0, 2, n + 3).astype(dt)] if dt == "bool" else [
                rng.integers(info.min, info.max, n + 3, dtype=dt, endpoint=True),
                rng.integers(max(info.min, -100), 100, n + 3).astype(dt),
            ]
            if dt in ("int64", "uint64"):
                vals = np.array(big[np.dtype(dt).kind], dtype=object)
                kinds.append(vals[rng.integers(0, len(vals), n + 3)].astype(dt))
            for a in kinds:
                for off in (0, 1, 3):  # element-misaligned starts
                    x = a[off:off + n]
                    for f in (nr.fsum, nr.logsumexp, nr.meanvar, nr.meanstd):
                        same(f, x, (dt, n, off, f.__name__))
        if dt in ("int64", "uint64"):
            # the narrow conversion's edges (below AVX-512 64-bit integers in
            # [-2**51, 2**51), unsigned [0, 2**52), convert by a magic number,
            # a chunk of 512 redone where one element lies outside): each edge
            # value at chunk ends and inside, among small values
            edges = ([2**51 - 1, 2**51, 2**51 + 1, -2**51, -2**51 - 1, 2**52, -2**52, 2**62, -2**63]
                     if dt == "int64" else [2**52 - 1, 2**52, 2**52 + 1, 2**63, 2**64 - 1])
            # the exact integer path (the sum in integer lanes, then fl(S) and
            # S - fl(S)): the float64 lanes' (s, e) bit for bit where every
            # value lies in range, up to the largest values and long streams
            for n in (64, 513, 3000, 2**21 + 5):
                lo = -2**51 if dt == "int64" else 0
                for top in (2**51 - 1, 2**40, 1000):
                    x = rng.integers(max(lo, -top), top, n, dtype=dt, endpoint=True)
                    same(nr.fsum, x, (dt, n, top, "exact"))
                    same(lambda v: nr.reduce(nr.twosum, v), x, (dt, n, top, "exact states"))
                    if dt == "int64":
                        same(nr.fsum, np.abs(x), (dt, n, top, "exact, positive"))
            for n in (1024, 1500, 4097):
                small = rng.integers(0, 100, n).astype(dt)
                for v in edges:
                    for pos in (0, 1, 511, 512, 513, n // 2, n - 2, n - 1):
                        x = small.copy()
                        x[pos] = v
                        for f in (nr.fsum, nr.meanvar):
                            same(f, x, (dt, n, v, pos, f.__name__))
                        same(nr.fsum, x[1:], (dt, n, v, pos, "shifted"))
        # byte-misaligned data and a strided view
        raw = np.zeros(1000 * np.dtype(dt).itemsize + 1, np.uint8)[1:]
        x = raw.view(dt)
        x[:] = rng.integers(0, 2 if dt == "bool" else 100, 1000).astype(dt)
        for f in (nr.fsum, nr.logsumexp, nr.meanvar):
            same(f, x, (dt, "unaligned", f.__name__))
            same(f, x[::3], (dt, "strided", f.__name__))
    print("checked", checked)
''')


def _run(level):
    code = (CHECK.replace("DTYPES", repr(INT_DTYPES)).replace("BIGS", repr(SIGNED_BIG))
            .replace("BIGU", repr(UNSIGNED_BIG)))
    return run_at_simd_level(code, level)


@pytest.mark.parametrize("level", ["baseline", "avx2", "avx512"])
def test_integer_kernels_are_float64_of_the_converted_values(level):
    checked = _run(level)
    assert checked.startswith("checked ") and int(checked.split()[1]) > 10000, checked


@pytest.mark.parametrize("dt", ["int64", "uint64"])
def test_every_lane_converts_like_numpy(dt):
    # One large value among zeros at each position of the first vectors:
    # fsum and the mean are that value's float64 conversion (NumPy's astype),
    # the log-sum-exp over a far-below floor is the value itself.
    n = 70
    for v in _big(dt):
        want = np.array([v], dtype=dt).astype(np.float64)[0]
        floor = np.iinfo(dt).min if np.dtype(dt).kind == "i" else 0
        for pos in range(n):
            x = np.zeros(n, dtype=dt)
            x[pos] = v
            assert nr.fsum(x) == want, (v, pos)
            assert nr.meanvar(np.full(n, v, dtype=dt))[0] == want, v
            if v > 2**62:
                y = np.full(n, floor, dtype=dt)
                y[pos] = v
                assert nr.logsumexp(y) == want, (v, pos)


@pytest.mark.parametrize("dt", ["int32", "uint32", "int64", "uint64"])
@pytest.mark.parametrize("n", [64, 129, 1000, 10**5 + 3])
def test_fsum_of_integers_against_math_fsum(dt, n):
    rng = np.random.default_rng(n)
    info = np.iinfo(dt)
    a = rng.integers(info.min, info.max, n, dtype=dt, endpoint=True)
    conv = a.astype(np.float64)
    want = math.fsum(conv.tolist())  # the correctly rounded sum of the converted values
    got = nr.fsum(a)
    assert abs(got - want) <= 2 * np.spacing(abs(want)) + 1e-300, (got, want)
    if info.bits <= 32:  # every value exact in float64: the exact integer sum
        exact = int(np.sum(a.astype(object)))
        assert abs(got - exact) <= 2 * np.spacing(abs(float(exact))), (got, exact)


@pytest.mark.parametrize("dt", ["int8", "int16", "int32", "uint32", "int64", "uint64"])
def test_meanvar_of_integers_against_fractions(dt):
    rng = np.random.default_rng(3)
    info = np.iinfo(dt)
    hi = min(info.max, 2**40)  # values exact in float64
    a = rng.integers(max(info.min, -hi), hi, 4097).astype(dt)
    vals = [Fraction(int(v)) for v in a]
    mean = sum(vals) / len(vals)
    var = sum((v - mean) ** 2 for v in vals) / len(vals)
    m, v = nr.meanvar(a)
    scale = max(abs(int(a.min())), abs(int(a.max())), 1)
    assert abs(Fraction(float(m)) - mean) <= Fraction(2.0**-50) * scale, (m, float(mean))
    assert abs(Fraction(float(v)) - var) <= Fraction(2.0**-40) * var, (v, float(var))
    np.testing.assert_allclose(m, np.mean(a), rtol=0, atol=1e-14 * scale)
    np.testing.assert_allclose(v, np.var(a), rtol=1e-12)


@settings(deadline=None)
@given(
    hnp.arrays(
        dtype=st.sampled_from([np.int8, np.uint16, np.int32, np.uint32, np.int64, np.uint64, np.bool_]),
        shape=hnp.array_shapes(min_dims=1, max_dims=3, min_side=1, max_side=40),
    ),
    st.data(),
)
def test_integer_reductions_along_axes_equal_float64(a, data):
    axis = data.draw(st.sampled_from([None] + list(range(a.ndim))))
    d = a.astype(np.float64)
    with np.errstate(all="ignore"):
        for f in (nr.fsum, nr.logsumexp, nr.meanvar):
            got, want = f(a, axis=axis), f(d, axis=axis)
            for g, w in zip(got if isinstance(got, tuple) else (got,),
                            want if isinstance(want, tuple) else (want,)):
                np.testing.assert_array_equal(np.asarray(g), np.asarray(w))
