#pragma once
/// The PE manager's pause steps (manager.hpp): load balancing and checkpoints
/// stop every PE at one GVT with every LP back at it and nothing in flight,
/// hand the pending events to the LP chares, and resume; the batch time
/// charged to chares for the balancer.
// Included at the end of manager.hpp: these are its member functions.
#include <roam/pdes/detail/manager.hpp>

namespace roam::pdes::detail {

template <class Model>
void manager<Model>::reattach(lp_chare<Model>& c) {
  register_chare(c);
  take_pending(c);
  c.contribute(std::vector<std::uint32_t>{static_cast<std::uint32_t>(c.this_index()[0]), me_}, concat,
               callback<std::vector<std::vector<std::uint32_t>>>::broadcast<&manager::resume>(this->this_group()));
}

template <class Model>
void manager<Model>::drained(std::array<std::uint64_t, 2> sums) {
  if (sums[0] != sums[1]) return drain_vote();
  if (checkpointing_) return store_for_checkpoint();
  hand_over();
}

template <class Model>
void manager<Model>::checkpointed(checkpoint_result r) {
  // A checkpoint that could not be written leaves the older ones as they
  // were; the run goes on (as roam::checkpoint's own contract).
  if (!r.ok)
    std::fprintf(stderr, "roam::pdes: pe 0: the checkpoint in %s failed: %s; the run goes on\n",
                 o_.checkpoint_dir.c_str(), r.error.c_str());
  this->this_group().template send<&manager::resume_from_checkpoint>(r.restarted, epoch_, gvt_);
}

template <class Model>
void manager<Model>::resume_from_checkpoint(bool restarted, std::uint32_t epoch, sim_time gvt) {
  checkpointing_ = false;
  if (!restarted) {
    for (lp_chare<Model>* c : chares_here_) take_pending(*c);
    return go_on();
  }
  epoch_ = epoch;
  gvt_ = gvt;
  sent_[0] = sent_[1] = received_[0] = received_[1] = 0;
  pe_of_chare_.assign(o_.chares(), 0);
  pe_of_lp_.assign(o_.lps, 0);
  std::vector<std::uint32_t> here;
  for (std::uint32_t c = 0; c < o_.chares(); ++c) {
    if (lp_chare<Model>* chare = chares_[index<1>{static_cast<std::int32_t>(c)}].local()) {
      register_chare(*chare);
      take_pending(*chare);
      here.push_back(c);
    }
  }
  std::vector<std::vector<std::uint32_t>> where;
  for (std::uint32_t c : here) where.push_back({c, me_});
  this->contribute(std::move(where), concat,
                   callback<std::vector<std::vector<std::vector<std::uint32_t>>>>::broadcast<&manager::restarted>(
                       this->this_group()));
}

template <class Model>
void manager<Model>::restarted(std::vector<std::vector<std::vector<std::uint32_t>>> per_pe) {
  for (const auto& list : per_pe)
    for (const auto& w : list) place_chare(w[0], w[1]);
  measuring_ = load_balancing_enabled();
  t0_ = std::chrono::steady_clock::now();
  stats_ = {};  // this run's activity (a member's counts may be of another PE of the old layout)
  for (record* r : local_)
    if (r) stats_.restored += r->committed;
  go_on();
}

template <class Model>
void manager<Model>::resume(std::vector<std::vector<std::uint32_t>> where) {
  for (const auto& w : where) {
    if (pe_of_chare_[w[0]] != w[1]) ++stats_.chares_moved;
    place_chare(w[0], w[1]);
  }
  ++stats_.balancing_steps;
  balancing_ = false;
  go_on();
}

template <class Model>
void manager<Model>::count_for(std::uint32_t slot) {
  if (events_of_[slot]++ == 0) touched_.push_back(slot);
}

template <class Model>
void manager<Model>::charge_batch(std::chrono::steady_clock::duration took, std::uint32_t n) {
  const auto ns = std::chrono::duration_cast<std::chrono::nanoseconds>(took).count();
  for (std::uint32_t slot : touched_) {
    charge_load(chares_here_[slot], std::chrono::nanoseconds(ns * events_of_[slot] / n));
    events_of_[slot] = 0;
  }
  touched_.clear();
}

template <class Model>
void manager<Model>::begin_balancing() {
  running_ = false;
  balancing_ = true;
  const event_key from_gvt{gvt_, 0, 0, 0};
  for (record* r : local_)
    if (r && !r->processed.empty()) rollback(*r, from_gvt, true);
  flush_out();
  drain_vote();
}

template <class Model>
void manager<Model>::drain_vote() {
  this->contribute(std::array<std::uint64_t, 2>{sent_[0] + sent_[1], received_[0] + received_[1]}, sum,
                   callback<std::array<std::uint64_t, 2>>::broadcast<&manager::drained>(this->this_group()));
}

template <class Model>
void manager<Model>::go_on() {
  running_ = true;
  // A balancing or checkpoint step rolled every LP back to GVT: not a sign
  // of too much optimism.
  optimism_.skip_to(stats_.processed, stats_.rolled_back);
  batches_since_gvt_ = 0;
  if (me_ == 0) {
    round_active_ = false;
    batches_since_round_ = 0;
  }
  schedule_batch();
}

template <class Model>
void manager<Model>::begin_checkpoint() {
  checkpointing_ = true;
  begin_balancing();
}

template <class Model>
void manager<Model>::store_for_checkpoint() {
  move_pending_to_chares();
  balancing_ = false;
  if (me_ == 0)
    checkpoint(o_.checkpoint_dir,
               callback<checkpoint_result>::template to<&manager::checkpointed>(this->this_group()[pe_id{0}]));
}

template <class Model>
void manager<Model>::move_pending_to_chares() {
  auto& entries = heap_.entries();
  std::sort(entries.begin(), entries.end(), [](const auto& a, const auto& b) { return a.e->arrival < b.e->arrival; });
  for (const auto& entry : entries) {
    event_type* e = entry.e;
    if (e->status != event_status::cancelled)
      chares_here_[local_[e->dest]->slot]->pending().push_back(wire{e->key, e->dest, 0, 0, e->message});
    pool_.release(e);
  }
  entries.clear();
}

template <class Model>
void manager<Model>::take_pending(lp_chare<Model>& c) {
  for (const wire& w : c.pending()) {
    event_type* e = pool_.make();
    e->key = w.key;
    e->dest = w.dest;
    e->message = w.message;
    heap_.push(e);  // in their old arrival order
  }
  c.pending().clear();
  c.pending().shrink_to_fit();
}

template <class Model>
void manager<Model>::hand_over() {
  move_pending_to_chares();
  std::vector<lp_chare<Model>*> leaving;
  leaving.swap(chares_here_);
  events_of_.clear();
  touched_.clear();
  for (lp_chare<Model>* c : leaving)
    for (record& r : c->records()) local_[r.ctx.gid()] = nullptr;
  for (lp_chare<Model>* c : leaving) c->at_balancing_point();
}

}  // namespace roam::pdes::detail
