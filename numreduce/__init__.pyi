from collections.abc import Callable
from typing import Any, Final, Literal, NamedTuple

import numpy as np
from numpy.typing import ArrayLike, DTypeLike, NDArray

__version__: Final[str]

class _NoValueType: ...

NoValue: Final[_NoValueType]
HAVE_NATIVE_REDUCE: Final[bool]
C_API_VERSION: Final[tuple[int, int]]

# Multi-output ufuncs (nin=2); see their docstrings for the accumulators.
minimummaximum: np.ufunc  # -> (min, max)
fminfmax: np.ufunc  # -> (fmin, fmax)
moments: np.ufunc  # -> (count, mean, M2)
nanmoments: np.ufunc  # -> (count, mean, M2), NaN skipped
summary: np.ufunc  # -> (count, min, max, K, m, M2, M3, M4), mean = K + m
nansummary: np.ufunc  # -> (count, min, max, K, m, M2, M3, M4), NaN skipped
maxsumexp: np.ufunc  # -> (max, sum of exp(x - max) - 1)
twosum: np.ufunc  # -> (sum, error)
# reductions of two arrays: numreduce.reduce(u, (x, y), ...)
wmoments: np.ufunc  # (x, w) -> (W, K, m, M2)
nanwmoments: np.ufunc  # (x, w) -> (W, K, m, M2), NaN x skipped with its weight
comoments: np.ufunc  # (x, y) -> (n, Kx, Ky, mx, my, Mxx, Myy, Cxy)
wsummary: np.ufunc  # (x, w) -> (W, min, max, K, m, M2, M3, M4)
nanwsummary: np.ufunc  # (x, w) -> (W, min, max, K, m, M2, M3, M4), NaN x skipped
maxsumexpb: np.ufunc  # (x, b) -> (m, t): sum(b exp(x)) = exp(m) (1 + t), m <= max
twoprod: np.ufunc  # (x, y) -> (product, error)

_Axis = int | tuple[int, ...] | None
# a real number (floats and negative values allowed, as np.var; also a 0-d array)
_DDof = float | np.integer[Any] | np.floating[Any] | np.bool_

