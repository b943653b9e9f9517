"""The pandas ``.nr`` accessor (numreduce/pandas.py) against pandas' own
``groupby(...).agg([...])``, ``idxmin``/``idxmax`` and ``agg([...])``:
values, dtypes, index and columns; multi-key and categorical keys, sort,
dropna, observed, NaN, nullable dtypes with pd.NA, datetime columns."""

import sys
import warnings

import numpy as np
import pytest

pd = pytest.importorskip("pandas", reason="pandas is not installed (the 'pandas' extra)")

import numreduce  # noqa: E402,F401


def test_not_imported_by_numreduce():
    import subprocess
    code = ("import sys, numreduce; assert 'numreduce.pandas' not in sys.modules; "
            "assert 'pandas' not in sys.modules")
    subprocess.run([sys.executable, "-P", "-c", code], check=True)


import numreduce.pandas  # noqa: E402,F401  (registers .nr)


def frame(n=500, seed=3, nan=True):
    rng = np.random.default_rng(seed)
    df = pd.DataFrame({
        "k": rng.integers(0, 13, n),
        "j": rng.choice(["a", "b", "c"], n),
        "x": rng.standard_normal(n) * 100,
        "y": rng.integers(-1000, 1000, n),
        "z": rng.standard_normal(n).astype(np.float32),
        "u": rng.integers(0, 255, n).astype(np.uint8),
    })
    if nan:
        df.loc[df.index[::17], "x"] = np.nan
        df.loc[df.k == 5, "z"] = np.nan  # one group all NaN in z
    df.index = pd.Index(rng.permutation(n) * 3 + 1000, name="row")
    return df


def same(got, ref, exact=False, check_dtype=True):
    pd.testing.assert_index_equal(got.index, ref.index)
    pd.testing.assert_index_equal(got.columns, ref.columns)
    if exact:
        pd.testing.assert_frame_equal(got, ref, check_dtype=check_dtype)
    else:
        for c in ref.columns:
            # float32: numreduce accumulates in float64, pandas in float32
            tol = 1e-5 if ref[c].dtype == np.float32 else 1e-9
            pd.testing.assert_series_equal(got[c], ref[c], check_dtype=check_dtype, rtol=tol,
                                           atol=tol, check_exact=False)


def agg(gb, stats):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return gb.agg(stats)


@pytest.fixture(params=["grouper codes", "ngroup"])
def plan(request, monkeypatch):
    """Both ways the accessor takes pandas' group of every row: the codes
    its groupby computed (``_grouper.result_index_and_ids``) and, where a
    pandas lacks them, ``ngroup()``."""
    if request.param == "ngroup":
        monkeypatch.setattr(numreduce.pandas, "_grouper_codes", lambda *args: None)
    return request.param


@pytest.mark.parametrize("by", ["k", ["k", "j"], "series", ["j", "k"]])
@pytest.mark.parametrize("sort", [True, False])
def test_groupby_against_pandas(by, sort, plan):
    df = frame()
    if by == "series":
        by = pd.Series(np.asarray(df["k"]) % 4, index=df.index, name="key")
    num = df.drop(columns=["j"]) if not (isinstance(by, list) and "j" in by) else df
    gb = num.nr.groupby(by, sort=sort)
    ref = num.groupby(by, sort=sort)
    same(gb.minmax(), agg(ref, ["min", "max"]), exact=True)
    same(gb.meanvar(), agg(ref, ["mean", "var"]), check_dtype=False)
    same(gb.meanvar(ddof=0), agg(ref, [("mean", "mean"), ("var", lambda s: s.var(ddof=0))]),
         check_dtype=False)
    same(gb.meanstd(), agg(ref, ["mean", "std"]), check_dtype=False)
    same(gb.fsum(), agg(ref, ["sum"]), check_dtype=False)
    ref_arg = agg(ref[["x", "y", "u"]], ["idxmin", "idxmax"])
    same(num.nr.groupby(by, sort=sort)[["x", "y", "u"]].argminmax(), ref_arg, exact=True)


def test_float32_dtype_kept():
    df = frame()
    got = df.nr.groupby("k")[["z"]].meanvar()
    ref = agg(df.groupby("k")[["z"]], ["mean", "var"])
    assert list(got.dtypes) == list(ref.dtypes)
    np.testing.assert_allclose(got.to_numpy(float), ref.to_numpy(float), rtol=1e-5)


