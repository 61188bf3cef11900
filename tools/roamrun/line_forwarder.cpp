#include "line_forwarder.hpp"

#include <unistd.h>

#include <cerrno>

namespace roam::detail::roamrun {

line_forwarder::line_forwarder(int to_fd, std::string prefix, std::size_t max_line)
    : to_fd_(to_fd), prefix_(std::move(prefix)), max_line_(max_line) {}

void line_forwarder::emit(std::string_view line) {
  std::string out;
  out.reserve(prefix_.size() + line.size() + 1);
  out += prefix_;
  out += line;
  out.push_back('\n');
  std::size_t done = 0;
  while (done < out.size()) {
    const ssize_t n = ::write(to_fd_, out.data() + done, out.size() - done);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return;  // our own output is gone (closed pipe): drop, keep the job running
    done += static_cast<std::size_t>(n);
  }
}

void line_forwarder::feed(std::string_view bytes) {
  while (!bytes.empty()) {
    const auto nl = bytes.find('\n');
    const std::string_view piece = bytes.substr(0, nl);
    if (nl != std::string_view::npos) {
      if (partial_.empty()) {
        emit(piece);
      } else {
        partial_ += piece;
        emit(partial_);
        partial_.clear();
      }
      bytes.remove_prefix(nl + 1);
      continue;
    }
    partial_ += piece;
    bytes = {};
    while (partial_.size() >= max_line_) {
      emit(std::string_view(partial_).substr(0, max_line_));
      partial_.erase(0, max_line_);
    }
  }
}

void line_forwarder::finish() {
  if (!partial_.empty()) emit(partial_);
  partial_.clear();
}

}  // namespace roam::detail::roamrun
