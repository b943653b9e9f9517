"""The kernels are picked by the memory layout, not by the axis numbers: an
F-ordered array (or a transposed / moved-axis view of a C array) reduced
along any axes takes the kernels of its C-ordered view (_host.c_order_view)
-- no copy, NumPy's results, bitwise the same for any thread count."""

from __future__ import annotations

import tracemalloc

import numpy as np
import pytest
from scipy import special

import numreduce as nr
from numreduce import _host

RNG = np.random.default_rng(11)


def _layouts(shape, dtype):
    c = (RNG.standard_normal(shape) * 10 + 3).astype(dtype)
    yield "F", np.asfortranarray(c)
    if len(shape) == 3:
        yield "moved", np.moveaxis(np.ascontiguousarray(np.moveaxis(c, 0, -1)), -1, 0)
        yield "transposed", np.ascontiguousarray(c.transpose(2, 0, 1)).transpose(1, 2, 0)


AXES = {2: [0, 1, -1, (0, 1)], 3: [0, 1, 2, (0, 1), (1, 2), (0, 2), (0, 1, 2)]}


@pytest.mark.parametrize("dtype", [np.float64, np.float32])
@pytest.mark.parametrize("shape", [(300, 170), (2, 500), (500, 3), (7, 30, 40), (40, 3, 50)])
def test_every_function_on_permuted_layouts_against_numpy(dtype, shape):
    rtol = 1e-12 if dtype == np.float64 else 2e-5
    for name, x in _layouts(shape, dtype):
        assert not x.flags.c_contiguous, name
        for axis in AXES[len(shape)]:
            for kd in (False, True):
                what = (name, axis, kd)
                lo, hi = nr.minmax(x, axis=axis, keepdims=kd)
                np.testing.assert_array_equal(lo, np.min(x, axis=axis, keepdims=kd), err_msg=what)
                np.testing.assert_array_equal(hi, np.max(x, axis=axis, keepdims=kd), err_msg=what)
                m, v = nr.meanvar(x, axis=axis, keepdims=kd)
                np.testing.assert_allclose(m, np.mean(x, axis=axis, keepdims=kd, dtype=np.float64),
                                           rtol=rtol, err_msg=what)
                np.testing.assert_allclose(v, np.var(x, axis=axis, keepdims=kd, dtype=np.float64),
                                           rtol=rtol, err_msg=what)
                assert m.shape == np.mean(x, axis=axis, keepdims=kd).shape
                m2, s2 = nr.meanstd(x, axis=axis, keepdims=kd, ddof=1)
                np.testing.assert_allclose(s2, np.std(x, axis=axis, keepdims=kd, ddof=1,
                                                      dtype=np.float64), rtol=rtol, err_msg=what)
                y = x.copy(order="A")
                y.flat[::13] = np.nan
                m3, v3 = nr.nanmeanvar(y, axis=axis, keepdims=kd)
                np.testing.assert_allclose(m3, np.nanmean(y, axis=axis, keepdims=kd,
                                                          dtype=np.float64), rtol=rtol)
                np.testing.assert_allclose(v3, np.nanvar(y, axis=axis, keepdims=kd,
                                                         dtype=np.float64), rtol=rtol)
                np.testing.assert_allclose(nr.fsum(x, axis=axis, keepdims=kd),
                                           np.sum(x.astype(np.float64), axis=axis, keepdims=kd),
                                           rtol=rtol, atol=rtol * np.abs(x).sum())
                np.testing.assert_allclose(nr.logsumexp(x, axis=axis, keepdims=kd),
                                           special.logsumexp(x.astype(np.float64), axis=axis,
                                                             keepdims=kd), rtol=rtol)


