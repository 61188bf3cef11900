// Array elements: location management, migration, insertion and destruction,
// numbered broadcasts. The protocol and why it delivers every message exactly
// once are in docs/design/migration.md; in short:
// - every element has a home PE (its map); the home learns every new location
//   (from the PE the element arrived at) and every insertion (before the
//   element is built), so a message that reaches the home can always be sent on;
// - a PE an element left keeps a pointer to where it went, and passes
//   messages on, flagged "via pointer"; since the element itself left first on
//   the same FIFO path, a flagged message that finds no element is buffered
//   until it arrives;
// - senders cache locations, corrected (newest epoch wins) by the PE where a
//   forwarded message finally ran.
#include <algorithm>
#include <cstdio>
#include <mutex>
#include <string>
#include <unordered_map>

#include <roam/msg/detail/control.hpp>
#include <roam/obj/detail/objects.hpp>

#include "moves.hpp"
#include "pe_objects.hpp"

namespace roam::detail {

namespace {

// Broadcasts kept for elements that arrive having missed some.
constexpr std::size_t broadcast_history = 256;
// Pointer-following hops after which a message asks the home instead.
constexpr std::uint32_t max_pointer_hops = 3;

std::uint32_t hops_of(const message& m) noexcept { return (m.flags & work_hop_mask) >> work_hop_shift; }

std::uint32_t me() noexcept { return tls_pe->id(); }
std::uint32_t pe_count() noexcept { return tls_pe->runtime().num_pes; }

std::string describe_element(const collection_desc* d, const index_storage& idx) {
  return describe_target(target_kind::element, d, idx, d->dims, "");
}

// Passes `m` on to `pe`, keeping its original sender (for cache correction).
void pass_on(message* m, std::uint32_t pe, std::uint32_t how) noexcept {
  std::uint32_t hops = std::min<std::uint32_t>(hops_of(*m) + 1, 15);
  m->flags = (m->flags & ~(work_via_pointer | work_via_home | work_hop_mask)) | how | (hops << work_hop_shift);
  m->dst_pe = pe;
  post(pe, m);
}

void location_news(collection_wire w, index_storage idx, std::uint32_t pe, std::uint32_t epoch);

// Tells `to` (the home, or a sender with a stale cache) where the element is.
void send_news(const collection_desc* d, const index_storage& idx, std::uint32_t to, location where) {
  if (to == me()) {
    location_news(to_wire(d), idx, where.pe, where.epoch);
    return;
  }
  post_control_uncounted<&location_news>(to, to_wire(d), idx, where.pe, where.epoch);
}

element_base& base_of(const local_collection& lc, void* obj) noexcept { return *lc.desc->elem->base(obj); }

}  // namespace

// An element's suspended tasks end before it does (their frames may refer to it).
void end_tasks(const collection_desc* d, void* obj) noexcept {
  element_access::tasks(*d->elem->base(obj)).destroy_all();
}

namespace {

void run_entry(local_collection& lc, message* m, void* obj) noexcept;
void invoke_on(local_collection& lc, message* m, void* obj) noexcept;

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
  loc.known[idx] = {me(), element_access::fields(base_of(lc, obj)).epoch};
}

void release_waiting(local_collection& lc, const index_storage& idx) {
  if (!lc.loc) return;
  auto it = lc.loc->arriving.find(idx);
  if (it == lc.loc->arriving.end()) return;
  std::vector<message*> waiting = std::move(it->second);
  lc.loc->arriving.erase(it);
  for (message* m : waiting) deliver_to_element(lc, m);
}

// Gives an element that arrived (or was inserted) the broadcasts this PE
// delivered after the last one it saw.
void replay_broadcasts(local_collection& lc, const index_storage& idx, void* obj) {
  element_fields& f = element_access::fields(base_of(lc, obj));
  if (f.broadcasts >= lc.bcast_seen) return;
  std::uint32_t oldest = lc.bcast_seen - static_cast<std::uint32_t>(lc.bcast_history.size()) + 1;
  if (f.broadcasts + 1 < oldest) {
    report_fatal(describe_element(lc.desc, idx) + " arrived on pe " + std::to_string(me()) + " having missed broadcast #" +
                 std::to_string(f.broadcasts + 1) + ", older than the " + std::to_string(broadcast_history) +
                 " this PE keeps");
    return;
  }
  for (std::uint32_t n = f.broadcasts + 1; n <= lc.bcast_seen; ++n) {
    if (lc.elements.find(idx) != obj) return;  // it moved on or died meanwhile
    message* m = lc.bcast_history[n - oldest];
    element_access::fields(base_of(lc, obj)).broadcasts = n;
    m->target = target_kind::element;
    m->index = idx;
    invoke_on(lc, m, obj);
    m->target = target_kind::array_all;
    run_entry(lc, nullptr, obj);
  }
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
  if (g_element_hooks.died) g_element_hooks.died(d, next);
  end_tasks(d, obj);
  d->cls->destroy(obj);
  std::uint32_t home = home_of(d, idx);
  if (home != me()) send_news(d, idx, home, gone);
}

void element_arrives(collection_wire w, index_storage idx, element_fields fields, bytes state);
void settle_arrival(local_collection& lc, const index_storage& idx, void* obj);

// An element on its way to another PE of this process, as itself. Should the
// message be discarded (shutdown), the element is destroyed with it.
class element_in_transit {
 public:
  element_in_transit(void* obj, const collection_desc* d) noexcept : obj_(obj), desc_(d) {}
  element_in_transit(element_in_transit&& o) noexcept : obj_(std::exchange(o.obj_, nullptr)), desc_(o.desc_) {}
  element_in_transit& operator=(element_in_transit&&) = delete;
  ~element_in_transit() {
    if (!obj_) return;
    end_tasks(desc_, obj_);
    desc_->cls->destroy(obj_);
  }
  void* take() noexcept { return std::exchange(obj_, nullptr); }

