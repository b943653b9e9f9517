"""float16 minmax / nanminmax / argminmax / nanargminmax run the min/max
vector kernel on int16 order keys of the half bits (traits/minmax.hpp,
simd.hpp's half_keys), and short rows of 4- and 8-byte types take the
one-pass argminmax kernel of value and index lanes (simd.hpp's
argminmax).  Checked bit for bit against NumPy, whose float16
minimum/maximum/fmin/fmax reductions step in order as the general path does
(the first NaN wins with its bits, ties keep the first element: of two
equal zeros, the first one's sign), and whose argmin/argmax give the first
occurrence (NaN: the first NaN) -- every one of the 65536 half bit patterns
in several positions, sizes around the vector widths of every SIMD level
(NUMREDUCE_SIMD, in subprocesses), misaligned and negative strides, NaN at
the first/last/every position, all-NaN, signed zeros, infinities."""

import textwrap
import warnings

import numpy as np
import pytest

import numreduce as nr
from helpers import run_at_simd_level

ALL_HALVES = np.arange(65536, dtype=np.uint32).astype(np.uint16).view(np.float16)


def bits(x):
    return np.asarray(x).view(np.uint16)


def same_bits(got, want, what):
    got, want = np.asarray(got), np.asarray(want)
    assert got.dtype == want.dtype == np.float16, (what, got.dtype, want.dtype)
    assert got.shape == want.shape, (what, got.shape, want.shape)
    bad = np.flatnonzero(bits(got) != bits(want))
    assert bad.size == 0, (what, bad[:5], bits(got).ravel()[bad[:5]], bits(want).ravel()[bad[:5]])


def nanarg_ref(a, axis=None):
    """(nanargmin, nanargmax) with NaNs ignored as documented: the first
    element equal to the NaN-skipping min/max (np.nanargmin itself replaces
    NaN by +inf, so np.nanargmin([nan, inf]) is 0: docs/differences.md)."""
    a = np.asarray(a)
    if axis is None:
        a, axis = a.reshape(1, -1), 1
        return tuple(r[0] for r in nanarg_ref(a, 1))
    lo = np.expand_dims(np.fmin.reduce(a, axis=axis), axis)
    hi = np.expand_dims(np.fmax.reduce(a, axis=axis), axis)
    return np.argmax(a == lo, axis=axis), np.argmax(a == hi, axis=axis)


def backgrounds(rng, n):
    normal = (rng.standard_normal(n) * 3).astype(np.float16)
    zeros = np.where(rng.random(n) < 0.5, np.float16(-0.0), np.float16(0.0))
    # NaNs of either sign and random payloads
    nans = (0x7c01 + rng.integers(0, 0x3ff, n)).astype(np.uint16)
    nans |= np.where(rng.random(n) < 0.5, 0x8000, 0).astype(np.uint16)
    return {"normal": normal, "zeros": zeros, "nans": nans.view(np.float16)}


@pytest.mark.parametrize("pos", [0, 31, 64, 127, 159])
@pytest.mark.parametrize("bg", ["normal", "zeros", "nans"])
def test_every_half_in_a_row_like_numpy(pos, bg):
    # Row i: ALL_HALVES[i] at `pos` in a row of 160 (longer than one kernel
    # step at every level) over a background shared by all rows.
    rng = np.random.default_rng(pos)
    rows = np.tile(backgrounds(rng, 160)[bg], (65536, 1))
    rows[:, pos] = ALL_HALVES
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)  # all-NaN rows of nanminmax
        lo, hi = nr.minmax(rows, axis=1)
        same_bits(lo, np.minimum.reduce(rows, axis=1), "min")
        same_bits(hi, np.maximum.reduce(rows, axis=1), "max")
        lo, hi = nr.nanminmax(rows, axis=1)
        same_bits(lo, np.fmin.reduce(rows, axis=1), "nanmin")
        same_bits(hi, np.fmax.reduce(rows, axis=1), "nanmax")
    ilo, ihi = nr.argminmax(rows, axis=1)
    np.testing.assert_array_equal(ilo, np.argmin(rows, axis=1))
    np.testing.assert_array_equal(ihi, np.argmax(rows, axis=1))
    some = ~np.isnan(rows).all(axis=1)
    if some.all():
        ilo, ihi = nr.nanargminmax(rows, axis=1)
        wlo, whi = nanarg_ref(rows, axis=1)
        np.testing.assert_array_equal(ilo, wlo)
        np.testing.assert_array_equal(ihi, whi)
    else:  # the NaN background: only the rows with a number
        ilo, ihi = nr.nanargminmax(rows[some], axis=1)
        wlo, whi = nanarg_ref(rows[some], axis=1)
        np.testing.assert_array_equal(ilo, wlo)
        np.testing.assert_array_equal(ihi, whi)
        with pytest.raises(ValueError):
            nr.nanargminmax(rows, axis=1)


