"""The ufunc methods NumPy lacks for multi-output ufuncs (issue 11).

``merge`` (combine partial states) and ``accumulate`` (prefix reductions)
run on the engine through each loop's merge loop and scan loop, found in the
loop table like ``reduce``'s; argument checks reuse
the shared validators of ``numreduce._args`` and the dtype resolution of
``numreduce._engine`` and run before anything is written.
"""

from __future__ import annotations

import math

import numpy as np

from . import _core
from ._args import check_out_dtypes, check_outs, finish_outs, one_axis, work_outs
from ._dispatch import cupy_operands_call, masked_refuse, public_function
from ._engine import MULTI_OUTPUT, _parse_out, _resolve, _resolve_outs

__all__ = ["accumulate", "merge"]


def _multi_output(ufunc, method: str) -> int:
    nout = MULTI_OUTPUT.get(ufunc)
    if nout is None:
        what = getattr(ufunc, "__name__", type(ufunc).__name__)
        raise TypeError(f"{method}() expects one of numreduce's multi-output ufuncs "
                        f"(minimummaximum, fminfmax, moments, nanmoments, maxsumexp, twosum) "
                        f"or one registered through numreduce's C API, got {what!r}")
    return nout


def _states(states, nout: int, name: str, arg: str) -> tuple:
    if not isinstance(states, (tuple, list)):
        raise TypeError(f"{name}: '{arg}' must be a tuple with one array per ufunc output "
                        f"({nout}), not {type(states).__name__}")
    if len(states) != nout:
        raise ValueError(f"{name}: '{arg}' must have one entry per ufunc output ({nout}), got "
                         f"{len(states)}")
    if any(isinstance(s, np.ma.MaskedArray) for s in states):
        raise TypeError(f"{name}: masked arrays are not supported in '{arg}' (the mask would "
                        "be ignored); merge the states of the unmasked data")
    return tuple(np.asarray(s) for s in states)


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
    for the others (docs/accuracy.md).

    Parameters
    ----------
    ufunc : one of numreduce's multi-output ufuncs
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
    on_gpu = cupy_operands_call("numreduce.merge", {"ufunc": ufunc, "states_a": states_a,
                                                    "states_b": states_b, "out": out},
                                ("states_a", "states_b", "out"))
    if on_gpu is not None:  # CuPy states: numreduce.cupy.merge (no host round trip)
        return on_gpu[0]
    nout = _multi_output(ufunc, "merge")
    name = f"merge({ufunc.__name__})"
    a = _states(states_a, nout, name, "states_a")
    b = _states(states_b, nout, name, "states_b")
    outs = _parse_out(out, nout)
    try:
        shape = np.broadcast_shapes(*(s.shape for s in a + b))
    except ValueError:
        raise ValueError(f"{name}: the states do not broadcast together: states_a shapes "
                         f"{[s.shape for s in a]}, states_b shapes {[s.shape for s in b]}"
                         ) from None
    if any(o is not None for o in outs):
        check_outs(outs, shape, name)
    try:
        common = np.result_type(*a, *b)
        descrs = _resolve(ufunc, common, (None,) * nout, None, nout)
    except TypeError as e:
        raise TypeError(f"{name}: no merge loop for states of dtypes "
                        f"{[str(s.dtype) for s in a]} and {[str(s.dtype) for s in b]}: {e}"
                        ) from e
    acc = descrs[1]
    if not np.can_cast(common, acc, casting="safe"):
        raise TypeError(f"{name}: states of dtype {common} cannot be cast safely to the "
                        f"accumulator dtype {acc}")
    check_out_dtypes(outs, descrs[1:], name)
    res = _core._merge(ufunc, a, b, outs, descrs[0], acc)
    if out is None:
        res = tuple(r[()] if r.ndim == 0 else r for r in res)
    return res


@public_function(masked_refuse("pass m.filled(value) or np.ma.getdata(m) explicitly"),
                 array="array", passthrough=lambda ufunc: ufunc not in MULTI_OUTPUT)
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
    nout = MULTI_OUTPUT.get(ufunc)
    if nout is None:
        if not isinstance(ufunc, np.ufunc):
            raise TypeError(f"accumulate() expects a numpy ufunc, got {type(ufunc).__name__}")
        return ufunc.accumulate(array, axis=axis, dtype=dtype, out=out)
    # Every check below runs before anything is written.
    name = f"accumulate({ufunc.__name__})"
    outs = _parse_out(out, nout)
    arr = np.asarray(array)
    ax = one_axis(axis, arr, name, "accumulate on")
    if any(o is not None for o in outs):
        check_outs(outs, arr.shape, name)
    descrs = _resolve_outs(ufunc, arr.dtype, outs, dtype, nout, name)

    # The scan loop wants C-contiguous, aligned, native blocks (outer, n, inner).
    x = np.require(arr.astype(descrs[0], copy=False), requirements=["C", "A"])
    shape = arr.shape
    outer, n, inner = math.prod(shape[:ax]), shape[ax], math.prod(shape[ax + 1:])
    res = work_outs(outs, descrs[1:], shape, x)
    _core._accumulate(ufunc, x, tuple(res), outer, n, inner)
    return finish_outs(outs, res)
