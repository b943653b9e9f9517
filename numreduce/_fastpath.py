"""The public user functions as C callables with a fast path.

``numreduce.minmax`` (and nanminmax, argminmax, nanargminmax, meanvar,
meanstd, nanmeanvar, logsumexp, fsum) is a ``numreduce._core.fast_function``
(src/numreduce/fastpath.cpp): it computes the common call -- one plain
``np.ndarray`` of native byte order, aligned, a dtype with a loop, 1-D or
2-D along an axis (or any shape with ``axis=None``), no ``out``/``where``/
``initial``/``dtype``, ``keepdims=False`` -- directly with the engine's
kernels, and hands every other call, and every result that needs a warning
or an error, to the general Python function unchanged (``numreduce._api.<name>``,
the ``@public_function`` entry).  The general functions stay reachable as
``numreduce._api.<name>``; the tests compare both paths.

The callable looks like the function to users and tools: ``__name__``,
``__qualname__``, ``__doc__``, ``__wrapped__``, ``__signature__`` and
``_implementation`` are the general function's, ``__module__`` is
``numreduce`` (it pickles by name).
"""

from __future__ import annotations

import functools

from . import _api, _core

__all__ = ["argminmax", "fsum", "logsumexp", "meanstd", "meanvar", "minmax", "nanargminmax",
           "nanmeanvar", "nanminmax"]

_UFUNCS = {
    "minmax": (_core.minimummaximum, None),
    "nanminmax": (_core.fminfmax, None),
    "argminmax": (None, None),
    "nanargminmax": (None, None),
    "meanvar": (_core.moments, None),
    "meanstd": (_core.moments, None),
    "nanmeanvar": (_core.moments, _core.nanmoments),
    "logsumexp": (_core.maxsumexp, None),
    "fsum": (_core.twosum, None),
}


def _fast(name):
    general = getattr(_api, name)
    ufunc, nan_ufunc = _UFUNCS[name]
    fast = _core._fast_function(name, general, ufunc, nan_ufunc)
    functools.update_wrapper(fast, general)  # __name__, __doc__, __wrapped__, __dict__ ...
    fast.__module__ = "numreduce"
    fast.__qualname__ = name
    # The general entry passes itself to NEP 18 overrides as `func`: make that
    # the public object (what `func is numreduce.minmax` tests see).
    general.__globals__[general.__name__] = fast
    return fast


minmax = _fast("minmax")
nanminmax = _fast("nanminmax")
argminmax = _fast("argminmax")
nanargminmax = _fast("nanargminmax")
meanvar = _fast("meanvar")
meanstd = _fast("meanstd")
nanmeanvar = _fast("nanmeanvar")
logsumexp = _fast("logsumexp")
fsum = _fast("fsum")
