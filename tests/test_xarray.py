"""The ``.nr`` accessor (numreduce/xarray.py) against xarray's own
reductions: coordinates, dims, attributes and names kept, Datasets of
several variables, NumPy- and Dask-backed objects (lazy on Dask)."""

import warnings

import numpy as np
import pytest

xr = pytest.importorskip("xarray", reason="xarray is not installed (the 'xarray' extra)")
da = pytest.importorskip("dask.array", reason="dask[array] is not installed (the 'dask' extra)")

import numreduce.xarray  # noqa: E402,F401  (registers .nr)


def make(nan=True):
    rng = np.random.default_rng(7)
    a = rng.standard_normal((6, 5, 4))
    if nan:
        a[0, 0, 0] = a[2, 3, 1] = np.nan
    return xr.DataArray(
        a, dims=("time", "y", "x"), name="temperature", attrs={"units": "K"},
        coords={"time": np.arange(6), "x": np.linspace(0, 1, 4), "label": ("y", list("abcde")),
                "scalar": 3.5})


def close(got, ref, exact=False):
    assert got.dims == ref.dims
    for c in ref.coords:
        assert c in got.coords
        xr.testing.assert_equal(got.coords[c].reset_coords(drop=True),
                                ref.coords[c].reset_coords(drop=True))
    if exact:
        np.testing.assert_array_equal(got.values, ref.values)
    else:
        np.testing.assert_allclose(got.values, ref.values, rtol=1e-12, atol=1e-13)


@pytest.mark.parametrize("chunked", [False, True])
@pytest.mark.parametrize("skipna", [None, False])
def test_dataarray_against_xarray(chunked, skipna):
    arr = make()
    obj = arr.chunk({"time": 4, "x": 3}) if chunked else arr
    for dim in ("time", ("time", "x"), None):
        lo, hi = obj.nr.minmax(dim=dim, skipna=skipna)
        assert isinstance(lo.data, da.Array) == chunked  # lazy on dask
        close(lo.compute(), arr.min(dim=dim, skipna=skipna), exact=True)
        close(hi.compute(), arr.max(dim=dim, skipna=skipna), exact=True)
        for r in (lo, hi):
            assert r.name == "temperature" and r.attrs == {"units": "K"}
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            m, v = obj.nr.meanvar(dim=dim, skipna=skipna, ddof=1)
            close(m.compute(), arr.mean(dim=dim, skipna=skipna))
            close(v.compute(), arr.var(dim=dim, skipna=skipna, ddof=1))
            m, s = obj.nr.meanstd(dim=dim, skipna=skipna)
            close(s.compute(), arr.std(dim=dim, skipna=skipna))
        f = obj.nr.fsum(dim=dim, skipna=skipna)
        close(f.compute(), arr.sum(dim=dim, skipna=skipna))
        lse = obj.nr.logsumexp(dim=dim, skipna=skipna)
        ref = np.log(np.exp(arr).sum(dim=dim, skipna=skipna))
        close(lse.compute(), ref)
        assert lse.attrs == {"units": "K"}
    if skipna is None:
        clean = make(nan=False)
        cobj = clean.chunk({"x": 3}) if chunked else clean
        i, j = cobj.nr.argminmax(dim="x")
        close(i.compute(), clean.argmin(dim="x"), exact=True)
        close(j.compute(), clean.argmax(dim="x"), exact=True)
    i, j = obj.nr.argminmax(dim="time", skipna=True)
    close(i.compute(), arr.argmin(dim="time", skipna=True), exact=True)


def test_dataset_several_variables():
    arr = make()
    ds = xr.Dataset({"t": arr, "p": (arr * 2 + 1).isel(x=0, drop=True),
                     "n": ("y", np.arange(5.0))}, attrs={"title": "test"})
    for obj in (ds, ds.chunk({"time": 2})):
        lo, hi = obj.nr.minmax(dim="time")
        assert isinstance(lo, xr.Dataset) and set(lo.data_vars) == {"t", "p", "n"}
        assert lo.attrs == {"title": "test"} and lo["t"].attrs == {"units": "K"}
        xr.testing.assert_allclose(lo.compute()[["t", "p"]], ds[["t", "p"]].min("time"))
        xr.testing.assert_allclose(hi.compute()[["t", "p"]], ds[["t", "p"]].max("time"))
        # a variable without the dimension reduces over none of its axes
        xr.testing.assert_allclose(lo["n"].compute(), ds["n"])
        m, v = obj.nr.meanvar(dim=("time", "y"))
        xr.testing.assert_allclose(v.compute()[["t", "p"]], ds[["t", "p"]].var(("time", "y")))
        assert isinstance(obj.nr.fsum(), xr.Dataset)


def test_lazy_and_one_graph():
    calls = []

    def source(block):
        calls.append(1)
        return block

    arr = make(nan=False).chunk({"time": 2, "y": 2})
    data = arr.data.map_blocks(source, meta=np.empty((0, 0, 0)))
    obj = arr.copy(data=data)
    lo, hi = obj.nr.minmax(dim="time")
    assert calls == []
    xr.testing.assert_equal(lo.compute(), make(nan=False).min("time"))
    n = len(calls)
    assert n == data.npartitions
    import dask
    dask.compute(lo, hi, scheduler="synchronous")
    assert len(calls) == 2 * n  # both outputs together: each chunk read once more


