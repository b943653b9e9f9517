"""out= casting follows the NumPy function each public function mirrors
(issue 36, class 6): for every data dtype x out dtype, numreduce accepts
the out where NumPy does (and writes NumPy's cast values), and raises a
TypeError before writing anything where NumPy raises one -- np.std's
same_kind ``sqrt`` into an integer, bool or object out, np.nanvar's "If a
is inexact, then out must be inexact"."""

from __future__ import annotations

import warnings

import numpy as np
import pytest

import numreduce as nr

DATA = ["float64", "float32", "float16", "int64", "int8", "bool", "complex128"]
OUTS = ["float64", "float32", "float16", "complex128", "int64", "int8", "uint8", "bool",
        "object"]


def _data(dt):
    # non-negative and small: every out dtype holds the results (NumPy's
    # unsafe casts of values out of range differ from path to path)
    x = np.array([[1.5, 2.5, 7.0], [4.25, 3.5, 6.5]])
    if np.dtype(dt).kind == "c":
        return (x + 1j * x[::-1]).astype(dt)
    if np.dtype(dt).kind == "b":
        return x > 2
    return x.astype(dt)


# (numreduce function, its NumPy mirrors, one per result, keyword arguments)
PAIRS = [
    ("minmax", nr.minmax, (np.min, np.max), {}),
    ("nanminmax", nr.nanminmax, (np.nanmin, np.nanmax), {}),
    ("meanvar", nr.meanvar, (np.mean, np.var), {}),
    ("meanstd", nr.meanstd, (np.mean, np.std), {}),
    ("nanmeanvar", nr.nanmeanvar, (np.nanmean, np.nanvar), {}),
    ("meanvar ddof=1", nr.meanvar, (np.mean, np.var), {"ddof": 1}),
    ("meanstd ddof=1", nr.meanstd, (np.mean, np.std), {"ddof": 1}),
    ("fsum", nr.fsum, (np.sum,), {}),
]


def _casting_error(r):
    """Whether NumPy's outcome ``r`` is a refusal of the out's dtype (a
    casting rule), not a missing loop that an object or complex out selects
    (np.nanmin's isnan of its object out, np.min's object comparisons of
    complex values, np.logaddexp into a complex out: numreduce computes in
    the data's loop and casts into such outs)."""
    return isinstance(r, TypeError) and any(
        s in str(r) for s in ("Cannot cast", "must be inexact"))


def _outcome(f):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        try:
            return f()
        except TypeError as e:
            return e


@pytest.mark.parametrize("name,fn,refs,kw", PAIRS, ids=[p[0] for p in PAIRS])
@pytest.mark.parametrize("xdt", DATA)
@pytest.mark.parametrize("odt", OUTS)
def test_out_casting_is_numpys(name, fn, refs, kw, xdt, odt):
    if xdt == "float16" and odt == "object" and refs[0] is not np.min:
        pytest.skip("NumPy 2.4's np.mean of float16 data into an object out segfaults")
    x = _data(xdt)
    ref_outs = [np.full(3, 7, dtype=odt) for _ in refs]
    refs_res = [_outcome(lambda r=r, o=o, k=k: r(x, axis=0, out=o, **k))
                for r, o, k in zip(refs, ref_outs, ({}, kw) if len(refs) == 2 else (kw,))]
    if any(isinstance(r, Exception) and not _casting_error(r) for r in refs_res):
        pytest.skip("NumPy finds no loop here")  # not a casting question
    outs = tuple(np.full(3, 7, dtype=odt) for _ in refs)
    before = [o.copy() for o in outs]
    if isinstance(fn(x, axis=0, **kw), Exception):
        return
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            fn(x, axis=0, out=outs if len(outs) > 1 else outs[0], **kw)
    except TypeError:
        got_error = True
        for o, b in zip(outs, before):  # raised before anything was written
            np.testing.assert_array_equal(o, b)
    else:
        got_error = False
    ref_error = any(_casting_error(r) for r in refs_res)
    if name.startswith(("minmax", "nanminmax", "fsum")) and got_error and not ref_error:
        # numreduce refuses some outs NumPy's ufunc.reduce takes (complex data into a real
        # out); never the other way round
        return
    assert got_error == ref_error, (refs_res, outs)
    if not got_error:
        for o, r in zip(outs, ref_outs):
            if odt == "object":
                np.testing.assert_allclose(o.astype(complex), r.astype(complex), rtol=1e-6)
            else:
                np.testing.assert_allclose(o.astype(complex), r.astype(complex), rtol=1e-3,
                                           atol=1e-3 if o.dtype.itemsize <= 2 else 0)


