#pragma once
// k-ary spanning trees over a list of PEs. Broadcasts, reductions,
// multicasts and quiescence waves all travel along these trees; the
// branching factor is the runtime option +bfactor (default 4).
#include <cstdint>
#include <span>

namespace roam::detail {

/// The tree over ranks 0..n-1 (rank r is members[r] for a member list), rooted at rank 0.
struct kary_tree {
  std::uint32_t n = 1;
  std::uint32_t k = 4;

  /// Parent rank of `r` (r > 0).
  constexpr std::uint32_t parent(std::uint32_t r) const noexcept { return (r - 1) / k; }
  /// First child rank of `r` and how many children it has.
  constexpr std::uint32_t first_child(std::uint32_t r) const noexcept { return r * k + 1; }
  constexpr std::uint32_t child_count(std::uint32_t r) const noexcept {
    std::uint64_t first = std::uint64_t{r} * k + 1;
    if (first >= n) return 0;
    std::uint64_t last = first + k;
    return static_cast<std::uint32_t>((last > n ? n : last) - first);
  }
};

}  // namespace roam::detail
