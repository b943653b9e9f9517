"""The C fast path of the user functions (src/numreduce/fastpath.cpp) against
the general path (numreduce._api.<name>, the Python functions it falls back
to): bit-for-bit the same values, dtypes, shapes, scalar types, warnings and
exceptions on every input -- sizes around the vector widths, misaligned,
strided, reversed and byte-swapped views, NaN at every position, all-NaN and
empty slices, 0-d input, out=, keepdims, every dtype, every axis.  Plus: the
common call really takes the fast path (no Python frame), and the callables
look like the functions (signature, doc, pickling, NEP 18's func)."""

import copy
import inspect
import pickle
import pydoc
import re
import sys
import warnings

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import numreduce as nr
import numreduce._api as api

NAMES = ["minmax", "nanminmax", "argminmax", "nanargminmax", "meanvar", "meanstd", "nanmeanvar",
         "logsumexp", "fsum"]
PAIRS = [(getattr(nr, n), getattr(api, n)) for n in NAMES]
IDS = NAMES

DTYPES = ["bool", "int8", "uint8", "int16", "uint16", "int32", "uint32", "int64", "uint64",
          "float16", "float32", "float64", "longdouble", "complex64", "complex128",
          "datetime64[s]", "timedelta64[ms]"]
SIZES = list(range(0, 71)) + [127, 128, 129, 130, 1000]
SHORT_SIZES = [0, 1, 2, 7, 8, 9, 15, 16, 17, 31, 32, 33, 63, 64, 65, 129, 1000]


def outcome(f, *args, **kwargs):
    """('ok', result) or ('raise', type, message), and the warnings."""
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        try:
            res = ("ok", f(*args, **kwargs))
        except Exception as e:  # noqa: BLE001 - the exception is the outcome
            res = ("raise", type(e), str(e))
    return res, [(w.category, str(w.message)) for w in caught]


def _value_bytes(a):
    """The bytes that hold the values: x87 extended precision keeps 10
    significant bytes in a 16-byte long double (per real part), the rest is
    padding whose content is arbitrary."""
    a = np.ascontiguousarray(a)
    real = np.dtype(a.dtype.char.lower()) if a.dtype.kind == "c" else a.dtype
    if a.dtype.kind in "fc" and real.itemsize > 8 and np.finfo(real).nmant == 63:
        parts = a.view(real.newbyteorder("=")).view(np.uint8).reshape(-1, real.itemsize)
        return parts[:, :10].tobytes()
    return a.tobytes()


def same_value(g, w, what):
    assert type(g) is type(w), (what, type(g), type(w))
    if isinstance(w, tuple):
        assert len(g) == len(w), what
        for i, (gi, wi) in enumerate(zip(g, w)):
            same_value(gi, wi, f"{what}[{i}]")
        return
    if isinstance(w, (np.ndarray, np.generic)):
        ga, wa = np.asarray(g), np.asarray(w)
        assert ga.dtype == wa.dtype and ga.shape == wa.shape, (what, ga.dtype, wa.dtype,
                                                              ga.shape, wa.shape)
        # bit for bit (NaN payloads and signed zeros included)
        assert _value_bytes(ga) == _value_bytes(wa), (what, g, w)
        return
    assert g == w, (what, g, w)


def check_agree(name, a, **kwargs):
    """nr.<name> and numreduce._api.<name> on the same call agree exactly
    (an out= is given to each as a fresh copy)."""
    fast, gen = getattr(nr, name), getattr(api, name)
    kw_fast, kw_gen = dict(kwargs), dict(kwargs)
    if "out" in kwargs and kwargs["out"] is not None:
        kw_fast["out"] = tuple(None if o is None else o.copy() for o in kwargs["out"])
        kw_gen["out"] = tuple(None if o is None else o.copy() for o in kwargs["out"])
    a_copy = a.copy() if isinstance(a, np.ndarray) else a
    got, got_w = outcome(fast, a, **kw_fast)
    want, want_w = outcome(gen, a, **kw_gen)
    what = f"{name}({getattr(a, 'dtype', type(a))}, shape {np.shape(a)}, {kwargs})"
    assert got[0] == want[0], (what, got, want)
    if got[0] == "raise":
        assert got[1:] == want[1:], (what, got, want)
    else:
        same_value(got[1], want[1], what)
        if "out" in kwargs and kwargs["out"] is not None:
            for i, (go, wo) in enumerate(zip(kw_fast["out"], kw_gen["out"])):
                if wo is not None:
                    same_value(go, wo, f"{what} out[{i}]")
                    assert got[1][i] is go
    assert got_w == want_w, (what, got_w, want_w)
    if isinstance(a, np.ndarray):
        assert a.tobytes() == a_copy.tobytes()  # input untouched


