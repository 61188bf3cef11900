#pragma once

/// \file
/// How each supported type is sized, packed and unpacked. Included at the
/// end of <roam/msg/pup.hpp>; not meant to be included on its own.
///
/// Every `pup_traits<T>` answers four questions: whether T is serializable,
/// the fewest bytes a T can pack to (which bounds container lengths before
/// anything is allocated), whether every T packs to the same number of bytes
/// (so sizing a container of them needs no loop), and whether a T's object
/// bytes are its packed form (so a run of them is one memcpy).

#include "roam/msg/pup.hpp"

#include <algorithm>
#include <array>
#include <chrono>
#include <deque>
#include <list>
#include <map>
#include <optional>
#include <set>
#include <tuple>
#include <unordered_map>
#include <unordered_set>
#include <utility>
#include <variant>

namespace roam::detail {

/// fixed_size() of a type whose packed size depends on its value.
inline constexpr std::size_t variable_size = std::numeric_limits<std::size_t>::max();

/// Traits of T with cv stripped, as std::pair<const K, V> needs.
template <class T>
using traits_of = pup_traits<std::remove_cv_t<T>>;

/// Satisfied by types with a usable member `pup(pup_er&)`, template or not.
template <class T>
concept has_member_pup = requires(T& v, pup_er& p) { v.pup(p); };

namespace adl {
/// Hides every enclosing `pup` from ordinary lookup, so only a free pup found
/// by argument-dependent lookup can match.
void pup() = delete;

/// Satisfied by types with a free `pup(pup_er&, T&)` found by ADL.
template <class T>
concept has_free_pup = requires(T& v, pup_er& p) { pup(p, v); };

/// Calls the ADL-found free pup.
template <class T>
void call_free_pup(pup_er& p, T& v) {
  pup(p, v);
}
}  // namespace adl

/// n * size, or variable_size if either is variable or the product overflows.
constexpr std::size_t fixed_times(std::size_t n, std::size_t size) noexcept {
  if (size == variable_size) return variable_size;
  if (size != 0 && n > (variable_size - 1) / size) return variable_size;
  return n * size;
}

/// a + b, or variable_size if either is variable or the sum overflows.
constexpr std::size_t fixed_plus(std::size_t a, std::size_t b) noexcept {
  if (a == variable_size || b == variable_size || a > variable_size - 1 - b) return variable_size;
  return a + b;
}

/// Saturating product for lower bounds, where overflow must not wrap to small.
constexpr std::size_t min_times(std::size_t n, std::size_t size) noexcept {
  if (size != 0 && n > std::numeric_limits<std::size_t>::max() / size) return std::numeric_limits<std::size_t>::max();
  return n * size;
}

/// Saturating sum for lower bounds.
constexpr std::size_t min_plus(std::size_t a, std::size_t b) noexcept {
  return a > std::numeric_limits<std::size_t>::max() - b ? std::numeric_limits<std::size_t>::max() : a + b;
}

/// How many elements to reserve before a length is proven by reading the
/// elements: honest lengths still get one up-front allocation for moderate
/// sizes, while a lying length (bounded only by the input size) can cost at
/// most about 1 MiB per container.
template <class T>
std::size_t reserve_hint(std::uint64_t n) noexcept {
  constexpr std::size_t budget = std::size_t{1} << 20;
  constexpr std::size_t cap = std::max<std::size_t>(1, budget / sizeof(T));
  return static_cast<std::size_t>(std::min<std::uint64_t>(n, cap));
}

/// Scalars, enums, std::byte, bitwise opt-ins and user types with a pup.
template <class T>
struct pup_traits {
 private:
  static constexpr bool scalar_ = std::is_arithmetic_v<T> || std::is_enum_v<T>;
  static constexpr bool bitwise_ = !scalar_ && bitwise_serializable<T>;
  static constexpr bool member_ = !scalar_ && !bitwise_ && has_member_pup<T>;
  static constexpr bool free_fn_ = !scalar_ && !bitwise_ && !member_ && adl::has_free_pup<T>;

