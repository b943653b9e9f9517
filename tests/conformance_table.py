"""The conformance table's data: one row per public computing function (and
per accessor method), the input kinds, and the references.

tests/test_conformance.py generates the cells (rows x kinds x operands) from
this module; docs/architecture.md ("The conformance table") says how to add
a row.  Every value here is written out or computed by NumPy / SciPy /
pandas / xarray / ``fractions`` / ``math.fsum`` / mpmath: nothing draws
random numbers.

A row says:

- ``call(*operands)``: the numreduce call, given its array operands in
  order (the other arguments are fixed in the lambda);
- ``roles``: what each operand is -- ``"x"`` data, ``"w"`` weights, ``"y"``
  a second data array, ``"b"`` logsumexp's scale factors, ``"ids"`` group
  ids or ``at``'s indices.  A role decides which kinds apply to the operand
  (no NaN group ids) and how it is scaled for the overflow / underflow
  kinds;
- ``ref(*operands)``: the reference on plain float64 (int for ``ids``)
  NumPy arrays holding exactly the elements that count (a masked cell's
  reference gets the elements unmasked in every operand);
- ``exact(*operands)``: optional, the exact value rounded once (fractions,
  math.fsum, mpmath) for finite data, where NumPy's own answer rounds or
  overflows; a cell's value may match either;
- ``out``: for rows with ``out=``, NumPy's call of each output taking its
  own ``out=`` (it decides which out dtypes a cell expects to be refused,
  and with which exception type);
- ``positional``: outputs that are positions (argmin-like) in the full
  operand, mapped back from the kept elements;
- ``tol``: relative tolerance (the result dtype's precision is added);
- ``refuse``: kind -> exception types the documentation gives that row for
  that kind (e.g. masked input of the scans: TypeError);
- ``heavy``: the optional package the row needs (pandas, xarray).
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass, field
from fractions import Fraction

import numpy as np

import numreduce as nr

# The base operands: every cell starts from these (one full reduction of 7
# elements; three groups, none emptied by the masked positions).
BASE = {
    "x": np.array([3.0, 1.0, 4.0, 1.0, 5.0, 9.0, 2.0]),
    "y": np.array([2.0, 7.0, 1.0, 8.0, 2.0, 8.0, 1.0]),
    "w": np.array([1.0, 2.0, 1.0, 3.0, 1.0, 1.0, 2.0]),
    "b": np.array([1.0, 2.0, 1.0, 3.0, 1.0, 1.0, 2.0]),
    "ids": np.array([0, 1, 0, 1, 2, 2, 0]),
}
N = 7
MASKED = (2, 5)          # positions masked / <NA> (each group keeps an element)
SPECIAL = 3              # position of the NaN / inf of the nan / inf kinds
# Near overflow: the elements are finite, their sums are not (data up to
# 1.35e308, weight sums 5.5e308); near underflow: squares and products are
# below the smallest subnormal.
HUGE = {"x": 1.5e307, "y": 1.5e307, "w": 5e307, "b": 5e307}
TINY = {"x": 1e-300, "y": 1e-300, "w": 1e-300, "b": 1e-300}
LARGE_N = 70_003         # past the 65,536 a size-dependent path switched at


@dataclass(frozen=True)
class Row:
    id: str
    names: tuple          # the names of numreduce.__all__ (or accessor methods) it covers
    call: Callable
    roles: tuple
    ref: Callable
    exact: Callable | None = None
    out: tuple | None = None
    positional: tuple = ()
    tol: float = 1e-12
    refuse: dict = field(default_factory=dict)
    heavy: str | None = None
    ref_same: bool = False           # ref takes the cell's own operands (pandas / xarray refs)
    alt: Callable | None = None      # ref_same rows: a NumPy / exact reference on plain operands
    raw: bool = False                # ref gets the operands in their own dtype (mapreduce's f)
    call_out: Callable | None = None  # call(*ops, out=...) where it is not call's own out=
    kinds: tuple | None = None       # only these kinds (None: every kind that applies)
    skip_kinds: tuple = ()           # kinds that do not apply, with the reason in a comment


# ---------------------------------------------------------------- references

def _F(v):
    return Fraction(float(v))


def _round(q):
    """A Fraction rounded once to float64 (+-inf past the range)."""
    try:
        return float(q)
    except OverflowError:
        return math.inf if q > 0 else -math.inf


def _finite(*ops):
    return all(np.all(np.isfinite(np.asarray(o, dtype=float))) for o in ops)


def ex_moments(x, w=None, ddof=0):
    """(sum of weights, mean, M2) exactly, or None for non-finite data."""
    if not _finite(x) or (w is not None and not _finite(w)) or np.size(x) == 0:
        return None
    xs = [_F(v) for v in np.ravel(x)]
    ws = [Fraction(1)] * len(xs) if w is None else [_F(v) for v in np.ravel(w)]
    W = sum(ws)
    if W == 0:
        return None
    m = sum(a * b for a, b in zip(ws, xs)) / W
    m2 = sum(a * (b - m) ** 2 for a, b in zip(ws, xs))
    return W, m, m2


def ex_meanvar(x, w=None, ddof=0, std=False):
    r = ex_moments(x, w)
    if r is None or r[0] - ddof <= 0:
        return None
    W, m, m2 = r
    v = _round(m2 / (W - ddof))
    return _round(m), (math.sqrt(v) if std else v)


def ex_fsum(*xs):
    if not _finite(*xs):
        return None
    prod = [math.prod(_F(v) for v in t) for t in zip(*(np.ravel(x) for x in xs))]
    return _round(sum(prod, Fraction(0)))


def ex_twosum(*xs):
    """(s, e): s the exact sum (of products) rounded, e the rest rounded."""
    if not _finite(*xs):
        return None
    exact = sum((math.prod(_F(v) for v in t) for t in zip(*(np.ravel(x) for x in xs))),
                Fraction(0))
    s = _round(exact)
    return s, (_round(exact - Fraction(s)) if math.isfinite(s) else None)


def ex_comoments(x, y):
    if not _finite(x, y) or np.size(x) == 0:
        return None
    xs, ys = [_F(v) for v in np.ravel(x)], [_F(v) for v in np.ravel(y)]
    n = len(xs)
    mx, my = sum(xs) / n, sum(ys) / n
    return (n, _round(mx), _round(my), _round(sum((a - mx) ** 2 for a in xs)),
            _round(sum((b - my) ** 2 for b in ys)),
            _round(sum((a - mx) * (b - my) for a, b in zip(xs, ys))))


def ex_cov(x, y, ddof=1):
    r = ex_comoments(x, y)
    if r is None or r[0] - ddof <= 0:
        return None
    xs, ys = [_F(v) for v in np.ravel(x)], [_F(v) for v in np.ravel(y)]
    mx, my = sum(xs) / len(xs), sum(ys) / len(ys)
    return _round(sum((a - mx) * (b - my) for a, b in zip(xs, ys)) / (len(xs) - ddof))


def ex_logsumexp(x, b=None, return_sign=False):
    """log|sum(b exp(x))| (and its sign) with mpmath at 60 digits."""
    if np.size(x) == 0:  # log of an empty sum; its sign 0 (numreduce's docstring)
        return (-math.inf, 0.0) if return_sign else -math.inf
    if not _finite(x) or (b is not None and not _finite(b)):
        return None
    import mpmath
    with mpmath.workdps(60):
        bs = np.ones(np.size(x)) if b is None else np.ravel(b)
        s = mpmath.fsum(mpmath.mpf(float(c)) * mpmath.exp(mpmath.mpf(float(v)))
                        for v, c in zip(np.ravel(x), bs))
        if s == 0:
            val, sign = -math.inf, 0.0
        else:
            val, sign = float(mpmath.log(abs(s))), (1.0 if s > 0 else -1.0)
    if return_sign:
        return val, sign
    return val if sign >= 0 else None


def r_lse(x, b=None, return_sign=False):
    from scipy.special import logsumexp
    return logsumexp(x, b=b, return_sign=return_sign)


def r_meanvar(x, w=None, ddof=0, std=False, nan=False):
    x = np.asarray(x, dtype=float)
    if nan:
        keep = ~np.isnan(x)
        x = x[keep]
        w = None if w is None else np.asarray(w, dtype=float)[keep]
    if w is None:
        m, v = np.mean(x), np.var(x, ddof=ddof)
    elif np.sum(w) == 0:
        # np.average raises ZeroDivisionError here; numreduce's weighted
        # meanvar family gives an empty or zero-weight slice NaN with
        # np.mean's empty-slice warning, as its unweighted form (a grouped or
        # axis reduction must not fail for one slice): docs/differences.md
        m = v = np.nan
    elif np.sum(w) < 2.0**-969 or not np.isfinite(np.sum(np.asarray(w, dtype=float))):
        # weights summing below 2**-969: NaN with a RuntimeWarning (their
        # products with the data are subnormal; np.average loses digits
        # silently); an inf weight or a weight sum past float64: NaN with
        # np.average's warning (docs/differences.md, meanvar's docstring)
        m = v = np.nan
    elif (ex := ex_meanvar(x, w, ddof, std)) is not None:
        # finite weight sum: the exact value (np.average's w * x may
        # overflow); where the weighted squared deviations overflow float64
        # and W > 1 (the variance may be finite), NaN with a warning
        # (docs/differences.md)
        ms = ex_moments(x, w)
        if ms[0] > 1 and ms[2] >= Fraction(2) ** 1024:
            return ex[0], np.nan
        return ex
    else:
        m = np.average(x, weights=w)
        v = np.average((x - m) ** 2, weights=w)
    return m, (np.sqrt(v) if std else v)


def r_groups(stat, x, ids, *more, ngroups=None):
    """stat on each group's elements (a tuple of arrays, one per output)."""
    ids = np.asarray(ids)
    if ids.ndim != 1 or np.ndim(x) != 1:
        raise TypeError("1-d only")
    if ids.size == 0:  # no groups: empty results
        one = np.array([1.0])
        return tuple(np.array([]) for _ in _tuple(stat(one, *(one for _ in more))))
    g = int(ids.max()) + 1 if ngroups is None else ngroups
    outs = [stat(np.asarray(x)[ids == k], *(np.asarray(m)[ids == k] for m in more))
            for k in range(g)]
    outs = [o if isinstance(o, tuple) else (o,) for o in outs]
    return tuple(np.array([o[i] for o in outs]) for i in range(len(outs[0])))


