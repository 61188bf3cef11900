#pragma once
// Where an operation's bytes are in one rank's memory: a strided section
// (ARMCI_PutS's base, strides and counts) or a list of equal segments
// (ARMCI_PutV's pointer arrays). Both sides of an operation walk their
// layouts in the same order, so the packed form (the segments back to back)
// is what travels.
#include <cstddef>
#include <cstdint>
#include <vector>

#include <roam/roam.hpp>

namespace roam::armci {

struct layout {
  std::vector<std::uint64_t> bases;   // strided: one; a vector: one per segment
  std::vector<std::int64_t> strides;  // strided: bytes between blocks at each level above the first
  std::vector<std::int64_t> counts;   // counts[0]: bytes of a segment; strided: counts[i] blocks at level i
  void pup(pup_er& p) { p | bases | strides | counts; }
};

/// A contiguous block.
layout contiguous(const void* at, std::int64_t bytes);
/// ARMCI's strided arguments (stride_levels levels; counts has levels + 1).
layout strided(const void* base, const int* strides, const int* counts, int levels);
/// `n` segments of `bytes` at `pointers`.
layout segments(void* const* pointers, int n, int bytes);

/// Bytes the layout covers.
std::int64_t total_bytes(const layout& l) noexcept;
/// The lowest address touched and one past the highest (lo == hi: nothing).
void span_of(const layout& l, std::uint64_t* lo, std::uint64_t* hi) noexcept;

/// Calls f(address, bytes) for each segment in order.
template <class F>
void for_each_segment(const layout& l, F&& f) {
  const std::int64_t bytes = l.counts.empty() ? 0 : l.counts[0];
  if (bytes <= 0) return;
  if (l.strides.empty()) {
    for (std::uint64_t b : l.bases) f(b, bytes);
    return;
  }
  const std::size_t levels = l.strides.size();
  for (std::size_t i = 1; i <= levels; ++i)
    if (l.counts[i] <= 0) return;
  std::vector<std::int64_t> index(levels, 0);
  const std::uint64_t base = l.bases.empty() ? 0 : l.bases[0];
  std::uint64_t at = base;
  for (;;) {
    f(at, bytes);
    std::size_t level = 0;
    while (level < levels) {
      if (++index[level] < l.counts[level + 1]) {
        at += static_cast<std::uint64_t>(l.strides[level]);
        break;
      }
      at -= static_cast<std::uint64_t>(l.strides[level] * (l.counts[level + 1] - 1));
      index[level] = 0;
      ++level;
    }
    if (level == levels) return;
  }
}

/// Copies the layout's bytes out to `out` (total_bytes of them) or in from `in`.
void gather(const layout& l, std::byte* out) noexcept;
void scatter(const layout& l, const std::byte* in) noexcept;

/// The size of one element of an ARMCI_ACC_* type (0: not one).
std::int64_t acc_element_bytes(int type) noexcept;
/// dst += scale * src for `bytes` of contiguous elements.
void accumulate_block(std::byte* dst, const std::byte* src, std::int64_t bytes, int type, const std::byte* scale) noexcept;
/// dst += scale * src element-wise over the layout, src packed.
void accumulate(const layout& dst, const std::byte* src, int type, const std::byte* scale) noexcept;

}  // namespace roam::armci
