"""numreduce.mapreduce: reduction(f(*arrays)) block by block, without the
full-size image -- against the reduction of the materialised image
(NumPy's own f), exactly for order reductions, within the stated bounds
for the others; peak memory with tracemalloc; errors before any work."""

from __future__ import annotations

import math
import tracemalloc

import numpy as np
import pytest
from hypothesis import given, settings, strategies as st
from numpy.exceptions import AxisError

import numreduce as nr
from numreduce import _mapped

RNG = np.random.default_rng(7)
BIG = _mapped.BLOCK * 3 + 17  # several blocks and a ragged last one


def _image(f, *arrays):
    return f(*np.broadcast_arrays(*arrays))


def _close(got, want, rtol=1e-13, atol=0):
    got, want = np.asarray(got), np.asarray(want)
    assert got.shape == want.shape and got.dtype == want.dtype
    np.testing.assert_allclose(got, want, rtol=rtol, atol=atol, equal_nan=True)


SHAPES = [(BIG,), (517, 300), (3, 700, 70), (40, 3000), (2, 3, 40000)]


@pytest.mark.parametrize("shape", SHAPES)
@pytest.mark.parametrize("axis", [None, 0, -1, (0, -1)])
def test_order_reductions_are_exact(shape, axis):
    if axis == (0, -1) and len(shape) == 1:
        axis = (0,)
    x = RNG.standard_normal(shape)
    y = RNG.standard_normal(shape[-1:])  # broadcast along the leading axes
    x.flat[::997] = np.nan
    for red in (nr.minmax, nr.nanminmax):
        got = nr.mapreduce(np.subtract, red, x, y, axis=axis)
        with np.errstate(invalid="ignore"):
            want = red(_image(np.subtract, x, y), axis=axis)
        for g, w in zip(got, want):
            np.testing.assert_array_equal(g, w)
    if not isinstance(axis, tuple):
        for red, ref in ((nr.argminmax, (np.argmin, np.argmax)),
                         (nr.nanargminmax, (np.nanargmin, np.nanargmax))):
            got = nr.mapreduce(np.subtract, red, x, y, axis=axis)
            img = _image(np.subtract, x, y)
            for g, r in zip(got, ref):
                np.testing.assert_array_equal(g, r(img, axis=axis))


@pytest.mark.parametrize("shape", SHAPES)
@pytest.mark.parametrize("axis", [None, 0, -1])
@pytest.mark.parametrize("keepdims", [False, True])
def test_accurate_reductions_within_bounds(shape, axis, keepdims):
    x = RNG.standard_normal(shape) + 1e6  # offset: the moments' merge must not cancel
    img = np.abs(x)
    m, v = nr.mapreduce(np.abs, nr.meanvar, x, axis=axis, keepdims=keepdims, ddof=1)
    _close(m, np.mean(img, axis=axis, keepdims=keepdims))
    _close(v, np.var(img, axis=axis, keepdims=keepdims, ddof=1), rtol=1e-6)
    mm, s = nr.mapreduce(np.abs, nr.meanstd, x, axis=axis, keepdims=keepdims)
    _close(s, np.std(img, axis=axis, keepdims=keepdims), rtol=1e-6)
    got = nr.mapreduce(np.square, nr.fsum, x - 1e6, axis=axis, keepdims=keepdims)
    # fsum is within about 1 ulp of the exact sum: compare to math.fsum
    sq = np.square(x - 1e6)
    want = np.apply_along_axis(math.fsum, 0, sq.reshape(-1)) if axis is None else \
        np.apply_along_axis(math.fsum, axis, sq)
    _close(got, np.reshape(want, np.shape(got)), rtol=4e-16)
    got = nr.mapreduce(lambda a: -np.abs(a), nr.logsumexp, x - 1e6, axis=axis,
                       keepdims=keepdims)
    # the blocks' states merge in another order: a few ulps of the log-scale
    # result (absolute near 0, where log1p keeps the relative precision)
    _close(got, nr.logsumexp(-np.abs(x - 1e6), axis=axis, keepdims=keepdims), rtol=1e-14,
           atol=1e-15)


