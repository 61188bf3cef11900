// The communication graph in a running program: elements in two clusters,
// each element messaging every other member of its cluster, placed round
// robin so that each cluster is split across the two PEs. Under the
// communication-aware strategy (Metis, when METIS is built) one step puts
// each cluster together on one PE, the loads (equal) staying balanced: the
// runtime collected the communication graph the strategy asked for.
#include <gtest/gtest.h>

#include <vector>

#include <roam/roam.hpp>

#include "support/run_roam.hpp"

namespace runtime_comm_test {

namespace {

constexpr int elements = 16;
constexpr int cluster_size = elements / 2;

void spin_us(int us) {
  const auto end = std::chrono::steady_clock::now() + std::chrono::microseconds(us);
  while (std::chrono::steady_clock::now() < end) {
  }
}

struct talker : roam::element<talker> {
  talker() = default;
  explicit talker(roam::migrating) {}
  void pup(roam::pup_er& p) { p | got | done; }
  long got = 0;
  roam::callback<std::vector<long>> done;

  void start(roam::callback<std::vector<long>> cb) {
    done = cb;
    const int me = this_index()[0], base = me / cluster_size * cluster_size;
    for (int round = 0; round < 4; ++round)
      for (int j = base; j < base + cluster_size; ++j)
        if (j != me) this_array()[j].send<&talker::chat>(std::vector<double>(256, 1.0));
    spin_us(300);
    at_sync();
  }
  void chat(std::vector<double> v) { got += static_cast<long>(v.size()); }
  void resume_from_sync() {
    std::vector<long> where(elements, 0);
    where[static_cast<std::size_t>(this_index()[0])] = static_cast<long>(roam::my_pe().value());
    contribute(where, roam::sum, done);
  }
};

// Metis on the measured graph, with every object's load set equal: measured
// loads (and PE speeds) are measured on a shared machine, and one preempted entry would make
// METIS's balance constraint split a cluster. The graph is what is tested here.
roam::lb::assignment metis_equal_loads(const roam::lb::problem& measured, const roam::lb::strategy_options& o) {
  roam::lb::problem p = measured;
  for (auto& pe : p.pes) pe.background = 0, pe.speed = 1;
  for (auto& obj : p.objects) obj.load = 1e-3;
  return roam::lb::find_strategy("Metis")->run(p, o);
}
const bool equal_registered = roam::lb::register_strategy(
    {"MetisEqualLoads", "Metis with equal loads (runtime_comm_test)", &metis_equal_loads, true});

TEST(lb_comm, metis_puts_each_communicating_cluster_on_one_pe) {
  if (!roam::lb::find_strategy("Metis")) GTEST_SKIP() << "roam built without METIS (libmetis-dev)";
  std::vector<long> where;
  int rc = roam_test::run_on(
      2,
      [&where](const roam::args&) -> roam::task<> {
        auto cells = roam::create_array<talker>(roam::array_options<1>({elements}, roam::round_robin_map()));
        auto [f, p] = roam::make_future<std::vector<long>>();
        cells.send<&talker::start>(roam::callback<std::vector<long>>::to_future(p));
        where = co_await f;
        roam::exit(0);
      },
      {"+balancer", "MetisEqualLoads"});
  ASSERT_EQ(rc, 0);
  ASSERT_EQ(where.size(), static_cast<std::size_t>(elements));
  for (int c = 0; c < 2; ++c)
    for (int i = c * cluster_size; i < (c + 1) * cluster_size; ++i)
      EXPECT_EQ(where[static_cast<std::size_t>(i)], where[static_cast<std::size_t>(c * cluster_size)])
          << "element " << i << " of cluster " << c;
  EXPECT_NE(where[0], where[cluster_size]) << "the two clusters share a PE: the loads are not balanced";
}

}  // namespace

}  // namespace runtime_comm_test