def test_every_half_in_one_stream_like_numpy():
    # All 65536 patterns in one stream, in order and shuffled, NaNs out or in.
    rng = np.random.default_rng(5)
    finite = ALL_HALVES[~np.isnan(ALL_HALVES)]
    for x in (ALL_HALVES, rng.permutation(ALL_HALVES), finite, rng.permutation(finite),
              finite[::-1], rng.permutation(finite)[1:]):
        same_bits(nr.minmax(x)[0], np.min(x), "min")
        same_bits(nr.minmax(x)[1], np.max(x), "max")
        same_bits(nr.nanminmax(x)[0], np.fmin.reduce(x), "nanmin")
        same_bits(nr.nanminmax(x)[1], np.fmax.reduce(x), "nanmax")
        assert nr.argminmax(x) == (np.argmin(x), np.argmax(x))
        assert nr.nanargminmax(x) == nanarg_ref(x)


def test_float16_keepdims_out_byteorder_zero_d_empty():
    rng = np.random.default_rng(3)
    a = (rng.standard_normal((7, 300)) * 10).astype(np.float16)
    a[2, 150] = np.nan
    for axis in (None, 0, 1):
        for keepdims in (False, True):
            lo, hi = nr.minmax(a, axis=axis, keepdims=keepdims)
            same_bits(lo, np.min(a, axis=axis, keepdims=keepdims), (axis, keepdims))
            same_bits(hi, np.max(a, axis=axis, keepdims=keepdims), (axis, keepdims))
            ilo, ihi = nr.argminmax(a, axis=axis, keepdims=keepdims)
            np.testing.assert_array_equal(ilo, np.argmin(a, axis=axis, keepdims=keepdims))
            np.testing.assert_array_equal(ihi, np.argmax(a, axis=axis, keepdims=keepdims))
    lo, hi = np.empty(7, np.float16), np.empty(7, np.float16)
    r = nr.nanminmax(a, axis=1, out=(lo, hi))
    assert r[0] is lo and r[1] is hi
    same_bits(lo, np.nanmin(a, axis=1), "out")
    same_bits(hi, np.nanmax(a, axis=1), "out")
    ilo, ihi = np.empty(7, np.intp), np.empty(7, np.intp)
    nr.nanargminmax(a, axis=1, out=(ilo, ihi))
    np.testing.assert_array_equal(ilo, nanarg_ref(a, axis=1)[0])
    np.testing.assert_array_equal(ihi, nanarg_ref(a, axis=1)[1])
    swapped = a.astype(a.dtype.newbyteorder())
    same_bits(nr.minmax(swapped, axis=1)[0].astype(np.float16), np.min(a, axis=1), "byteorder")
    assert nr.argminmax(swapped[1]) == (np.argmin(a[1]), np.argmax(a[1]))
    z = np.array(np.float16(-0.0))
    same_bits(nr.minmax(z)[0], np.min(z), "0-d")
    assert nr.argminmax(z) == (0, 0)
    for fn in (nr.minmax, nr.nanminmax, nr.argminmax, nr.nanargminmax):
        with pytest.raises(ValueError):
            fn(np.empty(0, np.float16))
    with pytest.raises(ValueError):
        nr.nanargminmax(np.full(500, np.nan, np.float16))