def test_nanmeanvar_and_where_and_dtype():
    x = RNG.standard_normal((300, 700)).astype(np.float32)
    x[::7, ::3] = np.nan
    w = RNG.random((300, 700)) < 0.8
    for axis in (None, 0, 1):
        m, v = nr.mapreduce(np.square, nr.nanmeanvar, x, axis=axis)
        _close(m, np.nanmean(np.square(x), axis=axis, dtype=np.float64).astype(np.float32),
               rtol=1e-6)
        _close(v, np.nanvar(np.square(x), axis=axis, dtype=np.float64).astype(np.float32),
               rtol=1e-5)
        x0 = np.nan_to_num(x)
        m, v = nr.mapreduce(np.square, nr.meanvar, x0, axis=axis, where=w, dtype=np.float64)
        _close(m, np.mean(np.square(x0), axis=axis, where=w, dtype=np.float64))
        _close(v, np.var(np.square(x0), axis=axis, where=w, dtype=np.float64), rtol=1e-12)
        lo, hi = nr.mapreduce(np.square, nr.minmax, x0, axis=axis, where=w,
                              initial=(np.inf, -np.inf))
        np.testing.assert_array_equal(lo, np.min(np.square(x0), axis=axis, where=w,
                                                 initial=np.inf))
        np.testing.assert_array_equal(hi, np.max(np.square(x0), axis=axis, where=w,
                                                 initial=-np.inf))


def test_complex_image_and_integer_image():
    z = RNG.standard_normal(BIG) + 1j * RNG.standard_normal(BIG)
    m, v = nr.mapreduce(lambda a: a * (1 - 2j), nr.meanvar, z)
    img = z * (1 - 2j)
    _close(m, np.mean(img), atol=1e-14)  # a mean near 0 of values near 1
    _close(v, np.var(img), rtol=1e-12)
    _close(nr.mapreduce(lambda a: a * 2, nr.fsum, z), nr.fsum(z * 2), rtol=1e-15)
    i = RNG.integers(-1000, 1000, size=(400, 300))
    for axis in (None, 0, 1):
        lo, hi = nr.mapreduce(np.abs, nr.minmax, i, axis=axis)
        np.testing.assert_array_equal(lo, np.min(np.abs(i), axis=axis))
        np.testing.assert_array_equal(hi, np.max(np.abs(i), axis=axis))
        _close(nr.mapreduce(np.square, nr.fsum, i, axis=axis),
               np.sum(np.square(i), axis=axis).astype(np.float64), rtol=0)


def test_ufunc_reduction_returns_states():
    x = RNG.standard_normal((500, 400))
    for axis in (None, 0, 1):
        got = nr.mapreduce(np.exp, nr.maxsumexp, x, axis=axis)
        want = nr.reduce(nr.maxsumexp, np.exp(x), axis=axis)
        for g, w in zip(got, want):
            _close(g, w, rtol=1e-13)
        got = nr.mapreduce(np.negative, nr.minimummaximum, x, axis=axis)
        want = nr.reduce(nr.minimummaximum, -x, axis=axis)
        for g, w in zip(got, want):
            np.testing.assert_array_equal(g, w)
    out = (np.empty(400), np.empty(400))
    res = nr.mapreduce(np.negative, nr.minimummaximum, x, axis=0, out=out)
    assert res[0] is out[0] and res[1] is out[1]
    np.testing.assert_array_equal(out[0], (-x).min(0))
    n, mean, m2 = nr.mapreduce(np.abs, nr.moments, x, axis=1, initial=(0, 0, 0))
    _close(mean, np.abs(x).mean(1))


