"""The conformance table: every public computing function x every input kind
x every operand (docs/architecture.md, "The conformance table").

The rows (functions, their operands, references, tolerances) are data in
tests/conformance_table.py; this module generates the cells.  A cell passes
when numreduce gives the reference's value within the row's tolerance, or
raises the reference's exception type -- for ``out=`` cells before anything
is written (the out arrays hold a sentinel that must survive).  Where the
documentation allows a clear refusal instead of a value (a mask or ``<NA>``
on an operand: "honour it or refuse with a TypeError"; NumPy and Dask
arrays mixed in one call), the refusal's type is accepted too; never a
different value.

Kinds applied to each operand in turn: masked, nullable (pandas ``<NA>``),
dask (known chunks), dask_unknown (``x[x > c]``-style chunks), byteswap,
strided, reversed (negative strides), nan, inf, neginf, huge (near
overflow: elements finite, sums not), tiny (near underflow), empty_one (one
operand empty: a broadcast error), every dtype (float16, float32, bool,
int8..uint64), ids_big / ids_float (group ids only).  Kinds applied to all
operands at once: plain, zero_d, empty, dask_all, dask_unknown_all, large
(70,003 elements).  Kinds of ``out=`` (rows that take it): float64,
float32, int64, bool, complex128, read-only, aliasing the input.

The table's size is computed by ``table_counts()`` and asserted by
``test_table_size`` (run ``pytest tests/test_conformance.py -k size -s`` to
print it).  At the time of writing: 77 rows (41 computing names of
numreduce.__all__, 24 pandas/xarray accessor methods; 114 operands) x 40
kinds (33 input kinds, 7 out= kinds), 2,795 cells: 2,668 compare with a
reference value (380 of them also accept a documented refusal) and 127
expect the reference's exception.  159 cells are strict xfails today: 87
of issue 36's classes 1-9 (``KNOWN``) and 72 new (``NEW``).

Cells failing because of the bugs of issue 36 that are fixed on other
branches are listed in ``KNOWN`` (cell id -> issue class), strict xfail: an
entry whose cell passes fails, so delete the entry when its fix merges.
"""

from __future__ import annotations

import importlib.util
import warnings
from dataclasses import dataclass

import numpy as np
import pytest
from conformance_table import (
    BASE,
    EXCLUDED,
    HUGE,
    LARGE_N,
    MASKED,
    ROWS,
    SPECIAL,
    TINY,
    N,
)

import numreduce as nr

HAVE = {m: importlib.util.find_spec(m) is not None for m in ("pandas", "dask", "xarray")}
if HAVE["pandas"]:
    import numreduce.pandas
if HAVE["xarray"]:
    import numreduce.xarray

DTYPE_KINDS = ("float16", "float32", "bool", "int8", "uint8", "int16", "uint16", "int32",
               "uint32", "int64", "uint64")
PER_OPERAND = ("masked", "nullable", "dask", "dask_unknown", "byteswap", "strided", "reversed",
               "nan", "inf", "neginf", "huge", "tiny", "empty_one") + DTYPE_KINDS + (
               "ids_big", "ids_float")
ALL_OPERANDS = ("plain", "zero_d", "empty", "dask_all", "dask_unknown_all", "large", "dupcols")
OUT_KINDS = {"out_float64": np.float64, "out_float32": np.float32, "out_int64": np.int64,
             "out_bool": np.bool_, "out_complex128": np.complex128,
             "out_readonly": np.float64, "out_alias": np.float64}
NOT_FOR_IDS = {"nan", "inf", "neginf", "huge", "tiny", "float16", "float32"}
ONLY_FOR_IDS = {"ids_big", "ids_float"}
NEEDS = {"nullable": "pandas", "dask": "dask", "dask_unknown": "dask", "dask_all": "dask",
         "dask_unknown_all": "dask"}
SENTINEL = {"f": 7.25, "c": 7.25, "i": 7, "u": 7, "b": True}

