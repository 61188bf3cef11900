// lb_test: an imbalanced ring of elements with known loads (lb_workload.hpp),
// run once, printing its time beside the best any placement could reach.
//   lb_test [ELEMENTS=32] [STEPS=300] [MAX_MS=10] [static|drift|sudden] [SYNC_EVERY=20] [wall|cpu]
//           [+p N] [+balancer NAME | +MetaLB] [+LBDebug] ...
// e.g. `lb_test 32 100 10 static 20 +p2 +balancer Greedy`.
#include <cstdio>

#include "command_line.hpp"
#include "lb_workload.hpp"

namespace {

constexpr examples::usage_text usage{
    "lb_test",
    "[ELEMENTS=32] [STEPS=300] [MAX_MS=10] [static|drift|sudden] [SYNC_EVERY=20] [wall|cpu] "
    "[+balancer NAME | +MetaLB]",
    "  ELEMENTS      elements of the ring, at least 1 (default 32)\n"
    "  STEPS         steps, at least 1 (default 300)\n"
    "  MAX_MS        the heaviest element's work per step in ms, at least 0 (default 10)\n"
    "  static|drift|sudden  how the loads change over the steps (default static)\n"
    "  SYNC_EVERY    at_sync every this many steps, 0: never (default 20)\n"
    "  wall|cpu      elements work by the wall clock or by their thread's CPU clock (default wall;\n"
    "                cpu with +LBCpuTime measures the same loads however busy the machine is)\n"
    "  +balancer NAME, +MetaLB, +LBDebug  (runtime options) the load balancer and its report\n",
    "lb_test 32 100 10 static 20 +p2 +balancer Greedy"};

lb_workload::config read_config(const examples::command_line& args) {
  lb_workload::config c;
  c.elements = args.whole(1, "ELEMENTS", 32, 1, 1'000'000);
  c.steps = args.whole(2, "STEPS", 300, 1, 1'000'000);
  c.max_ms = args.whole(3, "MAX_MS", 10, 0, 1'000'000);
  if (const std::string* loads = args.word(4); loads && !lb_workload::parse_pattern(*loads, c.loads))
    throw examples::bad_argument("unknown load pattern '" + *loads + "' (static, drift or sudden)");
  c.sync_every = args.whole(5, "SYNC_EVERY", 20, 0, 1'000'000);
  if (const std::string* clock = args.word(6)) {
    if (*clock != "wall" && *clock != "cpu") throw examples::bad_argument("unknown clock '" + *clock + "' (wall or cpu)");
    c.cpu_clock = *clock == "cpu";
  }
  return c;
}

}  // namespace

int main(int argc, char** argv) {
  return roam::run(argc, argv, [](const roam::args& a) -> roam::task<> {
    const std::optional<lb_workload::config> parsed = examples::read_command_line(a, usage, 6, {}, read_config);
    if (!parsed) co_return;  // the usage is printed and the program ends
    const lb_workload::config& c = *parsed;
    const lb_workload::outcome o = co_await lb_workload::run(c);
    std::printf("lb_test: %d elements, %d steps, %s loads up to %.1f ms, at_sync every %d steps, %u PEs: %.3f s "
                "(perfect %.3f s, ratio %.3f), %u balancing steps\n",
                c.elements, c.steps, lb_workload::pattern_name(c.loads), c.max_ms, c.sync_every, roam::num_pes(),
                o.seconds, o.perfect, o.seconds / o.perfect, o.lb_steps);
    roam::exit(0);
  });
}
