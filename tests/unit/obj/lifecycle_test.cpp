// Lifecycle observers (roam/obj/lifecycle.hpp): two subscribers each see
// every birth, arrival, departure and death, of every kind of object, exactly
// once, on the PE where it happens, with the object's identity:
//   - an array of N elements (born), each moving one PE on (leaving on its
//     PE, arrived on the next), then every third destroyed (died);
//   - two insertions into a sparse array (born);
//   - a group (one member born per PE) and a nodegroup (one per process);
//   - two chares: one moves (leaving, arrived), both are destroyed (died).
#include <gtest/gtest.h>

#include <array>
#include <atomic>
#include <cstdint>

#include <roam/obj/lifecycle.hpp>

#include "support/run_roam.hpp"

namespace lifecycle_test {

namespace {

struct counts {
  std::array<std::atomic<long>, 5> born{}, arrived{}, leaving{}, died{};  // by object_kind
  std::atomic<long> wrong{0};
};

struct counting : roam::lifecycle_observer {
  counts c;
  static std::size_t k(const roam::object_event& e) { return static_cast<std::size_t>(e.object.kind); }
  void born(const roam::object_event& e) noexcept override {
    ++c.born[k(e)];
    if (!e.obj || e.pe >= roam::num_pes()) ++c.wrong;
  }
  void arrived(const roam::object_event& e) noexcept override { ++c.arrived[k(e)]; }
  void leaving(const roam::object_event& e) noexcept override {
    ++c.leaving[k(e)];
    if (e.peer != (e.pe + 1) % roam::num_pes()) ++c.wrong;  // every move here goes one PE on
  }
  void died(const roam::object_event& e) noexcept override {
    ++c.died[k(e)];
    if (e.object.kind == roam::object_kind::array_element && e.object.index[0] % 3 != 0) ++c.wrong;
  }
};

struct walker : roam::element<walker> {
  walker() = default;
  explicit walker(roam::migrating) {}
  void pup(roam::pup_er&) {}
  void hop(roam::callback<> done) {
    migrate_to(roam::pe_id{(roam::my_pe().value() + 1) % roam::num_pes()});
    contribute(done);
  }
  void maybe_die(roam::callback<> done) {
    contribute(done);
    if (this_index()[0] % 3 == 0) destroy_self();
  }
};
struct member : roam::group_member<member> {};
struct node_member : roam::nodegroup_member<node_member> {};
struct mover : roam::chare<mover> {
  mover() = default;
  explicit mover(roam::migrating) {}
  void pup(roam::pup_er&) {}
  void go() { migrate_to(roam::pe_id{(roam::my_pe().value() + 1) % roam::num_pes()}); }
  int ping() { return 1; }
};

void run_and_check(unsigned pes) {
  counting a, b;
  ASSERT_TRUE(roam::add_lifecycle_observer(a));
  ASSERT_TRUE(roam::add_lifecycle_observer(b));
  const int n = 4 * static_cast<int>(pes);
  int rc = roam_test::run_on(pes, [n](const roam::args&) -> roam::task<> {
    auto cells = roam::create_array<walker>(roam::array_options<1>({n}));
    auto [f1, p1] = roam::make_future<>();
    cells.send<&walker::hop>(roam::callback<>::to_future(p1));
    co_await f1;
    auto [f2, p2] = roam::make_future<>();
    cells.send<&walker::maybe_die>(roam::callback<>::to_future(p2));
    co_await f2;
    auto sparse = roam::create_sparse_array<walker>();
    sparse.insert({0});
    sparse.insert({1});
    sparse.done_inserting();
    roam::create_group<member>();
    roam::create_nodegroup<node_member>();
    auto m1 = roam::create_chare_on<mover>(roam::pe_id{0});
    auto m2 = roam::create_chare_on<mover>(roam::pe_id{0});
    if (roam::num_pes() > 1) m1.send<&mover::go>();
    co_await m1.call<&mover::ping>();  // reaches it wherever it went
    m1.destroy();
    m2.destroy();
    auto [fq, pq] = roam::make_future<>();
    roam::on_quiescence(roam::callback<>::to_future(pq));
    co_await fq;
    roam::exit(0);
  });
  roam::remove_lifecycle_observer(a);
  roam::remove_lifecycle_observer(b);
  ASSERT_EQ(rc, 0);
  const auto kind = [](roam::object_kind k) { return static_cast<std::size_t>(k); };
  const long moves = pes > 1 ? n : 0;
  const long chare_moves = pes > 1 ? 1 : 0;
  long dead = 0;
  for (int i = 0; i < n; ++i) dead += i % 3 == 0;
  for (counting* o : {&a, &b}) {
    const counts& c = o->c;
    EXPECT_EQ(c.born[kind(roam::object_kind::array_element)], n + 2) << pes << " pes";
    EXPECT_EQ(c.leaving[kind(roam::object_kind::array_element)], moves);
    EXPECT_EQ(c.arrived[kind(roam::object_kind::array_element)], moves);
    EXPECT_EQ(c.died[kind(roam::object_kind::array_element)], dead);
    EXPECT_EQ(c.born[kind(roam::object_kind::group_member)], pes);
    EXPECT_EQ(c.born[kind(roam::object_kind::nodegroup_member)], 1);
    EXPECT_EQ(c.born[kind(roam::object_kind::chare)], 2);
    EXPECT_EQ(c.leaving[kind(roam::object_kind::chare)], chare_moves);
    EXPECT_EQ(c.arrived[kind(roam::object_kind::chare)], chare_moves);
    EXPECT_EQ(c.died[kind(roam::object_kind::chare)], 2);
    EXPECT_EQ(c.wrong, 0);
  }
}

TEST(lifecycle, every_birth_move_and_death_is_seen_once_by_each_observer_p1) { run_and_check(1); }
TEST(lifecycle, every_birth_move_and_death_is_seen_once_by_each_observer_p2) { run_and_check(2); }
TEST(lifecycle, every_birth_move_and_death_is_seen_once_by_each_observer_p4) { run_and_check(4); }

}  // namespace

}  // namespace lifecycle_test
