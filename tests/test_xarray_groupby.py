"""``obj.nr.groupby(...)`` and ``obj.nr.resample(...)`` (numreduce/xarray.py)
against xarray's own groupby/resample reductions: values, dims, coordinates,
names and attributes, NumPy- and Dask-backed DataArrays and Datasets,
virtual coordinates, label arrays, NaN with skipna True/False, empty groups
(resample bins without data), groups split across Dask chunks."""

import warnings

import numpy as np
import pytest

xr = pytest.importorskip("xarray", reason="xarray is not installed (the 'xarray' extra)")
pd = pytest.importorskip("pandas", reason="pandas is not installed (the 'xarray' extra)")
da = pytest.importorskip("dask.array", reason="dask[array] is not installed (the 'dask' extra)")

import numreduce.xarray  # noqa: E402,F401  (registers .nr)


def make(n=100, nan=True, dtype=np.float64, gap=False):
    rng = np.random.default_rng(11)
    t = pd.date_range("2000-01-01", periods=n, freq="D")
    a = rng.standard_normal((3, n, 4)).astype(dtype) * 10
    if nan and a.dtype.kind == "f":
        a[0, 5, 1] = a[2, 40:45, 3] = np.nan
        a[1, 31:60, 2] = np.nan  # a whole month of one cell
    arr = xr.DataArray(
        a, dims=("lat", "time", "lon"), name="tas", attrs={"units": "K"},
        coords={"time": t, "lat": [10., 20., 30.], "lon": np.arange(4), "h": ("lat", [1, 2, 3]),
                "doy": ("time", np.arange(n)), "scalar": 2.5})
    if gap:  # a missing month: an empty resample bin
        arr = arr.isel(time=np.r_[0:30, 70:n])
    return arr


def same(got, ref, exact=False):
    """Values, dims, coordinates, name and attributes equal to xarray's."""
    got = got.compute()
    ref = ref.compute()
    assert got.dims == ref.dims
    assert got.name == ref.name
    assert got.attrs == ref.attrs
    assert set(got.coords) == set(ref.coords)
    for c in ref.coords:
        xr.testing.assert_identical(got.coords[c].variable, ref.coords[c].variable)
    if exact:
        np.testing.assert_array_equal(got.values, ref.values)
    else:
        # float32: numreduce accumulates in float64, xarray/flox in float32
        tol = 1e-5 if ref.dtype == np.float32 else 1e-10
        np.testing.assert_allclose(got.values, ref.values, rtol=tol, atol=tol)


def same_ds(got, ref, exact=False):
    assert list(got.data_vars) == list(ref.data_vars)
    assert got.attrs == ref.attrs
    for k in ref.data_vars:
        same(got[k], ref[k], exact)


class quiet(warnings.catch_warnings):
    """xarray's own all-NaN / empty-slice warnings are not under test."""

    def __enter__(self):
        super().__enter__()
        warnings.simplefilter("ignore")


GROUPS = ["time.month", "time.dayofweek", "doy"]


@pytest.fixture(params=["flox", "no flox"])
def flox(request):
    """xarray's groupby with flox (its default where flox is installed) and
    without (its own numpy path): the references numreduce must match."""
    if request.param == "flox":
        pytest.importorskip("flox", reason="flox is not installed (the 'xarray' extra)")
    with xr.set_options(use_flox=request.param == "flox"):
        yield request.param


@pytest.mark.parametrize("chunked", [False, True])
@pytest.mark.parametrize("skipna", [None, False])
@pytest.mark.parametrize("group", GROUPS + ["labels"])
def test_groupby_dataarray(chunked, skipna, group, flox):
    if chunked and flox == "no flox":
        pytest.skip("the Dask-backed cases run against xarray with flox")
    arr = make()
    if group == "labels":  # a DataArray of labels, NaN labels left out as xarray does
        lab = np.arange(arr.sizes["time"]) % 7 * 1.0
        lab[::9] = np.nan
        group = xr.DataArray(lab, dims="time", name="lab")
    obj = arr.chunk({"time": 17, "lon": 3}) if chunked else arr  # chunks split groups
    if chunked and isinstance(group, str) and group == "doy":  # a chunked label coordinate: xarray's own error
        with pytest.raises(ValueError) as err:
            obj.groupby(group)
        with pytest.raises(ValueError, match=str(err.value)[:30]):
            obj.nr.groupby(group)
        return
    gb, ref = obj.nr.groupby(group), arr.groupby(group)
    lo, hi = gb.minmax(skipna=skipna)
    assert isinstance(lo.data, da.Array) == chunked
    with quiet():
        same(lo, ref.min(skipna=skipna), exact=True)
        same(hi, ref.max(skipna=skipna), exact=True)
        m, v = gb.meanvar(skipna=skipna, ddof=1)
        assert isinstance(m.data, da.Array) == chunked
        same(m, ref.mean(skipna=skipna))
        same(v, ref.var(skipna=skipna, ddof=1))
        m, s = gb.meanstd(skipna=skipna)
        same(m, ref.mean(skipna=skipna))
        same(s, ref.std(skipna=skipna))
        same(gb.fsum(skipna=skipna), ref.sum(skipna=skipna))
        lse = gb.logsumexp(skipna=skipna)
        own = ref.reduce(lambda x, axis: np.log(np.sum(np.exp(
            np.where(np.isnan(x), -np.inf, x) if skipna is None else x), axis=axis)))
        same(lse, own)


