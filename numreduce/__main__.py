"""``python -m numreduce``: the package's main job for a newcomer.

Prints the active reduction path, NumPy version and SIMD level, runs a short
demo, then the benchmark tables (numreduce vs the NumPy/SciPy calls users
write today) and the accuracy table.

    python -m numreduce [--quick]
    python -m numreduce bench [--quick] [--plot FILE.png]   # the targets table
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


def bench(argv: list[str]) -> int:
    from . import _bench

    quick = "--quick" in argv
    print("numreduce performance targets (same-run ratios, min of repeats)")
    nr.show_config()
    print()
    rows = _bench.target_rows(quick=quick)
    print(_bench.target_table(rows))
    if "--plot" in argv:
        path = argv[argv.index("--plot") + 1] if argv.index("--plot") + 1 < len(argv) else \
            "numreduce-bench.png"
        if _bench.plot_rows(rows, path):
            print(f"\nplot written to {path}")
        else:
            print("\n(matplotlib not installed: no plot)")
    return 0


def main(argv: list[str]) -> int:
    from . import _bench

    if argv and argv[0] == "bench":
        return bench(argv[1:])
    print("numreduce configuration")
    nr.show_config()
    print()
    demo()
    print()
    _bench.bench_all(quick="--quick" in argv)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