def test_float32_grouped_mean_dtype():
    """A float32 column's grouped mean is float32 whatever the rows' order:
    pandas' grouped kernels' dtype (rows in any order, or with NaN); pandas
    3.1's ufunc.reduceat shortcut (sorted keys, no NaN) gives float64, so
    that its dtype depends on the order of the rows (docs/grouped.md)."""
    df = pd.DataFrame({"k": [0, 0, 1, 1], "z": np.array([1, 2, 3, 5], np.float32)})
    shuffled = df.iloc[[0, 2, 1, 3]]
    ref = agg(shuffled.groupby("k"), ["mean", "var", "std"])
    for d in (df, shuffled):
        got = d.nr.groupby("k").meanvar()
        assert list(got.dtypes) == [np.float32, np.float32] == list(ref.dtypes)[:2]
        np.testing.assert_allclose(got.to_numpy(float), ref.to_numpy(float)[:, :2], rtol=1e-6)
        assert list(d.nr.meanvar().dtypes) == list(d.agg(["mean", "var"]).dtypes)


def test_series():
    df = frame()
    s = df["x"]
    same(s.nr.groupby(df["k"]).meanvar(), agg(s.groupby(df["k"]), ["mean", "var"]))
    same(s.nr.groupby(df["k"]).minmax(), agg(s.groupby(df["k"]), ["min", "max"]), exact=True)
    same(s.nr.groupby(df["k"]).argminmax(),
         agg(s.groupby(df["k"]), ["idxmin", "idxmax"]), exact=True)
    same(df.nr.groupby("k")["x"].meanvar(), agg(df.groupby("k")["x"], ["mean", "var"]))


def test_logsumexp():
    df = frame(nan=False)
    got = df.nr.groupby("k")[["x"]].logsumexp()
    from scipy.special import logsumexp
    ref = df.groupby("k")["x"].apply(lambda v: logsumexp(v.to_numpy()))
    np.testing.assert_allclose(got[("x", "logsumexp")].to_numpy(), ref.to_numpy(), rtol=1e-13)


@pytest.mark.parametrize("dropna", [True, False])
def test_dropna(dropna, plan):
    df = frame()
    df["kf"] = df["k"].astype(float)
    df.loc[df.index[::7], "kf"] = np.nan
    num = df.drop(columns=["j", "k"])
    same(num.nr.groupby("kf", dropna=dropna).minmax(),
         agg(num.groupby("kf", dropna=dropna), ["min", "max"]), exact=True)
    same(num.nr.groupby("kf", dropna=dropna).meanvar(),
         agg(num.groupby("kf", dropna=dropna), ["mean", "var"]), check_dtype=False)


@pytest.mark.parametrize("observed", [True, False])
@pytest.mark.parametrize("dropna", [True, False])
def test_categorical(observed, dropna, plan):
    df = frame()
    df["c"] = pd.Categorical(df["j"], categories=["c", "b", "a", "unused"])
    df.loc[df.index[::11], "c"] = np.nan
    num = df.drop(columns=["j"])
    for by in ("c", ["c", "k"]):
        kw = {"observed": observed, "dropna": dropna}
        same(num.nr.groupby(by, **kw).minmax(), agg(num.groupby(by, **kw), ["min", "max"]),
             exact=True, check_dtype=observed)
        same(num.nr.groupby(by, **kw).meanvar(), agg(num.groupby(by, **kw), ["mean", "var"]),
             check_dtype=False)
        same(num.nr.groupby(by, **kw).fsum(),
             agg(num.groupby(by, **kw), ["sum"]), check_dtype=False)
        if not observed:
            with pytest.raises(ValueError, match="unobserved"):
                num.nr.groupby(by, **kw).argminmax()


