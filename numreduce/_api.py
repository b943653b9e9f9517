"""The public layer: the signatures and docstrings users see.

Every public function is one thin entry: ``@public_function`` (the array-type
policy of ``_dispatch``) over one method of ``_methods`` or one statistic
of ``_stats``, run with the backend the policy picks -- ``_host`` for NumPy
arrays, ``_dask`` for Dask arrays, ``_cupy`` for CuPy arrays.  The bodies
below are not run: the decorator generates each entry from the signature.
The C fast path (``_fastpath``) is the public object of the common call of
the user functions; these entries stay reachable as ``numreduce._api.<name>``.

Layer: public (docs/architecture.md).
"""

from __future__ import annotations

import numpy as np

from . import _core, _methods, _stats
from ._args import NoValue
from ._dispatch import (mapreduce as _mapreduce, masked_arg, masked_fill, masked_moments, masked_refuse, masked_where,
                        operands_backend, public_function)
from ._dtypes import MULTI_OUTPUT

__all__ = ["DescribeResult", "accumulate", "argminmax", "at", "correlation", "covariance", "cumfsum",
           "cummeanvar", "cumminmax", "describe", "fsum", "kurtosis", "skew",
           "group_argminmax", "group_fsum", "group_logsumexp", "group_meanvar", "group_minmax",
           "logcumsumexp", "logsumexp", "mapreduce", "meanstd", "meanvar", "merge", "minmax",
           "nanargminmax", "nancumminmax", "nanmeanvar", "nanminmax", "reduce",
           "reduce_by_group", "reduceat", "segmented_reduce", "sumprod"]

_REFUSE = masked_refuse("pass m.filled(value) or np.ma.getdata(m) explicitly")
_REFUSE_GROUPS = masked_refuse("pass m.filled(value) or np.ma.getdata(m) (and where=~m.mask) "
                               "explicitly")
_REFUSE_SUMMARY = masked_refuse("pass np.ma.getdata(m) with where=~np.ma.getmaskarray(m) "
                                "explicitly")
DescribeResult = _stats.DescribeResult
_FOREIGN = {"passthrough": lambda ufunc: ufunc not in MULTI_OUTPUT}
# (a reduction of several sources, a tuple of arrays, goes to the NumPy or
# the Dask backend: _dispatch._policy)
_REDUCE = {"passthrough": lambda ufunc: ufunc not in MULTI_OUTPUT}


# ---------------------------------------------------------------------------
# methods of multi-output ufuncs
# ---------------------------------------------------------------------------


@public_function(_methods.reduce, masked_where(), array="array", **_REDUCE)
def reduce(ufunc, array, axis=0, dtype=None, out=None, keepdims=False, initial=NoValue,
           where=True):
    """``ufunc.reduce`` for multi-output ufuncs on every NumPy >= 2.0.

    Same signature, defaults and results as ``ufunc.reduce``; for
    numreduce's ufuncs it returns a tuple with one array (or NumPy scalar, for
    a full reduction without ``out``) per output.  Any other ``np.ufunc`` is
    passed through to its own ``reduce``.

    Parameters
    ----------
    ufunc : np.ufunc
        A numreduce ufunc (or one registered through its C API); any
        other ufunc is passed to its own ``reduce``.
    array : array_like
        The data to reduce.
    axis : None, int or tuple of ints, default 0
        Axis or axes to reduce; ``None`` reduces all of them.
    dtype : dtype, optional
        Loop dtype for every output (the input is cast to it).
    out : tuple of (ndarray or None), optional
        One entry per output, each of exactly the result's shape (no
        broadcasting), writeable, and sharing no memory with another entry.
    keepdims : bool
        Keep the reduced axes as axes of length 1.
    initial : scalar or tuple, optional
        A scalar seeds every output, a tuple gives one value per output,
        ``None`` unsets the loop's own initials.
    where : array_like of bool, optional
        Elements to include; needs an ``initial`` when the reduction has none.

    Returns
    -------
    tuple
        One array per output of ``ufunc`` (NumPy scalars for a full reduction
        without ``out``).  For any other ``np.ufunc``, what its own ``reduce``
        returns.

    Raises
    ------
    ValueError
        An empty reduction of a ufunc without initials and without ``initial``
        (as NumPy: "zero-size array to reduction operation ... which has no
        identity"), ``where`` without an ``initial`` for such a ufunc, or an
        ``out`` entry of the wrong shape.
    TypeError
        A dtype the ufunc has no loop for.

    See Also
    --------
    numpy.ufunc.reduce : the single-output method this mirrors.
    accumulate, reduceat, segmented_reduce, reduce_by_group : the other methods.
    merge : combine two results of ``reduce``.
    minmax, meanvar, logsumexp, fsum : the user functions built on it.

    Notes
    -----
    On a NumPy with the multi-output reduction slots
    (:data:`HAVE_NATIVE_REDUCE`), ``ufunc.reduce`` itself works and gives the
    same results; ``numreduce.reduce`` works on every NumPy 2.x.

    Examples
    --------
    >>> import numpy as np, numreduce as nr
    >>> a = np.array([[3., 1., 4.], [1., 5., 9.]])
    >>> nr.reduce(nr.minimummaximum, a, axis=1)
    (array([1., 1.]), array([4., 9.]))
    >>> nr.reduce(nr.minimummaximum, a, axis=None)
    (np.float64(1.0), np.float64(9.0))
    """


@public_function(_methods.accumulate, _REFUSE, array="array", **_FOREIGN)
def accumulate(ufunc, array, axis=0, dtype=None, out=None):
    """``ufunc.accumulate`` for multi-output ufuncs: every output's running
    reduction along one axis, in one pass.

    Element ``i`` along ``axis`` of output ``k`` is
    ``reduce(ufunc, array[..., :i+1, ...], axis)[k]`` -- for
    ``minimummaximum`` the running minimum and maximum
    (``np.minimum.accumulate``, ``np.maximum.accumulate``), for ``moments``
    the running (count, mean, M2).  Any other ``np.ufunc`` is passed through
    to its own ``accumulate``.

    Parameters
    ----------
    ufunc : np.ufunc
        A numreduce ufunc; any other ufunc is passed to its own
        ``accumulate``.
    array : array_like
        At least 1-d.
    axis : int, default 0
        One axis (``None`` only for 1-d input, as in NumPy).
    dtype : dtype, optional
        Loop dtype for every output, as for ``reduce``.
    out : tuple of (ndarray or None), optional
        One entry per output, of exactly ``array``'s shape, writeable, no two
        sharing memory.  Results are cast into it as by ``reduce``; an ``out``
        that overlaps ``array`` is fine (computed into a temporary first).

    Returns
    -------
    tuple of ndarray
        One array of ``array``'s shape per output.

    Raises
    ------
    TypeError
        0-d input ("cannot accumulate on a scalar", as NumPy).
    ValueError
        An ``out`` entry of the wrong shape, or ``axis=None`` for input of more
        than one dimension.

    See Also
    --------
    numpy.ufunc.accumulate : the single-output method this mirrors.
    cumminmax, logcumsumexp, cumfsum, cummeanvar : the cumulative user functions.
    reduce : the reduction of the whole axis.

    Notes
    -----
    Long scans over a non-leading axis use several threads; the result is
    the same for any thread count.  The running moments use Welford's
    update (a few ulp of the data's scale per element), not the blocked
    two-pass scheme of ``reduce``.

    Examples
    --------
    >>> import numpy as np, numreduce as nr
    >>> lo, hi = nr.accumulate(nr.minimummaximum, np.array([3, 1, 4, 1, 5, 0, 9]))
    >>> lo, hi
    (array([3, 1, 1, 1, 1, 0, 0]), array([3, 3, 4, 4, 5, 5, 9]))
    >>> n, mean, m2 = nr.accumulate(nr.moments, np.array([1., 2., 3., 4.]))
    >>> mean                               # running np.mean
    array([1. , 1.5, 2. , 2.5])
    >>> m2 / n                             # running np.var
    array([0.        , 0.25      , 0.66666667, 1.25      ])
    """


def merge(ufunc, states_a, states_b, out=None):
    """Combine two partial reduction states elementwise, with broadcasting.

    ``states_a`` and ``states_b`` are what ``numreduce.reduce(ufunc, ...)``
    returns: tuples with one array (or scalar) per ufunc output -- (min, max)
    for ``minimummaximum``/``fminfmax``, (count, mean, M2) for
    ``moments``/``nanmoments``, (max, sum of exp(x - max) - 1) for ``maxsumexp``,
    (sum, error) for ``twosum``.  The result is the state of the union,
    through the reduction's own ``combine``::

        merge(u, reduce(u, a[:k]), reduce(u, a[k:])) == reduce(u, a)

    exactly for the order reductions, within the reduction's accuracy bound
    for the others (see the Accuracy page of the documentation).

    Parameters
    ----------
    ufunc : one of numreduce's multi-output ufuncs
        The ufunc whose reduction gave the states.
    states_a, states_b : tuple of array_like
        One entry per output; all ``2 * nout`` arrays broadcast together.
        They are cast (safely) to the accumulator dtype that
        ``reduce(ufunc, ...)`` gives for their common dtype.
    out : tuple of (ndarray or None), optional
        One entry per output, of exactly the broadcast shape, writeable (it
        may be ``states_a`` itself: ``merge(u, s, part, out=s)`` updates a
        running state in place).  Results are cast into it as by ``reduce``.

    Returns
    -------
    tuple
        One array per output (NumPy scalars for 0-d results without ``out``).

    Raises
    ------
    ValueError
        Wrong tuple lengths, states that do not broadcast, or a bad ``out``.
    TypeError
        A state dtype the ufunc has no loop for.

    See Also
    --------
    reduce : gives the states that ``merge`` combines.
    accumulate : running states along an axis.

    Notes
    -----
    ``merge`` makes chunked computation possible: reduce each chunk of a
    file, an array too large for memory or a stream, and merge the states as
    they arrive.  The Dask backend merges the states of the chunks this way.

    Examples
    --------
    >>> import numpy as np, numreduce as nr
    >>> a = np.array([3., 1., 4., 1., 5., 9., 2., 6.])
    >>> nr.merge(nr.minimummaximum, nr.reduce(nr.minimummaximum, a[:3]),
    ...          nr.reduce(nr.minimummaximum, a[3:]))
    (np.float64(1.0), np.float64(9.0))
    >>> n, mean, m2 = nr.merge(nr.moments, nr.reduce(nr.moments, a[:4]),
    ...                        nr.reduce(nr.moments, a[4:]))
    >>> float(n), float(mean), float(m2 / n)     # np.mean(a), np.var(a)
    (8.0, 3.875, 6.609375)
    """
    be = operands_backend("numreduce.merge", {"states_a": states_a, "states_b": states_b,
                                              "out": out}, ("states_a", "states_b", "out"))
    return _methods.merge(be, "numreduce.merge", ufunc, states_a, states_b, out)


