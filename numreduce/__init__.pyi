from typing import Any, Final

import numpy as np
from numpy.typing import ArrayLike, DTypeLike, NDArray

__version__: Final[str]

class _NoValueType: ...

NoValue: Final[_NoValueType]
HAVE_NATIVE_REDUCE: Final[bool]

minimummaximum: np.ufunc

def reduce(
    ufunc: np.ufunc,
    array: ArrayLike,
    axis: int | tuple[int, ...] | None = 0,
    dtype: DTypeLike | None = None,
    out: tuple[NDArray[Any] | None, ...] | None = None,
    keepdims: bool = False,
    initial: Any = ...,
    where: ArrayLike = True,
) -> Any: ...
def minmax(
    a: ArrayLike,
    axis: int | tuple[int, ...] | None = None,
    out: tuple[NDArray[Any] | None, NDArray[Any] | None] | None = None,
    keepdims: bool = False,
    initial: Any = ...,
    where: ArrayLike = True,
) -> tuple[Any, Any]: ...
def show_config() -> None: ...
