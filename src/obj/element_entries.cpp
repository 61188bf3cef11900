// Running entries on array elements, and what an element asks for while one
// runs (migrate_to, destroy): carried out right after it.
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

// An element's suspended tasks end before it does (their frames may refer to it).
void end_tasks(const collection_desc* d, void* obj) noexcept {
  element_access::tasks(*d->elem->base(obj)).destroy_all();
}

// Takes the element out of this PE's tables (it migrates or dies here).
void unlink(local_collection& lc, const index_storage& idx) {
  lc.elements.erase(idx);
  auto it = std::find_if(lc.order.begin(), lc.order.end(), [&](const auto& mem) { return mem.index == idx; });
  if (it != lc.order.end()) lc.order.erase(it);
}

// Installs a built element here and delivers what waited for it.
void link(local_collection& lc, const index_storage& idx, void* obj) {
  lc.elements.insert(idx, obj);
  lc.order.push_back({obj, idx});
  location_state& loc = lc.locations();
  loc.departed.erase(idx);
  loc.known[idx] = {my_pe(), element_access::fields(base_of(lc, obj)).epoch};
}

void release_waiting(local_collection& lc, const index_storage& idx) {
  if (!lc.loc) return;
  auto it = lc.loc->arriving.find(idx);
  if (it == lc.loc->arriving.end()) return;
  std::vector<message*> waiting = std::move(it->second);
  lc.loc->arriving.erase(it);
  for (message* m : waiting) deliver_to_element(lc, m);
}

void destroy_here(local_collection& lc, const index_storage& idx, void* obj) {
  const collection_desc* d = lc.desc;
  element_fields& f = element_access::fields(base_of(lc, obj));
  location gone{no_pe, f.epoch + 1};
  std::uint32_t next = f.reductions;
  unlink(lc, idx);
  d->dynamic.store(true, std::memory_order_relaxed);
  lc.locations().departed[idx] = gone;
  lc.locations().known[idx] = gone;
  if (g_population_counter.died) g_population_counter.died(d, next);
  member_lifecycle(lifecycle_step::died, d, idx, obj);
  end_tasks(d, obj);
  d->cls->destroy(obj);
  std::uint32_t home = home_of(d, idx);
  if (home != my_pe()) send_news(d, idx, home, gone);
}

void run_entry(local_collection& lc, message* m, void* obj) noexcept {
  if (m) {
    // The correction goes out before the entry runs, so it reaches the sender
    // ahead of any reply: the sender's next message then comes straight here.
    if (hops_of(*m) > 0 && m->src_pe != my_pe() && m->src_pe < pe_total())
      send_news(lc.desc, m->index, m->src_pe, {my_pe(), element_access::fields(base_of(lc, obj)).epoch});
    invoke_on(lc, m, obj);
  }
  element_base& b = base_of(lc, obj);
  if (!element_access::has_request(b)) return;
  // A threaded entry still blocked on it holds its address: the request waits
  // for the last one to end (element_threads_done). docs/design/threads.md.
  if (element_access::threads(b) != 0) return;
  index_storage idx = b.stored_index();
  if (element_access::take_destroy(b)) {
    element_access::take_move(b);
    destroy_here(lc, idx, obj);
    return;
  }
  std::uint32_t dest = element_access::take_move(b);
  if (dest == my_pe()) return;
  if (dest >= pe_total()) {
    report_fatal(describe_element(lc.desc, idx) + " on pe " + std::to_string(my_pe()) + ": migrate_to pe " +
                 std::to_string(dest) + " outside [0," + std::to_string(pe_total()) + ")");
    return;
  }
  migrate_with_partners(lc, idx, obj, dest);
}

void deliver_to_element(local_collection& lc, message* m) noexcept {
  void* obj = lc.elements.find(m->index);
  if (!obj) [[unlikely]] {
    route_missing(lc, m);
    return;
  }
  deliver_to_element_here(lc, m, obj);
}

void deliver_to_element_here(local_collection& lc, message* m, void* obj) noexcept {
  if (is_section_marker(*m)) [[unlikely]] {  // followed its member here: no entry to run
    absorb_section_marker(*m, my_pe());
    discard_message(m);
    return;
  }
  if (observed()) [[unlikely]]
    note_received(m);
  run_entry(lc, m, obj);
  discard_message(m);
}

void resume_element_task(task_roots& roots, std::coroutine_handle<> h) noexcept {
  element_base& b = *static_cast<element_base*>(roots.owner);
  --element_access::threads(b);  // held until now: it cannot have left or died
  local_collection* lc = objects().find(b.descriptor()->id);
  void* obj = lc ? lc->elements.find(b.stored_index()) : nullptr;
  element_base* outer = tls_running_element;
  task_roots* outer_tasks = tls_task_owner;
  tls_running_element = &b;
  tls_task_owner = &roots;
  h.resume();
  tls_running_element = outer;
  tls_task_owner = outer_tasks;
  if (obj) run_entry(*lc, nullptr, obj);
}

void element_threads_done(std::uint32_t collection, const index_storage& idx, void* obj) noexcept {
  local_collection* lc = objects().find(collection);
  if (lc && lc->elements.find(idx) == obj) run_entry(*lc, nullptr, obj);
}

std::uint32_t local_element_count(const collection_desc* d) noexcept {
  local_collection* lc = objects().find(d->id);
  return lc ? static_cast<std::uint32_t>(lc->order.size()) : 0;
}

}  // namespace roam::detail
