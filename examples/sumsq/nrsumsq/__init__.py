"""nrsumsq: (sum, sum of squares) as a numreduce reduction, and the
weighted sums of two arrays (x, w) -- the example package of numreduce's
extension API (numreduce/docs/extending.md); absminmax, a reduction
without initial values whose lift is not the element itself."""

from ._sumsq import absminmax, sumsq, wsumsq

__all__ = ["sumsq", "wsumsq", "absminmax"]