def test_nullable():
    df = frame(nan=False)
    df["X"] = pd.array(df["x"], dtype="Float64")
    df["Y"] = pd.array(df["y"], dtype="Int64")
    df.loc[df.index[::5], "X"] = pd.NA
    df.loc[df.index[::3], "Y"] = pd.NA
    df.loc[df.k == 4, "Y"] = pd.NA  # a group without values
    sub = df[["k", "X", "Y"]]
    got = sub.nr.groupby("k").minmax()
    ref = agg(sub.groupby("k"), ["min", "max"])
    same(got, ref, exact=True)
    got = sub.nr.groupby("k").meanvar()
    ref = agg(sub.groupby("k"), ["mean", "var"])
    same(got, ref)
    assert all(str(d) == "Float64" for d in got.dtypes)
    for c in ("X", "Y"):  # not converted to object
        assert sub[c].dtype != object
    same(sub.nr.groupby("k")[["X"]].argminmax(),
         agg(sub.groupby("k")[["X"]], ["idxmin", "idxmax"]), exact=True)


def test_datetime_minmax():
    df = frame(nan=False)
    df["t"] = pd.Timestamp("2000-01-01") + pd.to_timedelta(df["y"] * 3600, unit="s")
    df.loc[df.index[::9], "t"] = pd.NaT
    sub = df[["k", "t"]]
    same(sub.nr.groupby("k").minmax(), agg(sub.groupby("k"), ["min", "max"]), exact=True)
    same(sub.nr.groupby("k").argminmax(), agg(sub.groupby("k"), ["idxmin", "idxmax"]),
         exact=True)
    with pytest.raises(TypeError, match="'t'"):
        sub.nr.groupby("k").meanvar()


def test_all_nan_group_argminmax_raises_as_pandas():
    df = pd.DataFrame({"k": [1, 1, 2], "x": [np.nan, np.nan, 1.0]})
    with pytest.raises(ValueError) as ref:
        df.groupby("k")["x"].idxmin()
    with pytest.raises(ValueError, match=str(ref.value)[:20]):
        df.nr.groupby("k").argminmax()


def test_inf_ties_with_nan():
    df = pd.DataFrame({"k": [0, 0, 0, 1, 1], "x": [np.nan, np.inf, 1.0, -np.inf, np.nan]})
    same(df.nr.groupby("k").argminmax(), agg(df.groupby("k"), ["idxmin", "idxmax"]),
         exact=True)


def test_whole_column():
    df = frame().drop(columns=["j"])
    same(df.nr.meanvar(), df.agg(["mean", "var"]))
    same(df.nr.minmax(), df.agg(["min", "max"]), check_dtype=False)
    same(df.nr.argminmax(), df.agg(["idxmin", "idxmax"]), exact=True, check_dtype=False)
    s = df["x"]
    pd.testing.assert_series_equal(s.nr.meanvar(), s.agg(["mean", "var"]))
    pd.testing.assert_series_equal(s.nr.minmax(), s.agg(["min", "max"]))


def test_whole_column_kinds():
    """The whole-column reductions (the whole-array functions, no group
    codes) on every kind of column they take -- floats with NaN, an all-NaN
    column, float32, integers, bool, nullable Float64/Int64 with <NA>,
    datetimes with NaT -- against pandas' agg and np.logaddexp.reduce."""
    df = frame(nan=True).drop(columns=["j", "k"])
    df["an"] = np.nan
    df["b"] = df["y"] > 0
    df["X"] = pd.array(df["x"], dtype="Float64")
    df["Y"] = pd.array(df["y"], dtype="Int64")
    df.loc[df.index[::4], "Y"] = pd.NA
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        same(df.nr.meanvar(), df.agg(["mean", "var"]), check_dtype=False)
        ref = pd.concat([df.agg(["mean"]), df.agg(["std"], ddof=0)])
        same(df.nr.meanstd(ddof=0), ref, check_dtype=False)
        same(df.nr.minmax(), df.agg(["min", "max"]), check_dtype=False)
        same(df.nr.fsum(), df.agg(["sum"]), check_dtype=False)
    lse = df.drop(columns=["X", "Y"]).nr.logsumexp()
    for c in lse.columns:
        vals = df[c].dropna().to_numpy(np.float64)
        ref = np.logaddexp.reduce(vals) if vals.size else -np.inf
        np.testing.assert_allclose(lse[c].iloc[0], ref,
                                   rtol=1e-6 if df[c].dtype == np.float32 else 1e-12)
    t = pd.Series(pd.date_range("2001-01-01", periods=9, freq="37h")).sample(frac=1,
                                                                                 random_state=1)
    t.iloc[[2, 5]] = pd.NaT
    pd.testing.assert_series_equal(t.nr.minmax(), t.agg(["min", "max"]))
    one = pd.Series([2.5])  # count <= ddof: NaN, as pandas
    pd.testing.assert_series_equal(one.nr.meanvar(), one.agg(["mean", "var"]))


