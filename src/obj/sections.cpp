// Array and group sections: process-wide descriptors announced to every
// node, and multicasts that travel the tree of the PEs hosting members.
#include <algorithm>
#include <cstdio>
#include <mutex>
#include <string>
#include <unordered_map>
#include <vector>

#include <roam/obj/detail/objects.hpp>
#include <roam/sched/detail/tree.hpp>

#include "pe_objects.hpp"
#include "section_regroup.hpp"

namespace roam::detail {

namespace {

struct section_table {
  std::mutex mutex;
  std::uint32_t next_seq = 0;
  std::unordered_map<std::uint32_t, std::unique_ptr<section_desc>> by_id;  // never shrinks
  // Multicasts that reached this process before their section, or the
  // version of its layout they travel, did: by section id, with their PE.
  std::unordered_map<std::uint32_t, std::vector<message*>> waiting;
};
section_table& sections() {
  static section_table t;
  return t;
}

}  // namespace

namespace {

std::unique_ptr<const section_layout> make_layout(std::uint32_t version, std::vector<std::uint32_t> tree_pes,
                                                  std::vector<std::vector<index_storage>> keys) {
  auto l = std::make_unique<section_layout>();
  l->version = version;
  for (std::uint32_t r = 0; r < tree_pes.size(); ++r) l->rank_of.emplace_back(tree_pes[r], r);
  std::sort(l->rank_of.begin(), l->rank_of.end());
  l->tree_pes = std::move(tree_pes);
  l->keys = std::move(keys);
  return l;
}

// Moves the multicasts waiting for section `id` (or a layout of it) back to
// their PEs' queues: each finds what it waited for, or waits again.
void release_waiting(std::uint32_t id, std::unique_lock<std::mutex>& lock) {
  auto& t = sections();
  std::vector<message*> released;
  if (auto w = t.waiting.find(id); w != t.waiting.end()) {
    released = std::move(w->second);
    t.waiting.erase(w);
  }
  lock.unlock();
  runtime_state& rt = *g_runtime.load();
  for (message* m : released) rt.pe(m->dst_pe).enqueue_remote(m);
}

// The PEs hosting members and each one's keys; every process computes the same.
std::unique_ptr<section_desc> build_section(std::uint32_t id, const collection_desc* array, std::vector<index_storage> keys,
                                            std::uint32_t maker_pe) {
  std::sort(keys.begin(), keys.end(), index_order);
  keys.erase(std::unique(keys.begin(), keys.end()), keys.end());
  auto d = std::make_unique<section_desc>();
  d->id = id;
  d->array = array;
  d->size = keys.size();
  std::uint32_t pes = g_runtime.load()->num_pes;
  std::vector<std::vector<index_storage>> by_pe(pes);
  for (const index_storage& key : keys) {
    if (array->kind == collection_kind::group) {  // a group section: the key is the PE
      if (static_cast<std::uint32_t>(key.v[0]) < pes) by_pe[static_cast<std::uint32_t>(key.v[0])].push_back(key);
      continue;
    }
    // Members are reached at their home; location management takes a
    // message on from there to a member that lives elsewhere.
    by_pe[home_of(array, key)].push_back(key);
  }
  for (std::uint32_t pe = 0; pe < pes; ++pe) {
    if (by_pe[pe].empty()) continue;
    if (pe == maker_pe) d->root = static_cast<std::uint32_t>(d->pes.size());
    d->pes.push_back(pe);
    d->keys_by_rank.push_back(std::move(by_pe[pe]));
  }
  for (std::size_t r = 0; r < d->pes.size(); ++r) d->tree_pes.push_back(d->pes[(r + d->root) % d->pes.size()]);
  std::vector<std::vector<index_storage>> by_tree_rank;
  for (std::size_t r = 0; r < d->pes.size(); ++r) by_tree_rank.push_back(d->keys_by_rank[(r + d->root) % d->pes.size()]);
  d->layouts.push_back(make_layout(0, d->tree_pes, std::move(by_tree_rank)));
  return d;
}

std::vector<index_storage> section_keys(const section_desc* d) {
  std::vector<index_storage> keys;
  keys.reserve(d->size);
  for (const auto& k : d->keys_by_rank) keys.insert(keys.end(), k.begin(), k.end());
  return keys;
}

// Registers a section made elsewhere and releases the multicasts that waited for it.
const section_desc* adopt_section(std::uint32_t id, const collection_desc* array, std::vector<index_storage> keys,
                                  std::uint32_t maker_pe) {
  auto d = build_section(id, array, std::move(keys), maker_pe);
  auto& t = sections();
  std::unique_lock lock(t.mutex);
  auto [it, fresh] = t.by_id.try_emplace(id, std::move(d));
  const section_desc* result = it->second.get();
  release_waiting(id, lock);
  return result;
}

void register_remote_section(std::uint32_t id, collection_wire array, std::vector<index_storage> keys,
                             std::uint32_t maker_pe) {
  adopt_section(id, ensure_collection(array), std::move(keys), maker_pe);
}

// Tells every other process of the job about section `d` (made here, or
// rebuilt here from a proxy), so that multicasts reaching them find it.
void announce_section(const section_desc* d, std::uint32_t maker) {
  runtime_state& rt = *g_runtime.load();
  if (rt.num_nodes <= 1) return;
  std::vector<index_storage> all = section_keys(d);
  for (std::uint32_t node = 0; node < rt.num_nodes; ++node)
    if (node != rt.my_node)
      post_control_uncounted<&register_remote_section>(rt.first_pe_of(node), d->id, to_wire(d->array), all, maker);
}

void register_remote_layout(std::uint32_t id, collection_wire array, std::vector<index_storage> all_keys,
                            std::uint32_t root_pe, std::uint32_t version, std::vector<std::uint32_t> tree_pes,
                            std::vector<std::vector<index_storage>> keys) {
  // The section's own announcement (from the process that made it) may
  // still be on the way: this one carries enough to adopt it.
  const section_desc* d = find_section(id);
  if (!d) d = adopt_section(id, ensure_collection(array), std::move(all_keys), root_pe);
  add_section_layout(d, std::move(tree_pes), std::move(keys), version, false);
}

}  // namespace

std::uint32_t section_layout::rank(std::uint32_t pe) const noexcept {
  auto it = std::lower_bound(rank_of.begin(), rank_of.end(), std::make_pair(pe, std::uint32_t{0}));
  return it != rank_of.end() && it->first == pe ? it->second : ~0u;
}

const section_layout* find_section_layout(const section_desc* d, std::uint32_t version) noexcept {
  auto& t = sections();
  std::lock_guard lock(t.mutex);
  return version < d->layouts.size() ? d->layouts[version].get() : nullptr;
}

const section_layout* add_section_layout(const section_desc* d, std::vector<std::uint32_t> tree_pes,
                                         std::vector<std::vector<index_storage>> keys, std::uint32_t version,
                                         bool announce) {
  if (announce) {
    runtime_state& rt = *g_runtime.load();
    for (std::uint32_t node = 0; node < rt.num_nodes; ++node)
      if (node != rt.my_node)
        post_control_uncounted<&register_remote_layout>(rt.first_pe_of(node), d->id, to_wire(d->array),
                                                        section_keys(d), d->root_pe(), version, tree_pes, keys);
  }
  auto l = make_layout(version, std::move(tree_pes), std::move(keys));
  auto& t = sections();
  std::unique_lock lock(t.mutex);
  // Descriptors are const to their users; only this table adds layouts.
  auto& layouts = const_cast<section_desc*>(d)->layouts;
  if (layouts.size() <= version) layouts.resize(version + 1);
  if (!layouts[version]) layouts[version] = std::move(l);
  const section_layout* result = layouts[version].get();
  release_waiting(d->id, lock);
  return result;
}

const section_desc* new_section(const collection_desc* array, std::vector<index_storage> keys) {
  auto& t = sections();
  std::uint32_t id = 0;
  {
    std::lock_guard lock(t.mutex);
    id = program_wide_id(t.next_seq++);
  }
  const std::uint32_t maker = tls_pe->id();
  const section_desc* d = adopt_section(id, array, std::move(keys), maker);
  announce_section(d, maker);
  return d;
}

const section_desc* find_section(std::uint32_t id) noexcept {
  auto& t = sections();
  std::lock_guard lock(t.mutex);
  auto it = t.by_id.find(id);
  return it == t.by_id.end() ? nullptr : it->second.get();
}

void pup_section(pup_er& p, const section_desc*& d) {
  std::uint32_t id = d ? d->id : 0;
  p | id;
  if (id == 0) {
    if (p.is_unpacking()) d = nullptr;
    return;
  }
  collection_wire array;
  std::vector<index_storage> keys;
  std::uint32_t root_pe = 0;  // rebuilding with the root as maker gives the same root
  if (!p.is_unpacking()) {
    array = to_wire(d->array);
    keys = section_keys(d);
    root_pe = d->pes.empty() ? 0 : d->pes[d->root];
  }
  p | array | keys | root_pe;
  if (p.is_unpacking()) {
    d = find_section(id);
    if (!d) {
      // Unknown here: its announcement is on the way, or this is a restart
      // (or a recovery), where sections come back only from the proxies that
      // name them. Processes without such a proxy learn of it from this one.
      d = adopt_section(id, ensure_collection(array), std::move(keys), root_pe);
      if (tls_pe) announce_section(d, root_pe);
    }
  }
}

// A multicast: pass it down the tree of the PEs of its layout (the root
// stamps the current version), then deliver to this PE's members of the
// section, in index order; report members that are no longer here, and close
// the version when the root asks (section_regroup.cpp).
void deliver_section(pe_objects& objs, message* m) noexcept {
  const auto id = static_cast<std::uint32_t>(m->index.v[0]);
  local_collection* lc = objs.find(m->collection);
  if (!lc || !lc->constructed) {
    objs.get(m->collection).pending.push_back(m);
    return;
  }
  const std::uint32_t me = tls_pe->id();
  const section_desc* sec = nullptr;
  const section_layout* layout = nullptr;
  {
    auto& t = sections();
    std::lock_guard lock(t.mutex);
    if (auto it = t.by_id.find(id); it != t.by_id.end()) sec = it->second.get();
    // A multicast reaches its root from its sender: the root stamps it with
    // the current version, or holds it during a regroup (section_regroup.cpp
    // touches only this PE's state, never this table). Every other PE of the
    // tree gets the root's copies, stamped.
    if (sec && me == sec->root_pe() && !(m->flags & work_forwarded) && !admit_at_root(*sec, m)) return;
    const std::uint32_t version = section_version_of(*m);
    if (sec && version < sec->layouts.size()) layout = sec->layouts[version].get();
    if (!layout) {
      // Its description, or this version's layout, is still on the way
      // from the process that made it.
      m->dst_pe = me;
      t.waiting[id].push_back(m);
      return;
    }
  }
  const std::uint32_t rank = layout->rank(me);
  if (rank == ~0u) {
    report_delivery_failure(*m, "multicast reached a PE outside its section");
    discard_message(m);
    return;
  }
  if (!(m->flags & work_forwarded)) {
    member_tree tree{layout->tree_pes, tls_pe->runtime().ppn, tls_pe->runtime().opts.bfactor};
    tree.for_each_child(rank, [&](std::uint32_t child) { forward_copy(m, layout->tree_pes[child]); });
    m->flags |= work_forwarded;
  }
  const collection_desc* d = lc->desc;
  const bool closing = section_closing(*m);
  std::uint32_t markers = 0;
  for (const index_storage& idx : layout->keys[rank]) {
    if (tls_pe->runtime().stopping()) break;
    if (d->kind != collection_kind::array) {
      void* obj = lc->elements.find(idx);
      m->target = target_kind::element;
      m->index = idx;
      if (!obj) {
        report_delivery_failure(*m, "section member missing on its PE");
        break;
      }
      invoke_guarded(m, obj);
      continue;
    }
    // One copy per member, addressed to it: one that moved away is followed
    // by location management, still exactly once.
    message* one = clone_message(m);
    one->target = target_kind::element;
    one->index = idx;
    one->flags &= ~static_cast<std::uint32_t>(work_forwarded);
    one->src_pe = me;
    one->seq = 0;
    if (void* obj = lc->elements.find(idx)) [[likely]] {
      // Observers: a copy for a member here is part of the multicast
      // received here (it inherits its work_received).
      deliver_to_element_here(*lc, one, obj);
      continue;
    }
    // One for a member that moved away is a message of its own, sent from
    // here to wherever it is.
    if (observed()) note_sent(one, me, false);
    message* marker = nullptr;
    if (closing) marker = section_marker_after(one, *sec);
    else if (element_known_elsewhere(*lc, idx)) note_member_away(*sec, layout->version);
    route_missing(*lc, one);
    if (marker) {
      ++markers;
      route_missing(*lc, marker);  // the same path as the copy, right behind it
    }
  }
  if (closing) note_version_closed(*sec, markers);
  discard_message(m);
}

void forget_sections() noexcept {
  auto& sec = sections();
  std::lock_guard slock(sec.mutex);
  discard_waiting(sec.waiting);
  sec.by_id.clear();
}

void discard_waiting_multicasts() noexcept {
  auto& sec = sections();
  std::lock_guard slock(sec.mutex);
  discard_waiting(sec.waiting);
}

}  // namespace roam::detail
