#pragma once
// Runs a roam program inside a test: builds an argv with `+p N` and extra
// runtime options, and returns roam::run's exit code.
#include <string>
#include <vector>

#include <roam/roam.hpp>

namespace roam_test {

/// For `roam::callback<>::function<&roam_test::exit_zero>(pe)`: ends the program with status 0.
inline void exit_zero() { roam::exit(0); }

template <class Main>
int run_on(unsigned pes, Main main, std::vector<std::string> extra = {}) {
  std::vector<std::string> words = {"roam_test", "+p", std::to_string(pes)};
  words.insert(words.end(), extra.begin(), extra.end());
  std::vector<char*> argv;
  for (auto& w : words) argv.push_back(w.data());
  argv.push_back(nullptr);
  int argc = static_cast<int>(words.size());
  return roam::run(argc, argv.data(), std::move(main));
}

}  // namespace roam_test