@pytest.mark.parametrize("ddof", [0, 1, 2, 3])
def test_ddof_at_least_the_count(ddof):
    """A group of count <= ddof values has a NaN variance, as pandas (not
    inf), grouped and whole-column, with and without NaN in the column."""
    df = pd.DataFrame({"k": [1, 2, 2, 3, 3, 3, 4, 4, 4, 4],
                       "x": [1.0, 2.0, 5.0, 1.0, 2.0, 4.0, 0.5, 1.0, 7.0, 3.0]})
    df["y"] = df["x"].where(df.index != 8)
    df["n"] = pd.array(df["x"], dtype="Float64")
    df.loc[df.index[5], "n"] = pd.NA
    for sub in (df[["k", "x"]], df):
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            ref = pd.concat({c: pd.DataFrame({"mean": sub.groupby("k")[c].mean(),
                                              "var": sub.groupby("k")[c].var(ddof=ddof)})
                             for c in sub.columns if c != "k"}, axis=1)
        same(sub.nr.groupby("k").meanvar(ddof=ddof), ref, check_dtype=False)
        # (whole columns of numpy dtypes: pandas' masked Series.var of a
        # Float64 column gives inf there, its float64 var and its grouped
        # Float64 var NaN; numreduce gives <NA>)
        whole = sub[[c for c in ("x", "y") if c in sub]].iloc[:2]
        for c in whole.columns:
            got, ref = whole[c].nr.meanvar(ddof=ddof)["var"], whole[c].var(ddof=ddof)
            assert pd.isna(got) == pd.isna(ref), (c, got, ref)
            if not pd.isna(ref):
                assert np.isclose(float(got), float(ref), rtol=1e-14), (c, got, ref)


def test_errors():
    df = frame()
    with pytest.raises(KeyError):
        df.groupby("nope")
    with pytest.raises(KeyError):
        df.nr.groupby("nope").minmax()
    with pytest.raises(TypeError, match="'j'"):
        df.nr.groupby("k").meanvar()
    with pytest.raises(TypeError, match="'j'"):
        df.nr.groupby("k").minmax()
    with pytest.raises(TypeError, match="'j'"):
        df.nr.meanvar()


@pytest.mark.parametrize("keys", ["negative", "sparse", "uint8", "level"])
def test_integer_keys(keys):
    """The integer-key plan (the key's offsets as codes) and pandas' own
    factorization agree with pandas."""
    df = frame().drop(columns=["j"])
    if keys == "negative":
        df["k"] = df["k"] - 7
    elif keys == "sparse":  # too wide a range: pandas' factorization
        df["k"] = df["k"] * 10**12
    elif keys == "uint8":
        df["k"] = df["k"].astype(np.uint8)
    by = "k"
    if keys == "level":
        df = df.set_index("k", append=True)
        by = None
    kw = {"level": "k"} if by is None else {}
    ref = df.groupby(by, **kw)
    same(df.nr.groupby(by, **kw).minmax(), agg(ref, ["min", "max"]), exact=True)
    same(df.nr.groupby(by, **kw).meanvar(), agg(ref, ["mean", "var"]), check_dtype=False)
    if keys != "level":
        same(df.nr.groupby(by, sort=False).minmax(),
             agg(df.groupby(by, sort=False), ["min", "max"]), exact=True)


