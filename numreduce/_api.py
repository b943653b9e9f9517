"""What most users call: NumPy-style functions on top of the engine."""

from __future__ import annotations

from . import _core
from ._engine import NoValue, reduce

__all__ = ["minmax"]


def minmax(a, axis=None, out=None, keepdims=False, initial=NoValue, where=True):
    """Minimum and maximum of an array in one pass.

    Same signature and semantics as NumPy 2.6's ``np.minmax``: returns
    ``(np.min(a, ...), np.max(a, ...))`` -- NaN (NaT) propagates, an empty
    reduction without ``initial`` raises ``ValueError``, ``where`` needs an
    ``initial``.  Runs on every NumPy >= 2.0 (numreduce's engine).

    Parameters
    ----------
    a : array_like
    axis : None, int or tuple of ints, default None (the whole array)
    out : tuple of two ndarrays (or None entries), optional
    keepdims : bool, default False
    initial : scalar or (min_initial, max_initial), optional
        A scalar seeds both outputs; a tuple gives one value per output.
    where : array_like of bool, optional

    Returns
    -------
    (min, max) : NumPy scalars for a full reduction, else arrays.

    Examples
    --------
    >>> import numpy as np, numreduce as nr
    >>> nr.minmax(np.array([3, 1, 4, 1, 5]))
    (np.int64(1), np.int64(5))
    >>> nr.minmax(np.array([[1., 2.], [3., np.nan]]), axis=0)
    (array([ 1., nan]), array([ 3., nan]))
    >>> nr.minmax([], initial=(np.inf, -np.inf))
    (np.float64(inf), np.float64(-inf))
    """
    return reduce(_core.minimummaximum, a, axis=axis, out=out, keepdims=keepdims,
                  initial=initial, where=where)
