"""Reductions along an axis of bool, integer and float16 (and float32) data
convert the values to the accumulator type first and run the loop of the
accumulator type on them (row_step, scan rows, the twosum and moments row
kernels), so that they give, bit for bit, the results of the same values
already in that type: ``f(a, axis=k)`` equals ``f(a.astype(float64),
axis=k)`` (for float16 ``fsum``/``cumfsum``, whose accumulator is float32:
``a.astype(float32)``; float16/float32 ``meanvar``/``logsumexp``: the float64
result rounded once) -- along every axis, on C/F-ordered, transposed and
reversed views, at every SIMD level.  The references are numreduce's own
float64/float32 paths, which the other test files check against NumPy,
math.fsum, fractions and mpmath."""

import os
import textwrap
import warnings

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis.extra import numpy as hnp

import numreduce as nr
from helpers import run_at_simd_level

DTYPES = [np.bool_, np.int8, np.uint8, np.int16, np.uint16, np.int32, np.uint32, np.int64,
          np.uint64, np.float16]


def _outputs(r):
    return r if isinstance(r, tuple) else (r,)


def _same(got, want, what):
    for g, w in zip(_outputs(got), _outputs(want)):
        g, w = np.asarray(g), np.asarray(w)
        assert g.dtype == w.dtype and g.shape == w.shape, (what, g.dtype, w.dtype, g.shape, w.shape)
        assert np.array_equal(g, w, equal_nan=True), (what, g, w)
        # the signs of zeros too
        z = (g == 0) & (w == 0)
        assert np.array_equal(np.signbit(g[z]), np.signbit(w[z])), (what, g, w)


def _references(a, view):
    """(function, the converted array's view, whether the results are
    rounded to a's type) for the view of `a`: the converted array has the
    same layout (the same view of the converted base), so both take the
    same path."""
    dt = a.dtype
    wide = view(a.astype(np.float64))
    sum_ref = view(a.astype(np.float32)) if dt == np.float16 else wide  # fsum's accumulator
    out = [] if dt == np.float32 else [(nr.fsum, sum_ref, False)]  # (float32 sums in float32)
    for f in (nr.meanvar, nr.logsumexp):
        out.append((f, wide, dt.kind == "f"))
    return out


def _check_all_axes(base, view=lambda x: x):
    a = view(base)
    with np.errstate(all="ignore"), warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)  # empty slices (a[..., 1:] of one column)
        for axis in [None] + list(range(a.ndim)):
            for f, ref, round_to_input in _references(base, view):
                got, want = f(a, axis=axis), f(ref, axis=axis)
                if round_to_input:  # float16/float32 results: float64 rounded once
                    want = tuple(np.asarray(w).astype(a.dtype) for w in _outputs(want))
                    want = want if isinstance(got, tuple) else want[0]
                _same(got, want, (f.__name__, a.dtype, a.shape, a.strides, axis))
            if (axis is not None or a.ndim == 1) and a.dtype != np.float32:
                ref = view(base.astype(np.float32 if a.dtype == np.float16 else np.float64))
                _same(nr.cumfsum(a, axis=axis), nr.cumfsum(ref, axis=axis),
                      ("cumfsum", a.dtype, a.shape, a.strides, axis))


VIEWS = {
    "c": lambda x: x,
    "f": np.asfortranarray,
    "transposed": lambda x: x.T,
    "reversed": lambda x: x[tuple(slice(None, None, -1) for _ in x.shape)],
    "misaligned": lambda x: x[..., 1:],
}


@st.composite
def _cases(draw):
    dt = draw(st.sampled_from(DTYPES + [np.float32]))
    shape = draw(hnp.array_shapes(min_dims=1, max_dims=3, min_side=1, max_side=40))
    if np.prod(shape) > 6000:
        shape = shape[:2]
    kw = {}
    if np.dtype(dt).kind == "f":
        kw["elements"] = st.floats(width=np.dtype(dt).itemsize * 8, allow_nan=True,
                                   allow_infinity=True)
    a = draw(hnp.arrays(dtype=dt, shape=shape, **kw))
    return a, draw(st.sampled_from(sorted(VIEWS)))


@settings(deadline=None, max_examples=150)
@given(_cases())
def test_axis_reductions_of_converted_types_are_bit_for_bit(case):
    a, view = case
    _check_all_axes(a, VIEWS[view])


@pytest.mark.parametrize("dt", DTYPES)
@pytest.mark.parametrize("shape", [(3, 1), (1, 33), (17, 31), (64, 65), (129, 3), (5, 4, 70),
                                   (300, 257)])
def test_axis_reductions_of_converted_types_sizes(dt, shape):
    rng = np.random.default_rng(sum(shape))
    if np.dtype(dt).kind == "f":
        a = (rng.standard_normal(shape) * 30).astype(dt)
        a.reshape(-1)[:: 7] = np.nan if len(shape) % 2 else np.inf
    elif np.dtype(dt).kind == "b":
        a = rng.random(shape) < 0.5
    else:
        info = np.iinfo(dt)
        a = rng.integers(info.min, info.max, size=shape, dtype=dt, endpoint=True)
    for view in VIEWS.values():
        _check_all_axes(a, view)


CHECK = textwrap.dedent(r'''
    import numpy as np
    import numreduce as nr
    from numreduce import _config
    sys_path_test = TESTS
    import sys
    sys.path.insert(0, sys_path_test)
    import test_convert_first as t

    print(_config.config()["simd_kernels"])
    rng = np.random.default_rng(3)
    checked = 0
    for dt in t.DTYPES:
        for shape in [(7, 9), (16, 33), (65, 17), (3, 40, 5), (200, 130)]:
            if np.dtype(dt).kind == "f":
                a = (rng.standard_normal(shape) * 30).astype(dt)
                a.reshape(-1)[::11] = np.nan
            elif np.dtype(dt).kind == "b":
                a = rng.random(shape) < 0.5
            else:
                info = np.iinfo(dt)
                a = rng.integers(info.min, info.max, size=shape, dtype=dt, endpoint=True)
            for view in t.VIEWS.values():
                t._check_all_axes(a, view)
                checked += 1
    print("checked", checked)
''')

@pytest.mark.parametrize("level", ["baseline", "avx2", "avx512"])
def test_every_simd_level(level):
    code = CHECK.replace("TESTS", repr(os.path.dirname(os.path.abspath(__file__))))
    checked = run_at_simd_level(code, level, timeout=900)
    assert checked == f"checked {10 * 5 * 5}", checked