def test_small_calls_are_the_plain_reduction():
    x = np.array([3.0, -1.0, 2.0])
    assert nr.mapreduce(np.negative, nr.minmax, x) == nr.minmax(-x)
    assert nr.mapreduce(np.square, nr.fsum, x) == 14.0
    e = np.empty((0, 3))
    with pytest.warns(RuntimeWarning, match="Mean of empty slice"), \
            pytest.warns(RuntimeWarning, match="Degrees of freedom"):
        m, v = nr.mapreduce(np.abs, nr.meanvar, e, axis=0)
    assert m.shape == (3,) and np.isnan(m).all()
    with pytest.raises(ValueError, match="zero-size"):
        nr.mapreduce(np.abs, nr.minmax, e, axis=0)


@settings(max_examples=int(__import__("os").environ.get("NR_HYPOTHESIS_EXAMPLES", 40)),
          deadline=None)
@given(st.lists(st.integers(1, 90), min_size=1, max_size=3), st.data())
def test_hypothesis_shapes_axes_blocks(shape, data):
    shape = tuple(shape)
    old = _mapped.BLOCK
    _mapped.BLOCK = data.draw(st.sampled_from([7, 64, 1000]))  # many blocks at small sizes
    try:
        # Every value through Hypothesis: a drawn seed, not the module's RNG
        # (whose state depends on the tests run before, so a failure did not
        # replay: FlakyFailure).
        rng = np.random.default_rng(data.draw(st.integers(0, 2**32 - 1)))
        x = rng.standard_normal(shape)
        y = rng.standard_normal(shape[-1:]) if data.draw(st.booleans()) else np.float64(0.5)
        if data.draw(st.booleans()):
            x = x[..., ::-1]
        axis = data.draw(st.sampled_from([None] + list(range(-len(shape), len(shape)))))
        img = np.multiply(x, y)
        lo, hi = nr.mapreduce(np.multiply, nr.minmax, x, y, axis=axis)
        np.testing.assert_array_equal(lo, np.min(img, axis=axis))
        np.testing.assert_array_equal(hi, np.max(img, axis=axis))
        a0, a1 = nr.mapreduce(np.multiply, nr.argminmax, x, y, axis=axis)
        np.testing.assert_array_equal(a0, np.argmin(img, axis=axis))
        np.testing.assert_array_equal(a1, np.argmax(img, axis=axis))
        _meanvar_close(nr.mapreduce(np.multiply, nr.meanvar, x, y, axis=axis), img, axis)
    finally:
        _mapped.BLOCK = old


def _meanvar_close(got, img, axis):
    """meanvar of the mapped image against np.mean / np.var of it.  A
    relative tolerance alone fails near zero (a mean of -4.9e-8 against
    rtol=1e-9).  A sum of n terms rounds by at most about n eps sum|x|
    (recursive summation; NumPy's pairwise sum and the blocks' merged moments
    are within it), so each side's mean is within n eps max|x| of the exact
    one, and each side's variance within n eps max (x - mean)**2 <=
    4 n eps max|x|**2 (the mean's own error enters the two-pass variance
    squared only)."""
    m, v = got
    n = img.size if axis is None else img.shape[axis]
    eps = np.finfo(np.float64).eps
    big = float(np.max(np.abs(img), initial=0.0))
    _close(m, np.mean(img, axis=axis), rtol=1e-9, atol=2 * n * eps * big)
    _close(v, np.var(img, axis=axis), rtol=1e-9, atol=8 * n * eps * big**2)


@pytest.mark.parametrize("axis", [None, 1])
def test_meanvar_cancelling_to_zero(axis):
    """np.mean of [0.1, 0.2, -0.3] is 1.85e-17, numreduce's 0: both a rounding
    of the data's magnitude, the tolerance the hypothesis test needs there."""
    x = np.array([[0.1, 0.2, -0.3]] * 2)
    _meanvar_close(nr.mapreduce(np.multiply, nr.meanvar, x, 1.0, axis=axis), x * 1.0, axis)