# Cells failing today because of issue 36's classes being fixed on other
# branches: cell id -> class.  Delete an entry when its fix merges (strict).
KNOWN: dict[str, int] = {
    # class 1
    # class 2
    # class 3
    # class 4
    # class 5
    # class 6
    # class 7
    # class 8
    # class 9
}
# Cells failing for a reason outside those classes (new bugs, reported with
# the table): cell id -> reason (NEW_REASONS).  Strict too.
NEW_REASONS = {
    "N1": ("a pandas nullable array given to a numreduce function becomes NaN (np.asarray) and propa"
           "gates; NumPy's np.min/np.var/np.sum on it skip <NA> (pandas' methods)"),
    "N4": ("the pandas accessor's whole-column reductions of an empty Series/DataFrame raise ValueEr"
           "ror; pandas gives NaN (sum: 0)"),
}
NEW: dict[str, str] = {
}


# ---------------------------------------------------------------- the cells

def _applies(row, kind, k):
    if row.kinds is not None and kind not in row.kinds:
        return False
    if kind in row.skip_kinds:
        return False
    if k is None:
        if kind in ("dask_all", "dask_unknown_all") and len(row.roles) == 1:
            return False  # the same as the per-operand cell
        if kind == "dupcols":
            return row.id.startswith("pandas_frame")
        return True
    role = row.roles[k]
    if role == "ids" and kind in NOT_FOR_IDS:
        return False
    if role != "ids" and kind in ONLY_FOR_IDS:
        return False
    return not (kind == "empty_one" and len(row.roles) == 1)


def cells():
    out = []
    for row in ROWS:
        for kind in ALL_OPERANDS:
            if _applies(row, kind, None):
                out.append((row, kind, None))
        for kind in PER_OPERAND:
            for k in range(len(row.roles)):
                if _applies(row, kind, k):
                    out.append((row, kind, k))
        if row.out is not None:
            for kind in OUT_KINDS:
                out.append((row, kind, None))
    return out


def cell_id(row, kind, k):
    return f"{row.id}-{kind}-{'all' if k is None else row.roles[k]}"


# ---------------------------------------------------------------- operands

def _unknown_chunks(v):
    import dask.array as da
    ext = np.concatenate([v, v[:2]])
    keep = np.r_[np.ones(len(v), bool), np.zeros(2, bool)]
    return da.from_array(ext, chunks=3)[da.from_array(keep, chunks=3)]


def _nullable(v, role):
    import pandas as pd
    data = [None if i in MASKED else (int(e) if role == "ids" else float(e))
            for i, e in enumerate(v)]
    return pd.array(data, dtype="Int64" if role == "ids" else "Float64")


@dataclass
class Cell:
    ops: list          # what numreduce gets
    ref_ops: list      # plain arrays of the same values
    keep: np.ndarray | None   # the positions that count (masked, nullable), or None: all


