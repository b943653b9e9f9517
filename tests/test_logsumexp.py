"""logsumexp against scipy.special.logsumexp and a math.fsum reference; the
maxsumexp ufunc and its reduction."""

import math
import zlib
import warnings

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st
from scipy.special import logsumexp as sp_logsumexp

import numreduce as nr
from helpers import INT_DTYPES, arrays, assert_same_outcome, axes_for, outcome

MSE = nr.maxsumexp
REAL_DTYPES = [np.bool_] + INT_DTYPES + [np.float16, np.float32, np.float64]
inf, nan = np.inf, np.nan


def sp_ref(a, **kw):
    with warnings.catch_warnings(), np.errstate(all="ignore"):
        warnings.simplefilter("ignore")
        a = np.asarray(a)
        if a.size == 0:
            # SciPy 1.17 mishandles some empty inputs (shape (0, 0) with
            # axis=None: IndexError; shape (0,) with axis=(): [-inf] of shape
            # (1,)).  Its meaning for empty slices is -inf (shape (0,),
            # (0, 3) with axis=0: test_logsumexp_empty_axes), so build that
            # with np.sum's result shape and SciPy's dtype for the input dtype.
            proto = sp_logsumexp(np.zeros(1, dtype=a.dtype))
            res = np.full(np.sum(a, **kw).shape, -np.inf, dtype=proto.dtype)
            return res[()] if res.ndim == 0 else res
        if a.ndim == 0:
            # SciPy returns shape (1,) for a 0-d input with keepdims=True;
            # NumPy reductions (np.sum, ufunc.reduce) keep the 0-d shape.
            res = np.asarray(sp_logsumexp(a)).reshape(np.sum(a, **kw).shape)
            return res[()] if res.ndim == 0 else res
        return sp_logsumexp(a, **kw)


def _kwargs(axis, keepdims):
    kw = {} if axis == "default" else {"axis": axis}
    if keepdims:
        kw["keepdims"] = True
    return kw


def assert_close_to_reference(got, a, kw):
    """Values against SciPy run on a float64 copy of the data (numreduce
    accumulates in float64 and rounds once to the result dtype), with a
    tolerance of a few ulp of the result dtype times the data's scale."""
    want = np.asarray(sp_ref(np.asarray(a, dtype=np.float64), **kw))
    g = np.asarray(got)
    assert g.shape == want.shape, (g.shape, want.shape)
    eps = np.finfo(g.dtype).eps if g.dtype.itemsize <= 4 else 1e-14
    f = np.asarray(a, dtype=np.float64)
    f = f[np.isfinite(f)]
    scale = 1.0 + (float(np.max(np.abs(f))) if f.size else 0.0) + math.log(max(a.size, 1))
    with np.errstate(over="ignore"):
        rounded = want.astype(g.dtype).astype(np.float64)
    gv = g.astype(np.float64)
    np.testing.assert_array_equal(np.isnan(gv), np.isnan(rounded), err_msg="NaN positions")
    infm = np.isinf(gv) | np.isinf(rounded)
    np.testing.assert_array_equal(gv[infm], rounded[infm], err_msg="infinities")
    fin = ~infm & ~np.isnan(gv)
    np.testing.assert_allclose(gv[fin], want[fin], rtol=2 * eps, atol=2 * eps * scale)


# ---------------------------------------------------------------------------
# differential against SciPy
# ---------------------------------------------------------------------------

@given(data=st.data())
def test_logsumexp_differential_values(data):
    a = data.draw(arrays(dtypes=REAL_DTYPES))
    kw = _kwargs(data.draw(axes_for(a.ndim)), data.draw(st.booleans()))
    got = outcome(lambda: nr.logsumexp(a, **kw))
    want = outcome(lambda: sp_ref(a, **kw))
    if want[0] == "raise" or got[0] == "raise":
        assert_same_outcome(got, want)
        return
    assert np.shape(got[1]) == np.shape(want[1])
    assert isinstance(got[1], np.ndarray) == isinstance(want[1], np.ndarray)
    assert_close_to_reference(got[1], a, kw)


@given(data=st.data())
def test_logsumexp_differential_float64_tight(data):
    """float64 data: numreduce against SciPy directly, a few ulp apart."""
    a = data.draw(arrays(dtypes=[np.float64], min_dims=1, max_dims=3, max_side=8))
    kw = _kwargs(data.draw(axes_for(a.ndim)), data.draw(st.booleans()))
    got = nr.logsumexp(a, **kw)
    want = sp_ref(a, **kw)
    assert type(got) is type(want) and np.shape(got) == np.shape(want)
    assert_close_to_reference(got, a, kw)


