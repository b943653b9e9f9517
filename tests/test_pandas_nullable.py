"""Every ``.nr`` accessor method x every pandas nullable dtype x (Series,
DataFrame whole-column, grouped) against pandas' own reductions of the same
data (``s.min()``, ``s.mean()``, ``s.var()``, ``s.sum()``, ``s.idxmin()``
... per column and per group): ``<NA>`` left out as pandas' ``skipna``
leaves it out, a column or group of ``<NA>`` only and an empty frame as
pandas gives them, the result dtypes pandas gives.

The methods are read off the accessor classes: a method added later fails
``test_every_method_has_a_reference`` until it gets its row in ``REFS``."""

import warnings

import numpy as np
import pytest

pd = pytest.importorskip("pandas", reason="pandas is not installed (the 'pandas' extra)")

import numreduce.pandas as nrp  # noqa: E402  (registers .nr)

NULLABLE = ["Float64", "Float32", "Int8", "Int16", "Int32", "Int64",
            "UInt8", "UInt16", "UInt32", "UInt64", "boolean"]


def _lse(s):
    from scipy.special import logsumexp
    v = s.dropna().to_numpy(np.float64)
    return logsumexp(v) if v.size else -np.inf


# method -> (its statistics, the reference of one column: pandas' own
# reductions, skipna=True; logsumexp, which pandas lacks: SciPy's of the
# values pandas' dropna keeps)
REFS = {
    "minmax": (("min", "max"), lambda s: [s.min(), s.max()]),
    "meanvar": (("mean", "var"), lambda s: [s.mean(), s.var()]),
    "meanstd": (("mean", "std"), lambda s: [s.mean(), s.std()]),
    "fsum": (("sum",), lambda s: [s.sum()]),
    "logsumexp": (("logsumexp",), lambda s: [_lse(s)]),
    "argminmax": (("idxmin", "idxmax"), lambda s: [s.idxmin(), s.idxmax()]),
    "describe": (("count", "mean", "std", "min", "max", "skew", "kurt"),
                 lambda s: [s.count(), s.mean(), s.std(), s.min(), s.max(), s.skew(),
                            s.kurt()]),
}
METHODS = sorted(REFS)


def _public(cls):
    return {m for m in vars(cls) if not m.startswith("_") and m != "groupby"}


def test_every_method_has_a_reference():
    assert _public(nrp._Accessor) == set(REFS)
    assert _public(nrp._Grouped) == set(REFS)
    assert {m: s for m, (s, _) in REFS.items()} == nrp._STATS


def expected_dtype(dtype, method, stat, grouped):
    """pandas' dtype of ``stat`` of a ``dtype`` column (``df.agg([stat])``,
    ``df.groupby(k).agg([stat])``); numreduce's own where pandas has no
    such statistic or numreduce's differs by design (docs/grouped.md):
    ``fsum`` is a float64 sum of integers and booleans (Float64 for the
    nullable ones, as float64 for NumPy integer columns); ``logsumexp``
    is floating point as ``mean``."""
    if method == "argminmax":
        return np.dtype(np.int64)  # the index labels
    if method == "describe":
        # describe()'s layout: every statistic of a nullable column Float64
        df = pd.DataFrame({"k": [0, 0, 1], "a": pd.array([1, 0, 1], dtype=dtype)})
        ref = df.groupby("k").describe() if grouped else df[["a"]].describe()
        return ref[("a", "mean") if grouped else "a"].dtype  # (its rows' one dtype)
    if method == "fsum" and dtype not in ("Float32", "Float64"):
        return pd.Float64Dtype()
    if method == "logsumexp":
        stat = "mean"
    df = pd.DataFrame({"k": [0, 0, 1], "a": pd.array([1, 0, 1], dtype=dtype)})
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        if grouped:
            return df.groupby("k").agg([stat])[("a", stat)].dtype
        return df[["a"]].agg([stat])["a"].dtype


