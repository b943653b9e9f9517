"""float16 data run the vector kernels too: the compensated sum (fsum) in
float32 lanes, moments / NaN-skipping moments / log-sum-exp in float64
lanes, each half converted exactly (normal, subnormal, inf, NaN).  So a
float16 ``fsum`` is bit for bit the float32 ``fsum`` of ``a.astype(float32)``
and a float16 ``meanvar``/``nanmeanvar``/``logsumexp`` the float64 result of
``a.astype(float64)`` cast to float16 -- at every SIMD level, at sizes
around the vector widths, on misaligned views.  The conversion of every one
of the 65536 half bit patterns is checked against NumPy's astype."""

import textwrap

import numpy as np
import pytest

import numreduce as nr
from helpers import run_at_simd_level

ALL_HALVES = np.arange(65536, dtype=np.uint32).astype(np.uint16).view(np.float16)


@pytest.mark.parametrize("pos", [0, 1, 7, 15, 31, 63])
def test_every_half_converts_like_numpy(pos):
    # Row i: ALL_HALVES[i] at `pos` among -0.0: its fsum (float32 lanes) is
    # the value's float32 conversion, its mean the float64 one.
    rows = np.full((65536, 64), -0.0, dtype=np.float16)
    rows[:, pos] = ALL_HALVES
    want32 = ALL_HALVES.astype(np.float32)
    with np.errstate(all="ignore"):
        got = nr.fsum(rows, axis=1)
        assert got.dtype == np.float32
        np.testing.assert_array_equal(got, want32)
        finite = np.isfinite(ALL_HALVES)
        # the same values through the float64 lanes: the row's mean is the
        # value / 64 (exact in float64), rounded once to float16
        m = nr.meanvar(rows, axis=1)[0]
        want = (ALL_HALVES.astype(np.float64) / 64).astype(np.float16)
        np.testing.assert_array_equal(m[finite], want[finite])
        lse = nr.logsumexp(np.where(np.arange(64) == pos, rows, np.float16(-np.inf)), axis=1)
        np.testing.assert_array_equal(lse[finite], ALL_HALVES[finite])
        assert np.isnan(lse[np.isnan(ALL_HALVES)]).all()


CHECK = textwrap.dedent(r'''
    import numpy as np
    import numreduce as nr
    from numreduce import _config

    print(_config.config()["simd_kernels"])
    rng = np.random.default_rng(11)
    sizes = list(range(1, 71)) + [127, 128, 129, 130, 511, 512, 513, 1023, 1024, 1025, 4097]
    checked = 0

    def eq(g, w, what):
        global checked
        g, w = np.asarray(g), np.asarray(w)
        assert g.dtype == w.dtype, (what, g.dtype, w.dtype)
        assert np.array_equal(g, w, equal_nan=True), (what, g, w)
        checked += 1

    for n in sizes:
        base = [(rng.standard_normal(n + 3) * 3).astype(np.float16),
                (rng.standard_normal(n + 3) * 1e-6).astype(np.float16),  # subnormal halves
                (rng.standard_normal(n + 3) * 2e4 + 3e4).astype(np.float16)]
        for a in base:
            for off in (0, 1, 3):
                x = a[off:off + n]
                with np.errstate(all="ignore"):
                    eq(nr.fsum(x), nr.fsum(x.astype(np.float32)), (n, off, "fsum"))
                    eq(nr.logsumexp(x), nr.logsumexp(x.astype(np.float64)).astype(np.float16),
                       (n, off, "logsumexp"))
                    for g, w in zip(nr.meanvar(x), nr.meanvar(x.astype(np.float64))):
                        eq(g, w.astype(np.float16), (n, off, "meanvar"))
                    if n >= 3:
                        y = x.copy()
                        y[1::5] = np.nan
                        for g, w in zip(nr.nanmeanvar(y), nr.nanmeanvar(y.astype(np.float64))):
                            eq(g, w.astype(np.float16), (n, off, "nanmeanvar"))
                        for special in (np.inf, -np.inf, np.nan):
                            y = x.copy()
                            y[n // 2] = special
                            eq(nr.fsum(y), nr.fsum(y.astype(np.float32)), (n, special, "fsum"))
                            eq(nr.logsumexp(y), nr.logsumexp(y.astype(np.float64)).astype(np.float16),
                               (n, special, "logsumexp"))
    print("checked", checked)
''')

@pytest.mark.parametrize("level", ["baseline", "avx2", "avx512"])
def test_float16_kernels_at_every_level(level):
    checked = run_at_simd_level(CHECK, level, timeout=900)
    assert checked.startswith("checked ") and int(checked.split()[1]) > 3000, checked


def test_float16_against_numpy():
    rng = np.random.default_rng(2)
    a = (rng.standard_normal(10**5 + 3) * 2 + 5).astype(np.float16)
    d = a.astype(np.float64)
    np.testing.assert_allclose(nr.fsum(a), np.sum(d), rtol=1e-7)
    m, v = nr.meanvar(a)
    assert m == np.float16(np.mean(d)) and v == np.float16(np.var(d))
