"""One array-type policy for every data operand (issue 36, class 3).

A mask on the second operand (``weights=``, ``b=``, ``y``, the sources of a
tuple) counts as a mask on the first does: an element takes part only where
no operand masks it (np.ma.average's rule for masked weights), results are
masked where nothing is left, or the function refuses masked arrays with a
TypeError naming the masked operand -- never a mask read as plain data.
Other ndarray subclasses on the second operand get the first operand's
policy.  References: np.ma.average, and NumPy / SciPy on the compressed
common-unmasked elements.
"""

import numpy as np
import pytest
import scipy.special

import numreduce as nr
from numreduce import _api


RNG = np.random.default_rng(36)


def _data(shape=(4, 7)):
    x = RNG.normal(3.0, 2.0, shape)
    w = RNG.uniform(0.5, 2.0, shape)
    mx = RNG.random(shape) < 0.25
    mw = RNG.random(shape) < 0.25
    mx[1] = True  # row 1: nothing left
    return x, w, mx, mw


def _wmeanvar(x, w, ddof=0):
    mean = np.average(x, weights=w)
    return mean, np.sum(w * (x - mean) ** 2) / (np.sum(w) - ddof)


# the masks of the operands: only the weights, only the data, both
CASES = [(False, True), (True, False), (True, True)]


@pytest.mark.parametrize("fn", [nr.meanvar, nr.meanstd, nr.nanmeanvar, _api.meanvar])
@pytest.mark.parametrize("on_x,on_w", CASES)
def test_weights_mask_counts(fn, on_x, on_w):
    x, w, mx, mw = _data()
    xa = np.ma.array(x, mask=mx) if on_x else x
    wa = np.ma.array(w, mask=mw) if on_w else w
    common = (mx if on_x else False) | (mw if on_w else False)
    common = np.broadcast_to(common, x.shape)
    # whole array: the reference on the compressed common-unmasked elements
    keep = ~common
    mean, var = fn(xa, weights=wa, ddof=1)
    want_mean, want_var = _wmeanvar(x[keep], w[keep], ddof=1)
    np.testing.assert_allclose(mean, np.ma.average(xa, weights=wa), rtol=1e-13)
    np.testing.assert_allclose(mean, want_mean, rtol=1e-13)
    np.testing.assert_allclose(var if fn is not nr.meanstd else var ** 2, want_var, rtol=1e-12)
    # per row: masked where a row has nothing left (row 1 when x is masked)
    mean, var = fn(xa, weights=wa, axis=1)
    assert isinstance(mean, np.ma.MaskedArray) and isinstance(var, np.ma.MaskedArray)
    for i in range(x.shape[0]):
        k = keep[i]
        if not k.any():
            assert mean.mask[i] and var.mask[i]
            continue
        assert not mean.mask[i]
        wm, wv = _wmeanvar(x[i, k], w[i, k])
        np.testing.assert_allclose(mean[i], wm, rtol=1e-13)
        np.testing.assert_allclose(var[i] if fn is not nr.meanstd else var[i] ** 2, wv,
                                   rtol=1e-12, atol=1e-14)
    np.testing.assert_allclose(mean.filled(0.0),
                               np.ma.average(xa, weights=wa, axis=1).filled(0.0), rtol=1e-13)


def test_masked_weights_hide_bad_values():
    """A masked weight is not read: a negative, NaN or inf weight under the
    mask changes nothing (np.ma.average)."""
    x = np.arange(6.0)
    for bad in (-5.0, np.nan, np.inf):
        w = np.ma.array([1.0, 2.0, 1.0, 1.0, 3.0, bad], mask=[0, 0, 0, 0, 0, 1])
        mean, var = nr.meanvar(x, weights=w)
        assert mean == pytest.approx(np.ma.average(x, weights=w), rel=1e-15)
        assert var == pytest.approx(_wmeanvar(x[:5], w.data[:5])[1], rel=1e-14)


def test_masked_weights_all_masked():
    mean, var = nr.meanvar(np.arange(3.0), weights=np.ma.array([1.0, 2.0, 3.0], mask=True))
    assert mean is np.ma.masked and var is np.ma.masked


def test_weights_broadcast_with_mask():
    """weights of another shape, masked, broadcast against the data."""
    x = RNG.normal(size=(3, 5))
    w = np.ma.array(RNG.uniform(1, 2, 5), mask=[0, 1, 0, 0, 1])
    mean, _ = nr.meanvar(x, weights=w, axis=1)
    want = [np.average(r[[0, 2, 3]], weights=w.data[[0, 2, 3]]) for r in x]
    np.testing.assert_allclose(mean, want, rtol=1e-14)


