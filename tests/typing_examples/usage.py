"""A user's script touching every public name of numreduce, checked by
`mypy --strict` against numreduce/__init__.pyi (tests/test_typing.py).
It is also run, so the calls are real ones."""

from typing import Any

import numpy as np
from numpy.typing import NDArray

import numreduce as nr

a: NDArray[np.float64] = np.linspace(-1.0, 1.0, 24).reshape(4, 6)
ids: NDArray[np.intp] = np.array([0, 1, 0, 2], dtype=np.intp)

version: str = nr.__version__
native: bool = nr.HAVE_NATIVE_REDUCE
missing: object = nr.NoValue

ufuncs: list[np.ufunc] = [nr.minimummaximum, nr.fminfmax, nr.moments, nr.nanmoments,
                          nr.summary, nr.nansummary, nr.maxsumexp, nr.twosum]

lo, hi = nr.minmax(a, axis=0, keepdims=True)
lo, hi = nr.minmax(a, axis=(0, 1), initial=(np.inf, -np.inf), where=a > 0)
nlo, nhi = nr.nanminmax(a, axis=1)
i_lo, i_hi = nr.argminmax(a, axis=0)
n_lo, n_hi = nr.nanargminmax(a)
mean, var = nr.meanvar(a, axis=1, ddof=1)
wmean, wvar = nr.meanvar(a, axis=1, weights=np.abs(a))
d: nr.DescribeResult = nr.describe(a, axis=None, ddof=0, bias=False, nan_policy="omit")
d_lo, d_hi = d.minmax
sk = nr.skew(a, axis=1, keepdims=True, where=a > -1.0, weights=np.abs(a))
ws: list[np.ufunc] = [nr.wsummary, nr.nanwsummary]
ku = nr.kurtosis(a, axis=0, fisher=False, nan_policy="propagate")
cov = nr.covariance(a, a, axis=1)
corr = nr.correlation(a, a, axis=None, keepdims=False)
dot = nr.sumprod(a, a, axis=0)
sq = nr.mapreduce(np.square, nr.fsum, a, axis=0)
lo_hi = nr.mapreduce(np.subtract, nr.minmax, a, a, keepdims=True)
lse_b, lse_sign = nr.logsumexp(a, axis=1, b=a, return_sign=True)
states2 = [nr.reduce(u, (a, a), axis=0)
           for u in (nr.wmoments, nr.nanwmoments, nr.comoments, nr.maxsumexpb, nr.twoprod)]
mean, std = nr.meanstd(a, dtype=np.float64)
nmean, nvar = nr.nanmeanvar(a, axis=None, keepdims=False)
lse: Any = nr.logsumexp(a, axis=1)
total: Any = nr.fsum(a, axis=0)

states = nr.reduce(nr.moments, a, axis=0)
first = nr.reduce(nr.moments, a[:2], axis=0)
second = nr.reduce(nr.moments, a[2:], axis=0)
merged: tuple[Any, ...] = nr.merge(nr.moments, first, second)
running = nr.accumulate(nr.minimummaximum, a, axis=0)
at_idx = nr.reduceat(nr.minimummaximum, a, [0, 2], axis=0)
segs: tuple[NDArray[Any], ...] = nr.segmented_reduce(nr.minimummaximum, a, [0, 1], [2, 4])
groups: tuple[NDArray[Any], ...] = nr.reduce_by_group(nr.minimummaximum, a, ids, num_groups=3)
acc_lo = np.full(3, np.inf)
acc_hi = np.full(3, -np.inf)
nr.at(nr.minimummaximum, (acc_lo, acc_hi), ids, a[:, 0])

c_lo, c_hi = nr.cumminmax(a, axis=1)
cn_lo, cn_hi = nr.nancumminmax(a, axis=0)
lcse: NDArray[np.floating[Any]] = nr.logcumsumexp(a, axis=1, include_initial=True)
cfs: NDArray[np.inexact[Any]] = nr.cumfsum(a, axis=0)
cmean, cvar = nr.cummeanvar(a, axis=1, ddof=0)

g_lo, g_hi = nr.group_minmax(a, ids, num_groups=3)
g_mean, g_var = nr.group_meanvar(a, ids, ddof=0)
g_lse: NDArray[Any] = nr.group_logsumexp(a, ids)
g_sum: NDArray[Any] = nr.group_fsum(a, ids, axis=0)
g_ilo, g_ihi = nr.group_argminmax(a[:, 0], ids)

old: int = nr.set_num_threads(2)
now: int = nr.get_num_threads()
nr.set_num_threads(old)
nr.show_config()

include_dir: str = nr.get_include()
api_major, api_minor = nr.C_API_VERSION
