"""mapreduce's behaviour does not depend on the array's size (issue 36,
class 7): every reduction it accepts, with every keyword it takes, gives
the result of ``reduction(f(*arrays), ...)`` -- or the same exception --
below and above the block size (one block: the image itself; more: the
blocks of ``_mapped``).  ``weights=``, ``b=``, ``return_sign=`` and complex
``logsumexp`` once worked below 65,536 elements and raised above."""

from __future__ import annotations

import itertools
import warnings

import numpy as np
import pytest

import numreduce as nr

BLOCK = 1 << 16

REDUCTIONS = {
    "minmax": nr.minmax, "nanminmax": nr.nanminmax, "argminmax": nr.argminmax,
    "nanargminmax": nr.nanargminmax, "meanvar": nr.meanvar, "meanstd": nr.meanstd,
    "nanmeanvar": nr.nanmeanvar, "logsumexp": nr.logsumexp, "fsum": nr.fsum,
    "moments": nr.moments, "minimummaximum": nr.minimummaximum, "twosum": nr.twosum,
}


def _keywords(x, w):
    last = (slice(None),) * (x.ndim - 1) + (slice(0, 1),)
    return {
        "none": {}, "axis=0": {"axis": 0}, "axis=-1": {"axis": -1},
        "keepdims": {"keepdims": True}, "where": {"where": x > 0},
        "weights": {"weights": w}, "weights axis=-1": {"weights": w, "axis": -1},
        "weights broadcast": {"weights": w[last]},
        "weights where": {"weights": w, "where": x > 0},
        "weights ddof": {"weights": w, "ddof": 1},
        "b": {"b": w}, "b<0 return_sign": {"b": -w, "return_sign": True},
        "return_sign": {"return_sign": True},
        "return_sign axis=-1": {"return_sign": True, "axis": -1},
        "ddof": {"ddof": 1}, "correction": {"correction": 1}, "dtype": {"dtype": np.float32},
        "initial": {"initial": 5.0},
    }


def _outcome(f):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        try:
            r = f()
        except Exception as e:  # the exception's type is compared
            return type(e)
    return tuple(np.asarray(v) for v in (r if isinstance(r, tuple) else (r,)))


def _same(got, ref):
    if isinstance(ref, type) or isinstance(got, type):
        return got is ref
    return len(got) == len(ref) and all(
        g.shape == r.shape and g.dtype == r.dtype
        and np.allclose(g, r, rtol=1e-9, atol=1e-12, equal_nan=True) for g, r in zip(got, ref))


@pytest.mark.parametrize("n", [1000, BLOCK, BLOCK + 1000])
@pytest.mark.parametrize("ndim", [1, 2])
@pytest.mark.parametrize("kind", ["real", "complex"])
def test_every_reduction_and_keyword_at_every_size(n, ndim, kind):
    rng = np.random.default_rng(n + ndim)
    shape = (n,) if ndim == 1 else (4, n // 4)
    x = rng.standard_normal(shape)
    if kind == "complex":
        x = x + 1j * rng.standard_normal(shape)
    w = rng.random(shape)
    f = np.negative
    bad = []
    for (name, red), (kname, kw) in itertools.product(REDUCTIONS.items(),
                                                      _keywords(x.real, w).items()):
        got = _outcome(lambda: nr.mapreduce(f, red, x, **kw))
        if isinstance(red, np.ufunc):  # mapreduce's axis=None reduces every axis
            ref = _outcome(lambda: nr.reduce(red, f(x), **({"axis": None} | kw)))
        else:
            ref = _outcome(lambda: red(f(x), **kw))
        if name == "twosum" and not isinstance(got, type) and not isinstance(ref, type):
            got, ref = (got[0] + got[1],), (ref[0] + ref[1],)  # the (s, e) split may differ
        if not _same(got, ref):
            bad.append((name, kname, got if isinstance(got, type) else "values",
                        ref if isinstance(ref, type) else "values"))
    assert not bad, bad


@pytest.mark.parametrize("n", [1000, BLOCK + 1000])
def test_logsumexp_return_sign_any_size(n):
    # issue 36: raised "logsumexp with b of a mapped array is not supported" above 65,536
    x = np.linspace(-3, 3, n)
    sp = pytest.importorskip("scipy.special")
    ref = sp.logsumexp(-x, return_sign=True)
    got = nr.mapreduce(np.negative, nr.logsumexp, x, return_sign=True)
    np.testing.assert_allclose(got, ref, rtol=1e-13)
    b = np.cos(x)
    np.testing.assert_allclose(nr.mapreduce(np.negative, nr.logsumexp, x, b=b, return_sign=True),
                               sp.logsumexp(-x, b=b, return_sign=True), rtol=1e-12)


@pytest.mark.parametrize("n", [1000, BLOCK + 1000])
def test_weighted_meanvar_any_size(n):
    x = np.linspace(-3, 3, n)
    w = np.abs(np.sin(x)) + 0.1
    m, v = nr.mapreduce(np.square, nr.meanvar, x, weights=w)
    ref = np.average(x ** 2, weights=w)
    np.testing.assert_allclose(m, ref, rtol=1e-13)
    np.testing.assert_allclose(v, np.average((x ** 2 - ref) ** 2, weights=w), rtol=1e-12)
    # weights that broadcast the image further: f runs on the broadcast sources
    x2 = np.linspace(0, 1, n // 4 + 1)
    w2 = np.stack([np.ones_like(x2), 2 * np.ones_like(x2), x2 + 1, x2 * 0 + 3])
    got = nr.mapreduce(np.square, nr.meanvar, x2, weights=w2, axis=-1)
    np.testing.assert_allclose(got[0], np.average(np.broadcast_to(x2 ** 2, w2.shape),
                                                  weights=w2, axis=-1), rtol=1e-13)
    # a negative weight, above and below the block size
    with pytest.raises(ValueError, match="non-negative"):
        nr.mapreduce(np.square, nr.meanvar, x, weights=-w)
