#pragma once
/// Dense array indices of 1 to 6 dimensions.
#include <cstdint>
#include <ostream>

#include <roam/msg/detail/message.hpp>

namespace roam {

/// An N-dimensional index (or an array's extents). Aggregate: `roam::index<3>{1, 2, 3}`.
template <int N>
struct index {
  static_assert(N >= 1 && N <= 6, "roam::index supports 1 to 6 dimensions");
  static constexpr int dims = N;
  std::int32_t v[N];

  constexpr std::int32_t& operator[](int i) noexcept { return v[i]; }
  constexpr const std::int32_t& operator[](int i) const noexcept { return v[i]; }
  friend constexpr bool operator==(const index&, const index&) = default;

  /// Number of indices inside these extents.
  constexpr std::uint64_t volume() const noexcept {
    std::uint64_t n = 1;
    for (int i = 0; i < N; ++i) n *= static_cast<std::uint64_t>(v[i] < 0 ? 0 : v[i]);
    return n;
  }

  template <class P>
  void pup(P& p) {
    for (auto& x : v) p | x;
  }

  friend std::ostream& operator<<(std::ostream& os, const index& i) {
    os << '[';
    for (int k = 0; k < N; ++k) os << (k ? "," : "") << i.v[k];
    return os << ']';
  }
};

namespace detail {
template <int N>
index_storage to_storage(const index<N>& i) noexcept {
  index_storage s;
  for (int k = 0; k < N; ++k) s.v[k] = i.v[k];
  return s;
}
template <int N>
index<N> from_storage(const index_storage& s) noexcept {
  index<N> i{};
  for (int k = 0; k < N; ++k) i.v[k] = s.v[k];
  return i;
}
}  // namespace detail

}  // namespace roam
