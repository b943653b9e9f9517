"""The fast path's direct calls for short whole arrays (fastpath.cpp's
small_minmax and small_moments: C- or F-contiguous (moments: C), aligned
float32/float64 data, n <= 50000, straight into the traits' stream
function) against the general path (numreduce._api, which goes through the
engine's loop), bit for bit -- NaN payloads, zero signs and warnings
included -- at every SIMD level; and the moments against NumPy's
nanmean/nanvar and math.fsum-based references.  Sizes around the vector
widths, the 1024-value block, the 50000 bound; NaN at the first, last and
every position, all-NaN, inf, -0.0, overflowing deviations, ddof."""

import math
import os
import warnings

import numpy as np
import pytest

import numreduce as nr
import numreduce._api as api

from helpers import SIMD_NAMES, run_at_simd_level

SIZES = list(range(0, 71)) + [95, 96, 97, 100, 127, 128, 129, 255, 256, 257, 511, 512, 513,
                              1000, 1023, 1024, 1025, 4096]
FUNCS = ["meanvar", "meanstd", "nanmeanvar"]
MINMAX = ["minmax", "nanminmax"]


def outcome(f, *args, **kwargs):
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        try:
            res = ("ok", tuple((type(r), np.asarray(r).dtype, np.asarray(r).tobytes()) for r in
                               f(*args, **kwargs)))
        except Exception as e:  # noqa: BLE001 - the exception is the outcome
            res = ("raise", type(e), str(e))
    return res, sorted((w.category.__name__, str(w.message)) for w in caught)


