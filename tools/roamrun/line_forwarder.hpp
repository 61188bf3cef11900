#pragma once
// Forwards one child stream (stdout or stderr) line by line, each line
// prefixed, with one write() per line so lines of different nodes never mix.
// A partial line waits for its end; one longer than max_line is cut there (and
// continues on a new prefixed line) so a child that never writes '\n' cannot
// grow roamrun's memory without bound.
#include <cstddef>
#include <string>
#include <string_view>

namespace roam::detail::roamrun {

class line_forwarder {
 public:
  line_forwarder(int to_fd, std::string prefix, std::size_t max_line = 64 * 1024);
  void feed(std::string_view bytes);
  /// End of stream: emits a last line that lacked its '\n' (adding one).
  void finish();

 private:
  void emit(std::string_view line);
  int to_fd_;
  std::string prefix_;
  std::size_t max_line_;
  std::string partial_;
};

}  // namespace roam::detail::roamrun
