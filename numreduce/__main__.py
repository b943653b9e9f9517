"""``python -m numreduce``: the package's main job for a newcomer.

Says in one paragraph what the package does, measures the headline rows
(minmax and meanvar against the NumPy calls they replace), runs a short demo
(with a short note on the reduce path this NumPy gets), then the benchmark
tables (numreduce vs the NumPy/SciPy calls users write today) and the
accuracy table, and ends with the full configuration
(``numreduce.show_config()``), the thread setting restored as it was.  Every
table row is printed as soon as it is measured.

    python -m numreduce [--quick]
    python -m numreduce bench [--quick] [--plot FILE.png] [--save FILE.json [--note TEXT]]
    python -m numreduce bench --peers [--quick]   # beside bottleneck / numbagg
    python -m numreduce bench --layouts [--quick] [--save FILE.json [--note TEXT]]
    python -m numreduce --help | bench --help
"""

from __future__ import annotations

import argparse
import contextlib
import sys

import numpy as np

import numreduce as nr


ABOUT = """\
numreduce {version}: several statistics from one pass over the data.
Where NumPy reads an array once or more per statistic, numreduce computes
them together: nr.minmax(a) gives np.min(a) and np.max(a), nr.meanvar(a)
gives np.mean(a) and np.var(a); logsumexp, a compensated sum (fsum),
covariance, grouped and running statistics too.  They follow NumPy's rules
(axis=, keepdims=, where=, NaN propagation) and take NumPy and Dask arrays,
and xarray and pandas objects through the .nr accessors.  Underneath are
real NumPy ufuncs with several outputs (nr.minimummaximum below)."""


def about() -> str:
    """What the package does, in one paragraph (the main job's first lines)."""
    return ABOUT.format(version=nr.__version__)


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
    print(path_note())


def path_note() -> str:
    """The reduce path of this NumPy, short (after the demo)."""
    if nr.HAVE_NATIVE_REDUCE:
        return (f"(NumPy {np.__version__}: `ufunc.reduce` works on the multi-output ufuncs "
                "here; `nr.reduce` gives the same results)")
    return (f"(On NumPy {np.__version__} `nr.minimummaximum.reduce(a)` raises: `ufunc.reduce` "
            "on multi-output\nufuncs arrives with NumPy 2.6; `nr.reduce` gives the same "
            "results here.)")


@contextlib.contextmanager
def one_thread_tables():
    """Time the tables at one thread, as NumPy's reductions run, unless the
    user chose a count (NUMREDUCE_NUM_THREADS); the rows that compare thread
    counts set their own.  Says so in one plain line, and restores the
    setting on the way out (the default stays the default: the
    configuration printed after says so)."""
    n, chosen, _ = nr._core._get_num_threads()
    if chosen:
        print(f"Timed with numreduce on {_threads(n)}, as NUMREDUCE_NUM_THREADS asks;\n"
              "NumPy's reductions run on one.")
        yield
        return
    nr.set_num_threads(1)
    print(f"Timed on one thread, as NumPy runs.  numreduce uses {_threads(n)} by default "
          "on large\narrays; set NUMREDUCE_NUM_THREADS to change it.")
    try:
        yield
    finally:
        nr._core._set_default_threads(n)  # the default again, not a choice


def _threads(n: int) -> str:
    return "1 thread" if n == 1 else f"{n} threads"


def bench(args: argparse.Namespace) -> int:
    from . import _bench

    if getattr(args, "peers", False):
        return bench_peers(args)
    if getattr(args, "layouts", False):
        return bench_layouts(args)

    print("numreduce performance targets (same-run ratios, min of repeats)")
    nr.show_config()
    with one_thread_tables():
        print()
        print(_bench.TARGET_HEAD)
        print("-" * len(_bench.TARGET_HEAD), flush=True)
        rows = _bench.target_rows(quick=args.quick,
                                  on_row=lambda row: print(_bench.target_line(row), flush=True))
    if args.save is not None:
        _bench.save_rows(rows, args.save, quick=args.quick, note=args.note)
        print(f"\nresults stored in {args.save}")
    if args.plot is not None:
        if _bench.plot_rows(rows, args.plot):
            print(f"\nplot written to {args.plot}")
        else:
            print("\n(matplotlib not installed: no plot)")
    return 0