def test_bitwise_the_same_for_any_thread_count():
    x = RNG.standard_normal((2000, 3000))
    before = nr.get_num_threads()
    try:
        res = []
        for n in (1, 2, 4):
            nr.set_num_threads(n)
            # (np.square: the fused loop; np.abs: the blocks)
            res.append([nr.mapreduce(f, nr.fsum, x, axis=a) for a in (None, 0, 1)
                        for f in (np.square, np.abs)]
                       + list(nr.mapreduce(np.abs, nr.meanvar, x)))
        for r in res[1:]:
            for a, b in zip(r, res[0]):
                assert np.array_equal(a, b)
    finally:
        nr.set_num_threads(before)


@pytest.mark.parametrize("axis", [None, 0, 1])
def test_peak_memory_is_a_few_blocks(axis):
    x = RNG.standard_normal((2048, 2048))  # 32 MiB
    nr.mapreduce(np.square, nr.fsum, x, axis=axis)  # warm up (imports, caches)
    tracemalloc.start()
    try:
        nr.mapreduce(np.square, nr.fsum, x, axis=axis)  # the fused loop
        nr.mapreduce(np.negative, nr.fsum, x, axis=axis)  # the blocks
        nr.mapreduce(lambda a: np.abs(a - 1.0), nr.meanvar, x, axis=axis)
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    assert peak <= 0.10 * x.nbytes, f"peak {peak} bytes for a {x.nbytes}-byte input"


def _no_call(*a):
    raise AssertionError("f ran")


def test_errors_before_any_work():
    x = np.ones((300, 300))
    with pytest.raises(TypeError, match="callable"):
        nr.mapreduce(3, nr.minmax, x)
    with pytest.raises(TypeError, match="reduction must be"):
        nr.mapreduce(np.abs, np.sum, x)
    with pytest.raises(TypeError, match="reduces 2 arrays"):
        nr.mapreduce(np.abs, nr.wmoments, x)
    with pytest.raises(TypeError, match="at least one"):
        nr.mapreduce(np.abs, nr.minmax)
    with pytest.raises(ValueError, match="broadcast"):
        nr.mapreduce(np.add, nr.minmax, x, np.ones(7))
    with pytest.raises(ValueError, match="shape"):
        nr.mapreduce(lambda a: a[:1], nr.minmax, x)
    with pytest.raises(TypeError, match="masked"):
        nr.mapreduce(np.abs, nr.minmax, np.ma.masked_array(x))
    with pytest.raises(AxisError):
        nr.mapreduce(np.abs, nr.minmax, x, axis=2)
    with pytest.raises(TypeError):
        nr.mapreduce(np.abs, nr.minmax, x, ddof=1)  # minmax takes no ddof
    # weights= is supported at every size now (issue 36): as the image's
    np.testing.assert_allclose(nr.mapreduce(np.abs, nr.meanvar, x, weights=x),
                               nr.meanvar(np.abs(x), weights=x))
    with pytest.raises(ValueError, match="non-negative"):
        nr.mapreduce(np.abs, nr.meanvar, x, weights=-x)
    out = (np.full(300, 7.0), np.full(300, 7.0))
    with pytest.raises(TypeError, match="dtype"):
        calls = iter([np.float64, np.float32] * 10)
        nr.mapreduce(lambda a: a.astype(next(calls)), nr.minimummaximum, x, axis=0, out=out)
    assert (out[0] == 7).all() and (out[1] == 7).all()  # nothing written


def test_dask_sources_stay_lazy():
    da = pytest.importorskip("dask.array", reason="dask[array] is not installed (the 'dask' "
                             "extra)")
    x = RNG.standard_normal((600, 500))
    dx = da.from_array(x, chunks=(150, 250))
    calls = []

    def f(a, b):
        calls.append(a.shape)
        return np.abs(a - b)

    y = RNG.standard_normal(500)
    m, v = nr.mapreduce(f, nr.meanvar, dx, y, axis=0)
    assert isinstance(m, da.Array) and not any(c == (150, 250) for c in calls)
    _close(m.compute(), np.abs(x - y).mean(0))
    _close(v.compute(), np.abs(x - y).var(0), rtol=1e-12)
    lo, hi = nr.mapreduce(f, nr.minmax, dx, y)
    assert float(lo.compute()) == np.abs(x - y).min()
    states = nr.mapreduce(np.square, nr.twosum, dx, axis=1)
    _close(states[0].compute() + states[1].compute(), np.square(x).sum(1))


