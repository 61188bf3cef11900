// Quiescence detection by counting waves over the PE tree rooted at PE 0.
// Wave messages are uncounted. The root declares quiescence when two
// consecutive waves report created == processed with identical totals:
// nothing was created or processed anywhere between the two reports of any
// PE, and nothing created was left unprocessed.
#include <chrono>

#include <roam/coll/quiescence.hpp>
#include <roam/sched/detail/tree.hpp>
#include <roam/sched/runtime.hpp>

#include "coll/state.hpp"

namespace roam::detail {

namespace {

constexpr std::uint32_t qd_root = 0;
// Between waves that found work still moving: long enough not to flood busy
// PEs with probes, short enough that detection follows the last message closely.
constexpr auto retry_delay = std::chrono::microseconds(20);

kary_tree pe_tree() {
  runtime_state& rt = tls_pe->runtime();
  return {rt.num_pes, rt.opts.bfactor};
}

void probe() noexcept;

void start_wave() {
  quiescence_state& q = local_coll_state().qd;
  q.wave_active = true;
  probe();
}

void evaluate(std::uint64_t created, std::uint64_t processed) {
  quiescence_state& q = local_coll_state().qd;
  bool quiet = created == processed && q.have_previous && q.previous_created == created &&
               q.previous_processed == processed;
  if (quiet) {
    auto fire = std::move(q.waiting);
    q.waiting.clear();
    q.wave_active = false;
    q.have_previous = false;
    for (auto& cb : fire) cb.send();
    return;
  }
  q.have_previous = true;
  q.previous_created = created;
  q.previous_processed = processed;
  if (created == processed) start_wave();  // looks quiet: confirm at once
  else roam::after(retry_delay, [] { start_wave(); });
}

void report_up(std::uint64_t created, std::uint64_t processed) {
  std::uint32_t me = tls_pe->id();
  if (me == qd_root) {
    evaluate(created + g_foreign_created.load(std::memory_order_relaxed), processed);
    return;
  }
  std::uint32_t parent = pe_tree().parent(me);
  post_closure_uncounted(parent, [created, processed]() noexcept {
    quiescence_state& q = local_coll_state().qd;
    q.sum_created += created;
    q.sum_processed += processed;
    if (--q.pending_children == 0) report_up(q.sum_created + tls_pe->created(), q.sum_processed + tls_pe->processed());
  });
}

// Runs on every PE once per wave: pass the probe down, and answer when the subtree has.
void probe() noexcept {
  kary_tree tree = pe_tree();
  std::uint32_t me = tls_pe->id();
  quiescence_state& q = local_coll_state().qd;
  std::uint32_t children = tree.child_count(me);
  if (children == 0) {
    report_up(tls_pe->created(), tls_pe->processed());
    return;
  }
  q.pending_children = children;
  q.sum_created = 0;
  q.sum_processed = 0;
  for (std::uint32_t c = 0; c < children; ++c) post_closure_uncounted(tree.first_child(me) + c, []() noexcept { probe(); });
}

}  // namespace

}  // namespace roam

namespace roam {

void on_quiescence(callback<void> cb) {
  detail::post_closure(detail::qd_root, [cb]() noexcept {
    auto& q = detail::local_coll_state().qd;
    q.waiting.push_back(cb);
    if (!q.wave_active) detail::start_wave();
  });
}

}  // namespace roam
