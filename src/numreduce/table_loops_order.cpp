// The loops of minimummaximum and fminfmax, every ordered dtype, and the
// index-carrying (argmin, argmax) row loops of argminmax.
// (table_loops.hpp says why the table's loops are split over files).
#include "table_loops.hpp"
#include "traits/argminmax.hpp"
#include "traits/fminfmax.hpp"
#include "traits/minmax.hpp"

namespace nr {
using namespace dtype_lists;

std::vector<LoopEntry> minimummaximum_loops() { return ordered_dtypes<MinMax>(); }
std::vector<LoopEntry> fminfmax_loops() { return ordered_dtypes<FMinFMax>(); }

ArgRowsFn *find_arg_loop(int in_type, bool skip_nan) {
    ArgRowsFn *found = nullptr;
    for_ordered_types([&](int type, auto tag) {
        using T = decltype(tag);
        if (type == in_type) {
            found = skip_nan ? &arg_rows<ArgMinMax<T, true>> : &arg_rows<ArgMinMax<T, false>>;
        }
    });
    return found;
}

}  // namespace nr