 public:
  /// Whether T is supported.
  static constexpr bool serializable = scalar_ || bitwise_ || member_ || free_fn_;
  /// Whether T's object bytes are exactly its packed form.
  static constexpr bool block = (scalar_ && !is_bool_like_v<T>) || bitwise_;

  /// Fewest bytes a T packs to. An opaque user type is assumed to pack at
  /// least one byte unless it is empty.
  static constexpr std::size_t min_size() noexcept {
    if constexpr (scalar_ || bitwise_)
      return sizeof(T);
    else if constexpr (std::is_empty_v<T>)
      return 0;
    else
      return 1;
  }

  /// Bytes every T packs to, or variable_size.
  static constexpr std::size_t fixed_size() noexcept { return scalar_ || bitwise_ ? sizeof(T) : variable_size; }

  /// Runs the current pass over v.
  static void apply(pup_er& p, T& v);
};

/// Shared algorithms for the standard containers.
struct pup_impl {
  /// Counts user-type nesting for the lifetime of one pup call.
  class depth_guard {
   public:
    /// Enters one level; throws pup_error beyond pup_er::max_nesting_depth.
    depth_guard(pup_er& p, std::string_view what) : p_(p) {
      if (p_.depth_ >= pup_er::max_nesting_depth) p_.fail_depth_(what);
      ++p_.depth_;
    }
    ~depth_guard() { --p_.depth_; }
    depth_guard(const depth_guard&) = delete;
    depth_guard& operator=(const depth_guard&) = delete;

   private:
    pup_er& p_;
  };

  /// The out-of-line segment table of a message pass, or nullptr.
  static segment_table* segments(pup_er& p) noexcept { return p.segments_; }
  /// Lets a message pass place large buffers out of line (detail/segments.hpp).
  static void attach_segments(pup_er& p, segment_table* t) noexcept { p.segments_ = t; }
  /// Raw bytes with error text naming `what` of `of` (see pup_er::bytes).
  static void raw(pup_er& p, void* data, std::size_t n, std::string_view what, std::string_view of) {
    p.raw_(data, n, what, of);
  }
  /// A length without the plausibility check of count() (the caller checks it).
  static std::uint64_t length(pup_er& p, std::uint64_t n, std::string_view of) { return p.length_(n, "length", of); }
  /// Reports corrupt input at byte offset `at`.
  [[noreturn]] static void corrupt(pup_er& p, std::size_t at, std::string_view what, std::string_view of,
                                   const std::string& why) {
    p.fail_corrupt_(at, what, of, why);
  }
  /// The current byte offset (for corrupt()).
  static std::size_t offset(const pup_er& p) noexcept { return p.off_; }

  /// Pups a scalar or bitwise value as its object bytes (bools validated).
  template <class T>
  static void scalar(pup_er& p, T& v) {
    p.scalar_(v, type_name_v<T>);
  }

  /// Pups n contiguous block elements as one memcpy.
  template <class T>
  static void block(pup_er& p, T* data, std::size_t n, std::string_view of) {
    p.raw_(data, n * sizeof(T), "elements", of);
  }

  /// Unpacks n block elements into an empty std::vector in one pass: assign
  /// from the input copies into fresh memory, where resize-then-copy would
  /// zero-fill it first (a second pass over a MiB of migrating state).
  template <class T>
  static void block_into_vector(pup_er& p, std::vector<T>& v, std::size_t n, std::string_view of) {
    const std::size_t bytes = n * sizeof(T);
    if (bytes > p.cap_ - p.off_) [[unlikely]]
      p.fail_bounds_(bytes, "elements", of);
    const std::byte* src = p.buf_ + p.off_;
    if (n != 0 && reinterpret_cast<std::uintptr_t>(src) % alignof(T) == 0) {
      // Block types are trivially copyable, so the input bytes are valid Ts.
      const T* first = reinterpret_cast<const T*>(src);
      v.assign(first, first + n);
    } else {
      v.resize(n);
      if (n != 0) std::memcpy(static_cast<void*>(v.data()), src, bytes);
    }
    p.off_ += bytes;
  }

  /// Pups a presence flag (optional, unique_ptr), rejecting bytes other than 0/1.
  static bool flag(pup_er& p, bool has, std::string_view of) { return p.bool_(has, "presence flag", of); }