@pytest.mark.parametrize("chunked", [False, True])
@pytest.mark.parametrize("skipna", [None, False])
@pytest.mark.parametrize("gap", [False, True])
@pytest.mark.parametrize("freq", ["1MS", "7D", "1ME"])
def test_resample_dataarray(chunked, skipna, gap, freq, flox):
    if chunked and flox == "no flox":
        pytest.skip("the Dask-backed cases run against xarray with flox")
    arr = make(gap=gap)
    obj = arr.chunk({"time": 25}) if chunked else arr
    gb, ref = obj.nr.resample(time=freq), arr.resample(time=freq)
    with quiet():
        lo, hi = gb.minmax(skipna=skipna)
        assert isinstance(hi.data, da.Array) == chunked
        same(lo, ref.min(skipna=skipna), exact=True)
        same(hi, ref.max(skipna=skipna), exact=True)
        m, v = gb.meanvar(skipna=skipna)
        same(m, ref.mean(skipna=skipna))
        same(v, ref.var(skipna=skipna))
        m, s = gb.meanstd(skipna=skipna, ddof=1)
        same(s, ref.std(skipna=skipna, ddof=1))
        same(gb.fsum(skipna=skipna), ref.sum(skipna=skipna))


@pytest.mark.parametrize("chunked", [False, True])
def test_integer_data(chunked):
    arr = make(nan=False).astype(np.int32) if False else \
        make(nan=False).copy(data=(make(nan=False).values * 100).astype(np.int32))
    obj = arr.chunk({"time": 30}) if chunked else arr
    ref = arr.groupby("time.month")
    lo, hi = obj.nr.groupby("time.month").minmax()
    same(lo, ref.min(), exact=True)
    same(hi, ref.max(), exact=True)
    assert lo.dtype == ref.min().dtype
    m, v = obj.nr.groupby("time.month").meanvar()
    same(m, ref.mean())
    same(v, ref.var())
    with quiet():  # an empty bin: NaN as xarray, the dtype promoted as xarray's
        gap = arr.isel(time=np.r_[0:30, 70:100])
        lo, hi = gap.nr.resample(time="1MS").minmax()
        same(lo, gap.resample(time="1MS").min(), exact=True)
        assert lo.dtype == gap.resample(time="1MS").min().dtype


@pytest.mark.parametrize("chunked", [False, True])
@pytest.mark.parametrize("kind", ["groupby", "resample"])
def test_dataset(chunked, kind):
    arr = make()
    ds = xr.Dataset({"tas": arr, "pr": (arr * 2).astype(np.float32).rename("pr"),
                     "count": ("time", np.arange(arr.sizes["time"])),
                     "area": ("lat", [1., 2., 3.])}, attrs={"title": "t"})
    obj = ds.chunk({"time": 30}) if chunked else ds
    if kind == "groupby":
        gb, ref = obj.nr.groupby("time.season"), ds.groupby("time.season")
    else:
        gb, ref = obj.nr.resample(time="1MS"), ds.resample(time="1MS")
    with quiet():
        lo, hi = gb.minmax()
        same_ds(lo, ref.min(), exact=True)
        same_ds(hi, ref.max(), exact=True)
        m, v = gb.meanvar(ddof=1)
        same_ds(m, ref.mean())
        same_ds(v, ref.var(ddof=1))
        m, s = gb.meanstd()
        same_ds(s, ref.std())
        same_ds(gb.fsum(), ref.sum())
        assert m["pr"].dtype == ref.mean()["pr"].dtype == np.float32


