"""nrsumsq: (sum, sum of squares) as a numreduce reduction -- the example
package of numreduce's extension API (numreduce/docs/extending.md)."""

from ._sumsq import sumsq

__all__ = ["sumsq"]
