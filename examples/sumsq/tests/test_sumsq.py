"""nrsumsq's suite: a reduction numreduce does not ship, registered through
numreduce's C API, checked against NumPy on every path and method.

Run from outside the source tree (the installed packages):
    python -P -m pytest examples/sumsq/tests
"""

import math
import pickle

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis.extra import numpy as hnp

import numreduce as nr
import nrsumsq
from nrsumsq import sumsq

INT_DTYPES = ["i1", "u1", "i2", "u2", "i4", "u4", "i8", "u8"]
FLOAT_DTYPES = ["f2", "f4", "f8"]
ALL_DTYPES = ["?"] + INT_DTYPES + FLOAT_DTYPES + ["g"]


def ref(a, axis=None, keepdims=False, where=True):
    """NumPy's answer: (sum(a), sum(a**2)) in the accumulation dtype."""
    acc = np.longdouble if a.dtype == np.longdouble else np.float64
    x = a.astype(acc)
    return (np.sum(x, axis=axis, keepdims=keepdims, where=where),
            np.sum(x * x, axis=axis, keepdims=keepdims, where=where))


def close(got, want, rtol=1e-12):
    assert len(got) == len(want)
    for g, w in zip(got, want):
        assert np.shape(g) == np.shape(w)
        assert np.asarray(g).dtype == np.asarray(w).dtype
        np.testing.assert_allclose(np.asarray(g, dtype=float), np.asarray(w, dtype=float),
                                   rtol=rtol, atol=0)


def data(dtype, shape, seed=0):
    rng = np.random.default_rng(seed)
    dt = np.dtype(dtype)
    if dt.kind == "b":
        return rng.integers(0, 2, shape).astype(dt)
    if dt.kind in "iu":
        info = np.iinfo(dt)
        lo, hi = max(info.min, -1000), min(info.max, 1000)
        return rng.integers(lo, hi, shape, endpoint=True).astype(dt)
    return rng.standard_normal(shape).astype(dt)


def test_registered_through_the_c_api():
    assert isinstance(sumsq, np.ufunc) and sumsq.nin == 2 and sumsq.nout == 2
    assert sumsq.__name__ == "sumsq"
    assert nr._core._MULTI_OUTPUT[sumsq] == 2
    assert "sum(a**2)" in sumsq.__doc__
    assert nrsumsq.__all__ == ["sumsq", "wsumsq", "absminmax"]
    assert pickle.loads(pickle.dumps(sumsq)) is sumsq


@pytest.mark.parametrize("dtype", ALL_DTYPES)
def test_elementwise(dtype):
    a, b = data(dtype, 50, 1), data(dtype, 50, 2)
    s, q = sumsq(a, b)
    acc = np.longdouble if dtype == "g" else np.float64
    x, y = a.astype(acc), b.astype(acc)
    assert s.dtype == acc and q.dtype == acc
    np.testing.assert_array_equal(s, x + y)
    np.testing.assert_allclose(q, x * x + y * y, rtol=1e-15)


@pytest.mark.parametrize("dtype", ALL_DTYPES)
@pytest.mark.parametrize("axis", [None, 0, 1, -1, (0, 2)])
def test_reduce_engine_matches_numpy(dtype, axis):
    a = data(dtype, (7, 5, 9))
    close(nr.reduce(sumsq, a, axis=axis), ref(a, axis))
    close(nr.reduce(sumsq, a, axis=axis, keepdims=True), ref(a, axis, keepdims=True))


def test_reduce_exact_against_fsum():
    a = np.random.default_rng(3).standard_normal(100_003) * 1e3
    s, q = nr.reduce(sumsq, a)
    n = a.size
    eps = np.finfo(np.float64).eps
    assert abs(s - math.fsum(a)) <= n * eps * math.fsum(np.abs(a))
    assert abs(q - math.fsum(a * a)) <= n * eps * math.fsum(a * a)


def test_reduce_where_initial_out_and_empty():
    a = data("f8", (6, 8), 4)
    mask = data("?", (6, 8), 5)
    close(nr.reduce(sumsq, a, axis=1, where=mask), ref(a, 1, where=mask))
    s, q = nr.reduce(sumsq, a, axis=0, initial=(10.0, 100.0))
    np.testing.assert_allclose(s, 10.0 + a.sum(0), rtol=1e-14)
    np.testing.assert_allclose(q, 100.0 + (a * a).sum(0), rtol=1e-14)
    out = (np.empty(6), np.empty(6))
    res = nr.reduce(sumsq, a, axis=1, out=out)
    assert res[0] is out[0] and res[1] is out[1]
    close(res, ref(a, 1))
    # empty: the traits' initials (0, 0); the sum of -0.0 values has NumPy's sign
    s, q = nr.reduce(sumsq, np.empty((0, 3)), axis=0)
    np.testing.assert_array_equal(s, np.zeros(3))
    np.testing.assert_array_equal(q, np.zeros(3))
    s, q = nr.reduce(sumsq, np.array([-0.0, -0.0]))
    want = np.sum(np.array([-0.0, -0.0]))
    assert math.copysign(1.0, s) == math.copysign(1.0, want)


