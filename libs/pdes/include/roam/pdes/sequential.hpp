#pragma once
/// The sequential scheduler: every event in timestamp order on the calling
/// thread, committed as soon as it ran. It is the reference the parallel
/// schedulers (docs/design/pdes.md) must match event for event, and the
/// baseline of the speed-ups.
///
/// A model is a type with
///   using state = ...;  using message = ...;
///   void init(state&, lp<M>&);
///   void event(state&, bitfield&, const message&, lp<M>&);
///   void reverse(state&, bitfield&, const message&, lp<M>&);   // unused here
///   void commit(state&, bitfield&, const message&, lp<M>&);
///   void final(state&, lp<M>&);
/// and an LP sends with `lp.send(dest, offset, message)`: an event at
/// now + offset, dropped (counted `past_end`) at or beyond the end time, as
/// under ROSS.
#include <cstdint>
#include <queue>
#include <stdexcept>
#include <string>
#include <vector>

#include <roam/pdes/rng.hpp>

namespace roam::pdes {

using lp_id = std::uint64_t;
using sim_time = double;

/// Per-event flags a forward handler sets for its reverse handler (ROSS's tw_bf).
struct bitfield {
  std::uint32_t c0 : 1 = 0, c1 : 1 = 0, c2 : 1 = 0, c3 : 1 = 0, c4 : 1 = 0, c5 : 1 = 0, c6 : 1 = 0, c7 : 1 = 0;
};

/// Event order: timestamp, then the sending LP, then its send counter: the
/// same order under every scheduler and PE count.
struct event_key {
  sim_time ts = 0;
  lp_id source = 0;
  std::uint64_t seq = 0;
  friend bool operator<(const event_key& a, const event_key& b) noexcept {
    if (a.ts != b.ts) return a.ts < b.ts;
    if (a.source != b.source) return a.source < b.source;
    return a.seq < b.seq;
  }
};

struct run_stats {
  std::uint64_t committed = 0;
  std::uint64_t past_end = 0;  ///< sends dropped at or beyond the end time
};

template <class Model>
class sequential_engine;

/// What a handler sees of its LP.
template <class Model>
class lp {
 public:
  lp_id gid() const noexcept { return gid_; }
  sim_time now() const noexcept { return now_; }
  rng_stream& rng() noexcept { return rng_; }
  void send(lp_id dest, sim_time offset, typename Model::message m) { engine_->send(*this, dest, offset, std::move(m)); }

 private:
  friend class sequential_engine<Model>;
  lp_id gid_ = 0;
  sim_time now_ = 0;
  std::uint64_t sent_ = 0;
  rng_stream rng_;
  sequential_engine<Model>* engine_ = nullptr;
};

template <class Model>
class sequential_engine {
 public:
  sequential_engine(Model model, lp_id lps, sim_time end) : model_(std::move(model)), end_(end), lps_(lps), states_(lps) {
    for (lp_id g = 0; g < lps; ++g) {
      lps_[g].gid_ = g;
      lps_[g].rng_ = make_stream(g);
      lps_[g].engine_ = this;
    }
  }

  /// Runs init on every LP, then every event below the end time, then final.
  run_stats run() {
    for (lp_id g = 0; g < lps_.size(); ++g) model_.init(states_[g], lps_[g]);
    while (!pending_.empty()) {
      pending_event e = pending_.top();
      pending_.pop();
      auto& to = lps_[e.dest];
      to.now_ = e.key.ts;
      bitfield bf{};
      model_.event(states_[e.dest], bf, e.message, to);
      model_.commit(states_[e.dest], bf, e.message, to);
      ++stats_.committed;
    }
    for (lp_id g = 0; g < lps_.size(); ++g) model_.final(states_[g], lps_[g]);
    return stats_;
  }

  const Model& model() const noexcept { return model_; }

 private:
  friend class lp<Model>;
  struct pending_event {
    event_key key;
    lp_id dest;
    typename Model::message message;
    friend bool operator<(const pending_event& a, const pending_event& b) noexcept { return b.key < a.key; }
  };

  void send(lp<Model>& from, lp_id dest, sim_time offset, typename Model::message m) {
    if (dest >= lps_.size()) throw std::out_of_range("pdes: LP " + std::to_string(from.gid_) + " sent to LP " +
                                                     std::to_string(dest) + " of " + std::to_string(lps_.size()));
    if (offset < 0) throw std::invalid_argument("pdes: LP " + std::to_string(from.gid_) + " sent into the past");
    const sim_time ts = from.now_ + offset;
    if (ts >= end_) {
      ++stats_.past_end;
      return;
    }
    pending_.push({{ts, from.gid_, from.sent_++}, dest, std::move(m)});
  }

  Model model_;
  sim_time end_;
  std::vector<lp<Model>> lps_;
  std::vector<typename Model::state> states_;
  std::priority_queue<pending_event> pending_;
  run_stats stats_;
};

}  // namespace roam::pdes
