// Thread heaps (thread_options::isomalloc_heap, the roam::iso_heap library
// this binary links): while such a thread runs, malloc and new serve it from
// its slot; everything else (ordinary threads, the scheduler, roam's own
// calls, a process_heap_scope) keeps the C library's heap; a block goes back
// to where it came from, whoever frees it.
#include <gtest/gtest.h>

#include <malloc.h>

#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <map>
#include <memory>
#include <stdexcept>
#include <string>
#include <vector>

#include <roam/iso/detail/heap_routing.hpp>
#include <roam/iso/thread.hpp>

#include "support/run_roam.hpp"

namespace heaproute {

using roam_test::run_on;

// Failures found on a thread, for the test to report. The text outlives
// the thread: it must be the process's, not the thread's.
std::string g_failures;
void expect(bool ok, const char* what) {
  roam::process_heap_scope process_memory;
  if (!ok) g_failures += std::string(what) + "; ";
}

template <class Self>
struct holder : roam::element<Self> {
  static constexpr bool pup_on_migration = true;
  holder() = default;
  explicit holder(roam::migrating) {}
  void pup(roam::pup_er& p) { p | thread; }
  roam::migratable_thread thread;
  void* handed = nullptr;        // a block the thread allocated, freed here
  std::size_t heap_before = 0;   // the thread's heap use before it handed the block over
  void poke() { thread.resume(); }
};

// ---- where allocations go ------------------------------------------------------

struct router : holder<router> {
  using holder<router>::holder;
  void begin(bool routed) {
    thread.start(
        this,
        [routed] {
          const std::size_t base = roam::thread_heap_in_use();
          void* m = std::malloc(100);
          auto* n = new long(7);
          std::vector<double> v(1000, 1.5);
          std::string s(200, 'x');
          std::map<int, std::string> names{{1, std::string(64, 'a')}, {2, std::string(64, 'b')}};
          expect(roam::thread_heap_owns(m) == routed, "malloc");
          expect(roam::thread_heap_owns(n) == routed, "new");
          expect(roam::thread_heap_owns(v.data()) == routed, "std::vector");
          expect(roam::thread_heap_owns(s.data()) == routed, "std::string");
          expect(roam::thread_heap_owns(names.begin()->second.data()) == routed, "std::map");
          expect((roam::thread_heap_in_use() > base + 8000) == routed, "heap use");
          {
            roam::process_heap_scope outside;
            void* p = std::malloc(100);
            expect(!roam::detail::iso::in_range(p), "process_heap_scope");
            std::free(p);
          }
          void* after = std::malloc(16);
          expect(roam::thread_heap_owns(after) == routed, "routing after the scope");
          std::free(after);
          std::free(m);
          delete n;
          roam::suspend_this_thread();  // a block: routing survives the switch
          std::vector<int> later(100);
          expect(roam::thread_heap_owns(later.data()) == routed, "routing after a block");
        },
        roam::thread_options{.isomalloc_heap = routed});
  }
};

TEST(heap_routing, a_routed_thread_allocates_in_its_slot_and_an_ordinary_one_does_not) {
  for (bool routed : {true, false}) {
    g_failures.clear();
    int rc = run_on(1, [routed](const roam::args&) {
      auto a = roam::create_array<router>(roam::index<1>{1});
      a[0].send<&router::begin>(routed);
      a[0].send<&router::poke>();
      roam::on_quiescence(roam::callback<>::function<&roam_test::exit_zero>(roam::pe_id{0}));
    });
    EXPECT_EQ(rc, 0);
    EXPECT_EQ(g_failures, "") << (routed ? "routed" : "ordinary");
  }
  // The scheduler's own allocations are never routed.
  void* p = std::malloc(10);
  EXPECT_FALSE(roam::detail::iso::in_range(p));
  std::free(p);
}

// ---- the C allocation functions on a routed thread ------------------------------

struct c_calls : holder<c_calls> {
  using holder<c_calls>::holder;
  void begin() {
    thread.start(
        this,
        [] {
          auto* z = static_cast<unsigned char*>(std::calloc(1000, 4));
          bool zero = z != nullptr;
          for (int i = 0; zero && i < 4000; ++i) zero = z[i] == 0;
          expect(zero && roam::thread_heap_owns(z), "calloc");
          std::memset(z, 0xab, 4000);
          std::free(z);
          auto* again = static_cast<unsigned char*>(std::calloc(1000, 4));  // a reused block is zeroed too
          zero = true;
          for (int i = 0; i < 4000; ++i) zero = zero && again[i] == 0;
          expect(zero, "calloc of a reused block");
          std::free(again);

          auto* r = static_cast<char*>(std::malloc(10));
          std::memcpy(r, "0123456789", 10);
          r = static_cast<char*>(std::realloc(r, 100000));
          expect(r && std::memcmp(r, "0123456789", 10) == 0 && roam::thread_heap_owns(r), "realloc grows in place");
          expect(malloc_usable_size(r) >= 100000, "malloc_usable_size");
          expect(std::realloc(r, 0) == nullptr, "realloc to 0 frees");

          void* a = nullptr;
          expect(posix_memalign(&a, 4096, 100) == 0 && reinterpret_cast<std::uintptr_t>(a) % 4096 == 0 &&
                     roam::thread_heap_owns(a),
                 "posix_memalign");
          expect(posix_memalign(&a, 3, 100) == EINVAL, "posix_memalign rejects a bad alignment");
          std::free(a);
          void* b = std::aligned_alloc(64, 640);
          expect(reinterpret_cast<std::uintptr_t>(b) % 64 == 0 && roam::thread_heap_owns(b), "aligned_alloc");
          std::free(b);
          struct alignas(128) wide {
            char c[128];
          };
          auto* w = new wide;
          expect(reinterpret_cast<std::uintptr_t>(w) % 128 == 0 && roam::thread_heap_owns(w), "aligned new");
          delete w;

          // A block from before the routing (the process's) stays the process's.
          void* outside = nullptr;
          {
            roam::process_heap_scope scope;
            outside = std::malloc(32);
          }
          void* grown = std::realloc(outside, 64000);
          outside = grown;
          expect(outside && !roam::detail::iso::in_range(outside), "realloc of a process block");
          std::free(outside);

          // Exceptions are allocated by the C++ runtime with malloc: here, in the slot.
          try {
            throw std::runtime_error(std::string(100, 'e'));
          } catch (const std::runtime_error& e) {
            expect(std::string(e.what()) == std::string(100, 'e'), "exception");
          }
          const std::size_t used = roam::thread_heap_in_use();
          expect(used < 1024, "every block went back");
        },
        roam::thread_options{.isomalloc_heap = true});
  }
};

TEST(heap_routing, calloc_realloc_aligned_and_exceptions_on_a_routed_thread) {
  g_failures.clear();
  int rc = run_on(1, [](const roam::args&) {
    roam::create_array<c_calls>(roam::index<1>{1})[0].send<&c_calls::begin>();
    roam::on_quiescence(roam::callback<>::function<&roam_test::exit_zero>(roam::pe_id{0}));
  });
  EXPECT_EQ(rc, 0);
  EXPECT_EQ(g_failures, "");
}

// ---- blocks that leave the thread -----------------------------------------------

// The thread hands a block to its element, which frees it from a message
// handler while the thread is blocked: the block goes back to the thread's heap.
struct giver : holder<giver> {
  using holder<giver>::holder;
  void begin() {
    thread.start(
        this,
        [] {
          giver& g = roam::this_thread_owner<giver>();
          g.heap_before = roam::thread_heap_in_use();
          g.handed = std::malloc(5000);
          roam::suspend_this_thread();  // the element frees it meanwhile
          expect(roam::thread_heap_in_use() == roam::this_thread_owner<giver>().heap_before, "freed by the element");
          void* reuse = std::malloc(5000);  // the heap is whole: its free list is usable
          expect(roam::thread_heap_owns(reuse), "reuse");
          std::free(reuse);
        },
        roam::thread_options{.isomalloc_heap = true});
  }
  void take() {
    expect(roam::detail::iso::in_range(handed), "the block is the thread's");
    std::free(handed);  // not on the thread: goes back to its slot by address
    handed = nullptr;
    thread.resume();
  }
};

TEST(heap_routing, a_block_freed_by_its_owner_goes_back_to_the_threads_heap) {
  g_failures.clear();
  const std::uint64_t strays = roam::detail::iso::stray_frees();
  int rc = run_on(1, [](const roam::args&) {
    auto a = roam::create_array<giver>(roam::index<1>{1});
    a[0].send<&giver::begin>();
    a[0].send<&giver::take>();
    roam::on_quiescence(roam::callback<>::function<&roam_test::exit_zero>(roam::pe_id{0}));
  });
  EXPECT_EQ(rc, 0);
  EXPECT_EQ(g_failures, "");
  EXPECT_EQ(roam::detail::iso::stray_frees(), strays);
}

// What a routed thread sends, reduces or stores through roam is the
// process's: a vector moved into a message reaches its receiver outside the
// isomalloc range (the message was copied), and the thread's heap is back
// to where it was.
struct sink : roam::chare<sink> {
  void take(std::vector<double> v, std::string s) {
    expect(!roam::detail::iso::in_range(v.data()) && !roam::detail::iso::in_range(s.data()), "received data");
    expect(v.size() == 5000 && v[4999] == 4999.0 && s == std::string(300, 's'), "received values");
    if (++got == 2) roam::exit(0);
  }
  void total(double t) {
    expect(t == 2.0 * 4999.0 * 5000.0 / 2.0, "reduction");
    if (++got == 2) roam::exit(0);
  }
  int got = 0;
};

struct sender : holder<sender> {
  using holder<sender>::holder;
  void begin(roam::chare_proxy<sink> to) {
    to_ = to;
    thread.start(
        this,
        [] {
          sender& s = roam::this_thread_owner<sender>();
          const std::size_t base = roam::thread_heap_in_use();
          std::vector<double> v(5000);
          for (int i = 0; i < 5000; ++i) v[i] = i;
          std::string text(300, 's');
          expect(roam::thread_heap_owns(v.data()), "built on the thread");
          s.to_.send<&sink::take>(std::move(v), std::move(text));
          {
            std::vector<double> w(5000);
            for (int i = 0; i < 5000; ++i) w[i] = i;
            s.contribute(std::move(w), roam::concat,
                         roam::callback<std::vector<std::vector<double>>>::function<&on_concat>(roam::pe_id{0}));
          }  // copied, not moved, into the reduction: freed here
          expect(roam::thread_heap_in_use() == base, "the thread's heap is back to where it was");
        },
        roam::thread_options{.isomalloc_heap = true});
  }
  static void on_concat(std::vector<std::vector<double>> all) {
    double t = 0;
    for (const auto& part : all) {
      for (double x : part) t += x;
      expect(!roam::detail::iso::in_range(part.data()), "reduced data");
    }
    g_sink.send<&sink::total>(t);
  }
  static inline roam::chare_proxy<sink> g_sink;
  roam::chare_proxy<sink> to_;
};

TEST(heap_routing, what_a_routed_thread_sends_or_contributes_is_copied_out_of_its_slot) {
  g_failures.clear();
  int rc = run_on(2, [](const roam::args&) {
    auto k = roam::create_chare<sink>();
    sender::g_sink = k;
    roam::create_array<sender>(roam::index<1>{2}).send<&sender::begin>(k);
  });
  EXPECT_EQ(rc, 0);
  EXPECT_EQ(g_failures, "");
}

}  // namespace heaproute
