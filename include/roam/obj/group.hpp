#pragma once
/// Groups: one member per PE, each reachable by PE number or all at once.
#include <cstdint>
#include <memory>
#include <tuple>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

#include <roam/machine/ids.hpp>
#include <roam/obj/detail/entry_sender.hpp>
#include <roam/obj/detail/objects.hpp>

namespace roam {

template <class T>
class group_proxy;

/// Base class of a group type T (CRTP). Construct only through create_group.
template <class T>
class group_member {
 public:
  group_proxy<T> this_group() const noexcept { return group_proxy<T>(desc_); }

  /// Contributes to the group's next reduction (see element::contribute).
  template <class... A>
  void contribute(A&&... a) {
    detail::contributor who{desc_, detail::tls_pe->id(), &reductions_};
    collective_contribute(who, std::forward<A>(a)...);
  }

 protected:
  group_member() : desc_(detail::current_construction("roam::group_member").desc) {}

 private:
  const detail::collection_desc* desc_ = nullptr;
  std::uint32_t reductions_ = 0;
};

/// A proxy to the member of a group on one PE. A PE outside [0, num_pes) is a fatal error.
template <class T>
class group_member_proxy : public detail::entry_sender<group_member_proxy<T>, T> {
 public:
  group_member_proxy() noexcept = default;
  group_member_proxy(const detail::collection_desc* d, std::uint32_t pe) noexcept : desc_(d), pe_(pe) {}

  pe_id pe() const noexcept { return pe_id{pe_}; }
  template <class P>
  void pup(P& p) {
    detail::pup_collection(p, desc_);
    p | pe_;
  }

 private:
  friend class detail::entry_sender<group_member_proxy<T>, T>;
  template <auto M>
  bool resolve(std::uint32_t& pe) const {
    std::uint32_t pes = detail::this_pe("roam send").runtime().num_pes;
    pe = pe_;
    if (pe_ < pes) return true;
    detail::index_storage idx;
    idx.v[0] = static_cast<std::int32_t>(pe_);
    detail::report_bad_send(detail::describe_target(detail::target_kind::group_member, desc_, idx, 1, member_name<M>()) +
                            ": pe " + std::to_string(pe_) + " outside [0," + std::to_string(pes) + ")");
    return false;
  }
  void address(detail::message* m) const noexcept {
    m->target = detail::target_kind::group_member;
    m->collection = desc_->id;
    m->dims = 1;
    m->index.v[0] = static_cast<std::int32_t>(pe_);
  }
  void dispatch(detail::message* m, std::uint32_t pe) const { detail::send_message(m, pe); }

  const detail::collection_desc* desc_ = nullptr;
  std::uint32_t pe_ = 0;
};

/// A proxy to a whole group.
template <class T>
class group_proxy : public detail::fan_out_sender<group_proxy<T>, T> {
 public:
  group_proxy() noexcept = default;
  explicit group_proxy(const detail::collection_desc* d) noexcept : desc_(d) {}

  group_member_proxy<T> operator[](pe_id pe) const noexcept { return group_member_proxy<T>(desc_, pe.value()); }

  /// The member on the calling PE (nullptr until its construction message ran here;
  /// the creating PE's member exists as soon as create_group returns).
  T* local() const noexcept { return static_cast<T*>(detail::local_group_member(desc_->id)); }

  std::uint32_t id() const noexcept { return desc_ ? desc_->id : 0; }
  const detail::collection_desc* descriptor() const noexcept { return desc_; }
  template <class P>
  void pup(P& p) {
    detail::pup_collection(p, desc_);
  }

 private:
  friend class detail::fan_out_sender<group_proxy<T>, T>;
  bool fan_out_root(std::uint32_t& pe) const noexcept {
    pe = detail::broadcast_root;
    return true;
  }
  void address(detail::message* m) const noexcept {
    m->target = detail::target_kind::group_all;
    m->collection = desc_->id;
    m->dims = 0;
  }

