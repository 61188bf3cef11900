// Completion detection: per-PE produced/consumed counters, done() counts and
// the decision on PE 0, with the same two-wave check as quiescence detection.
#include <atomic>
#include <chrono>

#include <roam/coll/completion.hpp>
#include <roam/sched/runtime.hpp>

#include <roam/msg/detail/control.hpp>

#include "state.hpp"
#include "waves.hpp"

namespace roam::detail {

namespace {

std::atomic<std::uint32_t> g_next_detector{0};
constexpr auto completion_retry_delay = std::chrono::microseconds(10);

void launch(std::uint32_t id) { start_wave(wave_tag(wave_kind::completion, id)); }

// On PE 0 after start() or done(): begin counting once every producer is done.
void maybe_launch(std::uint32_t id) {
  completion_root& r = local_coll_state().completion_roots[id];
  if (r.started && r.done >= r.producers && !r.wave_active) {
    r.wave_active = true;
    launch(id);
  }
}

void arm(std::uint32_t id, std::uint64_t producers, callback<void> finished) {
  auto& r = local_coll_state().completion_roots[id];
  if (r.started) {
    report_fatal("completion detector " + std::to_string(id) + " started twice in one phase");
    return;
  }
  r.started = true;
  r.producers = producers;
  r.finished = finished;
  maybe_launch(id);
}

void producer_done(std::uint32_t id) {
  ++local_coll_state().completion_roots[id].done;
  maybe_launch(id);
}

}  // namespace

void completion_counts_of(std::uint64_t tag, std::uint64_t& produced, std::uint64_t& consumed) {
  auto& c = local_coll_state().completion[static_cast<std::uint32_t>(tag)];
  produced = c.produced;
  consumed = c.consumed;
}

void completion_result(std::uint64_t tag, std::uint64_t produced, std::uint64_t consumed) {
  auto id = static_cast<std::uint32_t>(tag);
  completion_root& r = local_coll_state().completion_roots[id];
  if (r.check.settled(produced, consumed)) {
    r.wave_active = false;
    r.started = false;
    r.done = 0;
    callback<void> cb = r.finished;
    r.finished = {};
    cb.send();
    return;
  }
  if (produced == consumed) launch(id);
  else roam::after(completion_retry_delay, [id] { launch(id); });
}

}  // namespace roam::detail

namespace roam {

completion_detector completion_detector::create() {
  return completion_detector(detail::program_wide_id(detail::g_next_detector++));
}

void completion_detector::start(std::uint64_t producers, callback<void> finished) const {
  detail::post_control<&detail::arm>(detail::wave_root, 0, id_, producers, finished);
}

void completion_detector::produce(std::uint64_t n) const {
  detail::local_coll_state().completion[id_].produced += n;
}

void completion_detector::consume(std::uint64_t n) const {
  detail::local_coll_state().completion[id_].consumed += n;
}

void completion_detector::done() const { detail::post_control<&detail::producer_done>(detail::wave_root, 0, id_); }

}  // namespace roam
