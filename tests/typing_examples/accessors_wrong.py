# mypy: disable-error-code="import-untyped"
"""Calls the accessor stubs must reject (tests/test_typing.py expects one
mypy error per line marked `# E`), so the accessor typing test can fail."""

import numpy as np
import pandas as pd
import xarray as xr

from numreduce.pandas import NumreduceDataFrameAccessor
from numreduce.xarray import NumreduceDataArrayAccessor, NumreduceDatasetAccessor

da = xr.DataArray(np.ones((4, 2)), dims=("time", "x"))
nda = NumreduceDataArrayAccessor(da)
nda.minmax(skipna="yes")  # E
nda.meanvar("time", 1)  # E
nda.groupby("time.month").argminmax()  # E
nda.resample(time="1MS").minmax(ddof=1)  # E
ds: xr.Dataset = nda.fsum()  # E
arr: xr.DataArray = NumreduceDatasetAccessor(da.to_dataset(name="v")).fsum()  # E
ndf = NumreduceDataFrameAccessor(pd.DataFrame({"k": [1], "x": [1.0]}))
ndf.groupby("k").meanvar(ddof="1")  # E
ndf.groupby("k", True)  # E
ndf.groupby("k").minmax(skipna=False)  # E
