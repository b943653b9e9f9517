"""bottleneck-style sweep: bottleneck's reduce tests (bottleneck/tests/
reduce_test.py and the array generator in util.py; read, not copied) run every
reduction over a fixed family of inputs -- NaN/inf mixtures, byte-swapped and
float16 data, ties, 0-d arrays, empty shapes, random NaN/inf/sign patterns in
1-4 dimensions, strided and transposed views -- and every axis from -1 to
ndim-1 plus None, and compare with NumPy ("bn.slow").  The same here for
numreduce's functions, plus the integer extremes, and bottleneck's own
regression cases (issue #60: ddof=1 on a single value, list and scalar input,
input not modified).  Exceptions must have NumPy's type.
"""

from __future__ import annotations

import numpy as np
import pytest

import numreduce as nr
from peer_helpers import check

DTYPES = [np.float64, np.float32, np.int64, np.int32]
FLOATS = [np.float64, np.float32]


def _no_ddof(f):
    def call(a, *args, ddof=0, **kw):
        return f(a, *args, **kw)
    call.__name__ = f.__name__
    return call


def generated_arrays(with_inf=True):
    """The input family (see the module docstring); with_inf=False leaves out
    infinities beside NaN, which np.nanargmin handles by NaN replacement
    (a documented difference, tested separately)."""
    nan, inf = np.nan, np.inf
    for dt in FLOATS:
        yield np.array([inf, -inf], dt)
        yield np.array([nan, 2, 3], dt)
        yield np.array([-inf, 2, 3], dt)
        yield np.array([1, nan, nan, 2], dt)
        if with_inf:
            yield np.array([inf, nan], dt)
            yield np.array([nan, inf], dt)
    yield np.array([1, 2, 3], ">f4")
    yield np.array([1, 2, 3], "<f4")
    yield np.array([3, 1, 2], ">i8")
    yield np.array([1, 2, 3], np.float16)
    for dt in DTYPES:
        yield np.array([1, 2, 3], dt) + 1e9 if dt in FLOATS else np.array([1, 2, 3], dt) + 10**9
        yield np.array([0, 0, 0], dt)
        yield np.array([1, 1, 1], dt)
        yield np.array([[1, 2], [3, 4]], dt)[..., np.newaxis]
        yield np.array([[1, 2], [3, 4]], dt)[:, [1]]
    yield np.array([2**31], np.int64)
    # integer extremes (bottleneck checks its accumulators on these)
    for dt in (np.int8, np.uint8, np.int16, np.uint16, np.int32, np.uint32, np.int64, np.uint64):
        i = np.iinfo(dt)
        yield np.array([i.max, i.min, i.max, 0], dt)
        yield np.array([[i.min, i.min], [i.max, i.max]], dt)
        yield np.full(70, i.max, dt)
    # 0-d
    for dt in DTYPES:
        for v in (-9, 0, 9):
            yield np.array(v, dt)
    for dt in FLOATS:
        for v in (-inf, inf, nan):
            yield np.array(v, dt)
    # random patterns; every size/shape family of bottleneck's generator
    families = {0: [(0,), (0, 0), (2, 0), (2, 0, 1)], 8: [(8,)], 12: [(2, 6), (3, 4)],
                16: [(2, 2, 4)], 24: [(1, 2, 3, 4)], 150: [(150,), (3, 50)]}
    for seed in (1, 2):
        rs = np.random.RandomState(seed)
        for size, shapes in families.items():
            for dt in DTYPES:
                a = np.arange(size, dtype=dt)
                if a.dtype.kind == "f":
                    if with_inf:
                        a[rs.rand(size) < 0.2] = inf
                    a[rs.rand(size) < 0.2] = nan
                    a[rs.rand(size) < 0.2] *= -1
                rs.shuffle(a)
                for shape in shapes:
                    b = a.reshape(shape)
                    yield b
                    if b.ndim >= 2:
                        yield b.T
    # non-contiguous views
    for dt in DTYPES:
        a = np.arange(12).astype(dt)
        for start in range(3):
            for step in (1, 2):
                yield a[start::step]
        b = np.arange(12).reshape(4, 3).astype(dt)
        yield b[::2]
        yield b[:, ::2]
        yield b[::2][:, ::2]
        c = np.arange(24).reshape(2, 3, 4).astype(dt)
        for start in range(2):
            yield c[start:]
            yield c[:, start:]
            yield c[:, :, start:]
            yield c[start:][::2]
            yield c[start:][::2][:, ::2]


