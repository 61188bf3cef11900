// Array elements that migrate: packed (or handed over as themselves within a
// process), with their partners in bound arrays; and arriving.
#include <algorithm>
#include <cstdio>
#include <mutex>
#include <string>
#include <unordered_map>
#include <vector>

#include <roam/msg/detail/control.hpp>
#include <roam/obj/detail/objects.hpp>

#include "element_internal.hpp"
#include "moves.hpp"

namespace roam::detail {

namespace {

void element_arrives(collection_wire w, index_storage idx, element_fields fields, bytes state);
void settle_arrival(local_collection& lc, const index_storage& idx, void* obj);

void element_moves_in(collection_wire w, const index_storage& idx, object_in_transit& t);

// Sends the element to `dest` (packed, or as itself within this process);
// this PE keeps a pointer to where it went.
void migrate_one(local_collection& lc, const index_storage& idx, void* obj, std::uint32_t dest) {
  const collection_desc* d = lc.desc;
  element_fields& fields = element_access::fields(base_of(lc, obj));
  depart(
      *d->elem->moves, d->cls, obj, element_access::tasks(base_of(lc, obj)), dest,
      [&] { return describe_element(d, idx) + " on pe " + std::to_string(my_pe()); },
      [&] {
        ++fields.epoch;
        unlink(lc, idx);
        d->dynamic.store(true, std::memory_order_relaxed);
        lc.locations().departed[idx] = {dest, fields.epoch};
        if (g_population_counter.gone) g_population_counter.gone(d, fields.reductions);
        member_lifecycle(lifecycle_step::leaving, d, idx, obj, dest);
      },
      [&](object_in_transit t) {
        post_closure(dest, [w = to_wire(d), idx, t = std::move(t)]() mutable noexcept { element_moves_in(w, idx, t); });
      },
      [&](bytes state, std::uint32_t restarts, auto destroy) {
        fields.restarts = restarts;
        element_fields travelling = std::move(fields);
        destroy();
        post_control<&element_arrives>(dest, 0, to_wire(d), idx, std::move(travelling), std::move(state));
      });
}

void element_arrives(collection_wire w, index_storage idx, element_fields fields, bytes state) {
  const collection_desc* d = ensure_collection(w);
  local_collection& lc = objects().get(d->id);
  lc.desc = d;
  d->dynamic.store(true, std::memory_order_relaxed);
  construction_context ctx;
  ctx.desc = d;
  ctx.index = idx;
  ctx.pe = my_pe();
  void* obj = nullptr;
  tls_constructing = &ctx;
  try {
    obj = d->elem->moves->unpack_state(state.span());
  } catch (const std::exception& e) {
    tls_constructing = nullptr;
    report_fatal(describe_element(d, idx) + " arriving on pe " + std::to_string(my_pe()) + ": its state does not unpack: " + e.what());
    return;
  }
  tls_constructing = nullptr;
  element_access::fields(*d->elem->base(obj)) = std::move(fields);
  settle_arrival(lc, idx, obj);
}

void element_moves_in(collection_wire w, const index_storage& idx, object_in_transit& t) {
  const collection_desc* d = ensure_collection(w);
  local_collection& lc = objects().get(d->id);
  lc.desc = d;
  settle_arrival(lc, idx, t.take());
}

// An element is here (unpacked or handed over): it takes messages from now on.
void settle_arrival(local_collection& lc, const index_storage& idx, void* obj) {
  const collection_desc* d = lc.desc;
  link(lc, idx, obj);
  const element_fields& f = element_access::fields(*d->elem->base(obj));
  if (g_population_counter.here) g_population_counter.here(d, f.reductions);
  std::uint32_t home = home_of(d, idx);
  if (home != my_pe()) send_news(d, idx, home, {my_pe(), f.epoch});
  element_base& b = *d->elem->base(obj);
  if (!welcome_arrival(*d->elem->moves, obj, element_access::tasks(b), &b,
                       std::exchange(element_access::fields(b).restarts, 0),
                       [&] { return describe_element(d, idx) + " on pe " + std::to_string(my_pe()); }))
    return;
  member_lifecycle(lifecycle_step::arrived, d, idx, obj);
  run_entry(lc, nullptr, obj);
  if (lc.elements.find(idx) != obj) return;
  if (lc.constructed) replay_broadcasts(lc, idx, obj);
  release_waiting(lc, idx);
}

// Bound arrays: groups by the id of the array they are bound to.
struct binding_registry {
  std::mutex mutex;
  std::unordered_map<std::uint32_t, std::vector<const collection_desc*>> groups;
};
binding_registry& bindings() {
  static binding_registry r;
  return r;
}

}  // namespace

// Migrates the element and its partners in bound arrays.
void migrate_with_partners(local_collection& lc, const index_storage& idx, void* obj, std::uint32_t dest) {
  migrate_one(lc, idx, obj, dest);
  if (!lc.desc->bound_to && bound_group(lc.desc).size() <= 1) return;
  pe_objects& objs = objects();
  for (const collection_desc* other : bound_group(lc.desc)) {
    if (other == lc.desc) continue;
    local_collection* olc = objs.find(other->id);
    if (!olc) continue;
    if (void* partner = olc->elements.find(idx)) migrate_one(*olc, idx, partner, dest);
  }
}

bool migrate_local_element(const collection_desc* d, const index_storage& idx, std::uint32_t pe) {
  local_collection* lc = objects().find(d->id);
  if (!lc) return false;
  void* obj = lc->elements.find(idx);
  if (!obj) return false;
  if (pe == my_pe()) return true;
  if (element_access::threads(base_of(*lc, obj)) != 0) {
    base_of(*lc, obj).migrate_to(pe);  // carried out when its threads have ended
    return true;
  }
  if (pe >= pe_total()) {
    report_fatal(describe_element(d, idx) + ": migration to pe " + std::to_string(pe) + " outside [0," +
                 std::to_string(pe_total()) + ")");
    return false;
  }
  migrate_with_partners(*lc, idx, obj, pe);
  return true;
}

void register_binding(const collection_desc* d) {
  if (!d->bound_to) return;
  auto& r = bindings();
  std::lock_guard lock(r.mutex);
  auto& g = r.groups[d->bound_to];
  if (std::find(g.begin(), g.end(), d) == g.end()) g.push_back(d);
}

void forget_bindings() noexcept {
  auto& r = bindings();
  std::lock_guard lock(r.mutex);
  r.groups.clear();
}

std::vector<const collection_desc*> bound_group(const collection_desc* d) {
  std::uint32_t root = d->bound_to ? d->bound_to : d->id;
  std::vector<const collection_desc*> out;
  if (const collection_desc* r = find_collection(root)) out.push_back(r);
  auto& r = bindings();
  std::lock_guard lock(r.mutex);
  if (auto it = r.groups.find(root); it != r.groups.end())
    out.insert(out.end(), it->second.begin(), it->second.end());
  return out;
}

}  // namespace roam::detail
