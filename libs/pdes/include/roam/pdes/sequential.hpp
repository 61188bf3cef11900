#pragma once
/// The sequential scheduler: every event in key order on the calling thread,
/// committed as soon as it ran. It is the reference the parallel schedulers
/// (simulation.hpp) must match event for event, and the baseline of the
/// speed-ups. Models: model.hpp.
#include <stdexcept>
#include <string>
#include <vector>

#include <roam/pdes/detail/event.hpp>
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
      event_type* e = pending_.pop();
      auto& to = lps_[e->dest];
      detail::lp_access::set_now(to, e->key.ts, e->key.depth);
      bitfield bf{};
      model_.event(states_[e->dest], bf, e->message, to);
      model_.commit(states_[e->dest], bf, e->message, to);
      pool_.release(e);
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
  using event_type = detail::event<typename Model::message>;

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
    event_type* e = pool_.make();
    e->key = detail::lp_access::next_key(from, ts);
    e->dest = dest;
    e->message = m;
    pending_.push(e);
  }

  Model model_;
  sim_time end_;
  std::vector<lp<Model>> lps_;
  std::vector<typename Model::state> states_;
  // The parallel engine's pool and heap: the same per-event costs, so that
  // speed-ups over this engine measure parallelism, not data structures.
  detail::event_pool<typename Model::message> pool_;
  detail::pending_heap<typename Model::message> pending_;
  run_stats stats_;
};

}  // namespace roam::pdes