@pytest.mark.parametrize("odt", OUTS)
def test_meanstd_std_out_same_kind(odt):
    # issue 36: meanstd accepted an int64 std out and truncated; np.std raises
    x = np.arange(6.0).reshape(2, 3)
    ok = np.can_cast(np.float64, odt, "same_kind") and odt != "object"
    o = np.zeros(3, odt)
    if ok:
        nr.meanstd(x, axis=0, out=(None, o))
        np.testing.assert_allclose(o.astype(complex), np.std(x, axis=0), rtol=1e-3)
    else:
        with pytest.raises(TypeError):
            np.std(x, axis=0, out=np.zeros(3, odt))
        with pytest.raises(TypeError, match="same_kind"):
            nr.meanstd(x, axis=0, out=(None, o))
        with pytest.raises(TypeError, match="same_kind"):
            nr.meanstd(x, axis=0, out=(None, o), weights=np.ones_like(x))
        assert not o.any()


@pytest.mark.parametrize("odt", ["int64", "bool", "object", "uint8"])
def test_nanmeanvar_inexact_data_needs_inexact_out(odt):
    # issue 36: nanmeanvar wrote into an int64 out; np.nanvar raises
    x = np.arange(6.0).reshape(2, 3)
    for i in (0, 1):
        outs = [None, None]
        outs[i] = np.zeros(3, odt)
        with pytest.raises(TypeError, match="inexact"):
            (np.nanmean, np.nanvar)[i](x, axis=0, out=np.zeros(3, odt))
        with pytest.raises(TypeError, match="inexact"):
            nr.nanmeanvar(x, axis=0, out=tuple(outs))
        with pytest.raises(TypeError, match="inexact"):
            nr.nanmeanvar(x, axis=0, out=tuple(outs), weights=np.ones_like(x))
    # integer data: np.nanvar is np.var, whose out is cast unsafely
    xi = np.arange(6).reshape(2, 3)
    o = np.zeros(3, "int64")
    nr.nanmeanvar(xi, axis=0, out=(o, None))
    np.testing.assert_array_equal(o, np.nanmean(xi, axis=0, out=np.zeros(3, "int64")))


def test_argminmax_out_never_looser_than_numpy():
    x = np.arange(6.0).reshape(2, 3)
    for odt in OUTS:
        ref = _outcome(lambda: np.argmin(x, axis=0, out=np.zeros(3, odt)))
        got = _outcome(lambda: nr.argminmax(x, axis=0, out=(np.zeros(3, odt),
                                                             np.zeros(3, odt))))
        if isinstance(ref, TypeError):
            assert isinstance(got, TypeError), odt


@pytest.mark.parametrize("odt", OUTS)
def test_scans_out_casting_is_numpys(odt):
    x = np.array([[1.5, 2.5, 7.0], [4.25, -3.5, 6.5]])
    cases = [
        # np.cumulative_sum is NumPy >= 2.1; np.cumsum (the same add.accumulate
        # with out=) on NumPy 2.0
        (lambda o: nr.cumfsum(x, axis=1, out=o),
         lambda o: getattr(np, "cumulative_sum", np.cumsum)(x, axis=1, out=o)),
        (lambda o: nr.logcumsumexp(x, axis=1, out=o),
         lambda o: np.logaddexp.accumulate(x, axis=1, out=o)),
        (lambda o: nr.cumminmax(x, axis=1, out=(o, np.zeros_like(o))),
         lambda o: np.minimum.accumulate(x, axis=1, out=o)),
    ]
    for ours, ref in cases:
        r = _outcome(lambda: ref(np.zeros(x.shape, odt)))
        g = _outcome(lambda: ours(np.zeros(x.shape, odt)))
        if isinstance(r, TypeError) and not _casting_error(r):
            continue  # no loop of NumPy's for that out
        assert isinstance(g, TypeError) == isinstance(r, TypeError), (odt, g, r)