def values(dtype, n, rng):
    """n values of ``dtype`` for which a 0 (or False) read in place of
    <NA> would change every statistic: of one sign per half (so 0 is
    neither the min of the positive half nor the max of the negative
    one), non-integers for floats."""
    if dtype == "boolean":
        return rng.random(n) < 0.7
    if dtype.startswith("Float"):
        v = rng.uniform(0.5, 9.5, n)
        v[: n // 2] *= -1
        return v
    if dtype.startswith("UInt"):
        return rng.integers(3, 100, n)
    v = rng.integers(3, 100, n)
    v[: n // 2] *= -1
    return v


def column(dtype, n=40, seed=0, na_every=3):
    rng = np.random.default_rng(seed)
    arr = pd.array(values(dtype, n, rng), dtype=dtype)
    if na_every:
        arr[::na_every] = pd.NA
    return arr


def check_value(got, ref, dtype, stat):
    if pd.isna(ref) and not (isinstance(ref, float) and np.isinf(ref)):
        assert pd.isna(got), (stat, got, ref)
        return
    assert not pd.isna(got), (stat, got, ref)
    if stat in ("min", "max", "idxmin", "idxmax"):
        assert got == ref, (stat, got, ref)
    else:
        tol = 1e-6 if dtype == "Float32" else 1e-12
        np.testing.assert_allclose(float(got), float(ref), rtol=tol, atol=tol, err_msg=stat)


def check_whole(got, col, dtype, method):
    """``got``: the Series of one column's statistics (indexed by them)."""
    stats, ref = REFS[method]
    assert list(got.index) == list(stats)
    assert got.dtype == expected_dtype(dtype, method, stats[0], False), (got.dtype, method)
    for stat, r in zip(stats, ref(col)):
        check_value(got[stat], r, dtype, stat)


def whole_raises_as_pandas(method, col):
    """pandas' exception where its reference raises (idxmin of no values),
    else None; numreduce's TypeError for describe of a boolean column
    (pandas' describe() gives bool columns count/unique/top/freq)."""
    if method == "describe" and col.dtype == "boolean":
        return TypeError
    try:
        REFS[method][1](col)
    except (ValueError, TypeError) as e:
        return type(e)
    return None


CASES = ["some NA", "all NA", "no NA", "one value", "empty"]


def case_column(dtype, case):
    if case == "some NA":
        return column(dtype)
    if case == "all NA":
        return pd.array([pd.NA] * 40, dtype=dtype)
    if case == "no NA":
        return column(dtype, na_every=0)
    if case == "one value":
        return column(dtype, n=5, seed=2, na_every=0)[[3]]
    return pd.array([], dtype=dtype)


@pytest.mark.parametrize("case", CASES)
@pytest.mark.parametrize("method", METHODS)
@pytest.mark.parametrize("dtype", NULLABLE)
def test_series(dtype, method, case):
    s = pd.Series(case_column(dtype, case), name="a")
    s.index = s.index * 3 + 100  # labels, not positions
    exc = whole_raises_as_pandas(method, s)
    if exc is not None:
        with pytest.raises(exc):
            getattr(s.nr, method)()
        return
    got = getattr(s.nr, method)()
    assert got.name == "a"
    check_whole(got, s, dtype, method)


@pytest.mark.parametrize("method", METHODS)
@pytest.mark.parametrize("dtype", NULLABLE)
def test_dataframe_whole(dtype, method):
    df = pd.DataFrame({c: case_column(dtype, c) for c in CASES[:3]})
    df.index = df.index * 3 + 100
    for sub in (df, df.iloc[:0]):
        cols = [c for c in sub.columns if whole_raises_as_pandas(method, sub[c]) is None]
        if len(cols) < sub.shape[1]:
            with pytest.raises(TypeError if method == "describe" else ValueError):
                getattr(sub.nr, method)()
        if not cols:
            continue
        got = getattr(sub[cols].nr, method)()
        assert list(got.columns) == cols
        for c in cols:
            check_whole(got[c], sub[c], dtype, method)


def grouped_frame(dtype):
    """Groups of: some <NA>, <NA> only (key 1), no <NA>, one value; rows
    in mixed order; a Float64 column beside."""
    n = 40
    k = np.repeat([0, 1, 2, 3], [18, 7, 14, 1])
    a = column(dtype, n=n, seed=1)
    a[k == 1] = pd.NA
    a[k == 2] = column(dtype, n=14, seed=4, na_every=0)
    a[k == 3] = column(dtype, n=1, seed=7, na_every=0)
    order = np.random.default_rng(5).permutation(n)
    return pd.DataFrame({"k": k[order], "a": a[order],
                         "b": pd.array(values("Float64", n, np.random.default_rng(6)),
                                       dtype="Float64")},
                        index=pd.Index(order * 3 + 100, name="row"))


def check_grouped(got, df, dtype, method):
    stats, ref = REFS[method]
    keys = sorted(df["k"].unique())
    assert list(got.index) == keys
    assert got.index.name == "k"
    for c in ("a", "b"):
        for i, stat in enumerate(stats):
            col = got[(c, stat)]
            dt = dtype if c == "a" else "Float64"
            assert col.dtype == expected_dtype(dt, method, stat, True), (c, stat, col.dtype)
            for key in keys:
                r = ref(df.loc[df["k"] == key, c])[i]
                check_value(col.loc[key], r, dt, stat)


@pytest.mark.parametrize("method", METHODS)
@pytest.mark.parametrize("dtype", NULLABLE)
def test_grouped(dtype, method):
    df = grouped_frame(dtype)
    if method == "describe" and dtype == "boolean":
        # describe leaves bool columns out as pandas' describe() does, and
        # refuses one selected
        got = df.nr.groupby("k").describe()
        assert list(got.columns.get_level_values(0).unique()) == ["b"]
        with pytest.raises(TypeError, match="bool"):
            df.nr.groupby("k")["a"].describe()
        return
    if method == "argminmax":  # pandas: ValueError for the group of <NA> only
        with pytest.raises(ValueError):
            df.groupby("k")["a"].idxmin()
        with pytest.raises(ValueError, match="all NA"):
            df.nr.groupby("k").argminmax()
        df = df[df["k"] != 1]
    got = getattr(df.nr.groupby("k"), method)()
    check_grouped(got, df, dtype, method)
    # a Series grouped by a key Series: the same statistics
    one = getattr(df["a"].nr.groupby(df["k"]), method)()
    pd.testing.assert_frame_equal(one, got["a"], check_names=False)
    # sort=False, a key with <NA> (dropna), the column selected
    key = pd.array(df["k"], dtype="Int64")
    key[key == 3] = pd.NA
    sel = getattr(df.nr.groupby(key, sort=False)[["a"]], method)()
    kept = df[pd.notna(key)]
    ref_index = pd.unique(kept["k"])
    assert list(sel.index) == list(ref_index)
    pd.testing.assert_frame_equal(sel, got[["a"]].loc[ref_index], check_names=False,
                                  check_index_type=False)


@pytest.mark.parametrize("method", METHODS)
@pytest.mark.parametrize("dtype", NULLABLE)
def test_grouped_empty(dtype, method):
    """An empty frame: no groups, the columns and dtypes pandas gives."""
    df = grouped_frame(dtype).iloc[:0]
    if method == "describe" and dtype == "boolean":
        df, dtype = df.astype({"a": "Float64"}), "Float64"
    got = getattr(df.nr.groupby("k"), method)()
    stats = REFS[method][0]
    assert got.shape == (0, 2 * len(stats))
    assert list(got.columns) == [(c, s) for c in ("a", "b") for s in stats]
    for c, dt in (("a", dtype), ("b", "Float64")):
        for s in stats:
            assert got[(c, s)].dtype == expected_dtype(dt, method, s, True), (c, s)


def test_issue_example():
    """The report: <NA> read as 0.0 by minmax (issue 36, class 2)."""
    s = pd.Series(pd.array([5.0, None, 7.0], dtype="Float64"))
    assert s.nr.minmax().tolist() == [s.min(), s.max()] == [5.0, 7.0]
    df = pd.DataFrame({"k": [0, 0, 1], "a": s})
    assert df.nr.groupby("k").minmax()[("a", "min")].tolist() == [5.0, 7.0]
    assert df.nr.minmax()["a"].tolist() == [5.0, 7.0]


def test_fsum_of_integers_is_floating_point():
    """fsum of a nullable integer column is Float64, as float64 for a NumPy
    integer column: before, the float64 sum was rounded into Int64, an
    integer off by 2 past 2**53 (pandas' exact sum: 2**62 + 2)."""
    s = pd.Series(pd.array([2**62 + 1, 1, None], dtype="Int64"))
    got = s.nr.fsum()
    assert got.dtype == pd.Float64Dtype()
    assert got.iloc[0] == float(s.sum()) == 2.0**62
    assert s.dropna().astype(np.int64).nr.fsum().dtype == np.float64