def test_errors():
    arr = make()
    with pytest.raises(ValueError, match="not found"):
        arr.nr.minmax(dim="nope")
    with pytest.raises(ValueError, match="one dimension"):
        arr.nr.argminmax(dim=("time", "x"))


# ---------------------------------------------------------------- describe

def _scipy_moments(arr, dims, skipna, bias, fisher=True):
    """scipy.stats.skew / kurtosis of ``arr`` over ``dims`` (moved last and
    flattened), NaN left out with ``skipna``."""
    from scipy import stats
    x = arr.transpose(..., *dims).values
    x = x.reshape(x.shape[:x.ndim - len(dims)] + (-1,))
    pol = "omit" if skipna else "propagate"
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return (np.asarray(stats.skew(x, axis=-1, bias=bias, nan_policy=pol)),
                np.asarray(stats.kurtosis(x, axis=-1, bias=bias, fisher=fisher,
                                          nan_policy=pol)))


@pytest.mark.parametrize("chunked", [False, True])
@pytest.mark.parametrize("dims", [("time",), ("time", "x"), None])
@pytest.mark.parametrize("skipna,ddof,bias", [(None, 0, True), (True, 1, False),
                                              (False, 0, True)])
def test_describe_against_xarray_and_scipy(chunked, dims, skipna, ddof, bias):
    arr = make()
    arr[:, 4] = 2.0  # a constant slice along time: skew and kurtosis NaN, as SciPy
    obj = arr.chunk({"time": 2, "y": 3}) if chunked else arr
    res = obj.nr.describe(dim=dims, skipna=skipna, ddof=ddof, bias=bias)
    assert isinstance(res, xr.Dataset) and list(res.data_vars) == [
        "count", "min", "max", "mean", "var", "std", "skew", "kurtosis"]
    if chunked:
        assert all(isinstance(v.data, da.Array) for v in res.data_vars.values())
    res = res.compute()
    assert res.attrs == arr.attrs and res["mean"].attrs == arr.attrs
    kw = {"dim": dims, "skipna": skipna}
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        for name, ref in (("min", arr.min(**kw)), ("max", arr.max(**kw)),
                          ("mean", arr.mean(**kw)), ("var", arr.var(ddof=ddof, **kw)),
                          ("std", arr.std(ddof=ddof, **kw))):
            close(res[name], ref)
        if skipna is not False:
            close(res["count"], arr.count(dim=dims))
        else:  # every value reduced
            assert (res["count"] == np.prod([arr.sizes[d] for d in (dims or arr.dims)])).all()
    assert res["count"].dtype == np.int64
    sk, ku = _scipy_moments(arr, dims or arr.dims, skipna is not False, bias)
    np.testing.assert_allclose(res["skew"].values, sk, rtol=1e-10, atol=1e-12)
    np.testing.assert_allclose(res["kurtosis"].values, ku, rtol=1e-10, atol=1e-12)
    if dims == ("time",):
        assert np.isnan(res["skew"].values[4]).all()


def test_describe_dataset_and_dtypes():
    arr = make(nan=False)
    ds = xr.Dataset({"t": arr, "n": (arr * 100).astype(np.int64) + 2**60,
                     "f": arr.astype(np.float32), "b": arr > 0}, attrs={"title": "x"})
    res = ds.nr.describe(dim="time")
    assert list(res.data_vars) == [f"{v}_{s}" for v in ("t", "n", "f", "b") for s in (
        "count", "min", "max", "mean", "var", "std", "skew", "kurtosis")]
    assert res.attrs == {"title": "x"}
    # int64 past 2**53: exact extremes in the data's dtype
    np.testing.assert_array_equal(res["n_min"].values, ds["n"].min("time").values)
    np.testing.assert_array_equal(res["n_max"].values, ds["n"].max("time").values)
    assert res["n_min"].dtype == np.int64 and res["n_mean"].dtype == np.float64
    assert res["f_mean"].dtype == np.float32 and res["f_min"].dtype == np.float32
    assert res["b_min"].dtype == bool
    close(res["b_mean"], ds["b"].mean("time"))
    np.testing.assert_allclose(res["f_std"].values, ds["f"].std("time").values, rtol=1e-5)
    # Dask: the same (not of "n": its float64 moments of values past 2**53
    # round differently in another order)
    small = ds.drop_vars("n")
    same_dask = small.chunk({"time": 4}).nr.describe(dim="time").compute()
    xr.testing.assert_allclose(same_dask, small.nr.describe(dim="time"))
    with pytest.raises(TypeError, match="describe"):
        xr.Dataset({"c": arr.astype(complex)}).nr.describe()
    with pytest.raises(ValueError, match="taken by coordinates"):
        xr.Dataset({"a": arr}, coords={"a_min": 1.0}).nr.describe()
    with pytest.raises(ValueError, match="taken by coordinates"):
        arr.assign_coords(mean=1.0).nr.describe("time")


def test_describe_dask_one_pass_per_chunk():
    """Computing every statistic of describe reads each chunk once."""
    import dask
    arr = make()
    calls = []

    def count(block):
        if block.shape == (2, 5, 4):
            calls.append(block.shape)
        return block

    lazy = arr.copy(data=da.from_array(arr.values, chunks=(2, 5, 4)).map_blocks(count))
    res = lazy.nr.describe(dim="time")
    assert not calls
    res = dask.compute(res, scheduler="sync")[0]
    assert len(calls) == lazy.data.npartitions == 3
    close(res["mean"], arr.mean("time"))
