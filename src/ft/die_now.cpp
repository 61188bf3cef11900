// roam::die_now (include/roam/ft/memory_checkpoint.hpp): this process goes
// silent, as a stopped machine would, for tests of failure detection. Over
// TCP it stops (SIGSTOP); over MPI it stays a silent rank (mpi_silence.cpp).
#include <signal.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>

#include <roam/ft/memory_checkpoint.hpp>
#include <roam/machine/detail/transport.hpp>
#include <roam/sched/detail/runtime_state.hpp>

namespace roam {

void die_now() {
  detail::runtime_state* rt = detail::g_runtime.load();
  if (!rt || !rt->net) {
    std::fprintf(stderr, "roam: roam::die_now in a single process: nothing survives it; exiting with status 1\n");
    std::fflush(stderr);
    std::_Exit(1);
  }
  std::fprintf(stderr, "roam: node %u goes silent (roam::die_now)\n", rt->my_node);
  std::fflush(stderr);
  // A transport whose job cannot lose a process (MPI) keeps it in the job
  // as a sink that ends with the others; on the progress thread this does
  // not return, on a PE thread of an SMP process the progress thread ends
  // the process while this one waits.
  if (rt->net->go_silent())
    for (;;) ::pause();
  // Stopped, every thread of it: no frame, no heartbeat, sockets left open.
  // The survivors declare it failed after +fttimeout; roamrun then kills it.
  for (;;) {
    ::raise(SIGSTOP);
    ::pause();
  }
}

}  // namespace roam
