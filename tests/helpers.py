"""Shared strategies and comparison helpers for the differential tests."""

from __future__ import annotations

import os
import platform
import subprocess
import sys

import warnings

import numpy as np
import pytest
from hypothesis import strategies as st
from hypothesis.extra import numpy as hnp

INT_DTYPES = [np.int8, np.uint8, np.int16, np.uint16, np.int32, np.uint32, np.int64,
              np.uint64, np.longlong, np.ulonglong]
FLOAT_DTYPES = [np.float16, np.float32, np.float64, np.longdouble]
COMPLEX_DTYPES = [np.complex64, np.complex128, np.clongdouble]
TIME_DTYPES = ["M8[s]", "M8[D]", "m8[ms]", "m8[Y]"]
ALL_DTYPES = [np.bool_] + INT_DTYPES + FLOAT_DTYPES + COMPLEX_DTYPES + TIME_DTYPES


def moment_atols(n, x):
    """Absolute tolerances (mean, M2) between two computations (NumPy's, or
    two numreduce paths) of the moments of at most n values of x, from the
    data's magnitude: a relative tolerance cannot hold near zero (a mean that
    cancels, the M2 of a constant slice).  A sum of n terms rounds by at most
    n eps sum|x|, so a mean is within n eps max|x| of the exact one, Welford's
    update too (docs/accuracy.md); M2: the two-pass within n eps sum (x -
    mean)**2 <= n**2 eps spread**2 (spread = max - min), plus n d**2 for a mean
    off by d (a constant slice's M2 is NaN-free but not always 0), Welford
    within n eps |mean| / std relative, n**2 eps max|x| spread.  Each bound
    once per side, plus n smallest subnormals (a division's underflow: the
    mean of [5e-324, 0, 0] is 0 or 5e-324)."""
    n = max(int(n), 1)
    f = np.asarray(x, dtype=np.float64)
    f = f[np.isfinite(f)]
    big = float(np.max(np.abs(f), initial=0.0))
    spread = float(np.ptp(f)) if f.size else 0.0
    eps = np.finfo(np.float64).eps
    tiny = n * float(np.finfo(np.float64).smallest_subnormal)
    d = 2 * n * eps * big
    return 2 * d + tiny, 4 * n**2 * eps * big * spread + 2 * n * d**2 + tiny


def lse_atol(n):
    """An absolute tolerance for a float64 log-sum-exp of n terms against
    SciPy's, which holds where the result is near 0 (a relative one cannot).
    docs/accuracy.md's bound, u (L - m) + u sum_i w_i (k + 2 + |x_i - m|) past
    the relative u |L|, is at most u (log n + k + 2 + n / e) (sum w_i <= 1,
    w |x_i - m| <= exp(-d) d <= 1 / e each) with the worst depth
    k = 1040 + 4 ceil(log2 n); SciPy's own running sum adds about u (n + 2)."""
    n = max(int(n), 1)
    u = 2.0**-53
    return u * (np.log(n) + 1042 + 4 * np.ceil(np.log2(n)) + n / np.e) + u * (n + 2)


def elements_for(dtype):
    dt = np.dtype(dtype)
    if dt.kind in "mM":
        # Small tick counts plus NaT (the minimum int64).
        return st.one_of(st.integers(-1000, 1000), st.just(np.iinfo(np.int64).min))
    if dt.kind == "f":
        specials = st.sampled_from([np.nan, np.inf, -np.inf, 0.0, -0.0])
        return st.one_of(st.floats(-1e4, 1e4, width=min(dt.itemsize * 8, 64)), specials)
    if dt.kind == "c":
        part = st.one_of(st.floats(-100, 100, width=32), st.sampled_from([np.nan, np.inf, 0.0]))
        return st.builds(complex, part, part)
    return None  # hypothesis' default for the dtype


@st.composite
def arrays(draw, dtypes=ALL_DTYPES, min_dims=0, max_dims=4, max_side=5):
    """An array of a random supported dtype, possibly a strided / reversed /
    transposed / byte-swapped / unaligned view."""
    dtype = np.dtype(draw(st.sampled_from(dtypes)))
    shape = draw(hnp.array_shapes(min_dims=min_dims, max_dims=max_dims, min_side=0,
                                  max_side=max_side))
    if dtype.kind in "mM":
        ticks = draw(hnp.arrays(np.int64, shape, elements=elements_for(dtype)))
        a = ticks.view(dtype)
    else:
        a = draw(hnp.arrays(dtype, shape, elements=elements_for(dtype)))
    view = draw(st.sampled_from(["plain", "reversed", "strided", "transposed", "swapped",
                                 "unaligned"]))
    if a.ndim == 0 or view == "plain":
        return a
    if view == "reversed":
        return a[(slice(None, None, -1),) * a.ndim]
    if view == "strided":
        big = np.repeat(a, 2, axis=0)
        return big[::2]
    if view == "transposed":
        return a.T
    if view == "swapped" and dtype.kind not in "b":
        return a.astype(dtype.newbyteorder())
    if view == "unaligned" and dtype.itemsize > 1:
        buf = np.zeros(a.nbytes + 1, dtype=np.uint8)
        u = buf[1:].view(dtype).reshape(a.shape)
        u[...] = a
        return u
    return a