def reduce(
    ufunc: np.ufunc,
    array: ArrayLike,
    axis: _Axis = 0,
    dtype: DTypeLike | None = None,
    out: tuple[NDArray[Any] | None, ...] | None = None,
    keepdims: bool = False,
    initial: Any = ...,
    where: ArrayLike = True,
) -> Any: ...
def accumulate(
    ufunc: np.ufunc,
    array: ArrayLike,
    axis: int | tuple[int] | None = 0,
    dtype: DTypeLike | None = None,
    out: tuple[NDArray[Any] | None, ...] | None = None,
) -> Any: ...
def merge(
    ufunc: np.ufunc,
    states_a: tuple[ArrayLike, ...] | list[ArrayLike],
    states_b: tuple[ArrayLike, ...] | list[ArrayLike],
    out: tuple[NDArray[Any] | None, ...] | None = None,
) -> tuple[Any, ...]: ...
def cumminmax(
    x: ArrayLike,
    /,
    *,
    axis: int | None = None,
    dtype: DTypeLike | None = None,
    out: tuple[NDArray[Any] | None, NDArray[Any] | None] | None = None,
) -> tuple[NDArray[Any], NDArray[Any]]: ...
def nancumminmax(
    x: ArrayLike,
    /,
    *,
    axis: int | None = None,
    dtype: DTypeLike | None = None,
    out: tuple[NDArray[Any] | None, NDArray[Any] | None] | None = None,
) -> tuple[NDArray[Any], NDArray[Any]]: ...
def logcumsumexp(
    x: ArrayLike,
    /,
    *,
    axis: int | None = None,
    dtype: DTypeLike | None = None,
    out: NDArray[Any] | None = None,
    include_initial: bool = False,
) -> NDArray[np.floating[Any]]: ...
def cumfsum(
    x: ArrayLike,
    /,
    *,
    axis: int | None = None,
    dtype: DTypeLike | None = None,
    out: NDArray[Any] | None = None,
    include_initial: bool = False,
) -> NDArray[np.inexact[Any]]: ...
def cummeanvar(
    x: ArrayLike,
    /,
    *,
    axis: int | None = None,
    dtype: DTypeLike | None = None,
    ddof: _DDof = 0,
    out: tuple[NDArray[Any] | None, NDArray[Any] | None] | None = None,
) -> tuple[NDArray[np.inexact[Any]], NDArray[np.floating[Any]]]: ...
def reduceat(
    ufunc: np.ufunc,
    array: ArrayLike,
    indices: ArrayLike,
    axis: int | tuple[int] | None = 0,
    dtype: DTypeLike | None = None,
    out: tuple[NDArray[Any] | None, ...] | None = None,
) -> Any: ...
def segmented_reduce(
    ufunc: np.ufunc,
    array: ArrayLike,
    starts: ArrayLike,
    stops: ArrayLike,
    axis: int | tuple[int] | None = 0,
    dtype: DTypeLike | None = None,
    out: tuple[NDArray[Any] | None, ...] | None = None,
    initial: Any = ...,
    where: ArrayLike = True,
) -> tuple[NDArray[Any], ...]: ...
def minmax(
    a: ArrayLike,
    axis: _Axis = None,
    out: tuple[NDArray[Any] | None, NDArray[Any] | None] | None = None,
    keepdims: bool = False,
    initial: Any = ...,
    where: ArrayLike = True,
) -> tuple[Any, Any]: ...
def nanminmax(
    a: ArrayLike,
    axis: _Axis = None,
    out: tuple[NDArray[Any] | None, NDArray[Any] | None] | None = None,
    keepdims: bool = False,
    initial: Any = ...,
    where: ArrayLike = True,
) -> tuple[Any, Any]: ...
def argminmax(
    a: ArrayLike,
    axis: int | None = None,
    keepdims: bool = False,
    out: tuple[NDArray[np.integer[Any]] | None, NDArray[np.integer[Any]] | None] | None = None,
) -> tuple[Any, Any]: ...
def nanargminmax(
    a: ArrayLike,
    axis: int | None = None,
    keepdims: bool = False,
    out: tuple[NDArray[np.integer[Any]] | None, NDArray[np.integer[Any]] | None] | None = None,
) -> tuple[Any, Any]: ...
def meanvar(
    a: ArrayLike,
    axis: _Axis = None,
    dtype: DTypeLike | None = None,
    out: tuple[NDArray[Any] | None, NDArray[Any] | None] | None = None,
    ddof: _DDof = 0,
    keepdims: bool = False,
    *,
    where: ArrayLike = True,
    correction: _DDof | _NoValueType = ...,
    weights: ArrayLike | None = None,
) -> tuple[Any, Any]: ...
def meanstd(
    a: ArrayLike,
    axis: _Axis = None,
    dtype: DTypeLike | None = None,
    out: tuple[NDArray[Any] | None, NDArray[Any] | None] | None = None,
    ddof: _DDof = 0,
    keepdims: bool = False,
    *,
    where: ArrayLike = True,
    correction: _DDof | _NoValueType = ...,
    weights: ArrayLike | None = None,
) -> tuple[Any, Any]: ...
def nanmeanvar(
    a: ArrayLike,
    axis: _Axis = None,
    dtype: DTypeLike | None = None,
    out: tuple[NDArray[Any] | None, NDArray[Any] | None] | None = None,
    ddof: _DDof = 0,
    keepdims: bool = False,
    *,
    where: ArrayLike = True,
    correction: _DDof | _NoValueType = ...,
    weights: ArrayLike | None = None,
) -> tuple[Any, Any]: ...
def logsumexp(
    a: ArrayLike,
    axis: _Axis = None,
    b: ArrayLike | None = None,
    keepdims: bool = False,
    return_sign: bool = False,
) -> Any: ...
def covariance(
    x: ArrayLike, y: ArrayLike, axis: _Axis = None, ddof: _DDof = 1, keepdims: bool = False
) -> Any: ...
_NanPolicy = Literal["propagate", "raise", "omit"]