@public_function(_methods.reduceat, _REFUSE, array="array", **_FOREIGN)
def reduceat(ufunc, array, indices, axis=0, dtype=None, out=None):
    """``ufunc.reduceat`` for multi-output ufuncs: every output's reduction
    over the slices ``indices[i]:indices[i+1]`` of one axis, in one pass.

    The index rules are ``ufunc.reduceat``'s: for ``i < len(indices) - 1``
    result ``i`` along ``axis`` reduces ``array[indices[i]:indices[i+1]]``
    when ``indices[i] < indices[i+1]``, and is ``array[indices[i]]`` (one
    element) otherwise; the last result reduces ``array[indices[-1]:]``.
    Every index must lie in ``[0, array.shape[axis])`` (IndexError
    otherwise; negative indices are errors, as in NumPy).  So no segment is
    ever empty.  Any other ``np.ufunc`` is passed through to its own
    ``reduceat``.

    Parameters
    ----------
    ufunc : np.ufunc
        A numreduce ufunc; any other ufunc is passed to its own
        ``reduceat``.
    array : array_like
        At least 1-d.
    indices : array_like of int
        1-d.  An ndarray must cast safely to ``np.intp``; other sequences
        are converted as NumPy converts them.
    axis : int, default 0
        One axis (``None`` only for 1-d input, as in NumPy).
    dtype : dtype, optional
        Loop dtype for every output, as for ``reduce``.
    out : tuple of (ndarray or None), optional
        One entry per output, of exactly the result's shape (``array``'s with
        ``len(indices)`` along ``axis``), writeable, no two sharing memory.
        Results are cast into it as by ``reduce``; an ``out`` that overlaps
        ``array`` is fine (computed into a temporary first).

    Returns
    -------
    tuple of ndarray
        One array per output.

    Raises
    ------
    IndexError
        An index outside ``[0, array.shape[axis])``.

    See Also
    --------
    numpy.ufunc.reduceat : the single-output method this mirrors.
    segmented_reduce : arbitrary (also empty or overlapping) segments.
    reduce_by_group : segments given by a label per element.

    Examples
    --------
    >>> import numpy as np, numreduce as nr
    >>> a = np.array([3, 1, 4, 1, 5, 9, 2, 6])
    >>> nr.reduceat(nr.minimummaximum, a, [0, 3, 7])
    (array([1, 1, 6]), array([4, 9, 6]))
    >>> nr.reduceat(nr.minimummaximum, a, [5, 2])    # 5 >= 2: just a[5]
    (array([9, 1]), array([9, 9]))
    """


@public_function(_methods.segmented_reduce, _REFUSE, array="array")
def segmented_reduce(ufunc, array, starts, stops, axis=0, dtype=None, out=None,
                     initial=NoValue, where=True):
    """Reductions of arbitrary segments of one axis, every output in one
    pass: result ``i`` along ``axis`` is
    ``reduce(ufunc, array[..., starts[i]:stops[i], ...], axis)``.

    ``starts`` and ``stops`` are slice bounds: negative values count from
    the end, values out of range are clipped, so segments may skip
    elements, overlap, or be empty.  An empty segment gives the ufunc's
    initials where it has them (``moments``: ``(0, 0, 0)``; ``maxsumexp``:
    ``(-inf, -1)``; ``twosum``: ``(0, 0)``) or ``initial``; for a ufunc
    without initials (``minimummaximum``, ``fminfmax``) an empty segment
    without ``initial`` is a ValueError, raised before any output is
    written.

    Parameters
    ----------
    ufunc : one of numreduce's multi-output ufuncs
        The reduction to run on every segment.
    array : array_like
        At least 1-d.
    starts, stops : array_like of int
        1-d, of equal length: the segments' bounds along ``axis``.
    axis : int, default 0
        One axis (``None`` only for 1-d input).
    dtype : dtype, optional
        Loop dtype for every output, as for ``reduce``.
    out : tuple of (ndarray or None), optional
        One entry per output, of exactly the result's shape (``array``'s with
        ``len(starts)`` along ``axis``), as for ``reduceat``.
    initial : scalar or tuple, optional
        As for ``reduce``: seeds every segment (a tuple gives one value per
        output); ``None`` unsets the ufunc's own initials.
    where : array_like of bool, optional
        Elements to include (broadcast to ``array``'s shape); needs an
        ``initial`` when the ufunc has no initials, as for ``reduce``.

    Returns
    -------
    tuple of ndarray
        One array per output.

    Raises
    ------
    ValueError
        ``starts`` and ``stops`` of different lengths, or an empty segment of a
        ufunc without initials and without ``initial``.
    TypeError
        A ufunc that is not one of numreduce's multi-output ufuncs (NumPy
        has no ``segmented_reduce`` to pass it to).

    See Also
    --------
    reduceat : NumPy's index rules (no empty segments).
    reduce_by_group : segments given by a label per element.

    Notes
    -----
    Each segment is reduced as ``reduce`` reduces the slice, with the GIL
    released; where there is enough work the segments are shared among
    :func:`set_num_threads` threads, and the result is the same for any
    thread count.

    Examples
    --------
    >>> import numpy as np, numreduce as nr
    >>> a = np.array([3., 1., 4., 1., 5., 9., 2., 6.])
    >>> nr.segmented_reduce(nr.minimummaximum, a, [0, 2, -3], [4, 6, 100])
    (array([1., 1., 2.]), array([4., 9., 9.]))
    >>> nr.segmented_reduce(nr.minimummaximum, a, [0, 5], [3, 5],
    ...                     initial=(np.inf, -np.inf))   # segment 1 is empty
    (array([ 1., inf]), array([  4., -inf]))
    >>> n, mean, m2 = nr.segmented_reduce(nr.moments, a, [0, 4, 0], [4, 8, 0])
    >>> n, mean
    (array([4., 4., 0.]), array([2.25, 5.5 , 0.  ]))
    """


@public_function(_methods.reduce_by_group, _REFUSE_GROUPS, array="array")
def reduce_by_group(ufunc, array, group_ids, num_groups=None, axis=0, dtype=None, out=None,
                    initial=NoValue, where=True):
    """One reduction per group, in one pass: result ``g`` along ``axis`` is
    ``reduce(ufunc, array[..., group_ids == g, ...], axis)``.

    Group ids may come in any order; every element is absorbed into its
    group's accumulators through the reduction's step (for
    ``minimummaximum`` the group's running (min, max), for ``moments`` its
    (count, mean, M2)).  The jax ``segment_*`` / pandas ``groupby`` building
    block.

    Parameters
    ----------
    ufunc : one of numreduce's multi-output ufuncs
        The reduction to run on every group.
    array : array_like
        At least 1-d.
    group_ids : array_like of integers
        1-d, one id per element along ``axis``, each in ``[0, num_groups)``
        (``IndexError`` otherwise, before anything is written).
    num_groups : int, optional
        Number of groups; ``None``: ``max(group_ids) + 1``.
    axis : int, default 0
        The axis to group along; the result has ``num_groups`` there.
    dtype : dtype, optional
        Loop dtype for every output, as for ``reduce``.
    out : tuple of (ndarray or None), optional
        One entry per output, of exactly the result's shape; written only
        when every check passed.
    initial : scalar or tuple, optional
        Start value of every group (a tuple: one per output); ``None``
        unsets the ufunc's own initials.
    where : array_like of bool, optional
        Elements to include (broadcast to ``array``'s shape).

    Returns
    -------
    tuple of ndarray
        One array per output.  An empty group (no element, or none selected
        by ``where``) gets the ufunc's initials (``moments``: (0, 0, 0)) or
        ``initial``; where there are none (``minimummaximum`` without
        ``initial``) it is a ``ValueError``, before anything is written.

    Raises
    ------
    IndexError
        A group id outside ``[0, num_groups)`` (negative ids, and uint64 ids
        beyond the ``intp`` range, included), naming the first bad position.
    ValueError
        An empty group of a ufunc without initials and without ``initial``;
        ``group_ids`` not 1-d or of another length than ``axis``.
    TypeError
        ``group_ids`` that are not integers.

    See Also
    --------
    group_minmax, group_meanvar, group_logsumexp, group_fsum, group_argminmax :
        the grouped user functions built on it.
    segmented_reduce : contiguous segments.
    at : the in-place, unbuffered form.

    Notes
    -----
    Dtypes, ``dtype=``, ``out`` casting and NaN rules are ``reduce``'s.  The
    GIL is released.  Without ``initial``, a stream longer than ``2**21``
    elements is cut into fixed pieces of ``2**21`` elements, whatever the
    thread count; the pieces are computed by up to :func:`set_num_threads`
    threads and merged in order, so the result is bitwise the same for any
    thread count (for ``moments`` within its merge bound of the one-pass
    result).

    Examples
    --------
    >>> import numpy as np, numreduce as nr
    >>> x = np.array([3., 1., 4., 1., 5., 9., 2.])
    >>> g = np.array([1, 0, 1, 2, 0, 2, 1])
    >>> nr.reduce_by_group(nr.minimummaximum, x, g)
    (array([1., 2., 1.]), array([5., 4., 9.]))
    >>> n, mean, m2 = nr.reduce_by_group(nr.moments, x, g, num_groups=4)
    >>> n, mean
    (array([2., 3., 2., 0.]), array([3., 3., 5., 0.]))
    """


