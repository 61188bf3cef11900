#pragma once
/// Dense array indices of 1 to 6 dimensions.
#include <concepts>
#include <cstdint>
#include <cstring>
#include <iomanip>
#include <ostream>
#include <sstream>
#include <string>
#include <type_traits>

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

template <class I>
inline constexpr bool is_dense_index_v = false;
template <int N>
inline constexpr bool is_dense_index_v<index<N>> = true;

/// A user-defined array index (a quad-tree path, a pair of ids...): any small
/// value compared by its bytes. It must be trivially copyable, have no padding
/// (so equal values have equal bytes) and fit in 24 bytes. Arrays indexed by
/// one are sparse: elements exist once inserted.
template <class I>
concept user_index = !is_dense_index_v<I> && std::is_trivially_copyable_v<I> &&
                     std::has_unique_object_representations_v<I> && std::equality_comparable<I> &&
                     sizeof(I) <= 24 && std::is_default_constructible_v<I>;

/// Any index an array can have.
template <class I>
concept array_index = is_dense_index_v<I> || user_index<I>;

namespace detail {
/// Dimensions as stored in an envelope: N for index<N>; 6 (all 24 bytes) for a user index.
template <class I>
inline constexpr std::uint8_t index_dims_v = 6;
template <int N>
inline constexpr std::uint8_t index_dims_v<index<N>> = N;

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
template <user_index I>
index_storage to_storage(const I& i) noexcept {
  index_storage s;
  std::memcpy(static_cast<void*>(&s), &i, sizeof(I));
  return s;
}
template <class I>
I index_from_storage(const index_storage& s) noexcept {
  if constexpr (is_dense_index_v<I>) {
    return from_storage<I::dims>(s);
  } else {
    I i;
    std::memcpy(static_cast<void*>(&i), &s, sizeof(I));
    return i;
  }
}
/// Text of an index for error messages: the type's operator<< when it has one, else its bytes in hex.
template <class I>
std::string format_index(const index_storage& s) {
  I i = index_from_storage<I>(s);
  std::ostringstream os;
  if constexpr (requires(std::ostream& o, const I& x) { o << x; }) {
    os << i;
  } else {
    unsigned char bytes[sizeof(I)];
    std::memcpy(bytes, &i, sizeof(I));
    os << "[0x";
    for (unsigned char b : bytes) os << std::hex << std::setw(2) << std::setfill('0') << static_cast<unsigned>(b);
    os << ']';
  }
  return os.str();
}
}  // namespace detail

}  // namespace roam
