"""The block kernels' tails (simd.hpp max / sum_exp: at AVX2 and AVX-512
the elements past the last four vectors run in single vectors and one
vector ending at the last element, its lanes already done left out): every
length up to 300 and around the 1024-element blocks, at every SIMD level.
Equal values are counted once each (no lane twice), a maximum, NaN or +inf
at any of the last positions is found, and the sum matches math.fsum."""

import textwrap

import pytest

from helpers import run_at_simd_level

CHECK = textwrap.dedent(r'''
    import math
    import numpy as np
    import numreduce as nr
    from numreduce import _config

    print(_config.config()["simd_kernels"])
    rng = np.random.default_rng(250)
    checked = 0
    for dt in ("float64", "float32", "float16", "int32"):
        for n in list(range(1, 301)) + [1023, 1024, 1025, 1050]:
            # equal values: the max and n - 1 others, exactly
            x = np.full(n, 3, dtype=dt)
            assert tuple(map(float, nr.reduce(nr.maxsumexp, x))) == (3.0, n - 1.0), (dt, n)
            rows = np.stack([x, x])
            assert (np.asarray(nr.reduce(nr.maxsumexp, rows, axis=1)[1]) == n - 1).all(), (dt, n)
            base = (rng.standard_normal(n) * 4).astype(dt)
            for p in sorted({0, n - 1, max(0, n - 2), max(0, n - 5), max(0, n - 9), n // 2}):
                y = base.copy()
                y[p] = 40
                mx, t = map(float, nr.reduce(nr.maxsumexp, y))
                f = y.astype(np.float64)
                want = math.fsum(math.exp(v - 40.0) for v in np.delete(f, p)) + (f == 40).sum() - 1
                assert mx == 40.0 and abs(t - want) <= 1e-14 * max(1.0, abs(want)), (dt, n, p, t, want)
                if dt.startswith("float"):
                    z = y.copy()
                    z[p] = np.nan
                    assert np.isnan(nr.logsumexp(z)), (dt, n, p)
                    z[p] = np.inf
                    assert tuple(map(float, nr.reduce(nr.maxsumexp, z))) == (np.inf, 0.0), (dt, n, p)
                checked += 1
    print("checked", checked)
''')


@pytest.mark.parametrize("level", ["baseline", "avx2", "avx512"])
def test_block_kernel_tails_at_every_level(level):
    last = run_at_simd_level(CHECK, level, timeout=900)
    assert last.startswith("checked ") and int(last.split()[1]) > 3000, last