@pytest.mark.parametrize("return_sign", [False, True])
@pytest.mark.parametrize("on_a,on_b", CASES)
def test_logsumexp_b_mask_counts(on_a, on_b, return_sign):
    a = RNG.normal(size=(3, 8))
    b = RNG.uniform(0.5, 2.0, (3, 8))
    ma = RNG.random(a.shape) < 0.3
    mb = RNG.random(a.shape) < 0.3
    if on_a:
        b[ma] = np.inf  # a masked element's b is never read, inf or not
    if on_b:
        a[mb] = np.nan  # nor its a
    aa = np.ma.array(a, mask=ma) if on_a else a
    bb = np.ma.array(b, mask=mb) if on_b else b
    keep = ~((ma if on_a else False) | (mb if on_b else False))
    got = nr.logsumexp(aa, b=bb, return_sign=return_sign)
    want = scipy.special.logsumexp(a[keep], b=b[keep], return_sign=return_sign)
    np.testing.assert_allclose(got, want, rtol=1e-13)
    got = nr.logsumexp(aa, b=bb, axis=1, return_sign=return_sign)
    got = got[0] if return_sign else got
    for i in range(a.shape[0]):
        np.testing.assert_allclose(got[i], scipy.special.logsumexp(a[i, keep[i]],
                                                                   b=b[i, keep[i]]), rtol=1e-13)


def test_logsumexp_b_all_masked():
    assert nr.logsumexp(np.zeros(2), b=np.ma.array([1.0, 1.0], mask=True)) is np.ma.masked


@pytest.mark.parametrize("fn", [nr.covariance, nr.correlation, nr.sumprod])
@pytest.mark.parametrize("which", ["x", "y", "both"])
def test_pair_refuses_a_masked_operand(fn, which):
    x, y = RNG.normal(size=6), RNG.normal(size=6)
    mx = np.ma.array(x, mask=[0, 0, 1, 0, 0, 0])
    my = np.ma.array(y, mask=[0, 0, 0, 0, 0, 1])
    args = {"x": (mx, y), "y": (x, my), "both": (mx, my)}[which]
    named = {"x": "the mask of x ", "y": "the mask of y ", "both": "the mask of x, y "}[which]
    with pytest.raises(TypeError, match=f"masked arrays are not supported \\({named}"):
        fn(*args)


def test_group_meanvar_refuses_masked_weights():
    w = np.ma.array([1.0, 2.0, 3.0], mask=[0, 1, 0])
    with pytest.raises(TypeError, match="the mask of weights would be ignored"):
        nr.group_meanvar(np.arange(3.0), np.array([0, 0, 1]), weights=w)


# ---------------------------------------------------------------------------
# the sources of a tuple (a reduction of several arrays)
# ---------------------------------------------------------------------------

@pytest.mark.parametrize("which", [0, 1, "both"])
def test_reduce_of_sources_honours_every_mask(which):
    x, y = RNG.normal(size=(3, 9)), RNG.normal(size=(3, 9))
    mx, my = RNG.random(x.shape) < 0.3, RNG.random(x.shape) < 0.3
    mx[2] = my[2] = True
    srcs = [x, y]
    if which in (0, "both"):
        srcs[0] = np.ma.array(x, mask=mx)
    if which in (1, "both"):
        srcs[1] = np.ma.array(y, mask=my)
    common = (mx if which in (0, "both") else False) | (my if which in (1, "both") else False)
    keep = ~np.broadcast_to(common, x.shape)
    # whole: the states of the compressed common-unmasked elements
    got = nr.reduce(nr.comoments, tuple(srcs), axis=None)
    want = nr.reduce(nr.comoments, (x[keep], y[keep]), axis=None)
    np.testing.assert_allclose(got, want, rtol=1e-12, atol=1e-12)
    n, *_ = got
    assert n == keep.sum()
    got = nr.reduce(nr.comoments, tuple(srcs), axis=1)
    for i in range(x.shape[0]):
        if not keep[i].any():
            assert all(g.mask[i] for g in got)
            continue
        want = nr.reduce(nr.comoments, (x[i, keep[i]], y[i, keep[i]]), axis=None)
        np.testing.assert_allclose([g[i] for g in got], want, rtol=1e-12, atol=1e-12)
    # the covariance from those states is np.ma.cov's
    cov = nr.covariance(x[0, keep[0]], y[0, keep[0]])
    mxy = np.ma.array(np.stack([x[0], y[0]]), mask=np.stack([~keep[0], ~keep[0]]))
    np.testing.assert_allclose(cov, np.ma.cov(mxy)[0, 1], rtol=1e-12)


