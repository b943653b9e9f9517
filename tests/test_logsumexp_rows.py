"""logsumexp / maxsumexp along axis 0 of C-ordered 2-D data (MaxSumExp::
rows_reduce: runs of rows merged into the column states, simd.hpp's
lse_cols in vector lanes across the columns, cols_block in scalar code for
blocks narrower than one vector).  Every column is a lane of its own and
every product is rounded on its own, so:

* a column of a wide array (the vector kernel) has the bits of the same
  column reduced alone (one column: the scalar loop), at every SIMD level;
* every SIMD level gives the same bits (digests compared across levels);
* non-finite columns (NaN, +inf, -inf, all -inf, mixed) match SciPy.

Column counts around the vector and tile widths (2, 4, 8 lanes; 2 or 4
vectors) and the 512-column blocks, row counts around the runs (32 rows,
doubled while R * R < rows), float64, float32, float16 and integer data.
"""

import textwrap

import numpy as np
import pytest

import numreduce as nr
from helpers import run_at_simd_level

CHECK = textwrap.dedent(r'''
    import hashlib
    import numpy as np
    import numreduce as nr
    from numreduce import _config

    print(_config.config()["simd_kernels"])
    rng = np.random.default_rng(38)
    h = hashlib.sha256()
    checked = 0

    def same(x, y):
        return np.array_equal(np.asarray(x), np.asarray(y), equal_nan=True)

    def check(a, key):
        global checked
        mx, t = nr.reduce(nr.maxsumexp, a, axis=0)
        for r in (mx, t, nr.logsumexp(a, axis=0)):
            h.update(np.ascontiguousarray(r).tobytes())
        for j in sorted({0, a.shape[1] // 2, a.shape[1] - 1}):
            m1, t1 = nr.reduce(nr.maxsumexp, np.ascontiguousarray(a[:, j:j + 1]), axis=0)
            assert same(m1, mx[j:j + 1]) and same(t1, t[j:j + 1]), (key, j, t1, t[j])
        checked += 1

    for dt in ("float64", "float32", "float16", "int64", "int32", "uint8"):
        for cols in (1, 2, 3, 5, 7, 8, 9, 15, 16, 17, 31, 33, 63, 65, 511, 512, 513, 521):
            for rows in (1, 2, 31, 32, 33, 65, 100, 1025, 1500):
                if rows * cols > 400_000:
                    continue
                a = rng.standard_normal((rows, cols)) * 20.0
                if dt.startswith("float"):
                    # rising columns: the max grows in every run (the rescale)
                    a[:, ::4] = np.linspace(-30.0, 30.0, rows)[:, None] + a[:, ::4] * 1e-3
                    a = a.astype(dt)
                else:
                    info = np.iinfo(dt)
                    a = np.clip(a * 3, info.min, info.max).astype(dt)
                check(a, (dt, rows, cols))
        if dt.startswith("float"):
            for rows in (40, 1025):
                a = rng.standard_normal((rows, 37)).astype(dt)
                a[3, 0] = np.nan                   # NaN
                a[:, 1] = -np.inf                  # all -inf
                a[5, 2] = np.inf                   # +inf
                a[rows - 1, 3] = np.inf            # +inf in the last run
                a[0, 4], a[rows - 1, 4] = np.inf, np.nan
                a[::2, 5] = -np.inf                # mixed -inf
                a[:, 6] = np.inf                   # all +inf
                a[rows // 2, 7] = np.inf
                a[rows // 2 + 1, 7] = -np.inf      # +inf and -inf
                a[:, 8] = 0.0
                a[rows - 1, 8] = np.nan            # NaN after equal maxima
                check(a, (dt, rows, "specials"))
                from scipy.special import logsumexp as sl
                with np.errstate(all="ignore"):
                    want = sl(a.astype(np.float64), axis=0).astype(dt)
                got = nr.logsumexp(a, axis=0)
                assert same(got[:9], want[:9]), (dt, rows, got[:9], want[:9])
    print("checked", checked, h.hexdigest())
''')


def _run(level):
    return run_at_simd_level(CHECK, level, timeout=900)


@pytest.mark.parametrize("level", ["baseline", "avx2", "avx512"])
def test_rows_vector_kernel_is_the_scalar_loop_at_every_level(level):
    """At each level: every checked column of a wide array has the bits of
    the same column alone (the scalar loop), and the specials match SciPy."""
    pytest.importorskip("scipy", reason="scipy (the reference for the specials) is not installed")
    last = _run(level)
    assert last.startswith("checked ") and int(last.split()[1]) > 500, last


def test_rows_same_bits_at_every_level():
    """The digest of every result of the battery is the same at every SIMD
    level (the baseline's SSE2 lanes, AVX2 and AVX-512)."""
    pytest.importorskip("scipy", reason="scipy (the reference for the specials) is not installed")
    digests = {}
    for level in ("baseline", "avx2", "avx512"):
        try:
            digests[level] = _run(level).split()[2]
        except pytest.skip.Exception:
            continue
    if len(digests) < 2:
        pytest.skip(f"fewer than two SIMD levels on this CPU/build: {sorted(digests)}")
    assert len(set(digests.values())) == 1, digests


def test_rows_long_columns_against_scipy():
    """Many runs (R = 64 at 4000 rows, 128 at 10**4) over 2500 columns: the
    results agree with SciPy's float64 logsumexp to a few ulps."""
    from scipy.special import logsumexp as sl

    rng = np.random.default_rng(4)
    for rows in (4000, 10_000):
        a = rng.standard_normal((rows, 600)) * 5
        got = nr.logsumexp(a, axis=0)
        want = sl(a, axis=0)
        assert np.max(np.abs(got - want) / np.abs(want)) < 1e-14
        got32 = nr.logsumexp(a.astype(np.float32), axis=0)
        want32 = sl(a.astype(np.float32).astype(np.float64), axis=0).astype(np.float32)
        assert np.max(np.abs(got32.astype(np.float64) - want32) / np.abs(want32)) <= 2**-23
