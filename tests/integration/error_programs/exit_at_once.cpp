// main calls roam::exit(3) at once, before any other node has to do anything:
// a node still starting then learns of the exit from a frame that arrives
// before its PEs run (ROAM_TEST_SLOW_START holds one back), and must still end
// with the job's code instead of waiting forever for a program that is over.
#include <cstdio>

// Only the runtime header: nothing here refers to the objects layer, which the
// link must still bring in (every layer is linked whole: cmake/roam_layer.cmake).
#include <roam/sched/runtime.hpp>

int main(int argc, char** argv) {
  return roam::run(argc, argv, [](const roam::args&) {
    std::printf("exit_at_once: pe 0 of %u calls roam::exit(3)\n", roam::num_pes());
    std::fflush(stdout);
    roam::exit(3);
  });
}
