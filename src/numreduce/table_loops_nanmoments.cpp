// The loops of nanmoments (moments: table_loops_moments.cpp).
// (table_loops.hpp says why the table's loops are split over files).
#include "table_loops.hpp"
#include "traits/moments.hpp"

namespace nr {
using namespace dtype_lists;

template <class T, class A>
using NanMoments = Moments<T, A, true>;

std::vector<LoopEntry> nanmoments_loops() { return real_dtypes<NanMoments, double, double>(false); }

}  // namespace nr
