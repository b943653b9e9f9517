"""Introspection: which reduction path is active and why."""

from __future__ import annotations

import platform
import sys

import numpy as np

from . import _core, _threadpool
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
        **_core._kernel_policy(),
        "native_reduce": HAVE_NATIVE_REDUCE,
        "native_reason": native_reason(),
        "reduce_path": "native ufunc.reduce + engine" if HAVE_NATIVE_REDUCE else "engine",
        "threads": get_num_threads(),
        "threads_source": ("set by the user (Dask tasks too)" if threads_chosen()
                           else "default: the usable cores (1 per Dask task)"),
        "compiler": _core._BUILD_COMPILER,
        "npy_target_version": hex(_core._BUILD_NPY_TARGET_VERSION),
        "c_api": "%d.%d" % divmod(int(_core._C_API_VERSION), 1000),
        "registered_ufuncs": ", ".join(u.__name__ for u in _core._MULTI_OUTPUT),
    }
    if not HAVE_NATIVE_REDUCE:
        facts["native_hint"] = NATIVE_HINT
    return facts


def native_reason() -> str:
    """Why ``ufunc.reduce`` is or is not native, in plain words: a NumPy
    that refuses the slots (every released NumPy) is said so; anything else
    the import-time probe found (a wrong answer, an error) is given as it
    came."""
    reason = _core._NATIVE_REASON
    if not HAVE_NATIVE_REDUCE and reason.startswith("NumPy rejects the reduction-loop slot"):
        return ("this NumPy has no multi-output reduction slots (NumPy >= 2.6 dev has "
                "them); numreduce uses its engine")
    return reason


NATIVE_HINT = ("minimummaximum.reduce(...) raises on this NumPy; "
               "use numreduce.reduce(minimummaximum, ...)")


def show_config() -> None:
    """Print numreduce's build and run-time configuration.

    One ``key: value`` line each: the versions of numreduce, NumPy and
    Python, the SIMD kernels in use and what was chosen for this CPU
    (``cpu``; ``stream_kernels``: the vector width of the kernels that
    stream memory -- the min/max family, the axis-0 row streams -- and why;
    ``prefetch``: their software prefetch and why; ``row_layout``: which
    axis-0 rows stream whole, by the L1 data cache and the L2; ``arg_rows``:
    which rows ``argminmax`` takes in one pass, and at which width (rows side
    by side, a reduction over a leading axis, are stepped together in lanes);
    ``short_blocks``: the width of short moments blocks and TwoSum streams
    under AVX-512, and how many rows ``fsum`` along the last axis steps at
    a time), the thread setting, and whether
    ``ufunc.reduce`` works natively on this NumPy (``native_reduce``,
    ``reduce_path``) and why.  Without the native path a ``native_hint``
    line says what to call instead: ``nr.minimummaximum.reduce(a)`` raises
    NumPy's ``ValueError: reduce only supported for functions returning a
    single value``, and ``nr.reduce(nr.minimummaximum, a)`` gives the result.

    Returns
    -------
    None
        The configuration is printed.

    See Also
    --------
    numpy.show_config : NumPy's own configuration.
    HAVE_NATIVE_REDUCE : whether ``ufunc.reduce`` works natively.
    get_num_threads : the thread setting.

    Examples
    --------
    >>> import numreduce as nr
    >>> nr.show_config()                    # doctest: +ELLIPSIS
               numreduce: ...
           native_reduce: ...
    ...
    """
    for key, value in config().items():
        print(f"{key:>20}: {value}")