def ex_groups(stat, x, ids, *more):
    ids = np.asarray(ids)
    if ids.ndim != 1 or np.size(x) == 0:
        return None
    outs = []
    for k in range(int(ids.max()) + 1):
        o = stat(np.asarray(x)[ids == k], *(np.asarray(m)[ids == k] for m in more))
        if o is None:
            return None
        outs.append(o if isinstance(o, tuple) else (o,))
    return tuple(np.array([o[i] for o in outs], dtype=float) for i in range(len(outs[0])))


def _tuple(r):
    return r if isinstance(r, tuple) else (r,)


def r_argminmax_groups(x, ids):
    ids = np.asarray(ids)
    if ids.ndim != 1 or np.ndim(x) != 1:
        raise TypeError("1-d only")
    if ids.size == 0:
        return np.array([], np.intp), np.array([], np.intp)
    pos = np.arange(len(ids))
    mins, maxs = [], []
    for k in range(int(ids.max()) + 1):
        sel = ids == k
        mins.append(pos[sel][np.argmin(x[sel])])
        maxs.append(pos[sel][np.argmax(x[sel])])
    return np.array(mins), np.array(maxs)


def r_segments(stat, x, starts, stops):
    outs = [stat(np.asarray(x)[a:b]) for a, b in zip(starts, stops)]
    return tuple(np.array([o[i] for o in outs]) for i in range(len(outs[0])))


