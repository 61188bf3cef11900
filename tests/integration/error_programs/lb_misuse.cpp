// Load balancing misused: the runtime must stop with a message that says what
// went wrong and where.
//   lb_misuse twice [ELEMENTS=4] [VICTIM=3]: element VICTIM calls at_sync()
//     twice before its resume_from_sync (a fatal error naming the PE, the
//     element's type and index, and "called twice");
//   lb_misuse ok: every element calls at_sync once, and the program exits 0
//     (with the bad start-up options tested beside it, main never runs).
#include <cstdio>

#include <roam/roam.hpp>

namespace lbmisuse {

struct syncer : roam::element<syncer> {
  syncer() = default;
  explicit syncer(roam::migrating) {}
  void pup(roam::pup_er&) {}
  void go(int victim) {
    at_sync();
    if (this_index()[0] == victim) at_sync();  // wrong: once per step, then wait for resume_from_sync
  }
  void resume_from_sync() {}
};

}  // namespace lbmisuse

int main(int argc, char** argv) {
  return roam::run(argc, argv, [](const roam::args& a) -> roam::task<> {
    std::printf("lb_misuse: main ran\n");
    const bool twice = a.size() > 1 && a[1] == "twice";
    const int n = static_cast<int>(a.int_or(2, 4));
    const int victim = twice ? static_cast<int>(a.int_or(3, 3)) : -1;
    auto cells = roam::create_array<lbmisuse::syncer>({n});
    cells.send<&lbmisuse::syncer::go>(victim);
    // Only the failure may end the program when an element misbehaves.
    if (twice) co_return;
    auto [f, p] = roam::make_future<>();
    roam::on_quiescence(roam::callback<>::to_future(p));
    co_await f;
    std::printf("lb_misuse: OK\n");
    roam::exit(0);
  });
}
