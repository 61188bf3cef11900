// The pdes component from outside roam's tree: PHOLD run by the sequential and
// the optimistic scheduler must commit the same number of events.
#include <cstdio>

#include <roam/pdes/phold.hpp>
#include <roam/pdes/simulation.hpp>
#include <roam/roam.hpp>

namespace pdes = roam::pdes;

roam::task<unsigned long long> committed(pdes::synch mode) {
  pdes::phold_model model;
  model.lps = 64;
  pdes::engine_options o;
  o.lps = model.lps;
  o.end = 100.0;
  o.mode = mode;
  pdes::resolve(o);
  const pdes::run_stats r = co_await pdes::simulate(model, o);
  co_return r.committed;
}

int main(int argc, char** argv) {
  return roam::run(argc, argv, [](const roam::args&) -> roam::task<> {
    const unsigned long long sequential = co_await committed(pdes::synch::sequential);
    const unsigned long long optimistic = co_await committed(pdes::synch::optimistic);
    const bool ok = sequential == optimistic && sequential > 0;
    std::printf("consumer_pdes: %u PEs, committed %llu sequential, %llu optimistic: %s\n", roam::num_pes(),
                sequential, optimistic, ok ? "OK" : "WRONG");
    roam::exit(ok ? 0 : 1);
  });
}