def test_reduce_of_weighted_sources_with_masked_weights():
    x = np.arange(6.0)
    w = np.ma.array([1.0, 1.0, 1.0, 1.0, 1.0, 100.0], mask=[0, 0, 0, 0, 0, 1])
    W, K, m, M2 = nr.reduce(nr.wmoments, (x, w), axis=None)
    assert W == 5.0
    assert K + m == pytest.approx(np.ma.average(x, weights=w), rel=1e-15)


def _outs(u, shape=(2,)):
    return tuple(np.zeros(shape) for _ in range(u.nout))


@pytest.mark.parametrize("call", [
    lambda s: nr.reduce_by_group(nr.comoments, s, np.array([0, 0, 1, 1])),
    lambda s: nr.at(nr.comoments, _outs(nr.comoments), np.array([0, 0, 1, 1]), s),
    lambda s: nr.segmented_reduce(nr.comoments, s, [0], [4]),
    lambda s: nr.reduceat(nr.comoments, s, [0, 2]),
    lambda s: nr.accumulate(nr.comoments, s),
])
@pytest.mark.parametrize("which", [0, 1])
def test_other_methods_of_sources_refuse_a_masked_source(call, which):
    srcs = [np.arange(4.0), np.ones(4)]
    srcs[which] = np.ma.array(srcs[which], mask=[0, 1, 0, 0])
    with pytest.raises(TypeError, match=f"the mask of [a-z]+\\[{which}\\] would be ignored"):
        call(tuple(srcs))


# ---------------------------------------------------------------------------
# other array types on the second operand: the first operand's policy
# ---------------------------------------------------------------------------

class Plain(np.ndarray):
    pass


class Units(np.ndarray):
    def __array_ufunc__(self, ufunc, method, *inputs, **kwargs):
        inputs = tuple(np.asarray(i) if isinstance(i, Units) else i for i in inputs)
        return getattr(ufunc, method)(*inputs, **kwargs)


class NoUfuncs(np.ndarray):
    __array_ufunc__ = None


class Duck:
    """An __array_function__ object: NEP 18 hands it the call."""

    def __init__(self, data):
        self.data = np.asarray(data)

    def __array_function__(self, func, types, args, kwargs):
        return ("duck", func.__name__)


SECOND = [  # (call, its second operand's name)
    (lambda v: nr.meanvar(np.arange(4.0), weights=v), "weights"),
    (lambda v: nr.nanmeanvar(np.arange(4.0), weights=v), "weights"),
    (lambda v: nr.logsumexp(np.arange(4.0), b=v), "b"),
    (lambda v: nr.covariance(np.arange(4.0), v), "y"),
    (lambda v: nr.sumprod(np.arange(4.0), v), "y"),
    (lambda v: nr.group_meanvar(np.arange(4.0), np.array([0, 0, 1, 1]), weights=v), "weights"),
]


@pytest.mark.filterwarnings("ignore:the matrix subclass:PendingDeprecationWarning")
@pytest.mark.parametrize("call,name", SECOND)
def test_second_operand_matrix_refused(call, name):
    with pytest.raises(TypeError, match=f"'{name}' is an np.matrix"):
        call(np.matrix([1.0, 2.0, 1.0, 3.0]))


@pytest.mark.parametrize("call,name", SECOND)
def test_second_operand_array_ufunc_override_refused(call, name):
    with pytest.raises(TypeError, match=f"'{name}' is a Units, which overrides __array_ufunc__"):
        call(np.array([1.0, 2.0, 1.0, 3.0]).view(Units))


@pytest.mark.parametrize("call,name", SECOND)
def test_second_operand_no_ufuncs_refused(call, name):
    with pytest.raises(TypeError, match="does not support ufuncs"):
        call(np.array([1.0, 2.0, 1.0, 3.0]).view(NoUfuncs))


@pytest.mark.parametrize("call,name", SECOND)
def test_second_operand_plain_subclass_is_its_data(call, name):
    v = np.array([1.0, 2.0, 1.0, 3.0])
    got, want = call(v.view(Plain)), call(v)
    for g, w in zip(np.atleast_1d(got), np.atleast_1d(want)):
        np.testing.assert_array_equal(np.asarray(g), np.asarray(w))
        assert type(g) is not Plain


