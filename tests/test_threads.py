"""Results are bitwise identical for any thread count.

Whole-array reductions of more than 2**21 elements are split into fixed
chunks of 2**21 elements merged pairwise in index order, whatever
``set_num_threads`` says; threads only decide who computes which chunk.  So
every reduction that threads must give the same bits with 1 to 8 threads,
on sizes around the chunk size (one chunk, one chunk and a bit, several,
an uneven last chunk)."""

import numpy as np
import pytest

import numreduce as nr

CHUNK = 2**21
SIZES = [CHUNK - 1, CHUNK + 1, 2 * CHUNK + 12345]
THREADS = range(1, 9)


def _bits(res):
    """Every output's bytes (dtype included), so a last-bit or NaN-payload
    difference fails."""
    if not isinstance(res, tuple):
        res = (res,)
    return [(np.asarray(r).dtype.str, np.asarray(r).tobytes()) for r in res]


def _per_thread_count(f):
    old = nr.set_num_threads(1)
    try:
        out = []
        for t in THREADS:
            nr.set_num_threads(t)
            out.append(_bits(f()))
    finally:
        nr.set_num_threads(old)
    return out


def _assert_thread_independent(f):
    out = _per_thread_count(f)
    for t, r in zip(THREADS, out):
        assert r == out[0], f"{t} threads differ from 1 thread"


_RNG = np.random.default_rng(12345)
_BASE = _RNG.standard_normal(max(SIZES)) + 1e3  # large offset: merges matter

# (name, function of a 1-D array) for every whole-array reduction that threads
FUNCS = [
    ("meanvar", nr.meanvar),
    ("meanstd", nr.meanstd),
    ("nanmeanvar", nr.nanmeanvar),
    ("moments", lambda a: nr.reduce(nr.moments, a)),
    ("nanmoments", lambda a: nr.reduce(nr.nanmoments, a)),
    ("fsum", nr.fsum),
    ("twosum", lambda a: nr.reduce(nr.twosum, a)),
    ("logsumexp", nr.logsumexp),
    ("maxsumexp", lambda a: nr.reduce(nr.maxsumexp, a)),
    ("minmax", nr.minmax),
    ("nanminmax", nr.nanminmax),
    ("minimummaximum", lambda a: nr.reduce(nr.minimummaximum, a)),
    ("fminfmax", lambda a: nr.reduce(nr.fminfmax, a)),
]


@pytest.mark.parametrize("n", SIZES)
@pytest.mark.parametrize("name,f", FUNCS, ids=[n for n, _ in FUNCS])
def test_float64_bitwise_for_1_to_8_threads(name, f, n):
    a = _BASE[:n]
    if name.startswith("nan"):
        a = a.copy()
        a[::1001] = np.nan
    _assert_thread_independent(lambda: f(a))


@pytest.mark.parametrize("dtype", [np.float32, np.int64, np.int16])
@pytest.mark.parametrize("name,f", [("meanvar", nr.meanvar), ("fsum", nr.fsum),
                                    ("minmax", nr.minmax)], ids=["meanvar", "fsum", "minmax"])
def test_other_dtypes_bitwise_for_1_to_8_threads(name, f, dtype):
    a = (_BASE[:2 * CHUNK + 7] * (1 if dtype is np.float32 else 20)).astype(dtype)
    _assert_thread_independent(lambda: f(a))


def test_float32_logsumexp_bitwise_for_1_to_8_threads():
    a = (_BASE[:2 * CHUNK + 7] - 1e3).astype(np.float32)
    _assert_thread_independent(lambda: nr.logsumexp(a))


def test_moments_overflow_redo_bitwise_for_1_to_8_threads():
    """Finite data spanning more than the double range in a later chunk: the
    moments are redone in their halved frame (docs/accuracy.md); that redo
    must not depend on the thread count either, and must give NumPy's inf
    variance with the exact mean."""
    a = np.full(3 * CHUNK + 5, 1e308)
    a[: CHUNK // 2] = -1e308
    _assert_thread_independent(lambda: nr.meanvar(a))
    m, v = nr.meanvar(a)
    exact = 1e308 * ((a.size - 2 * (CHUNK // 2)) / a.size)
    assert v == np.inf
    assert abs(m - exact) <= 4 * np.spacing(exact)


def test_issue_example_three_threads_equal_one():
    """The issue's case: 2e7 elements of N(0, 1) + 1e3, 3 threads against 1."""
    a = np.random.default_rng(0).standard_normal(2 * 10**7) + 1e3
    an = a.copy()
    an[::97] = np.nan
    old = nr.set_num_threads(1)
    try:
        one = [_bits(nr.meanvar(a)), _bits(nr.nanmeanvar(an)),
               _bits(nr.reduce(nr.moments, a))]
        nr.set_num_threads(3)
        three = [_bits(nr.meanvar(a)), _bits(nr.nanmeanvar(an)),
                 _bits(nr.reduce(nr.moments, a))]
    finally:
        nr.set_num_threads(old)
    assert three == one
