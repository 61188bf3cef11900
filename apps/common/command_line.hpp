#pragma once
// Shared by the applications' `--key value` parsers.
#include <cstddef>
#include <stdexcept>
#include <string>

#include <roam/sched/runtime.hpp>

namespace roam_apps {

/// The value after option a[i], advancing i to it; std::invalid_argument
/// naming the option when the command line ends first.
inline const std::string& option_value(const roam::args& a, std::size_t& i) {
  if (i + 1 >= a.size()) throw std::invalid_argument("option " + a[i] + " needs a value");
  return a[++i];
}

}  // namespace roam_apps
