#include "tcp/peer_connection.hpp"

#include <sys/epoll.h>
#include <sys/socket.h>

#include <cerrno>

#include "tcp/segmented_frame.hpp"

namespace roam::detail::tcp {

namespace {
// iovecs per sendmsg when flushing a backlog: enough to batch many small
// frames into one syscall, far below IOV_MAX.
constexpr std::size_t flush_iovecs = 64;

ssize_t send_iov(int fd, iovec* iov, std::size_t n) noexcept {
  msghdr m{};
  m.msg_iov = iov;
  m.msg_iovlen = n;
  ssize_t rc;
  do rc = ::sendmsg(fd, &m, MSG_NOSIGNAL);
  while (rc < 0 && errno == EINTR);
  return rc;
}
}  // namespace

peer_connection::peer_connection(std::uint32_t node, std::string address, unique_fd fd, frame_decoder decoder,
                                 int epoll_fd, std::uint64_t epoll_tag)
    : node_(node),
      address_(std::move(address)),
      epoll_fd_(epoll_fd),
      epoll_tag_(epoll_tag),
      fd_(std::move(fd)),
      decoder_(std::move(decoder)) {}

void peer_connection::set_want_out(bool on) noexcept {
  if (want_out_ == on || !fd_) return;
  epoll_event ev{};
  ev.events = EPOLLIN | (on ? EPOLLOUT : 0u);
  ev.data.u64 = epoll_tag_;
  ::epoll_ctl(epoll_fd_, EPOLL_CTL_MOD, fd_.get(), &ev);
  want_out_ = on;
  want_out_hint_.store(on, std::memory_order_relaxed);
}

void peer_connection::mark_broken(int err) noexcept {
  broken_ = true;
  try {
    send_error_ = errno_text(err);
  } catch (...) {
  }
  queue_.clear();
  set_want_out(false);
}

std::size_t peer_connection::queued_frame::add_iovecs(iovec* iov, std::size_t& n, std::size_t room) const noexcept {
  std::size_t skip = written, covered = 0;
  auto piece = [&](const std::byte* p, std::size_t len) {
    if (skip >= len) {  // written already (or empty)
      skip -= len;
      return true;
    }
    if (n == room) return false;
    iov[n++] = {const_cast<std::byte*>(p) + skip, len - skip};
    covered += len - skip;
    skip = 0;
    return true;
  };
  if (!piece(header.data(), header.size()) || !piece(table.data(), table.size()) ||
      !piece(frame.data(), frame.size()))
    return covered;
  for (const auto& s : frame.segments())
    if (!piece(s.block.data(), s.bytes)) break;
  return covered;
}

bool peer_connection::send(frame_kind kind, out_frame frame) noexcept {
  queued_frame q;
  try {
    if (kind == frame_kind::user_segmented) q.table = encode_segment_table(frame);
  } catch (...) {
    std::lock_guard lock(send_mu_);
    mark_broken(ENOMEM);
    return false;
  }
  q.frame = std::move(frame);
  q.header = encode_header(kind, q.size() - frame_header_size);
  std::lock_guard lock(send_mu_);
  if (!fd_ || broken_) return true;
  sent_recently_.store(true, std::memory_order_relaxed);
  if (queue_.empty()) {
    // Fast path: straight from the caller's thread, every part in one syscall.
    iovec iov[flush_iovecs];
    std::size_t n_iov = 0;
    const std::size_t total = q.add_iovecs(iov, n_iov, flush_iovecs);
    const ssize_t n = send_iov(fd_.get(), iov, n_iov);
    if (n >= 0 && static_cast<std::size_t>(n) == total && total == q.size()) return true;
    if (n < 0 && errno != EAGAIN && errno != EWOULDBLOCK) {
      mark_broken(errno);
      return false;
    }
    q.written = n > 0 ? static_cast<std::size_t>(n) : 0;
  }
  try {
    queue_.push_back(std::move(q));
  } catch (...) {
    // Out of memory with a partly written frame: the stream cannot continue.
    mark_broken(ENOMEM);
    return false;
  }
  set_want_out(true);
  return true;
}

bool peer_connection::flush_locked() noexcept {
  while (!queue_.empty()) {
    iovec iov[flush_iovecs];
    std::size_t n_iov = 0, total = 0;
    for (auto it = queue_.begin(); it != queue_.end() && n_iov < flush_iovecs; ++it)
      total += it->add_iovecs(iov, n_iov, flush_iovecs);
    const ssize_t rc = send_iov(fd_.get(), iov, n_iov);
    if (rc < 0) {
      if (errno == EAGAIN || errno == EWOULDBLOCK) return true;
      mark_broken(errno);
      return false;
    }
    auto n = static_cast<std::size_t>(rc);
    while (n > 0) {
      queued_frame& f = queue_.front();
      const std::size_t left = f.size() - f.written;
      if (n < left) {
        f.written += n;
        break;
      }
      n -= left;
      queue_.pop_front();
    }
    if (static_cast<std::size_t>(rc) < total) return true;  // socket full; EPOLLOUT will call again
  }
  set_want_out(false);
  return true;
}

bool peer_connection::flush() noexcept {
  std::lock_guard lock(send_mu_);
  if (!fd_ || broken_) return !broken_;
  return flush_locked();
}

bool peer_connection::has_queued() noexcept {
  std::lock_guard lock(send_mu_);
  return !queue_.empty();
}

std::string peer_connection::send_error() {
  std::lock_guard lock(send_mu_);
  return send_error_;
}

bool peer_connection::send_broken() noexcept {
  std::lock_guard lock(send_mu_);
  return broken_;
}

peer_connection::read_status peer_connection::read_some(std::string& why) noexcept {
  if (!fd_) return read_status::closed;
  std::span<std::byte> w;
  try {
    w = decoder_.writable();
  } catch (...) {
    why = "out of memory for a " + std::to_string(decoder_.buffered()) + "-byte receive buffer";
    return read_status::error;
  }
  ssize_t n;
  do n = ::recv(fd_.get(), w.data(), w.size(), 0);
  while (n < 0 && errno == EINTR);
  if (n > 0) {
    decoder_.commit(static_cast<std::size_t>(n));
    return read_status::data;
  }
  if (n == 0) return read_status::closed;
  if (errno == EAGAIN || errno == EWOULDBLOCK) return read_status::nothing;
  why = errno_text(errno);
  return read_status::error;
}

void peer_connection::close() noexcept {
  std::lock_guard lock(send_mu_);
  if (!fd_) return;
  ::epoll_ctl(epoll_fd_, EPOLL_CTL_DEL, fd_.get(), nullptr);
  fd_.reset();
  queue_.clear();
  want_out_ = false;
  want_out_hint_.store(false, std::memory_order_relaxed);
}

}  // namespace roam::detail::tcp
