#pragma once
// +LBDump: each step's problem appended to a file roam-lb replays.
#include <string>

#include <roam/lb/strategy.hpp>

namespace roam::lb::detail {
/// Appends `p` (balanced by `strategy`) to the dump at `path`; reports a failure on stderr once.
void append_dump(const std::string& path, const problem& p, const std::string& strategy);
}  // namespace roam::lb::detail
