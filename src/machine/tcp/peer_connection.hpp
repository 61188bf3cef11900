#pragma once
// peer_connection: one established, authenticated socket to another node.
//
// Threads: the send side (send(), the queue, the socket's write end and its
// EPOLLOUT interest) is guarded by send_mu_ and used from any thread; the
// receive side (decoder(), read_some()) belongs to the progress thread.
//
// Invariants (under send_mu_)
// - queue_ holds frames, in send order, that the socket has not fully taken;
//   send() writes straight to the socket only when queue_ is empty, so per-pair
//   FIFO holds across threads (order = order of taking send_mu_).
// - EPOLLOUT is registered exactly when queue_ is non-empty, so the progress
//   thread wakes to flush it and otherwise never spins on a writable socket.
// - After close() or a send error nothing more is written; later frames are
//   dropped (the peer is gone; its failure is reported once, elsewhere).
#include <sys/uio.h>

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <deque>
#include <mutex>
#include <span>
#include <string>
#include <vector>

#include <roam/machine/detail/frame.hpp>

#include "tcp/frame_decoder.hpp"
#include "tcp/frame_format.hpp"
#include "tcp/socket_io.hpp"

namespace roam::detail::tcp {

class peer_connection {
 public:
  /// `fd` is connected, non-blocking and already registered in `epoll_fd`
  /// for EPOLLIN with `epoll_tag` as its data.
  peer_connection(std::uint32_t node, std::string address, unique_fd fd, frame_decoder decoder, int epoll_fd,
                  std::uint64_t epoll_tag);
  peer_connection(const peer_connection&) = delete;
  peer_connection& operator=(const peer_connection&) = delete;

  std::uint32_t node() const noexcept { return node_; }
  /// "host:port" this node listens on, for messages.
  const std::string& address() const noexcept { return address_; }

  // ---- send side: any thread ------------------------------------------------
  /// Writes (or queues) one frame: `frame`'s inline bytes as the payload, or
  /// for user_segmented the segment table, the inline bytes and each
  /// segment, every part straight from its own memory (one sendmsg). Returns
  /// false only when this call found the connection broken (the error is kept
  /// for send_error()); the caller then tells the progress thread. Frames sent
  /// after close or breakage are dropped.
  bool send(frame_kind kind, out_frame frame) noexcept;
  /// Pushes queued frames as far as the socket takes them (progress thread, on
  /// EPOLLOUT). False when the connection broke.
  bool flush() noexcept;
  /// True if frames are waiting for socket space.
  bool has_queued() noexcept;
  /// Lock-free hint for the progress thread: frames may be waiting for space.
  bool may_have_queued() const noexcept { return want_out_hint_.load(std::memory_order_relaxed); }
  /// True (and cleared) if anything was sent since the last call: heartbeats
  /// are only needed on idle connections.
  bool take_sent_recently() noexcept { return sent_recently_.exchange(false, std::memory_order_relaxed); }
  /// The errno text of the send that broke the connection, or "".
  std::string send_error();
  bool send_broken() noexcept;

  // ---- receive side: progress thread ---------------------------------------
  enum class read_status { data, nothing, closed, error };
  /// One recv() into the decoder. On `error`, `why` holds the errno text.
  read_status read_some(std::string& why) noexcept;
  frame_decoder& decoder() noexcept { return decoder_; }

  /// Closes the socket (progress thread); later sends are dropped.
  void close() noexcept;

 private:
  struct queued_frame {
    frame_header_bytes header;
    std::vector<std::byte> table;  // user_segmented only: the segment table
    out_frame frame;
    std::size_t written = 0;  // bytes already taken by the socket
    std::size_t size() const noexcept { return frame_header_size + table.size() + frame.total_bytes(); }
    // Appends iovecs for the bytes not yet written, while n < room; returns the bytes they cover.
    std::size_t add_iovecs(iovec* iov, std::size_t& n, std::size_t room) const noexcept;
  };
  void set_want_out(bool on) noexcept;
  bool flush_locked() noexcept;
  void mark_broken(int err) noexcept;

  const std::uint32_t node_;
  const std::string address_;
  const int epoll_fd_;
  const std::uint64_t epoll_tag_;

  std::mutex send_mu_;
  unique_fd fd_;  // written under send_mu_; the progress thread reads it without the lock (only it closes it)
  std::deque<queued_frame> queue_;
  bool want_out_ = false;
  std::atomic<bool> want_out_hint_{false};  // mirrors want_out_ for readers without the lock
  bool broken_ = false;
  std::string send_error_;
  std::atomic<bool> sent_recently_{false};

  frame_decoder decoder_;
};

}  // namespace roam::detail::tcp
