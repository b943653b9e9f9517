// The loops of moments (nanmoments: table_loops_nanmoments.cpp).
// (table_loops.hpp says why the table's loops are split over files).
#include "table_loops.hpp"
#include "traits/moments.hpp"

namespace nr {
using namespace dtype_lists;

template <class T, class A>
using PlainMoments = Moments<T, A, false>;

std::vector<LoopEntry> moments_loops() { return real_dtypes<PlainMoments, double, double>(true); }

}  // namespace nr
