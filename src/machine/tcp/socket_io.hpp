#pragma once
// Small POSIX socket helpers shared by the transport and roamrun: an owning fd,
// address formatting, listening, connecting and whole-buffer / whole-frame I/O
// with a deadline. The blocking-with-deadline helpers are for bootstrap and
// roamrun's control traffic only; the transport's hot path has its own
// non-blocking send and receive code.
#include <chrono>
#include <cstddef>
#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <string_view>

#include "tcp/frame_decoder.hpp"

namespace roam::detail::tcp {

using clock = std::chrono::steady_clock;
using deadline = clock::time_point;
inline deadline no_deadline() { return deadline::max(); }
inline deadline after(std::chrono::milliseconds d) { return clock::now() + d; }

/// Owns a file descriptor; closes it on destruction.
class unique_fd {
 public:
  unique_fd() = default;
  explicit unique_fd(int fd) noexcept : fd_(fd) {}
  unique_fd(unique_fd&& o) noexcept : fd_(o.release()) {}
  unique_fd& operator=(unique_fd&& o) noexcept {
    if (this != &o) reset(o.release());
    return *this;
  }
  unique_fd(const unique_fd&) = delete;
  unique_fd& operator=(const unique_fd&) = delete;
  ~unique_fd() { reset(); }

  int get() const noexcept { return fd_; }
  explicit operator bool() const noexcept { return fd_ >= 0; }
  int release() noexcept {
    const int f = fd_;
    fd_ = -1;
    return f;
  }
  void reset(int fd = -1) noexcept;

 private:
  int fd_ = -1;
};

struct host_port {
  std::string host;
  std::uint16_t port = 0;
  /// "host:port", with brackets around an IPv6 literal.
  std::string str() const;
};

/// Parses "host:port" or "[v6]:port"; nullopt when malformed.
std::optional<host_port> parse_host_port(std::string_view s);

/// strerror as a std::string.
std::string errno_text(int err);

bool set_nonblocking(int fd) noexcept;
/// Disables Nagle: small frames are latency-bound and we batch ourselves.
void set_nodelay(int fd) noexcept;
/// The remote / local end of a connected socket as "host:port" ("?" if unknown).
std::string remote_address(int fd);
std::optional<host_port> local_address(int fd);

/// A listening socket on `host` ("" = every interface) and `port` (0 = any free one).
unique_fd listen_tcp(const std::string& host, std::uint16_t port, std::string& error);
/// Connects to `to` (resolving names) before `by`. The socket comes back blocking-free (O_NONBLOCK).
unique_fd connect_tcp(const host_port& to, deadline by, std::string& error);

/// Writes all of `bytes` to a (possibly non-blocking) socket before `by`.
bool write_all(int fd, std::span<const std::byte> bytes, deadline by, std::string& error);

/// Reads from `fd` into `dec` until it yields a frame, before `by`. On false,
/// `error` says why (closed, timeout, malformed frame, socket error).
bool read_frame(int fd, frame_decoder& dec, deadline by, frame_decoder::result& out, std::string& error);

/// Milliseconds from now until `by`, for poll(): -1 for no deadline, 0 if passed.
int poll_timeout_ms(deadline by);

}  // namespace roam::detail::tcp
