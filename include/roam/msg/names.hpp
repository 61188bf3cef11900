#pragma once
/// Stable, human-readable names of types and entry methods, computed at
/// compile time. Entry identifiers are hashes of these names, so they are the
/// same in every process of one binary and in every run of it.
#include <cstdint>
#include <string_view>

namespace roam {

namespace detail {

constexpr std::string_view extract_name(std::string_view pretty, std::string_view key) {
  auto start = pretty.find(key);
  if (start == std::string_view::npos) return pretty;
  start += key.size();
  auto end = pretty.find(';', start);
  if (end == std::string_view::npos) end = pretty.rfind(']');
  if (end == std::string_view::npos || end < start) end = pretty.size();
  auto name = pretty.substr(start, end - start);
  if (!name.empty() && name.front() == '&') name.remove_prefix(1);
  return name;
}

}  // namespace detail

/// The name of type T as the compiler spells it, e.g. "my_app::cell".
template <class T>
constexpr std::string_view type_name() {
  return detail::extract_name(__PRETTY_FUNCTION__, "T = ");
}

/// The name of a member function given as a pointer, e.g. "cell::take_forces".
template <auto Member>
constexpr std::string_view member_name() {
  return detail::extract_name(__PRETTY_FUNCTION__, "Member = ");
}

/// 64-bit FNV-1a: a stable hash for identifiers derived from names.
constexpr std::uint64_t stable_hash(std::string_view s, std::uint64_t h = 0xcbf29ce484222325ull) {
  for (char c : s) {
    h ^= static_cast<unsigned char>(c);
    h *= 0x100000001b3ull;
  }
  return h;
}

}  // namespace roam
