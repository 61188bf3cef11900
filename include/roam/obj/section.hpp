#pragma once
/// Array sections: a proxy naming a fixed subset of an array's elements. A
/// multicast to a section sends one message per PE that hosts members, down a
/// spanning tree of those PEs rooted at the PE that made the section (when it
/// hosts members; else the lowest); every member runs the entry exactly once,
/// and all members see the multicasts to one section in the same order. Sections
/// of one array may overlap. Elements contribute to section reductions with
/// `contribute(section, value, reducer, callback)`.
#include <cstdint>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

#include <roam/obj/array.hpp>
#include <roam/obj/detail/entry_sender.hpp>
#include <roam/obj/detail/objects.hpp>

namespace roam {

template <class T>
class section_proxy : public detail::fan_out_sender<section_proxy<T>, T> {
 public:
  // No member names T::index_type outside a template of its own (U = T):
  // a section or array proxy may then be a member of a type declared before
  // T is complete (cells and computes holding proxies to each other).
  section_proxy() noexcept = default;
  explicit section_proxy(const detail::section_desc* d) noexcept : desc_(d) {}

  /// The section of `array` made of `members` (duplicates count once); any
  /// array: dense, sparse, with a user index. An index outside a dense
  /// array's extents is an error (std::out_of_range naming it). Members of a
  /// sparse array need not exist yet: a multicast waits for them like a
  /// message does (and members that move or die are followed or reported).
  template <class U = T>
  static section_proxy of(const array_proxy<T>& array, const std::vector<typename U::index_type>& members) {
    const detail::collection_desc* a = array.descriptor();
    std::vector<detail::index_storage> keys;
    keys.reserve(members.size());
    for (const auto& i : members) {
      auto s = detail::to_storage(i);
      if (!a->sparse && !a->user_index && !detail::inside(s, a->shape, a->dims))
        throw std::out_of_range("roam: section member " + detail::describe_target(detail::target_kind::element, a, s,
                                                                                  a->dims, {}) +
                                " is outside the array");
      keys.push_back(s);
    }
    return section_proxy(detail::new_section(a, std::move(keys)));
  }

  /// The section of every element of a dense `array` whose index satisfies
  /// `pred`. (A sparse array has no extents to enumerate: use `of`.)
  template <class Pred, class U = T>
    requires is_dense_index_v<typename U::index_type>
  static section_proxy where(const array_proxy<T>& array, Pred pred) {
    const detail::collection_desc* a = array.descriptor();
    if (a->sparse) throw std::invalid_argument("roam: section_proxy::where needs a dense array; a sparse one has no extents (use of)");
    std::vector<detail::index_storage> keys;
    for (std::uint64_t l = 0; l < a->volume; ++l) {
      detail::index_storage s = detail::delinearize(l, a->shape, a->dims);
      if (pred(detail::from_storage<U::index_type::dims>(s))) keys.push_back(s);
    }
    return section_proxy(detail::new_section(a, std::move(keys)));
  }

  /// Number of members.
  std::uint64_t size() const noexcept { return desc_ ? desc_->size : 0; }
  std::uint32_t id() const noexcept { return desc_ ? desc_->id : 0; }
  const detail::section_desc* descriptor() const noexcept { return desc_; }
  /// The whole array this section belongs to.
  array_proxy<T> array() const noexcept { return array_proxy<T>(desc_->array); }

  template <class P>
  void pup(P& p) {
    detail::pup_section(p, desc_);
  }

 private:
  friend class detail::fan_out_sender<section_proxy<T>, T>;
  bool fan_out_root(std::uint32_t& pe) const noexcept {
    if (!desc_ || desc_->pes.empty()) return false;  // an empty section: nothing to deliver
    pe = desc_->pes[desc_->root];
    return true;
  }
  void address(detail::message* m) const noexcept {
    m->target = detail::target_kind::section_all;
    m->collection = desc_->array->id;
    m->dims = desc_->array->dims;
    m->index.v[0] = static_cast<std::int32_t>(desc_->id);
  }

  const detail::section_desc* desc_ = nullptr;
};

}  // namespace roam
