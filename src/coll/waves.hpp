#pragma once
// A counting wave: from PE 0 down the PE tree and back up, summing two
// counters of every PE. Quiescence and completion detection both decide from
// two consecutive waves. Wave messages are uncounted runtime control messages.
#include <cstdint>

#include <roam/sched/detail/tree.hpp>

namespace roam::detail {

/// The spanning tree of every PE that waves and array reductions go down.
pe_tree all_pes();

inline constexpr std::uint32_t wave_root = 0;

/// What a wave counts: the kind is the tag's high half, the low half its instance.
enum class wave_kind : std::uint32_t { quiescence = 0, completion = 1 };
constexpr std::uint64_t wave_tag(wave_kind k, std::uint32_t instance) noexcept {
  return (static_cast<std::uint64_t>(k) << 32) | instance;
}

/// Starts a wave (call on PE 0). Several waves with different tags may run at once.
void start_wave(std::uint64_t tag);

// Provided by the detectors: this PE's two counters, and the decision on PE 0.
void quiescence_counts(std::uint64_t tag, std::uint64_t& a, std::uint64_t& b);
void quiescence_result(std::uint64_t tag, std::uint64_t a, std::uint64_t b);
void completion_counts_of(std::uint64_t tag, std::uint64_t& a, std::uint64_t& b);
void completion_result(std::uint64_t tag, std::uint64_t a, std::uint64_t b);

}  // namespace roam::detail
