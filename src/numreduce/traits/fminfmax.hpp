// (fmin, fmax) in one pass: NaN/NaT-*skipping* like np.fmin/np.fmax (a NaN
// results only where every element is NaN).  The same order reduction as
// minmax.hpp with the skipping pair op (order_ops<true>).
#pragma once
#include "minmax.hpp"

namespace nr {

template <class T>
using FMinFMax = MinMaxOf<T, true>;

}  // namespace nr
