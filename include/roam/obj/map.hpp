#pragma once
/// Array maps: which PE hosts each element of a dense array.
#include <cstdint>
#include <string>

#include <roam/obj/detail/objects.hpp>
#include <roam/obj/index.hpp>

namespace roam {

/// A map from index to PE. Build one with block_map(), round_robin_map() or custom_map<&fn>().
struct array_map {
  detail::map_fn fn = nullptr;
  std::string name;
};

namespace detail {
inline std::uint32_t block_map_fn(const index_storage& i, const index_storage& shape, std::uint8_t dims,
                                  std::uint32_t pes) {
  std::uint64_t volume = 1;
  for (int k = 0; k < dims; ++k) volume *= static_cast<std::uint64_t>(shape.v[k]);
  // Contiguous blocks of linear indices, sizes differing by at most one.
  return static_cast<std::uint32_t>((linearize(i, shape, dims) * pes) / volume);
}
inline std::uint32_t round_robin_map_fn(const index_storage& i, const index_storage& shape, std::uint8_t dims,
                                        std::uint32_t pes) {
  return static_cast<std::uint32_t>(linearize(i, shape, dims) % pes);
}
inline std::uint32_t hash_map_fn(const index_storage& i, const index_storage&, std::uint8_t, std::uint32_t pes) {
  std::uint64_t h = 0x9e3779b97f4a7c15ull;
  for (std::int32_t v : i.v) {
    h ^= static_cast<std::uint32_t>(v);
    h *= 0xff51afd7ed558ccdull;
    h ^= h >> 32;
  }
  return static_cast<std::uint32_t>(h % pes);
}
}  // namespace detail

/// Contiguous blocks of row-major indices per PE (the default).
inline array_map block_map() { return {&detail::block_map_fn, "block"}; }
/// Element k of the row-major order on PE k mod P.
inline array_map round_robin_map() { return {&detail::round_robin_map_fn, "round_robin"}; }
/// A hash of the index (the default of sparse arrays).
inline array_map hash_map() { return {&detail::hash_map_fn, "hash"}; }

namespace detail {
template <class F>
struct map_fn_traits;
template <class I>
struct map_fn_traits<std::uint32_t (*)(const I&, std::uint32_t)> {
  using index_type = I;
};
template <auto Fn>
struct user_map_impl {
  using I = typename map_fn_traits<decltype(Fn)>::index_type;
  static std::uint32_t call(const index_storage& i, const index_storage&, std::uint8_t, std::uint32_t pes) {
    return Fn(index_from_storage<I>(i), pes);
  }
  static inline const bool registered = register_map(member_name<Fn>(), &call);
};
template <auto Fn>
struct custom_map_impl {
  using first = std::remove_cvref_t<decltype([]<int N>(std::uint32_t (*)(const index<N>&, const index<N>&, std::uint32_t)) {
    return index<N>{};
  }(Fn))>;
  static constexpr int n = first::dims;
  static std::uint32_t call(const index_storage& i, const index_storage& shape, std::uint8_t, std::uint32_t pes) {
    return Fn(from_storage<n>(i), from_storage<n>(shape), pes);
  }
  // Every process registers the map at start-up, so a descriptor naming it can cross processes.
  static inline const bool registered = register_map(member_name<Fn>(), &call);
};
}  // namespace detail

/// A user map: `std::uint32_t fn(const roam::index<N>& i, const roam::index<N>& shape, std::uint32_t pes)`
/// returning a PE in [0, pes). It must give the same answer on every PE.
/// For a sparse array (any index type): `std::uint32_t fn(const I& i, std::uint32_t pes)`.
template <auto Fn>
array_map custom_map() {
  if constexpr (requires { typename detail::map_fn_traits<decltype(Fn)>::index_type; }) {
    (void)detail::user_map_impl<Fn>::registered;
    return {&detail::user_map_impl<Fn>::call, std::string(member_name<Fn>())};
  } else {
    (void)detail::custom_map_impl<Fn>::registered;
    return {&detail::custom_map_impl<Fn>::call, std::string(member_name<Fn>())};
  }
}

}  // namespace roam