  /// Pups a variant index, rejecting indices >= count.
  static std::uint32_t variant_index(pup_er& p, std::size_t index, std::size_t count, std::string_view of) {
    const std::size_t at = p.off_;
    std::uint32_t i = static_cast<std::uint32_t>(index);
    p.raw_(&i, sizeof i, "index", of);
    if (p.is_unpacking() && i >= count) [[unlikely]]
      p.fail_corrupt_(at, "index", of,
                      "alternative " + std::to_string(i) + " out of range for " + std::to_string(count) +
                          " alternatives");
    return i;
  }

  /// Pups a container length; see pup_er::check_count.
  static std::uint64_t count(pup_er& p, std::uint64_t n, std::size_t min_bytes, std::string_view of) {
    return p.count_(n, min_bytes, "length", of);
  }

  /// Pups a packed vector<bool>: length, then the bits LSB-first, eight per byte.
  template <class A>
  static void bits(pup_er& p, std::vector<bool, A>& v) {
    constexpr std::string_view of = type_name_v<std::vector<bool, A>>;
    const std::size_t at = p.off_;
    const std::uint64_t n = p.length_(v.size(), "length", of);
    const std::uint64_t nbytes = n / 8 + (n % 8 != 0 ? 1 : 0);
    if (p.is_sizing()) {
      p.skip_(static_cast<std::size_t>(nbytes));
      return;
    }
    if (p.is_unpacking()) {
      if (nbytes > p.remaining()) [[unlikely]]
        p.fail_corrupt_(at, "length", of,
                        "length " + std::to_string(n) + " bits cannot fit in the " + std::to_string(p.remaining()) +
                            " remaining bytes");
      v.assign(static_cast<std::size_t>(n), false);
    }
    const auto count_bits = static_cast<std::size_t>(n);
    for (std::size_t base = 0; base < count_bits; base += 8) {
      const std::size_t used = std::min<std::size_t>(8, count_bits - base);
      unsigned char byte = 0;
      if (p.is_packing())
        for (std::size_t j = 0; j < used; ++j) byte = static_cast<unsigned char>(byte | (v[base + j] ? 1u << j : 0u));
      const std::size_t byte_at = p.off_;
      p.raw_(&byte, 1, "bits", of);
      if (p.is_unpacking()) {
        // Padding bits must be zero so every vector has exactly one encoding.
        if ((static_cast<unsigned>(byte) >> used) != 0) [[unlikely]]
          p.fail_corrupt_(byte_at, "bits", of, "unused bits of the last byte are set");
        for (std::size_t j = 0; j < used; ++j) v[base + j] = ((byte >> j) & 1u) != 0;
      }
    }
  }

  /// Pups a sequence container (vector of non-block elements, deque, list).
  template <class C>
  static void sequence(pup_er& p, C& c) {
    using T = typename C::value_type;
    using et = traits_of<T>;
    const std::uint64_t n = count(p, c.size(), et::min_size(), type_name_v<C>);
    if (p.is_unpacking()) {
      if constexpr (require_default_constructible<T>()) {
        c.clear();
        if constexpr (requires { c.reserve(std::size_t{}); }) c.reserve(reserve_hint<T>(n));
        for (std::uint64_t i = 0; i < n; ++i) {
          c.emplace_back();
          p | c.back();
        }
      }
      return;
    }
    if constexpr (et::fixed_size() != variable_size) {
      if (p.is_sizing()) {
        p.skip_(static_cast<std::size_t>(n) * et::fixed_size());
        return;
      }
    }
    for (auto& e : c) p | e;
  }

  /// Pups a set-like container; unique ones reject duplicate keys.
  template <class C, bool unique>
  static void set_like(pup_er& p, C& c) {
    using K = typename C::key_type;
    using kt = traits_of<K>;
    constexpr std::string_view of = type_name_v<C>;
    const std::uint64_t n = count(p, c.size(), kt::min_size(), of);
    if (p.is_unpacking()) {
      if constexpr (require_default_constructible<K>()) unpack_set<C, unique>(p, c, n);
      return;
    }
    if constexpr (kt::fixed_size() != variable_size) {
      if (p.is_sizing()) {
        p.skip_(static_cast<std::size_t>(n) * kt::fixed_size());
        return;
      }
    }
    for (auto const& k : c) p | k;
  }

