"""minmax benchmark: numreduce.minmax vs np.min + np.max and np.max alone.

Run from the repository root with the package installed:

    python -P benchmarks/bench_minmax.py [--quick]

float32/float64/int32/int64 at 1e3, 1e5, 1e7 elements, both contenders timed
in the same process, min of repeats.  Prints ratios; asserts nothing.
"""

import sys

from numreduce import _bench

if __name__ == "__main__":
    _bench.main(quick="--quick" in sys.argv[1:])