# ---------------------------------------------------------------- finishing states

def fin_maxsumexp(s):
    m, t = s
    return m + np.log1p(t)


def fin_wmoments(s):
    W, K, m, M2 = s
    return W, K + m, M2


def fin_comoments(s):
    n, kx, ky, mx, my, sxx, syy, cxy = s
    return n, kx + mx, ky + my, sxx, syy, cxy


def _ng(ids):
    """num_groups: given (3) for dask ids, whose length the graph needs
    (docs/dask.md); None (from the ids) otherwise."""
    return 3 if hasattr(ids, "dask") else None


def _red(u, finish=None):
    def call(*ops):
        r = nr.reduce(u, ops[0] if len(ops) == 1 else tuple(ops), axis=None)
        return r if finish is None else finish(r)
    return call


def _summary7(r):
    """The summary's outputs (n, min, max, K, m, M2, M3, M4) as (n, min,
    max, mean, M2, M3, M4): the mean K + m (K where m is 0: the sign of a
    -0.0 mean)."""
    n, lo, hi, K, m, m2, m3, m4 = r
    with np.errstate(all="ignore"):
        return n, lo, hi, np.where(m == 0, K, K + m)[()], m2, m3, m4


def _red_out(u):
    return lambda *ops, out: nr.reduce(u, ops[0], axis=None, out=out)


def _merge(*ops):
    x = ops[0]
    sa = nr.reduce(nr.moments, x[:3], axis=None)
    sb = nr.reduce(nr.moments, x[3:], axis=None)
    return nr.merge(nr.moments, sa, sb)


def _at(x, ids):
    g = 3
    outs = (np.full(g, np.inf), np.full(g, -np.inf))
    nr.at(nr.minimummaximum, outs, ids, x)  # the ids as given (masked, Dask ...)
    return outs


def _ref_at(x, ids):
    outs = (np.full(3, np.inf), np.full(3, -np.inf))
    np.minimum.at(outs[0], ids, x)
    np.maximum.at(outs[1], ids, x)
    return outs


def _ex_moments_state(x):
    r = ex_moments(x)
    return None if r is None else (float(r[0]), _round(r[1]), _round(r[2]))


def _r_moments(x, nan=False):
    x = np.asarray(x, dtype=float)
    if nan:
        x = x[~np.isnan(x)]
    if x.size == 0:  # the identity state
        return 0.0, 0.0, 0.0
    return float(x.size), np.mean(x), np.var(x) * x.size


def _r_wstate(x, w, nan=False):
    x, w = np.asarray(x, dtype=float), np.asarray(w, dtype=float)
    if nan:
        keep = ~np.isnan(x)
        x, w = x[keep], w[keep]
    if x.size == 0:  # the identity state
        return 0.0, 0.0, 0.0
    W = np.sum(w)
    if not np.isfinite(W):
        # wmoments' rule (traits/wmoments.hpp): an inf weight sum makes the
        # state (W, 0, NaN, NaN)
        return W, np.nan, np.nan
    if (ex := _ex_wstate(x, w)) is not None:
        return ex  # the exact state (np.average's w * x may overflow)
    m = np.average(x, weights=w)
    return W, m, np.sum(w * (x - m) ** 2)


def _ex_wstate(x, w):
    r = ex_moments(x, w)
    return None if r is None else tuple(_round(v) for v in r)


def _r_comoments(x, y):
    if np.size(x) == 0:  # the identity state
        return (0.0,) * 6
    mx, my = np.mean(x), np.mean(y)
    if not (np.isfinite(mx) and np.isfinite(my)):
        # comoments' documented rule (traits/comoments.hpp, the ufunc's
        # docstring): a pair with a NaN or inf makes every co-moment NaN --
        # the state describes pairs, not each operand apart
        return (float(np.size(x)), mx, my, np.nan, np.nan, np.nan)
    return (float(np.size(x)), mx, my, np.sum((x - mx) ** 2), np.sum((y - my) ** 2),
            np.sum((x - mx) * (y - my)))