def data(dtype, n, rng, scale=1.0):
    dt = np.dtype(dtype)
    if dt.kind == "b":
        return rng.integers(0, 2, n).astype(dt)
    if dt.kind in "iu":
        info = np.iinfo(dt)
        lo, hi = max(info.min, -50), min(info.max, 50)
        return rng.integers(lo, hi, n, endpoint=True).astype(dt)
    if dt.kind in "mM":
        return rng.integers(-50, 50, n).astype(dt)
    if dt.kind == "c":
        return (rng.standard_normal(n) * scale + 1j * rng.standard_normal(n)).astype(dt)
    with np.errstate(over="ignore"):  # float16 * 1e8: inf
        return (rng.standard_normal(n) * scale + 3).astype(dt)


def layouts(x):
    """The same values as contiguous, misaligned, byte-swapped, strided and
    reversed arrays (1-D)."""
    n, dt = x.shape[0], x.dtype
    out = {"contiguous": x}
    if dt.itemsize > 1 and dt.kind not in "mM":
        raw = np.zeros(n * dt.itemsize + 1, np.uint8)
        mis = raw[1:].view(dt)
        mis[...] = x
        assert n == 0 or not mis.flags.aligned
        out["misaligned"] = mis
    if dt.byteorder != "|" and dt.itemsize > 1:
        out["byteswapped"] = x.astype(dt.newbyteorder())
    strided = np.empty(2 * n, dt)
    strided[::2] = x
    out["strided"] = strided[::2]
    out["reversed"] = x[::-1].copy()[::-1]
    return out


def kwargs_for(name, axis):
    kw = [{}] if axis is None else [{"axis": axis}]
    if name in ("meanvar", "meanstd", "nanmeanvar"):
        kw += [dict(kw[0], ddof=1), dict(kw[0], ddof=2.5)]
    return kw


# ---------------------------------------------------------------------------
# sizes around the vector widths, every dtype, every 1-D layout
# ---------------------------------------------------------------------------

@pytest.mark.parametrize("name", NAMES)
@pytest.mark.parametrize("dtype", DTYPES)
def test_sizes_dtypes_layouts(name, dtype):
    rng = np.random.default_rng(len(name) * 100 + DTYPES.index(dtype))
    for n in SIZES:
        x = data(dtype, n, rng)
        for label, a in layouts(x).items():
            if label in ("misaligned", "byteswapped") and n not in SHORT_SIZES:
                continue  # (both take the general path at once: fewer sizes)
            for axis in (None, 0, -1):
                for kw in kwargs_for(name, axis):
                    check_agree(name, a, **kw)