  const detail::collection_desc* desc_ = nullptr;
};

/// A section of a group: the members on a chosen set of PEs. Multicasts travel
/// down a tree of those PEs; members contribute to section reductions with
/// `contribute(section, value, reducer, callback)`.
template <class T>
class group_section_proxy : public detail::fan_out_sender<group_section_proxy<T>, T> {
 public:
  group_section_proxy() noexcept = default;
  explicit group_section_proxy(const detail::section_desc* d) noexcept : desc_(d) {}

  /// The members of `group` on `pes` (duplicates count once; a PE out of range is std::out_of_range).
  static group_section_proxy of(const group_proxy<T>& group, const std::vector<pe_id>& pes) {
    std::uint32_t count = detail::this_pe("roam::group_section_proxy::of").runtime().num_pes;
    std::vector<detail::index_storage> keys;
    for (pe_id pe : pes) {
      if (pe.value() >= count)
        throw std::out_of_range("roam: group section member pe " + std::to_string(pe.value()) + " outside [0," +
                                std::to_string(count) + ")");
      detail::index_storage k;
      k.v[0] = static_cast<std::int32_t>(pe.value());
      keys.push_back(k);
    }
    return group_section_proxy(detail::new_section(group.descriptor(), std::move(keys)));
  }

  std::uint64_t size() const noexcept { return desc_ ? desc_->size : 0; }
  const detail::section_desc* descriptor() const noexcept { return desc_; }
  template <class P>
  void pup(P& p) {
    detail::pup_section(p, desc_);
  }

 private:
  friend class detail::fan_out_sender<group_section_proxy<T>, T>;
  bool fan_out_root(std::uint32_t& pe) const noexcept {
    if (!desc_ || desc_->pes.empty()) return false;
    pe = desc_->pes.front();
    return true;
  }
  void address(detail::message* m) const noexcept {
    m->target = detail::target_kind::section_all;
    m->collection = desc_->array->id;
    m->dims = 0;
    m->index.v[0] = static_cast<std::int32_t>(desc_->id);
  }

  const detail::section_desc* desc_ = nullptr;
};

namespace detail {
/// Runs on each other PE: builds its member of group `collection`.
template <class T, class... Args>
void construct_member(collection_wire collection, Args... args) {
  std::tuple<Args...> a(std::move(args)...);
  construct_local_members(ensure_collection(collection), &make_from_args<T, std::tuple<Args...>>, &a);
}
}  // namespace detail

/// Creates a group: one member per PE, each built with copies of `args`.
/// The calling PE's member is built before this returns.
template <class T, class... A>
group_proxy<T> create_group(A&&... a) {
  static_assert(std::is_base_of_v<group_member<T>, T>, "roam: create_group<T> needs T to derive from roam::group_member<T>");
  static_assert((serializable<std::decay_t<A>> && ...), "roam: constructor arguments travel in a message, so they must be serializable; give the type a "
                "member `void pup(roam::pup_er&)`, a free `pup(roam::pup_er&, T&)`, or declare "
                "`roam::bitwise_serializable<T> = true`");
  using args_t = std::tuple<std::decay_t<A>...>;
  (void)detail::class_registered<T>;
  detail::collection_desc* d = detail::new_collection(detail::collection_kind::group, &detail::class_ops_for<T>);
  const args_t args(std::forward<A>(a)...);
  detail::construct_local_members(d, &detail::make_from_args<T, args_t>, &args);
  std::uint32_t me = detail::tls_pe->id();
  const detail::collection_wire wire = detail::to_wire(d);
  for (std::uint32_t pe = 0; pe < detail::tls_pe->runtime().num_pes; ++pe) {
    if (pe == me) continue;
    std::apply([&](const auto&... x) { detail::post_control<&detail::construct_member<T, std::decay_t<A>...>, T>(pe, 0, wire, x...); },
               args);
  }
  return group_proxy<T>(d);
}

}  // namespace roam
