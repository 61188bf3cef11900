// Migratable threads (roam/iso/thread.hpp): a thread blocked in the middle of
// a recursion, with a linked list on its own heap and pointers into its own
// stack frames, travels with its element from PE to PE and finishes with the
// exact answer; wakes are never lost or doubled by a move; what cannot move
// says why.
#include <gtest/gtest.h>

#include <sys/mman.h>

#include <atomic>
#include <cstdio>
#include <cstring>
#include <list>
#include <regex>
#include <string>
#include <vector>

#include <roam/iso/detail/region.hpp>
#include <roam/iso/thread.hpp>
#include <roam/msg/detail/packing_to_move.hpp>

#include "support/run_roam.hpp"

namespace mthread {

using roam_test::run_on;

// How a walker's thread waits between hops.
enum class wait_kind : int { suspend, yield };

struct node {
  node* next;
  long value;
};

struct report : roam::chare<report> {
  explicit report(int n) : n_(n) {}
  void done(int idx, long result, long expected, int hops, bool frames_ok, std::vector<int> pes) {
    bool ok = result == expected && frames_ok && hops == static_cast<int>(pes.size());
    // Each hop went where it was sent: the next PE, round the ring.
    for (std::size_t i = 1; i < pes.size(); ++i)
      ok = ok && pes[i] == (pes[i - 1] + 1) % static_cast<int>(roam::num_pes());
    if (!ok) {
      std::fprintf(stderr, "walker %d: result %ld (expected %ld), frames %s, %d hops over %zu pes\n", idx, result,
                   expected, frames_ok ? "ok" : "BAD", hops, pes.size());
      bad_ = true;
    }
    if (++seen_ == n_) roam::exit(bad_ ? 3 : 0);
  }

 private:
  int n_, seen_ = 0;
  bool bad_ = false;
};

struct walker : roam::element<walker> {
  static constexpr bool pup_on_migration = true;

  walker() = default;
  explicit walker(roam::migrating) {}

  void begin(roam::chare_proxy<report> r, int depth, int hops, int kind) {
    report_ = r;
    depth_ = depth;
    hops_left_ = hops;
    kind_ = kind;
    thread.start(this, [] { roam::this_thread_owner<walker>().run(); });
  }
  void after_migration() {
    if (static_cast<wait_kind>(kind_) == wait_kind::suspend) this_proxy().send<&walker::poke>();
  }
  void poke() { thread.resume(); }
  void go(unsigned pe) { migrate_to(roam::pe_id{pe}); }
  void pup(roam::pup_er& p) { p | report_ | depth_ | hops_left_ | kind_ | hops_done_ | thread; }

  roam::migratable_thread thread;

  // ---- on the thread: `this` is stale after any hop; everything goes
  // through this_thread_owner() or the thread's own stack and heap ----------
  static walker& self() { return roam::this_thread_owner<walker>(); }

  // One hop: ask to move to the next PE and block; the element packs the
  // thread with it and wakes it there (after_migration's poke, or the
  // yield's own wake, carried along).
  static void hop(std::vector<int, roam::thread_heap_allocator<int>>& pes) {
    walker& w = self();
    if (w.hops_left_ == 0) return;
    --w.hops_left_;
    ++w.hops_done_;
    // A message, not migrate_to: the thread may run outside any entry of its
    // element (after a yield), where no request would be carried out.
    w.this_proxy().send<&walker::go>((roam::my_pe().value() + 1) % roam::num_pes());
    const auto kind = static_cast<wait_kind>(w.kind_);
    if (kind == wait_kind::suspend) roam::suspend_this_thread();
    else roam::this_thread_yield();
    pes.push_back(static_cast<int>(roam::my_pe().value()));
  }

  // Builds a list on the thread's heap on the way down, hops at the bottom
  // and every fourth level on the way up, and checks each frame's pointers to
  // its own and its caller's locals after the hops.
  static long recurse(int depth, node*& list, const long* parent_local, bool& frames_ok,
                      std::vector<int, roam::thread_heap_allocator<int>>& pes) {
    long local = depth * 7L + 1;
    const long* mine = &local;
    auto* n = static_cast<node*>(roam::thread_heap_allocate(sizeof(node)));
    *n = node{list, depth};
    list = n;
    long below = 0;
    if (depth > 0) {
      below = recurse(depth - 1, list, mine, frames_ok, pes);
    } else {  // all hops but one per fourth level on the way up
      while (self().hops_left_ > self().depth_ / 4 + 1) hop(pes);
    }
    if (depth % 4 == 0) hop(pes);
    if (*mine != depth * 7L + 1 || (parent_local && *parent_local != (depth + 1) * 7L + 1) || n->value != depth)
      frames_ok = false;
    return below + local + n->value;
  }