@pytest.mark.parametrize("call,name", SECOND)
def test_second_operand_array_function_object_gets_the_call(call, name):
    res = call(Duck([1.0, 2.0, 1.0, 3.0]))
    assert res[0] == "duck"


def test_source_tuple_array_function_object_gets_the_call():
    res = nr.reduce(nr.comoments, (np.arange(4.0), Duck(np.ones(4))), axis=None)
    assert res == ("duck", "reduce")


@pytest.mark.filterwarnings("ignore:the matrix subclass:PendingDeprecationWarning")
def test_source_tuple_matrix_refused():
    with pytest.raises(TypeError, match="'array\\[1\\]' is an np.matrix"):
        nr.reduce(nr.comoments, (np.arange(4.0), np.matrix(np.ones(4))), axis=None)


# ---------------------------------------------------------------------------
# pandas nullable data given to the functions directly (not the accessor):
# <NA> is skipped, as pandas' reductions and np.min / np.sum on the same
# object skip it -- np.asarray made it NaN, propagated (a silent wrong value)
# ---------------------------------------------------------------------------

pd = pytest.importorskip("pandas", reason="pandas is not installed (the 'pandas' extra)")


@pytest.mark.parametrize("dtype", ["Float64", "Float32", "Int64", "Int8", "UInt32"])
@pytest.mark.parametrize("wrap", ["array", "series"])
def test_pandas_nullable_operands_skip_na(dtype, wrap):
    vals = [5, None, 7, 2, None]
    a = pd.array(vals, dtype=dtype)
    a = pd.Series(a) if wrap == "series" else a
    keep = np.array([5.0, 7.0, 2.0])
    assert tuple(float(v) for v in nr.minmax(a)) == (2.0, 7.0)
    assert tuple(int(v) for v in nr.argminmax(a)) == (3, 2)  # positions in the whole array
    m, v = nr.meanvar(a)
    assert float(m) == pytest.approx(keep.mean()) and float(v) == pytest.approx(keep.var())
    assert float(nr.fsum(a)) == 14.0
    w = pd.array([1.0, 2.0, None, 1.0, 1.0], dtype="Float64")  # <NA> in the weights
    m, _ = nr.meanvar(np.arange(5.0), weights=w)
    assert float(m) == pytest.approx(np.average([0.0, 1.0, 3.0, 4.0], weights=[1, 2, 1, 1]))
    y = pd.array([1.0, 2.0, 3.0, None, 5.0], dtype="Float64")
    with pytest.raises(TypeError, match="mask of y"):  # sumprod refuses masks, naming y
        nr.sumprod(np.arange(5.0), y)


def test_pandas_nullable_without_na_is_plain_data():
    a = pd.array([3, 1, 2], dtype="Int64")
    got = nr.minmax(a)
    assert not isinstance(got[0], np.ma.MaskedArray) and tuple(got) == (1, 3)
    assert nr.minmax(pd.Series(a)) == (1, 3)


def test_pandas_all_na_is_masked_and_mapreduce_refuses_na():
    got = nr.minmax(pd.array([None, None], dtype="Float64"))
    assert got[0] is np.ma.masked and got[1] is np.ma.masked
    with pytest.raises(TypeError, match="<NA>"):
        nr.mapreduce(np.square, nr.fsum, pd.array([1.0, None], dtype="Float64"))
    with pytest.raises(TypeError, match="weights"):
        nr.mapreduce(np.square, nr.meanvar, np.arange(3.0),
                     weights=pd.array([1.0, None, 1.0], dtype="Float64"))
    assert float(nr.mapreduce(np.square, nr.fsum, pd.array([1.0, 2.0], dtype="Float64"))) == 5.0


def test_masked_group_ids_and_at_indices_refused():
    ids = np.ma.array([0, 1, 0], mask=[False, True, False])
    with pytest.raises(TypeError, match="group_ids"):
        nr.group_minmax(np.arange(3.0), ids)
    with pytest.raises(TypeError, match="group_ids"):
        nr.reduce_by_group(nr.minimummaximum, np.arange(3.0), ids)
    outs = (np.full(2, np.inf), np.full(2, -np.inf))
    with pytest.raises(TypeError, match="indices"):
        nr.at(nr.minimummaximum, outs, ids, np.arange(3.0))
    assert np.isinf(outs[0]).all()  # nothing written
    # a masked array without masked entries is its data
    np.testing.assert_array_equal(nr.group_minmax(np.arange(3.0), np.ma.array([0, 1, 0]))[1],
                                  [2.0, 1.0])
