#pragma once
// Parsing of `+` runtime options and their ROAM_* environment variables.
#include <string>

#include <roam/sched/detail/runtime_state.hpp>

namespace roam::detail {

struct parse_result {
  runtime_options options;
  std::string error;  ///< non-empty: what was wrong, naming the option
};

/// Reads ROAM_* variables, then removes `+` options from argv (updating argc).
parse_result parse_runtime_options(int& argc, char** argv);
/// The text `+help` prints: the build description, then every option.
std::string options_help();

}  // namespace roam::detail