def build(row, kind, k):
    """The operands of one cell."""
    ops = [BASE[r].copy() for r in row.roles]
    keep = None
    if kind == "zero_d":
        ops = [np.asarray(o[0]) for o in ops]
    elif kind == "empty":
        ops = [o[:0] for o in ops]
    elif kind == "large":
        reps = -(-LARGE_N // N)
        ops = [np.tile(o, reps)[:LARGE_N] for o in ops]
    elif kind == "empty_one":
        ops[k] = ops[k][:0]
    elif kind in ("nan", "inf", "neginf"):
        ops[k][SPECIAL] = {"nan": np.nan, "inf": np.inf, "neginf": -np.inf}[kind]
    elif kind == "huge":
        ops[k] = ops[k] * HUGE[row.roles[k]]
    elif kind == "tiny":
        ops[k] = ops[k] * TINY[row.roles[k]]
    elif kind in DTYPE_KINDS:
        ops[k] = ops[k].astype(kind)
    elif kind == "ids_big":
        ops[k] = ops[k].astype(np.uint64)
        ops[k][1] = 2**63 + 5
    elif kind == "ids_float":
        ops[k] = ops[k].astype(np.float32)
    ref_ops = [o.copy() if row.raw else o.astype(np.float64) if r != "ids" else
               (o if o.dtype == np.uint64 else o.astype(np.int64))
               for o, r in zip(ops, row.roles)]
    if kind == "masked":
        ops[k] = np.ma.array(ops[k], mask=np.isin(np.arange(N), MASKED))
        keep = ~np.isin(np.arange(N), MASKED)
    elif kind == "nullable":
        ops[k] = _nullable(ops[k], row.roles[k])
        keep = ~np.isin(np.arange(N), MASKED)
    elif kind == "dask":
        import dask.array as da
        ops[k] = da.from_array(ops[k], chunks=3)
    elif kind == "dask_all":
        import dask.array as da
        ops = [da.from_array(o, chunks=3) for o in ops]
    elif kind == "dask_unknown":
        ops[k] = _unknown_chunks(ops[k])
    elif kind == "dask_unknown_all":
        ops = [_unknown_chunks(o) for o in ops]
    elif kind == "byteswap":
        ops[k] = ops[k].astype(ops[k].dtype.newbyteorder())
    elif kind == "strided":
        ops[k] = np.repeat(ops[k], 2)[::2]
    elif kind == "reversed":
        ops[k] = ops[k][::-1].copy()[::-1]
    elif kind == "dupcols":
        import pandas as pd
        df = pd.DataFrame({"a": ops[0], "b": ops[1]})
        df.columns = ["a", "a"]
        ops = [df]
    return Cell(ops, ref_ops, keep)


# ---------------------------------------------------------------- expectations

@dataclass
class Expect:
    values: list          # acceptable value tuples (None entries: not compared)
    raises: tuple         # acceptable exception types
    refusal: bool = False  # a value is expected, a documented refusal accepted too


def _as_tuple(r):
    return tuple(r) if isinstance(r, (tuple, list)) else (r,)


def _quiet(f, *a, **kw):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return f(*a, **kw)


def expect(row, kind, k, cell):
    if kind in OUT_KINDS:
        return None  # computed by the out test
    refusals = tuple(row.refuse.get(kind.replace("_all", ""), ()))
    if kind in ("masked", "nullable"):
        refusals += (TypeError,)
    if kind == "nullable" and row.roles[k] == "ids":
        refusals += (IndexError,)  # NumPy's for ids that are not integers
    if kind in ("dask", "dask_unknown") and k is not None and len(row.roles) > 1:
        refusals += (TypeError,)  # "do not mix NumPy and dask arrays"
    if kind in ("dask_unknown", "dask_unknown_all"):
        # Dask's own ValueError (it cannot broadcast (nan,) against (7,)),
        # or numreduce's, with Dask's advice (compute_chunk_sizes())
        refusals += (ValueError,)
    if kind == "neginf" and row.roles[k] == "w":
        refusals += (ValueError,)  # frequency weights must be non-negative (the docstring)
    if kind == "zero_d" and ("ids" in row.roles or row.id.startswith("segmented")):
        refusals += (TypeError, ValueError)  # nothing to group or segment in a scalar
    if kind == "empty_one":
        return Expect([], (ValueError, TypeError))
    if kind == "ids_big":
        return Expect([], (IndexError,))
    if kind == "ids_float":
        return Expect([], (TypeError, IndexError))
    if k is not None and row.roles[k] == "ids" and kind == "bool":
        # bool group ids: 0 and 1, or refused; NumPy's indexing takes a bool
        # array as a mask (IndexError for the wrong length)
        refusals += (TypeError, IndexError)
    if row.ref_same:
        ref_ops = [o.astype(o.dtype.newbyteorder("=")) if isinstance(o, np.ndarray) else o
                   for o in cell.ops]  # pandas refuses big-endian data; numreduce need not
    else:
        ref_ops = cell.ref_ops
        if cell.keep is not None:
            ref_ops = [o[cell.keep] for o in ref_ops]
    values, raised = [], ()
    try:
        v = _as_tuple(_quiet(row.ref, *ref_ops))
        values.append(v)
    except Exception as e:  # noqa: BLE001 (any exception: the reference's type is the cell's)
        raised = (type(e),)
    if row.exact is not None and not row.ref_same and all(np.size(o) <= 100 for o in ref_ops):
        try:
            ev = _quiet(row.exact, *ref_ops)
        except Exception:  # noqa: BLE001 (no exact value where the data has none)
            ev = None
        if ev is not None:
            values.append(_as_tuple(ev))
    if kind == "nullable" and row.id.startswith("reduce_") and "ids" not in row.roles:
        # ufunc.reduce of a pandas array: pandas' __array_ufunc__ reduces
        # with skipna=False, <NA> propagates (as NaN after np.asarray)
        nan_ops = list(cell.ref_ops)
        nan_ops[k] = nan_ops[k].copy()
        nan_ops[k][~cell.keep] = np.nan
        try:
            values.append(_as_tuple(_quiet(row.ref, *nan_ops)))
        except Exception:  # noqa: BLE001 (no value: the other references stand)
            pass
    if row.alt is not None and all(type(o) is np.ndarray for o in cell.ops):
        try:
            av = _quiet(row.alt, *cell.ref_ops)
        except (ValueError, ZeroDivisionError):
            av = None
        if av is not None:
            values.append(_as_tuple(av))
    if cell.keep is not None and row.positional and not row.ref_same:
        pos = np.flatnonzero(cell.keep)
        values = [tuple(pos[np.asarray(v, dtype=np.intp)] if i in row.positional and v is not None
                        else v for i, v in enumerate(vals)) for vals in values]
    if values:
        return Expect(values, refusals, refusal=bool(refusals))
    return Expect([], raised + refusals)


# ---------------------------------------------------------------- comparing

def _materialize(res):
    if HAVE["dask"]:
        import dask
        if any(dask.is_dask_collection(r) for r in _as_tuple(res)):
            res = dask.compute(*_as_tuple(res))
    out = []
    for r in _as_tuple(res):
        if r is np.ma.masked:
            raise AssertionError("a masked result where the reference has a value")
        if isinstance(r, np.ma.MaskedArray):
            assert not np.ma.getmaskarray(r).any(), "a masked result where the reference has values"
            r = r.data
        out.append(r)
    return tuple(out)


def _close(res, ref, tol, kind):
    if len(res) != len(ref):
        return f"{len(res)} results, reference {len(ref)}"
    for i, (r, v) in enumerate(zip(res, ref)):
        if v is None:
            continue
        r, v = np.asarray(r), np.asarray(v)
        if r.shape != v.shape:
            return f"result {i}: shape {r.shape}, reference {v.shape}"
        if r.dtype.kind == "c":
            if np.any(r.imag != 0):
                return f"result {i}: imaginary part {r.imag}"
            r = r.real
        if v.dtype.kind == "c":  # NumPy's result in a complex out: its real part
            if np.any(v.imag != 0):
                return f"result {i}: the reference has an imaginary part {v.imag}"
            v = v.real
        rt = tol
        if r.dtype.kind == "f":
            rt = max(tol, 8 * float(np.finfo(r.dtype).eps))
        if kind in ("float16", "float32"):  # data of that precision (accessors give float64)
            rt = max(rt, 8 * float(np.finfo(kind).eps))
        at = 1e-320 if kind == "tiny" else 0.0
        rf, vf = r.astype(np.float64), v.astype(np.float64)
        if not np.allclose(rf, vf, rtol=rt, atol=at, equal_nan=True) or \
                not np.array_equal(np.isnan(rf), np.isnan(vf)):
            return f"result {i}: {r!r}, reference {v!r} (rtol {rt:.1e})"
    return None


def check(row, kind, k):
    cell = build(row, kind, k)
    exp = expect(row, kind, k, cell)
    try:
        res = _quiet(lambda: _materialize(row.call(*cell.ops)))
    except Exception as e:
        if exp.raises and isinstance(e, exp.raises):
            return
        raise AssertionError(f"raised {type(e).__name__}: {e}; expected "
                             f"{'a value' if exp.values else ''}"
                             f"{' or ' if exp.values and exp.raises else ''}"
                             f"{'/'.join(t.__name__ for t in exp.raises)}") from e
    if not exp.values:
        raise AssertionError(f"returned {res!r}; the reference raises "
                             f"{'/'.join(t.__name__ for t in exp.raises)}")
    # each output matches one of the references (NumPy's, or the exact
    # value where NumPy's own sum overflows or rounds)
    if len({len(v) for v in exp.values}) > 1 or len(res) != len(exp.values[0]):
        errs = [_close(res, v, row.tol, kind) for v in exp.values]
        if all(errs):
            raise AssertionError("; ".join(errs))
        return
    for i in range(len(res)):
        errs = [_close(res[i:i + 1], v[i:i + 1], row.tol, kind) for v in exp.values]
        if all(errs):
            raise AssertionError(f"output {i}: " + "; ".join(errs))


def check_out(row, kind):
    x = BASE["x"].copy()
    nout = len(row.out)
    plain = _as_tuple(_quiet(row.call, x))
    shapes = [np.shape(r) for r in plain]
    dt = np.dtype(OUT_KINDS[kind])
    if kind == "out_readonly":
        dt = np.asarray(plain[0]).dtype  # the result's own dtype: only read-only is wrong
    sent = SENTINEL[dt.kind]

    def outs_for(base):
        if kind == "out_alias":
            return tuple(base[i:i + 1].reshape(()) for i in range(nout))
        o = tuple(np.full(s, sent, dtype=dt) for s in shapes)
        if kind == "out_readonly":
            for a in o:
                a.flags.writeable = False
        return o

    # NumPy's answer: each output's own call with its own out (on a copy of
    # x for the aliasing kind: NumPy's separate calls would see each
    # other's writes, numreduce's one call must not)
    np_vals, np_exc = [], None
    for f, o in zip(row.out, outs_for(x.copy()) if kind != "out_alias" else
                    tuple(np.full(s, sent, dtype=dt) for s in shapes)):
        try:
            _quiet(f, x, out=o)
            np_vals.append(o)
        except Exception as e:  # noqa: BLE001 (NumPy's exception type is the cell's)
            np_exc = type(e)
            break
    xs = x.copy()
    outs = outs_for(xs)
    before = [o.copy() for o in outs]
    call_out = row.call_out or (lambda *ops, out: row.call(*ops, out=out))
    try:
        _quiet(call_out, xs, out=outs if nout > 1 else outs[0])
    except Exception as e:
        if np_exc is None:
            raise AssertionError(f"raised {type(e).__name__}: {e}; NumPy writes "
                                 f"{np_vals}") from e
        assert isinstance(e, _public(np_exc)), \
            f"raised {type(e).__name__}: {e}; NumPy raises {np_exc}"
        for o, b in zip(outs, before):
            assert np.array_equal(o, b), "out= written before the exception"
        assert np.array_equal(xs, x), "the input was written before the exception"
        return
    if np_exc is not None:
        raise AssertionError(f"wrote {outs}; NumPy raises {np_exc.__name__}")
    err = _close(tuple(outs), tuple(np_vals), row.tol, kind)
    assert err is None, err


def _public(exc):
    """The nearest exception class of ``exc``'s bases that a user can name:
    NumPy's private ufunc casting errors (``_UFuncOutputCastingError`` ..
    ``UFuncTypeError``, in numpy._core._exceptions) are caught as the
    TypeError they derive from; a public class is itself."""
    for t in exc.__mro__:
        mod = t.__module__
        if mod == "builtins" or not any(p.startswith("_") for p in mod.split(".")):
            return t
    return exc


ALL_CELLS = cells()


def _param(row, kind, k):
    cid = cell_id(row, kind, k)
    marks = []
    if row.heavy and not HAVE[row.heavy]:
        marks.append(pytest.mark.skip(reason=f"{row.heavy} is not installed"))
    need = NEEDS.get(kind)
    if need and not HAVE[need]:
        marks.append(pytest.mark.skip(reason=f"{need} is not installed"))
    if cid in KNOWN:
        marks.append(pytest.mark.xfail(strict=True, reason=f"issue 36 class {KNOWN[cid]}: "
                                                           "fixed on another branch"))
    elif cid in NEW:
        marks.append(pytest.mark.xfail(strict=True, reason=f"new bug {NEW[cid]}: "
                                                           f"{NEW_REASONS[NEW[cid]]}"))
    return pytest.param(row, kind, k, id=cid, marks=marks)


@pytest.mark.parametrize("row, kind, k", [_param(*c) for c in ALL_CELLS])
def test_cell(row, kind, k):
    if kind in OUT_KINDS:
        check_out(row, kind)
    else:
        check(row, kind, k)


# ---------------------------------------------------------------- the table itself

def test_every_public_name_is_a_row_or_excluded():
    covered = {n for row in ROWS for n in row.names}
    missing = [n for n in nr.__all__ if n not in covered and n not in EXCLUDED]
    assert not missing, f"add a row to tests/conformance_table.py for {missing}"
    stale = [n for n in EXCLUDED if n not in nr.__all__]
    assert not stale, stale


def test_every_accessor_method_is_a_row():
    pytest.importorskip("pandas", reason="pandas is not installed")
    from numreduce.pandas import NumreduceSeriesAccessor
    covered = {n for row in ROWS for n in row.names}
    methods = [m for m in ("minmax", "meanvar", "meanstd", "fsum", "logsumexp", "argminmax")
               if hasattr(NumreduceSeriesAccessor, m)]
    for m in methods:
        assert f"Series.nr.{m}" in covered and f"DataFrame.nr.groupby.{m}" in covered, m
    if HAVE["xarray"]:
        from numreduce.xarray import NumreduceDataArrayAccessor
        for m in ("minmax", "meanvar", "meanstd", "fsum", "argminmax"):
            assert hasattr(NumreduceDataArrayAccessor, m)
            assert f"DataArray.nr.{m}" in covered, m


def table_counts():
    """rows, functions, kinds, cells; value cells (and how many accept a
    documented refusal too) vs exception cells."""
    value = refusal = exc = 0
    for row, kind, k in ALL_CELLS:
        if kind in OUT_KINDS:
            x = BASE["x"]
            try:
                for f in row.out:
                    dt = np.dtype(OUT_KINDS[kind])
                    o = np.full(np.shape(_quiet(f, x)), SENTINEL[dt.kind], dt)
                    if kind == "out_readonly":
                        o.flags.writeable = False
                    _quiet(f, x, out=o)
                value += 1
            except Exception:  # noqa: BLE001 (NumPy raises: an exception cell)
                exc += 1
            continue
        if (row.heavy and not HAVE[row.heavy]) or (NEEDS.get(kind) and not HAVE[NEEDS[kind]]):
            value += 1  # counted as the heavy environment runs it (a value)
            continue
        e = expect(row, kind, k, build(row, kind, k))
        if e.values:
            value += 1
            refusal += e.refusal
        else:
            exc += 1
    kinds = {kind for _, kind, _ in ALL_CELLS}
    names = {n for r in ROWS for n in r.names}
    return {"rows": len(ROWS), "numreduce_names": len(names & set(nr.__all__)),
            "accessor_methods": len(names - set(nr.__all__)),
            "kinds": len(kinds), "operands": sum(len(r.roles) for r in ROWS),
            "cells": len(ALL_CELLS), "value": value, "value_or_refusal": refusal,
            "exception": exc}


def test_table_size():
    c = table_counts()
    print("\nconformance table:", c)
    assert c["cells"] == c["value"] + c["exception"]
    # the exception cells counted here depend on the extras installed (a
    # Dask or pandas cell that cannot run counts as the value the heavy
    # environment checks): 118 in the core environments, 123 with every
    # extra; the floor guards against the table losing its exception cells
    assert c["rows"] >= 77 and c["cells"] >= 2795 and c["exception"] >= 110, c


def test_known_entries_are_cells():
    ids = {cell_id(*c) for c in ALL_CELLS}
    assert not [c for c in list(KNOWN) + list(NEW) if c not in ids]