@public_function(_methods.at, _REFUSE_GROUPS, array="values")
def at(ufunc, outs, indices, values):
    """``ufunc.at`` for multi-output ufuncs: unbuffered, in place.

    For each ``j`` in order, the accumulators ``outs[k][indices[j]]`` absorb
    ``values[j]`` through the reduction's step, so repeated indices
    accumulate: for ``minimummaximum`` this is ``np.minimum.at(lo, idx, v);
    np.maximum.at(hi, idx, v)`` in one pass, for ``moments`` a running
    (count, mean, M2) per slot.  Every check runs before anything is
    written.

    Parameters
    ----------
    ufunc : one of numreduce's multi-output ufuncs
        The reduction whose step absorbs the values.
    outs : tuple of ndarray
        One writeable array per output, all of one shape, sharing no memory:
        the accumulators (e.g. ``(np.full(k, np.inf), np.full(k, -np.inf))``
        for ``minimummaximum``, zeros for ``moments``).
    indices : index
        Anything ``ufunc.at`` takes: an integer array (negative counts from
        the end; out of range is an ``IndexError``), a tuple of index arrays,
        slices.  The index rules are NumPy's own.
    values : array_like
        Broadcast to the indexed shape (``ValueError`` where it does not).
        Cast, with the accumulators, to the loop dtype of
        ``np.result_type(values, *outs)``; the results are cast back
        (``same_kind``).  ``values`` that overlap ``outs`` are read before
        anything changes.

    Returns
    -------
    None
        ``outs`` are updated in place.

    Raises
    ------
    IndexError
        An index out of range.
    ValueError
        ``values`` that do not broadcast to the indexed shape.
    TypeError
        Results that cannot be cast back into ``outs`` with ``same_kind``
        casting (float values into int64 accumulators).

    See Also
    --------
    numpy.ufunc.at : the single-output method this mirrors.
    reduce_by_group : the same accumulation into new arrays.

    Examples
    --------
    >>> import numpy as np, numreduce as nr
    >>> lo, hi = np.full(3, np.inf), np.full(3, -np.inf)
    >>> nr.at(nr.minimummaximum, (lo, hi), [0, 2, 0, 0], [5., 1., -2., 7.])
    >>> lo, hi
    (array([-2., inf,  1.]), array([  7., -inf,   1.]))
    """


# ---------------------------------------------------------------------------
# the user functions
# ---------------------------------------------------------------------------