# -- the fused map: np.square with fsum / twosum (the sqtwosum loops) -------

def _same(got, want):
    for g, w in zip(got if isinstance(got, tuple) else (got,),
                    want if isinstance(want, tuple) else (want,)):
        g, w = np.asarray(g), np.asarray(w)
        assert g.dtype == w.dtype and g.shape == w.shape, (g, w)
        assert np.array_equal(g, w, equal_nan=True), (g, w)


@pytest.fixture
def no_blocks(monkeypatch):
    """The fused path reads the source itself: mapping any block fails."""
    def refuse(self):
        raise AssertionError("a block was mapped")
    monkeypatch.setattr(_mapped.Mapped, "blocks", refuse)


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("shape", [(BIG,), (517, 300), (300, 517), (4000, 33), (33, 4000),
                                   (3, 70, 700)])
@pytest.mark.parametrize("order", ["C", "F"])
def test_sum_of_squares_is_the_sum_of_the_image_bit_for_bit(no_blocks, dtype, shape, order):
    x = np.array(RNG.standard_normal(shape) * 1e3, dtype=dtype, order=order)
    x.flat[::101] *= dtype(1e-3)  # magnitudes that round differently
    axes = [None, 0, -1] + ([1, (0, 2)] if len(shape) == 3 else [])
    for axis in axes:
        for keepdims in (False, True):
            _same(nr.mapreduce(np.square, nr.fsum, x, axis=axis, keepdims=keepdims),
                  nr.fsum(np.square(x), axis=axis, keepdims=keepdims))
            _same(nr.mapreduce(np.square, nr.twosum, x, axis=axis, keepdims=keepdims),
                  nr.reduce(nr.twosum, np.square(x), axis=axis, keepdims=keepdims))


def test_sum_of_squares_options(no_blocks):
    x = RNG.standard_normal((700, 300))
    w = RNG.random(x.shape) > 0.3
    for axis in (None, 0, 1):
        _same(nr.mapreduce(np.square, nr.fsum, x, axis=axis, where=w),
              nr.fsum(np.square(x), axis=axis, where=w))
        _same(nr.mapreduce(np.square, nr.fsum, x, axis=axis, initial=2.5),
              nr.fsum(np.square(x), axis=axis, initial=2.5))
        out = np.empty(np.sum(np.square(x), axis=axis).shape)
        res = nr.mapreduce(np.square, nr.fsum, x, axis=axis, out=out)
        assert res is out or axis is None
        _same(out, nr.fsum(np.square(x), axis=axis))


def test_sum_of_squares_special_values_and_floating_point_reports(monkeypatch):
    """NaN, inf, a square that overflows, one that underflows: the bits of
    fsum(np.square(y)), and np.square's own reports -- the fused loop runs
    where np.seterr ignores overflow and underflow (or warns of overflow
    and every result is finite); otherwise f maps the blocks, as f(y)."""
    y = RNG.standard_normal((700, 300))
    y[3, 5] = np.nan
    y[-10, :] = np.inf
    y[-20, 7] = -np.inf
    y[-30, 9] = 1e200  # its square overflows (past the first block)
    y[-40, 11] = 1e-200  # its square underflows to 0
    for axis in (None, 0, 1):
        with np.errstate(over="ignore", under="ignore"):
            want = nr.fsum(np.square(y), axis=axis)
        with np.errstate(over="ignore"):
            with monkeypatch.context() as m:  # the fused loop alone
                m.setattr(_mapped.Mapped, "blocks", lambda self: 1 / 0)
                _same(nr.mapreduce(np.square, nr.fsum, y, axis=axis), want)
        with pytest.warns(RuntimeWarning, match="overflow encountered in square"):
            _same(nr.mapreduce(np.square, nr.fsum, y, axis=axis), want)
        with np.errstate(under="warn", over="ignore"), \
                pytest.warns(RuntimeWarning, match="underflow encountered in square"):
            _same(nr.mapreduce(np.square, nr.fsum, y, axis=axis), want)
        out = np.zeros(want.shape)
        with np.errstate(over="raise"), pytest.raises(FloatingPointError, match="overflow"):
            nr.mapreduce(np.square, nr.fsum, y, axis=axis, out=None if axis is None else out)
        assert not out.any()  # raised before any output was written
    z = np.where(np.isfinite(y), y, 0.0)
    z[-30, 9] = 0.0
    with np.errstate(over="warn"), monkeypatch.context() as m:  # all finite: no redo
        m.setattr(_mapped.Mapped, "blocks", lambda self: 1 / 0)
        _same(nr.mapreduce(np.square, nr.fsum, z, axis=0), nr.fsum(np.square(z), axis=0))


