# Type stubs of numreduce.cupy (the CuPy mirror; docs/gpu.md).
from typing import Any

import numpy as np

_Array = Any  # cupy.ndarray (CuPy ships no stubs numreduce can depend on)
_Axis = None | int | tuple[int, ...]

class DeviceUFunc:
    __name__: str
    nin: int
    nout: int
    cpu: np.ufunc
    def __call__(self, x1: Any, x2: Any, out: tuple[_Array | None, ...] | None = ...,
                 dtype: Any = ...) -> tuple[_Array, ...]: ...
    def reduce(self, a: _Array, axis: _Axis = ..., dtype: Any = ...,
               out: tuple[_Array | None, ...] | None = ..., keepdims: bool = ...,
               initial: Any = ..., where: Any = ...) -> tuple[_Array, ...]: ...

minimummaximum: DeviceUFunc
fminfmax: DeviceUFunc
moments: DeviceUFunc
nanmoments: DeviceUFunc
maxsumexp: DeviceUFunc
twosum: DeviceUFunc
FUNCTIONS: dict[str, Any]

def is_cupy_array(x: Any) -> bool: ...
def reduce(ufunc: Any, array: _Array, axis: _Axis = ..., dtype: Any = ...,
           out: tuple[_Array | None, ...] | None = ..., keepdims: bool = ...,
           initial: Any = ..., where: Any = ...) -> tuple[_Array, ...]: ...
def minmax(a: _Array, axis: _Axis = ..., out: tuple[_Array | None, _Array | None] | None = ...,
           keepdims: bool = ..., initial: Any = ..., where: Any = ...) -> tuple[_Array, _Array]: ...
def nanminmax(a: _Array, axis: _Axis = ..., out: tuple[_Array | None, _Array | None] | None = ...,
              keepdims: bool = ..., initial: Any = ..., where: Any = ...) -> tuple[_Array, _Array]: ...
def argminmax(a: _Array, axis: int | None = ..., keepdims: bool = ...,
              out: tuple[_Array | None, _Array | None] | None = ...) -> tuple[_Array, _Array]: ...
def nanargminmax(a: _Array, axis: int | None = ..., keepdims: bool = ...,
                 out: tuple[_Array | None, _Array | None] | None = ...) -> tuple[_Array, _Array]: ...
def meanvar(a: _Array, axis: _Axis = ..., dtype: Any = ..., ddof: float = ...,
            keepdims: bool = ..., where: Any = ...) -> tuple[_Array, _Array]: ...
def meanstd(a: _Array, axis: _Axis = ..., dtype: Any = ..., ddof: float = ...,
            keepdims: bool = ..., where: Any = ...) -> tuple[_Array, _Array]: ...
def nanmeanvar(a: _Array, axis: _Axis = ..., dtype: Any = ..., ddof: float = ...,
               keepdims: bool = ..., where: Any = ...) -> tuple[_Array, _Array]: ...
def logsumexp(a: _Array, axis: _Axis = ..., keepdims: bool = ...) -> _Array: ...
def fsum(a: _Array, axis: _Axis = ..., dtype: Any = ..., keepdims: bool = ...) -> _Array: ...
def accumulate(ufunc: Any, array: _Array, axis: int | None = ..., dtype: Any = ...,
               out: tuple[_Array | None, ...] | None = ...) -> tuple[_Array, ...]: ...
def merge(ufunc: Any, states_a: tuple[_Array, ...], states_b: tuple[_Array, ...],
          out: tuple[_Array | None, ...] | None = ...) -> tuple[_Array, ...]: ...