  /// The unpacking half of set_like.
  template <class C, bool unique>
  static void unpack_set(pup_er& p, C& c, std::uint64_t n) {
    using K = typename C::key_type;
    constexpr std::string_view of = type_name_v<C>;
    c.clear();
    if constexpr (requires { c.reserve(std::size_t{}); }) c.reserve(reserve_hint<K>(n));
    for (std::uint64_t i = 0; i < n; ++i) {
      const std::size_t at = p.off_;
      K k{};
      p | k;
      const std::size_t before = c.size();
      // Packed order is sorted for ordered containers, so hinting at the
      // end makes each insertion amortized O(1).
      c.emplace_hint(c.end(), std::move(k));
      if (unique && c.size() == before) [[unlikely]]
        p.fail_corrupt_(at, "key", of, "duplicate key in a unique-key container");
    }
  }

  /// Pups a map-like container; unique ones reject duplicate keys.
  template <class C, bool unique>
  static void map_like(pup_er& p, C& c) {
    using K = typename C::key_type;
    using V = typename C::mapped_type;
    using kt = traits_of<K>;
    using vt = traits_of<V>;
    constexpr std::string_view of = type_name_v<C>;
    const std::uint64_t n = count(p, c.size(), min_plus(kt::min_size(), vt::min_size()), of);
    if (p.is_unpacking()) {
      if constexpr (require_default_constructible<K>() && require_default_constructible<V>())
        unpack_map<C, unique>(p, c, n);
      return;
    }
    constexpr std::size_t pair_size = fixed_plus(kt::fixed_size(), vt::fixed_size());
    if constexpr (pair_size != variable_size) {
      if (p.is_sizing()) {
        p.skip_(static_cast<std::size_t>(n) * pair_size);
        return;
      }
    }
    for (auto& kv : c) {
      p | kv.first;
      p | kv.second;
    }
  }

  /// The unpacking half of map_like.
  template <class C, bool unique>
  static void unpack_map(pup_er& p, C& c, std::uint64_t n) {
    using K = typename C::key_type;
    constexpr std::string_view of = type_name_v<C>;
    c.clear();
    if constexpr (requires { c.reserve(std::size_t{}); }) c.reserve(reserve_hint<typename C::value_type>(n));
    for (std::uint64_t i = 0; i < n; ++i) {
      const std::size_t at = p.off_;
      K k{};
      p | k;
      const std::size_t before = c.size();
      // Inserting a default value and pupping it in place avoids moving
      // the (possibly large) mapped value, and rejects a duplicate before
      // reading it.
      auto it = c.emplace_hint(c.end(), std::piecewise_construct, std::forward_as_tuple(std::move(k)),
                               std::forward_as_tuple());
      if (unique && c.size() == before) [[unlikely]]
        p.fail_corrupt_(at, "key", of, "duplicate key in a unique-key container");
      p | it->second;
    }
  }

