// A process dies in the middle of a run (SIGKILL to itself on the last PE);
// main waits for an answer that never comes. The surviving nodes must report
// the dead node by number and stop, and the launcher must exit non-zero.
#include <csignal>
#include <cstdio>

#include <roam/roam.hpp>

struct victim : roam::chare<victim> {
  void die() {
    std::printf("node_dies: pe %u of node %u kills its process\n", roam::my_pe().value(), roam::my_node().value());
    std::fflush(stdout);
    std::raise(SIGKILL);
  }
};

int main(int argc, char** argv) {
  return roam::run(argc, argv, [](const roam::args&) -> roam::task<> {
    auto v = roam::create_chare_on<victim>(roam::pe_id{roam::num_pes() - 1});
    v.send<&victim::die>();
    auto [f, p] = roam::make_future<int>();  // never fulfilled
    (void)p;
    co_await f;
    std::printf("node_dies: unreachable\n");
  });
}