def test_keep_attrs_false():
    arr = make()
    lo, hi = arr.nr.groupby("time.month").minmax(keep_attrs=False)
    assert lo.attrs == {} == arr.groupby("time.month").min(keep_attrs=False).attrs


def test_lazy_dask_one_pass_per_chunk():
    """Dask-backed data stays lazy, and computing (mean, std) together reads
    every chunk once: a counting identity on the chunks runs once per
    chunk."""
    import dask
    arr = make()
    calls = []

    def count(block):
        if block.shape == (3, 20, 4):  # a chunk, not dask's probe of the meta
            calls.append(block.shape)
        return block

    lazy = arr.copy(data=da.from_array(arr.values, chunks=(3, 20, 4)).map_blocks(count))
    m, s = lazy.nr.groupby("time.month").meanstd()
    assert isinstance(m.data, da.Array) and isinstance(s.data, da.Array)
    assert not calls  # nothing computed yet
    with quiet():  # an all-NaN cell's warning
        m2, s2 = dask.compute(m, s, scheduler="sync")
        same(m2, arr.groupby("time.month").mean())
        same(s2, arr.groupby("time.month").std())
    assert len(calls) == lazy.data.npartitions == 5


def test_errors():
    arr = make()
    with pytest.raises(Exception) as ref:
        arr.groupby("nope")
    with pytest.raises(type(ref.value)):
        arr.nr.groupby("nope")
    with pytest.raises(Exception) as ref:
        arr.resample(time="not-a-frequency")
    with pytest.raises(type(ref.value)):
        arr.nr.resample(time="not-a-frequency")
    with pytest.raises(ValueError, match="not found"):
        arr.nr.resample(nope="1MS")
    with pytest.raises(NotImplementedError, match="one dimension"):
        arr.nr.groupby(arr.isel(lon=0, drop=True).rename("x") > 0)
    s = arr.copy(data=np.full(arr.shape, "a", dtype=object))
    with pytest.raises(TypeError, match="'tas'"):
        s.nr.groupby("time.month").meanvar()
    with pytest.raises(TypeError, match="'tas'"):
        s.nr.resample(time="1MS").minmax()
    ds = xr.Dataset({"tas": arr, "station": ("time", np.array(["a"] * arr.sizes["time"]))})
    with pytest.raises(TypeError, match="'station'"):
        ds.nr.groupby("time.month").meanvar()


@pytest.mark.parametrize("method", ["minmax", "meanvar", "meanstd", "fsum", "logsumexp"])
@pytest.mark.parametrize("name", [None, "tas", 0])
def test_error_names_what_it_refuses(method, name):
    """A dtype error names the DataArray by its name, an unnamed one as
    "the DataArray" (issue 36: "variable None"), a Dataset's variable as a
    data variable; complex data and strings."""
    arr = make().rename(name)
    label = "the DataArray" if name is None else f"DataArray {name!r}"
    for data in (arr + 1j, arr.copy(data=np.full(arr.shape, "a"))):
        for obj in (data.nr.groupby("time.month"), data.nr.resample(time="1MS")):
            with pytest.raises(TypeError) as e:
                getattr(obj, method)()
            assert f"numreduce: {label} of dtype {data.dtype} cannot be reduced by " \
                f"{method}" in str(e.value)
            assert "None" not in str(e.value)
    ds = xr.Dataset({"tas": make(), "w": make() + 1j})
    with pytest.raises(TypeError, match="numreduce: data variable 'w' of dtype complex128"):
        getattr(ds.nr.groupby("time.month"), method)()


def test_repr():
    assert "12 groups" in repr(make(n=366).nr.groupby("time.month"))


@pytest.mark.parametrize("kind", ["groupby", "resample"])
def test_plan_without_encoded_groups(monkeypatch, kind):
    """The plan from xarray's ``encoded`` groups and the one from a count()
    of the stand-in (older xarray) give the same results."""
    arr = make(gap=True)
    run = (lambda o: o.nr.groupby("time.month")) if kind == "groupby" else \
        (lambda o: o.nr.resample(time="1MS"))
    ref = [run(arr).minmax(), run(arr).meanstd()]
    monkeypatch.setattr(numreduce.xarray, "_encoded_plan", lambda *a: None)
    got = [run(arr).minmax(), run(arr).meanstd()]
    for g, r in zip(got, ref):
        for a, b in zip(g, r):
            xr.testing.assert_identical(a, b)


