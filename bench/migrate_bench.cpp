// roam-bench migrate: what moving an element costs.
//  - migrate_<where>[_packed]_<bytes>: one element with `bytes` of state hops
//    between PE 0 and PE 1, each arrival starting the next hop
//    (after_migration calls migrate_to); time per hop. <where> is cross_pe in
//    one process, cross_node when PE 1 is in another process (+ppn 1). Within
//    a process an element moves as itself; _packed is a type that asks for
//    pup on every move (pup_on_migration), which is what Charm++ always does.
//  - migrate_<where>_blocked_thread_<bytes>: the same hops by an element
//    holding a migratable thread blocked with `bytes` of stack and heap in
//    use (16 KiB, 1 MiB), packed and rebuilt at the same addresses each hop.
//  - after_migration_first / _cached (3 PEs or more): the element moves
//    between PEs 1 and 2; PE 0's first message after each move goes to the old
//    PE and is forwarded, the ones after it go straight (the cache was
//    corrected). One-way latency, half of a call's round trip.
//  - insert_at_home / insert_on_own_pe: elements inserted into a sparse array
//    until quiescence, per second.
#include <cstdio>
#include <cstring>
#include <string>
#include <vector>

#include "common.hpp"

namespace roam_bench {
namespace {

std::uint32_t on_pe1(const roam::index<1>&, const roam::index<1>&, std::uint32_t) { return 1; }

// ---- hop time ---------------------------------------------------------------

template <bool Packed>
struct hopper : roam::element<hopper<Packed>> {
  static constexpr bool pup_on_migration = Packed;
  explicit hopper(std::size_t bytes) : state_(bytes, 'x') {}
  explicit hopper(roam::migrating) {}

  void start(std::uint64_t hops, roam::promise<> done) {
    left_ = hops;
    done_ = done;
    hop();
  }
  void after_migration() {
    if (--left_ == 0) return done_.set_value();
    hop();
  }
  void pup(roam::pup_er& p) { p | state_ | left_ | done_; }

 private:
  void hop() { this->migrate_to(roam::pe_id{roam::my_pe().value() == 0 ? 1u : 0u}); }

  std::vector<char> state_;
  std::uint64_t left_ = 0;
  roam::promise<> done_;
};

template <bool Packed>
roam::task<> bench_hops(const char* where, bool remote) {
  const std::uint32_t pes = roam::num_pes();
  const std::string label = std::string("migrate_") + where + (Packed ? "_packed" : "");
  for (std::size_t bytes : {std::size_t{1}, std::size_t{1024}, std::size_t{4096}, std::size_t{65536}, std::size_t{1} << 20}) {
    if (!wanted(label + "_" + std::to_string(bytes))) continue;
    std::uint64_t hops = bytes <= 4096 ? 20000 : bytes <= 65536 ? 4000 : 400;
    if (remote) hops = bytes <= 4096 ? 4000 : bytes <= 65536 ? 1000 : 100;
    auto arr = roam::create_array<hopper<Packed>>(roam::array_options<1>({1}, roam::custom_map<&on_pe0>()), bytes);
    result r{"migrate", label, pes, static_cast<std::int64_t>(bytes), "us_per_hop", {}};
    for (int rep = 0; rep <= g_config.reps; ++rep) {
      auto [f, p] = roam::make_future<>();
      auto t0 = bench_clock::now();
      arr[0].template send<&hopper<Packed>::start>(hops, p);
      co_await f;
      if (rep > 0) r.samples.push_back(seconds_since(t0) * 1e6 / static_cast<double>(hops));
    }
    print(r, g_config.json);
  }
}

// ---- a blocked migratable thread ---------------------------------------------

// An element holding a migratable thread blocked with about `bytes` of its
// stack and heap in use (a 2 KiB frame, the rest in its heap, all touched);
// the element hops between PE 0 and PE 1, the thread moving with it blocked.
struct thread_hopper : roam::element<thread_hopper> {
  static constexpr bool pup_on_migration = true;
  explicit thread_hopper(std::size_t bytes) : bytes_(bytes) {}
  explicit thread_hopper(roam::migrating) {}

