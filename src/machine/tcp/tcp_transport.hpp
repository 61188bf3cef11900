#pragma once
// tcp_transport: the transport for processes started by roamrun. One
// authenticated, non-blocking TCP connection per peer (full mesh, built by
// bootstrap.hpp), one epoll set for all of them plus an eventfd for wake().
//
// Threads (transport.hpp): sends come from any thread and go straight to the
// socket when nothing is queued for that peer (peer_connection.hpp); all
// reading, delivery, heartbeats and failure handling happen on the progress
// thread, so the receive-side state below needs no locks.
//
// Failure model: a peer is reported (once) when its connection closes or
// resets before its finish frame arrived, when it sends a malformed or
// unexpected frame, or when nothing (not even a heartbeat) arrived from it for
// heartbeat_timeout. After its finish frame nothing about it is reported.
#include <array>
#include <atomic>
#include <chrono>
#include <cstdint>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include <sys/epoll.h>

#include <roam/machine/detail/transport.hpp>

#include "tcp/bootstrap.hpp"
#include "tcp/peer_connection.hpp"
#include "tcp/segmented_frame.hpp"
#include "tcp/tcp_config.hpp"

namespace roam::detail::tcp {

class tcp_transport final : public transport {
 public:
  /// Takes over the bootstrapped sockets. nullptr and `error` if the epoll set
  /// or eventfd cannot be created.
  static std::unique_ptr<tcp_transport> create(tcp_config cfg, bootstrap_result boot, std::string& error);
  ~tcp_transport() override;

  const char* name() const noexcept override { return "tcp"; }
  std::uint32_t my_node() const noexcept override { return cfg_.node; }
  std::uint32_t num_nodes() const noexcept override { return cfg_.nodes; }
  void set_handlers(transport_handlers h) override;
  void send(std::uint32_t dst, out_frame frame) override;
  bool progress() override;
  void wait(std::chrono::microseconds timeout) override;
  void wake() noexcept override;
  std::vector<std::vector<std::byte>> allgather(std::span<const std::byte> mine) override;
  void finish() override;
  void drop_peer(std::uint32_t node) override;
  void tell_launcher(std::string_view line) override;

  /// Where this node accepts peer connections (tests dial it as a stranger).
  const host_port& listen_address() const noexcept { return listen_address_; }

 private:
  tcp_transport(tcp_config cfg, bootstrap_result& boot);

  // epoll data tags: a peer's tag is its node number.
  static constexpr std::uint64_t tag_wake = std::uint64_t{1} << 40;
  static constexpr std::uint64_t tag_listener = tag_wake + 1;
  static constexpr std::uint64_t tag_launcher = tag_wake + 2;
  static constexpr std::uint64_t tag_stray = std::uint64_t{1} << 41;  // + stray id

  /// Receive-side view of one peer (progress thread only).
  struct peer_state {
    bool finish_received = false;
    bool gone = false;          // connection closed; reported unless it finished in order
    bool socket_done = false;   // no more bytes will come; deliver what is buffered, then close
    bool in_backlog = false;
    bool received_recently = false;
    std::string end_reason;     // why the socket ended, for the report
    clock::time_point last_recv{};
    clock::time_point last_send{};
  };
  /// An accepted connection that has not (yet) shown a valid hello. After
  /// bootstrap every one of them is refused; we read its hello only to log why.
  struct stray {
    std::uint64_t id = 0;
    unique_fd fd;
    std::string remote;
    frame_decoder decoder;
    clock::time_point since{};
  };

  bool progress_with(std::size_t budget);
  void handle_event(const epoll_event& ev, std::size_t& budget);
  void read_peer(std::uint32_t node, std::size_t& budget);
  void deliver(std::uint32_t node, std::size_t& budget);
  // Hands a user_segmented frame to on_frame; false (peer reported) if it is malformed.
  bool deliver_segmented(std::uint32_t node, std::span<const std::byte> payload);
  void end_socket(std::uint32_t node, std::string reason);
  void peer_gone(std::uint32_t node, const std::string& why);
  void report_failure(std::uint32_t node, const std::string& why);
  void handle_send_breaks(std::size_t& budget);
  void check_timers(clock::time_point now);
  void accept_strays();
  void handle_stray(std::uint64_t id);
  void drop_stray(std::size_t index, const std::string& why);
  void handle_launcher();
  std::string who(std::uint32_t node) const;

  tcp_config cfg_;
  unique_fd epoll_;
  unique_fd wake_fd_;
  unique_fd listener_;
  unique_fd launcher_;
  frame_decoder launcher_decoder_;
  host_port listen_address_;
  std::vector<std::unique_ptr<peer_connection>> peers_;  // [node]; null for this node
  std::vector<peer_state> state_;                        // [node]

  transport_handlers handlers_{};
  bool handlers_set_ = false;
  std::vector<std::pair<std::uint32_t, std::string>> unreported_;  // failures seen before handlers existed
  std::vector<std::uint32_t> backlog_;  // peers with frames decoded but not yet delivered (burst cap)
  std::vector<stray> strays_;
  segmented_payload segmented_;                 // scratch for deliver_segmented
  std::vector<frame_segment> received_segments_;
  std::uint64_t next_stray_id_ = 0;

  std::array<epoll_event, 64> events_{};
  int cached_events_ = 0;  // events a wait() collected, for the next progress()
  std::uint32_t progress_calls_ = 0;
  /// With one peer, progress() reads its socket directly: one recv() is
  /// cheaper than epoll_wait() + recv(), and this is the latency-bound case.
  /// epoll still runs every direct_epoll_period calls for everything else.
  bool direct_poll_ = false;
  bool finishing_ = false;
  bool finished_ = false;

  std::atomic<bool> sleeping_{false};
  std::atomic<bool> wake_pending_{false};
  std::atomic<bool> send_breaks_{false};
};

}  // namespace roam::detail::tcp
