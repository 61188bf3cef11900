// affinity_check: under +setcpuaffinity every PE runs on the core of its
// place among the PEs of its host (the k-th allowed core, wrapping), so the
// processes of one host do not pile their PEs onto the same cores.
//   affinity_check [+setcpuaffinity] — run as roamrun -n N +ppn P ...
// Prints "affinity_check: OK (N pes, M distinct cores)" or each PE that is
// not where it should be. Assumes one host (every PE's place is its number).
#include <sched.h>

#include <array>
#include <cstdint>
#include <cstdio>
#include <vector>

#include <roam/roam.hpp>

namespace {

std::vector<int> allowed_cores() {
  cpu_set_t set;
  CPU_ZERO(&set);
  std::vector<int> out;
  if (::sched_getaffinity(0, sizeof set, &set) != 0) return out;
  for (int c = 0; c < CPU_SETSIZE; ++c)
    if (CPU_ISSET(c, &set)) out.push_back(c);
  return out;
}

std::vector<int> g_allowed;  // every process's, read before its PEs pin themselves

struct probe : roam::group_member<probe> {
  // Misplaced PEs, and the cores in use as a bit set (cores < 64).
  void report(roam::callback<std::array<std::uint64_t, 2>> cb) {
    const std::vector<int> mine = allowed_cores();  // this thread's mask: one core when pinned
    const std::uint32_t pe = roam::my_pe().value();
    std::uint64_t wrong = 0, used = 0;
    if (mine.size() != 1) {
      std::printf("affinity_check: pe %u may run on %zu cores, not one\n", pe, mine.size());
      wrong = 1;
    } else {
      // The runtime's choice: the (place mod cores)-th core the process was allowed at start.
      const int want = g_allowed.empty() ? -1 : g_allowed[pe % g_allowed.size()];
      std::printf("affinity_check: pe %u on core %d, wanted %d\n", pe, mine[0], want);
      if (mine[0] != want) wrong = 1;
      if (mine[0] < 64) used = std::uint64_t{1} << mine[0];
    }
    contribute(std::array<std::uint64_t, 2>{wrong, used}, roam::sum, cb);
  }
};

}  // namespace

int main(int argc, char** argv) {
  g_allowed = allowed_cores();  // before any PE thread pins itself
  const int cores = static_cast<int>(g_allowed.size());
  return roam::run(argc, argv, [cores](const roam::args& a) -> roam::task<> {
    if (a.size() > 1) {
      const bool help = a[1] == "--help" || a[1] == "-h";
      std::fprintf(help ? stdout : stderr, "%saffinity_check [+setcpuaffinity] (no arguments of its own)\n",
                   help ? "usage: " : ("affinity_check: unknown argument '" + a[1] + "'; usage: ").c_str());
      roam::exit(help ? 0 : 2);
      co_return;
    }
    auto probes = roam::create_group<probe>();
    auto [f, p] = roam::make_future<std::array<std::uint64_t, 2>>();
    probes.send<&probe::report>(roam::callback<std::array<std::uint64_t, 2>>::to_future(p));
    const auto r = co_await f;
    const std::uint32_t pes = roam::num_pes();
    const int distinct = __builtin_popcountll(r[1]);
    // Distinct sums mean distinct cores: each PE added its core's bit once.
    const int expected = static_cast<int>(pes < static_cast<std::uint32_t>(cores) ? pes : static_cast<std::uint32_t>(cores));
    const bool ok = r[0] == 0 && distinct == expected;
    std::printf("affinity_check: %s (%u pes, %d distinct cores of %d)\n", ok ? "OK" : "FAILED", pes, distinct, cores);
    roam::exit(ok ? 0 : 1);
  });
}