@pytest.mark.parametrize("case", ["dense", "offset", "late", "gap", "int32"])
def test_integer_key_presence(case):
    """The integer-key plan on more rows than its first presence chunk
    (65536 rows): values all seen early (the scan stops), a smallest value
    far from 0, a value seen only in the last row (the scan goes on to the
    end), a value in the range that never occurs (codes renumbered), an
    int32 key; sorted and in order of appearance (sort=False); against
    pandas' own groups and np.unique."""
    n = 300_000
    rng = np.random.default_rng(11)
    k = rng.integers(0, 100, n)
    if case == "offset":
        k = k + 10**6
    elif case == "late":
        k[-1] = 100
    elif case == "gap":
        k[k == 50] = 49
        k[-1] = 100
    elif case == "int32":
        k = (k - 50).astype(np.int32)
    df = pd.DataFrame({"k": k, "x": rng.standard_normal(n), "y": rng.integers(-9, 9, n)})
    got = df.nr.groupby("k").minmax()
    np.testing.assert_array_equal(got.index.to_numpy(), np.unique(k))
    same(got, agg(df.groupby("k"), ["min", "max"]), exact=True)
    same(df.nr.groupby("k").meanvar(), agg(df.groupby("k"), ["mean", "var"]))
    # sort=False: groups in order of first appearance (np.unique's first
    # indices, sorted)
    got = df.nr.groupby("k", sort=False).minmax()
    vals, first = np.unique(k, return_index=True)
    np.testing.assert_array_equal(got.index.to_numpy(), vals[np.argsort(first)])
    same(got, agg(df.groupby("k", sort=False), ["min", "max"]), exact=True)
    same(df.nr.groupby("k", sort=False).meanvar(),
         agg(df.groupby("k", sort=False), ["mean", "var"]))


def test_bool_and_empty_selection():
    df = frame(nan=False)
    df["b"] = df["x"] > 0
    sub = df[["k", "b"]]
    same(sub.nr.groupby("k").minmax(), agg(sub.groupby("k"), ["min", "max"]), exact=True)
    same(sub.nr.groupby("k").meanvar(), agg(sub.groupby("k"), ["mean", "var"]),
         check_dtype=False)


def test_nan_and_inf_in_results():
    """NaN in a result from the values themselves (inf - inf, one element
    with ddof=1) and from NaNs in the data, mixed, as pandas."""
    df = pd.DataFrame({"k": [0, 0, 1, 1, 2, 3, 3, 4, 4],
                       "x": [np.inf, -np.inf, 1.0, np.nan, 5.0, np.nan, np.nan, 2.0, 4.0]})
    same(df.nr.groupby("k").meanvar(), agg(df.groupby("k"), ["mean", "var"]))
    same(df.nr.groupby("k").fsum(), agg(df.groupby("k"), ["sum"]))
    same(df.nr.groupby("k").minmax(), agg(df.groupby("k"), ["min", "max"]), exact=True)


@pytest.mark.parametrize("threads", [1, 3])
def test_block_columns_bitwise_as_one_by_one(threads):
    """Float columns that lie as rows of one block (DataFrame({...}): one
    grouped pass over them all) give bitwise what each column gives alone
    (a one-column frame: a pass of its own), with a NaN in one column,
    ddof > 1 and more rows than one engine piece; and pandas' values."""
    from numreduce import pandas as nrp
    rng = np.random.default_rng(11)
    n = 2**21 + 1000
    df = pd.DataFrame({"k": rng.integers(0, 300, n),
                       **{c: rng.standard_normal(n) * 10 + 1e5 for c in "abcde"}})
    df.loc[3, "c"] = np.nan
    cols = [(c, np.asarray(df[c].array), None, None) for c in "abcde"]
    runs = nrp._row_runs(cols, "meanvar")
    assert [pos for pos, _ in runs] == [[0, 1, 2, 3, 4]]  # one block: the path is taken
    old = numreduce.set_num_threads(threads)
    try:
        for m, kw, stats in (("minmax", {}, ["min", "max"]), ("meanvar", {}, ["mean", "var"]),
                             ("meanvar", {"ddof": 3}, ["mean", "var"]),
                             ("meanstd", {}, ["mean", "std"])):
            got = getattr(df.nr.groupby("k"), m)(**kw)
            for c in "abcde":
                one = getattr(df[["k", c]].nr.groupby("k"), m)(**kw)
                pd.testing.assert_frame_equal(got[[c]], one, check_exact=True)
            if kw:  # ddof=3
                ref = df.groupby("k").var(ddof=3)
                got = got.xs("var", axis=1, level=1)
            else:
                ref = df.groupby("k").agg(stats)
            pd.testing.assert_frame_equal(got, ref, check_exact=False, rtol=1e-9)
    finally:
        numreduce.set_num_threads(old)


