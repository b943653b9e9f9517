"""Cumulative user functions built on ``numreduce.accumulate`` (one pass
through the scan loop), with the signatures of NumPy's ``np.cumulative_*``
functions."""

from __future__ import annotations

import numpy as np

from ._core import minimummaximum
from ._methods import accumulate

__all__ = ["cumminmax"]


def cumminmax(x, /, *, axis=None, dtype=None, out=None):
    """Running minimum and maximum in one pass:
    ``(np.minimum.accumulate(x, axis), np.maximum.accumulate(x, axis))``.

    The signature is ``np.cumulative_sum``'s, less ``include_initial``:
    minimum and maximum have no identity (``np.minimum.identity`` is None),
    so an empty prefix has no value to include.

    Parameters
    ----------
    x : array_like
        0-d input is treated as 1-d, as ``np.cumulative_sum`` does.
    axis : int, optional
        Required for input of more than one dimension (ValueError
        otherwise); ``None`` for 1-d input.
    dtype : dtype, optional
        Dtype of both outputs (the input is cast to it).
    out : tuple of two (ndarray or None), optional
        Of ``x``'s shape; may overlap ``x``.

    Returns
    -------
    (running_min, running_max) : tuple of ndarray
        NaN/NaT-propagating, as ``np.minimum.accumulate``: from the first NaN
        on, both are NaN.

    Examples
    --------
    >>> import numpy as np, numreduce as nr
    >>> nr.cumminmax(np.array([3., 1., 4., 1., 5., 9., 2.]))
    (array([3., 1., 1., 1., 1., 1., 1.]), array([3., 3., 4., 4., 5., 9., 9.]))
    >>> lo, hi = nr.cumminmax(np.array([[2, 7], [5, 1]]), axis=0)
    >>> lo
    array([[2, 7],
           [2, 1]])
    """
    # no np.asarray here: accumulate's entry applies the array-type policy
    # (masked arrays refused, subclasses kept, NEP 18)
    if np.ndim(x) == 0:
        x = np.reshape(x, 1)
    if axis is None:
        if np.ndim(x) > 1:
            raise ValueError("cumminmax: for arrays which have more than one dimension "
                             "``axis`` argument is required.")
        axis = 0
    return accumulate(minimummaximum, x, axis=axis, dtype=dtype, out=out)
