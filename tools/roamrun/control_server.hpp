#pragma once
// roamrun's end of the bootstrap: accepts the nodes' control connections,
// checks their hellos (the job secret), collects the host:port each node
// listens on, sends every node the full table once all have registered, and
// serves allgather rounds (a round completes when every node has sent its blob
// for it; every node then gets all blobs). Connections that fail the handshake
// are refused and logged with their remote address.
#include <cstdint>
#include <deque>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "tcp/frame_decoder.hpp"
#include "tcp/job_secret.hpp"
#include "tcp/socket_io.hpp"

namespace roam::detail::roamrun {

class control_server {
 public:
  control_server(roam::detail::tcp::unique_fd listener, roam::detail::tcp::job_secret secret, std::uint32_t nodes,
                 bool verbose);

  /// Descriptors to poll for input.
  std::vector<int> poll_fds() const;
  /// `fd` (one of poll_fds()) is readable or hung up.
  void on_ready(int fd);
  /// A node's note (a failure it declared, a recovery): `on_note(node, line)`.
  std::function<void(std::uint32_t, const std::string&)> on_note;

  /// Refuses connections that have not said hello in time; returns the next
  /// time this needs calling (or time_point::max()).
  roam::detail::tcp::clock::time_point check_timeouts(roam::detail::tcp::clock::time_point now);

 private:
  struct connection {
    roam::detail::tcp::unique_fd fd;
    std::string remote;
    roam::detail::tcp::frame_decoder decoder;
    std::optional<std::uint32_t> node;  // set once its hello is accepted
    roam::detail::tcp::clock::time_point since;
  };
  void accept_all();
  /// False when the connection must be closed.
  bool handle_frames(connection& c);
  void refuse(connection& c, const std::string& why);
  bool send_to(std::uint32_t node, const std::vector<std::byte>& frame);
  void maybe_send_table();
  void maybe_finish_round();

  roam::detail::tcp::unique_fd listener_;
  roam::detail::tcp::job_secret secret_;
  std::uint32_t nodes_;
  bool verbose_;
  std::vector<connection> conns_;
  std::vector<int> node_fd_;                                         // [node] -> fd, -1 if none
  std::vector<std::optional<roam::detail::tcp::host_port>> table_;   // [node]
  bool table_sent_ = false;
  std::vector<std::deque<std::vector<std::byte>>> rounds_;           // [node] -> blobs of rounds not yet complete
};

}  // namespace roam::detail::roamrun
