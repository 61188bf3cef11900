// roam-bench pdes: PHOLD (80 LPs, 16 start events each, lookahead 0.1, mean
// 1.0, end 1000) through libs/pdes: the sequential scheduler, and the
// optimistic one on every PE, at remote 0.1 / 0.5 / 1.0. Committed events
// per second. apps/phold is the full program (ROSS's options, statistics);
// docs/perf.md the comparison with ROSS.
#include <string>

#include <roam/pdes/phold.hpp>
#include <roam/pdes/simulation.hpp>
#include <roam/roam.hpp>

#include "common.hpp"

namespace roam_bench {

namespace pdes = roam::pdes;

roam::task<> bench_pdes() {
  const std::uint32_t pes = roam::num_pes();
  for (double remote : {0.1, 0.5, 1.0}) {
    for (pdes::synch mode : {pdes::synch::sequential, pdes::synch::optimistic}) {
      if (mode == pdes::synch::sequential && pes > 1) continue;  // one PE's work: measured at +p1
      const std::string name = std::string("phold_") + pdes::synch_name(mode) + "_remote" +
                               (remote == 0.1 ? "0.1" : remote == 0.5 ? "0.5" : "1.0");
      if (!wanted(name)) continue;
      result r{"pdes", name, pes, -1, "M_events_per_s", {}};
      pdes::phold_model model;
      model.remote = remote;
      model.lookahead = 0.1;
      model.mean = 0.9;
      model.start_events = 16;
      model.lps = 80;
      pdes::engine_options o;
      o.lps = model.lps;
      o.lookahead = model.lookahead;  // the automatic window's floor
      o.end = 1000;
      o.mode = mode;
      for (int rep = 0; rep <= g_config.reps; ++rep) {
        const pdes::run_stats s = co_await pdes::simulate(model, o);
        if (rep > 0) r.samples.push_back(s.events_per_second() / 1e6);
      }
      print(r, g_config.json);
    }
  }
}

}  // namespace roam_bench