CHECK = textwrap.dedent(r'''
    import warnings
    import numpy as np
    import numreduce as nr
    from numreduce import _config

    print(_config.config()["simd_kernels"])
    warnings.simplefilter("ignore", RuntimeWarning)  # all-NaN nanminmax
    rng = np.random.default_rng(13)
    checked = 0

    def hb(x):
        return np.asarray(x).view(np.uint16)

    def nanarg_ref(a, axis):
        # NaNs ignored: the first element equal to the NaN-skipping min/max
        # (not np.nanargmin: it gives 0 for [nan, inf])
        lo = np.expand_dims(np.fmin.reduce(a, axis=axis), axis)
        hi = np.expand_dims(np.fmax.reduce(a, axis=axis), axis)
        return np.argmax(a == lo, axis=axis), np.argmax(a == hi, axis=axis)

    def check16(x, what):
        global checked
        lo, hi = nr.minmax(x)
        assert hb(lo) == hb(np.min(x)) and hb(hi) == hb(np.max(x)), (what, "minmax", x)
        lo, hi = nr.nanminmax(x)
        assert hb(lo) == hb(np.fmin.reduce(x)) and hb(hi) == hb(np.fmax.reduce(x)), (what, "nan", x)
        assert nr.argminmax(x) == (np.argmin(x), np.argmax(x)), (what, "arg", x)
        if np.isnan(x).all():
            try:
                nr.nanargminmax(x)
            except ValueError:
                pass
            else:
                raise AssertionError((what, "all-NaN nanargminmax did not raise"))
        else:
            assert nr.nanargminmax(x) == nanarg_ref(x, 0), (what, "nanarg", x)
        checked += 1

    nan16 = np.array([0x7e00, 0xfe00, 0x7c01, 0xfd55], np.uint16).view(np.float16)
    sizes = list(range(1, 70)) + [127, 128, 129, 130, 159, 160, 161, 255, 256, 257, 511, 512,
                                  513, 4095, 4096, 4097, 4098, 8193, 12289]
    for n in sizes:
        pools = [(rng.standard_normal(2 * n + 6) * 3).astype(np.float16),
                 rng.integers(-2, 3, 2 * n + 6).astype(np.float16)  # ties
                 * np.where(rng.random(2 * n + 6) < 0.5, 1, -1).astype(np.float16)]  # signed zeros
        for a in pools:
            views = [a[off:off + n] for off in (0, 1, 3)] + [a[n - 1::-1][:n], a[:2 * n:2]]
            for x in views:
                check16(x, (n, "plain"))
                positions = range(n) if n <= 70 else (0, 1, 7, 31, 32, n // 2, n - 2, n - 1)
                for pos in positions:
                    y = x.copy()
                    y[pos] = nan16[pos % 4]
                    check16(y, (n, pos, "nan"))
                    y = x.copy()
                    y[pos] = np.inf if pos % 2 else -np.inf
                    check16(y, (n, pos, "inf"))
                    y = x.copy()
                    y[pos] = -0.0 if pos % 2 else 0.0
                    check16(y, (n, pos, "zero"))
                y = np.full(n, np.nan, np.float16)
                check16(y, (n, "all-NaN"))
                y[n // 2] = x[n // 2]
                check16(y, (n, "one number"))
                y = x.copy()
                y[::3] = nan16[1]
                check16(y, (n, "NaN every third"))

    # short rows of the 4- and 8-byte types: the one-pass index-lane kernel
    def check_rows(m, what):
        global checked
        for axis in (1, 0):
            got = nr.argminmax(m, axis=axis)
            want = (np.argmin(m, axis=axis), np.argmax(m, axis=axis))
            assert all(np.array_equal(g, w) for g, w in zip(got, want)), (what, axis, "arg")
            if m.dtype.kind != "f" or not np.isnan(m).all(axis=axis).any():
                got = nr.nanargminmax(m, axis=axis)
                want = nanarg_ref(m, axis)
                assert all(np.array_equal(g, w) for g, w in zip(got, want)), (what, axis, "nanarg")
        checked += 1

    for dt in ["float32", "float64", "int32", "uint32", "int64", "uint64"]:
        for n in list(range(14, 70)) + [100, 127, 128, 129, 255, 256, 257, 1000, 1023, 1024, 1025, 1100]:
            r = 9
            m = (rng.standard_normal((r, n)) * 100).astype(dt)
            check_rows(m, (dt, n, "plain"))
            check_rows(m[:, ::-1], (dt, n, "reversed"))
            check_rows(np.asfortranarray(m), (dt, n, "F order"))
            big = np.empty((r, n + 1), dt)
            big[:, 1:] = m
            check_rows(big[:, 1:], (dt, n, "misaligned rows"))
            ties = rng.integers(0, 3, (r, n)).astype(dt)
            check_rows(ties, (dt, n, "ties"))
            if dt.startswith("float"):
                z = np.where(rng.random((r, n)) < 0.5, -0.0, 0.0).astype(dt)
                z[1, n // 3] = -1
                z[2, n // 2] = 1
                check_rows(z, (dt, n, "signed zeros"))
                y = m.copy()
                y[0, 0] = np.nan
                y[1, n - 1] = np.nan
                y[2, n // 2] = np.nan
                y[3, ::5] = np.nan
                y[4, :] = np.inf
                y[4, n // 2] = -np.inf
                y[5, :] = -np.inf
                check_rows(y, (dt, n, "nan inf"))
                y[6, :] = np.nan
                got = nr.argminmax(y, axis=1)
                assert np.array_equal(got[0], np.argmin(y, axis=1)), (dt, n, "all-NaN row")
                try:
                    nr.nanargminmax(y, axis=1)
                except ValueError:
                    pass
                else:
                    raise AssertionError((dt, n, "all-NaN row of nanargminmax did not raise"))
    print("checked", checked)
''')

@pytest.mark.parametrize("level", ["baseline", "avx2", "avx512"])
def test_float16_minmax_and_short_rows_at_every_level(level):
    checked = run_at_simd_level(CHECK, level, timeout=900)
    assert checked.startswith("checked ") and int(checked.split()[1]) > 20000, checked
