// collectives_check: one program that exercises every kind of object and
// collective with exact expected results, so that it can run unchanged on
// one process, on TCP nodes (roamrun) and on MPI ranks (mpirun):
// readonlies, group/array/nodegroup reductions, broadcasts, sections,
// nodegroup members addressed by node, remote chare creation with calls, and
// quiescence detection after a message storm.
//   collectives_check [N=23] [+p N | +ppn K ...runtime options]
#include <cstdint>
#include <cstdio>
#include <string>
#include <vector>

#include <roam/roam.hpp>

namespace {

roam::readonly<int> g_magic;
roam::readonly<int> g_elements;

struct probe : roam::group_member<probe> {
  void report(roam::callback<long> magic, roam::callback<long> pes, roam::callback<long> nodes) {
    contribute(static_cast<long>(*g_magic), roam::sum, magic);
    contribute(static_cast<long>(roam::my_pe().value()), roam::sum, pes);
    contribute(static_cast<long>(roam::my_node().value()), roam::max, nodes);
  }
};

struct cell : roam::element<cell> {
  void step(long round, roam::callback<long> cb) { contribute(round * this_index()[0], roam::sum, cb); }
  void over_section(roam::section_proxy<cell> s, roam::callback<long> cb) {
    contribute(s, static_cast<long>(this_index()[0]), roam::sum, cb);
  }
  // The storm: each element sends `left` hops along a scrambled ring.
  void storm(roam::array_proxy<cell> all, int left) {
    if (left == 0) return;
    int next = static_cast<int>((this_index()[0] * 7 + left * 13) % *g_elements);
    all[next].send<&cell::hop>(all, left - 1);
  }
  void hop(roam::array_proxy<cell> all, int left) {
    ++received_;
    storm(all, left);
  }
  void count(roam::callback<long> cb) { contribute(received_, roam::sum, cb); }
  long received_ = 0;
};

struct per_node : roam::nodegroup_member<per_node> {
  void hello(roam::callback<long> cb) { contribute(1L, roam::sum, cb); }
  void which(roam::callback<long> cb) { cb.send(static_cast<long>(roam::my_node().value())); }
};

struct locator : roam::chare<locator> {
  long where() { return static_cast<long>(roam::my_pe().value()); }
};

int failures = 0;
void expect(const char* what, long got, long want) {
  std::printf("%-28s %ld%s\n", what, got, got == want ? "" : ("  MISMATCH, expected " + std::to_string(want)).c_str());
  if (got != want) ++failures;
}

}  // namespace

int main(int argc, char** argv) {
  return roam::run(argc, argv, [](const roam::args& a) -> roam::task<> {
    g_magic = 42;
    g_elements = static_cast<int>(a.int_or(1, 23));
    const long n = *g_elements;
    const long pes = roam::num_pes();
    const long nodes = roam::num_nodes();
    std::printf("collectives_check: %ld elements on %ld pes in %ld nodes\n", n, pes, nodes);

    auto probes = roam::create_group<probe>();
    {
      auto [fm, pm] = roam::make_future<long>();
      auto [fp, pp] = roam::make_future<long>();
      auto [fn, pn] = roam::make_future<long>();
      probes.send<&probe::report>(roam::callback<long>::to_future(pm), roam::callback<long>::to_future(pp),
                                  roam::callback<long>::to_future(pn));
      expect("readonly seen by every pe", co_await fm, 42 * pes);
      expect("group sum of pe numbers", co_await fp, pes * (pes - 1) / 2);
      expect("group max of node numbers", co_await fn, nodes - 1);
    }

    for (auto map : {roam::block_map(), roam::round_robin_map()}) {
      auto cells = roam::create_array<cell>(roam::array_options<1>({static_cast<int>(n)}, map));
      for (long round = 1; round <= 3; ++round) {
        auto [f, p] = roam::make_future<long>();
        cells.send<&cell::step>(round, roam::callback<long>::to_future(p));
        expect(("broadcast+sum, " + map.name + " map").c_str(), co_await f, round * n * (n - 1) / 2);
      }
      auto evens = roam::section_proxy<cell>::where(cells, [](const roam::index<1>& i) { return i[0] % 2 == 0; });
      long even_sum = 0;
      for (long i = 0; i < n; i += 2) even_sum += i;
      auto [fs, ps] = roam::make_future<long>();
      evens.send<&cell::over_section>(evens, roam::callback<long>::to_future(ps));
      expect("section multicast+sum", co_await fs, even_sum);

      constexpr int hops = 40;
      cells.send<&cell::storm>(cells, hops);
      auto [fq, pq] = roam::make_future<>();
      roam::on_quiescence(roam::callback<>::to_future(pq));
      co_await fq;
      auto [fc, pc] = roam::make_future<long>();
      cells.send<&cell::count>(roam::callback<long>::to_future(pc));
      expect("messages counted at quiescence", co_await fc, n * hops);
    }

    auto nodegroup = roam::create_nodegroup<per_node>();
    {
      auto [f, p] = roam::make_future<long>();
      nodegroup.send<&per_node::hello>(roam::callback<long>::to_future(p));
      expect("nodegroup members", co_await f, nodes);
      auto [fw, pw] = roam::make_future<long>();
      nodegroup[roam::node_id{static_cast<std::uint32_t>(nodes - 1)}].send<&per_node::which>(roam::callback<long>::to_future(pw));
      expect("nodegroup member of last node", co_await fw, nodes - 1);
    }

    auto far = roam::create_chare_on<locator>(roam::pe_id{static_cast<std::uint32_t>(pes - 1)});
    expect("chare created on last pe", co_await far.call<&locator::where>(), pes - 1);

    std::printf("collectives_check: %s\n", failures == 0 ? "OK" : "FAILED");
    roam::exit(failures == 0 ? 0 : 1);
  });
}