def test_offset_data_keeps_the_two_pass_accuracy():
    """F-ordered rows of 1e8 + N(0, 1): the blocked two-pass of the
    C-ordered view, as accurate as NumPy's two-pass (long double reference)."""
    c = 1e8 + RNG.standard_normal((64, 5000))
    f = np.asfortranarray(c)  # the rows are strided in memory
    ref = c.astype(np.longdouble)
    want = ((ref - ref.mean(1, keepdims=True)) ** 2).mean(1)
    _, v = nr.meanvar(f, axis=1)
    err = np.abs(v - want.astype(np.float64)).max() / float(want.max())
    np_err = np.abs(np.var(f, axis=1) - want.astype(np.float64)).max() / float(want.max())
    assert err <= max(4 * np_err, 1e-14), (err, np_err)


@pytest.mark.parametrize("fn", [nr.meanvar, nr.nanmeanvar, nr.fsum, nr.minmax, nr.logsumexp])
def test_no_copy_of_an_f_ordered_array(fn):
    x = np.asfortranarray(RNG.standard_normal((2000, 1000)))  # 16 MB
    fn(x, axis=1)
    tracemalloc.start()
    try:
        fn(x, axis=1)
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    assert peak <= 0.05 * x.nbytes, (fn.__name__, peak)


def test_bitwise_the_same_for_any_thread_count():
    x = np.asfortranarray(RNG.standard_normal((3000, 1500)))
    before = nr.get_num_threads()
    try:
        res = []
        for n in (1, 2, 4):
            nr.set_num_threads(n)
            res.append([*nr.meanvar(x, axis=1), nr.fsum(x, axis=1), *nr.minmax(x, axis=1),
                        nr.logsumexp(x, axis=1), *nr.nanmeanvar(x, axis=0)])
        for r in res[1:]:
            for a, b in zip(r, res[0]):
                assert np.array_equal(a, b)
    finally:
        nr.set_num_threads(before)


def test_the_view_rule():
    c = np.zeros((2, 3, 4))
    assert _host.c_order_view(c, (0,)) is None  # C already
    assert _host.c_order_view(c[:, ::2], (0,)) is None  # strided: no C view
    f = np.asfortranarray(c)
    view, axes, back = _host.c_order_view(f, (1,))
    assert view.flags.c_contiguous and view.shape == (4, 3, 2) and axes == (1,)
    assert np.shares_memory(view, f) and back == (1, 0)  # kept (2, 0) -> a's order (0, 2)


@pytest.mark.parametrize("dtype", [np.float64, np.float32, np.float16, np.int8, np.int64,
                                   np.uint16, np.complex128, np.longdouble])