@pytest.mark.parametrize("dtype", REAL_DTYPES + [np.longdouble], ids=str)
def test_logsumexp_result_dtype_and_type_equal_scipys(dtype):
    a = np.array([[1, 0, 1], [0, 0, 1]], dtype=dtype)
    for kw in ({}, {"axis": 0}, {"axis": 1, "keepdims": True}, {"axis": (0, 1)}):
        got, want = nr.logsumexp(a, **kw), sp_ref(a, **kw)
        assert type(got) is type(want), (kw, type(got), type(want))
        assert got.dtype == want.dtype, (kw, got.dtype, want.dtype)


@pytest.mark.parametrize("dtype", [np.float16, np.float32, np.float64, np.longdouble], ids=str)
def test_logsumexp_byteswapped_and_unaligned(dtype):
    rng = np.random.default_rng(2)
    a = (rng.standard_normal((5, 7)) * 4).astype(dtype)
    sw = a.astype(np.dtype(dtype).newbyteorder())
    buf = np.zeros(a.nbytes + 1, np.uint8)
    un = buf[1:].view(a.dtype).reshape(a.shape)
    un[...] = a
    at = a.T
    for axis in (None, 0, 1):
        want = nr.logsumexp(a, axis=axis)
        for arr in (sw, un, a[::-1], at):
            got = nr.logsumexp(arr, axis=axis if arr is not at else
                               {None: None, 0: 1, 1: 0}[axis])
            np.testing.assert_allclose(np.sort(np.ravel(got)), np.sort(np.ravel(want)),
                                       rtol=4 * np.finfo(np.asarray(want).dtype).eps)
        assert_close_to_reference(nr.logsumexp(sw, axis=axis), a, {"axis": axis})


# ---------------------------------------------------------------------------
# edge cases
# ---------------------------------------------------------------------------

EDGE_CASES = [
    [], [3.0], [-2.5], [inf], [-inf], [-inf, -inf], [nan], [inf, -inf], [-inf, inf],
    [inf, inf], [inf, nan], [nan, inf], [nan, -inf], [-inf, nan], [inf, 1.0, nan],
    [-inf, 2.0], [2.0, -inf], [-inf, -inf, 5.0], [1e300, 1e300], [1e308, 1e308],
    [-1e308, 1e308], [1e308, -inf, 1e308], [-1e300, -1e300], [-1e308, -1e308, -inf],
    [1e-300, -1e-300], [5e-324], [-5e-324, 5e-324], [0.0, 0.0], [-0.0], [0.0, -0.0],
    [1000.0, 1000.0], [-1000.0, -1000.5], [709.0, 710.0], [-745.0, 0.0], [-746.0, 0.0],
    [0.0] * 1023 + [inf], [inf] + [0.0] * 1030, [0.0] * 1500 + [nan], [nan] + [1.0] * 2000,
    [-inf] * 1030 + [1.0], [1.0] + [-inf] * 1030, [-inf] * 2050, [1e300] * 3000,
]


@pytest.mark.parametrize("case", EDGE_CASES, ids=lambda c: repr(c)[:40])
def test_logsumexp_edge_cases_like_scipy(case):
    a = np.array(case, dtype=np.float64)
    for arr in (a, a[::-1], np.repeat(a, 2)[::2]):
        got = nr.logsumexp(arr)
        want = sp_ref(arr)
        assert type(got) is type(want)
        if np.isnan(want) or np.isinf(want):
            np.testing.assert_array_equal(got, want)
        else:
            np.testing.assert_allclose(got, want, rtol=4e-16, atol=1e-300)


@pytest.mark.parametrize("dtype", [np.float16, np.float32], ids=str)
@pytest.mark.parametrize("case", [[], [3.0], [inf], [-inf], [-inf, -inf], [nan], [inf, -inf],
                                  [inf, nan], [-inf, 2.0], [60000.0, 60000.0],
                                  [-60000.0, 0.0], [1e-7, -1e-7]], ids=repr)
def test_logsumexp_edge_cases_low_precision(dtype, case):
    a = np.array(case, dtype=dtype)
    assert_close_to_reference(nr.logsumexp(a), a, {})


def test_logsumexp_empty_axes():
    for shape, axis in (((0, 3), 0), ((0, 3), 1), ((2, 0), 1), ((2, 0, 3), (0, 1)),
                        ((0,), 0), ((0,), None), ((2, 0), None), ((0, 0), None), ((0,), ())):
        a = np.zeros(shape)
        for keepdims in (False, True):
            got = nr.logsumexp(a, axis=axis, keepdims=keepdims)
            want = sp_ref(a, axis=axis, keepdims=keepdims)
            assert type(got) is type(want) and np.shape(got) == np.shape(want)
            np.testing.assert_array_equal(got, want)
            assert np.all(np.asarray(got) == -np.inf)
    # the cases SciPy itself handles: its own answer
    for shape, axis in (((0, 3), 0), ((0, 3), 1), ((0,), None), ((0,), 0)):
        a = np.zeros(shape)
        np.testing.assert_array_equal(nr.logsumexp(a, axis=axis), sp_logsumexp(a, axis=axis))


