#include "tcp/tcp_log.hpp"

#include <unistd.h>

#include <string>

namespace roam::detail::tcp {

void log_line(std::uint32_t node, std::string_view text) noexcept {
  try {
    std::string line = "roam tcp [node " + std::to_string(node) + "]: ";
    line.append(text);
    line.push_back('\n');
    [[maybe_unused]] const ssize_t n = ::write(STDERR_FILENO, line.data(), line.size());
  } catch (...) {
  }
}

}  // namespace roam::detail::tcp
