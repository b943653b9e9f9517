"""Calls the stubs must reject (tests/test_typing.py expects one mypy error
per line marked `# E`), so the typing test can fail."""

import numpy as np

import numreduce as nr

a = np.ones(4)
nr.minmax(a, axis="rows")  # E
nr.meanvar(a, ddof="1")  # E
nr.set_num_threads("2")  # E
nr.cumminmax(a, 0)  # E
nr.reduce_by_group(nr.moments, a, [0, 1, 0, 1], num_groups=2.5)  # E
x: int = nr.show_config()  # E
