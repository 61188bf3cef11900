// lb_test: an imbalanced ring of elements with known loads (lb_workload.hpp),
// run once, printing its time beside the best any placement could reach.
//   lb_test [ELEMENTS=32] [STEPS=300] [MAX_MS=10] [static|drift|sudden] [SYNC_EVERY=20]
//           [+p N] [+balancer NAME | +MetaLB] [+LBDebug] ...
// e.g. `lb_test 32 100 10 static 20 +p2 +balancer Greedy`.
#include <cstdio>

#include "lb_workload.hpp"

int main(int argc, char** argv) {
  return roam::run(argc, argv, [](const roam::args& a) -> roam::task<> {
    lb_workload::config c;
    c.elements = static_cast<int>(a.int_or(1, 32));
    c.steps = static_cast<int>(a.int_or(2, 300));
    c.max_ms = static_cast<double>(a.int_or(3, 10));
    if (a.size() > 4 && !lb_workload::parse_pattern(a[4], c.loads)) {
      std::fprintf(stderr, "lb_test: unknown load pattern '%s' (static, drift or sudden)\n", a[4].c_str());
      roam::exit(2);
      co_return;
    }
    c.sync_every = static_cast<int>(a.int_or(5, 20));
    if (c.elements < 1 || c.steps < 1 || c.max_ms < 0 || c.sync_every < 0) {
      std::fprintf(stderr, "lb_test: ELEMENTS and STEPS must be at least 1, MAX_MS and SYNC_EVERY at least 0\n");
      roam::exit(2);
      co_return;
    }
    const lb_workload::outcome o = co_await lb_workload::run(c);
    std::printf("lb_test: %d elements, %d steps, %s loads up to %.1f ms, at_sync every %d steps, %u PEs: %.3f s "
                "(perfect %.3f s, ratio %.3f), %u balancing steps\n",
                c.elements, c.steps, lb_workload::pattern_name(c.loads), c.max_ms, c.sync_every, roam::num_pes(),
                o.seconds, o.perfect, o.seconds / o.perfect, o.lb_steps);
    roam::exit(0);
  });
}
