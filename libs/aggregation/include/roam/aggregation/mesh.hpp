#pragma once
/// The virtual mesh an aggregator routes over. PEs are laid out on an N-D
/// grid of extents d0 x d1 x ... (their product is the number of PEs), PE
/// p at coordinates c0 = p % d0, c1 = (p / d0) % d1, ... An item travels one
/// dimension at a time, highest first: each hop replaces one coordinate by the
/// destination's. So a PE only ever sends to the PEs that differ from it in
/// one coordinate, sum(dk - 1) peers instead of P - 1, and items for many
/// destinations share one buffer to the same next hop.
///
/// Node-aware (SMP: several PEs per process): the fastest dimension is the
/// PEs of one process, the others span the processes. Items cross between
/// processes first, to the PE of the destination process with the sender's
/// rank in it, and fan out inside that process last: one buffer per remote
/// process from each PE.
#include <cstdint>
#include <span>
#include <string>
#include <vector>

namespace roam::aggregation {

class virtual_mesh {
 public:
  virtual_mesh() = default;
  /// A mesh of the given extents (their product is the number of PEs; an
  /// extent of 0 or a wrong product throws std::invalid_argument).
  explicit virtual_mesh(std::vector<std::uint32_t> extents);

  /// The automatic choice for `pes` PEs in `pes_per_node`-PE processes:
  /// `dims` dimensions (0: 1 up to 64 PEs, 2 up to 4096, else 3), as even as
  /// the factors of the PE count allow. With `node_aware` and more than one
  /// PE per process over more than one process, the first extent is the
  /// PEs per process and the remaining dimensions are laid over the processes.
  static virtual_mesh automatic(std::uint32_t pes, std::uint32_t dims = 0, std::uint32_t pes_per_node = 1,
                                bool node_aware = true);

  /// The PE an item at `from` for `to` goes to next (`to` itself on the last
  /// hop; `from` when from == to).
  std::uint32_t next_hop(std::uint32_t from, std::uint32_t to) const noexcept {
    if (extents_.size() == 1) return to;  // direct: no division per item
    for (std::size_t k = extents_.size(); k-- > 0;) {
      const std::uint32_t cf = from / strides_[k] % extents_[k];
      const std::uint32_t ct = to / strides_[k] % extents_[k];
      if (cf != ct) return from - cf * strides_[k] + ct * strides_[k];
    }
    return from;
  }
  /// The highest dimension in which `a` and `b` differ (for two peers, the one
  /// they differ in); 0 when they are equal.
  std::uint32_t dimension_between(std::uint32_t a, std::uint32_t b) const noexcept {
    for (std::size_t k = extents_.size(); k-- > 0;)
      if (a / strides_[k] % extents_[k] != b / strides_[k] % extents_[k]) return static_cast<std::uint32_t>(k);
    return 0;
  }
  /// The PEs `pe` may send to: those differing from it in one coordinate.
  std::vector<std::uint32_t> peers(std::uint32_t pe) const;
  /// The number of hops from `from` to `to` (coordinates that differ).
  std::uint32_t hops(std::uint32_t from, std::uint32_t to) const noexcept;

  std::span<const std::uint32_t> extents() const noexcept { return extents_; }
  std::uint32_t size() const noexcept { return size_; }
  /// "4x2" (for reports).
  std::string describe() const;

 private:
  std::vector<std::uint32_t> extents_;
  std::vector<std::uint32_t> strides_;
  std::uint32_t size_ = 0;
};

/// `n` split into `k` factors as even as its divisors allow, largest first
/// (a prime n gives {n, 1, ...}).
std::vector<std::uint32_t> balanced_factors(std::uint32_t n, std::uint32_t k);

}  // namespace roam::aggregation
