"""The bad-argument matrix: every public function x every argument case that
applies to its signature.

Each call gets, where the function takes ``out``, a pre-filled ``out`` (a
sentinel); the test asserts the exception type, that the message names the
argument, that the pre-filled ``out`` is unchanged, and -- where NumPy has the
equivalent call -- that NumPy raises an exception of the same type on the same
arguments (computed at test time).  A new argument case is one row of
``CASES``; a new function is one entry of ``FUNCS``.
"""

from __future__ import annotations

import operator
import re
import warnings
from dataclasses import dataclass
from typing import Callable

import numpy as np
import pytest

import numreduce as nr

SENTINEL = 7
A = np.arange(12.0).reshape(3, 4)  # every case reduces axis 0 -> result shape (4,)


@dataclass(frozen=True)
class Fn:
    call: Callable  # call(a, **kw)
    ref: Callable | None  # NumPy's equivalent call(a, **kw), or None
    features: frozenset  # which arguments the signature has
    out_dtypes: tuple = ()  # one per output (functions with `out`)
    ref_takes_out: bool = False  # ref accepts NumPy's single `out=`


def _reduce(u):
    return lambda a, **kw: nr.reduce(u, a, **kw)


REDUCE_FEATURES = frozenset({"axis_tuple", "out", "keepdims", "where", "value_out"})
USER_MINMAX = REDUCE_FEATURES
ARG_FEATURES = frozenset({"out", "keepdims", "index_out", "arg"})
MOMENT_FEATURES = frozenset({"axis_tuple", "keepdims", "where"})
SUM_FEATURES = frozenset({"axis_tuple", "keepdims"})
F8, IP = np.dtype(np.float64), np.dtype(np.intp)

FUNCS = {
    "reduce-minimummaximum": Fn(_reduce(nr.minimummaximum), np.minimum.reduce, REDUCE_FEATURES,
                                (F8, F8), True),
    "reduce-fminfmax": Fn(_reduce(nr.fminfmax), np.fmin.reduce, REDUCE_FEATURES, (F8, F8), True),
    "reduce-moments": Fn(_reduce(nr.moments), np.add.reduce, REDUCE_FEATURES, (F8,) * 3, True),
    "reduce-nanmoments": Fn(_reduce(nr.nanmoments), np.add.reduce, REDUCE_FEATURES, (F8,) * 3,
                            True),
    "reduce-maxsumexp": Fn(_reduce(nr.maxsumexp), np.maximum.reduce, REDUCE_FEATURES, (F8, F8),
                           True),
    "reduce-twosum": Fn(_reduce(nr.twosum), np.add.reduce, REDUCE_FEATURES, (F8, F8), True),
    "minmax": Fn(nr.minmax, np.min, USER_MINMAX, (F8, F8), True),
    "nanminmax": Fn(nr.nanminmax, np.nanmin, USER_MINMAX, (F8, F8), True),
    "argminmax": Fn(nr.argminmax, np.argmin, ARG_FEATURES, (IP, IP), True),
    "nanargminmax": Fn(nr.nanargminmax, np.nanargmin, ARG_FEATURES, (IP, IP), True),
    "meanvar": Fn(nr.meanvar, np.var, MOMENT_FEATURES),
    "meanstd": Fn(nr.meanstd, np.std, MOMENT_FEATURES),
    "nanmeanvar": Fn(nr.nanmeanvar, np.nanvar, MOMENT_FEATURES),
    # log(sum(exp(a))) and a sum: NumPy's argument handling is np.sum's.
    "logsumexp": Fn(nr.logsumexp, np.sum, SUM_FEATURES),
    "fsum": Fn(nr.fsum, np.sum, SUM_FEATURES),
}


def _prefilled(fn, shape=(4,), dtypes=None):
    return tuple(np.full(shape, SENTINEL, dtype=d) for d in (dtypes or fn.out_dtypes))


def _aliased(fn):
    o = np.full(4, SENTINEL, dtype=fn.out_dtypes[0])
    return (o,) * len(fn.out_dtypes)


def _overlapping(fn):
    n = len(fn.out_dtypes)
    buf = np.full(4 + n, SENTINEL, dtype=fn.out_dtypes[0])
    return tuple(buf[i:i + 4] for i in range(n))  # each shifted by one element


def _readonly(fn):
    outs = _prefilled(fn)
    for o in outs:
        o.flags.writeable = False
    return outs