def axes_of(a):
    # bottleneck: every axis from -1 to ndim-1, and None
    return [None] if a.ndim == 0 else [*range(-1, a.ndim), None]


def _rtol(a):
    return 2e-7 if a.dtype == np.float32 or a.dtype == np.float16 else 1e-14


def _float64_ref(f):
    """np.nanvar & co. on float32/float16 data computed in float64 and rounded
    (numreduce accumulates in float64: docs/differences.md)."""
    def call(a, *args, **kw):
        a = np.asarray(a)
        if a.dtype.kind == "f" and a.dtype.itemsize < 8:
            with np.errstate(all="ignore"):
                return np.asarray(f(a.astype(np.float64), *args, **kw)).astype(a.dtype)[()]
        return f(a, *args, **kw)
    call.__name__ = f.__name__
    return call


FUNCTIONS = {
    "minmax": (nr.minmax, (np.min, np.max), {}),
    "nanminmax": (nr.nanminmax, (np.nanmin, np.nanmax), {}),
    "argminmax": (nr.argminmax, (np.argmin, np.argmax), {}),
    "meanvar": (nr.meanvar, (_float64_ref(_no_ddof(np.mean)), _float64_ref(np.var)), {}),
    "meanstd1": (nr.meanstd, (_float64_ref(_no_ddof(np.mean)), _float64_ref(np.std)),
                 {"ddof": 1}),
    "nanmeanvar": (nr.nanmeanvar, (_float64_ref(_no_ddof(np.nanmean)),
                                   _float64_ref(np.nanvar)), {}),
    "nanmeanvar1": (nr.nanmeanvar, (_float64_ref(_no_ddof(np.nanmean)),
                                    _float64_ref(np.nanvar)), {"ddof": 1}),
}


@pytest.mark.parametrize("name", list(FUNCTIONS))
def test_sweep(name):
    f, refs, kw = FUNCTIONS[name]
    n = 0
    for a in generated_arrays():
        for axis in axes_of(a):
            rtol = _rtol(a) if name.startswith(("mean", "nanmean")) else 0.0
            try:
                with np.errstate(all="ignore"):
                    check(f, refs, a.copy(), axis=axis, rtol=rtol, **kw)
            except AssertionError as e:
                raise AssertionError(f"{name} axis={axis} input {a.dtype} {a!r}") from e
            n += 1
    assert n > 900  # the sweep really ran


def test_sweep_nanargminmax():
    n = 0
    for a in generated_arrays(with_inf=False):
        for axis in axes_of(a):
            check(nr.nanargminmax, (np.nanargmin, np.nanargmax), a.copy(), axis=axis)
            n += 1
    assert n > 900


def test_sweep_logsumexp():
    special = pytest.importorskip("scipy.special", reason="SciPy (optional reference) missing")
    for a in generated_arrays():
        for axis in axes_of(a):
            if a.ndim >= 2 and a.size == 0 and axis is None:
                continue  # SciPy 1.17 raises IndexError here (empty sum: -inf, see test_peer_scipy)
            with np.errstate(all="ignore"):
                b = a.astype(np.float64) if a.dtype.kind == "f" else a
                want = np.asarray(special.logsumexp(b, axis=axis))
                if a.dtype.kind == "f":
                    want = want.astype(a.dtype.newbyteorder("="))
            got = np.asarray(nr.logsumexp(a, axis=axis))
            assert got.dtype == want.dtype and got.shape == want.shape, (a, axis)
            np.testing.assert_allclose(got, want, rtol=np.finfo(got.dtype).eps, atol=0,
                                       equal_nan=True, err_msg=f"axis={axis} {a!r}")
            np.testing.assert_array_equal(np.isinf(got), np.isinf(want))