  /// Pups the elements of a fixed-size array (std::array or T[N]).
  template <class T>
  static void fixed_array(pup_er& p, T* data, std::size_t n, std::string_view of) {
    using et = traits_of<T>;
    if constexpr (et::block) {
      block(p, data, n, of);
    } else {
      if constexpr (et::fixed_size() != variable_size) {
        if (p.is_sizing()) {
          p.skip_(n * et::fixed_size());
          return;
        }
      }
      for (std::size_t i = 0; i < n; ++i) p | data[i];
    }
  }
};

template <class T>
void pup_traits<T>::apply(pup_er& p, T& v) {
  if constexpr (scalar_) {
    pup_impl::scalar(p, v);
  } else if constexpr (bitwise_) {
    static_assert(std::is_trivially_copyable_v<T>,
                  "roam: bitwise_serializable<T> is true but T is not trivially copyable; remove the "
                  "specialization and give T a pup function instead");
    pup_impl::scalar(p, v);
  } else {
    const pup_impl::depth_guard guard(p, type_name_v<T>);
    if constexpr (member_)
      v.pup(p);
    else
      adl::call_free_pup(p, v);
  }
}

/// std::basic_string of a character type: length, then the characters as one block.
template <class C, class Tr, class A>
struct pup_traits<std::basic_string<C, Tr, A>> {
  /// Whether the character type is supported.
  static constexpr bool serializable = std::is_arithmetic_v<C> && !std::is_same_v<C, bool>;
  /// Never: a string has a length prefix.
  static constexpr bool block = false;
  /// The length prefix.
  static constexpr std::size_t min_size() noexcept { return sizeof(std::uint64_t); }
  /// Never fixed.
  static constexpr std::size_t fixed_size() noexcept { return variable_size; }
  /// Runs the current pass over s.
  static void apply(pup_er& p, std::basic_string<C, Tr, A>& s) {
    constexpr std::string_view of = type_name_v<std::basic_string<C, Tr, A>>;
    const std::uint64_t n = pup_impl::count(p, s.size(), sizeof(C), of);
    if (p.is_unpacking()) {
      s.clear();
      s.resize(static_cast<std::size_t>(n));
    }
    pup_impl::block(p, s.data(), static_cast<std::size_t>(n), of);
  }
};

/// std::vector: length, then one memcpy for block elements, else each element.
template <class T, class A>
struct pup_traits<std::vector<T, A>> {
  /// Whether the element type is supported.
  static constexpr bool serializable = traits_of<T>::serializable;
  /// Never: a vector has a length prefix.
  static constexpr bool block = false;
  /// The length prefix.
  static constexpr std::size_t min_size() noexcept { return sizeof(std::uint64_t); }
  /// Never fixed.
  static constexpr std::size_t fixed_size() noexcept { return variable_size; }
  /// Runs the current pass over v.
  static void apply(pup_er& p, std::vector<T, A>& v) {
    if constexpr (traits_of<T>::block) {
      constexpr std::string_view of = type_name_v<std::vector<T, A>>;
      const std::uint64_t n = pup_impl::count(p, v.size(), sizeof(T), of);
      if (p.is_unpacking()) {
        v.clear();
        if constexpr (std::is_same_v<A, std::allocator<T>> && std::is_trivially_copyable_v<T>) {
          pup_impl::block_into_vector(p, v, static_cast<std::size_t>(n), of);
          return;
        } else if constexpr (require_default_constructible<T>()) {
          v.resize(static_cast<std::size_t>(n));
        }
      }
      pup_impl::block(p, v.data(), static_cast<std::size_t>(n), of);
    } else {
      pup_impl::sequence(p, v);
    }
  }
};

/// std::vector<bool>: length, then the bits packed eight per byte.
template <class A>
struct pup_traits<std::vector<bool, A>> {
  /// Always supported.
  static constexpr bool serializable = true;
  /// Never: bits are repacked.
  static constexpr bool block = false;
  /// The length prefix.
  static constexpr std::size_t min_size() noexcept { return sizeof(std::uint64_t); }
  /// Never fixed.
  static constexpr std::size_t fixed_size() noexcept { return variable_size; }
  /// Runs the current pass over v.
  static void apply(pup_er& p, std::vector<bool, A>& v) { pup_impl::bits(p, v); }
};

/// Sequence containers without contiguous storage: length, then each element.
template <class C>
struct pup_sequence_traits {
  /// Whether the element type is supported.
  static constexpr bool serializable = traits_of<typename C::value_type>::serializable;
  /// Never: a sequence has a length prefix.
  static constexpr bool block = false;
  /// The length prefix.
  static constexpr std::size_t min_size() noexcept { return sizeof(std::uint64_t); }
  /// Never fixed.
  static constexpr std::size_t fixed_size() noexcept { return variable_size; }
  /// Runs the current pass over c.
  static void apply(pup_er& p, C& c) { pup_impl::sequence(p, c); }
};

/// std::deque.
template <class T, class A>
struct pup_traits<std::deque<T, A>> : pup_sequence_traits<std::deque<T, A>> {};

/// std::list.
template <class T, class A>
struct pup_traits<std::list<T, A>> : pup_sequence_traits<std::list<T, A>> {};

/// Set-like containers: length, then each key.
template <class C, bool unique>
struct pup_set_traits {
  /// Whether the key type is supported.
  static constexpr bool serializable = traits_of<typename C::key_type>::serializable;
  /// Never: a set has a length prefix.
  static constexpr bool block = false;
  /// The length prefix.
  static constexpr std::size_t min_size() noexcept { return sizeof(std::uint64_t); }
  /// Never fixed.
  static constexpr std::size_t fixed_size() noexcept { return variable_size; }
  /// Runs the current pass over c.
  static void apply(pup_er& p, C& c) { pup_impl::set_like<C, unique>(p, c); }
};

/// std::set.
template <class K, class Cmp, class A>
struct pup_traits<std::set<K, Cmp, A>> : pup_set_traits<std::set<K, Cmp, A>, true> {};
/// std::multiset.
template <class K, class Cmp, class A>
struct pup_traits<std::multiset<K, Cmp, A>> : pup_set_traits<std::multiset<K, Cmp, A>, false> {};
/// std::unordered_set.
template <class K, class H, class E, class A>
struct pup_traits<std::unordered_set<K, H, E, A>> : pup_set_traits<std::unordered_set<K, H, E, A>, true> {};
/// std::unordered_multiset.
template <class K, class H, class E, class A>
struct pup_traits<std::unordered_multiset<K, H, E, A>> : pup_set_traits<std::unordered_multiset<K, H, E, A>, false> {};

/// Map-like containers: length, then each key followed by its value.
template <class C, bool unique>
struct pup_map_traits {
  /// Whether the key and mapped types are supported.
  static constexpr bool serializable =
      traits_of<typename C::key_type>::serializable && traits_of<typename C::mapped_type>::serializable;
  /// Never: a map has a length prefix.
  static constexpr bool block = false;
  /// The length prefix.
  static constexpr std::size_t min_size() noexcept { return sizeof(std::uint64_t); }
  /// Never fixed.
  static constexpr std::size_t fixed_size() noexcept { return variable_size; }
  /// Runs the current pass over c.
  static void apply(pup_er& p, C& c) { pup_impl::map_like<C, unique>(p, c); }
};

/// std::map.
template <class K, class V, class Cmp, class A>
struct pup_traits<std::map<K, V, Cmp, A>> : pup_map_traits<std::map<K, V, Cmp, A>, true> {};
/// std::multimap.
template <class K, class V, class Cmp, class A>
struct pup_traits<std::multimap<K, V, Cmp, A>> : pup_map_traits<std::multimap<K, V, Cmp, A>, false> {};
/// std::unordered_map.
template <class K, class V, class H, class E, class A>
struct pup_traits<std::unordered_map<K, V, H, E, A>> : pup_map_traits<std::unordered_map<K, V, H, E, A>, true> {};
/// std::unordered_multimap.
template <class K, class V, class H, class E, class A>
struct pup_traits<std::unordered_multimap<K, V, H, E, A>>
    : pup_map_traits<std::unordered_multimap<K, V, H, E, A>, false> {};

/// std::array: the elements, without a length.
template <class T, std::size_t N>
struct pup_traits<std::array<T, N>> {
  /// Whether the element type is supported.
  static constexpr bool serializable = traits_of<T>::serializable;
  /// Whether the whole array is one memcpy.
  static constexpr bool block = traits_of<T>::block && N > 0 && sizeof(std::array<T, N>) == N * sizeof(T);
  /// N times the element minimum.
  static constexpr std::size_t min_size() noexcept { return min_times(N, traits_of<T>::min_size()); }
  /// N times the element size, if fixed.
  static constexpr std::size_t fixed_size() noexcept { return fixed_times(N, traits_of<T>::fixed_size()); }
  /// Runs the current pass over a.
  static void apply(pup_er& p, std::array<T, N>& a) { pup_impl::fixed_array(p, a.data(), N, type_name_v<std::array<T, N>>); }
};

/// C arrays T[N]: the elements, without a length.
template <class T, std::size_t N>
struct pup_traits<T[N]> {
  /// Whether the element type is supported.
  static constexpr bool serializable = traits_of<T>::serializable;
  /// Whether the whole array is one memcpy.
  static constexpr bool block = traits_of<T>::block;
  /// N times the element minimum.
  static constexpr std::size_t min_size() noexcept { return min_times(N, traits_of<T>::min_size()); }
  /// N times the element size, if fixed.
  static constexpr std::size_t fixed_size() noexcept { return fixed_times(N, traits_of<T>::fixed_size()); }
  /// Runs the current pass over a.
  static void apply(pup_er& p, T (&a)[N]) { pup_impl::fixed_array(p, &a[0], N, type_name_v<T[N]>); }
};

/// std::pair: first, then second.
template <class A, class B>
struct pup_traits<std::pair<A, B>> {
  /// Whether both member types are supported.
  static constexpr bool serializable = traits_of<A>::serializable && traits_of<B>::serializable;
  /// Never: pairs may contain padding.
  static constexpr bool block = false;
  /// Sum of the member minimums.
  static constexpr std::size_t min_size() noexcept {
    return min_plus(traits_of<A>::min_size(), traits_of<B>::min_size());
  }
  /// Sum of the member sizes, if both are fixed.
  static constexpr std::size_t fixed_size() noexcept {
    return fixed_plus(traits_of<A>::fixed_size(), traits_of<B>::fixed_size());
  }
  /// Runs the current pass over v.
  static void apply(pup_er& p, std::pair<A, B>& v) { p | v.first | v.second; }
};

/// std::tuple: each element in order.
template <class... Ts>
struct pup_traits<std::tuple<Ts...>> {
  /// Whether every element type is supported.
  static constexpr bool serializable = (traits_of<Ts>::serializable && ...);
  /// Never: tuples may contain padding.
  static constexpr bool block = false;
  /// Sum of the element minimums.
  static constexpr std::size_t min_size() noexcept {
    std::size_t sum = 0;
    ((sum = min_plus(sum, traits_of<Ts>::min_size())), ...);
    return sum;
  }
  /// Sum of the element sizes, if all are fixed.
  static constexpr std::size_t fixed_size() noexcept {
    std::size_t sum = 0;
    ((sum = fixed_plus(sum, traits_of<Ts>::fixed_size())), ...);
    return sum;
  }
  /// Runs the current pass over t.
  static void apply(pup_er& p, std::tuple<Ts...>& t) {
    std::apply([&](auto&... e) { ((void)(p | e), ...); }, t);
  }
};

/// std::optional: a presence flag byte, then the value if present.
template <class T>
struct pup_traits<std::optional<T>> {
  /// Whether the value type is supported.
  static constexpr bool serializable = traits_of<T>::serializable;
  /// Never: there is a flag.
  static constexpr bool block = false;
  /// The flag.
  static constexpr std::size_t min_size() noexcept { return 1; }
  /// Never fixed.
  static constexpr std::size_t fixed_size() noexcept { return variable_size; }
  /// Runs the current pass over o; a flag byte other than 0/1 is pup_error.
  static void apply(pup_er& p, std::optional<T>& o) {
    const bool has = pup_impl::flag(p, o.has_value(), type_name_v<std::optional<T>>);
    if (p.is_unpacking()) {
      if (!has) {
        o.reset();
        return;
      }
      if constexpr (require_default_constructible<T>()) o.emplace();
    }
    if (has) p | *o;
  }
};

/// std::variant: the alternative's index as u32, then the alternative.
template <class... Ts>
struct pup_traits<std::variant<Ts...>> {
  /// Whether every alternative type is supported.
  static constexpr bool serializable = (traits_of<Ts>::serializable && ...);
  /// Never: there is an index.
  static constexpr bool block = false;
  /// The index plus the smallest alternative.
  static constexpr std::size_t min_size() noexcept {
    return min_plus(sizeof(std::uint32_t), std::min({traits_of<Ts>::min_size()...}));
  }
  /// Never fixed.
  static constexpr std::size_t fixed_size() noexcept { return variable_size; }
  /// Runs the current pass over v; an index out of range is pup_error, and
  /// so is packing a valueless variant.
  static void apply(pup_er& p, std::variant<Ts...>& v) {
    constexpr std::string_view of = type_name_v<std::variant<Ts...>>;
    if (!p.is_unpacking() && v.valueless_by_exception()) [[unlikely]]
      throw pup_error("roam::pup: cannot pack a valueless " + std::string(of) + " at byte offset " +
                      std::to_string(p.offset()));
    const std::uint32_t i = pup_impl::variant_index(p, v.index(), sizeof...(Ts), of);
    static constexpr auto alternatives = table_(std::index_sequence_for<Ts...>{});
    alternatives[i](p, v);
  }