def test_logsumexp_integer_data():
    for dt in INT_DTYPES + [np.bool_]:
        info_max = 1 if dt is np.bool_ else min(np.iinfo(dt).max, 700)
        a = np.array([0, info_max, info_max, 1], dtype=dt)
        got, want = nr.logsumexp(a), sp_ref(a)
        assert got.dtype == want.dtype == np.float64
        np.testing.assert_allclose(got, want, rtol=4e-16)
    big = np.array([2**62, 2**62 - 1, -2**62], dtype=np.int64)
    np.testing.assert_allclose(nr.logsumexp(big), sp_ref(big), rtol=1e-15)
    u = np.array([2**64 - 1, 0], dtype=np.uint64)
    np.testing.assert_allclose(nr.logsumexp(u), sp_ref(u), rtol=1e-15)


def test_logsumexp_docstring_examples():
    assert float(nr.logsumexp(np.array([1000.0, 1000.0]))) == 1000.6931471805599
    np.testing.assert_allclose(nr.logsumexp(np.zeros((2, 3)), axis=1), [math.log(3)] * 2,
                               rtol=1e-15)


def test_logsumexp_unsupported_dtypes():
    for a in (np.array(["a"]), np.array([1], dtype="M8[s]"), np.array([None])):
        with pytest.raises(TypeError):
            nr.logsumexp(a)


# ---------------------------------------------------------------------------
# accuracy against math.fsum
# ---------------------------------------------------------------------------

def fsum_reference(x):
    """m + log(sum exp(x - m)) with an exactly rounded sum (math.fsum) and the
    largest term (exp(0) = 1 for each maximum) split off, so that log1p keeps
    the small remainder's accuracy."""
    x = [float(v) for v in x]
    m = max(x)
    n_max = sum(1 for v in x if v == m)
    rest = math.fsum(math.exp(v - m) for v in x if v != m)
    return m + math.log(n_max) + math.log1p(rest / n_max)


SCALES = [("normal", 0.0, 1.0), ("tiny", 0.0, 1e-3), ("wide", 0.0, 30.0), ("huge", 0.0, 1e5),
          ("offset", 500.0, 2.0), ("negative", -800.0, 3.0), ("big_offset", 1e6, 10.0),
          ("uniform_1e300", None, 1e300)]


@pytest.mark.parametrize("name,loc,scale", SCALES, ids=[s[0] for s in SCALES])
def test_logsumexp_accuracy_vs_fsum(name, loc, scale):
    rng = np.random.default_rng(zlib.crc32(name.encode()))  # hash(str) differs per process
    n = 10_000
    if loc is None:
        x = rng.uniform(-scale, scale, n)
    else:
        x = loc + scale * rng.standard_normal(n)
    want = fsum_reference(x)
    assert abs(want) >= 1.0          # a relative error is meaningful here
    for arr in (x, x[::-1], np.repeat(x, 2)[::2]):
        got = float(nr.logsumexp(arr))
        assert abs(got - want) <= 1e-15 * abs(want), (name, got, want, (got - want) / want)


def test_logsumexp_accuracy_rows():
    rng = np.random.default_rng(17)
    a = rng.standard_normal((20, 10_000)) * rng.uniform(0.1, 40, (20, 1)) + 3.0
    for axis in (1, 0):
        got = nr.logsumexp(a if axis == 1 else a.T, axis=axis)
        for i in range(a.shape[0]):
            want = fsum_reference(a[i])
            assert abs(got[i] - want) <= 1e-15 * abs(want), (i, got[i], want)


# ---------------------------------------------------------------------------
# the maxsumexp ufunc and its reduction
# ---------------------------------------------------------------------------

def test_maxsumexp_reduce_returns_max_and_sumexp_less_one(reduce_path):
    rng = np.random.default_rng(5)
    a = rng.standard_normal(3000) * 5
    mx, s = reduce_path(MSE, a)
    assert mx.dtype == s.dtype == np.float64
    assert mx == np.max(a)
    # the second output leaves out the maximum's own exp(0) = 1
    want = math.fsum(math.exp(v - float(mx)) for v in a) - 1
    assert abs(float(s) - want) <= 1e-13 * want


