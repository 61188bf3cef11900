// Tasks that never finish, on every PE: one element per PE waits for a
// reference number nobody sends. main has every PE print its report of
// waiting tasks (roam::report_waiting_tasks), waits until all have, and ends;
// run with +taskreport, each PE prints it again at exit.
#include <cstdio>

#include <roam/roam.hpp>

struct waiter : roam::element<waiter> {
  roam::mailbox<int, double> step;
  roam::task<> run() { (void)co_await step.receive(100 + this_index()[0]); }
};

int main(int argc, char** argv) {
  return roam::run(argc, argv, [](const roam::args&) -> roam::task<> {
    const int n = static_cast<int>(roam::num_pes());
    auto w = roam::create_array<waiter>(roam::array_options<1>({n}, roam::block_map()));
    w.send<&waiter::run>();
    for (int i = 0; i < n; ++i) w[i].send<&waiter::step>(i, 1.0);  // kept: not the awaited reference
    co_await roam::quiescence();
    co_await roam::report_waiting_tasks();
    std::printf("stuck_tasks: reported on %d pes\n", n);
    std::fflush(stdout);
    roam::exit(0);
  });
}
