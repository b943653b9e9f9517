// The loops of maxsumexp, twosum and the internal sqtwosum.
// (table_loops.hpp says why the table's loops are split over files).
#include "table_loops.hpp"
#include "traits/logsumexp.hpp"
#include "traits/twosum.hpp"

namespace nr {
using namespace dtype_lists;

// TwoSum with its default map, as a template of two parameters (C++17
// before P0522 -- Clang through 18 by default -- matches a template
// template parameter only to a template of the same parameters).
template <class T, class A>
using PlainTwoSum = TwoSum<T, A>;

std::vector<LoopEntry> maxsumexp_loops() { return real_dtypes<MaxSumExp, double, double>(true); }
std::vector<LoopEntry> twosum_loops() { return real_dtypes<PlainTwoSum, float, float>(true); }
std::vector<LoopEntry> sqtwosum_loops() {
    return {make_loop<SquareSum<float, float>>(NPY_FLOAT, NPY_FLOAT),
            make_loop<SquareSum<double, double>>(NPY_DOUBLE, NPY_DOUBLE)};
}

}  // namespace nr