def _bad_dtype(fn):
    # np.argmin refuses an index output that intp cannot be cast to safely;
    # np.minimum.reduce (and friends) find no loop for a string output.
    return _prefilled(fn, dtypes=[np.float64 if "index_out" in fn.features else "U5"]
                      * len(fn.out_dtypes))


def _has_index(x):
    with warnings.catch_warnings():
        # NumPy 2.0 takes np.True_ as an index with a DeprecationWarning
        # (an error under the suite's filterwarnings): it still is one.
        warnings.simplefilter("ignore", DeprecationWarning)
        try:
            operator.index(x)
        except TypeError:
            return False
    return True


_NP_BOOL_INDEX = _has_index(np.True_)  # NumPy 2.0: True (deprecated), later: False


@dataclass(frozen=True)
class Case:
    kw: dict  # the bad argument(s); axis=0 is added unless given
    exc: type
    names: str  # regex the message must match (the argument's name)
    needs: frozenset = frozenset()  # features of the signature the case applies to
    outs: Callable | None = None  # fn -> the (bad) out tuple; else a pre-filled valid one
    data: np.ndarray | None = None
    numpy_check: bool = True  # False: NumPy has no equivalent (e.g. two outputs)


CASES = {
    # axis
    "axis=True": Case({"axis": True}, TypeError, "axis"),
    "axis=False": Case({"axis": False}, TypeError, "axis"),
    "axis=np.True_": Case({"axis": np.True_}, TypeError, "axis"),
    "axis=0.0": Case({"axis": 0.0}, TypeError, "axis"),
    "axis=1-D array": Case({"axis": np.array([0, 1])}, TypeError, "axis"),
    "axis=1-D array of one": Case({"axis": np.array([0])}, TypeError, "axis"),
    "axis=list": Case({"axis": [0]}, TypeError, "axis"),
    "axis=(True,)": Case({"axis": (True,)}, TypeError, "axis", frozenset({"axis_tuple"})),
    "axis=(0.0,)": Case({"axis": (0.0,)}, TypeError, "axis", frozenset({"axis_tuple"})),
    "axis=2": Case({"axis": 2}, np.exceptions.AxisError, "axis"),
    "axis=(0, -2)": Case({"axis": (0, -2)}, ValueError, "axis", frozenset({"axis_tuple"})),
    # keepdims
    "keepdims='yes'": Case({"keepdims": "yes"}, TypeError, "keepdims", frozenset({"keepdims"})),
    "keepdims=None": Case({"keepdims": None}, TypeError, "keepdims", frozenset({"keepdims"})),
    # np.True_ as keepdims: refused where NumPy refuses it (np.bool_ lost
    # __index__ in NumPy 2.x); test_keepdims_numpy_bool_follows_numpy covers both
    **({"keepdims=np.True_": Case({"keepdims": np.True_}, TypeError, "keepdims",
                                  frozenset({"keepdims"}))} if not _NP_BOOL_INDEX else {}),
    "keepdims=0-d array": Case({"keepdims": np.array(True)}, TypeError, "keepdims",
                               frozenset({"keepdims"})),
    # where
    "where=int array": Case({"where": np.ones(4, dtype=np.int64)}, TypeError, "where",
                            frozenset({"where"})),
    "where=float array": Case({"where": np.ones(4)}, TypeError, "where", frozenset({"where"})),
    "where=0-d int array": Case({"where": np.array(1)}, TypeError, "where",
                                frozenset({"where"})),
    "where=wrong shape": Case({"where": np.ones(5, dtype=bool)}, ValueError, "where",
                              frozenset({"where"})),
    # out
    "out=size-1 axis": Case({}, ValueError, r"out.*\(1,\).*\(4,\)", frozenset({"out"}),
                            outs=lambda fn: _prefilled(fn, (1,))),
    "out=wrong shape": Case({}, ValueError, r"out.*\(3,\).*\(4,\)", frozenset({"out"}),
                            outs=lambda fn: _prefilled(fn, (3,))),
    "out=wrong ndim": Case({}, ValueError, r"out.*\(1, 4\).*\(4,\)", frozenset({"out"}),
                           outs=lambda fn: _prefilled(fn, (1, 4))),
    "out=keepdims size-1 axis": Case({"keepdims": True}, ValueError, r"out.*\(1, 1\).*\(1, 4\)",
                                     frozenset({"out"}), outs=lambda fn: _prefilled(fn, (1, 1))),
    "out=same array twice": Case({}, ValueError, "out", frozenset({"out"}), outs=_aliased,
                                 numpy_check=False),
    "out=overlapping views": Case({}, ValueError, "out", frozenset({"out"}), outs=_overlapping,
                                  numpy_check=False),
    "out=read-only": Case({}, ValueError, "out.*read-only", frozenset({"out"}), outs=_readonly),
    "out=bad dtype": Case({}, TypeError, "out", frozenset({"out"}), outs=_bad_dtype),
    "out=list": Case({}, TypeError, "out", frozenset({"out"}),
                     outs=lambda fn: [np.zeros(4, d) for d in fn.out_dtypes], numpy_check=False),
    # empty argmin / argmax: NumPy's message
    "empty 1-D": Case({"axis": None}, ValueError, "^attempt to get argmin of an empty sequence$",
                      frozenset({"arg"}), outs=lambda fn: _prefilled(fn, ()), data=np.zeros(0)),
    "empty axis": Case({}, ValueError, "^attempt to get argmin of an empty sequence$",
                       frozenset({"arg"}), data=np.zeros((0, 4))),
}