@pytest.mark.parametrize("method", sorted(numreduce.pandas._STATS))
def test_duplicate_column_names(method):
    """Columns of the same name are each reduced, as pandas keeps them
    (issue 36: ``df.nr`` raised AttributeError 'DataFrame' object has no
    attribute 'array'): whole-column, grouped, and selections of the
    duplicated name; against pandas' agg (its statistics' names) and the
    same frame with unique names."""
    df = frame(n=60).drop(columns=["j", "u"])  # k, x, y, z
    if method == "argminmax":
        df = df.fillna(0.0)  # pandas' idxmin/idxmax: a group of NaN only raises
    df.columns = ["k", "a", "b", "a"]
    uniq = df.set_axis(["k", "a", "b", "a2"], axis=1)
    stats = list(numreduce.pandas._STATS[method])
    pd_stats = {"fsum": ["sum"]}.get(method, stats)

    def rename(res):  # the unique names' result under the duplicate names
        res = res.copy()
        if isinstance(res.columns, pd.MultiIndex):
            res.columns = pd.MultiIndex.from_tuples(
                [("a" if c == "a2" else c, s) for c, s in res.columns], names=[None, None])
        else:
            res.columns = ["a" if c == "a2" else c for c in res.columns]
        return res

    def like_pandas(got, pgb, whole=False):
        if method == "logsumexp":  # pandas has none
            return
        ref = agg(pgb, pd_stats)
        if isinstance(ref.columns, pd.MultiIndex):
            ref.columns = pd.MultiIndex.from_tuples(
                [(c, stats[i % len(stats)]) for i, (c, _) in enumerate(ref.columns)],
                names=[None, None])
        else:
            ref.index = stats
        # dtypes: fsum gives float64 sums of the integer column (pandas' sum
        # int64); pandas' whole-column agg casts the columns of one name to
        # their common dtype (float32 "a" to float64; the grouped agg does
        # not): the dtypes are checked against the unique names' above;
        # describe: describe()'s float64 layout (test_describe_* check it)
        pd.testing.assert_frame_equal(got, ref, check_exact=False, rtol=1e-5,
                                      check_dtype=method not in ("fsum", "describe")
                                      and not whole)

    whole = getattr(df.nr, method)()
    pd.testing.assert_frame_equal(whole, rename(getattr(uniq.nr, method)()))
    like_pandas(whole, df, whole=True)
    for sel, usel in ((None, None), ("a", ["a", "a2"]), (["a", "b"], ["a", "a2", "b"])):
        gb, ugb = df.nr.groupby("k"), uniq.nr.groupby("k")
        got = getattr(gb if sel is None else gb[sel], method)()
        pd.testing.assert_frame_equal(
            got, rename(getattr(ugb if usel is None else ugb[usel], method)()))
        like_pandas(got, df.groupby("k") if sel is None else df.groupby("k")[sel])


# ---------------------------------------------------------------- describe

DESCRIBE = ["count", "mean", "std", "min", "max", "skew", "kurt"]


def describe_frame(n=300, seed=41):
    """NaN, int, bool, float32, int8, an offset column, nullable columns
    with <NA>, a string column; key groups of many rows, one row (std
    NaN), two and three rows (skew/kurt NaN), a constant group."""
    rng = np.random.default_rng(seed)
    k = rng.integers(0, 6, n)
    k[:4] = [10, 11, 11, 12]  # groups of 1, 2 (and 12: 3 with the next rows)
    k[4:6] = 12
    k[6:14] = 13  # a constant group (of every column below: set after)
    f = rng.standard_normal(n) * 3 + 1
    f[rng.integers(0, n, 25)] = np.nan
    df = pd.DataFrame({
        "k": k, "f": f, "i": rng.integers(-50, 50, n),
        "b": rng.random(n) < 0.3,
        "f32": (rng.standard_normal(n) * 5).astype(np.float32),
        "i8": rng.integers(-100, 100, n).astype(np.int8),
        "off": rng.standard_normal(n) + 1e8,
        "F": pd.array(rng.standard_normal(n), dtype="Float64"),
        "I": pd.array(rng.integers(0, 1000, n), dtype="Int64"),
        "s": np.array(list("abcdefghij"))[rng.integers(0, 10, n)],
    })
    df.loc[rng.integers(0, n, 30), "F"] = pd.NA
    df.loc[rng.integers(0, n, 30), "I"] = pd.NA
    df.loc[6:13, ["f", "i", "f32", "i8", "off", "F", "I"]] = [2.0, 7, 1.5, -3, 1e8 + 0.5, 4.0, 9]
    return df


