#pragma once
// Runs the runtime's option parser (src/sched/options.cpp) on a command line
// given as words (the program name is added), as roam::run would.
#include <string>
#include <vector>

#include "options.hpp"

namespace roam_test {

inline roam::detail::parse_result parse_options(std::vector<std::string> words) {
  words.insert(words.begin(), "prog");
  std::vector<char*> argv;
  for (auto& w : words) argv.push_back(w.data());
  argv.push_back(nullptr);
  int argc = static_cast<int>(words.size());
  return roam::detail::parse_runtime_options(argc, argv.data());
}

}  // namespace roam_test
