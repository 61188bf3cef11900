#pragma once
/// Nodegroups: one member per process, whose entry methods any PE of that
/// process may run. Entries listed in `T::exclusive_entries` run one at a time.
#include <atomic>
#include <cstdint>
#include <tuple>
#include <utility>

#include <roam/machine/ids.hpp>
#include <roam/sched/runtime.hpp>
#include <roam/obj/detail/entry_sender.hpp>
#include <roam/obj/detail/objects.hpp>

namespace roam {

template <class T>
class nodegroup_proxy;

/// Base class of a nodegroup type T (CRTP). Construct only through create_nodegroup.
/// Mark exclusive entries with `using exclusive_entries = roam::entry_list<&T::f, &T::g>;`.
template <class T>
class nodegroup_member {
 public:
  nodegroup_proxy<T> this_nodegroup() const noexcept { return nodegroup_proxy<T>(desc_); }

  /// Contributes this node's value to the nodegroup's next reduction (see
  /// element::contribute); callable from any PE of the node, once per reduction.
  template <class... A>
  void contribute(A&&... a) {
    detail::contributor who{desc_, roam::my_node().value(), nullptr, &reductions_};
    collective_contribute(who, std::forward<A>(a)...);
  }

 protected:
  nodegroup_member() : desc_(detail::current_construction("roam::nodegroup_member").desc) {}

 private:
  const detail::collection_desc* desc_ = nullptr;
  std::atomic<std::uint32_t> reductions_{0};
};

/// Names the entries of a nodegroup that must not run concurrently with each other.
template <auto... Members>
using entry_list = detail::entry_list<Members...>;

/// A proxy to a nodegroup. `send` reaches the member of every node (one
/// process: this one's); the first PE of that node to look at its node queue
/// runs it.
template <class T>
class nodegroup_proxy : public detail::entry_sender<nodegroup_proxy<T>, T> {
 public:
  nodegroup_proxy() noexcept = default;
  explicit nodegroup_proxy(const detail::collection_desc* d) noexcept : desc_(d) {}

  /// This process's member (exists as soon as create_nodegroup returns).
  T* local() const noexcept { return static_cast<T*>(desc_->node_member); }

  std::uint32_t id() const noexcept { return desc_ ? desc_->id : 0; }
  template <class P>
  void pup(P& p) {
    std::uint32_t id = desc_ ? desc_->id : 0;
    p | id;
    if (p.is_unpacking()) desc_ = detail::find_collection(id);
  }

 private:
  friend class detail::entry_sender<nodegroup_proxy<T>, T>;
  template <auto M>
  bool resolve(std::uint32_t&) const noexcept {
    return true;
  }
  void address(detail::message* m) const noexcept {
    m->target = detail::target_kind::nodegroup;
    m->collection = desc_->id;
    m->dims = 0;
  }
  void dispatch(detail::message* m, std::uint32_t) const { detail::send_node_message(m); }

  const detail::collection_desc* desc_ = nullptr;
};

/// Creates a nodegroup; this process's member is built before this returns.
template <class T, class... A>
nodegroup_proxy<T> create_nodegroup(A&&... a) {
  static_assert(std::is_base_of_v<nodegroup_member<T>, T>,
                "roam: create_nodegroup<T> needs T to derive from roam::nodegroup_member<T>");
  detail::collection_desc* d = detail::new_collection(detail::collection_kind::nodegroup, &detail::class_ops_for<T>);
  detail::construction_context ctx;
  ctx.desc = d;
  ctx.pe = detail::tls_pe->id();
  detail::tls_constructing = &ctx;
  try {
    d->node_member = new T(std::forward<A>(a)...);
  } catch (...) {
    detail::tls_constructing = nullptr;
    throw;
  }
  detail::tls_constructing = nullptr;
  return nodegroup_proxy<T>(d);
}

}  // namespace roam
