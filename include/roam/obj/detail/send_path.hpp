#pragma once
// The send path shared by every proxy kind: building an entry message,
// handing it to a PE (through the wire format under +serialize), calls with
// futures, fan-outs down a tree, nodegroup messages, and error text.
#include <atomic>
#include <cstdint>
#include <memory>
#include <mutex>
#include <span>
#include <string>
#include <string_view>
#include <tuple>
#include <utility>
#include <vector>

#include <roam/msg/buffer.hpp>
#include <roam/msg/detail/control.hpp>
#include <roam/msg/detail/entry.hpp>
#include <roam/msg/detail/wire.hpp>
#include <roam/obj/detail/element_base.hpp>
#include <roam/obj/detail/migratable.hpp>
#include <roam/obj/send_options.hpp>
#include <roam/sched/observe.hpp>
#include <roam/obj/detail/collections.hpp>

namespace roam::detail {

/// Runs a message addressed to an object (the `run` of every entry message).
void deliver(work_item* w, work_action a) noexcept;

/// Where every broadcast enters the PE tree.
inline constexpr std::uint32_t broadcast_root = 0;

/// Text for errors: "array cell[1,2] entry cell::recv".
std::string describe_target(target_kind t, const collection_desc* desc, const index_storage& idx, std::uint8_t dims,
                            std::string_view entry);
/// Reports a bad send (index or PE out of range) and stops the program; the message is not sent.
void report_bad_send(const std::string& what) noexcept;

/// Builds a message holding the moved-in arguments (or a call payload with its promise).
template <class T, auto M, bool Call, class... A>
message* build_entry_message(const send_options& o, A&&... a) {
  using impl = entry_impl<T, M>;
  (void)impl::registered;  // odr-use: registers the entry id at start-up
  using payload = std::conditional_t<Call, typename impl::call_payload, typename impl::args_tuple>;
  static_assert(alignof(payload) <= 16, "roam: entry arguments with alignment above 16 are not supported");
  message* m = allocate_message(sizeof(payload));
  if constexpr (Call) ::new (m->payload_ptr()) payload{typename impl::args_tuple(std::forward<A>(a)...), {}};
  else ::new (m->payload_ptr()) payload(std::forward<A>(a)...);
  m->ops = &impl::ops;
  m->run = &deliver;
  m->priority = o.priority;
  m->flags = o.lifo ? work_lifo : 0u;
  m->payload_bytes = sizeof(payload);  // for observers: the size held in memory until it is packed
  m->payload = payload_kind::inline_args;
  m->is_call = Call;
  return m;
}

/// Observers: an entry message leaves for PE `dst` (or node, `to_node`).
[[gnu::cold]] void note_sent(message* m, std::uint32_t dst, bool to_node) noexcept;

/// Hands a built message to PE `dst` (through the wire format under +serialize).
inline void send_message(message* m, std::uint32_t dst) {
  pe_state& me = this_pe("roam send");
  if (observed()) [[unlikely]]
    note_sent(m, dst, false);
  m->dst_pe = dst;
  m->src_pe = me.id();
  if (must_copy_through_wire(&me)) [[unlikely]] m = roundtrip_through_wire(m);
  post(dst, m);
}

/// Every node, for send_node_message.
inline constexpr std::uint32_t all_nodes = ~0u;
/// Sends a nodegroup message to node `node` (or to every node): the node's
/// queue, which any of its PEs may run.
void send_node_message(message* m, std::uint32_t node);
/// Builds this process's member of nodegroup `desc` and delivers what waited for it.
void install_node_member(const collection_desc* desc, void* member);

/// Sends `call` and returns the future of its result.
template <class T, auto M, class Address, class... A>
auto call_entry(const send_options& o, Address address, A&&... a) {
  using V = typename entry_impl<T, M>::V;
  auto [f, p] = make_future<V>();
  message* m = build_entry_message<T, M, true>(o, std::forward<A>(a)...);
  static_cast<typename entry_impl<T, M>::call_payload*>(m->payload_ptr())->reply = p;
  address(m);
  return f;
}

/// A fan-out (broadcast, multicast): one message to `root`, which forwards it
/// down its tree (every PE forwards, then delivers to its local members). A
/// broadcast goes through `broadcast_root`, which gives every member the same
/// order of broadcasts, whoever sent them. The arguments are shared, not
/// copied, by every PE's message; each member gets its own copy of by-value
/// parameters.
template <class T, auto M, class Address, class... A>
void fan_out_entry(std::uint32_t root, const send_options& o, Address address, A&&... a);


template <class T, auto M, class Address, class... A>
void fan_out_entry(std::uint32_t root, const send_options& o, Address address, A&&... a) {
  using impl = entry_impl<T, M>;
  (void)impl::registered;
  static_assert(std::is_copy_constructible_v<typename impl::args_tuple>,
                "roam: a broadcast gives every member its own copy of the arguments; they must be copyable");
  // The shared payload comes from the pool too; the last delivery frees it, on any PE.
  auto* shared = ::new (allocate_item(sizeof(typename impl::shared))) typename impl::shared(1, std::forward<A>(a)...);
  message* m = allocate_message(sizeof(void*));
  ::new (m->payload_ptr()) typename impl::shared*(shared);
  m->ops = &impl::ops;
  m->run = &deliver;
  m->priority = o.priority;
  m->flags = o.lifo ? work_lifo : 0u;
  m->payload_bytes = sizeof(typename impl::shared);
  m->payload = payload_kind::shared_args;
  address(m);
  send_message(m, root);
}

/// The collection record of `id` on the calling PE, or nullptr if not constructed here yet.
void* local_group_member(std::uint32_t collection) noexcept;

}  // namespace roam::detail