def test_sum_of_squares_against_math_fsum():
    """The compensated sum of the rounded squares: within fsum's bound of
    the exactly rounded sum of np.square(x) (math.fsum)."""
    for n in (BIG, 10**6 + 3):
        x = RNG.standard_normal(n) * np.exp(RNG.uniform(-30, 30, n))
        sq = np.square(x)
        want = math.fsum(sq.tolist())
        got = nr.mapreduce(np.square, nr.fsum, x)
        assert abs(got - want) <= np.spacing(want), (got, want)
        x32 = x.astype(np.float32)
        want32 = math.fsum(np.square(x32).astype(np.float64).tolist())
        got32 = nr.mapreduce(np.square, nr.fsum, x32)
        assert got32.dtype == np.float32
        assert abs(float(got32) - want32) <= 2 * np.spacing(np.float32(want32)), (got32, want32)


def test_what_the_fused_loop_does_not_take_goes_through_the_blocks():
    x = RNG.standard_normal((600, 300))
    # no float32/float64 image of the source's dtype, another dtype, an
    # initial of the ufunc (a state, not mapped), a strided or broadcast view
    for src, kw in ((x.astype(np.float16), {}), ((x * 1000).astype(np.int64), {}),
                    (x.astype(np.float32), {"dtype": np.float64}), (x[::2, ::3], {}),
                    (np.broadcast_to(x[0], (600, 300)), {})):
        for axis in (None, 0, 1):
            got = nr.mapreduce(np.square, nr.fsum, src, axis=axis, **kw)
            want = nr.fsum(np.square(src), axis=axis, **kw)
            assert got.dtype == want.dtype
            np.testing.assert_allclose(got, want, rtol=4 * np.finfo(want.dtype).eps)
    s, e = nr.mapreduce(np.square, nr.twosum, x, axis=0, initial=(1.0, 0.0))
    ws, we = nr.reduce(nr.twosum, np.square(x), axis=0, initial=(1.0, 0.0))
    np.testing.assert_allclose(s + e, ws + we, rtol=1e-15)


def test_the_fused_loop_as_a_ufunc():
    """sqtwosum (internal): twosum over the rounded squares, through every
    method -- bit for bit twosum over np.square(x)."""
    u = nr._core.sqtwosum
    a, b = RNG.standard_normal(1000) * 1e4, RNG.standard_normal(1000)
    _same(u(a, b), nr.twosum(np.square(a), np.square(b)))
    x = RNG.standard_normal((50, 40)) * 1e3
    sq = np.square(x)
    _same(nr.accumulate(u, x, axis=0), nr.accumulate(nr.twosum, sq, axis=0))
    idx = np.array([0, 7, 7, 30])
    _same(nr.reduceat(u, x, idx, axis=0), nr.reduceat(nr.twosum, sq, idx, axis=0))
    ids = RNG.integers(0, 5, 50)
    _same(nr.reduce_by_group(u, x, ids, axis=0), nr.reduce_by_group(nr.twosum, sq, ids, axis=0))
    with pytest.raises(TypeError):
        nr.reduce(u, np.arange(5))  # float32 and float64 only