@public_function(_stats.minmax, masked_where(_core.minimummaximum))
def minmax(a, axis=None, out=None, keepdims=False, initial=NoValue, where=True):
    """Minimum and maximum of an array in one pass.

    Same signature and semantics as NumPy 2.6's ``np.minmax``: returns
    ``(np.min(a, ...), np.max(a, ...))`` -- NaN (NaT) propagates, an empty
    reduction without ``initial`` raises ``ValueError``, ``where`` needs an
    ``initial``.  Runs on every NumPy >= 2.0 (numreduce's engine).

    Parameters
    ----------
    a : array_like
        The data: bool, integer, float, complex, datetime64 or timedelta64.
    axis : None, int or tuple of ints, default None (the whole array)
        Axis or axes to reduce; ``None`` reduces the whole array.
    out : tuple of two ndarrays (or None entries), optional
        Arrays for the minimum and the maximum, of the result's shape.
    keepdims : bool, default False
        Keep the reduced axes as axes of length 1.
    initial : scalar or (min_initial, max_initial), optional
        A scalar seeds both outputs; a tuple gives one value per output.
    where : array_like of bool, optional
        Elements to include, broadcast against ``a``; needs ``initial``.

    Returns
    -------
    (min, max) : tuple
        NumPy scalars for a full reduction, else arrays.

    Raises
    ------
    ValueError
        An empty reduction without ``initial``, or ``where`` without
        ``initial``.

    See Also
    --------
    numpy.min, numpy.max : the two calls this replaces.
    nanminmax : ignores NaN.
    argminmax : the indices of the minimum and maximum.
    minimummaximum : the ufunc whose reduction this is.

    Notes
    -----
    One pass over the data reads it once, where ``np.min`` and ``np.max``
    read it twice; for arrays larger than the cache that halves the memory
    traffic.

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


@public_function(_stats.nanminmax, masked_where(_core.fminfmax))
def nanminmax(a, axis=None, out=None, keepdims=False, initial=NoValue, where=True):
    """Minimum and maximum ignoring NaNs (NaT), in one pass.

    ``(np.nanmin(a, ...), np.nanmax(a, ...))``: NaN only for all-NaN slices,
    with NumPy's ``RuntimeWarning: All-NaN slice encountered``.  Runs the
    ``fminfmax`` reduction (np.fmin / np.fmax semantics).

    Parameters
    ----------
    a : array_like
        The data; NaN (NaT) elements are ignored.
    axis : None, int or tuple of ints, optional
        Axis or axes to reduce; ``None`` (the default) reduces the whole array.
    out : tuple of two ndarrays (or None entries), optional
        Arrays for the minimum and the maximum, of the result's shape.
    keepdims : bool, default False
        Keep the reduced axes as axes of length 1.
    initial : scalar or (min_initial, max_initial), optional
        A scalar seeds both outputs; a tuple gives one value per output.
    where : array_like of bool, optional
        Elements to include, broadcast against ``a``.
        Needs ``initial``.

    Returns
    -------
    (min, max) : tuple
        NumPy scalars for a full reduction, else arrays.  NaN only for slices
        that are all NaN.

    Raises
    ------
    ValueError
        An empty reduction without ``initial``, or ``where`` without
        ``initial``.

    See Also
    --------
    numpy.nanmin, numpy.nanmax : the two calls this replaces.
    minmax : NaN-propagating.
    nanargminmax : the indices.
    fminfmax : the ufunc whose reduction this is.

    Examples
    --------
    >>> import numpy as np, numreduce as nr
    >>> nr.nanminmax(np.array([np.nan, 3.0, 1.0, np.nan]))
    (np.float64(1.0), np.float64(3.0))
    >>> nr.nanminmax(np.array([[1.0, np.nan], [2.0, 5.0]]), axis=1)
    (array([1., 2.]), array([1., 5.]))
    """


@public_function(_stats.argminmax, masked_arg(nan=False), wrap_scalars=False)
def argminmax(a, axis=None, keepdims=False, out=None):
    """Indices of the minimum and maximum in one pass.

    ``(np.argmin(a, axis), np.argmax(a, axis))`` in every case: the first
    occurrence wins ties, the first NaN (NaT) wins both.

    Parameters
    ----------
    a : array_like
        The data.
    axis : int, optional
        The axis to search; ``None`` (the default) searches the flattened array.
    keepdims : bool, default False
        Keep the reduced axes as axes of length 1.
    out : tuple of two integer ndarrays, optional
        Arrays for the two index results, of the result's shape, of a
        dtype that ``np.intp`` casts to safely (as ``np.argmin`` requires).

    Returns
    -------
    (argmin, argmax) : tuple
        ``np.intp`` indices: NumPy integers for ``axis=None``, else arrays.

    Raises
    ------
    ValueError
        An empty array or slice (as ``np.argmin``).

    See Also
    --------
    numpy.argmin, numpy.argmax : the two calls this replaces.
    nanargminmax : ignores NaN.
    minmax : the values.

    Examples
    --------
    >>> import numpy as np, numreduce as nr
    >>> nr.argminmax(np.array([3, 1, 4, 1, 5, 9, 2, 6]))
    (np.int64(1), np.int64(5))
    >>> nr.argminmax(np.array([[1.0, np.nan], [2.0, 0.5]]), axis=1)
    (array([1, 1]), array([1, 0]))
    """


@public_function(_stats.nanargminmax, masked_arg(nan=True), wrap_scalars=False)
def nanargminmax(a, axis=None, keepdims=False, out=None):
    """``(np.nanargmin(a, axis), np.nanargmax(a, axis))`` in one pass.

    NaNs of float and complex data are ignored; an all-NaN slice raises
    ``ValueError`` (as NumPy).  For other dtypes (NaT included) this is
    :func:`argminmax`, as ``np.nanargmin`` is ``np.argmin`` there.

    Parameters
    ----------
    a : array_like
        The data; NaN elements are ignored.
    axis : int, optional
        The axis to search; ``None`` (the default) searches the flattened array.
    keepdims : bool, default False
        Keep the reduced axes as axes of length 1.
    out : tuple of two integer ndarrays, optional
        Arrays for the two index results, of the result's shape, of a
        dtype that ``np.intp`` casts to safely (as ``np.argmin`` requires).

    Returns
    -------
    (argmin, argmax) : tuple
        ``np.intp`` indices: NumPy integers for ``axis=None``, else arrays.

    Raises
    ------
    ValueError
        An empty slice, or a slice that is all NaN (as ``np.nanargmin``).

    See Also
    --------
    numpy.nanargmin, numpy.nanargmax : the two calls this replaces.
    argminmax : NaN-propagating.
    nanminmax : the values.

    Examples
    --------
    >>> import numpy as np, numreduce as nr
    >>> nr.nanargminmax(np.array([np.nan, 3.0, 1.0, 7.0]))
    (np.int64(2), np.int64(3))
    """


@public_function(_stats.meanvar, masked_moments(nan=False))
def meanvar(a, axis=None, dtype=None, out=None, ddof=0, keepdims=False, *, where=True,
            correction=NoValue, weights=None):
    """Mean and variance in one pass: ``(np.mean(a, ...), np.var(a, ...))``.

    Accumulates (count, mean, M2) with the ``moments`` ufunc: float64
    accumulators for bool/integer/float16/float32 data (long double for long
    double), exact counts, Chan's merge, and a shifted blocked two-pass
    algorithm on contiguous data, so it is at least as accurate as ``np.var``
    on data with a large offset.  Complex data: the real and imaginary parts
    are reduced separately; the variance is the mean of ``|z - mean|**2``
    (real), as ``np.var``'s.  Result dtypes follow ``np.mean``/``np.var``
    (``dtype=`` sets them; it must be a floating-point or complex dtype --
    an integer, bool or object ``dtype=`` raises ``TypeError``).  ``ddof`` is
    a real scalar (floats and negative values allowed).  Empty slices give
    NaN with NumPy's warnings.

    ``weights`` (real, non-negative, broadcast against ``a``): frequency
    weights, one pass over both arrays with the ``wmoments`` ufunc:
    ``mean = sum(w x) / sum(w)``, ``var = sum(w (x - mean)**2) / (sum(w) -
    ddof)`` -- integer weights give the result of ``np.repeat(a, w)``, the
    mean is ``np.average(a, weights=w)``'s.  A negative weight is a
    ValueError (``np.average`` allows it: these are frequency weights); a
    slice whose weights sum to 0 is empty (NaN, NumPy's warning).  A slice
    whose weights sum to inf -- an inf weight, or finite weights whose sum
    overflows float64 -- is NaN with ``np.average``'s "invalid value
    encountered in divide" warning (it follows ``np.seterr``); one whose
    weights sum to less than 2**-969 (about 1e-292) is NaN with a
    RuntimeWarning (the weights' products with the data would be subnormal:
    scale the weights).  The same on every path (axes, ``where=``, grouped,
    Dask, CuPy, ``mapreduce``).  Real data only (TypeError for complex);
    NumPy, Dask and CuPy arrays (the data and the weights of one kind).

    ``out=(mean_out, var_out)`` (either may be None) receives the results,
    cast as ``np.mean``/``np.var`` cast into ``out``: unsafely, except
    ``meanstd``'s std, which ``np.std`` writes with same_kind casting (an
    integer, bool or object std out is a TypeError), and ``nanmeanvar`` of
    float or complex data, whose outs must be float or complex (TypeError,
    as ``np.nanvar``); checked before any work.  ``correction=`` is
    NumPy 2.0's alias of ``ddof`` (both given: ValueError, as ``np.var``).
    The parameters are ``np.var``'s, in its order, plus ``weights``.

    Parameters
    ----------
    a : array_like
        Real or complex data.
    axis : None, int or tuple of ints, optional
        Axis or axes to reduce; ``None`` (the default) reduces the whole array.
    dtype : dtype, optional
        Float or complex dtype of the results (as ``np.mean``'s ``dtype``).
    out : tuple of two arrays (or None entries), optional
        Arrays for the mean and the variance, of the result's shape (the
        results are cast into them as ``np.var`` casts into ``out``).
    ddof : real scalar, default 0
        Delta degrees of freedom: the variance divides by ``count - ddof``.
    keepdims : bool, default False
        Keep the reduced axes as axes of length 1.
    where : array_like of bool, optional
        Elements to include, broadcast against ``a``.
    correction : real scalar, optional
        NumPy 2.0's name of ``ddof``; giving both (a nonzero ``ddof``) is a
        ValueError, as in ``np.var``.
    weights : array_like, optional
        Non-negative frequency weights, broadcast against ``a`` (real data).

    Returns
    -------
    (mean, var) : tuple
        NumPy scalars for a full reduction, else arrays; the dtypes of
        ``np.mean`` and ``np.var`` (a real variance for complex data).

    Raises
    ------
    TypeError
        An integer, bool or object ``dtype=``; a float ``dtype=`` on complex
        data (NumPy would drop the imaginary parts); datetime64,
        timedelta64, string or object data (as ``np.var``); complex data
        with ``weights``; a ``ddof`` that is not a real number.
    ValueError
        A negative weight; ``ddof`` and ``correction`` both given; a ``ddof``
        array of one or more dimensions; an ``out`` of another shape.

    See Also
    --------
    numpy.mean, numpy.var : the two calls this replaces.
    numpy.average : the weighted mean.
    meanstd : the standard deviation instead of the variance.
    nanmeanvar : ignores NaN.
    cummeanvar, group_meanvar : running and grouped.
    moments : the ufunc whose reduction this is.

    Notes
    -----
    Accumulates in float64 for bool, integer, float16 and float32 data, and
    uses a shifted two-pass scheme on blocks of the data in one read, so that
    it is at least as accurate as ``np.var``, also on data with a large
    offset.  Empty slices give NaN with NumPy's warnings.

    ``dtype=`` float16, float32 or float64: computed in float64 and rounded
    once to that dtype; longdouble: the data are cast to long double and
    accumulated there; a complex dtype gives both results in it (the
    variance with a zero imaginary part, as in NumPy).  ``ddof`` may be
    negative or fractional: ``var = M2 / max(n - ddof, 0)``, as ``np.var``.
    As in NumPy, an inf or NaN in one part of a complex mean makes the other
    part NaN (``np.mean([inf + 0j])`` is ``inf + nanj``).

    Examples
    --------
    >>> import numpy as np, numreduce as nr
    >>> nr.meanvar(np.array([1.0, 2.0, 3.0, 4.0]))
    (np.float64(2.5), np.float64(1.25))
    >>> nr.meanvar(np.array([[1, 2], [3, 5]]), axis=0, ddof=1)
    (array([2. , 3.5]), array([2. , 4.5]))
    >>> nr.meanvar(np.array([1 + 1j, 3 - 1j]))
    (np.complex128(2+0j), np.float64(2.0))
    >>> nr.meanvar(np.array([1.0, 2.0, 4.0]), weights=np.array([1, 0, 3]))  # = [1, 4, 4, 4]
    (np.float64(3.25), np.float64(1.6875))
    """


@public_function(_stats.meanstd, masked_moments(nan=False))
def meanstd(a, axis=None, dtype=None, out=None, ddof=0, keepdims=False, *, where=True,
            correction=NoValue, weights=None):
    """Mean and standard deviation in one pass: ``(np.mean(a), np.std(a))``.

    Same accumulation, dtype/ddof and ``weights`` rules as :func:`meanvar`.

    Parameters
    ----------
    a : array_like
        Real or complex data.
    axis : None, int or tuple of ints, optional
        Axis or axes to reduce; ``None`` (the default) reduces the whole array.
    dtype : dtype, optional
        Float or complex dtype of the results (as ``np.mean``'s ``dtype``).
    ddof : real scalar, default 0
        Delta degrees of freedom: the variance divides by ``count - ddof``.
    keepdims : bool, default False
        Keep the reduced axes as axes of length 1.
    where : array_like of bool, optional
        Elements to include, broadcast against ``a``.
    weights : array_like, optional
        Non-negative frequency weights, broadcast against ``a`` (real data).

    Returns
    -------
    (mean, std) : tuple
        NumPy scalars for a full reduction, else arrays.

    See Also
    --------
    numpy.mean, numpy.std : the two calls this replaces.
    meanvar : the variance instead of the standard deviation.

    Examples
    --------
    >>> import numpy as np, numreduce as nr
    >>> nr.meanstd(np.array([2.0, 4.0, 4.0, 4.0, 5.0, 5.0, 7.0, 9.0]))
    (np.float64(5.0), np.float64(2.0))
    """


@public_function(_stats.nanmeanvar, masked_moments(nan=True))
def nanmeanvar(a, axis=None, dtype=None, out=None, ddof=0, keepdims=False, *, where=True,
               correction=NoValue, weights=None):
    """``(np.nanmean(a, ...), np.nanvar(a, ...))`` in one pass (NaNs skipped).

    All-NaN slices give NaN with NumPy's warnings.  A complex element is
    skipped when its real or imaginary part is NaN (as ``np.nanmean``).  As
    ``np.nanmean``, float and complex data need a float or complex
    ``dtype=`` (``TypeError: If a is inexact, then dtype must be inexact``);
    otherwise the dtype/ddof rules of :func:`meanvar`.

    Parameters
    ----------
    a : array_like
        Real or complex data; NaN elements are skipped.
    axis : None, int or tuple of ints, optional
        Axis or axes to reduce; ``None`` (the default) reduces the whole array.
    dtype : dtype, optional
        Float or complex dtype of the results.
    ddof : real scalar, default 0
        Delta degrees of freedom: the variance divides by ``count - ddof``.
    keepdims : bool, default False
        Keep the reduced axes as axes of length 1.
    where : array_like of bool, optional
        Elements to include, broadcast against ``a``.
    weights : array_like, optional
        Non-negative frequency weights, as for :func:`meanvar`.

    Returns
    -------
    (mean, var) : tuple
        NumPy scalars for a full reduction, else arrays.

    Raises
    ------
    TypeError
        Float or complex data with a non-inexact ``dtype=``.

    See Also
    --------
    numpy.nanmean, numpy.nanvar : the two calls this replaces.
    meanvar : NaN-propagating.
    nanmoments : the ufunc whose reduction this is.

    Examples
    --------
    >>> import numpy as np, numreduce as nr
    >>> nr.nanmeanvar(np.array([1.0, np.nan, 3.0]))
    (np.float64(2.0), np.float64(1.0))
    """


@public_function(_stats.logsumexp, masked_fill(-np.inf, float_ints=True))
def logsumexp(a, axis=None, b=None, keepdims=False, return_sign=False):
    """``log(sum(exp(a)))`` in one pass, with ``scipy.special.logsumexp``
    semantics.

    Accumulates (running max ``m``, ``t`` = sum of ``exp(x - m)`` less the
    maximum's own 1) in float64 (long double for long double) with a
    vectorised exp and returns ``m + log1p(t)``, so results near 0 keep
    their precision (``logsumexp([0, -40])`` is ``4.2e-18``, as SciPy).
    +inf wins, NaN propagates, all -inf or empty gives -inf.  Result dtype:
    SciPy's -- the input's float dtype (float16, float32, float64, long
    double), float64 for bool and integers.  Complex input follows SciPy's
    complex rules (two passes in NumPy, not the one-pass reduction): the
    shift is the element with the largest real part, the imaginary part of
    the result is wrapped into (-pi, pi], and non-finite results are
    ``log(sum(exp(a)))`` computed directly.

    ``b`` (real, broadcast against ``a``; may be negative or zero):
    ``log(|sum(b * exp(a))|)`` in one pass over both arrays (the
    ``maxsumexpb`` ufunc), SciPy's meaning: elements with ``b == 0`` do not
    count (an inf there is ignored); a negative sum gives NaN (as SciPy, no
    warning) unless ``return_sign``, which returns ``(value, sign)`` with the
    sign of the sum (0 for an empty or zero sum).  Real data only with
    ``b`` / ``return_sign``; NumPy, Dask and CuPy arrays.

    Parameters
    ----------
    a : array_like
        Real or complex data.
    axis : None, int or tuple of ints, optional
        Axis or axes to reduce; ``None`` (the default) reduces the whole array.
    b : array_like, optional
        Real scale factors ``b`` of ``sum(b * exp(a))``, broadcast against
        ``a``; may be negative or zero.
    keepdims : bool, default False
        Keep the reduced axes as axes of length 1.
    return_sign : bool, default False
        Also return the sign of the sum (with ``b``).

    Returns
    -------
    res : NumPy scalar or ndarray
        ``log(sum(exp(a)))`` (``log(|sum(b * exp(a))|)`` with ``b``).
    sgn : NumPy scalar or ndarray
        Only with ``return_sign=True``: the sign of the sum (0 for a zero or
        empty sum).

    See Also
    --------
    scipy.special.logsumexp : the call this replaces.
    logcumsumexp, group_logsumexp : running and grouped.
    maxsumexp : the ufunc whose reduction this is.

    Notes
    -----
    One pass: the running maximum and the sum of ``exp(x - max)`` are kept
    together and rescaled when the maximum grows, in float64 (long double for
    long double).  The result ``max + log1p(t)`` keeps results near 0 exact to
    a few ulp.

    Examples
    --------
    >>> import numpy as np, numreduce as nr
    >>> float(nr.logsumexp(np.array([1000.0, 1000.0])))  # no overflow
    1000.6931471805599
    >>> float(nr.logsumexp(np.array([0.0, -40.0])))      # no cancellation
    4.248354255291589e-18
    >>> nr.logsumexp(np.zeros((2, 3)), axis=1)
    array([1.09861229, 1.09861229])
    >>> nr.logsumexp(np.array([0.0, -40.0]), b=np.array([1.0, 1.0]))
    np.float64(4.248354255291589e-18)
    >>> value, sign = nr.logsumexp(np.array([1.0, 2.0]), b=np.array([1.0, -1.0]),
    ...                            return_sign=True)
    >>> round(float(value), 12), float(sign)   # log(e**2 - e), negative sum
    (1.541324854613, -1.0)
    """


_REFUSE_PAIR = masked_refuse("pass np.ma.getdata(m) and a where= mask, or m.filled(value), "
                             "explicitly")


@public_function(_stats.describe, _REFUSE_SUMMARY)
def describe(a, axis=0, ddof=1, bias=True, nan_policy="propagate", *, where=True, weights=None):
    """Count, min, max, mean, variance, skewness and kurtosis in one pass:
    ``scipy.stats.describe(a, axis, ddof, bias, nan_policy)``.

    One reduction of the ``summary`` ufunc -- the count, extremes, mean and
    central moments M2, M3, M4 of each slice, merged by Pebay's update
    (blocked two-pass sums in a frame shifted by the data's mean, so offset
    data keep their accuracy) -- finished into SciPy's result.  NumPy, Dask
    and CuPy arrays.

    Parameters
    ----------
    a : array_like
        bool, integer or float data (complex and datetime data raise
        TypeError).
    axis : None or int, default 0
        The axis to reduce; ``None`` reduces all elements (SciPy's
        default is 0 as here).
    ddof : int, default 1
        Delta degrees of freedom of the variance.
    bias : bool, default True
        False: SciPy's bias corrections of the skewness (n > 2) and the
        kurtosis (n > 3).
    nan_policy : {'propagate', 'raise', 'omit'}, default 'propagate'
        'propagate': a NaN makes the slice's statistics NaN; 'omit': NaN
        elements are skipped in the same pass (``nobs`` is then each
        slice's count); 'raise': ValueError where the data hold a NaN
        (checked on the summary, before any result is returned).
    where : array_like of bool, optional
        Elements to include (broadcast to ``a``); ``nobs`` is then each
        slice's count.
    weights : array_like, optional
        Non-negative frequency weights, broadcast with ``a`` (integer
        weights give the statistics of ``np.repeat(a, weights)``; an
        element of weight 0 takes no part, in min and max neither), in the
        same pass (the ``wsummary`` ufunc); ``nobs`` is then the weight
        sum, in the result dtype.  A negative weight is a ValueError before
        any work.

    Returns
    -------
    DescribeResult
        ``(nobs, minmax, mean, variance, skewness, kurtosis)`` as SciPy's:
        ``nobs`` int64, ``minmax`` a pair in the data's dtype, the rest
        float64 (float16, float32 and long double data keep their dtype;
        the sums are float64 for float16 and float32 data).  The kurtosis
        is Fisher's (0 for the normal distribution).

    Raises
    ------
    ValueError
        Empty input (SciPy's message), a bad ``nan_policy``, a NaN with
        ``nan_policy='raise'``, or bool/integer data with a slice that
        ``where`` empties (no NaN in the dtype for its extremes).

    See Also
    --------
    scipy.stats.describe : the same result in six passes.
    skew, kurtosis : one statistic each, same pass.
    summary : the ufunc whose reduction this is.

    Notes
    -----
    A slice whose variance is lost to rounding (``m2 <= (eps * mean)**2``,
    a constant slice) has NaN skewness and kurtosis with SciPy's
    RuntimeWarning.  Quantiles are not included: they are not one-pass
    (mergeable) statistics.  Unlike SciPy, the variance of bool data is
    that of 0 and 1 (SciPy 1.17 gives inf).

    Examples
    --------
    >>> import numpy as np, numreduce as nr
    >>> r = nr.describe(np.arange(10))
    >>> int(r.nobs), r.minmax, float(r.mean), round(float(r.variance), 6)
    (10, (np.int64(0), np.int64(9)), 4.5, 9.166667)
    >>> round(float(r.kurtosis), 6)
    -1.224242
    """


@public_function(_stats.skew, _REFUSE_SUMMARY)
def skew(a, axis=0, bias=True, nan_policy="propagate", *, keepdims=False, where=True,
         weights=None):
    """Sample skewness in one pass: ``scipy.stats.skew(a, axis, bias,
    nan_policy, keepdims=keepdims)``.

    ``m3 / m2**1.5`` of the biased central moments (``bias=False``:
    SciPy's correction ``sqrt(n (n - 1)) / (n - 2)`` where n > 2), from one
    reduction of the ``summary`` ufunc (see :func:`describe`).

    Parameters
    ----------
    a : array_like
        bool, integer or float data.
    axis : None or int, default 0
        The axis to reduce; ``None`` reduces all elements.
    bias : bool, default True
    nan_policy : {'propagate', 'raise', 'omit'}, default 'propagate'
    keepdims : bool, default False
    where : array_like of bool, optional
        Elements to include (broadcast to ``a``).
    weights : array_like, optional
        Non-negative frequency weights (see :func:`describe`).

    Returns
    -------
    skewness : NumPy scalar or ndarray
        float64 (float16, float32 and long double data keep their dtype).
        NaN for an empty slice (with SciPy's warning) and for a slice whose
        variance is lost to rounding (a constant slice: SciPy's
        precision-loss RuntimeWarning).

    See Also
    --------
    scipy.stats.skew
    describe, kurtosis

    Examples
    --------
    >>> import numpy as np, numreduce as nr
    >>> float(nr.skew(np.array([2, 8, 0, 4, 1, 9, 9, 0])))
    0.2650554122698573
    """


@public_function(_stats.kurtosis, _REFUSE_SUMMARY)
def kurtosis(a, axis=0, fisher=True, bias=True, nan_policy="propagate", *, keepdims=False,
             where=True, weights=None):
    """Sample kurtosis in one pass: ``scipy.stats.kurtosis(a, axis, fisher,
    bias, nan_policy, keepdims=keepdims)``.

    ``m4 / m2**2`` of the biased central moments, less 3 where ``fisher``
    (``bias=False``: SciPy's correction where n > 3), from one reduction of
    the ``summary`` ufunc (see :func:`describe`).

    Parameters
    ----------
    a : array_like
        bool, integer or float data.
    axis : None or int, default 0
        The axis to reduce; ``None`` reduces all elements.
    fisher : bool, default True
        True: Fisher's definition (0 for the normal distribution); False:
        Pearson's (3).
    bias : bool, default True
    nan_policy : {'propagate', 'raise', 'omit'}, default 'propagate'
    keepdims : bool, default False
    where : array_like of bool, optional
        Elements to include (broadcast to ``a``).
    weights : array_like, optional
        Non-negative frequency weights (see :func:`describe`).

    Returns
    -------
    kurtosis : NumPy scalar or ndarray
        float64 (float16, float32 and long double data keep their dtype);
        NaN where :func:`skew` is NaN.

    See Also
    --------
    scipy.stats.kurtosis
    describe, skew

    Examples
    --------
    >>> import numpy as np, numreduce as nr
    >>> round(float(nr.kurtosis(np.arange(10))), 6)
    -1.224242
    """


@public_function(_stats.covariance, _REFUSE_PAIR, array="x")
def covariance(x, y, axis=None, ddof=1, keepdims=False):
    """Covariance of ``x`` and ``y`` (broadcast together) in one pass over
    both, per slice along ``axis`` (None: all elements):
    ``np.cov(x, y, ddof=ddof)[0, 1]`` for 1-D data.

    Co-moments (count, means, sums of squared and crossed deviations, each
    relative to an origin in the data) merged as Chan's moments -- never a
    raw sum of products, which cancels on offset data -- with the
    ``comoments`` ufunc.  float64 result (long double for long double), as
    ``np.cov``.  ``ddof`` defaults to 1 (``np.cov``); where ``count - ddof
    <= 0`` the result is inf or NaN with NumPy's warning.  Real data only;
    NumPy, Dask and CuPy arrays.

    Parameters
    ----------
    x, y : array_like
        Real data, broadcast together.
    axis : None or int, optional
        The axis to reduce; ``None`` (the default) uses all elements.
    ddof : int, default 1
        Delta degrees of freedom, as ``np.cov``'s.
    keepdims : bool, default False
        Keep the reduced axes as axes of length 1.

    Returns
    -------
    cov : NumPy scalar or ndarray
        float64 (long double for long double data).

    See Also
    --------
    numpy.cov : the covariance matrix.
    correlation : the Pearson correlation.
    comoments : the ufunc whose reduction this is.

    Examples
    --------
    >>> import numpy as np, numreduce as nr
    >>> nr.covariance(np.array([1.0, 2.0, 3.0]), np.array([1.0, 3.0, 2.0]))
    np.float64(0.5)
    >>> nr.covariance(np.arange(6.0).reshape(2, 3), np.array([1.0, 0.0, 2.0]), axis=1)
    array([0.5, 0.5])
    """


@public_function(_stats.correlation, _REFUSE_PAIR, array="x")
def correlation(x, y, axis=None, keepdims=False):
    """Pearson correlation of ``x`` and ``y`` (broadcast together) in one
    pass, per slice along ``axis`` (None: all elements):
    ``np.corrcoef(x, y)[0, 1]`` / ``scipy.stats.pearsonr(x, y)[0]``.

    The co-moments of :func:`covariance`; ``Cxy / sqrt(Mxx Myy)``, clipped
    to [-1, 1].  A constant slice gives NaN with NumPy's warning, as
    ``np.corrcoef``.  float64 result (long double for long double).

    Parameters
    ----------
    x, y : array_like
        Real data, broadcast together.
    axis : None or int, optional
        The axis to reduce; ``None`` (the default) uses all elements.
    keepdims : bool, default False
        Keep the reduced axes as axes of length 1.

    Returns
    -------
    r : NumPy scalar or ndarray
        In [-1, 1]; NaN for a constant slice.

    See Also
    --------
    numpy.corrcoef : the correlation matrix.
    scipy.stats.pearsonr : the coefficient and its p-value.
    covariance : the covariance.

    Examples
    --------
    >>> import numpy as np, numreduce as nr
    >>> x = np.array([1.0, 2.0, 3.0, 4.0])
    >>> round(float(nr.correlation(x, 3 * x + 2)), 12)  # 1 within a few eps
    1.0
    >>> round(float(nr.correlation(x, np.array([2.0, 1.0, 4.0, 3.0]))), 12)
    0.6
    """


@public_function(_stats.sumprod, _REFUSE_PAIR, array="x")
def sumprod(x, y, axis=None, keepdims=False):
    """Compensated ``sum(x * y)`` along ``axis`` (None: all elements), the
    array counterpart of Python's ``math.sumprod``: each product split
    exactly by a fused multiply-add, the sum compensated as :func:`fsum`
    (the ``twoprod`` ufunc), with no temporary ``x * y``.

    Error at most about ``eps |sum| + n eps**2 sum|x y|``, where ``np.dot``
    gives ``n eps sum|x y|``: on ill-conditioned data (cancelling products)
    the result is correct to about 1 ulp.  Result dtype: the common float
    dtype of ``x`` and ``y`` (float64 for integers).  Real data only; NumPy,
    Dask and CuPy arrays.

    Parameters
    ----------
    x, y : array_like
        Real data, broadcast together.
    axis : None or int, optional
        The axis to reduce; ``None`` (the default) uses all elements.
    keepdims : bool, default False
        Keep the reduced axes as axes of length 1.

    Returns
    -------
    s : NumPy scalar or ndarray
        The compensated sum of the products.

    See Also
    --------
    numpy.dot, numpy.vecdot : the uncompensated products.
    math.sumprod : the same for Python sequences.
    fsum : compensated sum.
    twoprod : the ufunc whose reduction this is.

    Examples
    --------
    >>> import numpy as np, numreduce as nr
    >>> x = np.array([1e16, 1.0, -1e16])
    >>> float(nr.sumprod(x, np.ones(3)))   # np.dot gives 0.0
    1.0
    """


@public_function(_stats.fsum, masked_fill(0))
def fsum(a, axis=None, dtype=None, out=None, keepdims=False, initial=NoValue, where=True):
    """Compensated sum along an axis (Neumaier / Kahan-Babuska, one pass).

    Runs the ``twosum`` reduction: every addition's exact rounding error is
    accumulated alongside the sum.  Guaranteed bound:
    ``|fsum - exact| <= eps |exact| + n eps**2 sum|x|`` -- within about 1 ulp
    of ``math.fsum`` unless ``n * eps * sum|x| / |sum x|`` exceeds 1.
    Accumulates in float64 for bool/integers, float32 for float16, the input
    dtype otherwise; complex data sum their real and imaginary parts, each
    compensated.  ``dtype=`` chooses a float or complex accumulator (float16:
    accumulated in float32, rounded to float16); an integer, bool or object
    ``dtype=`` raises ``TypeError`` (``np.sum`` would do exact integer or
    object arithmetic), as do datetime64 and timedelta64 data.  NaN/inf
    behave as in ``np.sum``.

    ``out``, ``initial`` and ``where`` are ``np.sum``'s, in its order:
    ``out`` receives the result (cast as ``np.sum`` casts into ``out``),
    ``initial`` is added to every sum exactly (its rounding error joins the
    compensation), ``where`` selects the elements summed (0 for none).

    Parameters
    ----------
    a : array_like
        Bool, integer, float or complex data.
    axis : None, int or tuple of ints, optional
        Axis or axes to reduce; ``None`` (the default) reduces the whole array.
    dtype : dtype, optional
        Float or complex accumulator and result dtype.
    out : ndarray, optional
        Array for the result, of its shape (cast into it as ``np.sum``
        casts).
    keepdims : bool, default False
        Keep the reduced axes as axes of length 1.
    initial : scalar, optional
        Start value of every sum (``np.sum``'s), added exactly: its rounding
        error joins the compensation.
    where : array_like of bool, optional
        Elements to sum (``np.sum``'s); a sum of none is ``initial`` or 0.

    Returns
    -------
    s : NumPy scalar or ndarray
        The compensated sum.

    Raises
    ------
    TypeError
        An integer, bool or object ``dtype=``; a float ``dtype=`` on complex
        data (NumPy would drop the imaginary parts); datetime64 or
        timedelta64 data; object data without a float or complex ``dtype=``
        (with one, the elements are cast to it, as ``np.sum`` casts them);
        ``initial=None`` or a complex ``initial`` for a real sum.

    See Also
    --------
    numpy.sum : the uncompensated sum.
    math.fsum : the exactly rounded sum of a Python sequence.
    cumfsum, group_fsum : running and grouped.
    twosum : the ufunc whose reduction this is.

    Examples
    --------
    >>> import numpy as np, numreduce as nr
    >>> x = np.array([1e16, 1.0, -1e16] * 10)
    >>> float(nr.fsum(x))   # np.sum(x) gives 4.0 here
    10.0
    >>> nr.fsum(np.array([[1.0, 2.0], [3.0, 4.0]]), axis=1, initial=10.0,
    ...         where=np.array([True, False]))
    array([11., 13.])
    """


def mapreduce(f, reduction, *arrays, axis=None, keepdims=False, **options):
    """``reduction(f(*arrays), axis=axis, keepdims=keepdims, **options)``
    without the full-size array ``f(*arrays)``.

    ``f`` maps one block of the sources (broadcast together) to its
    elementwise image: a NumPy ufunc (``np.square``, ``np.subtract``), a
    lambda of NumPy expressions, any function that returns an array of the
    block's shape.  The sources are read in cache-sized blocks of the
    broadcast shape (about 65,536 elements): ``f`` runs on each block and
    the block goes straight into the reduction, whose states for the block
    merge into the result's.  Peak extra memory is a few blocks, not the
    array; the blocks depend on the shape only, so the result is bitwise the
    same for any thread count.  ``np.square`` with ``fsum`` (or ``twosum``)
    on one float32/float64 array runs a fused loop instead: the sum of the
    rounded squares read straight from the array, the bits of
    ``fsum(np.square(x))`` (C- and F-ordered arrays), with no blocks.

    Parameters
    ----------
    f : callable
        ``f(x_0, ..., x_{k-1}) -> array`` of the blocks' broadcast shape.
    reduction : numreduce user function or numreduce ufunc
        ``minmax``, ``nanminmax``, ``argminmax``, ``nanargminmax``,
        ``meanvar``, ``meanstd``, ``nanmeanvar``, ``logsumexp`` or ``fsum``
        (its results are returned), or a multi-output ufunc of one source
        (``numreduce.moments``, ...: its states are returned, as
        :func:`reduce` returns them; ``axis=None`` reduces every axis).
    *arrays : array_like
        The sources, broadcast together (NumPy, Dask or CuPy arrays).
    axis : None, int or tuple of ints
        The axes to reduce (None: all), as ``reduction``'s ``axis``.
    keepdims : bool
    **options
        The reduction's other keyword arguments (``ddof``, ``dtype``,
        ``where``, ``initial``, ``out`` for ufuncs, ...).

    Returns
    -------
    result
        What ``reduction(f(*arrays), axis=axis, keepdims=keepdims,
        **options)`` returns: exactly for the order reductions (min/max and
        their indices), within the reduction's stated accuracy for the
        others (the blocks' states are merged as its threads' are).

    Raises
    ------
    TypeError
        ``f`` not callable; ``reduction`` not one of numreduce's; a masked
        source, or CuPy sources mixed with NumPy or Dask arrays; a keyword
        the reduction does not take; ``f`` returning another dtype for
        another block (or, for CuPy sources, not a CuPy array).
    ValueError
        Sources that do not broadcast; ``f`` returning another shape.
    numpy.exceptions.AxisError
        A bad ``axis``.

    See Also
    --------
    numpy.einsum : sums of products without temporaries (sums only).
    reduce : the states of a ufunc's reduction of an array.
    sumprod, covariance, meanvar : reductions of two arrays (``weights=``).

    Notes
    -----
    Dask sources: ``f`` runs inside each chunk's task (``map_blocks``) and
    the reduction's Dask form reduces the mapped chunks, lazily.  CuPy
    sources: ``f`` runs once on the whole broadcast sources on the device
    and the reduction's CuPy form reduces that image -- exactly
    ``reduction(f(*arrays))``, with one full-size device temporary (CuPy
    has no cheap way to feed blocks of a map to a reduction).  Every
    reduction and keyword behaves the same at every size: ``weights=`` /
    ``b=`` / ``return_sign=`` read each block of the other operand beside
    the block of the image (operands that broadcast the image further make
    ``f`` run on the broadcast sources); complex ``logsumexp`` (several
    array passes) computes ``f(*arrays)`` whole, as on CuPy.  Where
    ``np.seterr`` asks for underflow reports or raises on overflow, or a
    result is not finite while overflow is reported, the fused
    ``np.square`` loop is not used: ``f`` runs on the blocks, so
    that its floating-point reports are ``f(x)``'s.

    Examples
    --------
    >>> import numpy as np, numreduce as nr
    >>> X = np.arange(12.0).reshape(3, 4)
    >>> nr.mapreduce(np.square, nr.fsum, X, axis=0)      # (X**2).sum(0)
    array([ 80., 107., 140., 179.])
    >>> x, y = np.array([1.0, 5.0, 3.0]), np.array([0.5, 1.0, 4.0])
    >>> nr.mapreduce(np.subtract, nr.minmax, x, y)        # minmax(x - y)
    (np.float64(-1.0), np.float64(4.0))
    >>> nr.mapreduce(lambda a: np.abs(a - 1), nr.meanvar, x, ddof=1)
    (np.float64(2.0), np.float64(4.0))
    """
    return _mapreduce(f, reduction, arrays, axis, keepdims, options)


@public_function(_stats.cumminmax, _REFUSE, array="x")
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

    Raises
    ------
    ValueError
        ``axis=None`` for input of more than one dimension.

    See Also
    --------
    numpy.minimum.accumulate, numpy.maximum.accumulate : the two calls this
        replaces.
    nancumminmax : ignores NaN.
    accumulate : the method this runs.

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


@public_function(_stats.nancumminmax, _REFUSE, array="x")
def nancumminmax(x, /, *, axis=None, dtype=None, out=None):
    """Running minimum and maximum that skip NaN, in one pass:
    ``(np.fmin.accumulate(x, axis), np.fmax.accumulate(x, axis))``, through
    ``numreduce.accumulate(fminfmax, ...)``.

    Leading NaNs stay NaN until the first number (as ``np.fmin.accumulate``;
    an all-NaN prefix has no minimum); NaT likewise for datetimes.  The
    signature and rules are :func:`cumminmax`'s.

    Parameters
    ----------
    x : array_like
        0-d input is treated as 1-d.
    axis : int, optional
        Required for input of more than one dimension; ``None`` for 1-d input.
    dtype : dtype, optional
        Dtype of both outputs (the input is cast to it).
    out : tuple of two (ndarray or None), optional
        Of ``x``'s shape; may overlap ``x``.

    Returns
    -------
    (running_min, running_max) : tuple of ndarray

    See Also
    --------
    numpy.fmin.accumulate, numpy.fmax.accumulate : the two calls this
        replaces.
    cumminmax : NaN-propagating.

    Examples
    --------
    >>> import numpy as np, numreduce as nr
    >>> nr.nancumminmax(np.array([np.nan, 3., np.nan, 1., 5.]))
    (array([nan,  3.,  3.,  1.,  1.]), array([nan,  3.,  3.,  3.,  5.]))
    """


@public_function(_stats.logcumsumexp, _REFUSE, array="x")
def logcumsumexp(x, /, *, axis=None, dtype=None, out=None, include_initial=False):
    """``log(cumsum(exp(x)))`` along an axis, accurate and without overflow:
    ``np.logaddexp.accumulate(x, axis)`` in one pass.

    Runs ``numreduce.accumulate(maxsumexp, ...)``: the running maximum ``m``
    and ``t`` = the running sum of ``exp(x - m)`` less the maximum's own 1,
    in float64 (long double for long double), rescaled when the maximum
    grows; the result is ``m + log1p(t)``.  +inf wins, NaN propagates from
    its position on, -inf terms add nothing (an all -inf prefix gives -inf).

    Parameters
    ----------
    x : array_like
        Real (bool, integer or float) data; 0-d input is treated as 1-d.
    axis : int, optional
        Required for input of more than one dimension; ``None`` for 1-d.
    dtype : dtype, optional
        Result dtype (a float type).  Default: as ``numreduce.logsumexp``
        (SciPy's rule) -- the input's float dtype, float64 for bool and
        integers.
    out : ndarray, optional
        Of the result's shape; results are cast into it.  May overlap ``x``.
    include_initial : bool, default False
        Prepend -inf (the log of an empty sum), as ``np.cumulative_sum``
        prepends 0: the result is one longer along ``axis``.

    Returns
    -------
    ndarray
        The running ``log(sum(exp(x)))``.

    See Also
    --------
    numpy.logaddexp.accumulate : the call this replaces.
    logsumexp : the whole-axis result.
    accumulate : the method this runs (with ``maxsumexp``).

    Examples
    --------
    >>> import numpy as np, numreduce as nr
    >>> nr.logcumsumexp(np.array([1000., 1000., 1000.]))    # no overflow
    array([1000.        , 1000.69314718, 1001.09861229])
    >>> nr.logcumsumexp(np.array([0., 0.]), include_initial=True)
    array([      -inf, 0.        , 0.69314718])
    """


@public_function(_stats.cumfsum, _REFUSE, array="x")
def cumfsum(x, /, *, axis=None, dtype=None, out=None, include_initial=False):
    """Compensated cumulative sum: ``np.cumulative_sum(x, axis=axis)`` with
    every prefix summed as accurately as :func:`numreduce.fsum` sums it.

    Runs ``numreduce.accumulate(twosum, ...)`` (every addition's exact
    rounding error accumulated alongside the running sum) and returns
    ``sum + error`` per prefix: each prefix is within fsum's bound
    ``eps |exact| + n eps**2 sum|x|`` of the exact prefix sum (n its
    length), where ``np.cumsum`` drifts by up to ``n eps sum|x|``.

    Parameters
    ----------
    x : array_like
        Bool, integer, float, complex (the real and imaginary parts each
        compensated), or object with a float/complex ``dtype=``.
    axis : int, optional
        Required for input of more than one dimension; ``None`` for 1-d.
    dtype : dtype, optional
        :func:`numreduce.fsum`'s rules: float64 for bool and integers,
        float32 accumulators for float16, the input's dtype otherwise; an
        integer, bool or object ``dtype=`` raises ``TypeError``.
    out : ndarray, optional
        Of the result's shape; results are cast into it.  May overlap ``x``.
    include_initial : bool, default False
        Prepend 0, as ``np.cumulative_sum``: one longer along ``axis``.

    Returns
    -------
    ndarray
        The compensated running sums.

    See Also
    --------
    numpy.cumulative_sum, numpy.cumsum : the uncompensated running sums.
    fsum : the whole-axis result.
    accumulate : the method this runs (with ``twosum``).

    Examples
    --------
    >>> import numpy as np, numreduce as nr
    >>> x = np.array([1e16, 1.0, -1e16, 1.0])
    >>> nr.cumfsum(x)          # np.cumsum(x) gives [1e16, 1e16, 0, 1]
    array([1.e+16, 1.e+16, 1.e+00, 2.e+00])
    """


@public_function(_stats.cummeanvar, _REFUSE, array="x")
def cummeanvar(x, /, *, axis=None, dtype=None, ddof=0, out=None):
    """Running mean and variance in one pass: element ``i`` along ``axis``
    is ``(np.mean(p), np.var(p, ddof=ddof))`` of the prefix ``p = x[..., :i+1]``.

    Runs ``numreduce.accumulate(moments, ...)`` (Welford's update of (count,
    mean, M2) in float64, long double for long double); complex data reduce
    their real and imaginary parts separately and the variance is the mean
    of ``|z - mean|**2``, as ``np.var``'s.  Result dtypes and ``dtype=``
    follow :func:`numreduce.meanvar` (np.mean / np.var's: float64 for bool
    and integers, the float dtype otherwise, a real variance for complex).

    Prefixes with ``i + 1 - ddof <= 0`` degrees of freedom get what
    ``np.var`` gives them (NaN, or inf where M2 > 0) but no warning per
    prefix (with ``ddof=1`` the first prefix always has none); the
    ``RuntimeWarning`` "Degrees of freedom <= 0 for slice" is issued only
    when no prefix has any, i.e. when ``np.var`` of the whole slice would
    warn (axis length ``<= ddof``).

    Parameters
    ----------
    x : array_like
        Real or complex data; 0-d input is treated as 1-d.
    axis : int, optional
        Required for input of more than one dimension; ``None`` for 1-d.
    dtype : dtype, optional
        A float or complex type for both results.
    ddof : real scalar, default 0
        Delta degrees of freedom of every prefix's variance.
    out : tuple of two (ndarray or None), optional
        For (mean, var), of ``x``'s shape; results are cast into them.

    Returns
    -------
    (mean, var) : tuple of ndarray

    See Also
    --------
    numpy.mean, numpy.var : the statistics of each prefix.
    meanvar : the whole-axis result.
    accumulate : the method this runs (with ``moments``).

    Examples
    --------
    >>> import numpy as np, numreduce as nr
    >>> mean, var = nr.cummeanvar(np.array([1., 2., 3., 4.]))
    >>> mean
    array([1. , 1.5, 2. , 2.5])
    >>> var
    array([0.        , 0.25      , 0.66666667, 1.25      ])
    """


@public_function(_stats.group_minmax, _REFUSE_GROUPS)
def group_minmax(a, group_ids, num_groups=None, axis=0, out=None, initial=NoValue, where=True):
    """Minimum and maximum of every group, in one pass:
    ``(np.min(a[group_ids == g], axis), np.max(...))`` for each group ``g``
    (pandas ``groupby(...).agg(['min', 'max'])``).

    NaN (NaT) propagates, as ``np.minimum``.  An empty group (and ``where``)
    needs ``initial`` (a scalar, or (min_initial, max_initial)), else
    ``ValueError``.  ``group_ids``, ``num_groups``, ``axis`` and ``out`` as
    for :func:`reduce_by_group`.

    Parameters
    ----------
    a : array_like
        The data.
    group_ids : array_like of int
        One group id per element along ``axis``, each in ``[0, num_groups)``,
        in any order.
    num_groups : int, optional
        Number of groups; ``None``: ``max(group_ids) + 1``.
    axis : int, default 0
        The axis to group along; the results have ``num_groups`` there.
    out : tuple of two (ndarray or None), optional
        Of the result's shape.
    initial : scalar or (min_initial, max_initial), optional
        Start value of every group; needed for empty groups and ``where``.
    where : array_like of bool, optional
        Elements to include.

    Returns
    -------
    (min, max) : tuple of ndarray
        One entry per group along ``axis``.

    Raises
    ------
    IndexError
        A group id outside ``[0, num_groups)``.
    ValueError
        An empty group without ``initial``.

    See Also
    --------
    pandas.core.groupby.DataFrameGroupBy.agg : ``groupby(ids).agg(['min', 'max'])``.
    numpy.minimum.at, numpy.maximum.at : the unbuffered NumPy equivalent.
    reduce_by_group : the method this runs.
    minmax : the whole-array result.

    Examples
    --------
    >>> import numpy as np, numreduce as nr
    >>> nr.group_minmax(np.array([3, 1, 4, 1, 5, 9]), np.array([0, 1, 0, 1, 2, 2]))
    (array([3, 1, 5]), array([4, 1, 9]))
    """


@public_function(_stats.group_meanvar, _REFUSE_GROUPS)
def group_meanvar(a, group_ids, num_groups=None, axis=0, dtype=None, ddof=0, where=True,
                  weights=None):
    """Mean and variance of every group, in one pass:
    ``(np.mean(a[group_ids == g], axis), np.var(..., ddof=ddof))`` for each
    group ``g`` (pandas ``groupby(...).mean()`` and ``.var(ddof=...)``).

    Accumulates (count, mean, M2) per group with the ``moments`` ufunc, in
    float64 for bool/integer/float16/float32 data.  Dtype and ddof rules
    are :func:`meanvar`'s; an empty group (or one with ``count <= ddof``)
    gives NaN with NumPy's warnings.  With ``weights``, the weighted
    moments of :func:`meanvar` per group (``wmoments``): frequency weights,
    so integer weights give the moments of ``np.repeat``; a group whose
    weights sum to 0 is an empty group.

    Parameters
    ----------
    a : array_like
        Real or complex data.
    group_ids : array_like of int
        One group id per element along ``axis``, each in ``[0, num_groups)``,
        in any order.
    num_groups : int, optional
        Number of groups; ``None``: ``max(group_ids) + 1``.
    axis : int, default 0
        The axis to group along; the results have ``num_groups`` there.
    dtype : dtype, optional
        Float or complex dtype of the results.
    ddof : real scalar, default 0
        Delta degrees of freedom: the variance divides by ``count - ddof``
        (by the weight sum minus ``ddof`` with ``weights``).
    where : array_like of bool, optional
        Elements to include.
    weights : array_like, optional
        Non-negative frequency weights, broadcast against ``a`` (real data).

    Returns
    -------
    (mean, var) : tuple of ndarray
        One entry per group along ``axis``; NaN (with NumPy's warnings) for
        an empty group.

    Raises
    ------
    IndexError
        A group id outside ``[0, num_groups)``.
    ValueError
        A negative weight, or weights that do not broadcast against ``a``.
    TypeError
        Complex data or weights (real numbers only with ``weights``).

    See Also
    --------
    meanvar : the whole-array result.
    reduce_by_group : the method this runs (with ``moments``).

    Examples
    --------
    >>> import numpy as np, numreduce as nr
    >>> nr.group_meanvar(np.array([1., 2., 3., 5.]), np.array([0, 1, 0, 1]), ddof=1)
    (array([2. , 3.5]), array([2. , 4.5]))
    >>> nr.group_meanvar(np.array([1., 2., 3., 5.]), np.array([0, 1, 0, 1]),
    ...                  weights=np.array([3, 1, 1, 0]))
    (array([1.5, 2. ]), array([0.75, 0.  ]))
    """


@public_function(_stats.group_logsumexp, _REFUSE_GROUPS)
def group_logsumexp(a, group_ids, num_groups=None, axis=0):
    """``log(sum(exp(a[group_ids == g])))`` of every group in one pass
    (``scipy.special.logsumexp`` per group): (max, sum of exp(x - max) - 1)
    per group with the ``maxsumexp`` step, then ``max + log1p(t)``.  No
    overflow; +inf wins, NaN propagates; an empty group gives -inf.  Real
    data only (float dtypes keep theirs, bool/integers give float64;
    complex is a ``TypeError``).

    Parameters
    ----------
    a : array_like
        Real data.
    group_ids : array_like of int
        One group id per element along ``axis``, each in ``[0, num_groups)``,
        in any order.
    num_groups : int, optional
        Number of groups; ``None``: ``max(group_ids) + 1``.
    axis : int, default 0
        The axis to group along; the results have ``num_groups`` there.

    Returns
    -------
    ndarray
        One entry per group along ``axis``; -inf for an empty group.

    Raises
    ------
    TypeError
        Complex data.
    IndexError
        A group id outside ``[0, num_groups)``.

    See Also
    --------
    scipy.special.logsumexp : the call per group.
    logsumexp : the whole-array result.

    Examples
    --------
    >>> import numpy as np, numreduce as nr
    >>> nr.group_logsumexp(np.array([1000., 1000., 0.]), np.array([0, 0, 1]), num_groups=3)
    array([1000.69314718,    0.        ,          -inf])
    """


@public_function(_stats.group_fsum, _REFUSE_GROUPS)
def group_fsum(a, group_ids, num_groups=None, axis=0):
    """Compensated sum of every group in one pass (``math.fsum`` per group,
    to about 1 ulp): (sum, error) per group with the ``twosum`` step, then
    ``sum + error``.  Real data only (float64 accumulators for bool and
    integers, float32 for float16, the input's float dtype otherwise;
    complex is a ``TypeError``); an empty group sums to 0.

    Parameters
    ----------
    a : array_like
        Real data.
    group_ids : array_like of int
        One group id per element along ``axis``, each in ``[0, num_groups)``,
        in any order.
    num_groups : int, optional
        Number of groups; ``None``: ``max(group_ids) + 1``.
    axis : int, default 0
        The axis to group along; the results have ``num_groups`` there.

    Returns
    -------
    ndarray
        One compensated sum per group along ``axis``; 0 for an empty group.

    Raises
    ------
    TypeError
        Complex data.
    IndexError
        A group id outside ``[0, num_groups)``.

    See Also
    --------
    math.fsum : the exactly rounded sum per group.
    fsum : the whole-array result.

    Examples
    --------
    >>> import numpy as np, numreduce as nr
    >>> nr.group_fsum(np.array([1e16, 1., -1e16, 2.]), np.array([0, 0, 0, 1]))
    array([1., 2.])
    """


@public_function(_stats.group_argminmax, _REFUSE_GROUPS)
def group_argminmax(a, group_ids, num_groups=None):
    """``(argmin, argmax)`` of every group of a 1-d array: the index within
    ``a`` of each group's first minimum and first maximum
    (``np.flatnonzero(group_ids == g)[np.argmin(a[group_ids == g])]``).

    NaN (NaT) propagates as in ``np.argmin``: a group with a NaN gives the
    index of its first NaN for both.  An empty group is a
    ``ValueError``, as ``np.argmin`` of an empty array.

    Parameters
    ----------
    a : array_like
        1-d data.
    group_ids : array_like of int
        One group id per element, each in ``[0, num_groups)``, in any order.
    num_groups : int, optional
        Number of groups; ``None``: ``max(group_ids) + 1``.

    Returns
    -------
    (argmin, argmax) : tuple of ndarray
        Indices into ``a``, one per group.

    Raises
    ------
    ValueError
        An empty group (as ``np.argmin`` of an empty array).

    See Also
    --------
    numpy.argmin, numpy.argmax : the call per group.
    group_minmax : the values.

    Examples
    --------
    >>> import numpy as np, numreduce as nr
    >>> nr.group_argminmax(np.array([3., 1., 4., 1., 5.]), np.array([0, 0, 1, 1, 0]))
    (array([1, 3]), array([4, 2]))
    """
