// The registration table and the registry.  Adding a reduction = one traits
// header, one row in table() with its loops in a table_loops_*.cpp (declared
// in table_loops.hpp), its tests.  The rows are registered through
// register_spec, the function numreduce's C API exports to other extension
// modules (extension.hpp), so numreduce's own ufuncs and third-party ones
// take one route.
#include "ufuncs.hpp"

#include <cstring>
#include <deque>
#include <set>

#include "extension.hpp"
#include "table_loops.hpp"

namespace nr {
namespace {

std::vector<UFuncDef> &table() {
    static std::vector<UFuncDef> t = {
        {"minimummaximum",
         "minimummaximum(x1, x2, /, out=(None, None), *, where=True, ...)\n"
         "\n"
         "Element-wise minimum and maximum of two arrays, NaN-propagating:\n"
         "``(np.minimum(x1, x2), np.maximum(x1, x2))`` in one call.\n"
         "\n"
         "Parameters\n"
         "----------\n"
         "x1, x2 : array_like\n"
         "    Broadcast together.  bool, integer, float, complex (ordered\n"
         "    lexicographically), datetime64 and timedelta64 data (NaT propagates\n"
         "    like NaN); mixed dtypes promote as ``np.minimum`` promotes them.\n"
         "out : tuple of two ndarrays (or None entries), optional\n"
         "    Arrays for the minimum and the maximum.\n"
         "where : array_like of bool, optional\n"
         "    Where False, the output keeps its value.\n"
         "**kwargs\n"
         "    ``casting``, ``dtype``, ``order``, ... as for every ``np.ufunc``.\n"
         "\n"
         "Returns\n"
         "-------\n"
         "minimum, maximum : ndarray or scalar\n"
         "\n"
         "See Also\n"
         "--------\n"
         "numpy.minimum, numpy.maximum : the two ufuncs this combines.\n"
         "fminfmax : NaN-skipping.\n"
         "minmax : the reduction, ``(np.min(a), np.max(a))`` in one pass.\n"
         "reduce : the reduction on every NumPy 2.x.\n"
         "\n"
         "Notes\n"
         "-----\n"
         "``nr.reduce(nr.minimummaximum, a, axis)`` (every NumPy 2.x) and\n"
         "``nr.minimummaximum.reduce(a, axis)`` (where ``nr.HAVE_NATIVE_REDUCE``)\n"
         "return ``(a.min(axis), a.max(axis))`` in one pass; ``accumulate``,\n"
         "``reduceat``, ``at`` and ``outer`` work too.\n"
         "\n"
         "Examples\n"
         "--------\n"
         ">>> import numpy as np, numreduce as nr\n"
         ">>> nr.minimummaximum(np.array([1., np.nan, 3.]), np.array([2., 0., 1.]))\n"
         "(array([ 1., nan,  1.]), array([ 2., nan,  3.]))\n"
         ">>> nr.reduce(nr.minimummaximum, np.array([3., 1., 4., 1., 5.]))\n"
         "(np.float64(1.0), np.float64(5.0))",
         2, minimummaximum_loops(), nullptr},
        {"fminfmax",
         "fminfmax(x1, x2, /, out=(None, None), *, where=True, ...)\n"
         "\n"
         "Element-wise minimum and maximum of two arrays, NaN-skipping:\n"
         "``(np.fmin(x1, x2), np.fmax(x1, x2))`` in one call.\n"
         "\n"
         "Parameters\n"
         "----------\n"
         "x1, x2 : array_like\n"
         "    Broadcast together; the dtypes of :data:`minimummaximum`.  A NaN (NaT)\n"
         "    is ignored where the other operand is a number.\n"
         "out : tuple of two ndarrays (or None entries), optional\n"
         "where : array_like of bool, optional\n"
         "\n"
         "Returns\n"
         "-------\n"
         "fmin, fmax : ndarray or scalar\n"
         "\n"
         "See Also\n"
         "--------\n"
         "numpy.fmin, numpy.fmax : the two ufuncs this combines.\n"
         "minimummaximum : NaN-propagating.\n"
         "nanminmax : the reduction, ``(np.nanmin(a), np.nanmax(a))`` in one pass.\n"
         "\n"
         "Examples\n"
         "--------\n"
         ">>> import numpy as np, numreduce as nr\n"
         ">>> nr.fminfmax(np.array([1., np.nan, 3.]), np.array([2., 0., 1.]))\n"
         "(array([1., 0., 1.]), array([2., 0., 3.]))\n"
         ">>> nr.reduce(nr.fminfmax, np.array([np.nan, 2., 1.]))\n"
         "(np.float64(1.0), np.float64(2.0))",
         2, fminfmax_loops(), nullptr},
        {"moments",
         "moments(x1, x2, /, out=(None, None, None), *, where=True, ...)\n"
         "\n"
         "Count, mean and M2 (the sum of squared deviations from the mean) of the\n"
         "pair ``(x1, x2)``; its reduction gives them for a whole axis in one pass.\n"
         "\n"
         "Parameters\n"
         "----------\n"
         "x1, x2 : array_like\n"
         "    bool, integer or float data, broadcast together.\n"
         "out : tuple of three ndarrays (or None entries), optional\n"
         "where : array_like of bool, optional\n"
         "\n"
         "Returns\n"
         "-------\n"
         "count, mean, M2 : ndarray or scalar\n"
         "    float64 for bool, integer, float16 and float32 data; float64 and\n"
         "    long double keep their dtype.  The variance is ``M2 / (count - ddof)``.\n"
         "\n"
         "See Also\n"
         "--------\n"
         "meanvar : ``(np.mean(a), np.var(a))`` from this reduction.\n"
         "nanmoments : NaN-skipping.\n"
         "merge : combine the moments of two parts (Chan's update).\n"
         "\n"
         "Notes\n"
         "-----\n"
         "The reduction starts from ``(0, 0, 0)``, so an empty reduction is valid\n"
         "(count 0).\n"
         "\n"
         "Examples\n"
         "--------\n"
         ">>> import numpy as np, numreduce as nr\n"
         ">>> nr.reduce(nr.moments, np.array([3., 1., 4., 1., 5.]))\n"
         "(np.float64(5.0), np.float64(2.8), np.float64(12.8))\n"
         ">>> nr.moments(np.array([1., 2.]), np.array([3., 2.]))\n"
         "(array([2., 2.]), array([2., 2.]), array([2., 0.]))",
         3, moments_loops(), nullptr},
        {"nanmoments",
         "nanmoments(x1, x2, /, out=(None, None, None), *, where=True, ...)\n"
         "\n"
         "Like :data:`moments`, but NaN elements are skipped (not counted).\n"
         "\n"
         "Parameters\n"
         "----------\n"
         "x1, x2 : array_like\n"
         "    Float data, broadcast together.\n"
         "out : tuple of three ndarrays (or None entries), optional\n"
         "where : array_like of bool, optional\n"
         "\n"
         "Returns\n"
         "-------\n"
         "count, mean, M2 : ndarray or scalar\n"
         "\n"
         "See Also\n"
         "--------\n"
         "moments : NaN-propagating.\n"
         "nanmeanvar : ``(np.nanmean(a), np.nanvar(a))`` from this reduction.\n"
         "\n"
         "Examples\n"
         "--------\n"
         ">>> import numpy as np, numreduce as nr\n"
         ">>> nr.reduce(nr.nanmoments, np.array([1., np.nan, 3.]))\n"
         "(np.float64(2.0), np.float64(2.0), np.float64(2.0))",
         3, nanmoments_loops(), nullptr},
        {"summary",
         "summary(x1, x2, /, out=(None,) * 8, *, where=True, ...)\n"
         "\n"
         "The summary of the pair ``(x1, x2)``: count, min, max, the mean as ``K + m``\n"
         "(K an origin, a value of the data) and the central moments ``M2, M3, M4``\n"
         "(``M_k = sum((x - mean)**k)``); its reduction gives them for a whole axis in\n"
         "one pass, and two summaries merge exactly (Pebay's update).\n"
         "\n"
         "Parameters\n"
         "----------\n"
         "x1, x2 : array_like\n"
         "    bool, integer or float data, broadcast together.\n"
         "out : tuple of eight ndarrays (or None entries), optional\n"
         "where : array_like of bool, optional\n"
         "\n"
         "Returns\n"
         "-------\n"
         "count, min, max, K, m, M2, M3, M4 : ndarray or scalar\n"
         "    float64 for bool, integer, float16 and float32 data; float64 and\n"
         "    long double keep their dtype.  The mean is ``K + m``; the variance\n"
         "    ``M2 / (count - ddof)``.  A NaN makes min, max, the mean and the\n"
         "    moments NaN.\n"
         "\n"
         "See Also\n"
         "--------\n"
         "describe : ``scipy.stats.describe`` from this reduction.\n"
         "skew, kurtosis : the standardised third and fourth moments.\n"
         "nansummary : NaN-skipping.\n"
         "\n"
         "Notes\n"
         "-----\n"
         "The reduction starts from the empty summary (count 0, min and max NaN),\n"
         "so an empty reduction is valid.\n"
         "\n"
         "Examples\n"
         "--------\n"
         ">>> import numpy as np, numreduce as nr\n"
         ">>> n, lo, hi, K, m, M2, M3, M4 = nr.reduce(nr.summary, np.array([1., 2., 4.]))\n"
         ">>> float(n), float(lo), float(hi), float(K + m), float(M2)\n"
         "(3.0, 1.0, 4.0, 2.333333333333333, 4.666666666666667)",
         8, summary_loops(), nullptr},
        {"nansummary",
         "nansummary(x1, x2, /, out=(None,) * 8, *, where=True, ...)\n"
         "\n"
         "Like :data:`summary`, but NaN elements are skipped (not counted).\n"
         "\n"
         "Parameters\n"
         "----------\n"
         "x1, x2 : array_like\n"
         "    Float data, broadcast together.\n"
         "out : tuple of eight ndarrays (or None entries), optional\n"
         "where : array_like of bool, optional\n"
         "\n"
         "Returns\n"
         "-------\n"
         "count, min, max, K, m, M2, M3, M4 : ndarray or scalar\n"
         "\n"
         "See Also\n"
         "--------\n"
         "summary : NaN-propagating.\n"
         "describe : with ``nan_policy='omit'``, from this reduction.\n"
         "\n"
         "Examples\n"
         "--------\n"
         ">>> import numpy as np, numreduce as nr\n"
         ">>> n, lo, hi, K, m, M2, M3, M4 = nr.reduce(nr.nansummary, np.array([1., np.nan, 3.]))\n"
         ">>> float(n), float(lo), float(hi), float(K + m)\n"
         "(2.0, 1.0, 3.0, 2.0)",
         8, nansummary_loops(), nullptr},
        {"maxsumexp",
         "maxsumexp(x1, x2, /, out=(None, None), *, where=True, ...)\n"
         "\n"
         "The state of ``log(sum(exp(x)))``: the maximum ``m`` and ``t``, the sum of\n"
         "``exp(x - m)`` less the maximum's own 1.  ``m + log1p(t)`` is the\n"
         "log-sum-exp, without overflow and exact near 0.\n"
         "\n"
         "Parameters\n"
         "----------\n"
         "x1, x2 : array_like\n"
         "    Real data, broadcast together.\n"
         "out : tuple of two ndarrays (or None entries), optional\n"
         "where : array_like of bool, optional\n"
         "\n"
         "Returns\n"
         "-------\n"
         "m, t : ndarray or scalar\n"
         "    For the pair: ``m = max(x1, x2)``, ``t = exp(min - max)``.  float64\n"
         "    (long double for long double).\n"
         "\n"
         "See Also\n"
         "--------\n"
         "logsumexp : the log-sum-exp from this reduction.\n"
         "numpy.logaddexp : the log-sum-exp of two values.\n"
         "\n"
         "Notes\n"
         "-----\n"
         "The reduction starts from ``(-inf, -1)``, the state of an empty sum; NaN\n"
         "propagates in ``m`` and makes ``t`` NaN.\n"
         "\n"
         "Examples\n"
         "--------\n"
         ">>> import numpy as np, numreduce as nr\n"
         ">>> m, t = nr.reduce(nr.maxsumexp, np.array([1000., 1000.]))\n"
         ">>> float(m), float(t), float(m + np.log1p(t))\n"
         "(1000.0, 1.0, 1000.6931471805599)",
         2, maxsumexp_loops(), nullptr},
        {"twosum",
         "twosum(x1, x2, /, out=(None, None), *, where=True, ...)\n"
         "\n"
         "Error-free sum: ``s = x1 + x2`` rounded, and the rounding error ``e``, so\n"
         "that ``s + e == x1 + x2`` exactly (``e = 0`` where ``s`` is not finite).\n"
         "Its reduction is a compensated sum.\n"
         "\n"
         "Parameters\n"
         "----------\n"
         "x1, x2 : array_like\n"
         "    bool, integer or float data, broadcast together.\n"
         "out : tuple of two ndarrays (or None entries), optional\n"
         "where : array_like of bool, optional\n"
         "\n"
         "Returns\n"
         "-------\n"
         "s, e : ndarray or scalar\n"
         "    float64 for bool and integers, float32 for float16.\n"
         "\n"
         "See Also\n"
         "--------\n"
         "fsum : the compensated sum ``s + e`` from this reduction.\n"
         "math.fsum : the exactly rounded sum of a Python sequence.\n"
         "\n"
         "Examples\n"
         "--------\n"
         ">>> import numpy as np, numreduce as nr\n"
         ">>> nr.twosum(np.array([1e16]), np.array([1.]))\n"
         "(array([1.e+16]), array([1.]))\n"
         ">>> s, e = nr.reduce(nr.twosum, np.array([1e16, 1., -1e16]))\n"
         ">>> float(s), float(e)\n"
         "(0.0, 1.0)",
         2, twosum_loops(), nullptr},
        // Internal (not exported by numreduce): the fused map of
        // numreduce.mapreduce(np.square, fsum, x) -- twosum over the rounded
        // squares, read from x itself.
        {"sqtwosum",
         "sqtwosum(x1, x2, /, out=(None, None), *, where=True, ...)\n"
         "\n"
         "Error-free sum of two squares: ``s = fl(x1**2) + fl(x2**2)`` rounded, each\n"
         "square rounded as ``np.square`` rounds it, and the rounding error ``e`` of\n"
         "the sum (``e = 0`` where ``s`` is not finite).  Its reduction is the\n"
         "compensated sum of the rounded squares: the :data:`twosum` states of\n"
         "``np.square(x)``, bit for bit, without the array of squares.\n"
         "``numreduce.mapreduce(np.square, fsum, x)`` reduces float32 and float64\n"
         "data with it; numreduce does not export it.\n"
         "\n"
         "Parameters\n"
         "----------\n"
         "x1, x2 : array_like\n"
         "    float32 or float64 data, broadcast together.\n"
         "out : tuple of two ndarrays (or None entries), optional\n"
         "where : array_like of bool, optional\n"
         "\n"
         "Returns\n"
         "-------\n"
         "s, e : ndarray or scalar\n"
         "\n"
         "Examples\n"
         "--------\n"
         ">>> import numpy as np, numreduce as nr\n"
         ">>> x = np.array([1e8, 1., -1e8])\n"
         ">>> s, e = nr.reduce(nr._core.sqtwosum, x)\n"
         ">>> bool(s == np.square(x).sum() and e == 1.)\n"
         "True",
         2, sqtwosum_loops(), nullptr},
        // Reductions of two sources: ufuncs of two inputs whose call gives
        // the state of one element; numreduce.reduce(u, (x, y), ...).
        {"wmoments",
         "wmoments(x, w, /, out=(None,) * 4, *, where=True, ...)\n"
         "\n"
         "State of the weighted moments of one element: ``(W, K, m, M2)``.  Its\n"
         "reduction ``nr.reduce(wmoments, (x, w), axis)`` gives, in one pass over\n"
         "both arrays, the weight sum ``W``, the weighted mean ``K + m`` and\n"
         "``M2 = sum(w * (x - mean)**2)``.\n"
         "\n"
         "Parameters\n"
         "----------\n"
         "x : array_like\n"
         "    float32 or float64 data.\n"
         "w : array_like\n"
         "    Non-negative frequency weights, broadcast against ``x``.\n"
         "out : tuple of four ndarrays (or None entries), optional\n"
         "where : array_like of bool, optional\n"
         "\n"
         "Returns\n"
         "-------\n"
         "W, K, m, M2 : ndarray or scalar\n"
         "    For one element: ``(w, x, 0, 0)`` (all 0 where ``w == 0``).  ``K`` is\n"
         "    an origin (the first ``x`` with a weight); the mean is ``K + m`` and\n"
         "    the variance ``M2 / (W - ddof)``.  float64.\n"
         "\n"
         "See Also\n"
         "--------\n"
         "meanvar : with ``weights=``, the mean and variance from this reduction.\n"
         "numpy.average : the weighted mean.\n"
         "nanwmoments : NaN-skipping.\n"
         "\n"
         "Examples\n"
         "--------\n"
         ">>> import numpy as np, numreduce as nr\n"
         ">>> W, K, m, M2 = nr.reduce(nr.wmoments, (np.array([1., 2., 4.]), np.array([1., 0., 3.])))\n"
         ">>> float(W), float(K + m), float(M2 / W)\n"
         "(4.0, 3.25, 1.6875)",
         4, wmoments_loops(), nullptr},
        {"nanwmoments",
         "nanwmoments(x, w, /, out=(None,) * 4, *, where=True, ...)\n"
         "\n"
         "Like :data:`wmoments`, but an element whose ``x`` is NaN is dropped with\n"
         "its weight.\n"
         "\n"
         "Parameters\n"
         "----------\n"
         "x : array_like\n"
         "    float32 or float64 data.\n"
         "w : array_like\n"
         "    Non-negative frequency weights, broadcast against ``x``.\n"
         "out : tuple of four ndarrays (or None entries), optional\n"
         "where : array_like of bool, optional\n"
         "\n"
         "Returns\n"
         "-------\n"
         "W, K, m, M2 : ndarray or scalar\n"
         "\n"
         "See Also\n"
         "--------\n"
         "wmoments : NaN-propagating.\n"
         "nanmeanvar : with ``weights=``, from this reduction.\n"
         "\n"
         "Examples\n"
         "--------\n"
         ">>> import numpy as np, numreduce as nr\n"
         ">>> W, K, m, M2 = nr.reduce(nr.nanwmoments, (np.array([1., np.nan, 4.]), np.array([1., 5., 3.])))\n"
         ">>> float(W), float(K + m)\n"
         "(4.0, 3.25)",
         4, nanwmoments_loops(), nullptr},
        {"wsummary",
         "wsummary(x, w, /, out=(None,) * 8, *, where=True, ...)\n"
         "\n"
         "The summary of :data:`summary` with frequency weights: ``(W, min, max, K, m,\n"
         "M2, M3, M4)`` with the weight sum ``W`` as the count, the mean ``K + m`` and\n"
         "``M_k = sum(w (x - mean)**k)``.  Its reduction ``nr.reduce(wsummary, (x, w),\n"
         "axis)`` gives them in one pass over both arrays; integer weights give the\n"
         "summary of ``np.repeat(x, w)``.\n"
         "\n"
         "Parameters\n"
         "----------\n"
         "x, w : array_like\n"
         "    Data and non-negative weights (float32, float64 or long double\n"
         "    sources; numreduce's functions convert others to float64).  An\n"
         "    element of weight 0 is no element (no part in min and max).\n"
         "out : tuple of eight ndarrays (or None entries), optional\n"
         "where : array_like of bool, optional\n"
         "\n"
         "Returns\n"
         "-------\n"
         "W, min, max, K, m, M2, M3, M4 : ndarray or scalar\n"
         "\n"
         "See Also\n"
         "--------\n"
         "describe : with ``weights=``, from this reduction.\n"
         "summary : without weights.\n"
         "nanwsummary : NaN-skipping.\n"
         "\n"
         "Examples\n"
         "--------\n"
         ">>> import numpy as np, numreduce as nr\n"
         ">>> W, lo, hi, K, m, M2, M3, M4 = nr.reduce(nr.wsummary, (np.array([1., 2., 4.]), np.array([2., 0., 1.])))\n"
         ">>> float(W), float(lo), float(hi), float(K + m), float(M2)\n"
         "(3.0, 1.0, 4.0, 2.0, 6.0)",
         8, wsummary_loops(), nullptr},
        {"nanwsummary",
         "nanwsummary(x, w, /, out=(None,) * 8, *, where=True, ...)\n"
         "\n"
         "Like :data:`wsummary`, but an element whose ``x`` is NaN is dropped with\n"
         "its weight.\n"
         "\n"
         "Parameters\n"
         "----------\n"
         "x, w : array_like\n"
         "    Data and non-negative weights.\n"
         "out : tuple of eight ndarrays (or None entries), optional\n"
         "where : array_like of bool, optional\n"
         "\n"
         "Returns\n"
         "-------\n"
         "W, min, max, K, m, M2, M3, M4 : ndarray or scalar\n"
         "\n"
         "See Also\n"
         "--------\n"
         "wsummary : NaN-propagating.\n"
         "\n"
         "Examples\n"
         "--------\n"
         ">>> import numpy as np, numreduce as nr\n"
         ">>> W, lo, hi, K, m, M2, M3, M4 = nr.reduce(nr.nanwsummary, (np.array([1., np.nan, 4.]), np.array([2., 5., 1.])))\n"
         ">>> float(W), float(lo), float(hi), float(K + m)\n"
         "(3.0, 1.0, 4.0, 2.0)",
         8, nanwsummary_loops(), nullptr},
        {"comoments",
         "comoments(x, y, /, out=(None,) * 8, *, where=True, ...)\n"
         "\n"
         "State of the co-moments of one pair ``(x, y)``: ``(n, Kx, Ky, mx, my, Mxx,\n"
         "Myy, Cxy)``.  Its reduction ``nr.reduce(comoments, (x, y), axis)`` gives,\n"
         "in one pass over both arrays, the count, the means ``Kx + mx`` and\n"
         "``Ky + my``, and the sums of squared (``Mxx``, ``Myy``) and crossed\n"
         "(``Cxy``) deviations from the means.\n"
         "\n"
         "Parameters\n"
         "----------\n"
         "x, y : array_like\n"
         "    float32 or float64 data, broadcast together.\n"
         "out : tuple of eight ndarrays (or None entries), optional\n"
         "where : array_like of bool, optional\n"
         "\n"
         "Returns\n"
         "-------\n"
         "n, Kx, Ky, mx, my, Mxx, Myy, Cxy : ndarray or scalar\n"
         "    For one pair: ``(1, x, y, 0, 0, 0, 0, 0)``; ``Kx``, ``Ky`` are an\n"
         "    origin (the first pair).  float64.  The covariance is\n"
         "    ``Cxy / (n - ddof)``, the correlation ``Cxy / sqrt(Mxx * Myy)``.  A\n"
         "    pair with a NaN or inf makes ``Mxx``, ``Myy`` and ``Cxy`` all NaN (the\n"
         "    state describes pairs, not each array apart: ``np.var(y)`` of the\n"
         "    finite ``y`` beside a NaN ``x`` is not ``Myy / n`` then).\n"
         "\n"
         "See Also\n"
         "--------\n"
         "covariance, correlation : from this reduction.\n"
         "numpy.cov, numpy.corrcoef : the NumPy functions.\n"
         "\n"
         "Examples\n"
         "--------\n"
         ">>> import numpy as np, numreduce as nr\n"
         ">>> n, Kx, Ky, mx, my, Mxx, Myy, Cxy = nr.reduce(\n"
         "...     nr.comoments, (np.array([1., 2., 3.]), np.array([1., 3., 2.])))\n"
         ">>> float(Cxy / (n - 1))      # np.cov(x, y)[0, 1]\n"
         "0.5",
         8, comoments_loops(), nullptr},
        {"maxsumexpb",
         "maxsumexpb(x, b, /, out=(None, None), *, where=True, ...)\n"
         "\n"
         "The state of ``log(sum(b * exp(x)))``: :data:`maxsumexp`'s ``(m, t)`` with\n"
         "scale factors ``b``.  ``log|sum| = m + log(abs(t + 1))``, and the sum has\n"
         "the sign of ``t + 1``.\n"
         "\n"
         "Parameters\n"
         "----------\n"
         "x : array_like\n"
         "    float32 or float64 data.\n"
         "b : array_like\n"
         "    Real scale factors (may be negative or zero), broadcast against ``x``.\n"
         "out : tuple of two ndarrays (or None entries), optional\n"
         "where : array_like of bool, optional\n"
         "\n"
         "Returns\n"
         "-------\n"
         "m, t : ndarray or scalar\n"
         "    For one element: ``(x, b - 1)`` (``(-inf, -1)`` where ``b == 0``); where\n"
         "    ``|b| < 1/2``, ``(x + log|b|, 0)`` or ``(x + log|b|, -2)`` by the sign\n"
         "    of ``b``: a sum below half the reference's ``exp(m)`` moves into ``m``\n"
         "    so that ``t`` keeps its digits.  float64.\n"
         "\n"
         "See Also\n"
         "--------\n"
         "logsumexp : with ``b=``, from this reduction.\n"
         "scipy.special.logsumexp : the SciPy function.\n"
         "\n"
         "Examples\n"
         "--------\n"
         ">>> import numpy as np, numreduce as nr\n"
         ">>> m, t = nr.reduce(nr.maxsumexpb, (np.array([0., 0.]), np.array([1., 1.])))\n"
         ">>> float(m + np.log(abs(t + 1)))     # log(2)\n"
         "0.6931471805599453",
         2, maxsumexpb_loops(), nullptr},
        {"twoprod",
         "twoprod(x, y, /, out=(None, None), *, where=True, ...)\n"
         "\n"
         "Error-free product: ``p = x * y`` rounded, and the rounding error ``e``, so\n"
         "that ``p + e == x * y`` exactly (``e = 0`` where ``p`` is not finite).  Its\n"
         "reduction ``nr.reduce(twoprod, (x, y), axis)`` is a compensated dot\n"
         "product, as :data:`twosum` states: ``sum(x * y) = s + e``.\n"
         "\n"
         "Parameters\n"
         "----------\n"
         "x, y : array_like\n"
         "    float32 or float64 data, broadcast together.\n"
         "out : tuple of two ndarrays (or None entries), optional\n"
         "where : array_like of bool, optional\n"
         "\n"
         "Returns\n"
         "-------\n"
         "p, e : ndarray or scalar\n"
         "\n"
         "See Also\n"
         "--------\n"
         "sumprod : the compensated ``sum(x * y)`` from this reduction.\n"
         "math.sumprod : the same for Python sequences.\n"
         "\n"
         "Examples\n"
         "--------\n"
         ">>> import numpy as np, numreduce as nr\n"
         ">>> nr.twoprod(np.array([0.1]), np.array([0.1]))\n"
         "(array([0.01]), array([-8.32667268e-19]))\n"
         ">>> s, e = nr.reduce(nr.twoprod, (np.array([1e16, 1., -1e16]), np.ones(3)))\n"
         ">>> float(s + e)                      # np.dot gives 0.0\n"
         "1.0",
         2, twoprod_loops(), nullptr},
    };
    return t;
}


PyArray_DTypeMeta *dtypemeta(int type_num) {
    PyArray_Descr *d = PyArray_DescrFromType(type_num);
    if (d == nullptr) return nullptr;
    PyArray_DTypeMeta *dt = NPY_DTYPE(d);  // a static type: borrowed is fine
    Py_DECREF(d);
    return dt;
}

// Every registered ufunc, in registration order (a deque: its elements,
// and the name and doc strings NumPy points to, never move).
std::deque<UFuncDef> &registry() {
    static std::deque<UFuncDef> r;
    return r;
}
PyObject *g_nout_dict = nullptr;  // {ufunc: nout}: _core._MULTI_OUTPUT
PyObject *g_nsrc_dict = nullptr;  // {ufunc: K} of the K-source ufuncs: _core._MULTI_SOURCE
bool g_native = false;
bool g_own = false;  // register_ufuncs is registering numreduce's own table

const UFuncDef *def_of(PyObject *ufunc) {
    for (const UFuncDef &def : registry()) {
        if (def.ufunc == ufunc) return &def;
    }
    return nullptr;
}

const LoopEntry *loop_for(const UFuncDef &def, int in_type) {
    for (const LoopEntry &e : def.loops) {
        if (e.in_type == in_type) return &e;
    }
    return nullptr;
}

// The first loop of `def`, in registration order, that input type `type_num`
// casts to safely (NumPy's legacy types only), or nullptr.
const LoopEntry *first_safe_loop(const UFuncDef &def, int type_num) {
    if (type_num < 0 || type_num >= NPY_NTYPES_LEGACY) return nullptr;
    for (const LoopEntry &e : def.loops) {
        if (PyArray_CanCastSafely(type_num, e.in_type)) return &e;
    }
    return nullptr;
}

// Promoter, the way np.minimum resolves: the inputs take the common DType of
// the two inputs (or the one pinned by the signature), the outputs the loop's
// output DType for that input; a signature output (dtype=) pins the outputs
// and, when no loop for the common input produces it, the inputs as well.
// Another extension's ufunc (def->safe_casts) sends a common input without a
// loop of its own to the first loop it casts to safely (int16 to a float32
// loop registered before float64, ...); where none does, NumPy's "no loop"
// TypeError stays.  numreduce's own ufuncs keep their loops exactly (the
// CuPy mirror reads them through resolve_dtypes).
int promote_common(PyObject *ufunc, PyArray_DTypeMeta *const op_dtypes[],
                   PyArray_DTypeMeta *const signature[], PyArray_DTypeMeta *new_op_dtypes[]) {
    const UFuncDef *def = def_of(ufunc);
    const int nargs = ((PyUFuncObject *)ufunc)->nargs;
    const int nin = ((PyUFuncObject *)ufunc)->nin;
    PyArray_DTypeMeta *in = nullptr;
    for (int i = 0; i < nin && in == nullptr; i++) in = signature[i];
    PyArray_DTypeMeta *out = nullptr;
    for (int i = nin; i < nargs && out == nullptr; i++) out = signature[i];
    if (in != nullptr) {
        Py_INCREF(in);
    } else {
        in = PyArray_CommonDType(op_dtypes[0], op_dtypes[1]);
        for (int i = 2; i < nin && in != nullptr; i++) {
            PyArray_DTypeMeta *c = PyArray_CommonDType(in, op_dtypes[i]);
            Py_DECREF(in);
            in = c;
        }
        if (in == nullptr) return -1;
    }
    // Python scalars alone stay abstract: give them NumPy's default dtypes.
    if (in == &PyArray_PyFloatDType || in == &PyArray_PyLongDType ||
        in == &PyArray_PyComplexDType) {
        PyArray_DTypeMeta *c = in == &PyArray_PyFloatDType  ? &PyArray_DoubleDType
                               : in == &PyArray_PyLongDType ? &PyArray_DefaultIntDType
                                                            : &PyArray_CDoubleDType;
        Py_INCREF(c);
        Py_DECREF(in);
        in = c;
    }
    const LoopEntry *e = def != nullptr ? loop_for(*def, in->type_num) : nullptr;
    if (e == nullptr && out == nullptr && def != nullptr && def->safe_casts) {
        e = first_safe_loop(*def, in->type_num);
        if (e != nullptr) {
            PyArray_DTypeMeta *to = dtypemeta(e->in_type);
            if (to == nullptr) {
                Py_DECREF(in);
                return -1;
            }
            Py_INCREF(to);
            Py_DECREF(in);
            in = to;
        }
    }
    PyArray_DTypeMeta *out_dt;
    if (out != nullptr) {
        out_dt = out;
        if (e == nullptr || e->out_type != out->type_num) {
            Py_DECREF(in);
            in = out;
            Py_INCREF(in);
        }
    } else {
        out_dt = e != nullptr ? dtypemeta(e->out_type) : in;
        if (out_dt == nullptr) {
            Py_DECREF(in);
            return -1;
        }
    }
    Py_INCREF(out_dt);
    for (int i = 0; i < nargs; i++) {
        PyArray_DTypeMeta *d = i < nin ? in : out_dt;
        Py_INCREF(d);
        new_op_dtypes[i] = d;
    }
    Py_DECREF(in);
    Py_DECREF(out_dt);
    return 0;
}

int add_loop(PyObject *ufunc, const char *name, int nin, int nout, const LoopEntry &e,
             bool native) {
    PyArray_DTypeMeta *dtypes[2 * NPY_MAXARGS];
    PyArray_DTypeMeta *in = dtypemeta(e.in_type), *out = dtypemeta(e.out_type);
    if (in == nullptr || out == nullptr) return -1;
    for (int i = 0; i < nin; i++) dtypes[i] = in;
    for (int i = 0; i < nout; i++) dtypes[nin + i] = out;
    // NumPy's reduce (native) is for 2-input ufuncs: a K-source reduction
    // runs through numreduce's engine only.
    native = native && e.nsrc == 1;

    PyType_Slot slots[6];
    int k = 0;
    slots[k++] = {NPY_METH_strided_loop, (void *)e.forward};
    if (e.resolve != nullptr) {
        slots[k++] = {NPY_METH_resolve_descriptors, (void *)e.resolve};
    }
    if (native) {
        slots[k++] = {NPY_METH_get_reduction_loop, (void *)e.get_reduce};
        if (e.initials != nullptr) {
            slots[k++] = {NPY_METH_get_multi_reduction_initials, (void *)e.initials};
        }
    }
    slots[k++] = {0, nullptr};

    PyArrayMethod_Spec spec = {};
    spec.name = name;
    spec.nin = nin;
    spec.nout = nout;
    spec.casting = NPY_NO_CASTING;
    spec.flags = (NPY_ARRAYMETHOD_FLAGS)(NPY_METH_NO_FLOATINGPOINT_ERRORS | NPY_METH_IS_REORDERABLE);
    spec.dtypes = dtypes;
    spec.slots = slots;
    return PyUFunc_AddLoopFromSpec(ufunc, &spec);
}

int add_promoter(PyObject *ufunc, int nin, int nout) {
    PyObject *dtype_tuple = PyTuple_New(nin + nout);
    if (dtype_tuple == nullptr) return -1;
    for (int i = 0; i < nin + nout; i++) {
        PyObject *item = i < nin ? (PyObject *)&PyArrayDescr_Type : Py_None;
        Py_INCREF(item);
        PyTuple_SET_ITEM(dtype_tuple, i, item);
    }
    PyObject *capsule = PyCapsule_New((void *)&promote_common, "numpy._ufunc_promoter", nullptr);
    if (capsule == nullptr) {
        Py_DECREF(dtype_tuple);
        return -1;
    }
    int res = PyUFunc_AddPromoter(ufunc, dtype_tuple, capsule);
    Py_DECREF(dtype_tuple);
    Py_DECREF(capsule);
    return res;
}

PyObject *make_ufunc(const UFuncDef &def, bool native) {
    const int nin = def.nsrc > 1 ? def.nsrc : 2;
    PyObject *ufunc = PyUFunc_FromFuncAndData(nullptr, nullptr, nullptr, 0, nin, def.nout,
                                              PyUFunc_None, def.name.c_str(),
                                              def.doc.empty() ? nullptr : def.doc.c_str(), 0);
    if (ufunc == nullptr) return nullptr;
    for (const LoopEntry &e : def.loops) {
        if (add_loop(ufunc, def.name.c_str(), nin, def.nout, e, native) < 0) {
            Py_DECREF(ufunc);
            return nullptr;
        }
    }
    if (add_promoter(ufunc, nin, def.nout) < 0) {
        Py_DECREF(ufunc);
        return nullptr;
    }
    return ufunc;
}

// The LoopEntry size of a registration built with C API 1.`minor` headers:
// 1.0's and 1.1's end before scatter_sources (1.2).
int entry_size_of(int minor) {
    return minor < 2 ? int(kLoopEntrySize_1_1) : int(sizeof(LoopEntry));
}

// The checks of register_spec, on the spec and on its loops (`loops`: the
// spec's entries, each copied into a full LoopEntry): a ValueError /
// TypeError that names the ufunc and the loop, or 0.  Every minor version
// up to ours registers (its entries are entry_size_of(minor) bytes).
int check_spec_header(const UFuncSpec *spec) {
    const int minor = spec->api_version % 1000;
    if (spec->api_version / 1000 != NUMREDUCE_API_VERSION_MAJOR ||
        minor > NUMREDUCE_API_VERSION_MINOR || spec->entry_size != entry_size_of(minor)) {
        PyErr_Format(PyExc_ImportError,
                     "numreduce: a ufunc registration built against numreduce C API %d.%d "
                     "(LoopEntry of %d bytes) cannot register with numreduce C API %d.%d (%d "
                     "bytes): rebuild the extension against the installed numreduce",
                     spec->api_version / 1000, spec->api_version % 1000, spec->entry_size,
                     NUMREDUCE_API_VERSION_MAJOR, NUMREDUCE_API_VERSION_MINOR,
                     int(sizeof(LoopEntry)));
        return -1;
    }
    const char *name = spec->name;
    if (name == nullptr || name[0] == '\0') {
        PyErr_SetString(PyExc_ValueError, "numreduce: a registered ufunc needs a name");
        return -1;
    }
    if (spec->nout < 1 || spec->nout > NR_MAX_NOUT) {
        PyErr_Format(PyExc_ValueError,
                     "numreduce: ufunc '%s' must have between 1 and %d outputs, not %d", name,
                     NR_MAX_NOUT, spec->nout);
        return -1;
    }
    if (spec->nloops < 1 || spec->loops == nullptr) {
        PyErr_Format(PyExc_ValueError, "numreduce: ufunc '%s' has no loops", name);
        return -1;
    }
    return 0;
}

// spec->loops (checked by check_spec_header) as full entries: each
// entry_size bytes copied, the members of newer minor versions nullptr.
std::vector<LoopEntry> spec_loops(const UFuncSpec *spec) {
    std::vector<LoopEntry> loops((size_t)spec->nloops, LoopEntry{});
    const char *p = reinterpret_cast<const char *>(spec->loops);
    for (int k = 0; k < spec->nloops; k++) {
        std::memcpy(&loops[(size_t)k], p + (size_t)k * (size_t)spec->entry_size,
                    (size_t)spec->entry_size);
    }
    return loops;
}

int check_spec_loops(const UFuncSpec *spec, const std::vector<LoopEntry> &loops) {
    const char *name = spec->name;
    std::set<int> seen;
    const bool has_nsrc = spec->api_version % 1000 >= 1;  // LoopEntry::nsrc is 1.1's
    for (int k = 0; k < spec->nloops; k++) {
        const LoopEntry &e = loops[(size_t)k];
        const int nsrc = has_nsrc ? e.nsrc : 1;
        const int nsrc0 = has_nsrc ? loops[0].nsrc : 1;
        if (nsrc < 1 || nsrc > 4 || nsrc != nsrc0) {
            PyErr_Format(PyExc_ValueError,
                         "numreduce: ufunc '%s', loop %d: its traits have %d sources, loop 0 "
                         "%d (every loop of a ufunc takes the same number, 1 to 4)",
                         name, k, nsrc, nsrc0);
            return -1;
        }
        if (e.forward == nullptr || e.reduce == nullptr || e.get_reduce == nullptr ||
            e.combine == nullptr || e.merge == nullptr || e.scan == nullptr ||
            e.segment == nullptr || e.scatter == nullptr) {
            PyErr_Format(PyExc_ValueError,
                         "numreduce: ufunc '%s', loop %d: missing loop functions (build the "
                         "entry with nr::make_loop)",
                         name, k);
            return -1;
        }
        if (e.nout != spec->nout) {
            PyErr_Format(PyExc_ValueError,
                         "numreduce: ufunc '%s', loop %d: its traits have nout = %d, the ufunc "
                         "%d outputs",
                         name, k, e.nout, spec->nout);
            return -1;
        }
        const int types[2] = {e.in_type, e.out_type};
        const int sizes[2] = {e.in_size, e.out_size};
        const char kinds[2] = {e.in_kind, e.out_kind};
        const char *what[2] = {"in_t", "out_t"};
        for (int j = 0; j < 2; j++) {
            PyArray_Descr *d = PyArray_DescrFromType(types[j]);
            if (d == nullptr) {
                PyErr_Clear();
                PyErr_Format(PyExc_TypeError,
                             "numreduce: ufunc '%s', loop %d: %d is not a NumPy type number",
                             name, k, types[j]);
                return -1;
            }
            const bool size_ok = PyDataType_ELSIZE(d) == sizes[j];
            const char kind = d->kind;
            const bool kind_ok = kinds[j] == 0 || kinds[j] == kind ||
                                 (kinds[j] == 'u' && kind == 'b' && sizes[j] == 1);
            if (!size_ok || !kind_ok || d->type_num >= NPY_NTYPES_LEGACY ||
                d->type_num == NPY_OBJECT || d->type_num == NPY_STRING ||
                d->type_num == NPY_UNICODE || d->type_num == NPY_VOID) {
                PyErr_Format(PyExc_TypeError,
                             "numreduce: ufunc '%s', loop %d: dtype %R does not match the "
                             "traits' %s (%d bytes, kind '%c'); register each traits "
                             "instantiation under the dtype of its type",
                             name, k, (PyObject *)d, what[j], sizes[j],
                             kinds[j] ? kinds[j] : '?');
                Py_DECREF(d);
                return -1;
            }
            Py_DECREF(d);
        }
        if (!seen.insert(e.in_type).second) {
            PyErr_Format(PyExc_ValueError,
                         "numreduce: ufunc '%s' has two loops for input type number %d", name,
                         e.in_type);
            return -1;
        }
    }
    return 0;
}

}  // namespace

PyObject *register_spec(PyObject *module, const UFuncSpec *spec) {
    if (g_nout_dict == nullptr) {
        PyErr_SetString(PyExc_RuntimeError, "numreduce: the registry is not initialised");
        return nullptr;
    }
    if (module == nullptr || !PyModule_Check(module)) {
        PyErr_SetString(PyExc_TypeError, "numreduce: register_ufunc needs the extension module");
        return nullptr;
    }
    if (check_spec_header(spec) < 0) return nullptr;
    std::vector<LoopEntry> loops = spec_loops(spec);
    if (check_spec_loops(spec, loops) < 0) return nullptr;
    UFuncDef def{spec->name, spec->doc != nullptr ? spec->doc : "", spec->nout, std::move(loops),
                 nullptr};
    // check_spec: every loop has the same nsrc; 1.0's entries have padding there
    def.nsrc = spec->api_version % 1000 >= 1 ? def.loops[0].nsrc : 1;
    for (LoopEntry &e : def.loops) e.nsrc = char(def.nsrc);
    def.safe_casts = !g_own;
    registry().push_back(std::move(def));
    UFuncDef &reg = registry().back();
    PyObject *ufunc = make_ufunc(reg, g_native);
    PyObject *nout = ufunc != nullptr ? PyLong_FromLong(reg.nout) : nullptr;
    PyObject *nsrc = nout != nullptr ? PyLong_FromLong(reg.nsrc) : nullptr;
    if (nsrc == nullptr || PyDict_SetItem(g_nout_dict, ufunc, nout) < 0 ||
        (reg.nsrc > 1 && PyDict_SetItem(g_nsrc_dict, ufunc, nsrc) < 0) ||
        PyModule_AddObjectRef(module, reg.name.c_str(), ufunc) < 0) {
        Py_XDECREF(nout);
        Py_XDECREF(nsrc);
        if (ufunc != nullptr) {
            PyObject *type, *value, *tb;
            PyErr_Fetch(&type, &value, &tb);
            for (PyObject *d : {g_nout_dict, g_nsrc_dict}) {
                if (PyDict_Contains(d, ufunc) == 1 && PyDict_DelItem(d, ufunc) < 0) PyErr_Clear();
            }
            PyErr_Restore(type, value, tb);
        }
        Py_XDECREF(ufunc);
        registry().pop_back();
        return nullptr;
    }
    Py_DECREF(nout);
    Py_DECREF(nsrc);
    reg.ufunc = ufunc;  // the module keeps it alive
    return ufunc;
}

bool native_reduce() { return g_native; }

namespace {

// The loop of the arguments (ufunc, dtype) of _has_initials /
// _scatters_sources, or nullptr with a TypeError.
const LoopEntry *loop_of_args(PyObject *args) {
    PyObject *ufunc;
    PyArray_Descr *dtype;
    if (!PyArg_ParseTuple(args, "OO&", &ufunc, PyArray_DescrConverter, &dtype)) return nullptr;
    const UFuncDef *def = def_of(ufunc);
    const LoopEntry *e = def != nullptr ? loop_for(*def, dtype->type_num) : nullptr;
    if (e == nullptr) {
        PyErr_Format(PyExc_TypeError, "numreduce: %R has no loop for dtype %R", ufunc,
                     (PyObject *)dtype);
    }
    Py_DECREF(dtype);
    return e;
}

}  // namespace

PyObject *registry_has_initials(PyObject *, PyObject *args) {
    const LoopEntry *e = loop_of_args(args);
    return e == nullptr ? nullptr : PyBool_FromLong(e->initials != nullptr);
}

PyObject *registry_scatters_sources(PyObject *, PyObject *args) {
    const LoopEntry *e = loop_of_args(args);
    return e == nullptr ? nullptr : PyBool_FromLong(e->scatter_sources != nullptr);
}

int register_ufuncs(PyObject *module, bool native) {
    g_native = native;
    g_nout_dict = PyDict_New();
    g_nsrc_dict = PyDict_New();
    if (g_nout_dict == nullptr || g_nsrc_dict == nullptr ||
        PyModule_AddObjectRef(module, "_MULTI_OUTPUT", g_nout_dict) < 0 ||
        PyModule_AddObjectRef(module, "_MULTI_SOURCE", g_nsrc_dict) < 0) {
        return -1;
    }
    g_own = true;
    for (const UFuncDef &row : table()) {
        const UFuncSpec spec{NUMREDUCE_API_VERSION, int(sizeof(LoopEntry)), row.name.c_str(),
                             row.doc.c_str(), row.nout, int(row.loops.size()), row.loops.data()};
        PyObject *ufunc = register_spec(module, &spec);
        if (ufunc == nullptr) {
            g_own = false;
            return -1;
        }
        Py_DECREF(ufunc);
    }
    g_own = false;
    return 0;
}

const LoopEntry *find_loop(PyObject *ufunc, int in_type, int *nout, const char **name) {
    const UFuncDef *def = def_of(ufunc);
    if (def == nullptr) return nullptr;
    *nout = def->nout;
    *name = def->name.c_str();
    return loop_for(*def, in_type);
}

bool first_is_state(PyObject *ufunc) {
    const UFuncDef *def = def_of(ufunc);
    return def != nullptr && !def->safe_casts;  // safe_casts: another extension's
}

bool probe_native_reduce(std::string *reason) {
    // A throwaway ufunc: whatever happens, the real ufuncs are untouched.
    // Its loop: minimummaximum's float64 one (the loops are instantiated in
    // their table_loops_*.cpp only: see table_loops.hpp).
    UFuncDef def = {"_numreduce_probe", "", 2, {}, nullptr};
    for (const LoopEntry &e : minimummaximum_loops()) {
        if (e.in_type == NPY_DOUBLE) def.loops.push_back(e);
    }
    PyObject *ufunc = make_ufunc(def, /*native=*/true);
    if (ufunc == nullptr) {
        PyObject *type, *value, *tb;
        PyErr_Fetch(&type, &value, &tb);
        PyObject *msg = value ? PyObject_Str(value) : nullptr;
        *reason = std::string("NumPy rejects the reduction-loop slot (") +
                  (msg ? PyUnicode_AsUTF8(msg) : "unknown error") + ")";
        Py_XDECREF(msg);
        Py_XDECREF(type);
        Py_XDECREF(value);
        Py_XDECREF(tb);
        PyErr_Clear();
        return false;
    }
    // The slot was accepted; check that reduce really runs it.
    bool ok = false;
    npy_intp n = 3;
    PyObject *arr = PyArray_SimpleNew(1, &n, NPY_DOUBLE);
    if (arr != nullptr) {
        double *p = (double *)PyArray_DATA((PyArrayObject *)arr);
        p[0] = 3.0;
        p[1] = 1.0;
        p[2] = 2.0;
        PyObject *res = PyObject_CallMethod(ufunc, "reduce", "O", arr);
        if (res != nullptr && PyTuple_Check(res) && PyTuple_GET_SIZE(res) == 2) {
            double lo = PyFloat_AsDouble(PyTuple_GET_ITEM(res, 0));
            double hi = PyFloat_AsDouble(PyTuple_GET_ITEM(res, 1));
            ok = !PyErr_Occurred() && lo == 1.0 && hi == 3.0;
        }
        Py_XDECREF(res);
        Py_DECREF(arr);
    }
    PyErr_Clear();
    Py_DECREF(ufunc);
    *reason = ok ? "NumPy accepts NPY_METH_get_reduction_loop (11) and "
                   "NPY_METH_get_multi_reduction_initials (12); ufunc.reduce is native"
                 : "NumPy accepts slot 11 but ufunc.reduce did not use it";
    return ok;
}

}  // namespace nr