def _r_summary(x, nan=False):
    """(count, min, max, mean, M2, M3, M4) straight in float64; the empty
    summary (0, NaN, NaN, 0, 0, 0, 0)."""
    x = np.asarray(x, dtype=float)
    if nan:
        x = x[~np.isnan(x)]
    if x.size == 0:  # the identity state
        return 0.0, np.nan, np.nan, 0.0, 0.0, 0.0, 0.0
    m = np.mean(x)
    d = x - m
    m2, m3, m4 = np.sum(d ** 2), np.sum(d ** 3), np.sum(d ** 4)
    if _finite(x) and not np.isfinite(m2):
        # finite data whose deviations' powers overflow: M2 = M4 = inf and
        # M3 NaN, its sign lost (traits/summary.hpp, the ufunc's rule), the
        # mean the exact one rounded
        return float(x.size), np.min(x), np.max(x), _round(sum(map(_F, x)) / x.size), \
            np.inf, np.nan, np.inf
    return float(x.size), np.min(x), np.max(x), m, m2, m3, m4


def _ex_summary(x, nan=False):
    """The summary exactly (fractions), each output rounded once; None for
    non-finite or empty data."""
    x = np.asarray(x, dtype=float)
    if nan:
        x = x[~np.isnan(x)]
    if not _finite(x) or x.size == 0:
        return None
    xs = [_F(v) for v in np.ravel(x)]
    n = len(xs)
    m = sum(xs) / n
    return (float(n), float(np.min(x)), float(np.max(x)), _round(m),
            *(_round(sum((v - m) ** k for v in xs)) for k in (2, 3, 4)))


def _r_wsummary(x, w, nan=False):
    """(W, min, max, mean, M2, M3, M4) of frequency weights: the exact
    values (fractions) rounded once for finite data; the rules of
    traits/wsummary.hpp otherwise (weight 0: no element; an inf weight sum:
    the mean and moments NaN; inf/NaN data: the weighted mean, moments
    NaN).  The empty state (0, NaN, NaN, 0, 0, 0, 0)."""
    x, w = np.broadcast_arrays(np.asarray(x, dtype=float), np.asarray(w, dtype=float))
    x, w = np.ravel(x), np.ravel(w)
    keep = w != 0
    if nan:
        keep &= ~np.isnan(x)
    x, w = x[keep], w[keep]
    if x.size == 0:
        return 0.0, np.nan, np.nan, 0.0, 0.0, 0.0, 0.0
    lo, hi = np.min(x), np.max(x)
    with np.errstate(all="ignore"):
        W = np.sum(w)
        if not np.isfinite(W):
            return W, lo, hi, np.nan, np.nan, np.nan, np.nan
        if not _finite(x):
            return W, lo, hi, np.sum(w * x) / W, np.nan, np.nan, np.nan
    xs, ws = [_F(v) for v in x], [_F(v) for v in w]
    Wf = sum(ws)
    m = sum(a * b for a, b in zip(ws, xs)) / Wf
    M = [_round(sum(a * (b - m) ** k for a, b in zip(ws, xs))) for k in (2, 3, 4)]
    if not np.isfinite(M[0]):
        # weighted squared deviations past the range: M2 = M4 = inf and M3
        # NaN, its sign lost (the summary's rule, traits/summary.hpp)
        M = [np.inf, np.nan, np.inf]
    return (float(Wf), lo, hi, _round(m), *M)


def _flat_describe(r):
    return (r.nobs, r.minmax[0], r.minmax[1], r.mean, r.variance, r.skewness, r.kurtosis)


def r_describe(x):
    """scipy.stats.describe on the float64 data (empty: its ValueError)."""
    from scipy import stats
    return _flat_describe(stats.describe(np.asarray(x, dtype=float)))


def ex_describe(x):
    """describe's fields exactly (fractions; mpmath for the roots)."""
    r = _ex_summary(x)
    if r is None:
        return None
    xs = [_F(v) for v in np.ravel(x)]
    n = len(xs)
    m = sum(xs) / n
    M2, M3, M4 = (sum((v - m) ** k for v in xs) for k in (2, 3, 4))
    var = _round(M2 / (n - 1)) if n > 1 else np.nan
    if M2 == 0:
        return n, r[1], r[2], r[3], var, np.nan, np.nan
    import mpmath
    with mpmath.workdps(40):
        mp = lambda q: mpmath.mpf(q.numerator) / q.denominator  # noqa: E731
        g1 = float(mp(M3 / n) / mp(M2 / n) ** mpmath.mpf(1.5))
        g2 = float(mp(M4 / n) / mp(M2 / n) ** 2 - 3)
    return n, r[1], r[2], r[3], var, g1, g2


def r_skew_kurt(name):
    def ref(x):
        from scipy import stats
        return getattr(stats, name)(np.asarray(x, dtype=float))
    return ref


def ex_skew_kurt(i):
    def ex(x):
        r = ex_describe(x)
        return None if r is None else r[i]
    return ex


# ---------------------------------------------------------------- the rows

X, XW, XY, XB, XI = ("x",), ("x", "w"), ("x", "y"), ("x", "b"), ("x", "ids")
F2 = (np.min, np.max)

