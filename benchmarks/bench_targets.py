"""Every performance target side by side: numreduce against the NumPy/SciPy
call a user would otherwise write, in the same process run (the contenders'
batches interleaved, minimum over repeats).  Prints each row's ratio, its
target and ok/MISS; asserts nothing.

Run from the repository root with the package installed:

    python -P benchmarks/bench_targets.py [--quick] [--plot FILE.png]

(the same as ``python -P -m numreduce bench``).
"""

import sys

from numreduce.__main__ import main

if __name__ == "__main__":
    sys.exit(main(["bench", *sys.argv[1:]]))
