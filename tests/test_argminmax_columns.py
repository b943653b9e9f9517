"""argminmax / nanargminmax over a leading axis, where the outputs lie side
by side in memory: the row loop steps the columns together in vector lanes
(simd.hpp's argminmax_cols, a tile of 4 KiB of columns at a time, a fast
pass redone exactly where a tile met a NaN or kept the end of the range)
instead of copying the rows contiguous.  Checked against np.argmin /
np.argmax and np.nanargmin / np.nanargmax on the cases each branch of the
kernel meets -- ties, signed zeros, the first NaN (in row 0 and later),
all-NaN columns, infinities and integer extremes as a column's extreme,
tile and vector edges, reversed and stepped views, F order, middle axes
(taken block by block) -- and on hypothesis-drawn arrays; at every SIMD
level, each in its own process."""

import math
import os

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st
from hypothesis.extra import numpy as hnp

import numreduce as nr
from helpers import SIMD_NAMES, assert_same_outcome, outcome, run_at_simd_level

# the kernel's types, and types the row loop gathers instead
KERNEL_DTYPES = ["float64", "float32", "int64", "int32", "uint64", "uint32"]
GATHER_DTYPES = ["int16", "float16", "complex128"]
# rows (the reduction's length) and columns (outputs) about the kernel's
# edges: passes of 8, 4, 2, 1 rows; vectors of 2-16 lanes; tiles of 512
# (8-byte) and 1024 (4-byte) columns
ROWS = [1, 2, 3, 7, 8, 9, 15, 16, 17, 40]
COLS = [16, 17, 31, 33, 511, 512, 513, 1023, 1024, 1025, 1040]


def ref(a, skip, axis, keepdims=False):
    """(np.argmin, np.argmax); skip: the first non-NaN element equal to
    np.nanmin / np.nanmax -- np.nanargmin's answer but where it returns a
    NaN's index (it replaces NaN by +inf: np.nanargmin([nan, inf]) is 0;
    docs/differences.md)."""
    if not skip:
        return np.argmin(a, axis, keepdims=keepdims), np.argmax(a, axis, keepdims=keepdims)
    nan = np.isnan(a)
    if nan.all(axis).any():
        raise ValueError("All-NaN slice encountered")
    return tuple(np.argmax((a == f(a, axis, keepdims=True)) & ~nan, axis, keepdims=keepdims)
                 for f in (np.nanmin, np.nanmax))