ROWS = [
    # the ufuncs, through numreduce.reduce (full reduction; states finished
    # where their representation is the implementation's: frames, shifts)
    Row("reduce_minimummaximum", ("reduce", "minimummaximum"), _red(nr.minimummaximum), X,
        lambda x: (np.min(x), np.max(x)), out=F2, call_out=_red_out(nr.minimummaximum)),
    Row("reduce_fminfmax", ("fminfmax",), _red(nr.fminfmax), X,
        lambda x: (np.fmin.reduce(x), np.fmax.reduce(x)), out=(np.nanmin, np.nanmax),
        call_out=_red_out(nr.fminfmax)),
    Row("reduce_moments", ("moments",), _red(nr.moments), X, _r_moments,
        exact=_ex_moments_state),
    Row("reduce_nanmoments", ("nanmoments",), _red(nr.nanmoments), X,
        lambda x: _r_moments(x, nan=True), exact=_ex_moments_state,
        # the nan ufunc has float loops only: NumPy's UFuncTypeError for others
        refuse={d: (TypeError,) for d in ("bool", "int8", "uint8", "int16", "uint16", "int32",
                                          "uint32", "int64", "uint64")}),
    Row("reduce_summary", ("summary",), _red(nr.summary, _summary7), X, _r_summary,
        exact=_ex_summary),
    Row("reduce_nansummary", ("nansummary",), _red(nr.nansummary, _summary7), X,
        lambda x: _r_summary(x, nan=True), exact=lambda x: _ex_summary(x, nan=True),
        # the nan ufunc has float loops only: NumPy's UFuncTypeError for others
        refuse={d: (TypeError,) for d in ("bool", "int8", "uint8", "int16", "uint16", "int32",
                                          "uint32", "int64", "uint64")}),
    Row("reduce_maxsumexp", ("maxsumexp",), _red(nr.maxsumexp, fin_maxsumexp), X, r_lse,
        exact=ex_logsumexp),
    Row("reduce_twosum", ("twosum",), _red(nr.twosum), X,
        lambda x: (np.sum(x), None), exact=ex_twosum),
    Row("reduce_wmoments", ("wmoments",), _red(nr.wmoments, fin_wmoments), XW, _r_wstate,
        exact=_ex_wstate),
    Row("reduce_nanwmoments", ("nanwmoments",), _red(nr.nanwmoments, fin_wmoments), XW,
        lambda x, w: _r_wstate(x, w, nan=True), exact=_ex_wstate),
    Row("reduce_wsummary", ("wsummary",), _red(nr.wsummary, _summary7), XW, _r_wsummary,
        tol=1e-11),
    Row("reduce_nanwsummary", ("nanwsummary",), _red(nr.nanwsummary, _summary7), XW,
        lambda x, w: _r_wsummary(x, w, nan=True), tol=1e-11),
    Row("reduce_comoments", ("comoments",), _red(nr.comoments, fin_comoments), XY,
        _r_comoments, exact=ex_comoments),
    Row("reduce_maxsumexpb", ("maxsumexpb",), _red(nr.maxsumexpb, fin_maxsumexp), XB,
        lambda x, b: r_lse(x, b=b), exact=lambda x, b: ex_logsumexp(x, b)),
    Row("reduce_twoprod", ("twoprod",), _red(nr.twoprod), XY,
        lambda x, y: (np.dot(x, y), None), exact=ex_twosum),
    # the user functions
    Row("minmax", ("minmax",), nr.minmax, X, lambda x: (np.min(x), np.max(x)), out=F2),
    Row("nanminmax", ("nanminmax",), nr.nanminmax, X,
        lambda x: (np.nanmin(x), np.nanmax(x)), out=(np.nanmin, np.nanmax)),
    Row("argminmax", ("argminmax",), nr.argminmax, X,
        lambda x: (np.argmin(x), np.argmax(x)), out=(np.argmin, np.argmax), positional=(0, 1)),
    Row("nanargminmax", ("nanargminmax",), nr.nanargminmax, X,
        lambda x: (np.nanargmin(x), np.nanargmax(x)), out=(np.nanargmin, np.nanargmax),
        positional=(0, 1)),
    Row("meanvar", ("meanvar",), nr.meanvar, X, r_meanvar, exact=ex_meanvar,
        out=(np.mean, np.var)),
    Row("meanstd", ("meanstd",), nr.meanstd, X, lambda x: r_meanvar(x, std=True),
        exact=lambda x: ex_meanvar(x, std=True), out=(np.mean, np.std)),
    Row("nanmeanvar", ("nanmeanvar",), nr.nanmeanvar, X, lambda x: r_meanvar(x, nan=True),
        exact=ex_meanvar, out=(np.nanmean, np.nanvar)),
    Row("meanvar_ddof1", ("meanvar",), lambda x: nr.meanvar(x, ddof=1), X,
        lambda x: r_meanvar(x, ddof=1), exact=lambda x: ex_meanvar(x, ddof=1)),
    Row("meanvar_w", ("meanvar",), lambda x, w: nr.meanvar(x, weights=w), XW, r_meanvar,
        exact=ex_meanvar),
    Row("meanstd_w", ("meanstd",), lambda x, w: nr.meanstd(x, weights=w), XW,
        lambda x, w: r_meanvar(x, w, std=True), exact=lambda x, w: ex_meanvar(x, w, std=True)),
    Row("nanmeanvar_w", ("nanmeanvar",), lambda x, w: nr.nanmeanvar(x, weights=w), XW,
        lambda x, w: r_meanvar(x, w, nan=True), exact=ex_meanvar),
    Row("describe", ("describe", "DescribeResult"), lambda x: _flat_describe(nr.describe(x)), X,
        r_describe, exact=ex_describe, tol=1e-11),
    Row("skew", ("skew",), nr.skew, X, r_skew_kurt("skew"), exact=ex_skew_kurt(5), tol=1e-11),
    Row("kurtosis", ("kurtosis",), nr.kurtosis, X, r_skew_kurt("kurtosis"),
        exact=ex_skew_kurt(6), tol=1e-11),
    Row("logsumexp", ("logsumexp",), nr.logsumexp, X, r_lse, exact=ex_logsumexp),
    Row("logsumexp_sign", ("logsumexp",), lambda x: nr.logsumexp(x, return_sign=True), X,
        lambda x: r_lse(x, return_sign=True), exact=lambda x: ex_logsumexp(x, None, True)),
    Row("logsumexp_b", ("logsumexp",), lambda x, b: nr.logsumexp(x, b=b), XB,
        lambda x, b: r_lse(x, b=b), exact=lambda x, b: ex_logsumexp(x, b)),
    Row("logsumexp_b_sign", ("logsumexp",), lambda x, b: nr.logsumexp(x, b=b, return_sign=True),
        XB, lambda x, b: r_lse(x, b=b, return_sign=True),
        exact=lambda x, b: ex_logsumexp(x, b, True)),
    Row("fsum", ("fsum",), nr.fsum, X, np.sum, exact=ex_fsum, out=(np.sum,)),
    Row("covariance", ("covariance",), nr.covariance, XY,
        lambda x, y: np.cov(x, y)[0, 1], exact=ex_cov, tol=1e-11),
    Row("correlation", ("correlation",), nr.correlation, XY,
        lambda x, y: np.corrcoef(x, y)[0, 1], tol=1e-11),
    Row("sumprod", ("sumprod",), nr.sumprod, XY, lambda x, y: np.dot(x, y), exact=ex_fsum),
    Row("mapreduce_square_fsum", ("mapreduce",), lambda x: nr.mapreduce(np.square, nr.fsum, x),
        X, lambda x: np.sum(np.square(x)), exact=lambda x: ex_fsum(x, x), raw=True),
    Row("mapreduce_multiply_minmax", ("mapreduce",),
        lambda x, y: nr.mapreduce(np.multiply, nr.minmax, x, y), XY,
        lambda x, y: (np.min(x * y), np.max(x * y)), raw=True),
    Row("mapreduce_logsumexp_sign", ("mapreduce",),
        lambda x: nr.mapreduce(np.negative, nr.logsumexp, x, return_sign=True), X,
        lambda x: r_lse(np.negative(x), return_sign=True),
        exact=lambda x: ex_logsumexp(np.negative(x), None, True), raw=True),
    Row("mapreduce_meanvar_w", ("mapreduce",),
        lambda x, w: nr.mapreduce(np.negative, nr.meanvar, x, weights=w), XW,
        lambda x, w: r_meanvar(np.negative(x), w), exact=lambda x, w: ex_meanvar(np.negative(x), w),
        raw=True),
    Row("mapreduce_logsumexp_b", ("mapreduce",),
        lambda x, b: nr.mapreduce(np.negative, nr.logsumexp, x, b=b), XB,
        lambda x, b: r_lse(np.negative(x), b=b), exact=lambda x, b: ex_logsumexp(np.negative(x), b),
        raw=True),
    # scans (masked input: TypeError, docs/semantics.md "Array types")
    Row("accumulate_minimummaximum", ("accumulate",),
        lambda x: nr.accumulate(nr.minimummaximum, x), X,
        lambda x: (np.minimum.accumulate(x), np.maximum.accumulate(x)),
        refuse={"masked": (TypeError,)}),
    Row("cumminmax", ("cumminmax",), nr.cumminmax, X,
        lambda x: (np.minimum.accumulate(np.ravel(x)), np.maximum.accumulate(np.ravel(x))),
        refuse={"masked": (TypeError,)}),
    Row("nancumminmax", ("nancumminmax",), nr.nancumminmax, X,
        lambda x: (np.fmin.accumulate(np.ravel(x)), np.fmax.accumulate(np.ravel(x))),
        refuse={"masked": (TypeError,)}),
    Row("logcumsumexp", ("logcumsumexp",), nr.logcumsumexp, X,
        lambda x: np.logaddexp.accumulate(np.ravel(x).astype(float)),
        refuse={"masked": (TypeError,)}, tol=1e-11),
    Row("cumfsum", ("cumfsum",), nr.cumfsum, X, np.cumsum, refuse={"masked": (TypeError,)}),
    Row("cummeanvar", ("cummeanvar",), nr.cummeanvar, X,
        lambda x: (np.cumsum(x) / np.arange(1, np.size(x) + 1),
                   np.array([np.var(np.ravel(x)[:k + 1]) for k in range(np.size(x))])),
        exact=lambda x: tuple(np.array(v) for v in zip(*(ex_meanvar(np.ravel(x)[:k + 1])
                                                          for k in range(np.size(x)))))
        if _finite(x) and np.size(x) else None,
        refuse={"masked": (TypeError,)}, tol=1e-11),
    # segments and groups
    Row("reduceat_minimummaximum", ("reduceat",),
        lambda x: nr.reduceat(nr.minimummaximum, x, [0, 3, 5]), X,
        lambda x: (np.minimum.reduceat(x, [0, 3, 5]), np.maximum.reduceat(x, [0, 3, 5]))),
    Row("segmented_reduce_minimummaximum", ("segmented_reduce",),
        lambda x: nr.segmented_reduce(nr.minimummaximum, x, [0, 2], [4, 7]), X,
        lambda x: r_segments(lambda s: (np.min(s), np.max(s)), x, [0, 2], [4, 7])),
    Row("reduce_by_group_minimummaximum", ("reduce_by_group",),
        lambda x, ids: nr.reduce_by_group(nr.minimummaximum, x, ids, _ng(ids)), XI,
        lambda x, ids: r_groups(lambda s: (np.min(s), np.max(s)), x, ids)),
    Row("reduce_by_group_wmoments", ("reduce_by_group",),
        lambda x, w, ids: fin_wmoments(nr.reduce_by_group(nr.wmoments, (x, w), ids, _ng(ids))),
        ("x", "w", "ids"), lambda x, w, ids: r_groups(_r_wstate, x, ids, w),
        exact=lambda x, w, ids: ex_groups(_ex_wstate, x, ids, w)),
    Row("at_minimummaximum", ("at",), _at, ("x", "ids"), _ref_at,
        refuse={"dask": (TypeError,), "dask_unknown": (TypeError,)}),  # docs/dask.md: at writes in place
    Row("merge_moments", ("merge",), _merge, X,
        lambda x: _r_moments(x), exact=_ex_moments_state, skip_kinds=("zero_d", "empty")),
    Row("group_minmax", ("group_minmax",), lambda x, ids: nr.group_minmax(x, ids, _ng(ids)), XI,
        lambda x, ids: r_groups(lambda s: (np.min(s), np.max(s)), x, ids)),
    Row("group_meanvar", ("group_meanvar",), lambda x, ids: nr.group_meanvar(x, ids, _ng(ids)), XI,
        lambda x, ids: r_groups(r_meanvar, x, ids),
        exact=lambda x, ids: ex_groups(ex_meanvar, x, ids)),
    Row("group_meanvar_w", ("group_meanvar",),
        lambda x, w, ids: nr.group_meanvar(x, ids, _ng(ids), weights=w), ("x", "w", "ids"),
        lambda x, w, ids: r_groups(r_meanvar, x, ids, w),
        exact=lambda x, w, ids: ex_groups(ex_meanvar, x, ids, w)),
    Row("group_logsumexp", ("group_logsumexp",), lambda x, ids: nr.group_logsumexp(x, ids, _ng(ids)), XI,
        lambda x, ids: r_groups(r_lse, x, ids),
        exact=lambda x, ids: ex_groups(ex_logsumexp, x, ids)),
    Row("group_fsum", ("group_fsum",), lambda x, ids: nr.group_fsum(x, ids, _ng(ids)), XI,
        lambda x, ids: r_groups(np.sum, x, ids), exact=lambda x, ids: ex_groups(ex_fsum, x, ids)),
    Row("group_argminmax", ("group_argminmax",), lambda x, ids: nr.group_argminmax(x, ids, _ng(ids)), XI, r_argminmax_groups,
        positional=(0, 1)),
]

