// Reductions over arrays, whose elements migrate, are inserted and die.
// Each PE passes reduction r up a tree of all PEs once none of its local
// elements still owes r and its children have passed r up; the partial
// carries the number of contributions and the population change (births
// minus deaths) that takes effect at r. The root completes r when the count
// equals the population. Contributions and deaths that happen on a PE after
// it passed r up (an element that arrived late) go straight to the root.
// PEs with no element learn that r exists from a "start" sent down the tree
// by any PE that touches r first. See docs/design/migration.md.
#include <algorithm>
#include <string>

#include <roam/msg/detail/control.hpp>
#include <roam/sched/detail/startup.hpp>
#include <roam/sched/detail/tree.hpp>
#include <roam/sched/observe.hpp>

#include <roam/coll/detail/checkpoint_support.hpp>
#include <roam/sched/detail/hook_slot.hpp>

#include "state.hpp"
#include "waves.hpp"

namespace roam::detail {

namespace {

constexpr std::uint32_t tree_root = 0;

[[gnu::noinline]] array_reductions& find_state(coll_state& st, const collection_desc* d) {
  auto [it, fresh] = st.arrays.try_emplace(d->id);
  array_reductions& r = it->second;
  if (fresh) {
    std::uint32_t me = tls_pe->id();
    r.name = "array " + std::string(d->cls->name);
    r.root = me == tree_root;
    pe_tree tree = all_pes();
    r.parent = r.root ? me : tree.parent(me);
    tree.for_each_child(me, [&](std::uint32_t c) { r.children.push_back(c); });
    if (r.root) r.population = static_cast<std::int64_t>(d->volume);
  }
  st.last_array_id = d->id;
  st.last_array = &r;
  return r;
}

// Every contribution looks its array up: the last one found is kept (entries
// are never erased, so the pointer stays valid), and the look-up stays out of
// line so that this check is inlined.
inline array_reductions& state_of(const collection_desc* d) {
  coll_state& st = local_coll_state();
  if (st.last_array && st.last_array_id == d->id) [[likely]]
    return *st.last_array;
  return find_state(st, d);
}

std::string describe(const array_reductions& r, std::uint32_t seq) { return r.name + " reduction #" + std::to_string(seq); }

void fold_into(std::unique_ptr<partial_base>& into, std::unique_ptr<partial_base> p, const array_reductions& r, std::uint32_t seq) {
  if (!p) return;
  if (!into) {
    into = std::move(p);
    return;
  }
  if (*into->type != *p->type) {
    report_fatal(describe(r, seq) + ": contributions disagree on the reducer or the value type");
    return;
  }
  try {
    into->merge(*p);
  } catch (const std::exception& e) {
    report_fatal(describe(r, seq) + ": " + e.what());
  }
}

void start_here(collection_wire w, std::uint32_t seq);
void child_partial(collection_wire w, std::uint32_t seq, partial_handle p, std::uint64_t count, std::int64_t delta);
void root_partial(collection_wire w, std::uint32_t seq, partial_handle p, std::uint64_t count, std::int64_t delta);

[[gnu::noinline]] void announce_start(const collection_desc* d, const array_reductions& r, std::uint32_t seq) {
  for (std::uint32_t c : r.children) post_control_uncounted<&start_here>(c, to_wire(d), seq);
}
inline void mark_started(const collection_desc* d, array_reductions& r, array_slot& slot, std::uint32_t seq) {
  if (slot.started) return;
  slot.started = true;
  announce_start(d, r, seq);
}

std::int64_t owing(array_reductions& r, std::uint32_t seq) { return r.here.owing(seq); }

void try_complete_root(const collection_desc* d, array_reductions& r) {
  for (;;) {
    auto it = r.at_root.find(r.next_result);
    if (it == r.at_root.end() || !it->second.flushed) return;
    array_root_slot& s = it->second;
    std::int64_t expected = r.population + s.delta;
    if (static_cast<std::int64_t>(s.count) < expected) return;
    if (static_cast<std::int64_t>(s.count) > expected) {
      report_fatal(describe(r, r.next_result) + ": " + std::to_string(s.count) + " contributions for " +
                   std::to_string(expected) + " elements");
      return;
    }
    std::unique_ptr<partial_base> done = std::move(s.value);
    r.population = expected;
    r.at_root.erase(it);
    std::uint32_t seq = r.next_result++;
    if (!done) continue;  // nobody contributed (an empty array)
    report_phase(phase_kind::reduction_done, d->id, seq);
    try {
      done->finish();
    } catch (const std::exception& e) {
      report_fatal(describe(r, seq) + ": delivering the result: " + e.what());
    }
  }
}

void add_at_root(const collection_desc* d, array_reductions& r, std::uint32_t seq, std::unique_ptr<partial_base> p,
                 std::uint64_t count, std::int64_t delta, bool flush) {
  array_root_slot& s = r.at_root[seq];
  fold_into(s.value, std::move(p), r, seq);
  s.count += count;
  s.delta += delta;
  if (flush) s.flushed = true;
  try_complete_root(d, r);
}

// Passes up every reduction this PE is done with, in order.
[[gnu::noinline]] void flush_ready(const collection_desc* d, array_reductions& r) {
  for (;;) {
    if (!r.constructed || owing(r, r.next_flush) > 0) return;
    auto it = r.slots.find(r.next_flush);
    if (it == r.slots.end() || !it->second.started) return;
    array_slot& slot = it->second;
    if (slot.children < r.children.size()) return;
    std::uint32_t seq = r.next_flush++;
    std::unique_ptr<partial_base> value = std::move(slot.value);
    std::uint64_t count = slot.count;
    std::int64_t delta = slot.delta;
    r.slots.erase(it);
    if (r.root) add_at_root(d, r, seq, std::move(value), count, delta, true);
    else post_control<&child_partial>(r.parent, 0, to_wire(d), seq, partial_handle{std::move(value)}, count, delta);
  }
}
// Called after every contribution: the O(1) check that some local element
// still owes the reduction is inlined, before any look-up.
inline void try_flush(const collection_desc* d, array_reductions& r) {
  if (!r.constructed || owing(r, r.next_flush) > 0) return;
  flush_ready(d, r);
}

void start_here(collection_wire w, std::uint32_t seq) {
  const collection_desc* d = ensure_collection(w);
  array_reductions& r = state_of(d);
  if (seq < r.next_flush) return;
  mark_started(d, r, r.slots[seq], seq);
  try_flush(d, r);
}

void child_partial(collection_wire w, std::uint32_t seq, partial_handle p, std::uint64_t count, std::int64_t delta) {
  const collection_desc* d = ensure_collection(w);
  array_reductions& r = state_of(d);
  array_slot& slot = r.slots[seq];
  fold_into(slot.value, std::move(p.p), r, seq);
  slot.count += count;
  slot.delta += delta;
  ++slot.children;
  mark_started(d, r, slot, seq);
  try_flush(d, r);
}

void root_partial(collection_wire w, std::uint32_t seq, partial_handle p, std::uint64_t count, std::int64_t delta) {
  const collection_desc* d = ensure_collection(w);
  array_reductions& r = state_of(d);
  if (seq >= r.next_flush) mark_started(d, r, r.slots[seq], seq);
  add_at_root(d, r, seq, std::move(p.p), count, delta, false);
  try_flush(d, r);
}

// Something that belongs to reduction `seq`, which this PE may already have passed up.
void add_here(const collection_desc* d, array_reductions& r, std::uint32_t seq, std::unique_ptr<partial_base> p,
              std::uint64_t count, std::int64_t delta) {
  if (seq < r.next_flush) {
    if (r.root) {
      add_at_root(d, r, seq, std::move(p), count, delta, false);
      return;
    }
    post_control<&root_partial>(tree_root, 0, to_wire(d), seq, partial_handle{std::move(p)}, count, delta);
    return;
  }
  array_slot& slot = r.slots[seq];
  fold_into(slot.value, std::move(p), r, seq);
  slot.count += count;
  slot.delta += delta;
  if (count) mark_started(d, r, slot, seq);
  try_flush(d, r);
}

void move_here(array_reductions& r, std::uint32_t from, std::int64_t n) { r.here.add(from, n); }

// ---- population hooks (called by the objects layer) ----

void element_here(const collection_desc* d, std::uint32_t next) { move_here(state_of(d), next, 1); }
void element_gone(const collection_desc* d, std::uint32_t next) {
  array_reductions& r = state_of(d);
  move_here(r, next, -1);
  try_flush(d, r);
}
void element_born_at_root(const collection_desc* d, std::uint32_t first) {
  array_reductions& r = state_of(d);
  add_at_root(d, r, first, nullptr, 0, 1, false);
}
std::uint32_t element_born(const collection_desc* d, std::uint32_t parent_next, std::uint32_t& count_on) {
  array_reductions& r = state_of(d);
  count_on = no_pe;
  std::uint32_t first = parent_next == no_parent ? r.next_flush : parent_next;
  if (first >= r.next_flush) {
    // Counted in this PE's partial, which cannot pass `first` up while the
    // parent (here, owing it) or, without a parent, this PE's turn is open.
    r.slots[first].delta += 1;
    return first;
  }
  // The parent arrived late: this PE passed `first` up already. The root still
  // waits for the parent, so it can count the birth; but the child, once built
  // elsewhere, may contribute straight to the root, so the root must have
  // counted the birth first: the insertion travels through the root.
  if (r.root) element_born_at_root(d, first);
  else count_on = tree_root;
  return first;
}
void element_died(const collection_desc* d, std::uint32_t next) {
  array_reductions& r = state_of(d);
  move_here(r, next, -1);
  add_here(d, r, next, nullptr, 0, -1);
}
void array_constructed(const collection_desc* d) {
  array_reductions& r = state_of(d);
  r.constructed = true;
  try_flush(d, r);
}

const bool hooks_installed = [] {
  population_counter h;
  h.here = &element_here;
  h.gone = &element_gone;
  h.born = &element_born;
  h.born_at_root = &element_born_at_root;
  h.died = &element_died;
  h.constructed = &array_constructed;
  install_hook(g_population_counter, h, "g_population_counter", "coll (src/coll/array_reductions.cpp)");
  return true;
}();

}  // namespace

void restore_array_population(const collection_desc* d, std::int64_t population) {
  state_of(d).population = population;
}

void submit_array_contribution(const contributor& who, std::unique_ptr<partial_base> p) {
  (void)hooks_installed;
  array_reductions& r = state_of(who.desc);
  std::uint32_t seq = who.take_number();
  r.here.step(seq);
  add_here(who.desc, r, seq, std::move(p), 1, 0);
}

// The common case, once per element and reduction: the value is folded into
// this PE's partial without being boxed (only the PE's first contribution to
// a reduction is), with no map touched but the slot's.
void submit_array_contribution(const contributor& who, const pending_contribution& c) {
  (void)hooks_installed;
  array_reductions& r = state_of(who.desc);
  std::uint32_t seq = who.take_number();
  r.here.step(seq);
  if (seq < r.next_flush) [[unlikely]] {  // a migrant late for it: to the root
    add_here(who.desc, r, seq, c.box(c.self), 1, 0);
    return;
  }
  array_slot& slot = r.slots[seq];
  if (!slot.value) {
    slot.value = c.box(c.self);
  } else if (slot.value->type != c.type && *slot.value->type != *c.type) {
    report_fatal(describe(r, seq) + ": contributions disagree on the reducer or the value type");
  } else {
    try {
      c.absorb(*slot.value, c.self);
    } catch (const std::exception& e) {
      report_fatal(describe(r, seq) + ": " + e.what());
    }
  }
  ++slot.count;
  mark_started(who.desc, r, slot, seq);
  try_flush(who.desc, r);
}

}  // namespace roam::detail
