// roam-bench lb: an imbalanced ring with known loads (examples/lb_workload.hpp)
// run under whatever balancing the command line asks for (+balancer NAME,
// +MetaLB, nothing), reporting time over the best any placement could reach
// (1: perfect). Cases: 32 elements, loads up to 2 ms, 100 steps:
//  - static_sync20 / static_sync1: static loads, at_sync every 20 steps / every step;
//  - drift_sync1 / drift_sync<K>: drifting loads, at_sync every step (for +MetaLB) or every K.
// Not part of `all` (it takes seconds): `roam-bench lb +p2 +balancer GreedyRefine`.
#include <cstdio>
#include <string>

#include "../examples/lb_workload.hpp"
#include "common.hpp"

namespace roam_bench {

roam::task<> bench_lb() {
  const std::uint32_t pes = roam::num_pes();
  struct variant {
    const char* name;
    lb_workload::pattern loads;
    int sync_every;
  };
  const variant variants[] = {{"static_sync20", lb_workload::pattern::static_loads, 20},
                              {"static_sync1", lb_workload::pattern::static_loads, 1},
                              {"drift_sync1", lb_workload::pattern::drift, 1},
                              {"drift_sync5", lb_workload::pattern::drift, 5},
                              {"drift_sync10", lb_workload::pattern::drift, 10},
                              {"drift_sync20", lb_workload::pattern::drift, 20},
                              {"drift_sync50", lb_workload::pattern::drift, 50},
                              {"drift_sync100", lb_workload::pattern::drift, 100}};
  for (const variant& v : variants) {
    if (!wanted(v.name)) continue;
    result r{"lb", v.name, pes, -1, "time_over_perfect", {}};
    lb_workload::config c;
    c.elements = 32;
    c.steps = 100;
    c.max_ms = 2;
    c.loads = v.loads;
    c.sync_every = v.sync_every;
    for (int rep = 0; rep < g_config.reps; ++rep) {
      const lb_workload::outcome o = co_await lb_workload::run(c);
      r.samples.push_back(o.seconds / o.perfect);
    }
    print(r, g_config.json);
  }
}

}  // namespace roam_bench