# The names of numreduce.__all__ that compute nothing on arrays, with why.
EXCLUDED = {
    "C_API_VERSION": "a version tuple",
    "HAVE_NATIVE_REDUCE": "a flag",
    "NoValue": "the default-argument sentinel",
    "get_include": "a path for C extensions",
    "get_num_threads": "a thread setting",
    "set_num_threads": "a thread setting",
    "show_config": "prints the configuration",
}


# ---------------------------------------------------------------- accessor rows

def _pd():
    import pandas as pd
    return pd


def _series(x):
    pd = _pd()
    return x if isinstance(x, pd.Series) else pd.Series(x)


def _pd_whole(method, stats, **kw):
    def call(x):
        return tuple(getattr(_series(x).nr, method)(**kw).to_numpy(dtype=float, na_value=np.nan))

    def ref(x):
        s = _series(x)
        return tuple(s.agg(list(stats)).to_numpy(dtype=float, na_value=np.nan))
    return call, ref


def _pd_grouped(method, stats, **kw):
    def frame(x, ids):
        return _pd().DataFrame({"v": _series(x), "k": _series(ids)})

    def call(x, ids):
        r = getattr(frame(x, ids).nr.groupby("k"), method)(**kw)
        return tuple(r[("v", s)].to_numpy(dtype=float, na_value=np.nan) for s in stats)

    def ref(x, ids):
        r = frame(x, ids).groupby("k").agg(list(stats))
        return tuple(r[("v", s)].to_numpy(dtype=float, na_value=np.nan) for s in stats)
    return call, ref


