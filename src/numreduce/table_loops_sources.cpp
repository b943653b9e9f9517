// The loops of the two-source ufuncs: wmoments, nanwmoments, comoments,
// maxsumexpb and twoprod.
// (table_loops.hpp says why the table's loops are split over files).
#include "table_loops.hpp"
#include "traits/comoments.hpp"
#include "traits/logsumexp.hpp"
#include "traits/twosum.hpp"
#include "traits/wmoments.hpp"

namespace nr {
using namespace dtype_lists;

template <class T, class A>
using PlainWMoments = WMoments<T, A, false>;
template <class T, class A>
using NanWMoments = WMoments<T, A, true>;

std::vector<LoopEntry> wmoments_loops() { return source_dtypes<PlainWMoments, double>(); }
std::vector<LoopEntry> nanwmoments_loops() { return source_dtypes<NanWMoments, double>(); }
std::vector<LoopEntry> comoments_loops() { return source_dtypes<CoMoments, double>(); }
std::vector<LoopEntry> maxsumexpb_loops() { return source_dtypes<MaxSumExpB, double>(); }
std::vector<LoopEntry> twoprod_loops() { return source_dtypes<SumProd, float>(); }

}  // namespace nr
