#pragma once
// A counting wave: from PE 0 down the PE tree and back up, summing two
// counters of every PE. Quiescence and completion detection both decide from
// two consecutive waves. Wave messages are uncounted runtime traffic.
#include <cstdint>

namespace roam::detail {

/// The two counters of this PE for wave kind `tag`.
using wave_counts_fn = void (*)(std::uint64_t tag, std::uint64_t& a, std::uint64_t& b);
/// Runs on PE 0 with the totals.
using wave_result_fn = void (*)(std::uint64_t tag, std::uint64_t a, std::uint64_t b);

inline constexpr std::uint32_t wave_root = 0;

/// Starts a wave (call on PE 0). Several waves with different tags may run at once.
void start_wave(std::uint64_t tag, wave_counts_fn counts, wave_result_fn result);

}  // namespace roam::detail