def test_maxsumexp_initials_are_minus_inf_and_minus_one(reduce_path):
    mx, s = reduce_path(MSE, np.array([], dtype=np.float64))
    assert (mx, s) == (-np.inf, -1.0)     # the empty sum is 0 = t + 1
    mx, s = reduce_path(MSE, np.empty((0, 4), dtype=np.float32), axis=0)
    np.testing.assert_array_equal(mx, [-np.inf] * 4)
    np.testing.assert_array_equal(s, [-1.0] * 4)
    assert mx.dtype == s.dtype == np.float64
    # a where mask works without an explicit initial (the reduction has one);
    # fully masked slices keep the initials
    a = np.array([[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]])
    where = np.array([[True, False, True], [False, False, False]])
    mx, s = reduce_path(MSE, a, axis=1, where=where)
    np.testing.assert_array_equal(mx, [3.0, -np.inf])
    np.testing.assert_allclose(s, [math.exp(-2.0), -1.0], rtol=1e-15)


@pytest.mark.parametrize("dtype", REAL_DTYPES + [np.longdouble], ids=str)
def test_maxsumexp_reduce_every_dtype(reduce_path, dtype):
    a = np.array([[1, 0, 1, 1], [0, 0, 0, 1]], dtype=dtype)
    mx, s = reduce_path(MSE, a, axis=1)
    out_dt = np.dtype(np.longdouble) if np.dtype(dtype) == np.longdouble else np.dtype(
        np.float64)
    assert mx.dtype == s.dtype == out_dt
    np.testing.assert_array_equal(mx, [1, 1])
    np.testing.assert_allclose(s.astype(np.float64), [2 + math.exp(-1), 3 * math.exp(-1)],
                               rtol=1e-15)


@given(data=st.data())
def test_maxsumexp_reduce_matches_components(reduce_path, data):
    a = data.draw(arrays(dtypes=[np.float64, np.float32, np.int16], min_dims=1, max_dims=3))
    axis = data.draw(axes_for(a.ndim))
    kw = {"axis": 0 if axis == "default" else axis}       # ufunc.reduce's default
    mx, s = reduce_path(MSE, a, **({} if axis == "default" else kw))
    f = a.astype(np.float64)
    with np.errstate(all="ignore"):
        want_mx = np.max(f, initial=-np.inf, **kw)
    # slices without NaN: the first output is exactly the maximum
    ok = ~np.isnan(want_mx)
    np.testing.assert_array_equal(np.asarray(mx)[ok], np.asarray(want_mx)[ok])
    with np.errstate(all="ignore"):
        lse = np.add(mx, np.log1p(s))
    want = np.asarray(sp_ref(f, **kw))
    np.testing.assert_allclose(lse, want, rtol=1e-14, atol=1e-14 * (1 + np.nanmax(
        np.abs(np.where(np.isfinite(f), f, 0)), initial=0)))


def test_maxsumexp_elementwise():
    x = np.array([1.0, -3.0, 2.0, -inf, inf, nan, 5.0])
    y = np.array([1.0, 4.0, -inf, -inf, 1.0, 0.0, 5.0])
    mx, s = MSE(x, y)
    np.testing.assert_array_equal(mx, np.maximum(x, y))
    assert np.isnan(mx[5]) and np.isnan(s[5])  # NaN propagates in both outputs
    np.testing.assert_allclose(s[[0, 1, 2, 6]], [1.0, math.exp(-7.0), 0.0, 1.0],
                               rtol=1e-15)
    assert s[3] == 1.0 and s[4] == 0.0
    m32 = MSE(np.float32(1.0), np.float32(2.0))
    assert all(np.asarray(r).dtype == np.float64 for r in m32)


@pytest.mark.parametrize("n", [7, 8, 9, 15, 16, 17, 24, 1023, 1024, 1025, 2053])
@pytest.mark.parametrize("special", [[nan], [inf], [-inf], [inf, nan], [-inf, inf], [nan, nan]],
                         ids=repr)
