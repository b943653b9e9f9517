"""numreduce: multi-output ufuncs with real reductions.

``minimummaximum(a, b) -> (min, max)`` is a real ``np.ufunc``.  Its
``reduce`` runs natively where NumPy has the multi-output reduction slots
(NumPy 2.6+); ``numreduce.reduce(ufunc, ...)`` gives the same results on
every NumPy 2.x.  See ``show_config()`` for the active path.
"""

from __future__ import annotations

from ._version import __version__  # noqa: F401 (numreduce.__version__)

from . import _core  # noqa: F401 (numreduce._core: the extension, for tools and tests)
from ._core import (comoments, fminfmax, maxsumexp, maxsumexpb, minimummaximum, moments,
                    nanmoments, nansummary, nanwsummary, nanwmoments, summary, twoprod, twosum,
                    wmoments, wsummary)
from ._args import NoValue
from ._api import (DescribeResult, accumulate, at, correlation, covariance, cumfsum, cummeanvar,
                   cumminmax, describe, kurtosis, skew,
                   group_argminmax, group_fsum, group_logsumexp, group_meanvar, group_minmax,
                   logcumsumexp, mapreduce, merge, nancumminmax, reduce, reduce_by_group, reduceat,
                   segmented_reduce, sumprod)
# the user functions bound to their C fast-path callables (the general
# entries stay reachable as numreduce._api.<name>)
from ._fastpath import (argminmax, fsum, logsumexp, meanstd, meanvar, minmax, nanargminmax,
                        nanmeanvar, nanminmax)
from ._config import HAVE_NATIVE_REDUCE, get_num_threads, set_num_threads, show_config
from ._extension import C_API_VERSION, get_include


__all__ = [
    "C_API_VERSION",
    "DescribeResult",
    "describe",
    "kurtosis",
    "nansummary",
    "nanwsummary",
    "wsummary",
    "skew",
    "summary",
    "HAVE_NATIVE_REDUCE",
    "NoValue",
    "accumulate",
    "argminmax",
    "comoments",
    "correlation",
    "covariance",
    "cumfsum",
    "cummeanvar",
    "at",
    "cumminmax",
    "fminfmax",
    "fsum",
    "get_include",
    "get_num_threads",
    "logcumsumexp",
    "mapreduce",
    "maxsumexpb",
    "nanwmoments",
    "sumprod",
    "twoprod",
    "wmoments",
    "group_argminmax",
    "group_fsum",
    "group_logsumexp",
    "group_meanvar",
    "group_minmax",
    "logsumexp",
    "maxsumexp",
    "meanstd",
    "meanvar",
    "merge",
    "minimummaximum",
    "minmax",
    "moments",
    "nanargminmax",
    "nancumminmax",
    "nanmeanvar",
    "nanminmax",
    "nanmoments",
    "reduce",
    "reduceat",
    "segmented_reduce",
    "reduce_by_group",
    "set_num_threads",
    "show_config",
    "twosum",
]