NUMERIC = ["f", "i", "f32", "i8", "off", "F", "I"]


def check_describe(got, ref, layout, grouped):
    """``got`` against pandas: values of ``ref`` (``agg(DESCRIBE)``), the
    index, columns and dtypes of ``layout`` (``describe()``)."""
    assert list(got.columns) == (
        [(c, s) for c in dict.fromkeys(layout.columns.get_level_values(0)) for s in DESCRIBE]
        if grouped else list(layout.columns))
    if grouped:
        assert got.index.equals(layout.index)
        for c, s in got.columns:
            assert got[(c, s)].dtype == layout[(c, "mean")].dtype, (c, s)
    else:
        assert list(got.index) == DESCRIBE
        assert (got.dtypes == layout.dtypes).all(), (got.dtypes, layout.dtypes)
    for key in got.columns:
        g = got[key].to_numpy(dtype=float, na_value=np.nan)
        r = ref[key].to_numpy(dtype=float, na_value=np.nan) if grouped else \
            ref[key].loc[DESCRIBE].to_numpy(dtype=float, na_value=np.nan)
        col = key[0] if grouped else key
        np.testing.assert_array_equal(np.isnan(g), np.isnan(r), err_msg=str(key))
        # float32 data: pandas' float32 moments; offset data: pandas'
        # DataFrame and grouped skew/kurt lose digits (the exact values below)
        tol = 2e-6 if col == "f32" else 1e-6 if col == "off" else 1e-12
        np.testing.assert_allclose(g, r, rtol=tol, atol=0, err_msg=str(key))


def exact_describe(values):
    """count, mean, std, min, max, skew (G1), kurt (G2) of the values that
    are not NaN, in exact rational arithmetic (then rounded): pandas'
    definitions, NaN where pandas gives NaN."""
    from fractions import Fraction
    v = [Fraction(float(t)) for t in values if not np.isnan(t)]
    n = len(v)
    if n == 0:
        return [0.0] + [np.nan] * 6
    m = sum(v) / n
    m2, m3, m4 = (sum((t - m) ** p for t in v) for p in (2, 3, 4))
    std = float(m2 / (n - 1)) ** 0.5 if n > 1 else np.nan
    skew = kurt = np.nan
    if n > 2 and m2 != 0:
        skew = float(Fraction(n * (n - 1)) ** 1 / (n - 2) ** 2 * (m3 / n) ** 2
                     / (m2 / n) ** 3) ** 0.5 * (1 if m3 >= 0 else -1)
    if n > 3 and m2 != 0:
        kurt = float(Fraction(1, (n - 2) * (n - 3))
                     * ((n * n - 1) * (m4 / n) / (m2 / n) ** 2 - 3 * (n - 1) ** 2))
    return [float(n), float(m), std, float(min(v)), float(max(v)), skew, kurt]


def test_describe_whole_against_pandas():
    df = describe_frame()
    got = df.nr.describe()
    # numeric columns only, as describe(): not the bool, the string column
    assert list(got.columns) == ["k"] + NUMERIC
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        ref = df[got.columns].agg(DESCRIBE)
    check_describe(got, ref, df.describe(), False)
    np.testing.assert_allclose(got["off"].to_numpy(), exact_describe(df["off"]), rtol=1e-13)
    # a Series: indexed by statistic, its name
    s = df["F"].nr.describe()
    assert s.name == "F" and list(s.index) == DESCRIBE and s.dtype == df["F"].describe().dtype
    np.testing.assert_allclose(s.to_numpy(dtype=float), df["F"].agg(DESCRIBE).to_numpy(
        dtype=float), rtol=1e-12)


