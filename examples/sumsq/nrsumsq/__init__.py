"""nrsumsq: (sum, sum of squares) as a numreduce reduction, and the
weighted sums of two arrays (x, w) -- the example package of numreduce's
extension API (numreduce/docs/extending.md)."""

from ._sumsq import sumsq, wsumsq

__all__ = ["sumsq", "wsumsq"]