def test_logsumexp_specials_at_every_lane_position(n, special):
    """NaN / +-inf at the start, at vector-lane and block boundaries and at the
    end of contiguous float64 data (the vectorised max and exp paths)."""
    rng = np.random.default_rng(n)
    base = rng.standard_normal(n) * 3
    positions = sorted({0, 1, 3, 4, 7, min(8, n - 1), n // 2, n - 8 if n > 8 else 0, n - 1})
    for p in positions:
        a = base.copy()
        for k, v in enumerate(special):
            a[(p + k * (n // 3 + 1)) % n] = v
        for arr in (a, a[::-1]):
            got = nr.logsumexp(arr)
            want = sp_ref(arr)
            if np.isfinite(want):
                np.testing.assert_allclose(got, want, rtol=4e-16 * (1 + math.log(n)))
            else:
                np.testing.assert_array_equal(got, want, err_msg=f"n={n} p={p}")


def test_logsumexp_threaded_whole_array(two_threads):
    rng = np.random.default_rng(22)
    x = rng.standard_normal(2**22 + 3) * 5
    x[2**21 + 7] = 40.0                       # the maximum in the second chunk
    want = fsum_reference(x)
    got = float(nr.logsumexp(x))
    assert abs(got - want) <= 1e-15 * abs(want), (got, want)
    x[-1] = np.inf
    assert nr.logsumexp(x) == np.inf
    x[5] = np.nan
    assert np.isnan(nr.logsumexp(x))
    y = np.full(2**22 + 1, -np.inf)
    assert nr.logsumexp(y) == -np.inf
    mx, s = nr.reduce(MSE, np.full(2**22 + 1, 2.0), axis=None)
    assert (mx, s) == (2.0, 2.0**22)


# ---------------------------------------------------------------------------
# the documented error bound (docs/accuracy.md) against mpmath
# ---------------------------------------------------------------------------

mpmath = pytest.importorskip("mpmath", reason="mpmath (the exact reference) is not installed")


def mp_lse(x):
    """Exact log-sum-exp of finite float data (300-bit mpmath), as an mpf."""
    with mpmath.workprec(300):
        xs = [mpmath.mpf(float(v)) for v in np.asarray(x, dtype=np.float64).ravel()]
        m = max(xs)
        return m + mpmath.log(mpmath.fsum(mpmath.exp(v - m) for v in xs))


def lse_bound(x, L, k):
    """docs/accuracy.md: |got - L| <= u |L| + u (L - m)
    + u sum_{i != i*} w_i (k + 2 + |x_i - m|),  w_i = exp(x_i - L), u = 2**-53."""
    u = 2.0**-53
    f = np.asarray(x, dtype=np.float64).ravel()
    m = float(f.max())
    Lf = float(L)
    others = np.delete(f, int(np.argmax(f)))             # all but one maximum
    rest = math.fsum(np.exp(others - Lf) * (k + 2 + np.abs(others - m)))
    return u * abs(Lf) + u * (Lf - m) + u * rest


def k_contiguous(n, dtype=np.float64):
    return (144 if np.dtype(dtype) == np.float64 else 1040) + 4 * math.ceil(math.log2(max(n, 2)))


def _adversarial():
    rng = np.random.default_rng(2024)
    cases = {
        "near0_two": np.array([0.0, -40.0]),
        "near0_many": np.r_[0.0, np.full(999, -40.0)],
        "near0_745": np.r_[0.0, -745.0, -700.0, np.full(50, -60.0)],
        "near0_negmax": np.r_[-1e-3, np.full(30, -38.0)],
        "two_maxima": np.array([0.0, 0.0, -40.0]),
        "cancel_to_0": np.full(2, -math.log(2.0)),
        "many_equal": np.full(100_000, 3.0),
        "dominant_1e5": np.r_[1.0, np.zeros(99_999)],
        "huge_pos": np.array([1e308, 1e308 * (1 - 2**-52), 0.0]),
        "huge_neg": np.array([-1e308, -1e308, -1e300]),
        "huge_span": np.array([1e300, 0.0, -1e300]),
        "tiny": rng.standard_normal(5000) * 1e-300,
        "normal": rng.standard_normal(20_000),
        "wide": rng.standard_normal(20_000) * 30,
        "offset": 700 + rng.standard_normal(3000),
        "neg_offset": -700 + rng.standard_normal(3000),
        "heavy": rng.standard_cauchy(5000),
        # the runs of the axis-0 column path (32 rows, doubled while R * R
        # < n): one past a run, a max that grows in every run (the rescale
        # of the sum and its compensation), one that falls
        "run_plus_one": np.r_[np.zeros(32), 1.0],
        "rising_4097": np.linspace(-40.0, 0.0, 4097),
        "rising_steps": np.repeat(np.arange(40.0), 32) + rng.standard_normal(1280) * 1e-3,
        "falling_1025": np.linspace(0.0, -40.0, 1025),
        "dominant_1025": np.r_[1.0, np.zeros(1024)],
    }
    return cases


ADVERSARIAL = _adversarial()


def k_columns(rows):
    return 6 * math.sqrt(rows) + 24


@pytest.mark.parametrize("name", list(ADVERSARIAL))
def test_logsumexp_error_bound_vs_mpmath(name):
    """Every path meets docs/accuracy.md's bound: contiguous, strided and
    reversed float64 data (1-D, a row of a C array, a column of an F array)
    with k = 144 + 4 ceil(log2 n); columns of a 2-D C array (axis=0) with
    k = 6 sqrt(n) + 24 (three columns: the scalar loop where a vector has
    more lanes; nine: the vector kernel); other accumulator walks (3-D axis=0) with k = n + 4."""
    x = ADVERSARIAL[name]
    n = x.size
    L = mp_lse(x)
    b_c = lse_bound(x, L, k_contiguous(n))
    paths = {
        "1-D": (nr.logsumexp(x), b_c),
        "row of C": (nr.logsumexp(np.stack([x, x]), axis=1)[1], b_c),
        "column of F": (nr.logsumexp(np.asfortranarray(np.stack([x, x], axis=1)), axis=0)[1], b_c),
        "keepdims": (nr.logsumexp(x, keepdims=True)[0], b_c),
        "strided": (nr.logsumexp(np.repeat(x, 2)[::2]), b_c),
        "reversed": (nr.logsumexp(x[::-1]), b_c),
        "strided rows": (nr.logsumexp(np.repeat(np.stack([x, x]), 3, axis=1)[:, ::3],
                                      axis=1)[1], b_c),
        "column of C": (nr.logsumexp(np.stack([x, x, x], axis=1), axis=0)[2],
                        lse_bound(x, L, k_columns(n))),
        # 9 columns: the vector kernel (one vector, then the overlapping last)
        "columns of C": (nr.logsumexp(np.stack([x] * 9, axis=1), axis=0)[[0, 8]],
                         lse_bound(x, L, k_columns(n))),
        "3-D axis 0": (nr.logsumexp(np.broadcast_to(x[:, None, None], (n, 2, 2)).copy(),
                                    axis=0)[1, 1], lse_bound(x, L, n + 4)),
    }
    for path, (got, bound) in paths.items():
        for g in np.atleast_1d(got):
            err = abs(mpmath.mpf(float(g)) - L)
            assert err <= bound, (name, path, float(g), float(L), float(err), bound)


def test_logsumexp_long_columns_and_strided_like_contiguous():
    """x = [1, 0, ..., 0] down the columns of a C array (the sum over rows
    was a running sum: 1.2e-12 relative at 1e6 rows, as scipy's np.sum over
    axis 0) and as a strided view (sequential buffers: 7.5e-15 at 1e7)."""
    rows = 10**6
    with mpmath.workprec(200):
        want = mpmath.log(mpmath.e + (rows - 1))
    m = np.zeros((rows, 4))
    m[0] = 1.0
    got = nr.logsumexp(m, axis=0)
    for g in got:
        err = abs(mpmath.mpf(float(g)) - want)
        assert err <= 16 * 2.0**-53 * abs(want), (float(g), float(err / want))
    n = 10**7
    with mpmath.workprec(200):
        want = mpmath.log(mpmath.e + (n - 1))
    x = np.zeros(2 * n)
    x[0] = 1.0
    got = nr.logsumexp(x[::2])
    assert abs(mpmath.mpf(float(got)) - want) <= 4 * 2.0**-53 * abs(want)


def test_logsumexp_near_zero_keeps_precision():
    """SciPy gh-18295: logsumexp([0, -40]) = log1p(exp(-40)), not log(1.0) = 0."""
    want = float(mp_lse([0.0, -40.0]))
    assert want == 4.248354255291589e-18
    x = np.array([0.0, -40.0])
    assert nr.logsumexp(x) == want == sp_logsumexp(x)
    m = np.array([[0.0, -40.0], [-40.0, 0.0]])
    np.testing.assert_array_equal(nr.logsumexp(m, axis=1), [want, want])
    np.testing.assert_array_equal(nr.logsumexp(m, axis=0), [want, want])
    np.testing.assert_array_equal(nr.logsumexp(np.asfortranarray(m), axis=0), [want, want])
    np.testing.assert_array_equal(nr.logsumexp(m, axis=1, keepdims=True), [[want], [want]])
    np.testing.assert_array_equal(nr.logsumexp(np.repeat(m, 2, axis=1)[:, ::2], axis=1),
                                  [want, want])
    assert nr.logsumexp(x.astype(np.float32)) == np.float32(want)
    assert nr.logsumexp(x.astype(np.float32)).dtype == np.float32
    assert abs(float(nr.logsumexp(x.astype(np.longdouble))) - want) <= 1e-15 * want
    # long arrays: a block of many small terms beside one maximum
    y = np.r_[0.0, np.full(10_000, -40.0)]
    wy = float(mp_lse(y))
    assert abs(float(nr.logsumexp(y)) - wy) <= 1e-14 * wy
    assert abs(float(nr.logsumexp(np.stack([y, y], axis=1), axis=0)[0]) - wy) <= 1e-12 * wy
    # the reduction's state: t = sum of exp(x - m) less the maximum's own 1
    mx, t = nr.reduce(MSE, x)
    assert (mx, t) == (0.0, math.exp(-40.0))


@pytest.mark.parametrize("n", [10**6, 10**7])
def test_logsumexp_one_dominant_value_long_array(n):
    """Block results merge pairwise: the relative error stays ~1e-16
    (it was 1.6e-14 at 1e7 with the blocks added one after another)."""
    x = np.zeros(n)
    x[0] = 1.0
    with mpmath.workprec(200):
        want = mpmath.log(mpmath.e + (n - 1))
    got = nr.logsumexp(x)
    err = abs(mpmath.mpf(float(got)) - want)
    assert err <= lse_bound_closed(n, want), (float(got), float(want), float(err / want))
    assert err <= 4 * 2.0**-53 * abs(want)


def lse_bound_closed(n, L):
    """lse_bound for x = [1, 0, ..., 0] without materialising the weights."""
    u = 2.0**-53
    Lf = float(L)
    rest = (n - 1) * math.exp(-Lf) * (k_contiguous(n) + 3)
    return u * abs(Lf) + u * (Lf - 1.0) + u * rest


@pytest.mark.parametrize("dtype", [np.float32, np.float16])
def test_logsumexp_low_precision_within_half_ulp_plus_bound(dtype):
    rng = np.random.default_rng(8)
    for x in (np.r_[0.0, np.full(99, -12.0)], rng.standard_normal(3000) * 4,
              np.r_[3.0, np.zeros(20_000)]):
        xd = x.astype(dtype)
        L = mp_lse(xd)
        got = nr.logsumexp(xd)
        assert got.dtype == dtype
        u_out = 2.0 ** -(np.finfo(dtype).nmant + 1)
        bound = u_out * abs(float(L)) + lse_bound(xd, L, k_contiguous(x.size, dtype))
        tiny = float(np.finfo(dtype).smallest_subnormal)
        assert abs(mpmath.mpf(float(got)) - L) <= bound + tiny, (float(got), float(L))


# ---------------------------------------------------------------------------
# one NaN rule on every internal path
# ---------------------------------------------------------------------------

SPECIAL_CASES = [[nan], [nan, nan, nan], [1.0, nan, 2.0], [float(np.copysign(nan, -1.0)), 1.0], [inf, nan], [-inf, nan], [nan, inf],
                 [inf], [inf, inf, 1.0], [-inf], [-inf, -inf], [0.0, -inf], [1e308, -1e308],
                 [-1e308, -1e308], [1e308, 1e308, 1.0], [-inf, 1e308, nan], [-1e308, inf],
                 [3.0, 3.0, -1e308]]


def _paths_1d(a):
    """maxsumexp over the 1-D data `a` through every internal path."""
    A = np.tile(a[:, None], (1, 3))                 # C order: axis=0 walks columns
    out = {
        "contiguous": nr.reduce(MSE, a),
        "strided": nr.reduce(MSE, np.repeat(a, 2)[::2]),
        "reversed": nr.reduce(MSE, a[::-1]),
        "axis0 C": tuple(r[1] for r in nr.reduce(MSE, A, axis=0)),
        "axis0 F": tuple(r[1] for r in nr.reduce(MSE, np.asfortranarray(A), axis=0)),
        "axis1 C": tuple(r[1] for r in nr.reduce(MSE, np.ascontiguousarray(A.T), axis=1)),
        "axis0 strided": tuple(r[1] for r in nr.reduce(MSE, np.tile(A, (1, 2))[:, ::2], axis=0)),
        "axis None 2-D": nr.reduce(MSE, a[:, None], axis=None),
        "axis None 2-D F": nr.reduce(MSE, np.asfortranarray(np.tile(a[:, None], (1, 2)))[:, 1:],
                                     axis=None),
        "keepdims": tuple(r.ravel()[0] for r in nr.reduce(MSE, a, keepdims=True)),
    }
    return out


@pytest.mark.parametrize("case", SPECIAL_CASES, ids=repr)
@pytest.mark.parametrize("n", [1, 3, 37, 1500])
def test_maxsumexp_every_path_same_special_values(case, n):
    """NaN propagates in the max (as np.max) and in t on every path; +-inf and
    +-1e308 give the same state everywhere; logsumexp agrees with SciPy."""
    a = np.resize(np.array(case), max(n, len(case)))
    want_mx = np.max(a)
    L = sp_ref(a)
    results = _paths_1d(a)
    for path, (mx, t) in results.items():
        if np.isnan(want_mx):
            assert np.isnan(mx) and np.isnan(t), (path, mx, t)
        else:
            assert mx == want_mx, (path, mx, want_mx)
            assert not np.isnan(t), (path, t)
    ref_t = results["contiguous"][1]
    for path, (mx, t) in results.items():
        if not np.isnan(ref_t):
            np.testing.assert_allclose(t, ref_t, rtol=1e-13, err_msg=path)
    got = nr.logsumexp(a)
    if np.isnan(L):
        assert np.isnan(got)
    else:
        assert got == L or abs(got - L) <= 1e-14 * abs(L), (got, L)
    for axis, arr in ((0, np.tile(a[:, None], (1, 3))), (1, np.tile(a, (2, 1)))):
        np.testing.assert_allclose(nr.logsumexp(arr, axis=axis), sp_ref(arr, axis=axis),
                                   rtol=1e-14)


def test_maxsumexp_all_nan_is_nan_on_every_path(two_threads):
    """The issue's two paths, and the threaded chunk merge, all give NaN."""
    mx, t = nr.reduce(MSE, np.array([nan]))
    assert np.isnan(mx) and np.isnan(t)
    mx, t = nr.reduce(MSE, np.full((1, 3), nan), axis=0)
    assert np.isnan(mx).all() and np.isnan(t).all()
    big = np.zeros(2**22 + 5)
    big[2**21 + 3] = nan                       # in the second thread's chunk
    mx, t = nr.reduce(MSE, big, axis=None)
    assert np.isnan(mx) and np.isnan(t)
    assert np.isnan(nr.logsumexp(big))
    big[:] = -inf
    assert nr.reduce(MSE, big, axis=None) == (-inf, big.size - 1.0)


# ---------------------------------------------------------------------------
# complex input
# ---------------------------------------------------------------------------

COMPLEX_VALUES = [0, 1, -1, 1j, -1j, 1 + 1j, 3.5 - 2j, inf, -inf, nan, complex(inf, 1),
                  complex(-inf, 1), complex(1, inf), complex(1, nan), complex(nan, 1),
                  complex(inf, inf), complex(-inf, inf), complex(inf, nan), complex(0, 4),
                  complex(2, 7), complex(2, -7), complex(1e308, 3), complex(-40, 0)]


def assert_complex_like_scipy(got, want, dtype):
    """Same type and dtype, same NaN pattern in each part, values within a few
    ulp (SciPy rounds the wrapped imaginary part of clongdouble results
    through float64, so the tolerance there is float64's)."""
    assert type(got) is type(want) and np.asarray(got).dtype == np.asarray(want).dtype
    rtol = 4e-7 if np.dtype(dtype) == np.complex64 else 1e-14
    for g, w in ((np.real(got), np.real(want)), (np.imag(got), np.imag(want))):
        np.testing.assert_array_equal(np.isnan(g), np.isnan(w))
        np.testing.assert_allclose(g, w, rtol=rtol, atol=1e-300)


@pytest.mark.parametrize("dtype", [np.complex64, np.complex128, np.clongdouble])
def test_logsumexp_complex_special_values_like_scipy(dtype):
    """Every pair of special complex values (inf, NaN in either part, large
    real parts, a result near a branch cut) against scipy.special.logsumexp."""
    import itertools
    for r in (1, 2):
        for combo in itertools.product(COMPLEX_VALUES, repeat=r):
            with np.errstate(over="ignore"):        # 1e308 overflows complex64: inf
                a = np.array(combo, dtype=dtype)
            want = sp_ref(a)
            with np.errstate(all="ignore"):
                got = nr.logsumexp(a)
            assert_complex_like_scipy(got, want, dtype)


@given(data=st.data())
def test_logsumexp_complex_differential(data):
    re = data.draw(arrays(dtypes=[np.float64], min_dims=1, max_dims=3))
    im = data.draw(st.sampled_from([0.0, 1.0, -3.0, 10.0, np.pi]))
    a = re + 1j * im * np.cos(np.arange(re.size)).reshape(re.shape)
    axis = data.draw(axes_for(a.ndim))
    keepdims = data.draw(st.booleans())
    kw = _kwargs(axis, keepdims)
    want = sp_ref(a, **kw)
    with np.errstate(all="ignore"):
        got = nr.logsumexp(a, **kw)
    assert np.shape(got) == np.shape(want)
    assert_complex_like_scipy(got, want, np.complex128)


def test_logsumexp_complex_axes_and_empty():
    rng = np.random.default_rng(3)
    a = rng.standard_normal((3, 4, 5)) + 5j * rng.standard_normal((3, 4, 5))
    for axis in (None, 0, 1, 2, -1, (0, 2)):
        for keepdims in (False, True):
            assert_complex_like_scipy(nr.logsumexp(a, axis=axis, keepdims=keepdims),
                                      sp_ref(a, axis=axis, keepdims=keepdims), np.complex128)
    for shape, axis in (((0,), None), ((0, 3), 0), ((3, 0), 1)):
        e = np.zeros(shape, complex)
        np.testing.assert_array_equal(nr.logsumexp(e, axis=axis), sp_ref(e, axis=axis))
    big = a.astype(np.complex64).astype(np.dtype(np.complex64).newbyteorder())
    assert_complex_like_scipy(nr.logsumexp(big, axis=1), sp_ref(big, axis=1), np.complex64)
    with pytest.raises(np.exceptions.AxisError):
        nr.logsumexp(a, axis=3)