def bench_peers(args: argparse.Namespace) -> int:
    from . import _bench_peers

    print("numreduce beside bottleneck, numbagg and NumPy/SciPy (same-run ratios, min of "
          "repeats; ratio > 1: numreduce faster)")
    nr.show_config()
    with one_thread_tables():
        print(f"peers: {_bench_peers.describe_peers()}")
        print()
        print(_bench_peers.PEER_HEAD)
        print("-" * len(_bench_peers.PEER_HEAD), flush=True)
        _bench_peers.peer_rows(quick=args.quick,
                               on_row=lambda row: print(_bench_peers.peer_line(row), flush=True))
    return 0


def bench_layouts(args: argparse.Namespace) -> int:
    from . import _bench_layouts as bl

    print("Every user function over ten memory layouts, float64 and float32, one thread "
          "(ratio: the reference's time over numreduce's, same run, min of repeats; "
          "> 1: numreduce faster)")
    nr.show_config()
    print()
    print(bl.LAYOUT_HEAD)
    print("-" * len(bl.LAYOUT_HEAD), flush=True)
    rows = bl.layout_rows(quick=args.quick, on_row=lambda row: print(bl.layout_line(row),
                                                                     flush=True))
    print()
    for line in bl.layout_summary(rows):
        print(line)
    if args.save is not None:
        bl.save_layout_rows(rows, args.save, quick=args.quick, note=args.note)
        print(f"\nresults stored in {args.save}")
    return 0


def job(args: argparse.Namespace) -> int:
    from . import _bench

    print(about())
    print()
    print("Measured now on this machine, min of repeats (speedup: NumPy's time over\n"
          "numreduce's; > 1: numreduce is faster).")
    with one_thread_tables():
        print(flush=True)
        headline = _bench.Headline(quick=args.quick)
        headline.rows(on_line=lambda line: print(line, flush=True))
        print("(every dtype and size, the other statistics and the accuracy: the tables "
              "below)\n")
        demo()
        print(flush=True)
        _bench.bench_all(quick=args.quick, headline=headline)
    print("\nnumreduce configuration (numreduce.show_config())")
    nr.show_config()
    return 0


def parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(
        prog="python -m numreduce",
        description="What numreduce does and its headline speedups (measured in the run), "
                    "a short demo, the benchmark tables (numreduce against the NumPy/SciPy "
                    "calls users write today), the accuracy table and numreduce's "
                    "configuration.  Rows are printed as they are measured.")
    p.add_argument("--quick", action="store_true",
                   help="smaller arrays and fewer repeats (about a third of the full "
                        "run's time)")
    p.set_defaults(func=job)
    sub = p.add_subparsers(title="commands", metavar="COMMAND")
    b = sub.add_parser(
        "bench", help="the performance-targets table (numreduce vs the reference, same run)",
        description="Measure every performance target (numreduce against the NumPy/SciPy "
                    "call, in the same run) and print each row with its status as soon as "
                    "it is measured.")
    b.add_argument("--quick", action="store_true", help="smaller arrays and fewer repeats")
    b.add_argument("--plot", metavar="FILE", default=None,
                   help="also write a plot of the ratios to FILE: the speed-ups and the "
                        "times relative to the reference in two panels, each with its "
                        "targets (needs matplotlib)")
    b.add_argument("--save", metavar="FILE.json", default=None,
                   help="also store the rows, the configuration and the date as JSON "
                        "(the docs site plots docs/_data/bench-targets.json)")
    b.add_argument("--note", default="",
                   help="with --save: a note stored with the run (machine state, load)")
    b.add_argument("--peers", action="store_true",
                   help="instead: numreduce beside bottleneck and numbagg (where installed) "
                        "and NumPy/SciPy, small and 2-D arrays, each row with its target")
    b.add_argument("--layouts", action="store_true",
                   help="instead: every user function over ten memory layouts (1-D, C and "
                        "F order along each axis, 3-D, strided, wide, tall), float64 and "
                        "float32, one thread, against the call it replaces")
    b.set_defaults(func=bench)
    return p


def main(argv: list[str] | None = None) -> int:
    p = parser()
    args = p.parse_args(argv)
    if getattr(args, "layouts", False) and (args.peers or args.plot is not None):
        p.error("bench --layouts takes neither --peers nor --plot")
    return args.func(args)


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
