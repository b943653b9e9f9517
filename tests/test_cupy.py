"""The CuPy mirror against the CPU path on a GPU (a smaller differential than
benchmarks/gpu_check.py).  Skipped where CuPy or a CUDA device is missing;
not yet run anywhere (no GPU has been available, see docs/gpu.md)."""

from __future__ import annotations

import warnings

import numpy as np
import pytest

import numreduce as nr

try:
    import cupy as cp
    _n = cp.cuda.runtime.getDeviceCount()
    _why = None if _n > 0 else "no CUDA device"
except ImportError:
    cp, _why = None, "CuPy is not installed"
except Exception as e:  # CUDARuntimeError: no driver / insufficient driver
    cp, _why = None, f"no CUDA device ({type(e).__name__}: {e})"

pytestmark = pytest.mark.skipif(_why is not None, reason=_why or "")

EXACT = {"minimummaximum", "fminfmax"}


def _data(rng, dtype, shape, nan=False):
    dt = np.dtype(dtype)
    if dt.kind == "b":
        return rng.random(shape) < 0.5
    if dt.kind in "iu":
        return rng.integers(0 if dt.kind == "u" else -100, 100, size=shape).astype(dt)
    x = (rng.standard_normal(shape) * 10).astype(dt)
    if nan and x.size:
        x.reshape(-1)[:: max(1, x.size // 7)] = np.nan
    return x


def _check(cpu, gpu, exact, rtol):
    if not isinstance(cpu, tuple):
        cpu, gpu = (cpu,), (gpu,)
    assert len(cpu) == len(gpu)
    for c, g in zip(cpu, gpu):
        assert isinstance(g, cp.ndarray)
        c, g = np.asarray(c), g.get()
        assert c.shape == g.shape and c.dtype == g.dtype
        if c.dtype.kind == "f":
            np.testing.assert_array_equal(np.isnan(g), np.isnan(c))
        if exact or c.dtype.kind != "f":
            np.testing.assert_array_equal(g, c)
        else:
            np.testing.assert_allclose(g, c, rtol=rtol, atol=0, equal_nan=True)


@pytest.mark.parametrize("ufunc", ["minimummaximum", "fminfmax", "moments", "maxsumexp",
                                   "twosum"])
@pytest.mark.parametrize("dtype", ["int32", "int64", "float32", "float64"])
@pytest.mark.parametrize("axis", [None, 0, 1, (0, 1)])
@pytest.mark.parametrize("keepdims", [False, True])
def test_reduce_matches_cpu(ufunc, dtype, axis, keepdims):
    rng = np.random.default_rng(0)
    x = _data(rng, dtype, (33, 70), nan=True)
    u = getattr(nr, ufunc)
    cpu = nr.reduce(u, x, axis=axis, keepdims=keepdims)
    gpu = nr.reduce(u, cp.asarray(x), axis=axis, keepdims=keepdims)
    _check(cpu, gpu, ufunc in EXACT, 1e-5 if dtype == "float32" else 1e-12)


@pytest.mark.parametrize("ufunc", ["moments", "nanmoments", "maxsumexp", "twosum"])
@pytest.mark.parametrize("axis", [None, 0, 1, (0, 1)])
def test_reduce_initial_none_matches_cpu(ufunc, axis):
    # NumPy's copy of the first element into every output, the rest folded
    # in (data >= 0: a negative copy in moments' count slot is
    # ill-conditioned); twosum as s + e; empty reductions and where= raise
    rng = np.random.default_rng(5)
    x = np.abs(_data(rng, "float64", (33, 70), nan=ufunc == "nanmoments"))
    u = getattr(nr, ufunc)
    cpu = nr.reduce(u, x, axis=axis, initial=None)
    gpu = nr.reduce(u, cp.asarray(x), axis=axis, initial=None)
    if ufunc == "twosum":
        cpu, gpu = (np.add(*cpu),), (gpu[0] + gpu[1],)
    _check(cpu, gpu, False, 1e-12)
    with pytest.raises(ValueError, match="zero-size array"):
        nr.reduce(u, cp.asarray(x[:0, :0]), axis=axis, initial=None)
    with pytest.raises(ValueError, match="does not have an identity"):
        nr.reduce(u, cp.asarray(x), axis=axis, initial=None, where=cp.asarray(x > 1))


@pytest.mark.parametrize("ufunc", ["minimummaximum", "twosum", "moments"])
def test_reduce_where_initial_out(ufunc):
    rng = np.random.default_rng(1)
    x = _data(rng, "float64", (20, 30))
    w = rng.random(x.shape) < 0.5
    u = getattr(nr, ufunc)
    kw = {"initial": (50.0, -50.0)} if ufunc == "minimummaximum" else {}
    cpu = nr.reduce(u, x, axis=0, where=w, **kw)
    gpu = nr.reduce(u, cp.asarray(x), axis=0, where=cp.asarray(w), **kw)
    _check(cpu, gpu, ufunc in EXACT, 1e-12)
    outs = tuple(cp.empty(30) for _ in range(u.nout))
    res = nr.reduce(u, cp.asarray(x), axis=0, out=outs)
    assert all(r is o for r, o in zip(res, outs))
    _check(nr.reduce(u, x, axis=0), res, ufunc in EXACT, 1e-12)


def test_empty_reductions():
    x = np.empty((0, 4))
    for u in (nr.moments, nr.twosum, nr.maxsumexp):
        _check(nr.reduce(u, x, axis=0), nr.reduce(u, cp.asarray(x), axis=0), False, 0)
    with pytest.raises(ValueError, match="zero-size array"):
        nr.reduce(nr.minimummaximum, cp.asarray(x), axis=0)


@pytest.mark.parametrize("fname", ["minmax", "nanminmax", "argminmax", "nanargminmax",
                                   "meanvar", "meanstd", "nanmeanvar", "logsumexp", "fsum"])
@pytest.mark.parametrize("axis", [None, 0, -1])
def test_user_functions_match_cpu(fname, axis):
    rng = np.random.default_rng(2)
    x = _data(rng, "float32", (41, 67), nan=fname.startswith("nan"))
    f = getattr(nr, fname)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        cpu, gpu = f(x, axis=axis), f(cp.asarray(x), axis=axis)
    _check(cpu, gpu, "minmax" in fname, 1e-5)


def test_elementwise_broadcasting_and_out():
    import numreduce.cupy as nrc
    rng = np.random.default_rng(3)
    x, y = _data(rng, "float32", (5, 7), nan=True), _data(rng, "float32", (7,))
    _check(nr.minimummaximum(x, y), nrc.minimummaximum(cp.asarray(x), cp.asarray(y)), True, 0)
    outs = (cp.empty((5, 7), cp.float32), cp.empty((5, 7), cp.float32))
    res = nrc.minimummaximum(cp.asarray(x), cp.asarray(y), out=outs)
    assert res[0] is outs[0] and res[1] is outs[1]
    _check(nr.moments(x, y), nrc.moments(cp.asarray(x), cp.asarray(y)), False, 1e-12)


def test_mixed_inputs_raise():
    x = cp.zeros(4)
    with pytest.raises(TypeError, match="mixed CuPy"):
        nr.minmax(x, out=(np.empty(()), None))
    with pytest.raises(TypeError, match="not a cupy.ndarray"):
        nr.reduce(nr.minimummaximum, x, where=np.ones(4, bool), initial=0.0)


@pytest.mark.parametrize("ufunc", ["minimummaximum", "moments", "maxsumexp", "twosum"])
@pytest.mark.parametrize("axis", [0, 1])
def test_accumulate_and_merge_match_cpu(ufunc, axis):
    import numreduce.cupy as nrc
    rng = np.random.default_rng(4)
    x = _data(rng, "float64", (30, 45))
    u = getattr(nr, ufunc)
    _check(nr.accumulate(u, x, axis=axis), nr.accumulate(u, cp.asarray(x), axis=axis),
           ufunc in EXACT, 1e-12)
    sa, sb = nr.reduce(u, x[:10], axis=0), nr.reduce(u, x[10:], axis=0)
    ga = nr.reduce(u, cp.asarray(x[:10]), axis=0)
    gb = nr.reduce(u, cp.asarray(x[10:]), axis=0)
    _check(nr.merge(u, sa, sb), nrc.merge(u, ga, gb), ufunc in EXACT, 1e-12)


# Every kernel's differential of tests/test_cupy_emulated.py (which runs them on
# the host through a NumPy stand-in for CuPy): the ufuncs' __call__, reduce and
# merge, the user functions, reduceat, segmented_reduce, reduce_by_group, at,
# the grouped user functions, accumulate and the cumulative user functions,
# here with CuPy and the GPU.
@pytest.fixture(scope="module")
def emu():
    import numreduce.cupy as nrc
    return cp, nrc


from test_cupy_emulated import (  # noqa: E402,F401  (collected here with the GPU fixture)
    test_accumulate_matches_numpy_path as test_gpu_accumulate_matches_numpy_path,
    test_complex_cumulative_functions_match_numpy_path as test_gpu_complex_cumulative,
    test_complex_group_meanvar_matches_numpy_path as test_gpu_complex_group_meanvar,
    test_complex_logsumexp_matches_numpy_path as test_gpu_complex_logsumexp,
    test_complex_user_functions_match_numpy_path as test_gpu_complex_user_functions,
    test_elementwise_matches_numpy_path as test_gpu_elementwise_matches_numpy_path,
    test_group_argminmax_matches_numpy_path as test_gpu_group_argminmax,
    test_merge_matches_numpy_path as test_gpu_merge_matches_numpy_path,
    test_reduce_matches_numpy_path as test_gpu_reduce_matches_numpy_path,
    test_user_functions_match_numpy_path as test_gpu_user_functions_match_numpy_path,
    test_at_boolean_indices_match_numpy_path as test_gpu_at_boolean_indices,
    test_at_matches_numpy_path as test_gpu_at_matches_numpy_path,
    test_at_scalar_booleans_and_ellipsis_match_numpy_path as test_gpu_at_scalar_booleans,
    test_cumulative_user_functions_match_numpy_path as test_gpu_cumulative_user_functions,
    test_groups_match_numpy_path as test_gpu_groups_match_numpy_path,
    test_initial_none_segments_and_groups_match_numpy_path as test_gpu_initial_none_segments,
    test_reduce_initial_none_inf_first as test_gpu_reduce_initial_none_inf_first,
    test_reduce_initial_none_matches_numpy_path as test_gpu_reduce_initial_none,
    test_grouped_user_functions_match_numpy_path as test_gpu_grouped_user_functions,
    test_reduction_adapter_one_element as test_gpu_reduction_adapter_one_element,
    test_segments_match_numpy_path as test_gpu_segments_match_numpy_path,
)


def test_one_element_slices_have_the_cpu_variance():
    # moments of [NaN] / [inf] through the ReductionKernel: M2 NaN (np.var)
    x = np.array([[np.nan], [np.inf], [2.0]])
    _check(nr.meanvar(x, axis=1), nr.meanvar(cp.asarray(x), axis=1), False, 1e-12)
    _check(nr.reduce(nr.moments, x, axis=1), nr.reduce(nr.moments, cp.asarray(x), axis=1),
           False, 1e-12)


# ---------------------------------------------------------------------------
# Reductions of several arrays (the K-input kernels) and mapreduce
# ---------------------------------------------------------------------------

def _close(cpu, gpu, rtol):
    """Results of the same dtype and shape, close in value (the device's
    reduction tree splits the sums differently from the CPU's blocks)."""
    if not isinstance(cpu, tuple):
        cpu, gpu = (cpu,), (gpu,)
    for c, g in zip(cpu, gpu):
        assert isinstance(g, cp.ndarray)
        c, g = np.asarray(c), g.get()
        assert c.shape == g.shape and c.dtype == g.dtype, (c.dtype, g.dtype, c.shape, g.shape)
        np.testing.assert_array_equal(np.isnan(g), np.isnan(c))
        fin = np.abs(c[np.isfinite(c)])
        scale = float(fin.max()) if fin.size else 0.0
        np.testing.assert_allclose(g, c, rtol=rtol, atol=rtol * 10 * scale)


@pytest.mark.parametrize("fname", ["meanvar", "meanstd", "nanmeanvar"])
@pytest.mark.parametrize("axis", [None, 0, 1])
@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_weighted_moments_match_cpu(fname, axis, dtype):
    rng = np.random.default_rng(40)
    x = (rng.standard_normal((300, 70)) + 1e4).astype(dtype)
    x[3, 4] = np.nan
    w = rng.integers(0, 5, size=(300, 70)).astype(np.float64)
    w[7] = 0  # a zero-sum row: NaN with NumPy's warning along axis 1
    f = getattr(nr, fname)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        cpu = f(x, weights=w, axis=axis, ddof=1)
        gpu = f(cp.asarray(x), weights=cp.asarray(w), axis=axis, ddof=1)
    _close(cpu, gpu, 1e-5 if dtype == "float32" else 1e-11)
    _close(f(x, weights=w[0] + 1, axis=0), f(cp.asarray(x), weights=cp.asarray(w[0] + 1),
                                             axis=0), 1e-5 if dtype == "float32" else 1e-11)
    if axis == 1:
        with pytest.warns(RuntimeWarning, match="Mean of empty slice"):
            f(cp.asarray(x), weights=cp.asarray(w), axis=1)
    bad = w.copy()
    bad[1, 1] = -1
    with pytest.raises(ValueError, match="non-negative"):
        f(cp.asarray(x), weights=cp.asarray(bad))


@pytest.mark.parametrize("axis", [None, 0, 1])
def test_logsumexp_b_matches_cpu(axis):
    rng = np.random.default_rng(41)
    a = rng.standard_normal((200, 50)) * 5
    b = rng.standard_normal((200, 50))
    b[:, 3] = 0
    cpu = nr.logsumexp(a, axis=axis, b=b, return_sign=True)
    gpu = nr.logsumexp(cp.asarray(a), axis=axis, b=cp.asarray(b), return_sign=True)
    _close(cpu, gpu, 1e-12)
    v = nr.logsumexp(cp.asarray(np.array([0.0, -40.0])), b=cp.asarray(np.array([1.0, 1.0])))
    np.testing.assert_allclose(float(v), 4.248354255291589e-18, rtol=1e-12)


@pytest.mark.parametrize("axis", [None, 0, 1])
def test_covariance_correlation_sumprod_match_cpu(axis):
    rng = np.random.default_rng(42)
    x = rng.standard_normal((300, 40)) + 1e6
    y = 0.5 * x + rng.standard_normal((300, 40))
    x[:, 5] = 3.0  # a constant column: correlation NaN along axis 0
    gx, gy = cp.asarray(x), cp.asarray(y)
    _close(nr.covariance(x, y, axis=axis), nr.covariance(gx, gy, axis=axis), 1e-9)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        cpu = nr.correlation(x, y, axis=axis)
    if axis == 0:
        with pytest.warns(RuntimeWarning, match="invalid value"):
            gpu = nr.correlation(gx, gy, axis=axis)
    else:
        gpu = nr.correlation(gx, gy, axis=axis)
    _close(cpu, gpu, 1e-9)
    _close(nr.sumprod(x - 1e6, y, axis=axis), nr.sumprod(gx - 1e6, gy, axis=axis), 1e-12)


def test_sumprod_ill_conditioned_on_device():
    from fractions import Fraction
    rng = np.random.default_rng(43)
    a = np.concatenate([rng.standard_normal(5000) * 1e15, rng.standard_normal(5000)])
    b = np.concatenate([np.ones(5000), rng.standard_normal(5000)])
    a, b = np.concatenate([a, -a[:5000]]), np.concatenate([b, b[:5000]])
    exact = float(sum(Fraction(p) * Fraction(q) for p, q in zip(a, b)))
    got = float(nr.sumprod(cp.asarray(a), cp.asarray(b)))
    assert abs(got - exact) <= 2 * np.finfo(float).eps * abs(exact) + 1e-20 * float(
        np.sum(np.abs(a * b)))


@pytest.mark.parametrize("ufunc", ["wmoments", "nanwmoments", "comoments", "maxsumexpb",
                                   "twoprod"])
def test_source_ufunc_reduce_and_merge_on_device(ufunc):
    rng = np.random.default_rng(44)
    x = rng.standard_normal((64, 9))
    y = np.abs(rng.standard_normal((64, 9)))
    u = getattr(nr, ufunc)
    gx, gy = cp.asarray(x), cp.asarray(y)
    cpu = nr.reduce(u, (x, y), axis=0)
    gpu = nr.reduce(u, (gx, gy), axis=0)
    assert all(isinstance(g, cp.ndarray) and g.dtype == c.dtype for c, g in zip(cpu, gpu))
    merged = nr.merge(u, nr.reduce(u, (gx[:20], gy[:20]), axis=0),
                      nr.reduce(u, (gx[20:], gy[20:]), axis=0))
    assert all(m.shape == (9,) for m in merged)


def _canonical(ufunc, states):
    """What a K-source state means, however the reduction was split: the
    moment states' origin K is any point, a twoprod pair is its value."""
    st = [np.asarray(s.get() if isinstance(s, cp.ndarray) else s, dtype=np.float64)
          for s in states]
    with np.errstate(invalid="ignore", over="ignore"):
        if ufunc in ("wmoments", "nanwmoments"):
            return st[0], st[1] + st[2], st[3]
        if ufunc == "comoments":
            return st[0], st[1] + st[3], st[2] + st[4], st[5], st[6], st[7]
        if ufunc == "twoprod":
            return (st[0] + st[1],)
        return tuple(st)


def _close_states(ufunc, cpu, gpu, rtol=1e-11):
    for c, g in zip(cpu, gpu):
        assert isinstance(g, cp.ndarray) and g.dtype == np.asarray(c).dtype
        assert g.shape == np.shape(c)
    for c, g in zip(_canonical(ufunc, cpu), _canonical(ufunc, gpu)):
        np.testing.assert_array_equal(np.isnan(g), np.isnan(c))
        fin = np.abs(c[np.isfinite(c)])
        scale = float(fin.max()) if fin.size else 0.0
        np.testing.assert_allclose(g, c, rtol=rtol, atol=rtol * 10 * scale)


@pytest.mark.parametrize("ufunc", ["wmoments", "nanwmoments", "comoments", "maxsumexpb",
                                   "twoprod"])
@pytest.mark.parametrize("axis", [0, 1])
def test_source_ufunc_methods_match_cpu(ufunc, axis):
    """accumulate, reduceat, segmented_reduce (empty segments, where=),
    reduce_by_group (an empty group) and at (tuple values) of the K-source
    ufuncs: the sources packed side by side, read as sources<T, K>."""
    rng = np.random.default_rng(46)
    x = rng.standard_normal((300, 70)) * 3 + 1e3
    y = rng.integers(0, 4, size=(300, 70)).astype(np.float64)
    if ufunc == "maxsumexpb":
        x, y = x - 1e3, rng.standard_normal((300, 70))
    x[5, 6] = np.nan
    u = getattr(nr, ufunc)
    gx, gy = cp.asarray(x), cp.asarray(y)
    n = x.shape[axis]
    _close_states(ufunc, nr.accumulate(u, (x, y), axis=axis),
                  nr.accumulate(u, (gx, gy), axis=axis))
    idx = [0, 7, n // 2, 3]
    _close_states(ufunc, nr.reduceat(u, (x, y), idx, axis=axis),
                  nr.reduceat(u, (gx, gy), idx, axis=axis))
    starts, stops = [0, 4, n // 3, 9], [n, 4, n - 1, 20]
    keep = rng.random(x.shape) < 0.7
    _close_states(ufunc, nr.segmented_reduce(u, (x, y), starts, stops, axis=axis),
                  nr.segmented_reduce(u, (gx, gy), starts, stops, axis=axis))
    _close_states(ufunc, nr.segmented_reduce(u, (x, y), starts, stops, axis=axis, where=keep),
                  nr.segmented_reduce(u, (gx, gy), starts, stops, axis=axis,
                                      where=cp.asarray(keep)))
    ids = rng.integers(0, 6, size=n)
    ids[ids == 2] = 3  # group 2 empty
    _close_states(ufunc, nr.reduce_by_group(u, (x, y), ids, 7, axis=axis),
                  nr.reduce_by_group(u, (gx, gy), cp.asarray(ids), 7, axis=axis))
    empty = nr.reduce(u, (x[:0, 0], y[:0, 0]))
    v, w = x[:, 0], y[:, 0]
    ids2 = rng.integers(0, 7, size=300)
    cpu = tuple(np.full(7, e) for e in empty)
    gpu = tuple(cp.asarray(c) for c in cpu)
    nr.at(u, cpu, ids2, (v, w))
    nr.at(u, gpu, cp.asarray(ids2), (cp.asarray(v), cp.asarray(w)))
    _close_states(ufunc, cpu, gpu)


@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_group_meanvar_weights_match_cpu(dtype):
    rng = np.random.default_rng(47)
    x = (rng.standard_normal((5000, 3)) + 1e4).astype(dtype)
    w = rng.integers(0, 5, size=(5000, 3)).astype(np.float64)
    ids = rng.integers(0, 9, size=5000)
    w[ids == 4] = 0  # a group whose weights sum to 0: NaN with NumPy's warning
    with warnings.catch_warnings(record=True) as rec:
        warnings.simplefilter("always")
        gpu = nr.group_meanvar(cp.asarray(x), cp.asarray(ids), weights=cp.asarray(w), ddof=1)
    assert {str(r.message) for r in rec} == {"Mean of empty slice.",
                                             "Degrees of freedom <= 0 for slice"}
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        cpu = nr.group_meanvar(x, ids, weights=w, ddof=1)
    _close(cpu, gpu, 1e-5 if dtype == "float32" else 1e-11)
    bad = w.copy()
    bad[9, 1] = -1
    with pytest.raises(ValueError, match="non-negative"):
        nr.group_meanvar(cp.asarray(x), cp.asarray(ids), weights=cp.asarray(bad))


def test_mapreduce_of_cupy_sources_matches_cpu():
    rng = np.random.default_rng(45)
    X = rng.standard_normal((500, 300))
    v = rng.standard_normal(300)
    _close(nr.mapreduce(np.square, nr.fsum, X, axis=0),
           nr.mapreduce(cp.square, nr.fsum, cp.asarray(X), axis=0), 1e-14)
    cpu = nr.mapreduce(np.subtract, nr.minmax, X, v)
    gpu = nr.mapreduce(cp.subtract, nr.minmax, cp.asarray(X), cp.asarray(v))
    _check(cpu, gpu, True, 0)
    _close(nr.mapreduce(np.abs, nr.meanvar, X, axis=1),
           nr.mapreduce(cp.abs, nr.meanvar, cp.asarray(X), axis=1), 1e-12)
    with pytest.raises(TypeError, match="mixed CuPy"):
        nr.mapreduce(np.subtract, nr.minmax, cp.asarray(X), v)