 private:
  using variant_type_ = std::variant<Ts...>;

  template <std::size_t I>
  static void alternative_(pup_er& p, variant_type_& v) {
    using alt = std::variant_alternative_t<I, variant_type_>;
    if constexpr (require_default_constructible<alt>()) {
      if (p.is_unpacking()) v.template emplace<I>();
    }
    p | *std::get_if<I>(&v);
  }

  template <std::size_t... I>
  static constexpr auto table_(std::index_sequence<I...>) noexcept {
    return std::array<void (*)(pup_er&, variant_type_&), sizeof...(I)>{&alternative_<I>...};
  }
};

/// std::monostate: nothing.
template <>
struct pup_traits<std::monostate> {
  /// Always supported.
  static constexpr bool serializable = true;
  /// Nothing to copy.
  static constexpr bool block = false;
  /// Packs to nothing.
  static constexpr std::size_t min_size() noexcept { return 0; }
  /// Packs to nothing.
  static constexpr std::size_t fixed_size() noexcept { return 0; }
  /// Does nothing.
  static void apply(pup_er&, std::monostate&) noexcept {}
};

/// std::unique_ptr<T> (default deleter, not arrays): a presence flag byte,
/// then the pointee. The pointee is packed as its static type T.
template <class T>
  requires(!std::is_array_v<T>)
struct pup_traits<std::unique_ptr<T, std::default_delete<T>>> {
  /// Whether the pointee type is supported.
  static constexpr bool serializable = traits_of<T>::serializable;
  /// Never: there is a flag.
  static constexpr bool block = false;
  /// The flag.
  static constexpr std::size_t min_size() noexcept { return 1; }
  /// Never fixed.
  static constexpr std::size_t fixed_size() noexcept { return variable_size; }
  /// Runs the current pass over ptr; a flag byte other than 0/1 is pup_error.
  static void apply(pup_er& p, std::unique_ptr<T>& ptr) {
    static_assert(!std::is_polymorphic_v<T> || std::is_final_v<T>,
                  "roam: std::unique_ptr<T> to a non-final polymorphic T would be sliced to T; "
                  "serialize the concrete type, or mark T final");
    const bool has = pup_impl::flag(p, ptr != nullptr, type_name_v<std::unique_ptr<T>>);
    if (p.is_unpacking()) {
      if (!has) {
        ptr.reset();
        return;
      }
      if constexpr (require_default_constructible<T>()) ptr = std::make_unique<T>();
    }
    if (has) p | *ptr;
  }
};

/// std::chrono::duration: its count, as the representation type.
template <class Rep, class Period>
struct pup_traits<std::chrono::duration<Rep, Period>> {
  /// Whether the representation type is supported.
  static constexpr bool serializable = traits_of<Rep>::serializable;
  /// Not claimed: a duration's layout is not specified to be its count.
  static constexpr bool block = false;
  /// As the representation.
  static constexpr std::size_t min_size() noexcept { return traits_of<Rep>::min_size(); }
  /// As the representation.
  static constexpr std::size_t fixed_size() noexcept { return traits_of<Rep>::fixed_size(); }
  /// Runs the current pass over d.
  static void apply(pup_er& p, std::chrono::duration<Rep, Period>& d) {
    Rep count = d.count();
    p | count;
    if (p.is_unpacking()) d = std::chrono::duration<Rep, Period>(count);
  }
};

}  // namespace roam::detail
