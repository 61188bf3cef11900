#pragma once
// Bootstrap: from the environment roamrun set to a full mesh of authenticated
// connections.
//
//  1. Connect to roamrun, exchange hellos (both sides prove the job secret).
//  2. Listen on the interface that reaches roamrun (port chosen by the kernel)
//     and register that host:port.
//  3. Receive the peer table (sent once every node has registered).
//  4. Dial every higher-numbered node and send a hello; accept every lower-
//     numbered one, check its hello and answer. Dialling never waits for the
//     other side's accept (the kernel completes connects into the backlog), so
//     the all-to-all cannot deadlock. Connections without a valid hello are
//     refused and logged; they do not stop the bootstrap.
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "tcp/frame_decoder.hpp"
#include "tcp/socket_io.hpp"
#include "tcp/tcp_config.hpp"

namespace roam::detail::tcp {

struct bootstrapped_peer {
  unique_fd fd;          ///< non-blocking, TCP_NODELAY
  std::string address;   ///< the host:port it listens on
  frame_decoder decoder; ///< may already hold the peer's first frames
};

struct bootstrap_result {
  unique_fd launcher;
  frame_decoder launcher_decoder;
  unique_fd listener;
  host_port listen_address;
  /// Indexed by node; the entry for this node has no fd.
  std::vector<bootstrapped_peer> peers;
};

/// Runs the steps above within cfg.connect_timeout. nullopt and `error` (naming
/// the node or roamrun that failed) when it cannot.
std::optional<bootstrap_result> bootstrap(const tcp_config& cfg, std::string& error);

}  // namespace roam::detail::tcp
