// How an element travels: within one process as itself (no pup, same object),
// packed when it asks for it (pup_on_migration) or under +serialize.
#include <gtest/gtest.h>

#include <cstdint>
#include <vector>

#include "support/run_roam.hpp"

namespace migration_mode_test {

using roam_test::run_on;

namespace {

std::vector<long> g_report;  // written by the test's main coroutine only

template <bool Packed>
struct tourist : roam::element<tourist<Packed>> {
  static constexpr bool pup_on_migration = Packed;
  tourist() = default;
  explicit tourist(roam::migrating) {}

  void go(int hops, roam::promise<std::vector<long>> done) {
    left = hops;
    done_ = done;
    self = reinterpret_cast<std::uintptr_t>(this);
    move_on();
  }
  void after_migration() {
    ++arrivals;
    if (reinterpret_cast<std::uintptr_t>(this) != self) ++new_objects;
    self = reinterpret_cast<std::uintptr_t>(this);
    if (--left > 0) return move_on();
    done_.set_value(std::vector<long>{unpacks, arrivals, new_objects, static_cast<long>(roam::my_pe().value())});
  }
  void pup(roam::pup_er& p) {
    p | left | done_ | arrivals | new_objects | self | unpacks;
    if (p.is_unpacking()) ++unpacks;
  }

  int left = 0;
  roam::promise<std::vector<long>> done_;
  long arrivals = 0, new_objects = 0, unpacks = 0;
  std::uintptr_t self = 0;

 private:
  void move_on() { this->migrate_to(roam::pe_id{(roam::my_pe().value() + 1) % roam::num_pes()}); }
};

template <bool Packed>
std::vector<long> tour(unsigned pes, int hops, std::vector<std::string> extra = {}) {
  g_report.clear();
  int rc = run_on(pes, [hops](const roam::args&) -> roam::task<> {
    auto arr = roam::create_array<tourist<Packed>>(roam::index<1>{1});
    auto [f, p] = roam::make_future<std::vector<long>>();
    arr[0].template send<&tourist<Packed>::go>(hops, p);
    g_report = co_await f;
    roam::exit(0);
  }, std::move(extra));
  EXPECT_EQ(rc, 0);
  return g_report;
}

// An element that asks to move and ends the program at once: whether the move
// message runs or is discarded at shutdown, the element is freed (ASan's leak
// check watches this).
struct leaver : roam::element<leaver> {
  leaver() = default;
  explicit leaver(roam::migrating) {}
  void leave() {
    migrate_to(roam::pe_id{1});
    roam::exit(0);
  }
  void pup(roam::pup_er& p) { p | ballast; }
  std::vector<char> ballast = std::vector<char>(4096, 'b');
};

}  // namespace

TEST(migration_mode, within_a_process_an_element_moves_as_itself_without_pup) {
  std::vector<long> r = tour<false>(3, 7);
  ASSERT_EQ(r.size(), 4u);
  EXPECT_EQ(r[0], 0) << "unpacks";
  EXPECT_EQ(r[1], 7) << "after_migration calls";
  EXPECT_EQ(r[2], 0) << "moves that made a new object";
  EXPECT_EQ(r[3], 7 % 3) << "final pe";
}

TEST(migration_mode, pup_on_migration_packs_every_move) {
  std::vector<long> r = tour<true>(3, 7);
  ASSERT_EQ(r.size(), 4u);
  EXPECT_EQ(r[0], 7) << "unpacks";
  EXPECT_EQ(r[1], 7) << "after_migration calls";
  EXPECT_EQ(r[3], 7 % 3);
}

TEST(migration_mode, serialize_option_packs_every_move) {
  std::vector<long> r = tour<false>(2, 5, {"+serialize"});
  ASSERT_EQ(r.size(), 4u);
  EXPECT_EQ(r[0], 5) << "unpacks";
  EXPECT_EQ(r[1], 5);
  EXPECT_EQ(r[3], 1);
}

TEST(migration_mode, an_element_in_flight_at_exit_is_freed) {
  for (int i = 0; i < 20; ++i) {
    int rc = run_on(2, [](const roam::args&) {
      auto arr = roam::create_array<leaver>(roam::array_options<1>({1}, roam::block_map()));
      arr[0].send<&leaver::leave>();
    });
    EXPECT_EQ(rc, 0);
  }
}

}  // namespace migration_mode_test