def test_initial_none_starts_from_the_lifted_first_element():
    """initial=None (docs/extending.md, section 1): every output starts from
    the first element's state lift(x) -- (x, x * x) -- not the raw element
    (which gave -3 + 16 for the squares); empty reductions are refused."""
    a = np.array([-3.0, 4.0])
    assert nr.reduce(sumsq, a, initial=None) == (1.0, 25.0)
    assert nr.reduce(sumsq, a) == (1.0, 25.0)
    b = np.array([[-3.0, 1.0], [4.0, -2.0]])
    assert nr.reduce(sumsq, b, axis=0, initial=None)[1].tolist() == [25.0, 5.0]
    with pytest.raises(ValueError):
        nr.reduce(sumsq, np.empty(0), initial=None)


@pytest.mark.parametrize("dtype", ["f4", "f8", "i8"])
def test_no_initials_start_from_the_lifted_first_element(dtype):
    """A reduction without initials whose lift is not x (absminmax: lift(-3)
    is (3, 3)) starts every slice from its first element's state on every
    path: the whole array (numreduce's short paths copy a first element
    only for its own min/max), rows, trailing axes, columns, initial=None,
    the methods; a copy of the raw -3 gave max |[-3, 2]| = 2."""
    absminmax = nrsumsq.absminmax
    a = np.array([-3, 2, -1], dtype=dtype)
    want = (np.min(np.abs(a)), np.max(np.abs(a)))
    assert nr.reduce(absminmax, a) == want
    assert nr.reduce(absminmax, a, initial=None) == want
    big = np.tile(a, 4000)  # the threaded / chunked whole-array path
    assert nr.reduce(absminmax, big) == want
    m = np.array([[-3, 2, -1], [-5, 4, 1], [-2, -7, 6]], dtype=dtype)
    for axis in (0, 1, (0, 1), None):
        got = nr.reduce(absminmax, m, axis=axis)
        np.testing.assert_array_equal(got[0], np.min(np.abs(m), axis=axis))
        np.testing.assert_array_equal(got[1], np.max(np.abs(m), axis=axis))
    m3 = np.abs(np.arange(-30, 30, dtype=dtype)).reshape(3, 4, 5) * np.where(
        np.arange(60).reshape(3, 4, 5) % 3 == 0, -1, 1).astype(dtype)
    for axis in ((1, 2), 2, (0, 2)):
        got = nr.reduce(absminmax, m3, axis=axis)
        np.testing.assert_array_equal(got[1], np.max(np.abs(m3), axis=axis))
    acc = nr.accumulate(absminmax, a)
    np.testing.assert_array_equal(acc[1], np.maximum.accumulate(np.abs(a)))
    np.testing.assert_array_equal(nr.reduceat(absminmax, a, [0, 1])[1], [3, 2])
    with pytest.raises(ValueError):
        nr.reduce(absminmax, np.empty(0, dtype))


def test_reduce_strided_and_reversed_views():
    a = data("f4", (40, 30), 6)
    for v in (a[::2, ::-3], a.T, a[:, 1:][::-1]):
        for axis in (None, 0, 1):
            close(nr.reduce(sumsq, v, axis=axis), ref(v, axis))


@settings(max_examples=60, deadline=None)
@given(hnp.arrays(st.sampled_from([np.float64, np.float32, np.int32, np.int64]),
                  hnp.array_shapes(min_dims=1, max_dims=3, max_side=6),
                  elements=st.integers(-1000, 1000)),
       st.data())
def test_reduce_hypothesis(a, draw):
    axis = draw.draw(st.sampled_from([None] + list(range(a.ndim))))
    close(nr.reduce(sumsq, a, axis=axis), ref(a, axis))


def test_threads_give_the_same_answer():
    a = data("f8", 3 * 2**21 + 17, 7)
    one = nr.reduce(sumsq, a)
    old = nr.set_num_threads(4)
    try:
        four = nr.reduce(sumsq, a)
    finally:
        nr.set_num_threads(old)
    assert one == four
    close(one, ref(a), rtol=1e-11)


def test_native_reduce():
    if not nr.HAVE_NATIVE_REDUCE:
        pytest.skip("native ufunc.reduce unavailable: " + nr._core._NATIVE_REASON)
    a = data("f8", (7, 9), 8)
    for axis in (None, 0, 1):
        close(sumsq.reduce(a, axis=axis), ref(a, axis))
        close(sumsq.reduce(a, axis=axis), nr.reduce(sumsq, a, axis=axis), rtol=1e-15)


