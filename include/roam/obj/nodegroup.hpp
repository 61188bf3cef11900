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

/// A proxy to a nodegroup. `send` reaches the member of every node; `[node]`
/// names one node's member. On each node, the first of its PEs to look at
/// the node queue runs the entry.
template <class T>
class nodegroup_proxy : public detail::entry_sender<nodegroup_proxy<T>, T> {
 public:
  nodegroup_proxy() noexcept = default;
  explicit nodegroup_proxy(const detail::collection_desc* d, std::uint32_t node = detail::all_nodes) noexcept
      : desc_(d), node_(node) {}

  /// The member of node `node` only (a node outside [0, num_nodes) is a fatal error when sending).
  nodegroup_proxy operator[](node_id node) const noexcept { return nodegroup_proxy(desc_, node.value()); }

  /// This process's member (exists as soon as create_nodegroup returns on the
  /// creating node; elsewhere once its creation message has arrived).
  T* local() const noexcept { return static_cast<T*>(desc_->node_member.load(std::memory_order_acquire)); }

  std::uint32_t id() const noexcept { return desc_ ? desc_->id : 0; }
  template <class P>
  void pup(P& p) {
    detail::pup_collection(p, desc_);
    p | node_;
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
  void dispatch(detail::message* m, std::uint32_t) const { detail::send_node_message(m, node_); }

  const detail::collection_desc* desc_ = nullptr;
  std::uint32_t node_ = detail::all_nodes;
};

namespace detail {
template <class T, class... Args>
void* build_node_member(const collection_desc* d, Args&&... args) {
  construction_context ctx;
  ctx.desc = d;
  ctx.pe = tls_pe->id();
  tls_constructing = &ctx;
  T* member = nullptr;
  try {
    member = new T(std::forward<Args>(args)...);
  } catch (...) {
    tls_constructing = nullptr;
    throw;
  }
  tls_constructing = nullptr;
  return member;
}
/// Runs on the first PE of each other node: builds that node's member.
template <class T, class... Args>
void construct_node_member(collection_wire collection, Args... args) {
  const collection_desc* d = ensure_collection(collection);
  install_node_member(d, build_node_member<T>(d, std::move(args)...));
}
}  // namespace detail

/// Creates a nodegroup: one member per node, each built with copies of
/// `args`. This process's member is built before this returns; the others
/// are built on arrival of their creation message, and messages that reach a
/// node earlier wait for it.
template <class T, class... A>
nodegroup_proxy<T> create_nodegroup(A&&... a) {
  static_assert(std::is_base_of_v<nodegroup_member<T>, T>,
                "roam: create_nodegroup<T> needs T to derive from roam::nodegroup_member<T>");
  static_assert((serializable<std::decay_t<A>> && ...),
                "roam: constructor arguments travel to every node in a message, so they must be serializable");
  (void)detail::class_registered<T>;
  detail::collection_desc* d = detail::new_collection(detail::collection_kind::nodegroup, &detail::class_ops_for<T>);
  detail::runtime_state& rt = detail::this_pe("roam::create_nodegroup").runtime();
  const std::tuple<std::decay_t<A>...> args(std::forward<A>(a)...);
  const detail::collection_wire wire = detail::to_wire(d);
  for (std::uint32_t node = 0; node < rt.num_nodes; ++node) {
    if (node == rt.my_node) continue;
    std::apply([&](const auto&... x) {
      detail::post_control<&detail::construct_node_member<T, std::decay_t<A>...>, T>(rt.first_pe_of(node), 0, wire, x...);
    }, args);
  }
  std::apply([&](const auto&... x) { detail::install_node_member(d, detail::build_node_member<T>(d, x...)); }, args);
  return nodegroup_proxy<T>(d);
}

}  // namespace roam