def _pd_frame(method, stats, **kw):
    """A DataFrame of two columns (operands x and y); the duplicate-names
    layout is the kind ``dupcols``."""
    def frame(x, y):
        pd = _pd()
        if isinstance(x, pd.DataFrame):
            return x
        return pd.DataFrame({"a": _series(x), "b": _series(y)})

    def call(x, y=None):
        r = getattr(frame(x, y).nr, method)(**kw)
        return tuple(r.to_numpy(dtype=float, na_value=np.nan).ravel())

    def ref(x, y=None):
        r = frame(x, y).agg(list(stats))
        return tuple(r.to_numpy(dtype=float, na_value=np.nan).ravel())
    return call, ref


def _lse_agg(s):
    from scipy.special import logsumexp
    v = s.dropna().to_numpy()
    return logsumexp(v if v.dtype.kind == "f" else v.astype(float))


_lse_agg.__name__ = "logsumexp"
PD_STATS = {"minmax": ("min", "max"), "meanvar": ("mean", "var"), "meanstd": ("mean", "std"),
            "fsum": ("sum",), "argminmax": ("idxmin", "idxmax")}
ACCESSOR_KINDS = ("plain", "nullable", "nan", "inf", "neginf", "huge", "tiny", "empty",
                  "float16", "float32", "bool", "int8", "uint8", "int16", "uint16", "int32",
                  "uint32", "int64", "uint64", "strided", "reversed", "byteswap", "large")

def _ex_frame(std):
    def alt(x, y):
        a, b = ex_meanvar(x, ddof=1, std=std), ex_meanvar(y, ddof=1, std=std)
        return None if a is None or b is None else (a[0], b[0], a[1], b[1])
    return alt


