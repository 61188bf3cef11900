#pragma once
// The environment contract between roamrun and the processes it starts, and
// the transport's tunables. roamrun sets the first block; the tunables are
// optional and may be set by the user (roamrun passes ROAM_* through, also to
// remote hosts).
#include <chrono>
#include <cstdint>
#include <functional>
#include <optional>
#include <string>

#include "tcp/job_secret.hpp"
#include "tcp/socket_io.hpp"

namespace roam::detail::tcp {

// Set by roamrun for every process.
inline constexpr const char* env_node = "ROAM_TCP_NODE";          ///< this process's node number, 0..n-1
inline constexpr const char* env_nodes = "ROAM_TCP_NODES";        ///< the node count n
inline constexpr const char* env_launcher = "ROAM_TCP_LAUNCHER";  ///< host:port of roamrun's control socket
inline constexpr const char* env_secret = "ROAM_TCP_SECRET";      ///< 32 hex digits, the job secret
// Optional tunables.
inline constexpr const char* env_heartbeat_interval = "ROAM_TCP_HEARTBEAT_INTERVAL_MS";
inline constexpr const char* env_heartbeat_timeout = "ROAM_TCP_HEARTBEAT_TIMEOUT_MS";
inline constexpr const char* env_finish_timeout = "ROAM_TCP_FINISH_TIMEOUT_MS";
inline constexpr const char* env_connect_timeout = "ROAM_TCP_CONNECT_TIMEOUT_MS";
inline constexpr const char* env_max_frame = "ROAM_TCP_MAX_FRAME";
inline constexpr const char* env_burst = "ROAM_TCP_BURST";

struct tcp_config {
  std::uint32_t node = 0;
  std::uint32_t nodes = 0;
  host_port launcher;
  job_secret secret;
  /// A connection idle this long gets a heartbeat frame.
  std::chrono::milliseconds heartbeat_interval{1000};
  /// A peer silent this long (no frame, no heartbeat) is reported failed.
  std::chrono::milliseconds heartbeat_timeout{60000};
  /// How long finish() waits for the peers' finish frames.
  std::chrono::milliseconds finish_timeout{10000};
  /// How long bootstrap waits for roamrun and the peers.
  std::chrono::milliseconds connect_timeout{30000};
  /// Largest frame payload accepted from a peer.
  std::uint64_t max_frame = std::uint64_t{1} << 30;
  /// Most user frames one progress() call delivers.
  std::uint32_t burst = 64;
};

/// Reads the contract through `get` (std::getenv in production). nullopt and
/// `error` (naming the variable and the bad value) when something is missing
/// or malformed.
std::optional<tcp_config> read_tcp_config(const std::function<const char*(const char*)>& get, std::string& error);

}  // namespace roam::detail::tcp
