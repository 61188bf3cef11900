#include "coll/waves.hpp"

#include <unordered_map>

#include <roam/sched/detail/post.hpp>
#include <roam/sched/detail/tree.hpp>

#include "coll/state.hpp"

namespace roam::detail {

namespace {

kary_tree pe_tree() {
  runtime_state& rt = tls_pe->runtime();
  return {rt.num_pes, rt.opts.bfactor};
}

void report_up(std::uint64_t tag, wave_counts_fn counts, wave_result_fn result, std::uint64_t a, std::uint64_t b) {
  std::uint32_t me = tls_pe->id();
  if (me == wave_root) {
    result(tag, a, b);
    return;
  }
  post_closure_uncounted(pe_tree().parent(me), [tag, counts, result, a, b]() noexcept {
    wave_state& w = local_coll_state().waves[tag];
    w.a += a;
    w.b += b;
    if (--w.pending_children == 0) {
      std::uint64_t own_a = 0, own_b = 0;
      counts(tag, own_a, own_b);
      std::uint64_t total_a = w.a + own_a, total_b = w.b + own_b;
      local_coll_state().waves.erase(tag);
      report_up(tag, counts, result, total_a, total_b);
    }
  });
}

void probe(std::uint64_t tag, wave_counts_fn counts, wave_result_fn result) noexcept {
  kary_tree tree = pe_tree();
  std::uint32_t me = tls_pe->id();
  std::uint32_t children = tree.child_count(me);
  if (children == 0) {
    std::uint64_t a = 0, b = 0;
    counts(tag, a, b);
    report_up(tag, counts, result, a, b);
    return;
  }
  wave_state& w = local_coll_state().waves[tag];
  w = {children, 0, 0};
  for (std::uint32_t c = 0; c < children; ++c)
    post_closure_uncounted(tree.first_child(me) + c, [tag, counts, result]() noexcept { probe(tag, counts, result); });
}

}  // namespace

void start_wave(std::uint64_t tag, wave_counts_fn counts, wave_result_fn result) { probe(tag, counts, result); }

}  // namespace roam::detail