def cases(n, dtype, rng, payloads=False):
    """Arrays of n elements: plain data, offset data, NaN patterns, inf,
    signed zeros, overflowing deviations; ``payloads``: NaNs of two
    payloads and signs too (for min/max, which select an element: which
    NaN an arithmetic result carries depends on the order the compiler
    gave its operands, so the moments' two paths need not agree there)."""
    base = [rng.standard_normal(n), rng.standard_normal(n) * 1e-3 + 1e8, np.full(n, 2.5)]
    out = [b.astype(dtype) for b in base]
    if n:
        a = base[0].astype(dtype)
        positions = range(n) if n <= 40 else sorted({0, 1, n // 2, n - 2, n - 1})
        for p in positions:
            c = a.copy()
            c[p] = np.nan
            out.append(c)
        for step in (2, 3, 7):
            c = a.copy()
            c[::step] = np.nan
            out.append(c)
        c = a.copy()
        c[1:] = np.nan
        out.append(c)
        out.append(np.full(n, np.nan, dtype))
        for v in (np.inf, -np.inf):
            c = a.copy()
            c[n // 2] = v
            out.append(c)
        c = a.copy()
        c[0], c[-1] = np.inf, -np.inf
        out.append(c)
        out.append(np.full(n, -0.0, dtype))
        c = np.zeros(n, dtype)
        c[0] = -0.0
        out.append(c)
        big = np.finfo(dtype).max
        c = np.where(np.arange(n) % 2 == 0, big, -big).astype(dtype)
        out.append(c)
        # zeros of both signs in turn (which one a min/max keeps), and NaNs
        # of two payloads and signs (which one propagates)
        out.append(np.where(np.arange(n) % 3 == 1, -0.0, 0.0).astype(dtype))
    if n and payloads:
        bits = np.dtype(f"u{np.dtype(dtype).itemsize}")
        nans = np.array([np.nan, -np.nan], dtype)
        quiet = nans.view(bits)
        payload = (quiet | bits.type(1)).view(dtype)
        for p, q in ((0, n - 1), (n // 2, n // 3), (n - 1, 0)):
            c = a.copy()
            c[p], c[q] = payload[0], payload[1]
            out.append(c)
    return out


@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("name", FUNCS)
def test_small_moments_equal_general_path(name, dtype):
    fast, general = getattr(nr, name), getattr(api, name)
    rng = np.random.default_rng(15)
    for n in SIZES:
        for a in cases(n, dtype, rng):
            for ddof in (0, 1, 2) if n < 80 else (0, 1):
                got, want = outcome(fast, a, ddof=ddof), outcome(general, a, ddof=ddof)
                assert got == want, (name, dtype, n, ddof, a[:8])


@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("name", MINMAX)
def test_small_minmax_equal_general_path(name, dtype):
    fast, general = getattr(nr, name), getattr(api, name)
    rng = np.random.default_rng(19)
    for n in SIZES + [49999, 50000, 50001]:
        for a in cases(n, dtype, rng, True) if n <= 4096 else cases(n, dtype, rng)[:8]:
            got, want = outcome(fast, a), outcome(general, a)
            assert got == want, (name, dtype, n, a[:8])


@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_small_calls_layouts(dtype):
    """2-D C-ordered data takes the direct calls (min/max: F-ordered data
    too, its memory order the stream, as the engine's); strided, misaligned
    and byte-swapped data do not: all as the general path."""
    rng = np.random.default_rng(16)
    x = rng.standard_normal(200).astype(dtype)
    x[5] = np.nan
    buf = np.zeros(x.nbytes + x.itemsize, np.uint8)
    mis = np.frombuffer(buf.data, dtype=np.uint8, count=x.nbytes, offset=1).view(dtype)
    mis[...] = x
    views = [x.reshape(10, 20), x.reshape(10, 20).T, x.reshape(20, 10, order="F"), x[::2],
             x[::-1], x[3:], x.reshape(1, 200), x[:1].reshape(()), mis,
             x.astype(x.dtype.newbyteorder())]
    for v in views:
        for name in FUNCS + MINMAX:
            fast, general = getattr(nr, name), getattr(api, name)
            got, want = outcome(fast, v), outcome(general, v)
            assert got == want, (name, v.shape, v.strides)
            # the C-contiguous copy gives the same bits as the view
            if v.ndim <= 1 or v.flags.c_contiguous:
                assert outcome(fast, np.ascontiguousarray(v)) == want


@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_small_moments_against_numpy(dtype):
    """Close to np.nanmean / np.nanvar and to exact fsum references; the
    float32 results are the float64 results of the same values, rounded
    once; all-NaN and too-large ddof warn as NumPy does (and give NaN)."""
    rng = np.random.default_rng(17)
    for n in list(range(1, 70)) + [100, 513, 1000, 50000]:
        a = (rng.standard_normal(n) * 3 + 10).astype(dtype)
        a[rng.random(n) < 0.2] = np.nan
        if np.isnan(a).all():
            continue
        m, v = nr.nanmeanvar(a)
        x = a[~np.isnan(a)].astype(np.float64)
        em = math.fsum(x) / len(x)
        ev = math.fsum((x - em) ** 2) / len(x)
        m64, v64 = nr.nanmeanvar(a.astype(np.float64))
        assert abs(m64 - em) <= 4e-16 * abs(em) + 1e-300
        assert abs(v64 - ev) <= 1e-14 * ev + 1e-300
        if dtype == "float32":
            assert m == np.float32(m64) and v == np.float32(v64)
            assert m.dtype == v.dtype == np.float32
        np.testing.assert_allclose(m, np.nanmean(a), rtol=1e-6 if dtype == "float32" else 1e-14)
        np.testing.assert_allclose(v, np.nanvar(a), rtol=1e-5 if dtype == "float32" else 1e-12)
        cm, cv = nr.meanvar(np.nan_to_num(a, nan=1.0))
        np.testing.assert_allclose(cv, np.var(np.nan_to_num(a, nan=1.0)),
                                   rtol=1e-5 if dtype == "float32" else 1e-12)
    for a, ddof in ((np.full(7, np.nan, dtype), 0), (np.ones(3, dtype), 3), (np.ones(3, dtype), 5)):
        with warnings.catch_warnings(record=True) as got:
            warnings.simplefilter("always")
            m, v = nr.nanmeanvar(a, ddof=ddof)
        with warnings.catch_warnings(record=True) as want:
            warnings.simplefilter("always")
            wm, wv = np.nanmean(a), np.nanvar(a, ddof=ddof)
        assert [w.category for w in got] and {w.category for w in got} <= {w.category for w in want}
        np.testing.assert_array_equal([m, v], [wm, wv])


CODE = r"""
import sys, warnings, numpy as np, numreduce as nr, numreduce._api as api
from numreduce import _config
print(_config.config()["simd_kernels"])
sys.path.insert(0, sys.argv[1])
import test_small_calls as t
bad = 0
rng = np.random.default_rng(18)
for dtype in ("float32", "float64"):
    for n in t.SIZES:
        for names, payloads in ((t.FUNCS, False), (t.MINMAX, True)):
            for a in t.cases(n, dtype, rng, payloads):
                for name in names:
                    f, g = getattr(nr, name), getattr(api, name)
                    bad += t.outcome(f, a) != t.outcome(g, a)
print("mismatches", bad)
"""


@pytest.mark.parametrize("level", list(SIMD_NAMES))
def test_small_calls_every_simd_level(level):
    last = run_at_simd_level(CODE, level, args=(os.path.dirname(__file__),))
    assert last == "mismatches 0"
