#pragma once
// roamrun's own messages: one line to stderr, written at once (no stdio
// buffer: a line from a signal-driven path must not interleave or be lost).
#include <unistd.h>

#include <string>

namespace roam::detail::roamrun {

inline void say(const std::string& line) {
  const std::string s = "roamrun: " + line + "\n";
  [[maybe_unused]] const ssize_t n = ::write(STDERR_FILENO, s.data(), s.size());
}

}  // namespace roam::detail::roamrun
