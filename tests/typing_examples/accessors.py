# mypy: disable-error-code="import-untyped"
"""A user's script through the xarray and pandas accessors' stubs
(numreduce/xarray.pyi, numreduce/pandas.pyi), checked by `mypy --strict`
(tests/test_typing.py) and run.  pandas has no inline types: its import is
not an error here (with pandas-stubs installed its classes are checked,
without them they are Any).  mypy does not know the registered `.nr`
attribute: the accessor classes are called on the objects as the accessor
does (`NumreduceDataArrayAccessor(da)` is `da.nr`)."""

import numpy as np
import pandas as pd
import xarray as xr

from numreduce.pandas import NumreduceDataFrameAccessor, NumreduceSeriesAccessor
from numreduce.xarray import NumreduceDataArrayAccessor, NumreduceDatasetAccessor

time = pd.date_range("2000-01-01", periods=90, freq="D")
da = xr.DataArray(np.arange(180.0).reshape(90, 2), dims=("time", "x"),
                  coords={"time": time}, name="t")
ds = da.to_dataset()

nda = NumreduceDataArrayAccessor(da)
lo, hi = nda.minmax("time", skipna=True)
ilo, ihi = nda.argminmax(dim="time")
mean, var = nda.meanvar(("time", "x"), ddof=1, dtype=np.float64)
m2, s2 = nda.meanstd(keep_attrs=False)
lse: xr.DataArray = nda.logsumexp("x")
tot: xr.DataArray = nda.fsum(dtype=np.float64)
g_lo, g_hi = nda.groupby("time.month").minmax(skipna=False)
g_mean, g_std = nda.groupby(da["time"].dt.month).meanstd(ddof=1)
r_mean, r_var = nda.resample(time="1MS").meanvar()
r_sum: xr.DataArray = nda.resample({"time": "1MS"}, closed="left").fsum()
r_lse: xr.DataArray = nda.resample(time="1MS").logsumexp(keep_attrs=False)

nds = NumreduceDatasetAccessor(ds)
d_lo, d_hi = nds.minmax()
d_mean: xr.Dataset = nds.groupby("time.month").meanvar()[0]
d_sum: xr.Dataset = nds.resample(time="1MS").fsum(skipna=True)

df = pd.DataFrame({"k": [1, 2, 1, 2], "x": [1.0, 2.0, 3.0, 5.0], "y": [4, 3, 2, 1]})
ndf = NumreduceDataFrameAccessor(df)
p_mv: pd.DataFrame = ndf.groupby("k").meanvar(ddof=0)
p_mm: pd.DataFrame = ndf.groupby(["k"], sort=False, dropna=True, observed=True).minmax()
p_ms: pd.DataFrame = ndf.groupby("k")["x"].meanstd()
p_fs: pd.DataFrame = ndf.groupby(df["k"]).fsum()
p_ls: pd.DataFrame = ndf.groupby("k")[["x"]].logsumexp()
p_am: pd.DataFrame = ndf.groupby("k").argminmax()
w_mv: pd.DataFrame = ndf.meanvar()
w_mm: pd.DataFrame = ndf.minmax()
w_ms: pd.DataFrame = ndf.meanstd(ddof=0)
w_fs: pd.DataFrame = ndf.fsum()
w_ls: pd.DataFrame = ndf.logsumexp()
w_am: pd.DataFrame = ndf.argminmax()

ns = NumreduceSeriesAccessor(df["x"])
s_mv: pd.Series = ns.meanvar()
s_g: pd.DataFrame = ns.groupby(df["k"]).minmax()
