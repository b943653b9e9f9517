"""Introspection: which reduction path is active and why."""

from __future__ import annotations

import platform
import sys

import numpy as np

from . import _core
from ._version import __version__

HAVE_NATIVE_REDUCE: bool = bool(_core._HAVE_NATIVE_REDUCE)


def _simd_level() -> str:
    try:
        from numpy._core import _multiarray_umath as mu

        features = getattr(mu, "__cpu_features__", {})
        top = [f for f in ("AVX512_SPR", "AVX512_ICL", "AVX512_SKX", "AVX512F", "AVX2",
                           "SSE42", "ASIMD", "NEON", "VSX") if features.get(f)]
        return top[0] if top else "baseline"
    except Exception:  # pragma: no cover - private NumPy attribute moved
        return "unknown"


def config() -> dict:
    """The facts that ``show_config`` prints, as a dict."""
    facts = {
        "numreduce": __version__,
        "numpy": np.__version__,
        "python": sys.version.split()[0],
        "platform": platform.platform(),
        "machine": platform.machine(),
        "numpy_simd": _simd_level(),
        "simd_kernels": _core._SIMD_KERNELS,
        "native_reduce": HAVE_NATIVE_REDUCE,
        "native_reason": _core._NATIVE_REASON,
        "reduce_path": "native ufunc.reduce + engine" if HAVE_NATIVE_REDUCE else "engine",
        "threads": get_num_threads(),
        "compiler": _core._BUILD_COMPILER,
        "npy_target_version": hex(_core._BUILD_NPY_TARGET_VERSION),
        "c_api": "%d.%d" % divmod(int(_core._C_API_VERSION), 1000),
        "registered_ufuncs": ", ".join(u.__name__ for u in _core._MULTI_OUTPUT),
    }
    if not HAVE_NATIVE_REDUCE:
        facts["native_hint"] = NATIVE_HINT
    return facts


NATIVE_HINT = ("minimummaximum.reduce(...) raises on this NumPy; "
               "use numreduce.reduce(minimummaximum, ...)")


def show_config() -> None:
    """Print numreduce's build and run-time configuration.

    Says whether ``ufunc.reduce`` works natively on this NumPy (the probe at
    import registers the reduction-loop slots only where NumPy accepts them)
    and why; ``numreduce.reduce`` works either way.  Without the slots a
    ``native_hint`` line says so: ``nr.minimummaximum.reduce(a)`` raises
    NumPy's ``ValueError: reduce only supported for functions returning a
    single value``, and ``nr.reduce(nr.minimummaximum, a)`` gives the result.
    """
    for key, value in config().items():
        print(f"{key:>20}: {value}")


def set_num_threads(n: int) -> int:
    """Use up to ``n`` threads for large whole-array reductions; returns the
    previous setting.

    An option-free whole-array reduction of a contiguous array
    (``minmax(a)``, ``logsumexp(a)``, ``fsum(a)``, ...) of more than 2**21
    elements is cut into fixed chunks of 2**21 elements, merged in index
    order; up to ``n`` threads compute the chunks with the GIL released, so
    the result is bitwise the same for any ``n``.  The default is 1 (or the
    environment variable ``NUMREDUCE_NUM_THREADS`` at import).  The moments
    reduction (``meanvar``) reduces its chunks in one shifted frame chosen
    from the data and merges them there, as accurately as one piece.  Long
    grouped reductions (``reduce_by_group`` without ``initial``, ``group_*``)
    use the same fixed pieces, ``accumulate`` over a non-leading axis
    independent blocks, and ``reduceat``/``segmented_reduce`` independent
    segments, so they too give the same bits for any ``n``.
    """
    return _core._set_num_threads(_thread_count(n))


def _thread_count(n) -> int:
    """``n`` as an exact integer, like ``operator.index``: float, str and bool
    raise TypeError (a bool is not a count, as in NumPy's integer arguments);
    values outside 1..1024 raise ValueError (in the C side)."""
    import operator

    if isinstance(n, (bool, np.bool_)):
        raise TypeError(f"set_num_threads: n must be an integer, not {type(n).__name__}")
    try:
        return operator.index(n)
    except TypeError:
        raise TypeError(f"set_num_threads: n must be an integer, not {type(n).__name__}") \
            from None


def get_num_threads() -> int:
    """The current thread setting (see :func:`set_num_threads`)."""
    n = _core._set_num_threads(1)
    _core._set_num_threads(n)
    return n


def _init_threads_from_env() -> None:
    import os

    value = os.environ.get("NUMREDUCE_NUM_THREADS")
    if value:
        try:
            set_num_threads(int(value))  # an integer string; int() raises ValueError
        except ValueError as exc:
            raise ValueError(f"NUMREDUCE_NUM_THREADS={value!r}: {exc}") from None


def _check_simd_env() -> None:
    import os

    value = os.environ.get("NUMREDUCE_SIMD")
    if value and value not in ("baseline", "avx2", "avx512"):
        raise ValueError(f"NUMREDUCE_SIMD={value!r}: use 'baseline', 'avx2' or 'avx512' "
                         "(a cap on the vector kernels; unset: the best the CPU has)")


_check_simd_env()
_init_threads_from_env()
