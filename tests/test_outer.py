"""ufunc.outer works natively on numreduce's multi-output ufuncs (NumPy's
own outer machinery runs the forward loops): one array per output, checked
against NumPy's single-output outer products."""

from __future__ import annotations

from fractions import Fraction

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st
from hypothesis.extra import numpy as hnp

import numreduce as nr

from helpers import ALL_DTYPES, arrays


@pytest.mark.parametrize("u, lo, hi", [(nr.minimummaximum, np.minimum, np.maximum),
                                       (nr.fminfmax, np.fmin, np.fmax)],
                         ids=["minimummaximum", "fminfmax"])
@given(a=arrays(dtypes=ALL_DTYPES, max_dims=2, max_side=4), data=st.data())
def test_outer_order_against_numpy(u, lo, hi, a, data):
    b = data.draw(arrays(dtypes=[a.dtype], max_dims=2, max_side=4))
    got = u.outer(a, b)
    want = (lo.outer(a, b), hi.outer(a, b))
    for g, w in zip(got, want):
        assert g.dtype == w.dtype and g.shape == w.shape == a.shape + b.shape
        np.testing.assert_array_equal(g, w)


floats = st.floats(-1e3, 1e3, allow_nan=False)


@given(a=hnp.arrays(np.float64, hnp.array_shapes(max_dims=2, max_side=4), elements=floats),
       b=hnp.arrays(np.float64, hnp.array_shapes(max_dims=1, max_side=4), elements=floats))
def test_outer_moments_maxsumexp_twosum(a, b):
    n, mean, m2 = nr.moments.outer(a, b)
    pair = np.stack(np.broadcast_arrays(a[(...,) + (None,) * b.ndim], b), axis=-1)
    np.testing.assert_array_equal(n, 2.0)
    np.testing.assert_allclose(mean, pair.mean(axis=-1), rtol=1e-15, atol=1e-12)  # |x| <= 1e3
    np.testing.assert_allclose(m2, 2 * pair.var(axis=-1), rtol=1e-13, atol=1e-8)
    m, s = nr.maxsumexp.outer(a, b)
    np.testing.assert_array_equal(m, np.maximum.outer(a, b))
    np.testing.assert_allclose(m + np.log1p(s), np.logaddexp.outer(a, b), rtol=1e-14, atol=1e-13)
    s, e = nr.twosum.outer(a, b)
    np.testing.assert_array_equal(s, np.add.outer(a, b))
    for si, ei, x, y in zip(s.ravel(), e.ravel(), pair[..., 0].ravel(), pair[..., 1].ravel()):
        assert Fraction(si) + Fraction(ei) == Fraction(x) + Fraction(y)


def test_outer_out_and_nan():
    a = np.array([1.0, np.nan, 3.0])
    b = np.array([2.0, np.nan])
    lo, hi = np.empty((3, 2)), np.empty((3, 2))
    ret = nr.minimummaximum.outer(a, b, out=(lo, hi))
    assert ret[0] is lo and ret[1] is hi
    np.testing.assert_array_equal(lo, np.minimum.outer(a, b))
    np.testing.assert_array_equal(hi, np.maximum.outer(a, b))
    flo, fhi = nr.fminfmax.outer(a, b)
    np.testing.assert_array_equal(flo, np.fmin.outer(a, b))
    np.testing.assert_array_equal(fhi, np.fmax.outer(a, b))


def test_outer_datetime_units():
    a = np.array(["2020-01-01", "NaT"], dtype="M8[D]")
    b = np.array(["2019-06-01T12:00"], dtype="M8[m]")
    lo, hi = nr.minimummaximum.outer(a, b)
    assert lo.dtype == np.minimum.outer(a, b).dtype
    np.testing.assert_array_equal(lo, np.minimum.outer(a, b))
    np.testing.assert_array_equal(hi, np.maximum.outer(a, b))
