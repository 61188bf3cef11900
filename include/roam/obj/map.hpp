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
}  // namespace detail

/// Contiguous blocks of row-major indices per PE (the default).
inline array_map block_map() { return {&detail::block_map_fn, "block"}; }
/// Element k of the row-major order on PE k mod P.
inline array_map round_robin_map() { return {&detail::round_robin_map_fn, "round_robin"}; }

/// A user map: `std::uint32_t fn(const roam::index<N>& i, const roam::index<N>& shape, std::uint32_t pes)`
/// returning a PE in [0, pes). It must give the same answer on every PE.
template <auto Fn>
array_map custom_map() {
  using first = std::remove_cvref_t<decltype([]<int N>(std::uint32_t (*)(const index<N>&, const index<N>&, std::uint32_t)) {
    return index<N>{};
  }(Fn))>;
  constexpr int n = first::dims;
  return {[](const detail::index_storage& i, const detail::index_storage& shape, std::uint8_t, std::uint32_t pes) {
            return Fn(detail::from_storage<n>(i), detail::from_storage<n>(shape), pes);
          },
          std::string(member_name<Fn>())};
}

}  // namespace roam
