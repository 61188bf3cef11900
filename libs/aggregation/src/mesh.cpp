#include <roam/aggregation/mesh.hpp>

#include <algorithm>
#include <cmath>
#include <stdexcept>

namespace roam::aggregation {

std::vector<std::uint32_t> balanced_factors(std::uint32_t n, std::uint32_t k) {
  if (n == 0 || k == 0) throw std::invalid_argument("balanced_factors: n and k must be positive");
  std::vector<std::uint32_t> out;
  while (k > 1) {
    // The smallest divisor at least the k-th root: the remaining factors then
    // have a root no larger, so the list comes out largest first.
    const double root = std::pow(static_cast<double>(n), 1.0 / k);
    std::uint32_t f = n;
    for (std::uint32_t d = std::max<std::uint32_t>(1, static_cast<std::uint32_t>(std::ceil(root - 1e-9))); d <= n; ++d)
      if (n % d == 0) {
        f = d;
        break;
      }
    out.push_back(f);
    n /= f;
    --k;
  }
  out.push_back(n);
  std::sort(out.begin(), out.end(), std::greater<>());
  return out;
}

virtual_mesh::virtual_mesh(std::vector<std::uint32_t> extents) : extents_(std::move(extents)) {
  if (extents_.empty()) throw std::invalid_argument("virtual mesh: no extents");
  std::uint64_t size = 1;
  for (std::uint32_t e : extents_) {
    if (e == 0) throw std::invalid_argument("virtual mesh: an extent of 0 in " + describe());
    strides_.push_back(static_cast<std::uint32_t>(size));
    size *= e;
    if (size > UINT32_MAX) throw std::invalid_argument("virtual mesh: too many PEs in " + describe());
  }
  size_ = static_cast<std::uint32_t>(size);
}

virtual_mesh virtual_mesh::automatic(std::uint32_t pes, std::uint32_t dims, std::uint32_t pes_per_node,
                                     bool node_aware) {
  if (pes == 0) throw std::invalid_argument("virtual mesh: 0 PEs");
  if (dims > 3) throw std::invalid_argument("virtual mesh: " + std::to_string(dims) + " dimensions (at most 3)");
  auto dims_for = [&](std::uint32_t n) -> std::uint32_t {
    if (dims != 0) return dims;
    return n <= 64 ? 1 : n <= 4096 ? 2 : 3;
  };
  const bool by_node = node_aware && pes_per_node > 1 && pes % pes_per_node == 0 && pes / pes_per_node > 1;
  if (!by_node) return virtual_mesh(balanced_factors(pes, dims_for(pes)));
  // The PEs of one process are the fastest dimension; the processes take the
  // rest (one dimension fewer when the number of dimensions was given).
  const std::uint32_t nodes = pes / pes_per_node;
  const std::uint32_t node_dims = dims != 0 ? std::max<std::uint32_t>(1, dims - 1) : dims_for(nodes);
  std::vector<std::uint32_t> extents{pes_per_node};
  for (std::uint32_t f : balanced_factors(nodes, node_dims)) extents.push_back(f);
  return virtual_mesh(std::move(extents));
}

std::uint32_t virtual_mesh::hops(std::uint32_t from, std::uint32_t to) const noexcept {
  std::uint32_t n = 0;
  for (std::size_t k = 0; k < extents_.size(); ++k)
    n += (from / strides_[k] % extents_[k]) != (to / strides_[k] % extents_[k]);
  return n;
}

std::vector<std::uint32_t> virtual_mesh::peers(std::uint32_t pe) const {
  std::vector<std::uint32_t> out;
  for (std::size_t k = 0; k < extents_.size(); ++k) {
    const std::uint32_t c = pe / strides_[k] % extents_[k];
    for (std::uint32_t v = 0; v < extents_[k]; ++v)
      if (v != c) out.push_back(pe - c * strides_[k] + v * strides_[k]);
  }
  std::sort(out.begin(), out.end());
  return out;
}

std::string virtual_mesh::describe() const {
  std::string s;
  for (std::uint32_t e : extents_) s += (s.empty() ? "" : "x") + std::to_string(e);
  return s.empty() ? "(empty)" : s;
}

}  // namespace roam::aggregation
