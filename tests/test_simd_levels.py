"""Every vector-kernel variant (SSE2 baseline, AVX2, AVX-512) against NumPy.

The variant is chosen once per process (NUMREDUCE_SIMD caps it), so each
level runs a differential check in a subprocess.  A level the CPU does not
have is skipped with that reason; the baseline and the CPU's best level run
everywhere.
"""

import os
import subprocess
import sys
import textwrap

import pytest
from helpers import run_at_simd_level

CHECK = textwrap.dedent(r'''
    import math
    import numpy as np
    import numreduce as nr
    from numreduce import _config

    print(_config.config()["simd_kernels"])
    rng = np.random.default_rng(7)
    sizes = list(range(1, 70)) + [127, 128, 129, 255, 256, 257, 511, 512, 513, 1000,
                                  4095, 4096, 4097, 9001]
    checked = 0

    def same(got, want, what):
        global checked
        for g, w in zip(got, want):
            g, w = np.asarray(g), np.asarray(w)
            assert g.dtype == w.dtype and g.shape == w.shape, (what, g, w)
            assert np.array_equal(g, w, equal_nan=g.dtype.kind in "fc"), (what, g, w)
        checked += 1

    for dt in ["int8", "uint8", "int16", "uint16", "int32", "uint32", "int64", "uint64",
               "float32", "float64"]:
        for n in sizes:
            base = (rng.standard_normal(n + 3) * 100).astype(dt)
            for off in (0, 1, 3):  # misaligned starts
                a = base[off:off + n] if off + n <= base.size else base[:n]
                same(nr.minmax(a), (np.min(a), np.max(a)), (dt, n, off, "minmax"))
                same(nr.argminmax(a), (np.argmin(a), np.argmax(a)), (dt, n, off, "argminmax"))
                for pos in (n // 2, n - 1):  # NaN inside, NaN in the tail
                    if np.dtype(dt).kind != "f" or n < 3:
                        break
                    b = a.copy()
                    b[pos] = np.nan
                    same(nr.minmax(b), (np.min(b), np.max(b)), (dt, n, off, pos, "minmax nan"))
                    same(nr.nanminmax(b), (np.nanmin(b), np.nanmax(b)), (dt, n, off, pos, "nanminmax"))
                    same(nr.argminmax(b), (np.argmin(b), np.argmax(b)), (dt, n, off, pos, "argminmax nan"))
        if np.dtype(dt).kind in "iu":  # the type's extremes (uint64: both sides of 2**63)
            info = np.iinfo(dt)
            edge = [info.min, info.min + 1, info.max - 1, info.max, 0, 1]
            if dt == "uint64":
                edge += [2**63 - 1, 2**63, 2**63 + 1]
            for n in (64, 67, 200, 1000):
                a = rng.choice(np.array(edge[2:-2] if n > 64 else [2, 3], dtype=dt), n)
                for pos in (0, n // 3, n - 1):
                    for v in edge:
                        b = a.copy()
                        b[pos] = v
                        same(nr.minmax(b), (np.min(b), np.max(b)), (dt, n, pos, v, "minmax edge"))
        m = (rng.standard_normal((37, 301)) * 100).astype(dt)
        for axis in (0, 1):
            same(nr.minmax(m, axis=axis), (np.min(m, axis=axis), np.max(m, axis=axis)),
                 (dt, axis, "minmax 2-D"))
        for cols in (1025, 2500, 4096, 4097):  # rows of the one-pass kernel at AVX-512
            m2 = (rng.standard_normal((5, cols)) * 100).astype(dt)
            m2[1] = m2[1, 0]  # all ties: the first wins
            m2[2, [7, 900, cols - 1]] = m2[2].min()  # repeated minimum
            if np.dtype(dt).kind == "f":
                m2[3] = np.abs(m2[3]) + 1
                m2[3, [10, 20]] = (-0.0, 0.0)  # -0.0 and 0.0 tie for the minimum
                m2[4, cols // 2] = np.nan
            same(nr.argminmax(m2, axis=1), (np.argmin(m2, axis=1), np.argmax(m2, axis=1)),
                 (dt, cols, "argminmax rows"))
        if np.dtype(dt).kind == "f":  # nanargminmax's one pass: NaNs skipped in the lanes
            for cols in (16, 17, 33, 100, 511, 1000, 1025, 2500, 4096, 4097):
                m3 = (rng.standard_normal((9, cols)) * 100).astype(dt)
                m3[0, ::97] = np.nan  # the layouts sweep's NaNs
                m3[1, :-1] = np.nan  # one element left, the last
                m3[2, 1:] = np.nan  # one element left, the first
                m3[3, ::2], m3[3, 1::2] = np.nan, np.inf  # the max an infinity ...
                m3[3, (cols // 2) | 1] = 5.0  # ... the min the one finite element
                m3[4] = np.nan
                m3[4, [3, cols - 2]] = (np.inf, -np.inf)  # only infinities
                m3[5, ::3], m3[5, 1::3] = np.nan, m3[5, 1]  # ties among the elements left
                m3[6, ::5] = np.nan
                m3[6] = np.abs(m3[6]) + 1
                m3[6, [4, 9]] = (-0.0, 0.0)  # -0.0 and 0.0 tie for the minimum
                m3[7] = np.nan
                m3[7, [2, cols - 1]] = np.inf  # no element below +inf: the blocked pass
                for r in m3:
                    keep = np.flatnonzero(~np.isnan(r))  # the first extremes of the rest
                    want = (keep[np.argmin(r[keep])], keep[np.argmax(r[keep])])
                    got = nr.nanargminmax(r)
                    assert (got[0], got[1]) == want, (dt, cols, r[:8], got, want)
                    checked += 1
                same(nr.nanargminmax(m3[8:], axis=1), (np.nanargmin(m3[8:], axis=1),
                     np.nanargmax(m3[8:], axis=1)), (dt, cols, "nanargminmax rows"))
        if np.dtype(dt).kind == "f":  # the NaN-skipping column kernel
            m[rng.random(m.shape) < 0.3] = np.nan
            m[0, :150] = np.nan  # columns that start from a NaN state
            m[:, 7] = np.nan  # an all-NaN column
            for axis in (0, 1):
                same((np.fmin.reduce(m, axis=axis), np.fmax.reduce(m, axis=axis)),
                     nr.reduce(nr.fminfmax, m, axis=axis), (dt, axis, "fminfmax 2-D"))

    for n in sizes:
        x = 1e6 + rng.standard_normal(n)
        for off in (0, 1):
            a = x[off:]
            if a.size < 2:
                continue
            m, v = nr.meanvar(a)
            assert abs(m - np.mean(a)) <= 1e-15 * abs(np.mean(a)), (n, m)
            assert abs(v - np.var(a)) <= 1e-9 * np.var(a), (n, v, np.var(a))
            want = math.fsum(a.tolist())
            assert abs(nr.fsum(a) - want) <= 2 * np.spacing(abs(want)), (n, nr.fsum(a), want)
            y = (a - 1e6) * 30
            ref = float(np.max(y)) + math.log(math.fsum(np.exp(y - np.max(y)).tolist()))
            assert abs(nr.logsumexp(y) - ref) <= 4e-16 * max(1.0, abs(ref)), (n, nr.logsumexp(y), ref)
            checked += 4
    # the fused sum of squares (sqtwosum: square_map in the TwoSum lanes, rows
    # and columns kernels): the bits of twosum over np.square, every product
    # rounded on its own (none contracted into an FMA)
    u = nr._core.sqtwosum
    for dt in ["float32", "float64"]:
        for n in sizes:
            base = (rng.standard_normal(n + 1) * 1e3).astype(dt)
            for off in (0, 1):
                a = base[off:off + n]
                same(nr.reduce(u, a), nr.reduce(nr.twosum, np.square(a)), (dt, n, off, "sqtwosum"))
        for shape in ((37, 301), (301, 37), (200, 1000)):
            m = (rng.standard_normal(shape) * 1e3).astype(dt)
            for axis in (0, 1):
                same(nr.reduce(u, m, axis=axis), nr.reduce(nr.twosum, np.square(m), axis=axis),
                     (dt, shape, axis, "sqtwosum 2-D"))
    print("checked", checked)
''')


@pytest.mark.parametrize("level", ["baseline", "avx2", "avx512"])
def test_vector_kernel_level_against_numpy(level):
    # (NUMREDUCE_SIMD only caps: a level above the CPU's best runs the best,
    # and the test skips saying so)
    checked = run_at_simd_level(CHECK, level, timeout=600)
    assert checked.startswith("checked ") and int(checked.split()[1]) > 1000, checked


def test_unknown_simd_level_is_an_error():
    env = dict(os.environ, NUMREDUCE_SIMD="sse9")
    proc = subprocess.run([sys.executable, "-P", "-c", "import numreduce"], env=env,
                          capture_output=True, text=True, timeout=120)
    assert proc.returncode != 0 and "NUMREDUCE_SIMD='sse9'" in proc.stderr, proc.stderr