@st.composite
def broadcast_pairs(draw):
    """(x, y): x any supported array, y of the same dtype with a shape that
    broadcasts against x's (in either order)."""
    x = draw(arrays(max_dims=3))
    shape = tuple(draw(st.sampled_from([1, n])) for n in x.shape)
    y = draw(arrays(dtypes=[x.dtype], max_dims=0)).astype(x.dtype)
    y = np.broadcast_to(y, shape).copy() if shape else y
    return (y, x) if draw(st.booleans()) else (x, y)


@st.composite
def axes_for(draw, ndim):
    """axis argument: None, an int (maybe negative) or a tuple of distinct axes."""
    kind = draw(st.sampled_from(["none", "int", "tuple", "default"]))
    if kind == "default":
        return "default"
    if kind == "none" or ndim == 0:
        return None if kind != "int" else draw(st.sampled_from([0, -1]))
    if kind == "int":
        return draw(st.integers(-ndim, ndim - 1))
    perm = draw(st.permutations(range(ndim)))
    k = draw(st.integers(0, ndim))
    return tuple(ax - ndim if draw(st.booleans()) else ax for ax in perm[:k])


def outcome(fn):
    """('ok', value) or ('raise', exception type)."""
    try:
        return "ok", fn()
    except Exception as exc:  # noqa: BLE001 - the type is what we compare
        return "raise", exc


def outcome_warned(fn):
    """(outcome(fn), the set of (category, message) of the warnings it raised)."""
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        res = outcome(fn)
    return res, {(w.category, str(w.message)) for w in caught}


def assert_same_result(got, want):
    """Same values (NaN/NaT positions included), dtypes and scalar-vs-array type."""
    assert isinstance(got, tuple) and len(got) == len(want), (got, want)
    for g, w in zip(got, want):
        assert type(g) is type(w), (type(g), type(w), g, w)
        assert g.dtype == w.dtype, (g.dtype, w.dtype)
        assert np.shape(g) == np.shape(w), (np.shape(g), np.shape(w))
        np.testing.assert_array_equal(g, w, strict=False)


def assert_same_outcome(got, want):
    """Both raise the same exception type, or both return the same result."""
    (gk, gv), (wk, wv) = got, want
    if wk == "raise":
        assert gk == "raise", f"NumPy raised {wv!r} but numreduce returned {gv!r}"
        assert isinstance(gv, type(wv)), f"numreduce raised {gv!r}, NumPy raised {wv!r}"
    else:
        if gk == "raise":
            raise AssertionError(f"numreduce raised {gv!r}, NumPy returned {wv!r}") from gv
        assert_same_result(gv, wv)


# show_config()'s simd_kernels at each NUMREDUCE_SIMD level.  The baseline
# is SSE2 on x86-64 and NEON on aarch64, whose one variant it is (there the
# higher levels skip, as on an x86-64 CPU without them).
SIMD_NAMES = {"baseline": ("NEON" if platform.machine().lower() in ("aarch64", "arm64")
                           else "baseline (SSE2)"),
              "avx2": "AVX2+FMA", "avx512": "AVX-512"}


def simd_kernels():
    """This build's vector kernels as show_config names them (the level this
    process runs, "none (scalar loops: ...)" where there are none)."""
    from numreduce import _config

    return _config.config()["simd_kernels"]


def scalar_build():
    """Whether this build has no vector kernels: built with -Dsimd=false, or
    for a platform that has none (not x86-64 or aarch64 with GCC/Clang)."""
    return simd_kernels().startswith("none (scalar loops")


def run_at_simd_level(code, level, timeout=900, args=(), env=None):
    """Run `code` in a new interpreter with NUMREDUCE_SIMD=level (the
    variant is chosen once per process).  The code prints the active
    kernels first (nr.show_config's simd_kernels) and its own result last;
    returns that last line.  Skips, saying why, where the CPU lacks the
    level.  A build without vector kernels (scalar_build()) runs the code
    once, under "baseline" (NUMREDUCE_SIMD has no effect there), so its
    scalar loops take the same checks; its other levels skip.  `env`: more
    environment variables for the run (NUMREDUCE_STREAM_WIDTH...)."""
    scalar = scalar_build()
    if scalar and level != "baseline":
        pytest.skip(f"no vector kernels in this build ({simd_kernels()}): "
                    "the scalar loops run this check once, as [baseline]")
    env = dict(os.environ, **(env or {}), NUMREDUCE_SIMD=level)
    proc = subprocess.run([sys.executable, "-P", "-c", code, *args], env=env,
                          capture_output=True, text=True, timeout=timeout)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    lines = proc.stdout.splitlines()
    kernels, last = lines[0], lines[-1]
    if scalar:
        assert kernels == simd_kernels(), (kernels, simd_kernels())
        return last
    assert kernels in SIMD_NAMES.values(), kernels  # a SIMD build runs a vector level
    if kernels != SIMD_NAMES[level]:
        pytest.skip(f"this CPU has no {SIMD_NAMES[level]} (ran {kernels} instead)")
    return last
