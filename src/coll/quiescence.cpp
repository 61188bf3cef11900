// Quiescence detection: counting waves (waves.cpp) of every PE's created and
// processed message counts. Quiescent when two consecutive waves report
// created == processed with identical totals: nothing was created or
// processed anywhere between the two reports of any PE, and nothing created
// was left unprocessed (at least Mattern's four-counter condition).
#include <chrono>

#include <roam/coll/quiescence.hpp>
#include <roam/msg/detail/control.hpp>
#include <roam/sched/observe.hpp>
#include <roam/sched/runtime.hpp>

#include "state.hpp"
#include "waves.hpp"

namespace roam::detail {

namespace {

constexpr std::uint64_t qd_tag = wave_tag(wave_kind::quiescence, 0);
// Between waves that found work still moving: long enough not to flood busy
// PEs with probes, short enough that detection follows the last message closely.
constexpr auto quiescence_retry_delay = std::chrono::microseconds(10);

// On PE 0: a request joins the waiting list and starts waves if none run.
void request(callback<void> cb) {
  auto& q = local_coll_state().qd;
  q.waiting.push_back(cb);
  if (!q.wave_active) {
    q.wave_active = true;
    start_wave(qd_tag);
  }
}

}  // namespace

void quiescence_counts(std::uint64_t, std::uint64_t& created, std::uint64_t& processed) {
  created = tls_pe->created();
  processed = tls_pe->processed();
}

void quiescence_result(std::uint64_t, std::uint64_t created, std::uint64_t processed) {
  quiescence_state& q = local_coll_state().qd;
  created += g_foreign_created.load(std::memory_order_relaxed);
  if (q.check.settled(created, processed)) {
    auto fire = std::move(q.waiting);
    q.waiting.clear();
    q.wave_active = false;
    report_phase(phase_kind::quiescence, 0, 0);
    for (auto& cb : fire) cb.send();
    return;
  }
  if (created == processed) start_wave(qd_tag);  // looks quiet: confirm at once
  else roam::after(quiescence_retry_delay, [] { start_wave(qd_tag); });
}

}  // namespace roam::detail

namespace roam {

void on_quiescence(callback<void> cb) { detail::post_control<&detail::request>(detail::wave_root, 0, cb); }

}  // namespace roam
