// Placement along the space-filling curve and the checks of a mesh (amr.hpp).
#include "amr.hpp"

#include <cmath>
#include <set>
#include <utility>

namespace amr {

// Blocks in space-filling-curve order, cut into P equal ranges: a PE holds
// a compact region, so most ghost faces stay on it. (Hashed indices put
// half the faces between PEs: +p2 ran no faster than +p1.)
std::uint32_t curve_map(const quad_index& q, std::uint32_t pes) {
  const std::uint64_t along = curve_key(q);  // below 2^62
  return static_cast<std::uint32_t>(((along >> 30) * pes) >> 32);
}

// The leaves tile the domain, each face meets leaves within one level, and
// each leaf's relations say so. An empty string when all of that holds.
std::string mesh_problem(const std::vector<std::vector<double>>& leaves) {
  std::set<std::pair<std::uint32_t, std::uint64_t>> have;
  double area = 0;
  for (const auto& l : leaves) {
    const quad_index q = quad_index::at(static_cast<std::uint32_t>(l[0]), static_cast<std::uint32_t>(l[1]), static_cast<std::uint32_t>(l[2]));
    have.insert({q.depth, q.path});
    area += std::ldexp(1.0, -2 * static_cast<int>(q.depth));
  }
  auto is_leaf = [&](const quad_index& q) { return have.count({q.depth, q.path}) != 0; };
  if (have.size() != leaves.size() || std::abs(area - 1.0) > 1e-12) return "the leaves do not tile the domain (area " + std::to_string(area) + ")";
  for (const auto& l : leaves) {
    const quad_index q = quad_index::at(static_cast<std::uint32_t>(l[0]), static_cast<std::uint32_t>(l[1]), static_cast<std::uint32_t>(l[2]));
    for (int f = 0; f < 4; ++f) {
      int actual = 99;
      const auto same = q.neighbor(dirs[f][0], dirs[f][1], true);
      const auto coarse = q.coarser_neighbor(dirs[f][0], dirs[f][1], true);
      const auto fine = q.finer_neighbors(dirs[f][0], dirs[f][1], true);
      if (same && is_leaf(*same)) actual = 0;
      else if (coarse && is_leaf(*coarse)) actual = -1;
      else if (fine && is_leaf(fine->first) && is_leaf(fine->second)) actual = 1;
      if (actual == 99) return "leaf " + q.str() + ": face " + std::to_string(f) + " meets leaves more than one level away";
      if (actual != static_cast<int>(l[3 + static_cast<std::size_t>(f)]))
        return "leaf " + q.str() + ": face " + std::to_string(f) + " believes " + std::to_string(static_cast<int>(l[3 + static_cast<std::size_t>(f)])) +
               ", is " + std::to_string(actual);
    }
  }
  return {};
}

// Where the blob's edge is at step t (left, right, below, above its centre),
// the leaves are of the deepest depth allowed. An empty string when so.
std::string blob_edge_problem(const std::vector<std::vector<double>>& leaves, const settings& s, int t) {
  const double cx = 0.3 + s.u * s.dt() * t, cy = 0.3 + s.v * s.dt() * t;
  const double points[4][2] = {{cx - 0.15, cy}, {cx + 0.15, cy}, {cx, cy - 0.15}, {cx, cy + 0.15}};
  for (const auto& p : points) {
    const double x = p[0] - std::floor(p[0]), y = p[1] - std::floor(p[1]);
    for (const auto& l : leaves) {
      const double size = std::ldexp(1.0, -static_cast<int>(l[0]));
      if (x < l[1] * size || x >= (l[1] + 1) * size || y < l[2] * size || y >= (l[2] + 1) * size) continue;
      if (static_cast<std::uint32_t>(l[0]) != s.max_depth)
        return "the blob's edge at (" + std::to_string(x) + ", " + std::to_string(y) + ") is in a leaf of depth " +
               std::to_string(static_cast<int>(l[0])) + ", not " + std::to_string(s.max_depth);
    }
  }
  return {};
}

std::string levels(const segment_stats& s) {
  std::string out;
  for (std::size_t d = 0; d < 32; ++d)
    if (s[1 + d] > 0) {
      if (!out.empty()) out += ' ';
      out += 'd';
      out += std::to_string(d);
      out += ':';
      out += std::to_string(static_cast<long>(s[1 + d]));
    }
  return out;
}

}  // namespace amr
