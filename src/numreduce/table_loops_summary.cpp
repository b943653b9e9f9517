// The loops of summary and nansummary (describe, skew, kurtosis).
// (table_loops.hpp says why the table's loops are split over files).
#include "table_loops.hpp"
#include "traits/summary.hpp"

namespace nr {
using namespace dtype_lists;

template <class T, class A>
using PlainSummary = Summary<T, A, false>;
template <class T, class A>
using NanSummary = Summary<T, A, true>;

std::vector<LoopEntry> summary_loops() { return real_dtypes<PlainSummary, double, double>(true); }
std::vector<LoopEntry> nansummary_loops() { return real_dtypes<NanSummary, double, double>(false); }

}  // namespace nr
