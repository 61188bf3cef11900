#pragma once
// The checkpoint layer's runtime options (+ftcopies), declared by the layer
// itself (ft_options.cpp, through roam/sched/options.hpp).
#include <cstdint>

namespace roam::detail::ckpt {

struct ft_settings {
  /// +ftcopies K: other processes that keep a copy of each process's
  /// in-memory checkpoint file (at most the other processes there are), so
  /// that any K processes may fail at once.
  std::uint32_t copies = 1;
};

/// This process's settings, as the last parse left them.
const ft_settings& ft_options() noexcept;

}  // namespace roam::detail::ckpt