def test_nanargminmax_inf_beside_nan_documented():
    # docs/differences.md: NaNs are ignored, so [nan, inf] gives 1 (NumPy 0).
    assert nr.nanargminmax(np.array([np.nan, np.inf])) == (1, 1)
    assert nr.nanargminmax(np.array([-np.inf, np.nan])) == (0, 0)
    assert nr.nanargminmax(np.array([np.nan, -np.inf, np.nan, np.inf])) == (1, 3)


def test_sweep_fsum():
    # fsum ~ np.sum (float64 for integers); compensated, so compare with
    # math.fsum-exact sums: these inputs are small integers, inf and NaN, whose
    # sums NumPy's pairwise sum also gets exactly.
    for a in generated_arrays():
        for axis in axes_of(a):
            with np.errstate(all="ignore"):
                # docs/guide/ufunc-methods.md: float64 for integers, float32 for float16
                acc = {"b": np.float64, "i": np.float64, "u": np.float64}.get(a.dtype.kind)
                if a.dtype == np.float16:
                    acc = np.float32
                want = np.sum(a, axis=axis, dtype=acc)
            if a.dtype.kind in "iu" and np.abs(a.astype(float)).max(initial=0) > 2**52:
                continue  # float64 rounding of the extremes: not an exact sum
            got = nr.fsum(a, axis=axis)
            np.testing.assert_array_equal(got, want, strict=True)


@pytest.mark.parametrize("dtype", DTYPES)
def test_size_zero_raises_like_numpy(dtype):
    for shape in [(0,), (2, 0), (1, 2, 0)]:
        a = np.zeros(shape, dtype)
        with pytest.raises(ValueError):
            np.nanmax(a)
        with pytest.raises(ValueError):
            nr.nanminmax(a)
        with pytest.raises(ValueError):
            nr.minmax(a)
        with pytest.raises(ValueError):
            nr.nanargminmax(a)


def test_ddof1_single_value_issue60():
    # bottleneck issue #60: nanstd/nanvar with ddof=1 on one value.
    nanvar = _no_ddof(np.nanmean), np.nanvar
    for a, axis in [([1.0], None), ([1], None), ([1, np.nan], None),
                    ([[1, np.nan], [np.nan, 1]], 0)]:
        check(nr.nanmeanvar, nanvar, np.array(a), axis=axis, ddof=1)
        with np.errstate(invalid="ignore"):
            check(nr.meanstd, (_no_ddof(np.mean), np.std), np.array(a), axis=axis, ddof=1)


def test_list_and_scalar_input():
    # bottleneck's list_input_test / scalar_input_test
    for a in ([1, 2, 3], [[1.0, np.nan], [2.0, 3.0]], [True, False], 7, 2.5, -1):
        check(nr.minmax, (np.min, np.max), a)
        check(nr.nanminmax, (np.nanmin, np.nanmax), a)
        check(nr.argminmax, (np.argmin, np.argmax), a)
        check(nr.meanvar, (_no_ddof(np.mean), np.var), a, rtol=1e-15)
        check(nr.nanmeanvar, (_no_ddof(np.nanmean), np.nanvar), a, rtol=1e-15)
        np.testing.assert_array_equal(nr.fsum(a), np.sum(a, dtype=np.float64))


@pytest.mark.filterwarnings("ignore::RuntimeWarning")
def test_input_not_modified():
    # bottleneck's input_modification_test
    for a in generated_arrays():
        before = a.copy()
        with np.errstate(all="ignore"):
            for f in (nr.minmax, nr.nanminmax, nr.meanvar, nr.nanmeanvar, nr.fsum,
                      nr.logsumexp):
                try:
                    f(a)
                except ValueError:
                    pass
        np.testing.assert_array_equal(a, before, strict=True)


# ---------------------------------------------------------------------------
# Layouts (bottleneck tests C, F and strided orders): every internal path of
# numreduce.reduce -- column tiles (axis 0 of C data), rows (last axis),
# strided, Fortran order -- against the contiguous 1-D reduction of each
# column, with special values.
# ---------------------------------------------------------------------------

_SPECIALS = {
    "f8": [np.nan, np.inf, -np.inf, 1e308, -1e308, 0.0, 1.0, -2.5, 5e-324],
    "f4": [np.nan, np.inf, -np.inf, 3e38, -3e38, 0.0, 1.0],
    "i8": [np.iinfo(np.int64).min, np.iinfo(np.int64).max, 0, -1, 1],
    "u8": [np.iinfo(np.uint64).max, 0, 1],
    "i1": [-128, 127, 0],
}