  void start(std::uint64_t hops, roam::promise<> done) {
    left_ = hops;
    done_ = done;
    if (!thread.started()) {
      thread.start(this, [] {
        volatile char frame[2048];
        for (auto& c : frame) c = 1;
        const std::size_t heap = roam::this_thread_owner<thread_hopper>().bytes_ > 4096
                                     ? roam::this_thread_owner<thread_hopper>().bytes_ - 4096
                                     : 0;
        void* block = heap ? roam::thread_heap_allocate(heap) : nullptr;
        if (block) std::memset(block, 7, heap);
        for (;;) roam::suspend_this_thread();  // unwound at the end of the run
      });
    }
    hop();
  }
  void after_migration() {
    if (--left_ == 0) return done_.set_value();
    hop();
  }
  void pup(roam::pup_er& p) { p | bytes_ | left_ | done_ | thread; }

  roam::migratable_thread thread;

 private:
  void hop() { migrate_to(roam::pe_id{roam::my_pe().value() == 0 ? 1u : 0u}); }

  std::size_t bytes_ = 0;
  std::uint64_t left_ = 0;
  roam::promise<> done_;
};

roam::task<> bench_thread_hops(const char* where, bool remote) {
  const std::uint32_t pes = roam::num_pes();
  const std::string label = std::string("migrate_") + where + "_blocked_thread";
  for (std::size_t bytes : {std::size_t{16} << 10, std::size_t{1} << 20}) {
    if (!wanted(label + "_" + std::to_string(bytes))) continue;
    std::uint64_t hops = bytes <= 65536 ? (remote ? 2000 : 10000) : (remote ? 100 : 400);
    auto arr = roam::create_array<thread_hopper>(roam::array_options<1>({1}, roam::custom_map<&on_pe0>()), bytes);
    result r{"migrate", label, pes, static_cast<std::int64_t>(bytes), "us_per_hop", {}};
    for (int rep = 0; rep <= g_config.reps; ++rep) {
      auto [f, p] = roam::make_future<>();
      auto t0 = bench_clock::now();
      arr[0].send<&thread_hopper::start>(hops, p);
      co_await f;
      if (rep > 0) r.samples.push_back(seconds_since(t0) * 1e6 / static_cast<double>(hops));
    }
    print(r, g_config.json);
  }
}

// ---- message latency right after a migration ---------------------------------

struct roamer : roam::element<roamer> {
  roamer() = default;
  explicit roamer(roam::migrating) {}

  void move(std::uint32_t pe, roam::promise<> arrived) {
    arrived_ = arrived;
    migrate_to(roam::pe_id{pe});
  }
  void after_migration() { arrived_.set_value(); }
  void ping(roam::promise<> back) { back.set_value(); }
  void pup(roam::pup_er& p) { p | arrived_; }