class DescribeResult(NamedTuple):
    nobs: Any
    minmax: tuple[Any, Any]
    mean: Any
    variance: Any
    skewness: Any
    kurtosis: Any

def describe(
    a: ArrayLike,
    axis: int | None = 0,
    ddof: _DDof = 1,
    bias: bool = True,
    nan_policy: _NanPolicy = "propagate",
    *,
    where: ArrayLike = True,
    weights: ArrayLike | None = None,
) -> DescribeResult: ...
def skew(
    a: ArrayLike,
    axis: int | None = 0,
    bias: bool = True,
    nan_policy: _NanPolicy = "propagate",
    *,
    keepdims: bool = False,
    where: ArrayLike = True,
    weights: ArrayLike | None = None,
) -> Any: ...
def kurtosis(
    a: ArrayLike,
    axis: int | None = 0,
    fisher: bool = True,
    bias: bool = True,
    nan_policy: _NanPolicy = "propagate",
    *,
    keepdims: bool = False,
    where: ArrayLike = True,
    weights: ArrayLike | None = None,
) -> Any: ...
def correlation(x: ArrayLike, y: ArrayLike, axis: _Axis = None, keepdims: bool = False) -> Any: ...
def sumprod(x: ArrayLike, y: ArrayLike, axis: _Axis = None, keepdims: bool = False) -> Any: ...
def fsum(
    a: ArrayLike,
    axis: _Axis = None,
    dtype: DTypeLike | None = None,
    out: NDArray[Any] | None = None,
    keepdims: bool = False,
    initial: Any = ...,
    where: ArrayLike = True,
) -> Any: ...
def mapreduce(
    f: Callable[..., Any],
    reduction: Callable[..., Any] | np.ufunc,
    *arrays: ArrayLike,
    axis: _Axis = None,
    keepdims: bool = False,
    **options: Any,
) -> Any: ...
def show_config() -> None: ...
def set_num_threads(n: int) -> int: ...
def get_num_threads() -> int: ...
def get_include() -> str: ...
def reduce_by_group(
    ufunc: np.ufunc,
    array: ArrayLike,
    group_ids: ArrayLike,
    num_groups: int | None = None,
    axis: int | tuple[int] = 0,
    dtype: DTypeLike | None = None,
    out: tuple[NDArray[Any] | None, ...] | None = None,
    initial: Any = ...,
    where: ArrayLike = True,
) -> tuple[NDArray[Any], ...]: ...
def at(
    ufunc: np.ufunc,
    outs: tuple[NDArray[Any], ...] | list[NDArray[Any]],
    indices: Any,
    values: ArrayLike,
) -> None: ...
def group_minmax(
    a: ArrayLike,
    group_ids: ArrayLike,
    num_groups: int | None = None,
    axis: int = 0,
    out: tuple[NDArray[Any] | None, NDArray[Any] | None] | None = None,
    initial: Any = ...,
    where: ArrayLike = True,
) -> tuple[NDArray[Any], NDArray[Any]]: ...
def group_meanvar(
    a: ArrayLike,
    group_ids: ArrayLike,
    num_groups: int | None = None,
    axis: int = 0,
    dtype: DTypeLike | None = None,
    ddof: _DDof = 0,
    where: ArrayLike = True,
    weights: ArrayLike | None = None,
) -> tuple[NDArray[Any], NDArray[Any]]: ...
def group_logsumexp(
    a: ArrayLike, group_ids: ArrayLike, num_groups: int | None = None, axis: int = 0
) -> NDArray[Any]: ...
def group_fsum(
    a: ArrayLike, group_ids: ArrayLike, num_groups: int | None = None, axis: int = 0
) -> NDArray[Any]: ...
def group_argminmax(
    a: ArrayLike, group_ids: ArrayLike, num_groups: int | None = None
) -> tuple[NDArray[np.intp], NDArray[np.intp]]: ...
