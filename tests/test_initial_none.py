"""``initial=None`` starts every output from the first element's state
(issue 36, class 10): lift(x), what "no initial" means, not the raw element
copied into every output -- which gave a count of -2 for the moments of
[-3, 4].  For min/max (lift is x) that is NumPy's rule, unchanged."""

import numpy as np
import pytest

import numreduce as nr

UFUNCS = [nr.moments, nr.nanmoments, nr.maxsumexp, nr.twosum, nr.minimummaximum, nr.fminfmax]


def _layouts():
    rng = np.random.default_rng(10)
    a = rng.normal(size=(5, 6))
    yield np.array([-3.0, 4.0]), None
    yield a, None
    yield a, 0
    yield a, 1
    yield a, (0, 1)
    yield a[::2, ::-3], 0
    yield a.T, 1
    yield rng.normal(size=(3, 4, 5)), (0, 2)
    yield np.arange(-6, 6).reshape(3, 4), 0       # integers (float64 states)
    yield a.astype(">f8"), 1                      # byte-swapped
    yield a.astype(np.float32), 0


@pytest.mark.parametrize("ufunc", UFUNCS)
@pytest.mark.parametrize("case", list(_layouts()), ids=lambda c: f"{c[0].shape}-{c[1]}")
def test_initial_none_is_the_default_reduction(ufunc, case):
    x, axis = case
    try:
        want = nr.reduce(ufunc, x, axis=axis)
    except TypeError:  # no loop for this dtype (nanmoments of integers): the same error
        with pytest.raises(TypeError):
            nr.reduce(ufunc, x, axis=axis, initial=None)
        return
    got = nr.reduce(ufunc, x, axis=axis, initial=None)
    for g, w in zip(got, want):
        np.testing.assert_allclose(g, w, rtol=1e-12, atol=1e-12)


@pytest.mark.parametrize("case", list(_layouts()), ids=lambda c: f"{c[0].shape}-{c[1]}")
def test_initial_none_against_numpy(case):
    x, axis = case
    n, mean, m2 = nr.reduce(nr.moments, x, axis=axis, initial=None)
    np.testing.assert_array_equal(n, np.sum(np.ones_like(x, dtype=float), axis=axis))
    # a mean near 0 (a column of [-1, 1]) is 0 within the rounding of its
    # terms: an absolute tolerance from the data's magnitude and size (an
    # -fsanitize build's code gave -1.1e-16 where NumPy gives 0)
    big = float(np.max(np.abs(x))) if x.size else 0.0
    np.testing.assert_allclose(mean, np.mean(x, axis=axis, dtype=np.float64), rtol=1e-12,
                               atol=4 * x.size * np.finfo(np.float64).eps * big)
    np.testing.assert_allclose(m2 / n, np.var(x, axis=axis, dtype=np.float64), rtol=1e-10,
                               atol=1e-12)
    s, e = nr.reduce(nr.twosum, x, axis=axis, initial=None)  # (float32 sums for float32)
    tol = 1e-6 if x.dtype == np.float32 else 1e-12
    np.testing.assert_allclose(s + e, np.sum(x, axis=axis, dtype=np.float64), rtol=tol,
                               atol=tol)
    m, t = nr.reduce(nr.maxsumexp, x, axis=axis, initial=None)
    np.testing.assert_allclose(m + np.log1p(t), np.log(np.sum(np.exp(x.astype(np.float64)),
                                                              axis=axis)), rtol=1e-12)
    # min/max: NumPy's own initial=None rule (the first element), bit for bit
    lo, hi = nr.reduce(nr.minimummaximum, x, axis=axis, initial=None)
    ax = axis if axis is not None else tuple(range(x.ndim))
    np.testing.assert_array_equal(lo, np.minimum.reduce(x, axis=ax, initial=None))
    np.testing.assert_array_equal(hi, np.maximum.reduce(x, axis=ax, initial=None))


def test_issue_example():
    assert nr.reduce(nr.moments, np.array([-3.0, 4.0]), initial=None) == (2.0, 0.5, 24.5)


def test_initial_none_datetime():
    t = np.array(["2020-01-01", "2019-05-03", "2021-01-01"], "M8[D]").reshape(3, 1)
    lo, hi = nr.reduce(nr.minimummaximum, t, axis=0, initial=None)
    assert lo.dtype == t.dtype and lo[0] == np.datetime64("2019-05-03")
    assert hi[0] == np.datetime64("2021-01-01")


@pytest.mark.parametrize("ufunc", UFUNCS)
def test_initial_none_empty_and_where_still_refused(ufunc):
    with pytest.raises(ValueError):
        nr.reduce(ufunc, np.empty((0, 3)), axis=0, initial=None)
    with pytest.raises(ValueError):
        nr.reduce(ufunc, np.ones(3), initial=None, where=np.array([True, False, True]))
