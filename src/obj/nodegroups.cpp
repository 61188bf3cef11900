// Nodegroups: one member per process, built once; messages to it go to the
// node's queue (any of its PEs may run them) and wait until it exists.
#include <algorithm>
#include <cstdio>
#include <mutex>
#include <string>
#include <unordered_map>
#include <vector>

#include <roam/msg/detail/remote.hpp>
#include <roam/obj/detail/objects.hpp>

#include "pe_objects.hpp"

namespace roam::detail {

namespace {

// Nodegroup messages that arrived before this process built its member.
struct node_member_waits {
  std::mutex mutex;
  std::unordered_map<std::uint32_t, std::vector<message*>> waiting;
};
node_member_waits& node_waits() {
  static node_member_waits w;
  return w;
}

}  // namespace

// ---- nodegroups ---------------------------------------------------------

void install_node_member(const collection_desc* desc, void* member) {
  std::vector<message*> released;
  {
    auto& w = node_waits();
    std::lock_guard lock(w.mutex);
    const_cast<collection_desc*>(desc)->node_member.store(member, std::memory_order_release);
    if (auto it = w.waiting.find(desc->id); it != w.waiting.end()) {
      released = std::move(it->second);
      w.waiting.erase(it);
    }
  }
  member_lifecycle(lifecycle_step::born, desc, index_storage{}, member);
  runtime_state& rt = *g_runtime.load();
  for (message* m : released) rt.enqueue_node(m);
}

void send_node_message(message* m, std::uint32_t node) {
  pe_state& me = this_pe("roam send");
  runtime_state& rt = me.runtime();
  m->src_pe = me.id();
  if (observed()) [[unlikely]]
    note_sent(m, node, true);
  if (node != all_nodes && node >= rt.num_nodes) {
    report_bad_send(describe_target(target_kind::nodegroup, find_collection(m->collection), m->index, 0, m->ops->name) +
                    ": node " + std::to_string(node) + " outside [0," + std::to_string(rt.num_nodes) + ")");
    m->ops->destroy(m);
    free_message(m);
    return;
  }
  if (node == all_nodes) {
    // One packed copy per other node; this node keeps the original.
    for (std::uint32_t n = 0; n < rt.num_nodes; ++n) {
      if (n == rt.my_node) continue;
      me.count_created();
      me.count_sent_away();
      m->dst_pe = rt.first_pe_of(n);
      send_copy_to(rt, m->dst_pe, *m);
    }
    node = rt.my_node;
  }
  me.count_created();
  me.count_sent_away();  // any PE of the node may run it
  m->dst_pe = rt.first_pe_of(node);
  if (node != rt.my_node) {
    route(rt, m->dst_pe, m);
    return;
  }
  if (must_copy_through_wire(&me)) [[unlikely]] m = roundtrip_through_wire(m);
  heap_route_pause pause;
  rt.enqueue_node(m);
}

void deliver_to_node_member(message* m) noexcept {
  const collection_desc* d = find_collection(m->collection);
  void* member = d ? d->node_member.load(std::memory_order_acquire) : nullptr;
  if (!member) {
    // This process's member is still being built (its creation message is on the way).
    auto& waits = node_waits();
    std::lock_guard lock(waits.mutex);
    d = find_collection(m->collection);
    member = d ? d->node_member.load(std::memory_order_acquire) : nullptr;
    if (!member) {
      waits.waiting[m->collection].push_back(m);
      return;
    }
  }
  if (m->ops->exclusive) {
    std::lock_guard lock(d->exclusive);
    invoke_guarded(m, member);
  } else {
    invoke_guarded(m, member);
  }
  discard_message(m);
}

void discard_waiting_node_messages() noexcept {
  auto& w = node_waits();
  std::lock_guard wlock(w.mutex);
  discard_waiting(w.waiting);
}

}  // namespace roam::detail
