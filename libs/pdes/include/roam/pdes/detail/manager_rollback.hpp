#pragma once
/// Receiving, rollback and cancellation in the PE manager (manager.hpp):
/// stragglers, anti-messages, rolling an LP back and cancelling what its
/// undone events sent; the rollback-check mode.
// Included at the end of manager.hpp: these are its member functions.
#include <roam/pdes/detail/manager.hpp>

namespace roam::pdes::detail {

template <class Model>
void manager<Model>::receive(std::uint32_t epoch, std::vector<wire> events) {
  ++received_[epoch & 1];
  const bool white = epoch < epoch_;  // sent before the sender's cut of the round in progress here
  for (wire& w : events) {
    if (white && w.key.ts < white_min_) white_min_ = w.key.ts;
    if (o_.check_gvt && w.key.ts < gvt_)
      fail_at(w.dest, "received an " + std::string(w.anti ? "anti-message" : "event") + " at time " +
                          std::to_string(w.key.ts) + " below GVT " + std::to_string(gvt_) + " (GVT is wrong)");
    if (w.anti) on_anti(w);
    else on_event(w);
  }
  schedule_batch();
}

template <class Model>
void manager<Model>::on_event(const wire& w) {
  event_type* e = pool_.make();
  e->key = w.key;
  e->dest = w.dest;
  e->message = w.message;
  record& r = record_of(*e);
  if (e->key < r.last_key) {
    ++stats_.primary_rollbacks;
    rollback(r, e->key, false);
  }
  heap_.push(e);
}

template <class Model>
void manager<Model>::on_anti(const wire& w) {
  record& r = *local_[w.dest];
  if (!(r.last_key < w.key) && r.processed.contains_key(w.key)) {
    ++stats_.secondary_rollbacks;
    rollback(r, w.key, true);
  }
  r.cancelled.push_back(w.key);
}

template <class Model>
bool manager<Model>::take_cancelled(record& r, const event_key& k) {
  for (std::size_t i = 0; i < r.cancelled.size(); ++i)
    if (r.cancelled[i] == k) {
      r.cancelled[i] = r.cancelled.back();
      r.cancelled.pop_back();
      return true;
    }
  return false;
}

template <class Model>
void manager<Model>::rollback(record& r, const event_key& k, bool inclusive) {
  static const trace::name traced("pdes: rollback");
  const trace::span in_trace(traced);  // nested ones (cascades) show inside
  while (!r.processed.empty()) {
    event_type* e = r.processed.back();
    if (inclusive ? e->key < k : !(k < e->key)) break;
    r.processed.pop_back();
    lp_access::set_now(r.ctx, e->key.ts, e->key.depth);
    model_.reverse(r.state, e->bf, e->message, r.ctx);
    lp_access::sent(r.ctx) -= cancel_children(*e);
    e->bf = {};
    e->past_end = 0;
    e->status = event_status::pending;
    heap_.push(e);
    --uncommitted_;
    ++stats_.rolled_back;
  }
  r.last_key = r.processed.empty() ? record::lowest_key() : r.processed.back()->key;
}

template <class Model>
std::uint64_t manager<Model>::cancel_children(event_type& e) {
  std::uint64_t n = 0;
  for (event_type* c = e.first_stub; c;) {
    event_type* next = c->next_sibling;
    ++n;
    out_[pe_of_lp_[c->dest]].push_back(wire{c->key, c->dest, 1, 0, {}});
    ++stats_.anti_messages;
    pool_.release(c);
    c = next;
  }
  for (event_type* c = e.first_child; c;) {
    event_type* next = c->next_sibling;
    ++n;
    // A processed child is rolled back through first; a pending one (in
    // the heap or the straggler queue) is dropped when it comes out.
    if (c->status == event_status::processed) rollback(*local_[c->dest], c->key, true);
    c->status = event_status::cancelled;
    c = next;
  }
  e.first_stub = e.first_child = nullptr;
  return n;
}

template <class Model>
void manager<Model>::check_reverse(record& r, event_type& e) {
  const state before = r.state;
  const rng_stream rng_before = r.ctx.rng();
  const std::uint64_t sent_before = lp_access::sent(r.ctx);
  message m = e.message;
  bitfield bf{};
  trial_ = true;
  model_.event(r.state, bf, m, r.ctx);
  model_.reverse(r.state, bf, m, r.ctx);
  trial_ = false;
  lp_access::sent(r.ctx) = sent_before;
  const char* what = nullptr;
  if (!same_state(r.state, before)) what = "its state";
  else if (!(r.ctx.rng() == rng_before)) what = "its random stream (a draw not reversed, or reversed twice)";
  if (what)
    fail_at(e.dest, "rollback check: the reverse handler of the event at time " + std::to_string(e.key.ts) +
                        " (sent by LP " + std::to_string(e.key.source) + ") did not restore " + what,
            "the model's reverse handler");
  ++stats_.checked;
}

template <class Model>
bool manager<Model>::same_state(const state& a, const state& b) {
  if constexpr (std::equality_comparable<state>) return a == b;
  else {
    static_assert(std::is_trivially_copyable_v<state>,
                  "roam::pdes: the rollback check needs a state with == or a trivially copyable one");
    return std::memcmp(&a, &b, sizeof(state)) == 0;
  }
}

}  // namespace roam::pdes::detail
