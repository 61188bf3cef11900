#pragma once
// User event names (roam::trace::name): interned process-wide, listed in the
// trace's index so that records carry a small id.
#include <cstdint>
#include <string>
#include <vector>

namespace roam::trace::detail {

/// Every name interned so far, by id (id 0 is unused).
std::vector<std::string> user_names();

}  // namespace roam::trace::detail