def test_native_reduce_absent_is_the_plain_ufunc_error():
    if nr.HAVE_NATIVE_REDUCE:
        pytest.skip("this NumPy has the multi-output reduction slots")
    with pytest.raises(ValueError):
        sumsq.reduce(np.arange(3.0))


@pytest.mark.parametrize("dtype", ["i4", "f4", "f8"])
def test_accumulate(dtype):
    a = data(dtype, (5, 11), 9)
    x = a.astype(np.float64)
    s, q = nr.accumulate(sumsq, a, axis=1)
    np.testing.assert_allclose(s, np.cumsum(x, axis=1), rtol=1e-12, atol=1e-12)
    np.testing.assert_allclose(q, np.cumsum(x * x, axis=1), rtol=1e-12)


def test_reduceat_and_segmented_reduce():
    a = data("f8", (4, 20), 10)
    idx = [0, 3, 3, 11, 19]
    s, q = nr.reduceat(sumsq, a, idx, axis=1)
    np.testing.assert_allclose(s, np.add.reduceat(a, idx, axis=1), rtol=1e-13)
    np.testing.assert_allclose(q, np.add.reduceat(a * a, idx, axis=1), rtol=1e-13)
    starts, stops = [0, 5, 7], [5, 5, 20]
    s, q = nr.segmented_reduce(sumsq, a, starts, stops, axis=1)
    for j, (lo, hi) in enumerate(zip(starts, stops)):
        np.testing.assert_allclose(s[:, j], a[:, lo:hi].sum(1), rtol=1e-13, atol=0)
        np.testing.assert_allclose(q[:, j], (a[:, lo:hi] ** 2).sum(1), rtol=1e-13, atol=0)


def test_reduce_by_group_and_at():
    rng = np.random.default_rng(11)
    x = rng.standard_normal(1000)
    g = rng.integers(0, 7, 1000)
    s, q = nr.reduce_by_group(sumsq, x, g, 8)
    np.testing.assert_allclose(s, np.bincount(g, x, minlength=8), rtol=1e-12, atol=1e-13)
    np.testing.assert_allclose(q, np.bincount(g, x * x, minlength=8), rtol=1e-12, atol=1e-13)
    assert s[7] == 0 and q[7] == 0  # an empty group: the empty initials
    lo, hi = np.zeros(7), np.zeros(7)
    nr.at(sumsq, (lo, hi), g, x)
    want_s, want_q = np.zeros(7), np.zeros(7)
    np.add.at(want_s, g, x)
    np.add.at(want_q, g, x * x)
    np.testing.assert_allclose(lo, want_s, rtol=1e-12, atol=1e-13)
    np.testing.assert_allclose(hi, want_q, rtol=1e-12, atol=1e-13)


def test_merge():
    a = data("f8", (10, 6), 12)
    left = nr.reduce(sumsq, a[:4], axis=0)
    right = nr.reduce(sumsq, a[4:], axis=0)
    close(nr.merge(sumsq, left, right), ref(a, 0), rtol=1e-14)


def test_errors_name_the_problem():
    with pytest.raises(TypeError, match="sumsq"):
        nr.reduce(sumsq, np.array(["a", "b"]))
    with pytest.raises(TypeError):
        nr.reduce(sumsq, np.ones(3, dtype=np.complex128))
    with pytest.raises(ValueError):
        nr.reduce(sumsq, np.ones(3), axis=1)
    with pytest.raises(ValueError):
        nr.merge(sumsq, (1.0,), (1.0, 2.0))


@pytest.mark.parametrize("scheduler", ["sync", "threads", "processes"])
def test_dask(scheduler):
    da = pytest.importorskip("dask.array", reason="dask is not installed")
    import dask

    a = data("f8", (60, 7), 13)
    x = da.from_array(a, chunks=((20, 0, 40), (3, 4)))
    s, q = dask.compute(*nr.reduce(sumsq, x, axis=0), scheduler=scheduler)
    close((s, q), ref(a, 0))
    g = np.arange(60) % 4
    s, q = dask.compute(*nr.reduce_by_group(sumsq, x, g, 4), scheduler=scheduler)
    np.testing.assert_allclose(s, np.stack([a[g == k].sum(0) for k in range(4)]), rtol=1e-12)


# ---------------------------------------------------------------------------
# wsumsq: a reduction of two arrays (the extension API's nsrc, C API 1.1)
# ---------------------------------------------------------------------------

def wref(x, w, axis=None, keepdims=False, where=True):
    """NumPy's answer: (sum(w x), sum(w x**2)), broadcast, in float64."""
    x, w = np.broadcast_arrays(np.asarray(x, np.float64), np.asarray(w, np.float64))
    return (np.sum(w * x, axis=axis, keepdims=keepdims, where=where),
            np.sum(w * x * x, axis=axis, keepdims=keepdims, where=where))


