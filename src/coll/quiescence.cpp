// Quiescence detection: counting waves (waves.cpp) of every PE's created and
// processed message counts. Quiescent when two consecutive waves report
// created == processed with identical totals: nothing was created or
// processed anywhere between the two reports of any PE, and nothing created
// was left unprocessed (at least Mattern's four-counter condition).
#include <chrono>

#include <roam/coll/quiescence.hpp>
#include <roam/sched/runtime.hpp>

#include "coll/state.hpp"
#include "coll/waves.hpp"

namespace roam::detail {

namespace {

constexpr std::uint64_t qd_tag = 0;
// Between waves that found work still moving: long enough not to flood busy
// PEs with probes, short enough that detection follows the last message closely.
constexpr auto retry_delay = std::chrono::microseconds(10);

void counts(std::uint64_t, std::uint64_t& created, std::uint64_t& processed) {
  created = tls_pe->created();
  processed = tls_pe->processed();
}

void evaluate(std::uint64_t, std::uint64_t created, std::uint64_t processed);

void launch() { start_wave(qd_tag, &counts, &evaluate); }

void evaluate(std::uint64_t, std::uint64_t created, std::uint64_t processed) {
  quiescence_state& q = local_coll_state().qd;
  created += g_foreign_created.load(std::memory_order_relaxed);
  if (q.check.settled(created, processed)) {
    auto fire = std::move(q.waiting);
    q.waiting.clear();
    q.wave_active = false;
    for (auto& cb : fire) cb.send();
    return;
  }
  if (created == processed) launch();  // looks quiet: confirm at once
  else roam::after(retry_delay, [] { launch(); });
}

}  // namespace

}  // namespace roam::detail

namespace roam {

void on_quiescence(callback<void> cb) {
  detail::post_closure(detail::wave_root, [cb]() noexcept {
    auto& q = detail::local_coll_state().qd;
    q.waiting.push_back(cb);
    if (!q.wave_active) {
      q.wave_active = true;
      detail::launch();
    }
  });
}

}  // namespace roam
