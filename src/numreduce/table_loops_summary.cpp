// The loops of summary and nansummary (describe, skew, kurtosis), and of
// their two-source forms with frequency weights, wsummary and nanwsummary
// (in this file too: they instantiate Summary<A, A>).
// (table_loops.hpp says why the table's loops are split over files).
#include "table_loops.hpp"
#include "traits/summary.hpp"
#include "traits/wsummary.hpp"

namespace nr {
using namespace dtype_lists;

template <class T, class A>
using PlainSummary = Summary<T, A, false>;
template <class T, class A>
using NanSummary = Summary<T, A, true>;
template <class T, class A>
using PlainWSummary = WSummary<T, A, false>;
template <class T, class A>
using NanWSummary = WSummary<T, A, true>;

std::vector<LoopEntry> summary_loops() { return real_dtypes<PlainSummary, double, double>(true); }
std::vector<LoopEntry> nansummary_loops() { return real_dtypes<NanSummary, double, double>(false); }
std::vector<LoopEntry> wsummary_loops() { return source_dtypes<PlainWSummary, double>(); }
std::vector<LoopEntry> nanwsummary_loops() { return source_dtypes<NanWSummary, double>(); }

}  // namespace nr
