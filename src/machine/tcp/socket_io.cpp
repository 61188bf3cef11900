#include "tcp/socket_io.hpp"

#include <arpa/inet.h>
#include <fcntl.h>
#include <netdb.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

namespace roam::detail::tcp {

void unique_fd::reset(int fd) noexcept {
  if (fd_ >= 0) ::close(fd_);
  fd_ = fd;
}

std::string host_port::str() const {
  if (host.find(':') != std::string::npos) return "[" + host + "]:" + std::to_string(port);
  return host + ":" + std::to_string(port);
}

std::optional<host_port> parse_host_port(std::string_view s) {
  host_port hp;
  std::string_view port;
  if (!s.empty() && s.front() == '[') {
    const auto close = s.find(']');
    if (close == std::string_view::npos || close + 1 >= s.size() || s[close + 1] != ':') return std::nullopt;
    hp.host = std::string(s.substr(1, close - 1));
    port = s.substr(close + 2);
  } else {
    const auto colon = s.rfind(':');
    if (colon == std::string_view::npos) return std::nullopt;
    hp.host = std::string(s.substr(0, colon));
    port = s.substr(colon + 1);
  }
  if (hp.host.empty() || port.empty() || port.size() > 5) return std::nullopt;
  unsigned v = 0;
  for (char c : port) {
    if (c < '0' || c > '9') return std::nullopt;
    v = v * 10 + static_cast<unsigned>(c - '0');
  }
  if (v == 0 || v > 65535) return std::nullopt;
  hp.port = static_cast<std::uint16_t>(v);
  return hp;
}

std::string errno_text(int err) { return std::strerror(err); }

bool set_nonblocking(int fd) noexcept {
  const int flags = ::fcntl(fd, F_GETFL, 0);
  return flags >= 0 && ::fcntl(fd, F_SETFL, flags | O_NONBLOCK) == 0;
}

void set_nodelay(int fd) noexcept {
  int one = 1;
  ::setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
}

namespace {
std::optional<host_port> from_sockaddr(const sockaddr_storage& ss) {
  char buf[INET6_ADDRSTRLEN] = {};
  host_port hp;
  if (ss.ss_family == AF_INET) {
    const auto* a = reinterpret_cast<const sockaddr_in*>(&ss);
    if (!::inet_ntop(AF_INET, &a->sin_addr, buf, sizeof buf)) return std::nullopt;
    hp.port = ntohs(a->sin_port);
  } else if (ss.ss_family == AF_INET6) {
    const auto* a = reinterpret_cast<const sockaddr_in6*>(&ss);
    if (!::inet_ntop(AF_INET6, &a->sin6_addr, buf, sizeof buf)) return std::nullopt;
    hp.port = ntohs(a->sin6_port);
  } else {
    return std::nullopt;
  }
  hp.host = buf;
  return hp;
}
}  // namespace

std::string remote_address(int fd) {
  sockaddr_storage ss{};
  socklen_t len = sizeof ss;
  if (::getpeername(fd, reinterpret_cast<sockaddr*>(&ss), &len) != 0) return "?";
  auto hp = from_sockaddr(ss);
  return hp ? hp->str() : std::string("?");
}

std::optional<host_port> local_address(int fd) {
  sockaddr_storage ss{};
  socklen_t len = sizeof ss;
  if (::getsockname(fd, reinterpret_cast<sockaddr*>(&ss), &len) != 0) return std::nullopt;
  return from_sockaddr(ss);
}

int poll_timeout_ms(deadline by) {
  if (by == deadline::max()) return -1;
  const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(by - clock::now()).count();
  if (left <= 0) return 0;
  return left > 1'000'000 ? 1'000'000 : static_cast<int>(left) + 1;
}

unique_fd listen_tcp(const std::string& host, std::uint16_t port, std::string& error) {
  addrinfo hints{};
  hints.ai_family = AF_UNSPEC;
  hints.ai_socktype = SOCK_STREAM;
  hints.ai_flags = AI_PASSIVE | AI_NUMERICSERV;
  addrinfo* res = nullptr;
  const std::string service = std::to_string(port);
  if (int rc = ::getaddrinfo(host.empty() ? nullptr : host.c_str(), service.c_str(), &hints, &res); rc != 0) {
    error = "cannot resolve '" + host + "': " + ::gai_strerror(rc);
    return {};
  }
  std::string last = "no usable address";
  for (addrinfo* ai = res; ai; ai = ai->ai_next) {
    unique_fd fd(::socket(ai->ai_family, ai->ai_socktype | SOCK_CLOEXEC, ai->ai_protocol));
    if (!fd) {
      last = "socket: " + errno_text(errno);
      continue;
    }
    int one = 1;
    ::setsockopt(fd.get(), SOL_SOCKET, SO_REUSEADDR, &one, sizeof one);
    if (::bind(fd.get(), ai->ai_addr, ai->ai_addrlen) != 0) {
      last = "bind: " + errno_text(errno);
      continue;
    }
    if (::listen(fd.get(), 128) != 0) {
      last = "listen: " + errno_text(errno);
      continue;
    }
    set_nonblocking(fd.get());
    ::freeaddrinfo(res);
    return fd;
  }
  ::freeaddrinfo(res);
  error = "cannot listen on " + (host.empty() ? std::string("*") : host) + ":" + service + ": " + last;
  return {};
}

unique_fd connect_tcp(const host_port& to, deadline by, std::string& error) {
  addrinfo hints{};
  hints.ai_family = AF_UNSPEC;
  hints.ai_socktype = SOCK_STREAM;
  hints.ai_flags = AI_NUMERICSERV;
  addrinfo* res = nullptr;
  const std::string service = std::to_string(to.port);
  if (int rc = ::getaddrinfo(to.host.c_str(), service.c_str(), &hints, &res); rc != 0) {
    error = "cannot resolve '" + to.host + "': " + ::gai_strerror(rc);
    return {};
  }
  std::string last = "no usable address";
  for (addrinfo* ai = res; ai; ai = ai->ai_next) {
    unique_fd fd(::socket(ai->ai_family, ai->ai_socktype | SOCK_CLOEXEC | SOCK_NONBLOCK, ai->ai_protocol));
    if (!fd) {
      last = errno_text(errno);
      continue;
    }
    if (::connect(fd.get(), ai->ai_addr, ai->ai_addrlen) != 0) {
      if (errno != EINPROGRESS) {
        last = errno_text(errno);
        continue;
      }
      pollfd p{fd.get(), POLLOUT, 0};
      int rc;
      do rc = ::poll(&p, 1, poll_timeout_ms(by));
      while (rc < 0 && errno == EINTR);
      if (rc == 0) {
        last = "timed out";
        continue;
      }
      int soerr = 0;
      socklen_t len = sizeof soerr;
      ::getsockopt(fd.get(), SOL_SOCKET, SO_ERROR, &soerr, &len);
      if (rc < 0 || soerr != 0) {
        last = errno_text(rc < 0 ? errno : soerr);
        continue;
      }
    }
    set_nodelay(fd.get());
    ::freeaddrinfo(res);
    return fd;
  }
  ::freeaddrinfo(res);
  error = "cannot connect to " + to.str() + ": " + last;
  return {};
}

bool write_all(int fd, std::span<const std::byte> bytes, deadline by, std::string& error) {
  while (!bytes.empty()) {
    const ssize_t n = ::send(fd, bytes.data(), bytes.size(), MSG_NOSIGNAL);
    if (n > 0) {
      bytes = bytes.subspan(static_cast<std::size_t>(n));
      continue;
    }
    if (n < 0 && errno == EINTR) continue;
    if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK)) {
      pollfd p{fd, POLLOUT, 0};
      const int rc = ::poll(&p, 1, poll_timeout_ms(by));
      if (rc == 0) {
        error = "timed out writing to " + remote_address(fd);
        return false;
      }
      continue;
    }
    error = "write to " + remote_address(fd) + " failed: " + errno_text(errno);
    return false;
  }
  return true;
}

bool read_frame(int fd, frame_decoder& dec, deadline by, frame_decoder::result& out, std::string& error) {
  for (;;) {
    out = dec.next();
    if (out.st == frame_decoder::status::frame) return true;
    if (out.st == frame_decoder::status::error) {
      error = "malformed frame: " + dec.error_message();
      return false;
    }
    auto w = dec.writable();
    const ssize_t n = ::recv(fd, w.data(), w.size(), 0);
    if (n > 0) {
      dec.commit(static_cast<std::size_t>(n));
      continue;
    }
    if (n == 0) {
      error = "connection closed";
      return false;
    }
    if (errno == EINTR) continue;
    if (errno == EAGAIN || errno == EWOULDBLOCK) {
      pollfd p{fd, POLLIN, 0};
      const int rc = ::poll(&p, 1, poll_timeout_ms(by));
      if (rc == 0) {
        error = "timed out";
        return false;
      }
      continue;
    }
    error = errno_text(errno);
    return false;
  }
}

}  // namespace roam::detail::tcp