@pytest.mark.parametrize("skipna", [None, True, False])
def test_datetime_minmax(skipna):
    t = pd.date_range("2000-01-01", periods=100, freq="D")
    v = (np.datetime64("2001-01-01") + np.arange(100)[::-1].astype("m8[D]")).astype("M8[ns]")
    v[5] = np.datetime64("NaT")
    arr = xr.DataArray(v, dims="time", coords={"time": t}, name="when")
    lo, hi = arr.nr.groupby("time.month").minmax(skipna=skipna)
    # xarray's numpy path: NaT propagates unless skipna=True, as in its
    # whole-dimension min/max (flox 0.11 skips NaT in max but not in min)
    with xr.set_options(use_flox=False):
        same(lo, arr.groupby("time.month").min(skipna=skipna), exact=True)
        same(hi, arr.groupby("time.month").max(skipna=skipna), exact=True)


# ---------------------------------------------------------------- describe

def _ref_describe(gb, ddof):
    """xarray's own statistics of the groups, named as describe's."""
    return {"count": gb.count(), "min": gb.min(), "max": gb.max(), "mean": gb.mean(),
            "var": gb.var(ddof=ddof), "std": gb.std(ddof=ddof)}


def _scipy_groups(arr, codes_of, bias):
    """scipy.stats.skew / kurtosis (nan_policy='omit') per group along time."""
    from scipy import stats
    out = {}
    for key, idx in codes_of.items():
        x = arr.isel(time=idx).transpose(..., "time").values
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            out[key] = (np.asarray(stats.skew(x, axis=-1, bias=bias, nan_policy="omit")),
                        np.asarray(stats.kurtosis(x, axis=-1, bias=bias, nan_policy="omit")))
    return out


@pytest.mark.parametrize("chunked", [False, True])
@pytest.mark.parametrize("kind", ["groupby", "resample"])
@pytest.mark.parametrize("ddof,bias", [(0, True), (1, False)])
def test_describe_grouped(chunked, kind, ddof, bias):
    arr = make(gap=kind == "resample")
    obj = arr.chunk({"time": 25}) if chunked else arr
    if kind == "groupby":
        nr_gb, gb = obj.nr.groupby("time.month"), arr.groupby("time.month")
    else:
        nr_gb, gb = obj.nr.resample(time="1MS"), arr.resample(time="1MS")
    res = nr_gb.describe(ddof=ddof, bias=bias)
    assert list(res.data_vars) == ["count", "min", "max", "mean", "var", "std", "skew",
                                   "kurtosis"]
    if chunked:
        assert isinstance(res["skew"].data, da.Array)
    res = res.compute()
    assert res.attrs == arr.attrs
    with quiet():
        for name, ref in _ref_describe(gb, ddof).items():
            ref = ref.transpose(*res[name].dims)
            got = res[name].rename(ref.name)
            same(got, ref, exact=name in ("count", "min", "max"))
    rdim = ([d for d in res["skew"].dims if d not in arr.dims] or ["time"])[0]
    sc = _scipy_groups(arr, gb.groups, bias)
    labels = res.get_index(rdim)
    for key, (sk, ku) in sc.items():
        at = labels.get_loc(key)
        got = res["skew"].transpose(rdim, ...).values[at]
        np.testing.assert_allclose(got, sk, rtol=1e-9, atol=1e-12)
        np.testing.assert_allclose(res["kurtosis"].transpose(rdim, ...).values[at], ku,
                                   rtol=1e-9, atol=1e-12)
    if kind == "resample":  # the empty bins: NaN, count too (xarray's count())
        empty = res["count"].isnull().all(("lat", "lon"))
        assert int(empty.sum()) > 0
        assert res["mean"].where(empty, drop=True).isnull().all()
    else:
        assert res["count"].dtype == np.int64
    # a Dataset: <name>_<statistic>
    ds = xr.Dataset({"tas": obj, "i": obj.fillna(0).astype(np.int64)})
    dres = (ds.nr.groupby("time.month") if kind == "groupby" else
            ds.nr.resample(time="1MS")).describe(ddof=ddof, bias=bias).compute()
    xr.testing.assert_allclose(dres["tas_skew"].transpose(*res["skew"].dims), res["skew"])
    # (integers keep their dtype where no resample bin is empty, as xarray's min)
    assert dres["i_min"].dtype == (np.int64 if kind == "groupby" else np.float64)
