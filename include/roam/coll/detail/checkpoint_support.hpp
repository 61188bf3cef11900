#pragma once
// What the checkpoint layer (src/ft/) needs of the collectives: whether a
// reduction is partly contributed on this PE (a cut there cannot be saved),
// and the population of a restored array (docs/design/checkpoint.md).
#include <cstdint>
#include <string>

#include <roam/obj/detail/objects.hpp>

namespace roam::detail {

/// Names a reduction of which this PE holds part of the contributions (empty: none).
std::string partial_reduction_here();
/// On the reduction tree's root (PE 0), before any restored element
/// contributes: the array has `population` elements, numbered from reduction 0.
void restore_array_population(const collection_desc* d, std::int64_t population);

}  // namespace roam::detail
