#pragma once
// The aggregation library's runtime options (+agg_*), declared by the
// library itself (src/aggregation_options.cpp, through roam/sched/options.hpp):
// the defaults an aggregator takes where the program left an option at 0
// ("the default"), so buffer sizes and the mesh can be tuned per run.
#include <cstdint>

namespace roam::aggregation::detail {

struct aggregation_defaults {
  std::uint32_t items_per_buffer = 1024;  ///< +agg_buffer N
  std::uint32_t buffers_in_flight = 8;    ///< +agg_in_flight N
  std::uint32_t dims = 0;                 ///< +agg_dims D (0: automatic)
};

/// This process's defaults, as the last parse of the runtime options left
/// them. Also what links the options' registration into every program that
/// aggregates.
const aggregation_defaults& command_line_defaults() noexcept;

}  // namespace roam::aggregation::detail
