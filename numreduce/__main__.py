"""``python -m numreduce``: the package's main job for a newcomer.

Prints the active reduction path, NumPy version and SIMD level, runs a short
demo, then the benchmark table (numreduce vs ``np.min`` + ``np.max``).
``python -m numreduce --quick`` runs a shorter benchmark.
"""

from __future__ import annotations

import sys

import numpy as np

import numreduce as nr


def demo() -> None:
    a = np.array([3.0, 1.0, 4.0, 1.0, 5.0, 9.0, 2.0, 6.0])
    print(">>> a =", repr(a))
    print(">>> nr.minimummaximum(a, a[::-1])   # elementwise, a real np.ufunc")
    print(nr.minimummaximum(a, a[::-1]))
    print(">>> nr.reduce(nr.minimummaximum, a.reshape(2, 4), axis=1)")
    print(nr.reduce(nr.minimummaximum, a.reshape(2, 4), axis=1))
    print(">>> nr.minmax(a)")
    print(nr.minmax(a))
    print(">>> nr.minmax(np.array([1.0, np.nan, 3.0]))   # NaN propagates like np.min/np.max")
    print(nr.minmax(np.array([1.0, np.nan, 3.0])))
    if nr.HAVE_NATIVE_REDUCE:
        print(">>> nr.minimummaximum.reduce(a)   # native ufunc.reduce")
        print(nr.minimummaximum.reduce(a))
    else:
        print("(nr.minimummaximum.reduce(a) needs a NumPy with the multi-output reduction"
              " slots; nr.reduce works here)")


def main(argv: list[str]) -> int:
    from . import _bench

    print("numreduce configuration")
    nr.show_config()
    print()
    demo()
    print()
    _bench.bench_all(quick="--quick" in argv)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