def patterned(dtype, rows, cols, rng, kind):
    """A (rows, cols) array of `dtype` with the pattern `kind`."""
    dt = np.dtype(dtype)
    a = rng.integers(-4, 5, size=(rows, cols))
    if dt.kind == "u":
        a = a + 4
    a = a.astype(dt)
    if dt.kind == "c":
        a = a + 1j * rng.integers(-1, 2, size=a.shape)
    if kind == "ties":
        return a
    if dt.kind in "iu":
        info = np.iinfo(dt)
        c = rng.integers(cols, size=max(1, cols // 7))
        if kind == "extremes":   # whole columns at an end of the range
            a[:, c[::2]] = info.max
            a[:, c[1::2]] = info.min
        else:                    # the ends of the range here and there
            a[rng.random(a.shape) < 0.05] = info.max
            a[rng.random(a.shape) < 0.05] = info.min
        return a
    if kind == "zeros":
        a[rng.random(a.shape) < 0.4] = 0.0
        a[rng.random(a.shape) < 0.4] = -0.0
    elif kind == "nans":
        a[rng.random(a.shape) < 0.03] = np.nan
        a[0, rng.integers(cols)] = np.nan           # a NaN in row 0
    elif kind == "mostly_nan":
        a[rng.random(a.shape) < 0.8] = np.nan
        a[:, rng.integers(cols)] = np.nan           # a column of NaNs
    elif kind == "extremes":
        c = rng.integers(cols, size=max(1, cols // 5))
        a[:, c[0::4]] = np.inf                      # a column's only value
        a[:, c[1::4]] = -np.inf
        a[::2, c[2::4]] = np.nan                    # infinities and NaNs
        a[1::2, c[2::4]] = np.inf
        a[rng.random(a.shape) < 0.05] = -np.inf     # an extreme here and there
        a[rng.random(a.shape) < 0.05] = np.inf
    return a


def kinds(dtype):
    k = np.dtype(dtype).kind
    if k in "iu":
        return ["ties", "ends", "extremes"]
    return ["ties", "zeros", "nans", "mostly_nan", "extremes"]


def views(a):
    """The layouts whose axis-0 outputs lie side by side (C order; rows
    reversed or stepped; F order along axis 1), and one whose outputs do not
    (columns stepped: the row loop gathers)."""
    yield "C axis 0", a, 0
    yield "rows reversed", a[::-1], 0
    yield "rows stepped", a[::2], 0
    yield "F axis 1", np.asfortranarray(a.T), 1
    yield "columns stepped", a[:, ::2], 0


def check(a, axis, skip):
    """Mismatches of the fast path (keepdims False) and the general path
    (keepdims True) against the reference: 0, 1 or 2."""
    f = nr.nanargminmax if skip else nr.argminmax
    bad = 0
    for keepdims in (False, True):
        got = outcome(lambda: f(a, axis=axis, keepdims=keepdims))
        try:
            assert_same_outcome(got, outcome(lambda: ref(a, skip, axis, keepdims)))
        except AssertionError:
            bad += 1
    return bad


def grid(dtypes, seed):
    """Every (dtype, rows, cols, pattern, view, skip) case: the mismatches."""
    rng = np.random.default_rng(seed)
    bad = []
    for dtype in dtypes:
        skips = (False, True) if np.dtype(dtype).kind in "fc" else (False,)
        for rows in ROWS:
            for cols in COLS:
                for kind in kinds(dtype):
                    a = patterned(dtype, rows, cols, rng, kind)
                    for name, v, axis in views(a):
                        for skip in skips:
                            if check(v, axis, skip):
                                bad.append((dtype, rows, cols, kind, name, skip))
    return bad


@pytest.mark.parametrize("dtype", KERNEL_DTYPES + GATHER_DTYPES)
def test_columns_against_numpy(dtype):
    assert grid([dtype], 7) == []


@pytest.mark.parametrize("dtype", ["float64", "float32", "int32", "uint64", "int16", "complex128"])
def test_middle_axes_in_blocks(dtype):
    # a middle axis: (outer, n, inner) blocks, each block's outputs side by
    # side (a view of C-contiguous data; other layouts copied C-order first)
    rng = np.random.default_rng(5)
    for shape in [(3, 17, 40), (2, 9, 600), (4, 1, 16), (5, 3, 2), (2, 40, 3, 70), (3, 4, 5, 6)]:
        for kind in kinds(dtype):
            a = patterned(dtype, math.prod(shape[:-1]), shape[-1], rng, kind).reshape(shape)
            for v in (a, np.asfortranarray(a), a[:, ::-1], a[..., ::2]):
                for axis in range(1, a.ndim - 1):
                    for skip in (False, True) if np.dtype(dtype).kind in "fc" else (False,):
                        assert check(v, axis, skip) == 0, (shape, kind, axis, skip)
    for shape, axis in (((0, 3, 20), 1), ((2, 3, 0), 1), ((2, 0, 4, 3), 2)):
        a = np.zeros(shape, dtype)
        assert check(a, axis, False) == 0, shape


def test_long_columns_and_many_tiles():
    # more rows than one pass of each width, several tiles, a NaN late in
    # one column (a tile redone exactly), ties across passes
    rng = np.random.default_rng(3)
    for dtype in ("float64", "float32", "int64", "uint32"):
        a = patterned(dtype, 1001, 2600, rng, "ties")
        assert check(a, 0, False) == 0
        if np.dtype(dtype).kind == "f":
            a[997, 2000] = np.nan
            a[5, 2001] = np.nan
            assert check(a, 0, False) == 0
            assert check(a, 0, True) == 0


def test_the_first_nan_and_the_first_tie_win():
    a = np.zeros((20, 32))
    a[3, 0] = a[9, 0] = np.nan          # the first NaN wins both
    a[0, 1] = np.nan                     # ... also in row 0
    a[[2, 5], 2] = -1.0                  # the first of equal minima
    a[[4, 6], 3] = 1.0                   # ... and maxima
    a[:, 4] = -0.0                       # signed zeros tie
    a[7, 4] = 0.0
    a[:, 5] = np.inf                     # a column of the range's end
    lo, hi = nr.argminmax(a, axis=0)
    assert (lo[:6].tolist(), hi[:6].tolist()) == ([3, 0, 2, 0, 0, 0], [3, 0, 0, 4, 0, 0])
    b = np.full((20, 32), np.nan)
    b[:, 4:] = 1.0
    b[[6, 8], 0] = 2.0
    b[[7, 9], 0] = -2.0
    b[11, 1] = np.inf
    b[:, 3] = 1.0
    b[:, 2] = np.nan                     # all NaN: np.nanargmin raises
    assert_same_outcome(outcome(lambda: nr.nanargminmax(b, axis=0)),
                        outcome(lambda: ref(b, True, 0)))
    b[:, 2] = 0.5
    lo, hi = nr.nanargminmax(b, axis=0)
    assert (lo[:4].tolist(), hi[:4].tolist()) == ([7, 11, 0, 0], [6, 11, 0, 0])


@given(data=st.data())
def test_columns_differential(data):
    dtype = data.draw(st.sampled_from(KERNEL_DTYPES))
    shape = data.draw(st.tuples(st.integers(1, 40), st.integers(16, 1100)))
    elements = (st.sampled_from([0.0, -0.0, 1.5, -2.0, np.inf, -np.inf, np.nan])
                if dtype.startswith("float") else None)
    a = data.draw(hnp.arrays(dtype, shape, elements=elements))
    step = data.draw(st.sampled_from([1, -1, 2]))
    v = a[::step]
    skip = dtype.startswith("float") and data.draw(st.booleans())
    assert check(v, 0, skip) == 0


CODE = """
import sys
from numreduce import _config
print(_config.config()["simd_kernels"])
sys.path.insert(0, sys.argv[1])
import test_argminmax_columns as t
print("mismatches", len(t.grid(t.KERNEL_DTYPES, 11)))
"""


@pytest.mark.parametrize("level", list(SIMD_NAMES))
def test_columns_every_simd_level(level):
    last = run_at_simd_level(CODE, level, args=(os.path.dirname(__file__),))
    assert last == "mismatches 0"