# (function, case) pairs where NumPy accepts the call and numreduce refuses
# it on purpose (docs/differences.md): np.argmin converts `keepdims` with
# bool(), so it accepts strings, None and arrays.
STRICTER = {(f, c) for f in ("argminmax", "nanargminmax")
            for c in ("keepdims='yes'", "keepdims=None", "keepdims=np.True_",
                      "keepdims=0-d array")}

MATRIX = [(f, c) for f, fn in FUNCS.items() for c, case in CASES.items()
          if case.needs <= fn.features]


def _public_type(exc):
    """The exception class a user catches (UFuncTypeError -> TypeError)."""
    for t in (np.exceptions.AxisError, OverflowError, TypeError, ValueError):
        if isinstance(exc, t):
            return t
    return type(exc)


@pytest.mark.filterwarnings("ignore::RuntimeWarning")
@pytest.mark.parametrize("fname,cname", MATRIX, ids=[f"{f}-{c}" for f, c in MATRIX])
def test_bad_argument(fname, cname):
    fn, case = FUNCS[fname], CASES[cname]
    a = A if case.data is None else case.data
    kw = {"axis": 0, **case.kw}
    outs = None
    if "out" in fn.features:
        outs = case.outs(fn) if case.outs is not None else _prefilled(fn)
        kw["out"] = outs if isinstance(outs, tuple) else list(outs)
        before = [o.copy() for o in outs]
    with pytest.raises(case.exc) as info:
        fn.call(a, **kw)
    assert re.search(case.names, str(info.value)), str(info.value)
    if outs is not None:
        for o, b in zip(outs, before):
            assert o.dtype == b.dtype
            np.testing.assert_array_equal(o, b)  # nothing was written
    if fn.ref is None or not case.numpy_check:
        return
    np_kw = dict(kw)
    if (fname, cname) in STRICTER:
        # The claim in docs/differences.md still holds: NumPy accepts it.
        del np_kw["out"]
        fn.ref(a, **np_kw)
        return
    if "out" in np_kw:
        if fn.ref_takes_out:
            np_kw["out"] = np_kw["out"][0]
        else:
            del np_kw["out"]
    try:
        fn.ref(a, **np_kw)
    except DeprecationWarning:
        pass  # NumPy 2.0 deprecates what numreduce refuses already (np.True_ as an axis)
    except Exception as np_exc:  # noqa: BLE001 -- any NumPy exception is the reference
        assert _public_type(info.value) is _public_type(np_exc), (info.value, np_exc)
    else:
        raise AssertionError(f"NumPy accepts {fname}-{cname}; numreduce refuses it")


def test_keepdims_numpy_bool_follows_numpy():
    """keepdims=np.True_ is accepted exactly where NumPy's ufunc.reduce
    accepts it (NumPy 2.0), with keepdims=True's result; else TypeError."""
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", DeprecationWarning)  # NumPy 2.0's
            want = np.minimum.reduce(A, axis=0, keepdims=np.True_)
    except TypeError:
        with pytest.raises(TypeError, match="keepdims"):
            nr.minmax(A, axis=0, keepdims=np.True_)
    else:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", DeprecationWarning)
            lo, hi = nr.minmax(A, axis=0, keepdims=np.True_)
        np.testing.assert_array_equal(lo, want)
        assert lo.shape == nr.minmax(A, axis=0, keepdims=True)[0].shape
