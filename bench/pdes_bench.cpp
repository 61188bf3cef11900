// roam-bench pdes: PHOLD (80 LPs, 16 start events each, lookahead 0.1, mean
// 1.0, end 1000) through libs/pdes: the sequential scheduler, and the
// optimistic one on every PE, at remote 0.1 / 0.5 / 1.0. Committed events
// per second. apps/phold is the full program (ROSS's options, statistics);
// docs/perf.md the comparison with ROSS.
#include <string>

#include <roam/pdes/simulation.hpp>
#include <roam/roam.hpp>

#include "common.hpp"

namespace roam_bench {
namespace {

namespace pdes = roam::pdes;

struct phold_kernel {
  using state = long;
  using message = long;
  double remote = 0.1, lookahead = 0.1, mean = 0.9;
  std::uint64_t lps = 80;
  void init(state&, pdes::lp<phold_kernel>& lp) {
    for (int i = 0; i < 16; ++i) lp.send(lp.gid(), pdes::exponential(lp.rng(), mean) + lookahead, 0);
  }
  void event(state&, pdes::bitfield& bf, message&, pdes::lp<phold_kernel>& lp) {
    pdes::lp_id dest = lp.gid();
    if (pdes::unif(lp.rng()) <= remote) {
      bf.c1 = 1;
      dest = static_cast<pdes::lp_id>(pdes::integer(lp.rng(), 0, static_cast<long>(lps) - 1));
    }
    lp.send(dest, pdes::exponential(lp.rng(), mean) + lookahead, 0);
  }
  void reverse(state&, pdes::bitfield& bf, message&, pdes::lp<phold_kernel>& lp) {
    pdes::reverse_unif(lp.rng());
    pdes::reverse_unif(lp.rng());
    if (bf.c1) pdes::reverse_unif(lp.rng());
  }
  void commit(state&, pdes::bitfield&, message&, pdes::lp<phold_kernel>&) {}
  void final(state&, pdes::lp<phold_kernel>&) {}
  template <class P>
  void pup(P& p) {
    p | remote | lookahead | mean | lps;
  }
};

}  // namespace

roam::task<> bench_pdes() {
  const std::uint32_t pes = roam::num_pes();
  for (double remote : {0.1, 0.5, 1.0}) {
    for (pdes::synch mode : {pdes::synch::sequential, pdes::synch::optimistic}) {
      if (mode == pdes::synch::sequential && pes > 1) continue;  // one PE's work: measured at +p1
      const std::string name = std::string("phold_") + pdes::synch_name(mode) + "_remote" +
                               (remote == 0.1 ? "0.1" : remote == 0.5 ? "0.5" : "1.0");
      if (!wanted(name)) continue;
      result r{"pdes", name, pes, -1, "M_events_per_s", {}};
      phold_kernel model;
      model.remote = remote;
      pdes::engine_options o;
      o.lps = model.lps;
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