# the exact moments where pandas' own sums overflow (1e307 data: pandas' mean inf)
PD_ALT = {"meanvar": (lambda x: ex_meanvar(x, ddof=1),
                      lambda x, ids: ex_groups(lambda s: ex_meanvar(s, ddof=1), x, ids),
                      _ex_frame(False)),
          "meanstd": (lambda x: ex_meanvar(x, ddof=1, std=True),
                      lambda x, ids: ex_groups(lambda s: ex_meanvar(s, ddof=1, std=True), x, ids),
                      _ex_frame(True))}
for _m, _st in PD_STATS.items():
    _alt = PD_ALT.get(_m, (None, None, None))
    _c, _r = _pd_whole(_m, _st)
    ROWS.append(Row(f"pandas_series_{_m}", (f"Series.nr.{_m}",), _c, X, _r, heavy="pandas",
                    ref_same=True, alt=_alt[0], kinds=ACCESSOR_KINDS, tol=1e-11))
    _c, _r = _pd_grouped(_m, _st)
    ROWS.append(Row(f"pandas_groupby_{_m}", (f"DataFrame.nr.groupby.{_m}",), _c, XI, _r,
                    heavy="pandas", ref_same=True, alt=_alt[1], kinds=ACCESSOR_KINDS, tol=1e-11))
    if _m != "argminmax":
        _c, _r = _pd_frame(_m, _st)
        ROWS.append(Row(f"pandas_frame_{_m}", (f"DataFrame.nr.{_m}",), _c, XY, _r,
                        heavy="pandas", ref_same=True, alt=_alt[2],
                        kinds=ACCESSOR_KINDS + ("dupcols",), tol=1e-11))


def _pd_lse_whole(x):
    return tuple(_series(x).nr.logsumexp().to_numpy(dtype=float, na_value=np.nan))


def _pd_lse_ref(x):
    return (_lse_agg(_series(x)),)


def _pd_lse_grouped(x, ids):
    df = _pd().DataFrame({"v": _series(x), "k": _series(ids)})
    return (df.nr.groupby("k").logsumexp()[("v", "logsumexp")].to_numpy(dtype=float),)


def _pd_lse_grouped_ref(x, ids):
    df = _pd().DataFrame({"v": _series(x), "k": _series(ids)})
    return (df.groupby("k")["v"].agg(_lse_agg).to_numpy(dtype=float),)


ROWS.append(Row("pandas_series_logsumexp", ("Series.nr.logsumexp",), _pd_lse_whole, X,
                _pd_lse_ref, heavy="pandas", ref_same=True, kinds=ACCESSOR_KINDS, tol=1e-11))
ROWS.append(Row("pandas_groupby_logsumexp", ("DataFrame.nr.groupby.logsumexp",),
                _pd_lse_grouped, XI, _pd_lse_grouped_ref, heavy="pandas", ref_same=True, kinds=ACCESSOR_KINDS,
                tol=1e-11))


def _xr_da(x):
    import xarray as xr
    if isinstance(x, xr.DataArray):
        return x
    return xr.DataArray(x, dims="t", coords={"g": ("t", np.asarray(BASE["ids"])[:np.size(x)])}
                        if np.ndim(x) == 1 and np.size(x) <= N else None)


def _xr_vals(r):
    r = r if isinstance(r, tuple) else (r,)
    return tuple(np.asarray(v.values, dtype=float) for v in r)


XR_REFS = {
    "minmax": lambda d: (d.min(), d.max()),
    "meanvar": lambda d: (d.mean(), d.var()),
    "meanstd": lambda d: (d.mean(), d.std()),
    "fsum": lambda d: (d.sum(),),
    "argminmax": lambda d: (d.argmin(), d.argmax()),
}
XR_KINDS = ("plain", "nan", "inf", "huge", "tiny", "float32", "int64", "bool", "dask",
            "dask_unknown", "strided", "reversed", "byteswap", "masked")
XR_ALT = {"meanvar": ex_meanvar, "meanstd": lambda x: ex_meanvar(x, std=True)}


def _xr_call(m, grouped=False):
    def call(x):
        d = _xr_da(x)
        return _xr_vals(getattr((d.nr.groupby("g") if grouped else d.nr), m)())
    return call


def _xr_ref(f, grouped=False):
    def ref(x):
        d = _xr_da(x)
        return _xr_vals(f(d.groupby("g") if grouped else d))
    return ref


for _m, _f in XR_REFS.items():
    ROWS.append(Row(f"xarray_{_m}", (f"DataArray.nr.{_m}",), _xr_call(_m), X, _xr_ref(_f),
                    heavy="xarray", ref_same=True, alt=XR_ALT.get(_m), kinds=XR_KINDS,
                    tol=1e-11))
# xarray's grouped var of a group holding inf is inf (flox), NumPy's nan: either
XR_GROUP_ALT = {"meanvar": lambda x: r_groups(r_meanvar, x, BASE["ids"])}
for _m in ("minmax", "meanvar", "fsum"):
    ROWS.append(Row(f"xarray_groupby_{_m}", (f"DataArray.nr.groupby.{_m}",),
                    _xr_call(_m, True), X, _xr_ref(XR_REFS[_m], True),
                    heavy="xarray", ref_same=True, alt=XR_GROUP_ALT.get(_m),
                    kinds=("plain", "nan", "inf", "float32", "int64", "dask"), tol=1e-11))