 private:
  roam::promise<> arrived_;
};

roam::task<double> call_ping(const roam::element_proxy<roamer>& e) {
  auto [f, p] = roam::make_future<>();
  auto t0 = bench_clock::now();
  e.send<&roamer::ping>(p);
  co_await f;
  co_return seconds_since(t0) * 1e6 / 2;
}

roam::task<> bench_after_migration(bool remote) {
  const std::uint32_t pes = roam::num_pes();
  if (pes < 3 || (!wanted("after_migration_first") && !wanted("after_migration_cached"))) co_return;
  // PE 1 is the element's home, so the home is one of the two PEs it visits:
  // a first message either reaches the home (which forwards) or the PE the
  // element just left (which forwards along its departure pointer).
  auto arr = roam::create_array<roamer>(roam::array_options<1>({1}, roam::custom_map<&on_pe1>()));
  auto e = arr[0];
  const int rounds = remote ? 200 : 2000, cached_per_round = 4;
  const char* suffix = remote ? "_cross_node" : "_cross_pe";
  result first{"migrate", std::string("after_migration_first") + suffix, pes, -1, "one_way_us", {}};
  result cached{"migrate", std::string("after_migration_cached") + suffix, pes, -1, "one_way_us", {}};
  (void)co_await call_ping(e);  // PE 0 learns where the element is
  std::uint32_t at = 1;
  for (int rep = 0; rep <= g_config.reps; ++rep) {
    double first_sum = 0, cached_sum = 0;
    for (int round = 0; round < rounds; ++round) {
      at = at == 1 ? 2 : 1;
      auto [f, p] = roam::make_future<>();
      e.send<&roamer::move>(at, p);
      co_await f;
      first_sum += co_await call_ping(e);
      for (int i = 0; i < cached_per_round; ++i) cached_sum += co_await call_ping(e);
    }
    if (rep == 0) continue;
    first.samples.push_back(first_sum / rounds);
    cached.samples.push_back(cached_sum / (rounds * cached_per_round));
  }
  if (wanted(first.case_name)) print(first, g_config.json);
  if (wanted(cached.case_name)) print(cached, g_config.json);
}

// ---- insertion rate --------------------------------------------------------

struct leaf : roam::element<leaf> {
  explicit leaf(std::uint64_t v) : value_(v) {}
  std::uint64_t value_;
};

struct planter : roam::group_member<planter> {
  void plant(roam::array_proxy<leaf> leaves, std::uint64_t per_pe) {
    const std::uint32_t me = roam::my_pe().value();
    for (std::uint64_t i = 0; i < per_pe; ++i) {
      auto idx = static_cast<std::int32_t>(me * per_pe + i);
      leaves.insert_on(roam::my_pe(), roam::index<1>{idx}, std::uint64_t{i});
    }
    leaves.done_inserting();
  }
};

roam::task<> quiet() {
  auto [f, p] = roam::make_future<>();
  roam::on_quiescence(roam::callback<>::to_future(p));
  co_await f;
}

roam::task<> bench_insert(bool remote) {
  const std::uint32_t pes = roam::num_pes();
  const std::uint64_t n = remote ? 20000 : 100000;
  if (wanted("insert_at_home")) {
    result r{"migrate", "insert_at_home_from_pe0", pes, -1, "inserts_per_s", {}};
    for (int rep = 0; rep <= g_config.reps; ++rep) {
      co_await quiet();
      auto leaves = roam::create_sparse_array<leaf>();
      auto t0 = bench_clock::now();
      for (std::uint64_t i = 0; i < n; ++i) leaves.insert(roam::index<1>{static_cast<std::int32_t>(i)}, i);
      leaves.done_inserting();
      co_await quiet();
      if (rep > 0) r.samples.push_back(static_cast<double>(n) / seconds_since(t0));
    }
    print(r, g_config.json);
  }
  if (wanted("insert_on_own_pe")) {
    auto planters = roam::create_group<planter>();
    result r{"migrate", "insert_on_own_pe_every_pe", pes, -1, "inserts_per_s", {}};
    for (int rep = 0; rep <= g_config.reps; ++rep) {
      co_await quiet();
      auto leaves = roam::create_sparse_array<leaf>();
      auto t0 = bench_clock::now();
      planters.send<&planter::plant>(leaves, n / pes);
      co_await quiet();
      if (rep > 0) r.samples.push_back(static_cast<double>(n / pes * pes) / seconds_since(t0));
    }
    print(r, g_config.json);
  }
}

}  // namespace

roam::task<> bench_migrate() {
  const std::uint32_t pes = roam::num_pes();
  // With one PE per process, PE 1 (and PE 2) are in other processes.
  const bool remote = roam::num_nodes() > 1 && pes / roam::num_nodes() == 1;
  if (pes >= 2) {
    co_await bench_hops<false>(remote ? "cross_node" : "cross_pe", remote);
    if (!remote) co_await bench_hops<true>("cross_pe", remote);  // across processes every move packs
    co_await bench_thread_hops(remote ? "cross_node" : "cross_pe", remote);
  }
  co_await bench_after_migration(remote);
  co_await bench_insert(remote);
}

}  // namespace roam_bench