def test_wsumsq_is_a_two_source_ufunc():
    assert nrsumsq.wsumsq.nin == 2 and nrsumsq.wsumsq.nout == 2
    assert nr._core._MULTI_SOURCE[nrsumsq.wsumsq] == 2
    wx, wxx = nrsumsq.wsumsq(np.array([2.0, 3.0]), np.array([0.5, 2.0]))
    assert list(wx) == [1.0, 6.0] and list(wxx) == [2.0, 18.0]


@pytest.mark.parametrize("axis", [None, 0, 1, (0, 1)])
@pytest.mark.parametrize("dtype", ["f4", "f8", "i4"])
def test_wsumsq_reduce_against_numpy(axis, dtype):
    rng = np.random.default_rng(5)
    x = (rng.standard_normal((30, 40)) * 10).astype(dtype)
    w = rng.random(40)  # broadcast along the rows
    for keepdims in (False, True):
        got = nr.reduce(nrsumsq.wsumsq, (x, w), axis=axis, keepdims=keepdims)
        close(got, wref(x, w, axis=axis, keepdims=keepdims), rtol=1e-5 if dtype == "f4"
              else 1e-12)
    mask = rng.random((30, 40)) < 0.5
    close(nr.reduce(nrsumsq.wsumsq, (x, w), axis=axis, where=mask),
          wref(x, w, axis=axis, where=mask), rtol=1e-5 if dtype == "f4" else 1e-12)


def test_wsumsq_merge_and_errors():
    x, w = np.arange(10.0), np.linspace(0, 1, 10)
    a = nr.reduce(nrsumsq.wsumsq, (x[:4], w[:4]), axis=0)
    b = nr.reduce(nrsumsq.wsumsq, (x[4:], w[4:]), axis=0)
    close(nr.merge(nrsumsq.wsumsq, a, b), wref(x, w))
    with pytest.raises(TypeError, match="tuple"):
        nr.reduce(nrsumsq.wsumsq, x, axis=0)
    with pytest.raises(ValueError, match="broadcast"):
        nr.reduce(nrsumsq.wsumsq, (x, np.ones(3)), axis=0)
    with pytest.raises(TypeError, match="one tuple"):
        nr.accumulate(nrsumsq.wsumsq, np.stack([x, w], -1))


def test_wsumsq_every_method_takes_the_tuple():
    """accumulate, reduceat, segmented_reduce, reduce_by_group and at of a
    third-party two-source ufunc: its registered loops' scan, segment and
    scatter entries, against NumPy's cumsum, add.reduceat and bincount."""
    rng = np.random.default_rng(7)
    x = rng.standard_normal((50, 3))
    w = rng.random((50, 1))  # broadcast along the columns
    wx, wxx = w * x, w * x * x
    close(nr.accumulate(nrsumsq.wsumsq, (x, w), axis=0),
          (np.cumsum(wx, 0), np.cumsum(wxx, 0)))
    idx = [0, 7, 30]
    close(nr.reduceat(nrsumsq.wsumsq, (x, w), idx, axis=0),
          (np.add.reduceat(wx, idx, 0), np.add.reduceat(wxx, idx, 0)))
    close(nr.segmented_reduce(nrsumsq.wsumsq, (x, w), [0, 10], [25, 50], axis=0),
          (np.stack([wx[:25].sum(0), wx[10:].sum(0)]),
           np.stack([wxx[:25].sum(0), wxx[10:].sum(0)])))
    ids = rng.integers(0, 4, 50)
    got = nr.reduce_by_group(nrsumsq.wsumsq, (x[:, 0], w[:, 0]), ids, num_groups=4)
    close(got, (np.bincount(ids, wx[:, 0], 4), np.bincount(ids, wxx[:, 0], 4)))
    outs = (np.zeros(4), np.zeros(4))
    nr.at(nrsumsq.wsumsq, outs, ids, (x[:, 0], w[:, 0]))
    close(outs, got)


def test_extending_two_source_example():
    """docs/extending.md, section 5, as written there."""
    x, w = np.arange(12.0).reshape(3, 4), np.array([0.5, 1.0, 1.0, 2.0])
    swx, swxx = nr.reduce(nrsumsq.wsumsq, (x, w), axis=1)
    state = nr.merge(nrsumsq.wsumsq, nr.reduce(nrsumsq.wsumsq, (x[:1], w), axis=None),
                     nr.reduce(nrsumsq.wsumsq, (x[1:], w), axis=None))
    np.testing.assert_array_equal(swx, (w * x).sum(1))
    np.testing.assert_array_equal(swxx, (w * x * x).sum(1))
    close(state, wref(x, w))
