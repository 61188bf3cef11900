#pragma once
/// Strong identifier types shared by every layer.
#include <compare>
#include <cstdint>
#include <functional>
#include <ostream>

namespace roam {

/// A typed integer identifier; distinct tags never convert into each other.
template <class Tag, class Rep = std::uint32_t>
class strong_id {
 public:
  using rep = Rep;
  constexpr strong_id() noexcept = default;
  constexpr explicit strong_id(Rep v) noexcept : value_(v) {}
  /// The raw value, for indexing tables and printing.
  constexpr Rep value() const noexcept { return value_; }
  friend constexpr auto operator<=>(strong_id, strong_id) noexcept = default;
  friend std::ostream& operator<<(std::ostream& os, strong_id id) { return os << +id.value_; }

 private:
  Rep value_{};
};

/// A processing element: one worker thread with its own scheduler.
using pe_id = strong_id<struct pe_tag>;
/// A node: one OS process hosting one or more PEs.
using node_id = strong_id<struct node_tag>;

}  // namespace roam

template <class Tag, class Rep>
struct std::hash<roam::strong_id<Tag, Rep>> {
  std::size_t operator()(roam::strong_id<Tag, Rep> id) const noexcept { return std::hash<Rep>{}(id.value()); }
};
