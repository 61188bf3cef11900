#include "waves.hpp"

#include <roam/msg/detail/control.hpp>
#include <roam/sched/detail/tree.hpp>

#include "state.hpp"

namespace roam::detail {

pe_tree all_pes() {
  runtime_state& rt = tls_pe->runtime();
  return {rt.num_pes, rt.ppn, rt.opts.bfactor};
}

namespace {

void counts(std::uint64_t tag, std::uint64_t& a, std::uint64_t& b) {
  if (static_cast<wave_kind>(tag >> 32) == wave_kind::quiescence) quiescence_counts(tag, a, b);
  else completion_counts_of(tag, a, b);
}

void report_up(std::uint64_t tag, std::uint64_t a, std::uint64_t b);

// A child's subtree totals arrive at its parent.
void child_report(std::uint64_t tag, std::uint64_t a, std::uint64_t b) {
  wave_state& w = local_coll_state().waves[tag];
  w.a += a;
  w.b += b;
  if (--w.pending_children == 0) {
    std::uint64_t own_a = 0, own_b = 0;
    counts(tag, own_a, own_b);
    std::uint64_t total_a = w.a + own_a, total_b = w.b + own_b;
    local_coll_state().waves.erase(tag);
    report_up(tag, total_a, total_b);
  }
}

void report_up(std::uint64_t tag, std::uint64_t a, std::uint64_t b) {
  std::uint32_t me = tls_pe->id();
  if (me != wave_root) {
    post_control_uncounted<&child_report>(all_pes().parent(me), tag, a, b);
  } else if (static_cast<wave_kind>(tag >> 32) == wave_kind::quiescence) {
    quiescence_result(tag, a, b);
  } else {
    completion_result(tag, a, b);
  }
}

// Runs on every PE once per wave: pass the probe down, answer when the subtree has.
void probe(std::uint64_t tag) {
  pe_tree tree = all_pes();
  std::uint32_t me = tls_pe->id();
  std::uint32_t children = tree.child_count(me);
  if (children == 0) {
    std::uint64_t a = 0, b = 0;
    counts(tag, a, b);
    report_up(tag, a, b);
    return;
  }
  local_coll_state().waves[tag] = {children, 0, 0};
  tree.for_each_child(me, [&](std::uint32_t child) { post_control_uncounted<&probe>(child, tag); });
}

}  // namespace

void start_wave(std::uint64_t tag) { probe(tag); }

}  // namespace roam::detail
