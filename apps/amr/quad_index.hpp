#pragma once
// A block's place in the quad-tree, as the index of its array element: the
// path from the root as a bit vector (two bits per level, the quadrants'
// x and y bits interleaved: the Morton code of the block's position at its
// depth) and the depth. Neighbours, parent and children come from the index
// alone, in constant time; no PE holds the tree.
#include <cstdint>
#include <optional>
#include <string>
#include <utility>

namespace amr {

struct quad_index {
  std::uint64_t path = 0;   // bit 2k: x's bit k, bit 2k+1: y's bit k (k < depth)
  std::uint32_t depth = 0;  // 0: the root, the whole domain
  std::uint32_t unused = 0;  // zero: equal indices have equal bytes

  static constexpr std::uint32_t max_depth = 31;

  friend bool operator==(const quad_index&, const quad_index&) = default;

  static quad_index root() { return {}; }
  // The block at (x, y) of the 2^depth × 2^depth blocks of that depth.
  static quad_index at(std::uint32_t depth, std::uint32_t x, std::uint32_t y) {
    return {spread(x) | (spread(y) << 1), depth, 0};
  }
  std::uint32_t x() const { return gather(path); }
  std::uint32_t y() const { return gather(path >> 1); }
  std::uint32_t side() const { return 1u << depth; }  // blocks per side at this depth

  // Quadrant q (bit 0: right half, bit 1: upper half) one level down.
  quad_index child(unsigned q) const { return {(path << 2) | (q & 3u), depth + 1, 0}; }
  quad_index parent() const { return {path >> 2, depth - 1, 0}; }
  unsigned quadrant() const { return static_cast<unsigned>(path & 3u); }  // which child of its parent
  bool is_root() const { return depth == 0; }

  // The block of the same depth dx, dy blocks away (each -1, 0 or 1), or
  // none past the domain's edge; `periodic` wraps around instead.
  std::optional<quad_index> neighbor(int dx, int dy, bool periodic) const {
    const std::int64_t n = side();
    std::int64_t nx = static_cast<std::int64_t>(x()) + dx, ny = static_cast<std::int64_t>(y()) + dy;
    if (periodic) {
      nx = (nx + n) % n;
      ny = (ny + n) % n;
    } else if (nx < 0 || ny < 0 || nx >= n || ny >= n) {
      return std::nullopt;
    }
    return at(depth, static_cast<std::uint32_t>(nx), static_cast<std::uint32_t>(ny));
  }

  // Across the face toward (dx, dy) (one of them ±1, the other 0), a leaf
  // meets one leaf of its depth, or the leaf one level coarser that holds
  // that block, or the two children of that block that touch the face.
  std::optional<quad_index> coarser_neighbor(int dx, int dy, bool periodic) const {
    auto n = neighbor(dx, dy, periodic);
    if (!n || depth == 0) return std::nullopt;
    return n->parent();
  }
  // The two children of neighbor(dx, dy) on the shared face, in order along it.
  std::optional<std::pair<quad_index, quad_index>> finer_neighbors(int dx, int dy, bool periodic) const {
    auto n = neighbor(dx, dy, periodic);
    if (!n || depth >= max_depth) return std::nullopt;
    // Facing east (dx = 1) the neighbour's west children (x bit 0): 0 and 2;
    // west: 1 and 3; north (dy = 1) its south children: 0 and 1; south: 2 and 3.
    const unsigned a = dx == 1 ? 0u : dx == -1 ? 1u : dy == 1 ? 0u : 2u;
    const unsigned b = dx != 0 ? a + 2 : a + 1;
    return std::pair{n->child(a), n->child(b)};
  }

  // "d3:(5,2)": depth and position, for messages and reports.
  std::string str() const {
    std::string s = "d";  // appended piece by piece: GCC 12 warns (falsely) about a chain of operator+
    s += std::to_string(depth);
    s += ":(";
    s += std::to_string(x());
    s += ',';
    s += std::to_string(y());
    s += ')';
    return s;
  }

 private:
  // x's bits to the even bit positions (and back): a handful of shifts and masks.
  static std::uint64_t spread(std::uint32_t v) {
    std::uint64_t z = v;
    z = (z | (z << 16)) & 0x0000FFFF0000FFFFull;
    z = (z | (z << 8)) & 0x00FF00FF00FF00FFull;
    z = (z | (z << 4)) & 0x0F0F0F0F0F0F0F0Full;
    z = (z | (z << 2)) & 0x3333333333333333ull;
    z = (z | (z << 1)) & 0x5555555555555555ull;
    return z;
  }
  static std::uint32_t gather(std::uint64_t z) {
    z &= 0x5555555555555555ull;
    z = (z | (z >> 1)) & 0x3333333333333333ull;
    z = (z | (z >> 2)) & 0x0F0F0F0F0F0F0F0Full;
    z = (z | (z >> 4)) & 0x00FF00FF00FF00FFull;
    z = (z | (z >> 8)) & 0x0000FFFF0000FFFFull;
    z = (z | (z >> 16)) & 0x00000000FFFFFFFFull;
    return static_cast<std::uint32_t>(z);
  }
};

}  // namespace amr
