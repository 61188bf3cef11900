#pragma once
// Judging the first frame of a connection someone made to our listening port,
// both during bootstrap and afterwards (when every such connection is refused,
// but still logged).
#include <cstdint>
#include <functional>
#include <string>

#include "tcp/frame_decoder.hpp"
#include "tcp/tcp_config.hpp"

namespace roam::detail::tcp {

/// Payload cap before a connection is authenticated: a stranger's header must
/// not make us allocate more than a hello needs.
inline constexpr std::uint64_t handshake_max_payload = 64;

struct hello_verdict {
  bool waiting = false;   ///< no complete frame yet
  std::string refusal;    ///< why it is refused; "" when accepted
  std::uint32_t from = 0; ///< the node, when accepted
};

/// Looks at the next frame in `dec`: it must be a hello with the job secret,
/// addressed to cfg.node, from a node `expected` accepts.
hello_verdict judge_incoming_hello(frame_decoder& dec, const tcp_config& cfg,
                                   const std::function<bool(std::uint32_t)>& expected);

}  // namespace roam::detail::tcp