def test_argminmax_of_strided_views_against_numpy(dtype):
    """Strided rows are gathered a piece at a time into the vector kernels:
    ties (few distinct values) and NaN keep NumPy's first occurrence."""
    for n in (64, 65, 1000, 4097, 40000):
        for step in (2, 3, -1, -2, 17):
            base = RNG.integers(-3, 4, n * 17).astype(dtype)
            x = base[::step][:n]
            assert nr.argminmax(x) == (np.argmin(x), np.argmax(x)), (n, step)
            m = np.stack([x, x[::-1]])[:, ::1]
            lo, hi = nr.argminmax(m[:, ::2], axis=1)
            np.testing.assert_array_equal(lo, np.argmin(m[:, ::2], axis=1))
            np.testing.assert_array_equal(hi, np.argmax(m[:, ::2], axis=1))
            if np.dtype(dtype).kind in "fc":
                y = base.copy()
                y[n // 2::7] = np.nan
                x = y[::step][:n]
                assert nr.argminmax(x) == (np.argmin(x), np.argmax(x)), (n, step, "nan")
                y = base.copy()
                y[::5] = np.nan
                x = y[::step][:n]
                assert nr.nanargminmax(x) == (np.nanargmin(x), np.nanargmax(x)), (n, step)


@pytest.mark.parametrize("dtype", [np.float64, np.float32])
@pytest.mark.parametrize("shape,axis", [((6, 300, 200), 1), ((3, 40, 50, 30), (1, 2)),
                                        ((4, 5, 70000), 1), ((2, 3, 4), 1),
                                        ((5, 200, 200), (1,)), ((60, 70, 80), (0, 2)),
                                        ((3, 40, 50, 30), (0, 3)), ((3, 40, 50, 30), (0, 1, 3)),
                                        ((7, 1, 5), (0, 2)), ((1, 9, 1), (0, 2))])
def test_middle_and_end_axes_of_c_ordered_data_against_numpy(dtype, shape, axis):
    """A run of middle axes: each (n, inner) slab through the leading-axes
    (column-blocked) kernels where the slabs are large, else the engine.
    The leading and the trailing axes together (axes (0, 2)): the rows, then
    their states merged over the leading axes in a pairwise tree."""
    rtol = 1e-12 if dtype == np.float64 else 2e-5
    x = (1e4 + RNG.standard_normal(shape) * 10).astype(dtype)
    for kd in (False, True):
        m, v = nr.meanvar(x, axis=axis, keepdims=kd)
        np.testing.assert_allclose(m, np.mean(x, axis=axis, keepdims=kd, dtype=np.float64),
                                   rtol=rtol)
        x64 = x.astype(np.float64)
        want = np.mean((x64 - np.mean(x64, axis=axis, keepdims=True)) ** 2, axis=axis,
                       keepdims=kd)
        np.testing.assert_allclose(v, want, rtol=1e-9 if dtype == np.float64 else 1e-4)
        np.testing.assert_allclose(nr.fsum(x, axis=axis, keepdims=kd),
                                   np.sum(x64, axis=axis, keepdims=kd), rtol=rtol)
        lo, hi = nr.minmax(x, axis=axis, keepdims=kd)
        np.testing.assert_array_equal(lo, np.min(x, axis=axis, keepdims=kd))
        np.testing.assert_array_equal(hi, np.max(x, axis=axis, keepdims=kd))
        np.testing.assert_allclose(nr.logsumexp(x - 1e4, axis=axis, keepdims=kd),
                                   special.logsumexp(x64 - 1e4, axis=axis, keepdims=kd),
                                   rtol=rtol)
    before = nr.get_num_threads()
    try:
        res = []
        for n in (1, 2):
            nr.set_num_threads(n)
            res.append([*nr.meanvar(x, axis=axis), nr.fsum(x, axis=axis)])
        assert all(np.array_equal(a, b) for a, b in zip(*res))
    finally:
        nr.set_num_threads(before)


@pytest.mark.parametrize("dtype", [np.float64, np.float32, np.int32])
def test_nan_skipping_columns_are_the_columns_one_by_one(dtype):
    """nanminmax / fminfmax over axis 0 (the column kernel, NaN-skipping):
    each column bit for bit its own 1-d reduction -- NaN start states,
    all-NaN columns, signed zeros -- and np.fmin / np.fmax's values."""
    for shape in ((100, 1000), (37, 301), (5, 64), (300, 7)):
        x = RNG.integers(-3, 4, shape).astype(dtype)
        if np.dtype(dtype).kind == "f":
            x[RNG.random(shape) < 0.3] = np.nan
            x[0, :shape[1] // 2] = np.nan
            x[:, 3] = np.nan
            x[1, 5], x[2, 5] = -0.0, 0.0
        lo, hi = nr.reduce(nr.fminfmax, x, axis=0)
        cols = [nr.reduce(nr.fminfmax, x[:, i]) for i in range(shape[1])]
        for got, want in ((lo, [c[0] for c in cols]), (hi, [c[1] for c in cols])):
            want = np.array(want, dtype=got.dtype)
            assert np.array_equal(got, want, equal_nan=True)
            assert np.array_equal(np.signbit(got), np.signbit(want))
        with np.errstate(invalid="ignore"):
            np.testing.assert_array_equal(lo, np.fmin.reduce(x, axis=0))
            np.testing.assert_array_equal(hi, np.fmax.reduce(x, axis=0))


MIDDLE = [((60, 80, 300), 1), ((6, 40, 50, 70), (1, 2)), ((3, 20, 9, 100), 1),
          ((60, 80, 30), 1), ((5000, 4, 64), 1)]


@pytest.mark.parametrize("shape, axis", MIDDLE)
@pytest.mark.parametrize("dtype", [np.float64, np.float32])
def test_moments_over_middle_axes_of_a_c_array(shape, axis, dtype):
    """A run of middle axes of C-ordered data (one column-path reduction per
    outer slab where the slabs are large, else the axes moved last): NumPy's
    results, the two-pass accuracy on offset data (long double reference),
    bitwise the same for any thread count."""
    x = (1e4 + RNG.standard_normal(shape)).astype(dtype)
    axes = (axis,) if isinstance(axis, int) else axis
    rtol = 1e-11 if dtype == np.float64 else 1e-5
    ref = x.astype(np.longdouble)
    want_v = ((ref - ref.mean(axis, keepdims=True)) ** 2).mean(axis)
    before = nr.get_num_threads()
    try:
        res = []
        for n in (1, 2, 3):
            nr.set_num_threads(n)
            for kd in (False, True):
                m, v = nr.meanvar(x, axis=axis, keepdims=kd)
                np.testing.assert_allclose(m, np.mean(x, axis=axis, keepdims=kd,
                                                      dtype=np.float64), rtol=rtol)
                v_want = want_v if not kd else np.expand_dims(want_v, axes)
                np.testing.assert_allclose(v, v_want.astype(np.float64), rtol=100 * rtol)
                assert m.dtype == v.dtype == dtype and m.shape == v.shape
                s = nr.meanstd(x, axis=axis, keepdims=kd)[1]
                np.testing.assert_allclose(s, np.sqrt(v), rtol=rtol)
            res.append([*nr.meanvar(x, axis=axis), *nr.nanmeanvar(x, axis=axis)])
        for r in res[1:]:
            for a, b in zip(r, res[0]):
                assert np.array_equal(a, b)
    finally:
        nr.set_num_threads(before)


@pytest.mark.parametrize("axis", [1, (0, 2)])
def test_middle_and_end_axes_of_a_c_array_are_not_copied(axis):
    x = RNG.standard_normal((100, 200, 100))  # 16 MB
    for fn in (nr.meanvar, nr.fsum, nr.minmax, nr.nanmeanvar):
        fn(x, axis=axis)
        tracemalloc.start()
        try:
            fn(x, axis=axis)
            _, peak = tracemalloc.get_traced_memory()
        finally:
            tracemalloc.stop()
        # (axes (0, 2): the rows' states and their merge tree, 20000 rows of
        # three float64 values, a few percent; a copy of the data is 100%)
        assert peak <= 0.10 * x.nbytes, (fn.__name__, axis, peak)


@pytest.mark.parametrize("fn", [nr.minmax, nr.nanminmax, nr.fsum, nr.logsumexp])
def test_permuted_layouts_take_the_quick_path(fn, monkeypatch):
    # minmax / fsum / logsumexp without options go to the iterator-free
    # paths of the C-ordered view (the column-tile kernels for an F matrix
    # along axis 1), not to the engine's iterator
    x = np.asfortranarray(RNG.standard_normal((300, 170)))
    three = np.ascontiguousarray(RNG.standard_normal((7, 30, 40)).transpose(2, 0, 1)).transpose(1, 2, 0)
    want = [fn(np.ascontiguousarray(x), axis=1), fn(np.ascontiguousarray(three), axis=(0, 2)),
            fn(np.ascontiguousarray(three), axis=1, keepdims=True)]

    def engine(*args, **kwargs):
        raise AssertionError("the engine's iterator was used")

    monkeypatch.setattr(_host._core, "_reduce", engine)
    got = [fn(x, axis=1), fn(three, axis=(0, 2)), fn(three, axis=1, keepdims=True)]
    for g, w in zip(got, want):
        for a, b in zip(g if isinstance(g, tuple) else (g,), w if isinstance(w, tuple) else (w,)):
            assert a.shape == b.shape
            np.testing.assert_allclose(a, b, rtol=1e-15, atol=0)
