#pragma once
/// The sequential scheduler: every event in key order on the calling thread,
/// committed as soon as it ran. It is the reference the parallel schedulers
/// (simulation.hpp) must match event for event, and the baseline of the
/// speed-ups. Models: model.hpp.
#include <queue>
#include <stdexcept>
#include <string>
#include <vector>

#include <roam/pdes/model.hpp>

namespace roam::pdes {

template <class Model>
class sequential_engine final : detail::event_sink<Model> {
 public:
  sequential_engine(Model model, lp_id lps, sim_time end) : model_(std::move(model)), end_(end), lps_(lps), states_(lps) {
    for (lp_id g = 0; g < lps; ++g) detail::lp_access::setup(lps_[g], g, this);
  }
  sequential_engine(const sequential_engine&) = delete;
  sequential_engine& operator=(const sequential_engine&) = delete;

  /// Runs init on every LP, then every event below the end time, then final.
  run_stats run() {
    for (lp_id g = 0; g < lps_.size(); ++g) model_.init(states_[g], lps_[g]);
    if constexpr (requires(typename Model::state& st, lp<Model>& l) { model_.pre_run(st, l); }) {
      for (lp_id g = 0; g < lps_.size(); ++g) model_.pre_run(states_[g], lps_[g]);
    }
    while (!pending_.empty()) {
      pending_event e = pending_.top();
      pending_.pop();
      auto& to = lps_[e.dest];
      detail::lp_access::set_now(to, e.key.ts, e.key.depth);
      bitfield bf{};
      model_.event(states_[e.dest], bf, e.message, to);
      model_.commit(states_[e.dest], bf, e.message, to);
      ++stats_.committed;
      ++stats_.processed;
    }
    for (lp_id g = 0; g < lps_.size(); ++g) model_.final(states_[g], lps_[g]);
    return stats_;
  }

  const Model& model() const noexcept { return model_; }
  /// LP `g`'s summary part (models with a summary; after run()).
  auto summarize(lp_id g)
    requires has_summary<Model>
  {
    return model_.summarize(states_.at(g), lps_.at(g));
  }
  /// LP `g`'s state (after run(): its final state).
  const typename Model::state& state(lp_id g) const { return states_.at(g); }

 private:
  struct pending_event {
    event_key key;
    lp_id dest;
    typename Model::message message;
    friend bool operator<(const pending_event& a, const pending_event& b) noexcept { return b.key < a.key; }
  };

  void send(lp<Model>& from, lp_id dest, sim_time offset, const typename Model::message& m) override {
    if (dest >= lps_.size())
      throw std::out_of_range("pdes: LP " + std::to_string(from.gid()) + " sent to LP " + std::to_string(dest) + " of " +
                              std::to_string(lps_.size()));
    if (!(offset >= 0))
      throw std::invalid_argument("pdes: LP " + std::to_string(from.gid()) + " sent into the past (offset " +
                                  std::to_string(offset) + ")");
    const sim_time ts = from.now() + offset;
    if (ts >= end_) {
      ++stats_.past_end;
      return;
    }
    pending_.push({detail::lp_access::next_key(from, ts), dest, m});
  }

  Model model_;
  sim_time end_;
  std::vector<lp<Model>> lps_;
  std::vector<typename Model::state> states_;
  std::priority_queue<pending_event> pending_;
  run_stats stats_;
};

}  // namespace roam::pdes
