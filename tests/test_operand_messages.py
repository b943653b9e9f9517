"""Messages that name what is wrong (issue 36, class 8): uint64 group ids
beyond the intp range, an ``f`` of mapreduce that writes its input, complex
data where another argument makes the reduction real-only."""

import numpy as np
import pytest

import numreduce as nr

BIG = 2**63 + 5  # a uint64 id beyond the intp range
IDS = np.array([0, BIG, 1], dtype=np.uint64)
X = np.arange(3.0)

GROUPED = [
    lambda ids, **kw: nr.reduce_by_group(nr.minimummaximum, X, ids, **kw),
    lambda ids, **kw: nr.reduce_by_group(nr.moments, X, ids, **kw),
    lambda ids, **kw: nr.group_minmax(X, ids, **kw),
    lambda ids, **kw: nr.group_meanvar(X, ids, **kw),
    lambda ids, **kw: nr.group_meanvar(X, ids, weights=np.ones(3), **kw),
    lambda ids, **kw: nr.group_fsum(X, ids, **kw),
    lambda ids, **kw: nr.group_logsumexp(X, ids, **kw),
    lambda ids, **kw: nr.group_argminmax(X, ids, **kw),
]


@pytest.mark.parametrize("call", GROUPED)
@pytest.mark.parametrize("num_groups", [None, 3])
def test_uint64_ids_beyond_intp_name_position_and_value(call, num_groups):
    with pytest.raises(IndexError, match=rf"group_ids\[1\] = {BIG} is outside \[0, "):
        call(IDS, num_groups=num_groups)


def test_uint64_ids_beyond_intp_dask():
    da = pytest.importorskip("dask.array", reason="dask[array] is not installed")
    for num_groups in (None, 3):
        with pytest.raises(IndexError, match=rf"group_ids\[1\] = {BIG} is outside \[0, "):
            nr.group_minmax(da.from_array(X, chunks=2), IDS, num_groups=num_groups)


def test_uint64_ids_beyond_intp_at():
    outs = (np.zeros(3), np.zeros(3))
    with pytest.raises(IndexError, match=str(BIG)):
        nr.at(nr.minimummaximum, outs, IDS, X)
    np.testing.assert_array_equal(outs, np.zeros((2, 3)))  # nothing written


@pytest.mark.parametrize("n", [5, 200_000])  # one block, several blocks
@pytest.mark.parametrize("f", [lambda b: np.add(b, 1, out=b), lambda b: b.__iadd__(1)])
def test_mapreduce_f_writing_its_input(n, f):
    x = np.arange(float(n))
    with pytest.raises(ValueError, match="f must not write into its input"):
        nr.mapreduce(f, nr.fsum, x)
    np.testing.assert_array_equal(x, np.arange(float(n)))


@pytest.mark.parametrize("call,names", [
    (lambda: nr.meanvar(np.ones(3) + 1j, weights=np.ones(3)), "of the array .*with weights"),
    (lambda: nr.meanstd(np.ones(3) + 1j, weights=np.ones(3)), "of the array .*with weights"),
    (lambda: nr.nanmeanvar(np.ones(3) + 1j, weights=np.ones(3)), "of the array .*with weights"),
    (lambda: nr.meanvar(np.ones(3), weights=np.ones(3) + 0j), r"of weights \(real numbers only\)"),
    (lambda: nr.group_meanvar(np.ones(3) + 1j, np.array([0, 0, 1]), weights=np.ones(3)),
     "of the array .*with weights"),
    (lambda: nr.logsumexp(np.ones(3) + 1j, b=np.ones(3)), "of a .*with b"),
    (lambda: nr.logsumexp(np.ones(3) + 1j, return_sign=True), "of a .*with return_sign"),
    (lambda: nr.logsumexp(np.ones(3), b=np.ones(3) + 1j), r"of b \(real numbers only\)"),
    (lambda: nr.covariance(np.ones(3), np.ones(3) + 1j), r"of y \(real numbers only\)"),
])
def test_complex_data_names_the_argument(call, names):
    with pytest.raises(TypeError, match=f"unsupported dtype complex128 {names}"):
        call()


def test_complex_data_without_those_arguments_works():
    """The same data without weights= / b= / return_sign: supported."""
    z = np.array([1 + 1j, 3 - 1j])
    assert nr.meanvar(z) == (np.mean(z), np.var(z))
    np.testing.assert_allclose(nr.logsumexp(z), np.log(np.sum(np.exp(z))))
