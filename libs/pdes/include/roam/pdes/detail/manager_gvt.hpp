#pragma once
/// GVT rounds and fossil collection of the PE manager (manager.hpp):
/// Mattern's cut with counters per epoch parity, the votes and their results,
/// committing below GVT, the end of a run.
// Included at the end of manager.hpp: these are its member functions.
#include <roam/pdes/detail/manager.hpp>

namespace roam::pdes::detail {

template <class Model>
void manager<Model>::request_round() {
  if (!round_active_ && running_) start_round();
}

template <class Model>
void manager<Model>::cut(std::uint32_t epoch) {
  flush_out();  // what is buffered belongs to the closing epoch
  local_min_ = least_pending();
  epoch_ = epoch;
  white_min_ = infinite_time;
  vote();
}

template <class Model>
void manager<Model>::gvt_result(gvt_vote v) {
  if (v.sent != v.received) {
    ++stats_.gvt_retries;
    vote();
    return;
  }
  if (o_.check_gvt) {
    if (v.min < gvt_) fail_at(0, "GVT went backwards from " + std::to_string(gvt_) + " to " + std::to_string(v.min));
    // Nothing pending here may lie below the new GVT (it would be committed
    // history in the making).
    if (const sim_time least = least_pending(); least < v.min)
      fail_at(heap_.top().e->dest, "GVT " + std::to_string(v.min) + " is above an event still pending here at " +
                                       std::to_string(least));
  }
  if (o_.mode != synch::conservative && v.min != infinite_time)
    optimism_.observe(stats_.processed, stats_.rolled_back, furthest_, v.min);
  gvt_ = v.min;
  ++stats_.gvt_rounds;
  batches_since_gvt_ = 0;
  if (me_ == 0) {
    round_active_ = false;
    batches_since_round_ = 0;
  }
  fossil_collect(gvt_);
  if (gvt_ >= o_.end) return finish();
  if (o_.balance_every != 0 && measuring_ && stats_.gvt_rounds % o_.balance_every == 0) return begin_balancing();
  if (o_.checkpoint_every != 0 && stats_.gvt_rounds % o_.checkpoint_every == 0) return begin_checkpoint();
  schedule_batch();
}

template <class Model>
void manager<Model>::start_round() {
  round_active_ = true;
  this->this_group().template send<&manager::cut>(epoch_ + 1);
}

template <class Model>
sim_time manager<Model>::least_pending() {
  while (!heap_.empty() && heap_.top().e->status == event_status::cancelled) pool_.release(heap_.pop());
  return heap_.empty() ? infinite_time : heap_.top_time();
}

template <class Model>
void manager<Model>::vote() {
  const std::uint32_t closing = (epoch_ - 1) & 1;
  const sim_time least = white_min_ < local_min_ ? white_min_ : local_min_;
  this->contribute(gvt_vote{sent_[closing], received_[closing], least}, custom_reducer<&merge_votes>(),
                   callback<gvt_vote>::broadcast<&manager::gvt_result>(this->this_group()));
}

template <class Model>
void manager<Model>::fossil_collect(sim_time gvt) {
  static const trace::name traced("pdes: fossil collection");
  const trace::span in_trace(traced);
  for (record* r : local_) {
    if (!r) continue;
    while (!r->processed.empty() && r->processed.front()->key.ts < gvt) {
      event_type* e = r->processed.front();
      r->processed.pop_front();
      if (!r->processed.empty()) __builtin_prefetch(r->processed.front());
      lp_access::set_now(r->ctx, e->key.ts, e->key.depth);
      model_.commit(r->state, e->bf, e->message, r->ctx);
      stats_.past_end += e->past_end;
      r->past_end += e->past_end;
      ++r->committed;
      for (event_type* c = e->first_stub; c;) {
        event_type* next = c->next_sibling;
        pool_.release(c);
        c = next;
      }
      pool_.release(e);
      --uncommitted_;
      ++stats_.committed;
    }
    if (r->processed.empty()) r->last_key = record::lowest_key();
  }
}

template <class Model>
void manager<Model>::finish() {
  running_ = false;
  fossil_collect(infinite_time);
  // Committed events and dropped sends are counted by the LPs (they travel
  // in checkpoints): exact however many restarts the run went through.
  stats_.committed = stats_.past_end = 0;
  for (record* r : local_)
    if (r) stats_.committed += r->committed, stats_.past_end += r->past_end;
  for (record* r : local_)
    if (r) model_.final(r->state, r->ctx);
  stats_.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0_).count();
  stats_.slice_halvings = optimism_.batch_halvings();
  stats_.window_narrowings = optimism_.window_narrowings();
  stats_.final_window = optimism_.window();
  if (me_ != 0) stats_.gvt_rounds = 0;
  if constexpr (has_summary<Model>) {
    // Statistics and every LP's summary part go to PE 0, which merges the
    // parts in gid order (the same sums on any PE count).
    auto here = this->this_group()[pe_id{0}];
    this->contribute(stats_, custom_reducer<&merge_stats>(),
                     callback<run_stats>::template to<&manager::collect_stats>(here));
    summary_parts parts;
    for (record* r : local_)
      if (r) parts.emplace_back(r->ctx.gid(), model_.summarize(r->state, r->ctx));
    this->contribute(std::move(parts), concat,
                     callback<std::vector<summary_parts>>::template to<&manager::collect_parts>(here));
  } else {
    this->contribute(stats_, custom_reducer<&merge_stats>(), done_);
  }
  // The run is over: its LP chares go. Left alive they would take part in
  // every later sync step of the program (their type has resume_from_sync)
  // and hold it for ever.
  for (lp_chare<Model>* c : chares_here_) chares_[c->this_index()].template send<&lp_chare<Model>::retire>();
  chares_here_.clear();
  std::fill(local_.begin(), local_.end(), nullptr);
}

}  // namespace roam::pdes::detail
