#pragma once
/// Per-message options: priority and queueing order.
#include <cstdint>

namespace roam {

/// Options for one send. Smaller priority runs first; equal priorities run in
/// send order (FIFO) unless `lifo` puts the message ahead of its equals.
struct send_options {
  std::int32_t priority = 0;
  bool lifo = false;
};

/// Shorthand: `proxy.send<&T::f>(roam::priority(-3), args...)`.
constexpr send_options priority(std::int32_t p) noexcept { return {p, false}; }

}  // namespace roam