def _layout_cases(seed=0):
    rng = np.random.default_rng(seed)
    for dt, vals in _SPECIALS.items():
        for nrow in (1, 3, 64, 130, 600):
            ncol = 5
            A = rng.choice(np.array(vals, dtype=object), (nrow, ncol)).astype(dt)
            yield A
            if dt == "f8":
                yield np.where(rng.random(A.shape) < 0.7, rng.standard_normal(A.shape) * 10, A)
    for unit in ("M8[s]", "m8[D]"):
        ticks = rng.integers(-1000, 1000, (130, 5))
        ticks[rng.random(ticks.shape) < 0.1] = np.iinfo(np.int64).min  # NaT
        ticks[:, 4] = np.iinfo(np.int64).min
        yield ticks.view(unit)


def _layouts(A):
    return {
        "column tiles": lambda uf: nr.reduce(uf, A, axis=0),
        "strided": lambda uf: nr.reduce(uf, np.repeat(A, 2, axis=1)[:, ::2], axis=0),
        "rows": lambda uf: nr.reduce(uf, np.ascontiguousarray(A.T), axis=1),
        "fortran": lambda uf: nr.reduce(uf, np.asfortranarray(A), axis=0),
    }


def _paths_disagree(uf, outputs, cases, post=lambda r: r):
    """[(layout, output, column data, got, 1-D)] where a layout differs
    (in the outputs `post` makes of the reduction's)."""
    bad = []
    for A in cases:
        try:
            cols = [post(nr.reduce(uf, np.ascontiguousarray(A[:, j]))) for j in range(A.shape[1])]
        except TypeError:
            continue  # dtype without a loop
        for name, run_layout in _layouts(A).items():
            res = post(run_layout(uf))
            for i in outputs:
                want = np.array([c[i] for c in cols])
                got = np.asarray(res[i])
                assert got.dtype == want.dtype
                same = np.array_equal(got, want, equal_nan=got.dtype.kind in "fmM")
                if not same:
                    j = next(k for k in range(len(want))
                             if not np.array_equal(got[k], want[k], equal_nan=True))
                    bad.append((name, i, A[:, j], got[j], want[j]))
    return bad


@pytest.mark.parametrize("uf", [nr.minimummaximum, nr.fminfmax], ids=lambda u: u.__name__)
def test_layouts_agree_minmax(uf):
    assert _paths_disagree(uf, (0, 1), _layout_cases()) == []


def _twosum_value(r):
    """twosum's value s + e (fsum's finish) and its error output where the
    sum is not finite (0 there, on every path).  How a finite sum splits
    between s and e depends on the order of the additions -- the contiguous
    lanes merge in a tree and renormalise, a column steps in row order
    (int64 extremes round to +-2**63 here) -- the value and the special
    cases do not."""
    s, e = (np.asarray(v) for v in r)
    with np.errstate(invalid="ignore", over="ignore"):
        value = np.where(np.isfinite(s) & (e != 0), s + e, s)
    return value, np.where(np.isfinite(s), 0.0, e)


def test_layouts_agree_twosum_sum_and_moments_count():
    assert _paths_disagree(nr.twosum, (0,), _layout_cases(), _twosum_value) == []
    assert _paths_disagree(nr.moments, (0,), _layout_cases()) == []
    assert _paths_disagree(nr.nanmoments, (0,), _layout_cases()) == []


def test_layouts_agree_twosum_error_output():
    x = np.array([1.0, 2.0, np.inf, 3.0, 1e-17] * 30)
    assert nr.reduce(nr.twosum, x)[1] == 0.0
    assert _paths_disagree(nr.twosum, (1,), _layout_cases(), _twosum_value) == []


def test_layouts_agree_maxsumexp_all_nan():
    A = np.full((1, 5), np.nan)
    assert _paths_disagree(nr.maxsumexp, (0, 1), [A]) == []


# The rounded outputs (moments' mean and M2, maxsumexp's sum) group their
# additions differently on each path: tests/test_paths_agree.py checks them
# against each other within their stated bounds, not bitwise.
