#pragma once
// Spanning trees. Broadcasts, reductions, multicasts and quiescence waves all
// travel along them; the branching factor is the runtime option +bfactor
// (default 4). Trees cross processes first: the first PE of each node (its
// leader) sits in a k-ary tree of leaders, and each node's other PEs hang in
// a k-ary tree under their leader, so a message crosses the network once per
// node and fans out inside the node (the SMP layout of NAMD's runtime). With
// one node this is the plain k-ary tree over the PEs.
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

/// The node-aware tree over every PE of the program (nodes of `ppn` PEs), rooted at PE 0.
struct pe_tree {
  std::uint32_t num_pes = 1;
  std::uint32_t ppn = 1;
  std::uint32_t k = 4;

  /// Parent of `pe` (pe > 0).
  constexpr std::uint32_t parent(std::uint32_t pe) const noexcept {
    std::uint32_t node = pe / ppn, local = pe % ppn;
    if (local != 0) return node * ppn + kary_tree{ppn, k}.parent(local);
    return kary_tree{num_pes / ppn, k}.parent(node) * ppn;
  }
  /// Calls f(child) for each child of `pe`: other nodes' leaders first, then PEs of its own node.
  template <class F>
  constexpr void for_each_child(std::uint32_t pe, F&& f) const {
    std::uint32_t node = pe / ppn, local = pe % ppn;
    if (local == 0) {
      kary_tree leaders{num_pes / ppn, k};
      for (std::uint32_t c = 0; c < leaders.child_count(node); ++c) f((leaders.first_child(node) + c) * ppn);
    }
    kary_tree inside{ppn, k};
    for (std::uint32_t c = 0; c < inside.child_count(local); ++c) f(node * ppn + inside.first_child(local) + c);
  }
  constexpr std::uint32_t child_count(std::uint32_t pe) const noexcept {
    std::uint32_t n = 0;
    for_each_child(pe, [&](std::uint32_t) { ++n; });
    return n;
  }
};

/// The node-aware tree over an ascending list of member PEs, rooted at
/// members[0]: each node's first member leads that node's members.
struct member_tree {
  std::span<const std::uint32_t> members;
  std::uint32_t ppn = 1;
  std::uint32_t k = 4;

  /// Parent rank of rank `r` (r > 0).
  std::uint32_t parent(std::uint32_t r) const noexcept {
    std::uint32_t g = 0, start = 0;
    locate(r, g, start);
    if (r != start) return start + kary_tree{1, k}.parent(r - start);
    return leader_rank(kary_tree{groups(), k}.parent(g));
  }
  /// Calls f(child_rank) for each child of rank `r`.
  template <class F>
  void for_each_child(std::uint32_t r, F&& f) const {
    std::uint32_t g = 0, start = 0;
    locate(r, g, start);
    if (r == start) {
      kary_tree leaders{groups(), k};
      for (std::uint32_t c = 0; c < leaders.child_count(g); ++c) f(leader_rank(leaders.first_child(g) + c));
    }
    std::uint32_t size = group_size(start);
    kary_tree inside{size, k};
    for (std::uint32_t c = 0; c < inside.child_count(r - start); ++c) f(start + inside.first_child(r - start) + c);
  }
  std::uint32_t child_count(std::uint32_t r) const noexcept {
    std::uint32_t n = 0;
    for_each_child(r, [&](std::uint32_t) { ++n; });
    return n;
  }

 private:
  std::uint32_t node(std::uint32_t rank) const noexcept { return members[rank] / ppn; }
  // Group g (the g-th node present) and the rank its members start at.
  void locate(std::uint32_t r, std::uint32_t& g, std::uint32_t& start) const noexcept {
    g = 0;
    start = 0;
    for (std::uint32_t i = 1; i <= r; ++i) {
      if (node(i) != node(i - 1)) {
        ++g;
        start = i;
      }
    }
  }
  std::uint32_t groups() const noexcept {
    std::uint32_t g = members.empty() ? 0 : 1;
    for (std::uint32_t i = 1; i < members.size(); ++i) g += node(i) != node(i - 1) ? 1u : 0u;
    return g;
  }
  std::uint32_t leader_rank(std::uint32_t g) const noexcept {
    std::uint32_t seen = 0;
    for (std::uint32_t i = 1; i < members.size(); ++i) {
      if (node(i) != node(i - 1) && ++seen == g) return i;
    }
    return 0;
  }
  std::uint32_t group_size(std::uint32_t start) const noexcept {
    std::uint32_t end = start + 1;
    while (end < members.size() && node(end) == node(start)) ++end;
    return end - start;
  }
};

}  // namespace roam::detail