def test_describe_grouped_against_pandas():
    df = describe_frame()
    got = df.nr.groupby("k").describe()
    num = df[["k"] + NUMERIC]
    layout = num.groupby("k").describe()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        ref = num.groupby("k").agg(DESCRIBE)
    check_describe(got, ref, layout, True)
    # (offset data per group: the summary kernel's grouped update has the
    # accuracy of pandas' own grouped moments, not the exact values of the
    # whole-column pass; checked against pandas above)
    # the groups of one, two, three rows and the constant group, spelled out
    f = got["f"]
    assert f.loc[10, "count"] == 1 and np.isnan(f.loc[10, ["std", "skew", "kurt"]]).all()
    assert f.loc[11, "count"] == 2 and np.isnan(f.loc[11, ["skew", "kurt"]]).all()
    assert not np.isnan(f.loc[11, "std"])
    assert f.loc[13, "std"] == 0 and np.isnan(f.loc[13, ["skew", "kurt"]]).all()
    # a Series grouped by a key: the same statistics
    pd.testing.assert_frame_equal(df["off"].nr.groupby(df["k"]).describe(), got["off"],
                                  check_names=False)
    # a selection, sort=False
    sel = df.nr.groupby("k", sort=False)[["i", "F"]].describe()
    pd.testing.assert_frame_equal(sel, got[["i", "F"]].loc[pd.unique(df["k"])],
                                  check_names=False)


@pytest.mark.parametrize("observed", [True, False])
def test_describe_categorical_empty_groups(observed):
    """Unobserved categories (observed=False): a row of count 0 and NaN, as
    pandas; a key with NaN (dropna) leaves its rows out."""
    df = pd.DataFrame({"k": pd.Categorical(["a", "a", "c", None, "a", "c", "c", "a"],
                                           categories=["a", "b", "c", "d"]),
                       "v": [1.0, 2.0, 3.0, 100.0, 4.0, np.nan, 7.0, 9.0],
                       "w": pd.array([1, None, 3, 4, 5, 6, 7, 8], dtype="Int16")})
    got = df.nr.groupby("k", observed=observed).describe()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        ref = df.groupby("k", observed=observed).agg(DESCRIBE)
        layout = df.groupby("k", observed=observed).describe()
    check_describe(got, ref, layout, True)
    if not observed:
        assert got.loc["b", ("v", "count")] == 0 and got.loc["b", ("w", "count")] == 0
        assert got.loc[["b", "d"], ("v", "mean")].isna().all()


def test_describe_exact_extremes_and_accuracy():
    """Offset data (1e9 + small spread): the moments in a shifted frame keep
    their digits (pandas' values); int64 extremes past 2**53 as pandas'
    float64 layout gives them."""
    rng = np.random.default_rng(7)
    x = rng.standard_normal(5000) + 1e9
    big = np.array([2**62 + 1, 2**62 + 3, -(2**62) - 5, 7], np.int64)
    df = pd.DataFrame({"x": x})
    got = df.nr.describe()["x"]
    ref = df["x"].agg(DESCRIBE)
    np.testing.assert_allclose(got.to_numpy(), ref.to_numpy(), rtol=1e-7)
    assert abs(got["skew"] - ref["skew"]) < 1e-4 and abs(got["kurt"] - ref["kurt"]) < 1e-4
    s = pd.Series(big).nr.describe()
    assert s["min"] == float(big.min()) and s["max"] == float(big.max())


def test_describe_errors_and_edges():
    df = pd.DataFrame({"k": [0, 0, 1], "b": [True, False, True], "s": ["x", "y", "z"],
                       "t": pd.date_range("2020", periods=3)})
    # no numeric column left (k is the key): pandas' describe would describe
    # them as categories
    with pytest.raises(TypeError, match="no numeric column"):
        df.nr.groupby("k").describe()
    with pytest.raises(TypeError, match="no numeric column"):
        df[["b", "s", "t"]].nr.describe()
    with pytest.raises(TypeError, match="bool"):
        df["b"].nr.describe()
    with pytest.raises(TypeError, match="bool"):
        df.nr.groupby("k")["b"].describe()
    with pytest.raises(TypeError, match="'s'"):
        df.nr.groupby("k")["s"].describe()
    # empty: a count of 0 and NaN, as pandas
    e = pd.Series([], dtype=float).nr.describe()
    assert e["count"] == 0 and e.drop("count").isna().all()
    # inf: pandas' NaN std, skew, kurt
    s = pd.Series([np.inf, 1.0, 2.0, 3.0, 4.0])
    got, ref = s.nr.describe(), s.agg(DESCRIBE)
    np.testing.assert_array_equal(got.to_numpy(dtype=float), ref.to_numpy(dtype=float))
