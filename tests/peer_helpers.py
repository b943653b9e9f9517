"""Comparison helpers for the peer-suite tests (test_peer_*.py).

Every check runs numreduce and the reference (NumPy / SciPy functions, called
at test time) on the same arguments and compares what comes out: the
exception type if the reference raises, else values (NaN positions
included), dtypes, shapes and whether a RuntimeWarning was emitted.
"""

from __future__ import annotations

import warnings

import numpy as np


def run(fn, *args, **kw):
    """(result, exception, warning categories) of fn(*args, **kw)."""
    with warnings.catch_warnings(record=True) as w:
        warnings.simplefilter("always")
        try:
            res = fn(*args, **kw)
        except Exception as exc:  # noqa: BLE001 - the type is what we compare
            return None, exc, {x.category for x in w}
    return res, None, {x.category for x in w}


def _tuple_ref(refs):
    def call(*args, **kw):
        return tuple(f(*args, **kw) for f in refs)
    return call


def assert_same_value(got, want, rtol=0.0, what=""):
    got_a, want_a = np.asarray(got), np.asarray(want)
    assert got_a.shape == want_a.shape, f"{what}: shape {got_a.shape} != {want_a.shape}"
    assert got_a.dtype == want_a.dtype, f"{what}: dtype {got_a.dtype} != {want_a.dtype}"
    assert np.ndim(got) == np.ndim(want)
    assert isinstance(got, np.ndarray) == isinstance(want, np.ndarray), (
        f"{what}: {type(got).__name__} vs {type(want).__name__}")
    if rtol and want_a.dtype.kind in "fc":
        np.testing.assert_allclose(got_a, want_a, rtol=rtol, atol=0, equal_nan=True,
                                   err_msg=what)
    else:
        np.testing.assert_array_equal(got_a, want_a, err_msg=what, strict=True)


def check(nr_fn, refs, *args, rtol=0.0, warn=True, **kw):
    """numreduce's nr_fn(*args, **kw) against the reference(s).

    refs: one callable, or a tuple of callables whose results form the tuple
    numreduce returns.  warn: compare whether a RuntimeWarning is emitted."""
    ref = _tuple_ref(refs) if isinstance(refs, tuple) else refs
    want, want_exc, want_w = run(ref, *args, **kw)
    got, got_exc, got_w = run(nr_fn, *args, **kw)
    name = getattr(nr_fn, "__name__", str(nr_fn))
    if want_exc is not None:
        if isinstance(want_exc, TypeError) and "unexpected keyword" in str(want_exc):
            raise RuntimeError(f"the test calls the reference wrongly: {want_exc}")
        assert got_exc is not None, (
            f"{name}: reference raised {type(want_exc).__name__}: {want_exc}, "
            f"numreduce returned {got!r}")
        assert isinstance(got_exc, type(want_exc)), (
            f"{name}: reference raised {type(want_exc).__name__}: {want_exc}, numreduce "
            f"{type(got_exc).__name__}: {got_exc}")
        return None
    if got_exc is not None:
        raise AssertionError(f"{name}: reference returned {want!r}, numreduce raised "
                             f"{type(got_exc).__name__}: {got_exc}") from got_exc
    if isinstance(refs, tuple):
        assert isinstance(got, tuple) and len(got) == len(want)
        for i, (g, r) in enumerate(zip(got, want)):
            assert_same_value(g, r, rtol, f"{name} result[{i}]")
    else:
        assert_same_value(got, want, rtol, name)
    sizes = [np.size(g) for g in (got if isinstance(got, tuple) else (got,))]
    if warn and not any(sizes):
        # docs/differences.md: no warning when the *result* is empty
        # (np.mean(np.zeros((0, 0)), axis=0) warns although nothing was averaged).
        assert RuntimeWarning not in got_w, f"{name}: RuntimeWarning for an empty result"
    elif warn:
        assert (RuntimeWarning in got_w) == (RuntimeWarning in want_w), (
            f"{name}: RuntimeWarning reference={RuntimeWarning in want_w}, "
            f"numreduce={RuntimeWarning in got_w}")
    return got