  void run() {  // `this` is valid only until the first hop
    const int depth = depth_;
    std::vector<int, roam::thread_heap_allocator<int>> pes;
    pes.push_back(static_cast<int>(roam::my_pe().value()));
    node* list = nullptr;
    bool frames_ok = true;
    long r = recurse(depth, list, nullptr, frames_ok, pes);
    long listed = 0, count = 0;
    for (node* n = list; n; n = n->next, ++count) listed += n->value;
    const long sum = static_cast<long>(depth) * (depth + 1) / 2;
    const long expected = 7 * sum + (depth + 1) + sum;
    frames_ok = frames_ok && listed == sum && count == depth + 1;
    while (list) {
      node* next = list->next;
      roam::thread_heap_release(list);
      list = next;
    }
    walker& w = self();
    std::vector<int> visited(pes.begin() + 1, pes.end());
    // The first entry is where it started; every later one a hop's arrival.
    visited.insert(visited.begin(), pes.front());
    w.report_.send<&report::done>(w.this_index()[0], r, expected, w.hops_done_ + 1, frames_ok, visited);
  }

  roam::chare_proxy<report> report_;
  int depth_ = 0, hops_left_ = 0, kind_ = 0, hops_done_ = 0;
};

void walk(unsigned pes, int walkers, int depth, int hops, wait_kind kind, std::vector<std::string> extra = {}) {
  int rc = run_on(
      pes,
      [=](const roam::args&) {
        auto r = roam::create_chare<report>(walkers);
        auto a = roam::create_array<walker>(roam::index<1>{walkers});
        a.send<&walker::begin>(r, depth, hops, static_cast<int>(kind));
      },
      extra);
  EXPECT_EQ(rc, 0);
}

TEST(migratable_thread, a_blocked_recursion_moves_between_two_pes_and_finishes_exactly) {
  walk(2, 4, 20, 9, wait_kind::suspend);
}

TEST(migratable_thread, many_threads_move_round_four_pes) { walk(4, 16, 12, 11, wait_kind::suspend); }

TEST(migratable_thread, a_yield_carried_by_a_move_wakes_the_thread_exactly_once) {
  walk(3, 6, 9, 7, wait_kind::yield);
}

TEST(migratable_thread, moves_under_serialize_and_the_deterministic_driver) {
  walk(2, 3, 10, 5, wait_kind::suspend, {"+serialize"});
  for (int seed = 1; seed <= 4; ++seed)
    walk(3, 4, 8, 6, wait_kind::yield, {"+deterministic", std::to_string(seed)});
}

TEST(migratable_thread, a_thread_moved_a_thousand_times_between_pes) { walk(2, 1, 3, 1000, wait_kind::suspend); }

// ---- threads kept in a container of their owner ------------------------------
// Threads in a std::list the owner rebuilds when it is unpacked: each node
// is at a new offset from the owner, and set_owner() tells each thread
// where its owner now is. Three helpers each check this_thread_owner()
// before and after the owner moves between PEs, twice (in place and, under
// +serialize, copied).

struct crowd : roam::element<crowd> {
  static constexpr bool pup_on_migration = true;
  crowd() = default;
  explicit crowd(roam::migrating) {}
  void begin() {
    for (int i = 0; i < 3; ++i) {
      helpers.emplace_back();
      helpers.back().start(this, [] {
        for (int round = 0; round < 3; ++round) {
          crowd& c = roam::this_thread_owner<crowd>();
          if (c.marker == 42 && static_cast<int>(roam::my_pe().value()) == c.expected_pe) ++c.right_owner;
          if (round < 2) roam::suspend_this_thread();
        }
        crowd& c = roam::this_thread_owner<crowd>();
        if (++c.finished == 3) roam::exit(c.right_owner == 9 ? 0 : 6);
      });
    }
    go();
  }
  void go() {
    expected_pe = static_cast<int>((roam::my_pe().value() + 1) % roam::num_pes());
    migrate_to(roam::pe_id{static_cast<std::uint32_t>(expected_pe)});
  }
  void after_migration() { this_proxy().send<&crowd::wake>(); }
  void wake() {
    for (auto& t : helpers)
      if (t.suspended()) t.resume();
    if (finished < 3 && ++moves < 2) go();
  }
  void pup(roam::pup_er& p) {
    auto n = static_cast<std::uint32_t>(helpers.size());
    p | marker | expected_pe | right_owner | finished | moves | n;
    if (p.is_unpacking()) {
      helpers.clear();
      for (std::uint32_t i = 0; i < n; ++i) helpers.emplace_back();
    }
    for (auto& t : helpers) p | t;
    if (p.is_unpacking())
      for (auto& t : helpers) t.set_owner(this);
  }
  std::list<roam::migratable_thread> helpers;
  int marker = 42, expected_pe = 0, right_owner = 0, finished = 0, moves = 0;
};

TEST(migratable_thread, threads_in_a_container_of_their_owner_find_it_after_moves) {
  for (std::vector<std::string> extra : {std::vector<std::string>{}, std::vector<std::string>{"+serialize"}}) {
    int rc = run_on(
        2, [](const roam::args&) { roam::create_array<crowd>(roam::index<1>{1})[0].send<&crowd::begin>(); }, extra);
    EXPECT_EQ(rc, 0) << (extra.empty() ? "in place" : "serialized");
  }
}

// ---- in place ------------------------------------------------------------------

struct sleeper : roam::element<sleeper> {
  static constexpr bool pup_on_migration = true;
  sleeper() = default;
  explicit sleeper(roam::migrating) {}
  void begin(int rounds) {
    thread.start(this, [rounds] {
      for (int i = 0; i < rounds; ++i) {
        roam::this_thread_owner<sleeper>().count_ += 1;
        roam::suspend_this_thread();
      }
      roam::this_thread_owner<sleeper>().ended_ = true;
    });
  }
  void poke() {
    if (!thread.suspended()) return;
    thread.resume();
    if (ended_ && thread.finished()) roam::exit(count_ == 5 ? 0 : 4);
  }
  void pup(roam::pup_er& p) { p | count_ | ended_ | thread; }
  roam::migratable_thread thread;
  int count_ = 0;
  bool ended_ = false;
};

TEST(migratable_thread, suspends_and_resumes_in_place_and_gives_its_slot_back) {
  int rc = run_on(1, [](const roam::args&) {
    auto a = roam::create_array<sleeper>(roam::index<1>{1});
    a[0].send<&sleeper::begin>(5);
    for (int i = 0; i < 5; ++i) a[0].send<&sleeper::poke>();
  });
  EXPECT_EQ(rc, 0);
}

// Destroying the owner of a blocked thread unwinds the thread: its frames'
// destructors run and its slot is given back.
std::atomic<int> g_unwound{0};

struct doomed : roam::element<doomed> {
  static constexpr bool pup_on_migration = true;
  doomed() = default;
  explicit doomed(roam::migrating) {}
  void begin() {
    thread.start(this, [] {
      struct guard {
        ~guard() { g_unwound.fetch_add(1); }
      } g;
      roam::suspend_this_thread();
    });
  }
  void die() { destroy_self(); }
  void pup(roam::pup_er& p) { p | thread; }
  roam::migratable_thread thread;
};

struct doom_checker : roam::chare<doom_checker> {
  doom_checker() {
    roam::exit(g_unwound.load() == 3 ? 0 : 9);
  }
};

TEST(migratable_thread, destroying_the_owner_unwinds_its_blocked_thread) {
  g_unwound = 0;
  int rc = run_on(2, [](const roam::args&) -> roam::task<> {
    auto a = roam::create_array<doomed>(roam::index<1>{3});
    a.send<&doomed::begin>();
    co_await roam::quiescence();
    a.send<&doomed::die>();
    co_await roam::quiescence();
    roam::create_chare<doom_checker>();
  });
  EXPECT_EQ(rc, 0);
  EXPECT_EQ(g_unwound.load(), 3);
}

// ---- errors ----------------------------------------------------------------------

struct outside : roam::chare<outside> {
  outside() {
    std::string what;
    try {
      roam::suspend_this_thread();
    } catch (const std::logic_error& e) {
      what = e.what();
    }
    roam::exit(what.find("suspend_this_thread() outside a migratable thread") != std::string::npos ? 0 : 5);
  }
};

TEST(migratable_thread, suspending_outside_a_migratable_thread_is_an_error) {
  EXPECT_EQ(run_on(1, [](const roam::args&) { roam::create_chare<outside>(); }), 0);
}

// ---- memory ------------------------------------------------------------------------

// Pages of [from, to) the kernel has committed (resident).
std::size_t resident_bytes(std::uintptr_t from, std::uintptr_t to) {
  const std::size_t page = 4096;
  std::vector<unsigned char> v((to - from) / page);
  if (::mincore(reinterpret_cast<void*>(from), to - from, v.data()) != 0) return ~std::size_t{0};
  std::size_t n = 0;
  for (unsigned char c : v) n += c & 1;
  return n * page;
}

struct resident : roam::element<resident> {
  static constexpr bool pup_on_migration = true;
  resident() = default;
  explicit resident(roam::migrating) {}
  void begin() {
    thread.start(this, [] {
      volatile char frame[4096];  // 4 KiB of stack in use while blocked
      for (auto& c : frame) c = 1;
      roam::suspend_this_thread();
      (void)frame[0];
    });
  }
  void measure() {
    const auto& l = roam::detail::iso::layout();
    const std::uintptr_t base = l.slot_address(thread.slot());
    const std::size_t bytes = resident_bytes(base, base + l.slot_size);
    std::fprintf(stderr, "a blocked migratable thread commits %zu bytes\n", bytes);
    thread.resume();
    roam::exit(bytes <= 16 * 1024 ? 0 : 6);
  }
  void pup(roam::pup_er& p) { p | thread; }
  roam::migratable_thread thread;
};

TEST(migratable_thread, a_blocked_thread_with_a_small_stack_commits_at_most_16_kib) {
  int rc = run_on(1, [](const roam::args&) {
    auto a = roam::create_array<resident>(roam::index<1>{1});
    a[0].send<&resident::begin>();
    a[0].send<&resident::measure>();
  });
  EXPECT_EQ(rc, 0);
}

// A slot whose thread left the process keeps its pages committed (up to
// +isomalloc_keep), so that a thread coming back finds them ready.
struct keeper : roam::element<keeper> {
  static constexpr bool pup_on_migration = true;
  keeper() = default;
  explicit keeper(roam::migrating) {}
  void begin() {
    thread.start(this, [] {
      std::memset(roam::thread_heap_allocate(100000), 1, 100000);
      roam::suspend_this_thread();
    });
  }
  void leave(std::size_t expect_at_least, std::size_t expect_at_most) {
    const std::size_t before = roam::detail::iso::kept_bytes();
    roam::detail::packing_to_move_scope leaving;  // as to another process
    const std::vector<std::byte> packed = roam::pack(thread);
    const std::size_t kept = roam::detail::iso::kept_bytes() - before;
    std::fprintf(stderr, "kept %zu bytes after packing %zu\n", kept, packed.size());
    roam::exit(kept >= expect_at_least && kept <= expect_at_most ? 0 : 7);
  }
  void pup(roam::pup_er& p) { p | thread; }
  roam::migratable_thread thread;
};

TEST(migratable_thread, a_slot_that_left_keeps_its_pages_up_to_isomalloc_keep) {
  auto run = [](std::size_t lo, std::size_t hi, std::vector<std::string> extra) {
    return run_on(
        1,
        [lo, hi](const roam::args&) {
          auto a = roam::create_array<keeper>(roam::index<1>{1});
          a[0].send<&keeper::begin>();
          a[0].send<&keeper::leave>(lo, hi);
        },
        extra);
  };
  EXPECT_EQ(run(100000, std::size_t{1} << 20, {}), 0);
  EXPECT_EQ(run(0, 0, {"+isomalloc_keep", "0"}), 0);
  EXPECT_EQ(run(0, 0, {"+isomalloc_keep", "64K"}), 0);  // more than that: all dropped
}

// ---- thread_private ------------------------------------------------------------

roam::thread_private<long> g_private_count{100};
struct pair_of_longs {
  long a, b;
};
roam::thread_private<pair_of_longs> g_private_pair;

// Each element's thread counts in its own copy of the "globals" while it
// hops; the copies never mix and survive packing.
struct counter_walker : roam::element<counter_walker> {
  static constexpr bool pup_on_migration = true;
  counter_walker() = default;
  explicit counter_walker(roam::migrating) {}
  void begin(roam::chare_proxy<report> r) {
    report_ = r;
    thread.start(this, [] {
      const int me = roam::this_thread_owner<counter_walker>().this_index()[0];
      long* mine = &g_private_count.get();  // its address is the thread's, wherever it goes
      for (int i = 0; i < 6; ++i) {
        *g_private_count += me + 1;
        g_private_pair->a += 1;
        g_private_pair->b += me;
        auto& w = roam::this_thread_owner<counter_walker>();
        w.this_proxy().send<&counter_walker::go>((roam::my_pe().value() + 1) % roam::num_pes());
        roam::suspend_this_thread();
      }
      const bool ok = *g_private_count == 100 + 6 * (me + 1) && mine == &g_private_count.get() &&
                      g_private_pair->a == 6 && g_private_pair->b == 6L * me;
      auto& w = roam::this_thread_owner<counter_walker>();
      w.report_.send<&report::done>(me, ok ? 1L : 0L, 1L, 1, true, std::vector<int>{0});
    });
  }
  void go(unsigned pe) {
    if (pe == roam::my_pe().value()) thread.resume();
    else migrate_to(roam::pe_id{pe});
  }
  void after_migration() { thread.resume(); }
  void pup(roam::pup_er& p) { p | report_ | thread; }
  roam::migratable_thread thread;
  roam::chare_proxy<report> report_;
};

TEST(migratable_thread, thread_private_variables_are_per_thread_and_move_with_it) {
  for (std::vector<std::string> extra : {std::vector<std::string>{}, std::vector<std::string>{"+serialize"}}) {
    int rc = run_on(
        3,
        [](const roam::args&) {
          auto r = roam::create_chare<report>(5);
          roam::create_array<counter_walker>(roam::index<1>{5}).send<&counter_walker::begin>(r);
        },
        extra);
    EXPECT_EQ(rc, 0);
  }
}

struct private_outside : roam::chare<private_outside> {
  private_outside() {
    bool threw = false;
    try {
      (void)g_private_count.get();
    } catch (const std::logic_error&) {
      threw = true;
    }
    roam::exit(threw ? 0 : 8);
  }
};

TEST(migratable_thread, thread_private_outside_a_migratable_thread_is_an_error) {
  EXPECT_EQ(run_on(1, [](const roam::args&) { roam::create_chare<private_outside>(); }), 0);
}

// ---- the fault handler ------------------------------------------------------------

volatile long* g_stale = nullptr;

struct leaver : roam::element<leaver> {
  static constexpr bool pup_on_migration = true;
  leaver() = default;
  explicit leaver(roam::migrating) {}
  void begin() {
    thread.start(this, [] {
      auto* p = static_cast<long*>(roam::thread_heap_allocate(sizeof(long)));
      *p = 42;
      g_stale = p;
      roam::suspend_this_thread();
    });
  }
  // Packs the thread as a migration would, then uses a pointer into it here.
  void leave_and_touch() {
    roam::detail::packing_to_move_scope leaving;
    const std::vector<std::byte> packed = roam::pack(thread);
    std::fprintf(stderr, "packed %zu bytes\n", packed.size());
    *g_stale = 7;
  }
  void pup(roam::pup_er& p) { p | thread; }
  roam::migratable_thread thread;
};

TEST(migratable_thread_death, a_pointer_into_a_thread_that_moved_away_faults_naming_slot_and_thread) {
  GTEST_FLAG_SET(death_test_style, "threadsafe");
  EXPECT_DEATH(
      {
        run_on(1, [](const roam::args&) {
          auto a = roam::create_array<leaver>(roam::index<1>{1});
          a[0].send<&leaver::begin>();
          a[0].send<&leaver::leave_and_touch>();
        });
      },
      R"(roam: pe 0: access to 0x[0-9a-f]+ in isomalloc slot [0-9]+ \[0x[0-9a-f]+, 0x[0-9a-f]+\), which is not open here: migratable thread of mthread::leaver \(last on pe 0\), which moved away)");
}

}  // namespace mthread
