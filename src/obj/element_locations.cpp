// Location management: where an element is, and what to do with a message
// for one that is not here (pass it on, keep it until it arrives, park it at
// the home until its insertion). docs/design/migration.md.
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

void location_news(collection_wire w, index_storage idx, std::uint32_t pe, std::uint32_t epoch);

// Passes `m` on to `pe`, keeping its original sender (for cache correction).
void pass_on(message* m, std::uint32_t pe, std::uint32_t how) noexcept {
  std::uint32_t hops = std::min<std::uint32_t>(hops_of(*m) + 1, 15);
  m->flags = (m->flags & ~(work_via_pointer | work_via_home | work_hop_mask)) | how | (hops << work_hop_shift);
  m->dst_pe = pe;
  post(pe, m);
}

// Tells `to` (the home, or a sender with a stale cache) where the element is.
void send_news(const collection_desc* d, const index_storage& idx, std::uint32_t to, location where) {
  if (to == my_pe()) {
    location_news(to_wire(d), idx, where.pe, where.epoch);
    return;
  }
  post_control_uncounted<&location_news>(to, to_wire(d), idx, where.pe, where.epoch);
}

void forward_parked(local_collection& lc, const index_storage& idx, std::uint32_t pe) {
  if (!lc.loc) return;
  auto it = lc.loc->unknown.find(idx);
  if (it == lc.loc->unknown.end()) return;
  std::vector<message*> parked = std::move(it->second);
  lc.loc->unknown.erase(it);
  for (message* m : parked) {
    // Parked messages were counted as processed (so quiescence could be
    // seen); passing them on makes them live again.
    if (pe == my_pe()) {
      deliver_to_element(lc, m);
    } else {
      pass_on(m, pe, work_via_pointer);
    }
  }
}

void location_news(collection_wire w, index_storage idx, std::uint32_t pe, std::uint32_t epoch) {
  const collection_desc* d = ensure_collection(w);
  d->dynamic.store(true, std::memory_order_relaxed);
  local_collection& lc = objects().get(d->id);
  if (!lc.desc) lc.desc = d;
  location_state& loc = lc.locations();
  auto [it, fresh] = loc.known.try_emplace(idx, location{pe, epoch});
  if (!fresh) {
    if (epoch < it->second.epoch || (epoch == it->second.epoch && it->second.pe == no_pe)) return;
    it->second = {pe, epoch};
  }
  if (pe != no_pe && home_of(d, idx) == my_pe()) forward_parked(lc, idx, pe);
}

namespace {

// The newest news of an element here: where it went from here, or where it
// was last seen (a PE it was on keeps a record of where it went next); null
// when this PE has none.
const location* newest_location(const location_state& loc, const index_storage& idx) noexcept {
  const location* newest = nullptr;
  if (auto dep = loc.departed.find(idx); dep != loc.departed.end()) newest = &dep->second;
  if (auto k = loc.known.find(idx); k != loc.known.end() && (!newest || k->second.epoch > newest->epoch))
    newest = &k->second;
  return newest;
}

}  // namespace

bool element_known_elsewhere(local_collection& lc, const index_storage& idx) noexcept {
  const location* newest = lc.loc ? newest_location(*lc.loc, idx) : nullptr;
  if (!newest) return home_of(lc.desc, idx) != my_pe();
  return newest->pe != no_pe && newest->pe != my_pe();
}

// The element is not on this PE: pass the message on, or keep it until the element comes.
void route_missing(local_collection& lc, message* m) noexcept {
  const collection_desc* d = lc.desc;
  const index_storage idx = m->index;
  const std::uint32_t home = home_of(d, idx);
  location_state& loc = lc.locations();
  const location* newest = newest_location(loc, idx);
  bool destroyed_here = newest && newest->pe == no_pe;
  if (newest && newest->pe != no_pe && newest->pe != my_pe()) {
    if (hops_of(*m) >= max_pointer_hops && home != my_pe() && !(m->flags & work_via_home)) pass_on(m, home, 0);
    else pass_on(m, newest->pe, work_via_pointer | (home == my_pe() ? std::uint32_t{work_via_home} : 0u));
    return;
  }
  if (newest && newest->pe == my_pe()) {
    loc.arriving[idx].push_back(m);  // inserted here, not built yet
    return;
  }
  if ((m->flags & work_via_pointer) && !destroyed_here) {
    loc.arriving[idx].push_back(m);  // it left its last PE for here: it is on the way
    return;
  }
  if (home != my_pe()) {
    pass_on(m, home, 0);
    return;
  }
  if (is_section_marker(*m)) [[unlikely]] {
    // The member is nowhere (not inserted yet, destroyed, or made on
    // demand): messages for it stay here, so the section reaches it here.
    absorb_section_marker(*m, my_pe());
    discard_message(m);
    return;
  }
  bool destroyed = destroyed_here;
  if (d->demand_creation) {
    if (void* obj = create_on_demand(lc, idx)) {
      if (observed()) [[unlikely]]
        note_received(m);
      run_entry(lc, m, obj);
      discard_message(m);
      return;
    }
  }
  if (!d->sparse) {
    report_delivery_failure(*m, destroyed ? "no such element: it was destroyed" : "no such element");
    discard_message(m);
    return;
  }
  // A sparse array: its insertion (or re-insertion) may still be on the way.
  // Never delivered, it is reported when the program ends.
  loc.unknown[idx].push_back(m);  // its insertion may still be on the way
}

// ---- public to the runtime ---------------------------------------------------

std::uint32_t home_of(const collection_desc* d, const index_storage& idx) noexcept {
  return d->map(idx, d->shape, d->dims, tls_pe ? tls_pe->runtime().num_pes : g_runtime.load()->num_pes);
}

std::uint32_t locate_element(const collection_desc* d, const index_storage& idx) noexcept {
  if (!d->dynamic.load(std::memory_order_relaxed)) [[likely]]
    return d->map(idx, d->shape, d->dims, pe_total());
  if (local_collection* lc = objects().find(d->id)) {
    if (lc->elements.find(idx)) return my_pe();
    if (lc->loc) {
      auto k = lc->loc->known.find(idx);
      if (k != lc->loc->known.end() && k->second.pe != no_pe) return k->second.pe;
    }
  }
  return home_of(d, idx);
}

void* local_element(const collection_desc* d, const index_storage& idx) noexcept {
  local_collection* lc = objects().find(d->id);
  return lc ? lc->elements.find(idx) : nullptr;
}

void teardown_locations(local_collection& lc) noexcept {
  for (message* m : lc.bcast_held) discard_message(m);
  lc.bcast_held.clear();
  for (message* m : lc.bcast_history) discard_message(m);
  lc.bcast_history.clear();
  for (auto& [n, m] : lc.bcast_early) discard_message(m);
  lc.bcast_early.clear();
  if (!lc.loc) return;
  discard_waiting(lc.loc->arriving);
  for (auto& [idx, list] : lc.loc->unknown) {
    if (!list.empty() && lc.desc)
      std::fprintf(stderr, "roam: pe %u: %zu message(s) for %s (entry %.*s) never delivered: the element was never inserted\n",
                   my_pe(), list.size(), describe_element(lc.desc, idx).c_str(),
                   static_cast<int>(list.front()->ops->name.size()), list.front()->ops->name.data());
    for (message* m : list) discard_message(m);
  }
  lc.loc.reset();
}

}  // namespace roam::detail
