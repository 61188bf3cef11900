// Reduction manager: combines contributions per PE and up the tree of PEs
// that host members of the collection; the root delivers results in order.
#include <algorithm>
#include <string>

#include <roam/sched/detail/startup.hpp>
#include <roam/msg/detail/control.hpp>
#include <roam/sched/detail/tree.hpp>
#include <roam/sched/observe.hpp>

#include "state.hpp"

namespace roam::detail {

namespace {

void setup(pe_state& pe) {
  auto* s = new coll_state();
  pe.slot(layer_slot::collectives) = s;
  pe.add_stop_hook([&pe]() {
    delete static_cast<coll_state*>(pe.slot(layer_slot::collectives));
    pe.slot(layer_slot::collectives) = nullptr;
  });
}
const bool registered = register_pe_setup(&setup);

std::string describe_reduction(const collection_reductions& r, std::uint32_t seq) {
  return r.name + " reduction #" + std::to_string(seq);
}

void place_in_tree(collection_reductions& r, std::uint32_t me) {
  auto pos = std::find(r.members.begin(), r.members.end(), me);
  r.rank = pos == r.members.end() ? 0 : static_cast<std::uint32_t>(pos - r.members.begin());
  member_tree tree{r.members, tls_pe->runtime().ppn, tls_pe->runtime().opts.bfactor};
  r.parent = r.rank == 0 ? me : r.members[tree.parent(r.rank)];
  r.child_count = tree.child_count(r.rank);
}

// Which PEs host members, from the map: every PE computes the same list.
collection_reductions& reductions_of(std::uint64_t key) {
  coll_state& st = local_coll_state();
  auto [it, fresh] = st.reductions.try_emplace(key);
  collection_reductions& r = it->second;
  if (!fresh) return r;
  runtime_state& rt = tls_pe->runtime();
  std::uint32_t me = tls_pe->id();
  auto id = static_cast<std::uint32_t>(key & 0xffffffffu);
  if (static_cast<reduction_scope>(key >> 32) == reduction_scope::section) {
    const section_desc* sec = find_section(id);
    r.name = "section " + std::to_string(id) + " of array " + std::string(sec->array->cls->name);
    r.members = sec->pes;
    auto pos = std::find(sec->pes.begin(), sec->pes.end(), me);
    r.local_expected = pos == sec->pes.end() ? 0 : static_cast<std::uint32_t>(sec->keys_by_rank[pos - sec->pes.begin()].size());
    place_in_tree(r, me);
    return r;
  }
  const collection_desc* desc = find_collection(id);
  r.name = std::string(desc->kind == collection_kind::group       ? "group "
                       : desc->kind == collection_kind::nodegroup ? "nodegroup "
                                                                  : "array ") +
           std::string(desc->cls->name);
  std::vector<std::uint32_t> per_pe(rt.num_pes, 0);
  if (desc->kind == collection_kind::group) {
    std::fill(per_pe.begin(), per_pe.end(), 1u);
  } else {
    // A nodegroup: one member per node, combined on the node's first PE.
    // (Arrays count their contributions instead: array_reductions.cpp.)
    for (std::uint32_t node = 0; node < rt.num_nodes; ++node) per_pe[rt.first_pe_of(node)] = 1;
  }
  for (std::uint32_t pe = 0; pe < rt.num_pes; ++pe)
    if (per_pe[pe]) r.members.push_back(pe);
  r.local_expected = per_pe[me];
  place_in_tree(r, me);
  return r;
}

void receive_child(std::uint64_t key, std::uint32_t seq, partial_handle p);

void fold(collection_reductions& r, std::uint32_t seq, reduction_slot& slot, std::unique_ptr<partial_base> p) {
  if (!slot.value) {
    slot.value = std::move(p);
  } else if (*slot.value->type != *p->type) {
    report_fatal(describe_reduction(r, seq) + ": contributions disagree on the reducer or the value type");
  } else {
    try {
      slot.value->merge(*p);
    } catch (const std::exception& e) {
      report_fatal(describe_reduction(r, seq) + ": " + e.what());
    }
  }
}

void try_complete(std::uint64_t key, collection_reductions& r, std::uint32_t seq) {
  auto it = r.slots.find(seq);
  reduction_slot& slot = it->second;
  if (slot.local < r.local_expected || slot.children < r.child_count) return;
  std::unique_ptr<partial_base> value = std::move(slot.value);
  r.slots.erase(it);
  if (r.rank != 0) {
    post_control<&receive_child>(r.parent, 0, key, seq, partial_handle{std::move(value)});
    return;
  }
  r.finished.emplace(seq, std::move(value));
  // Results leave in reduction order.
  for (auto f = r.finished.begin(); f != r.finished.end() && f->first == r.next_result; f = r.finished.begin()) {
    std::unique_ptr<partial_base> done = std::move(f->second);
    r.finished.erase(f);
    ++r.next_result;
    report_phase(phase_kind::reduction_done, static_cast<std::uint32_t>(key), r.next_result - 1);
    try {
      done->finish();
    } catch (const std::exception& e) {
      report_fatal(describe_reduction(r, seq) + ": delivering the result: " + e.what());
    }
  }
}

void receive_child(std::uint64_t key, std::uint32_t seq, partial_handle p) {
  collection_reductions& r = reductions_of(key);
  reduction_slot& slot = r.slots[seq];
  fold(r, seq, slot, std::move(p.p));
  ++slot.children;
  try_complete(key, r, seq);
}

void add_local(std::uint64_t key, std::uint32_t seq, std::unique_ptr<partial_base> p) noexcept {
  collection_reductions& r = reductions_of(key);
  reduction_slot& slot = r.slots[seq];
  fold(r, seq, slot, std::move(p));
  ++slot.local;
  if (slot.local > r.local_expected) {
    report_fatal(describe_reduction(r, seq) + ": more contributions on this PE than it hosts members");
    return;
  }
  try_complete(key, r, seq);
}

// A nodegroup contribution made on another PE of the node.
void add_local_from(std::uint64_t key, std::uint32_t seq, partial_handle p) { add_local(key, seq, std::move(p.p)); }

}  // namespace

coll_state& local_coll_state() noexcept { return *static_cast<coll_state*>(tls_pe->slot(layer_slot::collectives)); }

namespace {

[[gnu::noinline]] void submit_member_contribution(const contributor& who, const pending_contribution& c) {
  if (who.desc->kind != collection_kind::group) {
    submit_contribution(who, c.box(c.self));
    return;
  }
  std::uint64_t key = reduction_key(reduction_scope::collection, who.desc->id);
  std::uint32_t seq = who.take_number();
  collection_reductions& r = reductions_of(key);
  reduction_slot& slot = r.slots[seq];
  if (!slot.value) {
    slot.value = c.box(c.self);
  } else if (*slot.value->type != *c.type) {
    report_fatal(describe_reduction(r, seq) + ": contributions disagree on the reducer or the value type");
    return;
  } else {
    try {
      c.absorb(*slot.value, c.self);
    } catch (const std::exception& e) {
      report_fatal(describe_reduction(r, seq) + ": " + e.what());
      return;
    }
  }
  if (++slot.local > r.local_expected) {
    report_fatal(describe_reduction(r, seq) + ": more contributions on this PE than it hosts members");
    return;
  }
  try_complete(key, r, seq);
}

}  // namespace

// Both branches are tail calls: nothing is saved on the way to an array's.
void submit_contribution(const contributor& who, const pending_contribution& c) {
  (void)registered;
  if (who.desc->kind == collection_kind::array) return submit_array_contribution(who, c);
  submit_member_contribution(who, c);
}

void submit_contribution(const contributor& who, std::unique_ptr<partial_base> p) {
  (void)registered;
  if (who.desc->kind == collection_kind::array) {
    submit_array_contribution(who, std::move(p));
    return;
  }
  std::uint64_t key = reduction_key(reduction_scope::collection, who.desc->id);
  std::uint32_t seq = who.take_number();
  if (who.desc->kind == collection_kind::nodegroup) {
    runtime_state& rt = tls_pe->runtime();
    if (std::uint32_t leader = rt.first_pe_of(rt.my_node); tls_pe->id() != leader) {
      post_control<&add_local_from>(leader, 0, key, seq, partial_handle{std::move(p)});
      return;
    }
  }
  add_local(key, seq, std::move(p));
}

void submit_section_contribution(const contributor& who, const section_desc* section, std::unique_ptr<partial_base> p) {
  std::uint64_t key = reduction_key(reduction_scope::section, section->id);
  if (!who.element) {  // a group member
    coll_state& st = local_coll_state();
    std::uint32_t seq = st.section_counts[{section->id, who.key}]++;
    add_local(key, seq, std::move(p));
    return;
  }
  // An element numbers its own section contributions (the count moves with
  // it); they are combined on the PE the section placed it on, its home.
  std::uint32_t seq = (*element_access::section_counter(*who.element, section->id))++;
  std::uint32_t pe = home_of(section->array, who.element->stored_index());
  if (pe != tls_pe->id()) {
    post_control<&add_local_from>(pe, 0, key, seq, partial_handle{std::move(p)});
    return;
  }
  add_local(key, seq, std::move(p));
}

}  // namespace roam::detail