def set_num_threads(n: int) -> int:
    """Use up to ``n`` threads for large reductions; returns the previous
    setting.

    Parameters
    ----------
    n : int
        The number of threads, 1 to 1024.

    Returns
    -------
    int
        The previous setting.

    Raises
    ------
    TypeError
        ``n`` is not an integer (a float, a str or a bool).
    ValueError
        ``n`` is outside 1..1024.

    See Also
    --------
    get_num_threads : the current setting.
    threadpoolctl.threadpool_limits : limits numreduce's threads too.

    Notes
    -----
    The default is the number of usable cores (CPU affinity and cgroup CPU
    quota included), or the environment variable ``NUMREDUCE_NUM_THREADS`` at
    import.  Threads are used for whole-array reductions of more than
    ``2**21`` elements, long grouped reductions, ``accumulate`` over a
    non-leading axis, and ``reduceat`` / ``segmented_reduce``.  The work is cut
    into pieces that do not depend on ``n``, so **the result is bitwise the
    same for any thread count**.  Inside the tasks of numreduce's Dask backend
    a call takes one thread unless the count was chosen with this function or
    the environment variable.

    Examples
    --------
    >>> import numreduce as nr
    >>> old = nr.set_num_threads(2)
    >>> nr.get_num_threads()
    2
    >>> _ = nr.set_num_threads(old)          # restore the previous setting
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
    """The current thread setting.

    Returns
    -------
    int
        The most threads a large reduction uses.

    See Also
    --------
    set_num_threads : change it.
    show_config : the whole configuration.

    Examples
    --------
    >>> import numreduce as nr
    >>> nr.get_num_threads() >= 1
    True
    """
    return _core._get_num_threads()[0]


def threads_chosen() -> bool:
    """Whether the user chose the thread count (``set_num_threads`` or
    ``NUMREDUCE_NUM_THREADS``) rather than the default."""
    return bool(_core._get_num_threads()[1])


def _cgroup_cpu_limit() -> int | None:
    """The cgroup v2 CPU quota of this process (``cpu.max``: quota and
    period, rounded up), or None where there is none or it cannot be read."""
    import math

    try:
        with open("/proc/self/cgroup") as f:
            path = next((line.strip()[3:] for line in f if line.startswith("0::")), None)
    except OSError:
        return None
    if path is None:
        return None
    for folder in (path, "/"):  # the process's cgroup; in a container, its root
        try:
            with open(f"/sys/fs/cgroup{folder.rstrip('/')}/cpu.max") as f:
                quota, period = f.read().split()[:2]
        except (OSError, ValueError):
            continue
        if quota == "max":
            return None
        try:
            return max(1, math.ceil(int(quota) / int(period)))
        except (ValueError, ZeroDivisionError):
            return None
    return None


def usable_cpus() -> int:
    """The cores this process may use: ``os.process_cpu_count()`` (Python
    3.13), else the CPU affinity (``os.sched_getaffinity``), else
    ``os.cpu_count()``; no more than a cgroup v2 CPU quota allows."""
    import os

    n = None
    if hasattr(os, "process_cpu_count"):
        n = os.process_cpu_count()
    elif hasattr(os, "sched_getaffinity"):
        try:
            n = len(os.sched_getaffinity(0))
        except OSError:
            n = None
    if not n:
        n = os.cpu_count() or 1
    limit = _cgroup_cpu_limit()
    if limit is not None:
        n = min(n, limit)
    return max(1, min(int(n), 1024))


def reset_num_threads() -> int:
    """Back to the default count (:func:`usable_cpus`, not the user's
    choice); returns the previous count."""
    return _core._set_default_threads(usable_cpus())


def _init_threads_from_env() -> None:
    import os

    value = os.environ.get("NUMREDUCE_NUM_THREADS")
    if value:
        try:
            set_num_threads(int(value))  # an integer string; int() raises ValueError
        except ValueError as exc:
            raise ValueError(f"NUMREDUCE_NUM_THREADS={value!r}: {exc}") from None
    else:
        reset_num_threads()


def dask_task(fn):
    """``fn`` as a task function of numreduce's Dask backend: while it runs,
    numreduce's calls on its thread take one thread unless the user chose
    the count (Dask runs one task per thread or process already)."""
    import functools

    @functools.wraps(fn)
    def task(*args, **kwargs):
        previous = _core._task_mode(True)
        try:
            return fn(*args, **kwargs)
        finally:
            _core._task_mode(previous)

    return task


def _check_simd_env() -> None:
    import os

    value = os.environ.get("NUMREDUCE_SIMD")
    if value and value not in ("baseline", "avx2", "avx512"):
        raise ValueError(f"NUMREDUCE_SIMD={value!r}: use 'baseline', 'avx2' or 'avx512' "
                         "(a cap on the vector kernels; unset: the best the CPU has)")
    value = os.environ.get("NUMREDUCE_STREAM_WIDTH")
    if value and value not in ("auto", "16", "32", "64"):
        raise ValueError(f"NUMREDUCE_STREAM_WIDTH={value!r}: use '16', '32', '64' or 'auto' "
                         "(the vector bytes of the memory-streaming kernels, at most "
                         "NUMREDUCE_SIMD's; auto or unset: chosen by the CPU)")
    value = os.environ.get("NUMREDUCE_PREFETCH")
    if value and value not in ("auto", "on", "off"):
        raise ValueError(f"NUMREDUCE_PREFETCH={value!r}: use 'on', 'off' or 'auto' "
                         "(software prefetch in the streaming kernels; auto or unset: "
                         "chosen by the CPU)")
    value = os.environ.get("NUMREDUCE_ROWS_AT_ONCE")
    if value and value not in ("auto", "1", "2"):
        raise ValueError(f"NUMREDUCE_ROWS_AT_ONCE={value!r}: use '1', '2' or 'auto' "
                         "(the rows fsum along the last axis steps at a time; auto or unset: "
                         "chosen by the CPU)")


_check_simd_env()
_init_threads_from_env()
_threadpool.install()