@pytest.mark.parametrize("name", NAMES)
@pytest.mark.parametrize("dtype", ["float16", "float32", "float64", "complex128"])
def test_nan_at_every_position(name, dtype):
    """NaN at the first, last and every position, two NaNs, all NaN."""
    rng = np.random.default_rng(7)
    for n in list(range(1, 40)) + [64, 65, 127, 130]:
        x = data(dtype, n, rng)
        positions = range(n) if n < 40 else [0, 1, n // 2, n - 2, n - 1]
        for p in positions:
            a = x.copy()
            a[p] = np.nan
            check_agree(name, a)
            if p + 3 < n:
                a[p + 3] = np.nan
                check_agree(name, a)
        check_agree(name, np.full(n, np.nan, dtype))
        check_agree(name, np.full(n, np.nan, dtype), axis=0)


@pytest.mark.parametrize("name", NAMES)
@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_special_values(name, dtype):
    cases = [[np.inf, 1.0], [-np.inf, 1.0], [np.inf, -np.inf], [-np.inf, -np.inf],
             [np.inf, np.inf], [0.0, -0.0], [-0.0, 0.0], [1e30, -1e30, 1e30],
             [3e38, 3e38, -3e38], [1e-40, -1e-40], [np.finfo(dtype).max] * 3,
             [np.finfo(dtype).tiny, 1.0], [1e300, 1e300] if dtype == "float64" else [1e20]]
    for c in cases:
        a = np.array(c, dtype=dtype)
        check_agree(name, a)
        check_agree(name, np.tile(a, (3, 1)), axis=0)
        check_agree(name, np.tile(a, (3, 1)), axis=1)


# ---------------------------------------------------------------------------
# 2-D: every axis, C order, F order, transposed and sliced views
# ---------------------------------------------------------------------------

@pytest.mark.parametrize("name", NAMES)
@pytest.mark.parametrize("dtype", ["int32", "uint8", "float32", "float64", "float16", "bool"])
def test_2d_axes_and_orders(name, dtype):
    rng = np.random.default_rng(3)
    for shape in [(1, 1), (1, 7), (7, 1), (3, 5), (64, 3), (3, 65), (130, 9), (9, 130),
                  (0, 4), (4, 0), (100, 1000)]:
        x = data(dtype, int(np.prod(shape)), rng).reshape(shape)
        views = {"C": x, "F": np.asfortranarray(x), "T": x.T, "sliced": x[:, ::2],
                 "rows": x[::2]}
        for a in views.values():
            for axis in (None, 0, 1, -1, -2, 2, -3):
                for kw in kwargs_for(name, axis):
                    check_agree(name, a, **kw)
            if dtype.startswith("float") and a.size:
                b = a.copy()
                b.flat[:: max(1, b.size // 5)] = np.nan
                b[0] = np.nan  # an all-NaN row
                for axis in (None, 0, 1):
                    check_agree(name, b, axis=axis)


def test_3d_and_0d():
    rng = np.random.default_rng(5)
    x = rng.standard_normal((3, 4, 5))
    for name in NAMES:
        for a in (x, x[:, ::2], np.array(2.5), np.array(7, np.int16), np.array(np.nan)):
            for axis in (None, 0, 1, 2, -1, (0, 1), 5):
                for kw in kwargs_for(name, axis):
                    check_agree(name, a, **kw)


# ---------------------------------------------------------------------------
# the options the fast path hands over: out=, keepdims, where, initial, dtype
# ---------------------------------------------------------------------------

def test_options_take_the_general_path_and_agree():
    rng = np.random.default_rng(11)
    x = rng.standard_normal((6, 70)).astype(np.float32)
    x[2, 5] = np.nan
    for axis in (None, 0, 1):
        for keepdims in (False, True, 0, 1, np.True_):
            for name in NAMES:
                check_agree(name, x, axis=axis, keepdims=keepdims)
    for axis, shape in ((None, ()), (0, (70,)), (1, (6,))):
        check_agree("minmax", x, axis=axis, out=(np.empty(shape, np.float32), None))
        check_agree("nanminmax", x, axis=axis, out=(np.empty(shape, np.float64),
                                                    np.empty(shape, np.float32)))
        check_agree("argminmax", x, axis=axis, out=(np.empty(shape, np.intp),
                                                    np.empty(shape, np.int64)))
        check_agree("nanargminmax", x, axis=axis, out=(np.empty(shape, np.float32), None))
        check_agree("minmax", x, axis=axis, out=None)
    check_agree("minmax", x, initial=(0.0, 1.0))
    check_agree("minmax", x, where=x > 0, initial=(np.inf, -np.inf))
    check_agree("minmax", x, where=True)
    check_agree("nanminmax", x, axis=1, where=np.ones(x.shape, bool), initial=0.0)
    for name in ("meanvar", "meanstd", "nanmeanvar"):
        for kw in ({"dtype": np.float64}, {"dtype": np.float32}, {"dtype": "f2"},
                   {"where": x > 0}, {"where": True}, {"ddof": np.int64(1)}, {"ddof": 70},
                   {"ddof": 6, "axis": 0}, {"ddof": -1}, {"ddof": 2**60}, {"ddof": True},
                   {"ddof": "1"}, {"dtype": None}, {"axis": np.int64(1)}):
            check_agree(name, x, **kw)
    for kw in ({"dtype": np.float64}, {"dtype": np.float32}, {"dtype": None}, {"dtype": int}):
        check_agree("fsum", x, **kw)


def test_bad_calls_agree():
    x = np.arange(12.0).reshape(3, 4)
    for name in NAMES:
        for args, kw in [((), {"axis": 1.0}), ((), {"axis": "0"}), ((), {"bogus": 1}),
                         ((0,), {"axis": 0}), ((), {"axis": 2**70}), ((), {"keepdims": "yes"}),
                         ((0, 0, 0, 0, 0, 0, 0, 0), {})]:
            got, gw = outcome(getattr(nr, name), x, *args, **kw)
            want, ww = outcome(getattr(api, name), x, *args, **kw)
            assert got[0] == want[0] and got[1:2] == want[1:2], (name, args, kw, got, want)
            assert (got[0] == "ok") or got[2] == want[2] or name in got[2], (got, want)
        with pytest.raises(TypeError):
            getattr(nr, name)()
        assert outcome(getattr(nr, name), a=x)[0][0] == "ok"


def test_array_likes_and_subclasses_agree():
    class Sub(np.ndarray):
        pass

    x = np.array([3.0, 1.0, np.nan, 2.0])
    for name in NAMES:
        for a in ([3.0, 1.0, 2.0], (1, 2, 3), 5.0, x.view(Sub), np.ma.masked_invalid(x)):
            got, gw = outcome(getattr(nr, name), a)
            want, ww = outcome(getattr(api, name), a)
            assert got[0] == want[0], (name, a, got, want)
            if got[0] == "ok":
                for g, w in zip(got[1] if isinstance(got[1], tuple) else [got[1]],
                                want[1] if isinstance(want[1], tuple) else [want[1]]):
                    assert type(g) is type(w)
                    np.testing.assert_array_equal(np.ma.getdata(g), np.ma.getdata(w))
            assert gw == ww


# ---------------------------------------------------------------------------
# hypothesis: shapes, dtypes, views, NaN patterns, axes
# ---------------------------------------------------------------------------

@st.composite
def cases(draw):
    name = draw(st.sampled_from(NAMES))
    dtype = draw(st.sampled_from(["bool", "int8", "uint16", "int32", "int64", "uint64",
                                  "float16", "float32", "float64"]))
    ndim = draw(st.integers(1, 2))
    shape = tuple(draw(st.lists(st.integers(0, 70), min_size=ndim, max_size=ndim)))
    rng = np.random.default_rng(draw(st.integers(0, 2**32 - 1)))
    scale = draw(st.sampled_from([1.0, 1e-3, 1e8]))
    a = data(dtype, int(np.prod(shape)), rng, scale).reshape(shape)
    if a.dtype.kind == "f" and a.size:
        frac = draw(st.sampled_from([0.0, 0.1, 0.9, 1.0]))
        a[rng.random(shape) < frac] = np.nan
    view = draw(st.sampled_from(["C", "F", "T", "step", "neg", "swap", "unaligned"]))
    if view == "F":
        a = np.asfortranarray(a)
    elif view == "T":
        a = a.T
    elif view == "step":
        a = a[..., ::2]
    elif view == "neg":
        a = a[::-1]
    elif view == "swap" and a.dtype.itemsize > 1:
        a = a.astype(a.dtype.newbyteorder())
    elif view == "unaligned" and a.dtype.itemsize > 1:
        raw = np.zeros(a.nbytes + 1, np.uint8)
        b = raw[1:].view(a.dtype).reshape(a.shape)
        b[...] = a
        a = b
    axis = draw(st.sampled_from([None, 0, -1, 1, -2]))
    kw = {} if axis is None else {"axis": axis}
    if name in ("meanvar", "meanstd", "nanmeanvar"):
        kw["ddof"] = draw(st.sampled_from([0, 1, 3, 0.5]))
    if draw(st.booleans()):
        kw["keepdims"] = draw(st.booleans())
    return name, a, kw


@settings(max_examples=2 * settings.default.max_examples, deadline=None)
@given(cases())
def test_hypothesis_paths_agree(case):
    name, a, kw = case
    check_agree(name, a, **kw)


# ---------------------------------------------------------------------------
# the fast path is taken; the callables look like the functions
# ---------------------------------------------------------------------------

def python_calls(f, *args, **kwargs):
    """Names of the Python functions entered during f(*args, **kwargs)."""
    seen = []

    def prof(frame, event, arg):
        if event == "call":
            seen.append(frame.f_code.co_name)

    sys.setprofile(prof)
    try:
        f(*args, **kwargs)
    finally:
        sys.setprofile(None)
    return seen


@pytest.mark.parametrize("name", NAMES)
def test_common_calls_run_in_c(name):
    f = getattr(nr, name)
    rng = np.random.default_rng(0)
    for dtype in ("float32", "float64", "int64"):
        a = data(dtype, 1000, rng)
        b = data(dtype, 1000, rng).reshape(100, 10)
        kw = {"ddof": 1} if "mean" in name else {}
        for args, k in (((a,), {}), ((a,), {"axis": 0}), ((a, -1), kw),
                        ((b,), dict(kw, axis=0)), ((b,), {"axis": 1}), ((b,), {})):
            assert python_calls(f, *args, **k) == [], (name, dtype, args, k)
    # the general path: a Python frame
    assert python_calls(f, [1.0, 2.0]) != []
    assert python_calls(f, a, keepdims=True) != []


FALLBACKS = [
    # (name, array, kwargs): results needing a warning or an error, options
    ("nanminmax", np.array([np.nan, np.nan]), {}),
    ("nanminmax", np.array([[1.0, np.nan], [2.0, np.nan]]), {"axis": 0}),
    ("nanargminmax", np.array([np.nan, np.nan]), {}),
    ("nanmeanvar", np.array([np.nan, np.nan]), {}),
    ("nanmeanvar", np.array([[1.0, np.nan], [2.0, np.nan]]), {"axis": 0}),
    ("meanvar", np.array([], np.float64), {}),
    ("meanvar", np.array([1.0]), {"ddof": 1}),
    ("meanstd", np.ones((3, 2)), {"axis": 0, "ddof": 3}),
    ("minmax", np.array([], np.float32), {}),
    ("argminmax", np.array([], np.float32), {}),
    ("fsum", np.array([], np.float32), {}),
    ("logsumexp", np.array([], np.float32), {}),
    ("logsumexp", np.ones(3, np.float16), {}),
    ("minmax", np.ones((2, 2, 2)), {"axis": 0}),
    ("fsum", np.ones(3), {"keepdims": True}),
    ("argminmax", np.ones(3), {"out": (None, None)}),
]


@pytest.mark.parametrize("name,a,kw", FALLBACKS, ids=[f[0] for f in FALLBACKS])
def test_fallbacks_run_the_general_path(name, a, kw):
    calls = python_calls(outcome, getattr(nr, name), a, **kw)
    assert name in calls, (name, a, calls)
    check_agree(name, a, **kw)


@pytest.mark.parametrize("name", NAMES)
def test_looks_like_the_function(name):
    f, g = getattr(nr, name), getattr(api, name)
    assert f is not g
    assert f.__name__ == f.__qualname__ == name
    assert f.__module__ == "numreduce"
    assert f.__doc__ == g.__doc__ and f.__doc__
    assert f.__wrapped__ is g
    assert inspect.signature(f) == inspect.signature(g)
    assert callable(f._implementation)
    assert pickle.loads(pickle.dumps(f)) is f
    assert copy.deepcopy(f) is f and copy.copy(f) is f
    assert name in repr(f)
    text = pydoc.render_doc(f, renderer=pydoc.plaintext)
    # pydoc wraps a long signature over several lines from Python 3.13 on:
    # compare without the layout's white space
    flat = re.sub(r"\s+", "", text)
    assert re.sub(r"\s+", "", f"{name}{inspect.signature(g)}") in flat
    assert re.sub(r"\s+", "", g.__doc__.splitlines()[0]) in flat


def test_nep18_sees_the_public_object():
    class Duck:
        def __array_function__(self, func, types, args, kwargs):
            return ("duck", func)

    for name in NAMES:
        tag, func = getattr(nr, name)(Duck())
        assert tag == "duck" and func is getattr(nr, name)


def test_no_reference_leaks():
    a = np.random.default_rng(0).standard_normal(300)
    b = a.reshape(30, 10)
    for name in NAMES:
        f = getattr(nr, name)
        for x, kw in ((a, {}), (b, {"axis": 0}), (b, {"axis": 1}),
                      (np.array([np.nan, 1.0]), {}), (np.array([np.nan]), {})):
            for _ in range(5):
                outcome(f, x, **kw)
            before = sys.getrefcount(x)
            for _ in range(200):
                outcome(f, x, **kw)
            assert sys.getrefcount(x) == before, name


def test_threads_setting_agrees():
    """Large inputs (more than one engine chunk) with several threads."""
    a = np.random.default_rng(2).standard_normal(5_000_000)
    old = nr.get_num_threads()
    try:
        for t in (1, 2):
            nr.set_num_threads(t)
            for name in ("minmax", "meanvar", "fsum", "logsumexp", "argminmax"):
                check_agree(name, a)
    finally:
        nr.set_num_threads(old)
