// Inserting elements (sparse arrays, demand creation, insert from inside an
// element): the home learns of it before it is built; done_inserting holds
// broadcasts at the root until every insertion issued is built.
#include <algorithm>
#include <cstdio>
#include <mutex>
#include <string>
#include <unordered_map>
#include <vector>

#include <roam/msg/detail/control.hpp>
#include <roam/obj/detail/objects.hpp>

#include "element_internal.hpp"

namespace roam::detail {

// Builds element `idx` here with `make`, reporting a constructor that throws (null then).
void* build_element(const collection_desc* d, const index_storage& idx, make_fn make, const void* args) {
  construction_context ctx;
  ctx.desc = d;
  ctx.index = idx;
  ctx.pe = my_pe();
  tls_constructing = &ctx;
  void* obj = nullptr;
  try {
    obj = make ? make(args, ctx) : d->elem->make_default();
  } catch (const std::exception& e) {
    report_fatal(describe_element(d, idx) + ": constructor threw: " + e.what());
  }
  tls_constructing = nullptr;
  return obj;
}

// Demand creation: builds a default element at its home.
void* create_on_demand(local_collection& lc, const index_storage& idx) {
  const collection_desc* d = lc.desc;
  void* obj = build_element(d, idx, nullptr, nullptr);
  if (!obj) return nullptr;
  element_fields& f = element_access::fields(*d->elem->base(obj));
  auto prev = lc.locations().known.find(idx);
  f.epoch = prev == lc.loc->known.end() ? 0 : prev->second.epoch + 1;
  f.broadcasts = lc.bcast_seen;
  std::uint32_t count_on = no_pe;  // never set without a parent
  f.reductions = g_population_counter.born ? g_population_counter.born(d, no_parent, count_on) : 0;
  d->dynamic.store(true, std::memory_order_relaxed);
  link(lc, idx, obj);
  if (g_population_counter.here) g_population_counter.here(d, f.reductions);
  member_lifecycle(lifecycle_step::born, d, idx, obj);
  return obj;
}

namespace {

void insert_acked_check(local_collection& lc);

void hold_broadcasts(collection_wire w, std::int32_t change) {
  const collection_desc* d = ensure_collection(w);
  local_collection& lc = objects().get(d->id);
  if (!lc.desc) lc.desc = d;
  lc.bcast_holds = static_cast<std::uint32_t>(static_cast<std::int32_t>(lc.bcast_holds) + change);
  if (lc.bcast_holds > 0 || lc.bcast_held.empty()) return;
  std::vector<message*> held = std::move(lc.bcast_held);
  lc.bcast_held.clear();
  for (message* m : held) deliver(m, work_action::run);
}

// Ends the done_inserting calls whose insertions are all built: releases the root's hold.
void insert_acked_check(local_collection& lc) {
  while (!lc.done_waits.empty() && lc.done_waits.front() <= lc.inserts_acked) {
    lc.done_waits.erase(lc.done_waits.begin());
    collection_wire w = to_wire(lc.desc);
    post_control<&hold_broadcasts>(broadcast_root, 0, w, -1);
  }
}

}  // namespace

std::uint32_t register_insertion(const collection_desc* d, const index_storage& idx, std::uint32_t pe) {
  local_collection& lc = objects().get(d->id);
  if (!lc.desc) lc.desc = d;
  d->dynamic.store(true, std::memory_order_relaxed);
  location_state& loc = lc.locations();
  // The newest news of it here: known (where it lives) or departed (it left or died here).
  location newest{no_pe, 0};
  bool any = false;
  for (auto* table : {&loc.known, &loc.departed})
    if (auto it = table->find(idx); it != table->end() && (!any || it->second.epoch >= newest.epoch)) {
      newest = it->second;
      any = true;
    }
  bool exists = lc.elements.find(idx) || (any && newest.pe != no_pe) || (!any && !d->sparse);
  if (exists) {
    report_fatal(describe_element(d, idx) + ": inserted, but it exists already");
    return ~0u;
  }
  std::uint32_t epoch = any ? newest.epoch + 1 : 0;
  loc.known[idx] = {pe, epoch};
  forward_parked(lc, idx, pe);
  return epoch;
}

void install_inserted(const collection_desc* d, const index_storage& idx, std::uint32_t epoch, element_start start,
                      make_fn make, const void* args) {
  local_collection& lc = objects().get(d->id);
  if (!lc.desc) lc.desc = d;
  d->dynamic.store(true, std::memory_order_relaxed);
  void* obj = build_element(d, idx, make, args);
  if (!obj) return;
  element_fields& f = element_access::fields(*d->elem->base(obj));
  f.epoch = epoch;
  f.broadcasts = start.broadcasts;
  f.reductions = start.reductions;
  link(lc, idx, obj);
  if (g_population_counter.here) g_population_counter.here(d, f.reductions);
  member_lifecycle(lifecycle_step::born, d, idx, obj);
  std::uint32_t home = home_of(d, idx);
  if (home != my_pe()) send_news(d, idx, home, {my_pe(), epoch});
  if (start.issuer < pe_total()) post_control<&insert_acked>(start.issuer, 0, to_wire(d));
  run_entry(lc, nullptr, obj);
  if (lc.elements.find(idx) == obj && lc.constructed) replay_broadcasts(lc, idx, obj);
  if (lc.elements.find(idx) == obj) release_waiting(lc, idx);
}

void mark_done_inserting(const collection_desc* d) {
  local_collection& lc = objects().get(d->id);
  if (!lc.desc) lc.desc = d;
  // The root holds broadcasts from now (this message reaches it before any
  // broadcast this PE sends later) until the insertions are built.
  post_control<&hold_broadcasts>(broadcast_root, 0, to_wire(d), 1);
  lc.done_waits.push_back(lc.inserts_issued);
  insert_acked_check(lc);
}

element_start note_insert_issued(const collection_desc* d, element_base* parent) {
  local_collection& lc = objects().get(d->id);
  if (!lc.desc) lc.desc = d;
  ++lc.inserts_issued;
  element_start start;
  start.issuer = my_pe();
  std::uint32_t parent_next = no_parent;
  if (parent) {
    const element_fields& f = element_access::fields(*parent);
    parent_next = f.reductions;
    start.broadcasts = f.broadcasts;
  } else {
    start.broadcasts = lc.bcast_seen;
  }
  if (g_population_counter.born) start.reductions = g_population_counter.born(d, parent_next, start.count_birth_on);
  return start;
}

void count_birth_at_root(const collection_desc* d, std::uint32_t first) {
  if (g_population_counter.born_at_root) g_population_counter.born_at_root(d, first);
}

void insert_acked(collection_wire w) {
  local_collection& lc = objects().get(ensure_collection(w)->id);
  ++lc.inserts_acked;
  insert_acked_check(lc);
}

}  // namespace roam::detail
