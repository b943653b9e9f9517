"""numreduce beside bottleneck and numbagg (where installed) and NumPy/SciPy:
small 1-D arrays against the peers' single-output call, 2-D arrays along
each axis against the fastest peer pair, large arrays against the general
path (no slower).  Prints each row's ratio, its target and ok/MISS; asserts
nothing.

Run from the repository root with the package installed:

    python -P benchmarks/bench_peers.py [--quick]

(the same as ``python -P -m numreduce bench --peers``).
"""

import sys

from numreduce.__main__ import main

if __name__ == "__main__":
    sys.exit(main(["bench", "--peers", *sys.argv[1:]]))