 private:
  void* obj_;
  const collection_desc* desc_;
};
void element_moves_in(collection_wire w, const index_storage& idx, element_in_transit& t);

// Sends the element to `dest` (packed, or as itself within this process);
// this PE keeps a pointer to where it went.
void migrate_one(local_collection& lc, const index_storage& idx, void* obj, std::uint32_t dest) {
  const collection_desc* d = lc.desc;
  const move_ops& ops = *d->elem->moves;
  const bool as_itself = moves_as_itself(ops, dest);
  task_roots& tasks = element_access::tasks(base_of(lc, obj));
  bytes state;
  if (!prepare_departure(ops, obj, tasks, dest, as_itself, state,
                         [&] { return describe_element(d, idx) + " on pe " + std::to_string(me()); }))
    return;
  element_fields& fields = element_access::fields(base_of(lc, obj));
  ++fields.epoch;
  unlink(lc, idx);
  d->dynamic.store(true, std::memory_order_relaxed);
  lc.locations().departed[idx] = {dest, fields.epoch};
  if (g_element_hooks.gone) g_element_hooks.gone(d, fields.reductions);
  // Counted either way: quiescence must not be declared while an element is in flight.
  if (as_itself) {
    post_closure(dest, [w = to_wire(d), idx, t = element_in_transit(obj, d)]() mutable noexcept {
      element_moves_in(w, idx, t);
    });
    return;
  }
  // The restart-entry tasks end here and start again on arrival, from the
  // state just packed (docs/design/flow.md).
  fields.restarts = end_restartable_tasks(tasks);
  element_fields travelling = std::move(fields);
  d->cls->destroy(obj);
  post_control<&element_arrives>(dest, 0, to_wire(d), idx, std::move(travelling), std::move(state));
}

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

// After an entry (or a constructor, or a replayed broadcast) ran on `obj`:
// carries out what it asked for, and corrects the sender's cache when the
// message had to be passed on to get here.
// Runs one entry on an element, which can ask for things meanwhile.
void invoke_on(message* m, void* obj, element_base& b) noexcept {
  element_base* outer = tls_running_element;
  task_roots* outer_tasks = tls_task_owner;
  tls_running_element = &b;
  tls_task_owner = &element_access::tasks(b);
  invoke_guarded(m, obj);
  tls_running_element = outer;
  tls_task_owner = outer_tasks;
}
void invoke_on(local_collection& lc, message* m, void* obj) noexcept { invoke_on(m, obj, base_of(lc, obj)); }

void run_entry(local_collection& lc, message* m, void* obj) noexcept {
  if (m) {
    // The correction goes out before the entry runs, so it reaches the sender
    // ahead of any reply: the sender's next message then comes straight here.
    if (hops_of(*m) > 0 && m->src_pe != me() && m->src_pe < pe_count())
      send_news(lc.desc, m->index, m->src_pe, {me(), element_access::fields(base_of(lc, obj)).epoch});
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
  if (dest == me()) return;
  if (dest >= pe_count()) {
    report_fatal(describe_element(lc.desc, idx) + " on pe " + std::to_string(me()) + ": migrate_to pe " +
                 std::to_string(dest) + " outside [0," + std::to_string(pe_count()) + ")");
    return;
  }
  migrate_with_partners(lc, idx, obj, dest);
}

void element_arrives(collection_wire w, index_storage idx, element_fields fields, bytes state) {
  const collection_desc* d = ensure_collection(w);
  local_collection& lc = objects().get(d->id);
  lc.desc = d;
  d->dynamic.store(true, std::memory_order_relaxed);
  construction_context ctx;
  ctx.desc = d;
  ctx.index = idx;
  ctx.pe = me();
  void* obj = nullptr;
  tls_constructing = &ctx;
  try {
    obj = d->elem->moves->unpack_state(state.span());
  } catch (const std::exception& e) {
    tls_constructing = nullptr;
    report_fatal(describe_element(d, idx) + " arriving on pe " + std::to_string(me()) + ": its state does not unpack: " + e.what());
    return;
  }
  tls_constructing = nullptr;
  element_access::fields(*d->elem->base(obj)) = std::move(fields);
  settle_arrival(lc, idx, obj);
}

void element_moves_in(collection_wire w, const index_storage& idx, element_in_transit& t) {
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
  if (g_element_hooks.here) g_element_hooks.here(d, f.reductions);
  std::uint32_t home = home_of(d, idx);
  if (home != me()) send_news(d, idx, home, {me(), f.epoch});
  element_base& b = *d->elem->base(obj);
  if (!welcome_arrival(*d->elem->moves, obj, element_access::tasks(b), &b,
                       std::exchange(element_access::fields(b).restarts, 0),
                       [&] { return describe_element(d, idx) + " on pe " + std::to_string(me()); }))
    return;
  run_entry(lc, nullptr, obj);
  if (lc.elements.find(idx) != obj) return;
  if (lc.constructed) replay_broadcasts(lc, idx, obj);
  release_waiting(lc, idx);
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
    if (pe == me()) {
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
  if (pe != no_pe && home_of(d, idx) == me()) forward_parked(lc, idx, pe);
}

}  // namespace

// Builds element `idx` here with `make`, reporting a constructor that throws (null then).
void* build_element(const collection_desc* d, const index_storage& idx, make_fn make, const void* args) {
  construction_context ctx;
  ctx.desc = d;
  ctx.index = idx;
  ctx.pe = me();
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

namespace {

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
  f.reductions = g_element_hooks.born ? g_element_hooks.born(d, no_parent, count_on) : 0;
  d->dynamic.store(true, std::memory_order_relaxed);
  link(lc, idx, obj);
  if (g_element_hooks.here) g_element_hooks.here(d, f.reductions);
  return obj;
}

// The element is not on this PE: pass the message on, or keep it until the element comes.
void route_missing(local_collection& lc, message* m) noexcept {
  const collection_desc* d = lc.desc;
  const index_storage idx = m->index;
  const std::uint32_t home = home_of(d, idx);
  location_state& loc = lc.locations();
  // The newest news of the element here: where it went from here, or where
  // it was last seen (a PE it was on keeps a record of where it went next).
  auto dep = loc.departed.find(idx);
  auto k = loc.known.find(idx);
  const location* newest = nullptr;
  if (dep != loc.departed.end()) newest = &dep->second;
  if (k != loc.known.end() && (!newest || k->second.epoch > newest->epoch)) newest = &k->second;
  bool destroyed_here = newest && newest->pe == no_pe;
  if (newest && newest->pe != no_pe && newest->pe != me()) {
    if (hops_of(*m) >= max_pointer_hops && home != me() && !(m->flags & work_via_home)) pass_on(m, home, 0);
    else pass_on(m, newest->pe, work_via_pointer | (home == me() ? std::uint32_t{work_via_home} : 0u));
    return;
  }
  if (newest && newest->pe == me()) {
    loc.arriving[idx].push_back(m);  // inserted here, not built yet
    return;
  }
  if ((m->flags & work_via_pointer) && !destroyed_here) {
    loc.arriving[idx].push_back(m);  // it left its last PE for here: it is on the way
    return;
  }
  if (home != me()) {
    pass_on(m, home, 0);
    return;
  }
  bool destroyed = destroyed_here;
  if (d->demand_creation) {
    if (void* obj = create_on_demand(lc, idx)) {
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

// ---- public to the runtime ---------------------------------------------------

std::uint32_t home_of(const collection_desc* d, const index_storage& idx) noexcept {
  return d->map(idx, d->shape, d->dims, tls_pe ? tls_pe->runtime().num_pes : g_runtime.load()->num_pes);
}

std::uint32_t locate_element(const collection_desc* d, const index_storage& idx) noexcept {
  if (!d->dynamic.load(std::memory_order_relaxed)) [[likely]]
    return d->map(idx, d->shape, d->dims, pe_count());
  if (local_collection* lc = objects().find(d->id)) {
    if (lc->elements.find(idx)) return me();
    if (lc->loc) {
      auto k = lc->loc->known.find(idx);
      if (k != lc->loc->known.end() && k->second.pe != no_pe) return k->second.pe;
    }
  }
  return home_of(d, idx);
}

void deliver_to_element(local_collection& lc, message* m) noexcept {
  void* obj = lc.elements.find(m->index);
  if (!obj) [[unlikely]] {
    route_missing(lc, m);
    return;
  }
  run_entry(lc, m, obj);
  discard_message(m);
}

void deliver_array_broadcast(local_collection& lc, message* m) noexcept {
  if (m->seq != lc.bcast_seen + 1) {
    if (m->seq <= lc.bcast_seen) {
      report_delivery_failure(*m, "broadcast delivered twice");
      discard_message(m);
      return;
    }
    lc.bcast_early.emplace(m->seq, m);  // an earlier one is still on its way (priorities reorder)
    return;
  }
  for (;;) {
    std::uint32_t n = m->seq;
    lc.bcast_seen = n;
    // No copy of the member list: only the element just run can leave it (its
    // requests run right after its entry), and members added meanwhile were
    // born with this broadcast counted as seen.
    // Once per element and broadcast: the element's base is found once (an
    // indirect call) and run_entry is entered only for a request.
    for (std::size_t i = 0; i < lc.order.size();) {
      if (tls_pe->runtime().stopping()) break;
      void* const obj = lc.order[i].obj;
      element_base& b = base_of(lc, obj);
      element_fields& f = element_access::fields(b);
      if (f.broadcasts >= n) {  // got it on the PE it came from
        ++i;
        continue;
      }
      f.broadcasts = n;
      m->target = target_kind::element;  // so errors and tasks name the element
      m->index = lc.order[i].index;
      invoke_on(m, obj, b);
      if (element_access::has_request(b)) run_entry(lc, nullptr, obj);
      if (i < lc.order.size() && lc.order[i].obj == obj) ++i;  // else it left: the next one moved into slot i
    }
    m->target = target_kind::array_all;
    lc.bcast_history.push_back(m);
    if (lc.bcast_history.size() > broadcast_history) {
      discard_message(lc.bcast_history.front());
      lc.bcast_history.pop_front();
    }
    auto next = lc.bcast_early.find(lc.bcast_seen + 1);
    if (next == lc.bcast_early.end()) return;
    m = next->second;
    lc.bcast_early.erase(next);
  }
}

void teardown_locations(local_collection& lc) noexcept {
  for (message* m : lc.bcast_held) discard_message(m);
  lc.bcast_held.clear();
  for (message* m : lc.bcast_history) discard_message(m);
  lc.bcast_history.clear();
  for (auto& [n, m] : lc.bcast_early) discard_message(m);
  lc.bcast_early.clear();
  if (!lc.loc) return;
  for (auto& [idx, list] : lc.loc->arriving)
    for (message* m : list) discard_message(m);
  for (auto& [idx, list] : lc.loc->unknown) {
    if (!list.empty() && lc.desc)
      std::fprintf(stderr, "roam: pe %u: %zu message(s) for %s (entry %.*s) never delivered: the element was never inserted\n",
                   me(), list.size(), describe_element(lc.desc, idx).c_str(),
                   static_cast<int>(list.front()->ops->name.size()), list.front()->ops->name.data());
    for (message* m : list) discard_message(m);
  }
  lc.loc.reset();
}

bool hold_array_broadcast(local_collection& lc, message* m) noexcept {
  if (lc.bcast_holds == 0) return false;
  lc.bcast_held.push_back(m);
  return true;
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

bool migrate_local_element(const collection_desc* d, const index_storage& idx, std::uint32_t pe) {
  local_collection* lc = objects().find(d->id);
  if (!lc) return false;
  void* obj = lc->elements.find(idx);
  if (!obj) return false;
  if (pe == me()) return true;
  if (element_access::threads(base_of(*lc, obj)) != 0) {
    base_of(*lc, obj).migrate_to(pe);  // carried out when its threads have ended
    return true;
  }
  if (pe >= pe_count()) {
    report_fatal(describe_element(d, idx) + ": migration to pe " + std::to_string(pe) + " outside [0," +
                 std::to_string(pe_count()) + ")");
    return false;
  }
  migrate_with_partners(*lc, idx, obj, pe);
  return true;
}

std::uint32_t local_element_count(const collection_desc* d) noexcept {
  local_collection* lc = objects().find(d->id);
  return lc ? static_cast<std::uint32_t>(lc->order.size()) : 0;
}

void for_each_local_element(const collection_desc* d, void (*fn)(void*, void*, element_base&), void* ctx) {
  local_collection* lc = objects().find(d->id);
  if (!lc) return;
  std::vector<local_collection::member> members = lc->order;
  for (const auto& mem : members)
    if (lc->elements.find(mem.index) == mem.obj) fn(ctx, mem.obj, *d->elem->base(mem.obj));
}

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
  if (g_element_hooks.here) g_element_hooks.here(d, f.reductions);
  std::uint32_t home = home_of(d, idx);
  if (home != me()) send_news(d, idx, home, {me(), epoch});
  if (start.issuer < pe_count()) post_control<&insert_acked>(start.issuer, 0, to_wire(d));
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
  start.issuer = me();
  std::uint32_t parent_next = no_parent;
  if (parent) {
    const element_fields& f = element_access::fields(*parent);
    parent_next = f.reductions;
    start.broadcasts = f.broadcasts;
  } else {
    start.broadcasts = lc.bcast_seen;
  }
  if (g_element_hooks.born) start.reductions = g_element_hooks.born(d, parent_next, start.count_birth_on);
  return start;
}

void count_birth_at_root(const collection_desc* d, std::uint32_t first) {
  if (g_element_hooks.born_at_root) g_element_hooks.born_at_root(d, first);
}

void insert_acked(collection_wire w) {
  local_collection& lc = objects().get(ensure_collection(w)->id);
  ++lc.inserts_acked;
  insert_acked_check(lc);
}

void register_binding(const collection_desc* d) {
  if (!d->bound_to) return;
  auto& r = bindings();
  std::lock_guard lock(r.mutex);
  auto& g = r.groups[d->bound_to];
  if (std::find(g.begin(), g.end(), d) == g.end()) g.push_back(d);
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
