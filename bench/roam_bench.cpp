// roam-bench: microbenchmarks of the core runtime.
//   roam-bench NAME [--json] [--reps R] [+p N ...runtime options]
// NAME: pingpong | empty | create | fib | coll | migrate | thread | flow | idle | lb | checkpoint | aggregation | pdes | all | noop (start and stop only)
// Under roamrun or mpirun with one PE per process, "cross" cases cross processes.
#include <algorithm>
#include <atomic>
#include <charconv>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <stdexcept>
#include <string>
#include <vector>

#include <roam/roam.hpp>
#include <roam/sched/observe.hpp>

#include "common.hpp"

using namespace roam_bench;

namespace {

std::uint32_t all_on_pe0(const roam::index<1>&, const roam::index<1>&, std::uint32_t) { return 0; }

// ---- ping-pong --------------------------------------------------------------

// What the ball is: a scalar, a std::vector copied into each message (a
// marshalled entry), a roam::bytes passed on as received (zero copy: the same
// memory goes back and forth), or each side's own roam::bytes sent again and
// again, unchanged (plain MPI ping-pong's exact pattern: a clean, reused send
// buffer; the received one is dropped).
enum class ball_kind : int { scalar, vector, buffer, buffer_resend };

struct pinger : roam::element<pinger> {
  explicit pinger(std::size_t bytes) : buffer_(bytes, 'x'), bytes_(bytes, std::byte{'x'}) {}

  // Element 0 starts; each round trip is two messages.
  void start(std::uint64_t round_trips, int kind, roam::promise<double> done) {
    remaining_ = round_trips;
    total_ = round_trips;
    done_ = done;
    t0_ = bench_clock::now();
    switch (static_cast<ball_kind>(kind)) {
      case ball_kind::scalar: partner().send<&pinger::ball8>(std::uint64_t{42}); break;
      case ball_kind::vector: partner().send<&pinger::ball>(buffer_); break;
      case ball_kind::buffer: partner().send<&pinger::ball_buffer>(bytes_); break;
      case ball_kind::buffer_resend: partner().send<&pinger::ball_resend>(bytes_); break;
    }
  }
  // Copying the received data into each new message matches a marshalled
  // Charm++ entry (`recv(int n, char data[n])` sending `data` on): one copy
  // per hop, and only the arriving and the leaving message in use.
  void ball(const std::vector<char>& data) {
    if (this_index()[0] == 0 && --remaining_ == 0) return finish();
    partner().send<&pinger::ball>(data);
  }
  void ball_buffer(roam::bytes data) {
    if (this_index()[0] == 0 && --remaining_ == 0) return finish();
    partner().send<&pinger::ball_buffer>(std::move(data));
  }
  void ball_resend(roam::bytes) {
    if (this_index()[0] == 0 && --remaining_ == 0) return finish();
    partner().send<&pinger::ball_resend>(bytes_);
  }
  void ball8(std::uint64_t x) {
    if (this_index()[0] == 0 && --remaining_ == 0) return finish();
    partner().send<&pinger::ball8>(x + 1);
  }

 private:
  roam::element_proxy<pinger> partner() const { return this_array()[1 - this_index()[0]]; }
  void finish() { done_.set_value(seconds_since(t0_) * 1e6 / static_cast<double>(total_) / 2.0); }

  std::vector<char> buffer_;
  roam::bytes bytes_;
  std::uint64_t remaining_ = 0, total_ = 0;
  roam::promise<double> done_;
  bench_clock::time_point t0_;
};

roam::task<> bench_pingpong() {
  std::uint32_t pes = roam::num_pes();
  struct variant {
    const char* where;
    bool cross;
  };
  // With several processes, element 1 sits on PE 1 = the first PE of node 1
  // when +ppn is 1: then "cross" crosses the transport.
  bool other_node = roam::num_nodes() > 1 && pes / roam::num_nodes() == 1;
  std::vector<variant> where = {{"same_pe", false}};
  if (pes > 1) where.push_back({other_node ? "cross_node" : "cross_pe", true});
  for (auto [label, cross] : where) {
    auto map = cross ? roam::custom_map<&spread>() : roam::custom_map<&all_on_pe0>();
    std::vector<std::size_t> sizes = {0, 8, 64, 1024, 4096, 65536, 1 << 20};
    bool remote = cross && other_node;
    if (remote) sizes.push_back(4 << 20);
    // The scalar and vector cases first, then roam::bytes of the larger sizes
    // (the vector cases keep their names, so history stays comparable).
    std::vector<std::pair<std::size_t, ball_kind>> runs;
    for (std::size_t bytes : sizes) runs.push_back({bytes, bytes == 0 ? ball_kind::scalar : ball_kind::vector});
    for (auto kind : {ball_kind::buffer, ball_kind::buffer_resend})
      for (std::size_t bytes : sizes)
        if (bytes >= 4096) runs.push_back({bytes, kind});
    for (auto [bytes, kind] : runs) {
      std::size_t payload = kind == ball_kind::scalar ? 8 : bytes;
      const char* what = kind == ball_kind::scalar   ? "_scalar"
                         : kind == ball_kind::vector ? "_vector"
                         : kind == ball_kind::buffer ? "_buffer"
                                                     : "_buffer_resend";
      std::string case_name = std::string(label) + what + "_" + std::to_string(payload);
      if (!wanted(case_name)) continue;
      auto arr = roam::create_array<pinger>(roam::array_options<1>({2}, map), payload);
      std::uint64_t trips = payload <= 1024 ? 200000 : payload <= 65536 ? 20000 : 500;
      if (remote) trips = payload <= 1024 ? 20000 : payload <= 65536 ? 2000 : 50;
      result r{"pingpong", std::string(label) + what, pes, static_cast<std::int64_t>(payload), "one_way_us", {}};
      for (int rep = 0; rep <= g_config.reps; ++rep) {
        auto [f, p] = roam::make_future<double>();
        arr[0].send<&pinger::start>(trips, static_cast<int>(kind), p);
        double us = co_await f;
        if (rep > 0) r.samples.push_back(us);  // rep 0 warms up
      }
      print(r, g_config.json);
      if (payload >= 65536) {  // the same runs as bandwidth
        result bw{"pingpong", r.case_name, pes, r.bytes, "MB_per_s", {}};
        for (double us : r.samples) bw.samples.push_back(static_cast<double>(payload) / us);
        print(bw, g_config.json);
      }
    }
  }
}

// ---- empty entry methods ----------------------------------------------------

struct sink : roam::element<sink> {
  // One message in flight: each empty entry sends the next.
  void chain_start(std::uint64_t n, roam::promise<double> done) {
    left_ = n;
    total_ = n;
    done_ = done;
    t0_ = bench_clock::now();
    this_proxy().send<&sink::chain>();
  }
  void chain() {
    if (--left_ == 0) return done_.set_value(static_cast<double>(total_) / seconds_since(t0_));
    this_proxy().send<&sink::chain>();
  }

  // A burst: n empty messages sent at once to `target`, which counts them.
  void burst_start(std::uint64_t n, std::int32_t target, roam::promise<double> done) {
    t0_ = bench_clock::now();
    auto to = this_array()[target];
    to.send<&sink::expect>(n, done, t0_.time_since_epoch().count());
    for (std::uint64_t i = 0; i < n; ++i) to.send<&sink::empty>();
  }
  void expect(std::uint64_t n, roam::promise<double> done, bench_clock::rep t0) {
    expected_ = n;
    done_ = done;
    t0_ = bench_clock::time_point(bench_clock::duration(t0));
    received_ = 0;
  }
  void empty() {
    if (++received_ == expected_) done_.set_value(static_cast<double>(expected_) / seconds_since(t0_));
  }

 private:
  std::uint64_t left_ = 0, total_ = 0, expected_ = 0, received_ = 0;
  roam::promise<double> done_;
  bench_clock::time_point t0_;
};

roam::task<> bench_empty() {
  std::uint32_t pes = roam::num_pes();
  auto arr = roam::create_array<sink>(roam::array_options<1>({static_cast<int>(pes)}, roam::custom_map<&spread>()));
  if (wanted("same_pe_chain")) {
    result r{"empty", "same_pe_chain", pes, -1, "msgs_per_s_per_pe", {}};
    for (int rep = 0; rep <= g_config.reps; ++rep) {
      auto [f, p] = roam::make_future<double>();
      arr[0].send<&sink::chain_start>(std::uint64_t{2'000'000}, p);
      double rate = co_await f;
      if (rep > 0) r.samples.push_back(rate);
    }
    print(r, g_config.json);
  }
  if (wanted("same_pe_chain_observed")) {
    // The same chain with one runtime observer that only counts: what
    // subscribing costs each entry (roam/sched/observe.hpp).
    struct counting_observer : roam::runtime_observer {
      std::atomic<std::uint64_t> begins{0};
      void entry_begin(const roam::entry_event&) noexcept override { begins.fetch_add(1, std::memory_order_relaxed); }
    };
    static counting_observer observer;  // static: a PE may still be calling it just after it is removed
    roam::add_observer(observer);
    result r{"empty", "same_pe_chain_observed", pes, -1, "msgs_per_s_per_pe", {}};
    for (int rep = 0; rep <= g_config.reps; ++rep) {
      auto [f, p] = roam::make_future<double>();
      arr[0].send<&sink::chain_start>(std::uint64_t{2'000'000}, p);
      double rate = co_await f;
      if (rep > 0) r.samples.push_back(rate);
    }
    roam::remove_observer(observer);
    print(r, g_config.json);
  }
  if (wanted("same_pe_burst")) {
    result r{"empty", "same_pe_burst", pes, -1, "msgs_per_s_per_pe", {}};
    for (int rep = 0; rep <= g_config.reps; ++rep) {
      auto [f, p] = roam::make_future<double>();
      arr[0].send<&sink::burst_start>(std::uint64_t{1'000'000}, std::int32_t{0}, p);
      double rate = co_await f;
      if (rep > 0) r.samples.push_back(rate);
    }
    print(r, g_config.json);
  }
  if (pes > 1 && wanted("cross_pe_stream")) {
    // Every PE streams to the next one at the same time; the rate is per PE.
    result r{"empty", "cross_pe_stream", pes, -1, "msgs_per_s_per_pe", {}};
    for (int rep = 0; rep <= g_config.reps; ++rep) {
      std::vector<roam::future<double>> fs;
      for (std::uint32_t pe = 0; pe < pes; ++pe) {
        auto [f, p] = roam::make_future<double>();
        fs.push_back(f);
        std::uint64_t n = roam::num_nodes() > 1 ? 200'000 : 1'000'000;
        arr[static_cast<int>(pe)].send<&sink::burst_start>(n, static_cast<std::int32_t>((pe + 1) % pes), p);
      }
      double sum = 0;
      for (auto& f : fs) sum += co_await f;
      if (rep > 0) r.samples.push_back(sum / pes);
    }
    print(r, g_config.json);
  }
}

// ---- chare creation ---------------------------------------------------------

struct tally : roam::chare<tally> {
  void expect(std::uint64_t n, roam::promise<double> done) {
    expected_ = n;
    seen_ = 0;
    done_ = done;
    t0_ = bench_clock::now();
  }
  void born() {
    if (++seen_ == expected_) done_.set_value(static_cast<double>(expected_) / seconds_since(t0_));
  }
  std::uint64_t expected_ = 0, seen_ = 0;
  roam::promise<double> done_;
  bench_clock::time_point t0_;
};

struct newborn : roam::chare<newborn> {
  explicit newborn(roam::chare_proxy<tally> t) { t.send<&tally::born>(); }
};

roam::task<> bench_create() {
  auto t = roam::create_chare_on<tally>(roam::pe_id{0});
  result r{"create", "chare_create", roam::num_pes(), -1, "chares_per_s", {}};
  const std::uint64_t n = 200'000;
  for (int rep = 0; rep <= g_config.reps; ++rep) {
    auto [f, p] = roam::make_future<double>();
    t.send<&tally::expect>(n, p);
    for (std::uint64_t i = 0; i < n; ++i) (void)roam::create_chare<newborn>(t);
    double rate = co_await f;
    if (rep > 0) r.samples.push_back(rate);
  }
  print(r, g_config.json);
}

// ---- fib with futures ---------------------------------------------------------

struct fib : roam::chare<fib> {
  roam::task<long> compute(int n) {
    if (n < 2) co_return n;
    auto a = roam::create_chare<fib>();
    auto b = roam::create_chare<fib>();
    auto fa = a.call<&fib::compute>(n - 1);
    auto fb = b.call<&fib::compute>(n - 2);
    long x = co_await fa;
    long y = co_await fb;
    a.destroy();
    b.destroy();
    co_return x + y;
  }
};

roam::task<> bench_fib() {
  const int n = 25;
  result r{"fib", "fib25_futures", roam::num_pes(), -1, "ms", {}};
  for (int rep = 0; rep <= g_config.reps; ++rep) {
    auto root = roam::create_chare<fib>();
    auto t0 = bench_clock::now();
    long v = co_await root.call<&fib::compute>(n);
    double ms = seconds_since(t0) * 1e3;
    root.destroy();
    if (v != 75025) {
      std::fprintf(stderr, "fib(25) = %ld, expected 75025\n", v);
      roam::exit(1);
      co_return;
    }
    if (rep > 0) r.samples.push_back(ms);
  }
  print(r, g_config.json);
}


// ---- collectives ----------------------------------------------------------------

// Each element contributes once per round; the result is broadcast back, which
// starts the next round: one broadcast plus one reduction per round.
struct looper : roam::element<looper> {
  explicit looper(roam::chare_proxy<struct loop_driver> d) : driver_(d) {}
  void round(double value);
  roam::chare_proxy<struct loop_driver> driver_;
};

struct loop_driver : roam::chare<loop_driver> {
  void start(roam::array_proxy<looper> a, int rounds, roam::promise<double> done) {
    left_ = rounds;
    total_ = rounds;
    done_ = done;
    array_ = a;
    t0_ = bench_clock::now();
    a.send<&looper::round>(0.0);
  }
  void result(double sum) {
    (void)sum;
    if (--left_ == 0) return done_.set_value(seconds_since(t0_) * 1e6 / total_);
    array_.send<&looper::round>(sum);
  }
  int left_ = 0, total_ = 0;
  roam::promise<double> done_;
  roam::array_proxy<looper> array_;
  bench_clock::time_point t0_;
};

void looper::round(double) { contribute(1.0, roam::sum, roam::callback<double>::to<&loop_driver::result>(driver_)); }

// A group member per PE: the reduction alone, restarted by a broadcast.
struct group_looper : roam::group_member<group_looper> {
  void round(int left, roam::promise<double> done, bench_clock::rep t0) {
    left_ = left;
    done_ = done;
    t0_ = t0;
    contribute(1.0, roam::sum, roam::callback<double>::broadcast<&group_looper::next>(this_group()));
  }
  void next(double) {
    if (--left_ == 0) {
      if (roam::my_pe().value() == 0)
        done_.set_value(std::chrono::duration<double>(bench_clock::now() - bench_clock::time_point(bench_clock::duration(t0_))).count() * 1e6 / total_);
      return;
    }
    contribute(1.0, roam::sum, roam::callback<double>::broadcast<&group_looper::next>(this_group()));
  }
  int left_ = 0;
  int total_ = 0;
  roam::promise<double> done_;
  bench_clock::rep t0_ = 0;
};

// Many reductions outstanding: every element contributes `count` times at once.
struct flooder : roam::element<flooder> {
  void flood(int count, roam::callback<double> cb) {
    for (int i = 0; i < count; ++i) contribute(1.0, roam::sum, cb);
  }
};
struct flood_counter : roam::chare<flood_counter> {
  void expect(int n, roam::promise<double> done) {
    left_ = n;
    total_ = n;
    done_ = done;
    t0_ = bench_clock::now();
  }
  void result(double) {
    if (--left_ == 0) done_.set_value(seconds_since(t0_) * 1e6 / total_);
  }
  int left_ = 0, total_ = 0;
  roam::promise<double> done_;
  bench_clock::time_point t0_;
};

// Broadcasts only, pipelined: `count` broadcasts, then one reduction says all arrived.
struct listener : roam::element<listener> {
  explicit listener(roam::chare_proxy<flood_counter> c) : counter_(c) {}
  void news(int expected) {
    if (++seen_ == expected) {
      seen_ = 0;
      contribute(1.0, roam::sum, roam::callback<double>::to<&flood_counter::result>(counter_));
    }
  }
  roam::chare_proxy<flood_counter> counter_;
  int seen_ = 0;
};

// Quiescence latency: a chain of messages ends; how long until detection fires.
struct chain_link : roam::chare<chain_link> {
  void pass(int left, roam::chare_proxy<chain_link> other) {
    if (left == 0) {
      last_ = bench_clock::now().time_since_epoch().count();
      return;
    }
    other.send<&chain_link::pass>(left - 1, this_proxy());
  }
  static inline std::atomic<bench_clock::rep> last_{0};
};

// Section multicast + section reduction round trips.
struct sec_member : roam::element<sec_member> {
  void round(roam::section_proxy<sec_member> s, roam::chare_proxy<struct sec_driver> d);
};
struct sec_driver : roam::chare<sec_driver> {
  void start(roam::section_proxy<sec_member> s, int rounds, roam::promise<double> done) {
    section_ = s;
    left_ = rounds;
    total_ = rounds;
    done_ = done;
    t0_ = bench_clock::now();
    s.send<&sec_member::round>(s, this_proxy());
  }
  void result(double) {
    if (--left_ == 0) return done_.set_value(seconds_since(t0_) * 1e6 / total_);
    section_.send<&sec_member::round>(section_, this_proxy());
  }
  roam::section_proxy<sec_member> section_;
  int left_ = 0, total_ = 0;
  roam::promise<double> done_;
  bench_clock::time_point t0_;
};
void sec_member::round(roam::section_proxy<sec_member> s, roam::chare_proxy<sec_driver> d) {
  contribute(s, 1.0, roam::sum, roam::callback<double>::to<&sec_driver::result>(d));
}

roam::promise<double> g_qd_promise;
void qd_fired() {
  auto now = bench_clock::now().time_since_epoch().count();
  g_qd_promise.set_value(static_cast<double>(now - chain_link::last_.load()) / 1e3);
}

roam::task<> bench_coll() {
  std::uint32_t pes = roam::num_pes();
  const int reps = g_config.reps;
  auto run_rounds = [&](int per_pe, int rounds) -> roam::task<double> {
    auto driver = roam::create_chare_on<loop_driver>(roam::pe_id{0});
    auto a = roam::create_array<looper>({per_pe * static_cast<int>(pes)}, driver);
    std::vector<double> samples;
    for (int rep = 0; rep <= reps; ++rep) {
      auto [f, p] = roam::make_future<double>();
      driver.send<&loop_driver::start>(a, rounds, p);
      double us = co_await f;
      if (rep > 0) samples.push_back(us);
    }
    co_return median(samples);
  };
  if (wanted("redn_group")) {
    result r{"coll", "redn_group_1_per_pe", pes, -1, "us_per_op", {}};
    auto g = roam::create_group<group_looper>();
    for (int rep = 0; rep <= reps; ++rep) {
      const int rounds = 20000;
      auto [f, p] = roam::make_future<double>();
      g.local()->total_ = rounds;  // PE 0's member reports the time
      auto t0 = bench_clock::now().time_since_epoch().count();
      g.send<&group_looper::round>(rounds, p, t0);
      double us = co_await f;
      if (rep > 0) r.samples.push_back(us);
    }
    print(r, g_config.json);
  }
  for (int per_pe : {1, 8, 1024}) {
    std::string name = "bcast_redn_" + std::to_string(per_pe) + "_per_pe";
    if (!wanted(name)) continue;
    result r{"coll", name, pes, -1, "us_per_op", {}};
    int rounds = per_pe >= 1024 ? 300 : 20000;
    for (int i = 0; i < 3; ++i) r.samples.push_back(co_await run_rounds(per_pe, rounds));
    print(r, g_config.json);
  }
  for (int per_pe : {1, 1024}) {
    std::string name = "bcast_only_" + std::to_string(per_pe) + "_per_pe";
    if (!wanted(name)) continue;
    result r{"coll", name, pes, -1, "us_per_op", {}};
    auto c = roam::create_chare_on<flood_counter>(roam::pe_id{0});
    auto a = roam::create_array<listener>({per_pe * static_cast<int>(pes)}, c);
    for (int rep = 0; rep <= reps; ++rep) {
      const int count = per_pe == 1 ? 20000 : 500;
      auto [f, p] = roam::make_future<double>();
      c.send<&flood_counter::expect>(1, p);
      for (int i = 0; i < count; ++i) a.send<&listener::news>(count);
      double us = co_await f;
      if (rep > 0) r.samples.push_back(us / count);
    }
    print(r, g_config.json);
  }
  if (wanted("outstanding_5000")) {
    result r{"coll", "redn_5000_outstanding_8_per_pe", pes, -1, "us_per_op", {}};
    auto c = roam::create_chare_on<flood_counter>(roam::pe_id{0});
    auto a = roam::create_array<flooder>({8 * static_cast<int>(pes)});
    for (int rep = 0; rep <= reps; ++rep) {
      const int count = 5000;
      auto [f, p] = roam::make_future<double>();
      c.send<&flood_counter::expect>(count, p);
      a.send<&flooder::flood>(count, roam::callback<double>::to<&flood_counter::result>(c));
      double us = co_await f;
      if (rep > 0) r.samples.push_back(us);
    }
    print(r, g_config.json);
  }
  if (wanted("section_multicast_redn")) {
    // Half of an array of 8 elements per PE (the even indices).
    result r{"coll", "section_multicast_redn_4_per_pe", pes, -1, "us_per_op", {}};
    auto d = roam::create_chare_on<sec_driver>(roam::pe_id{0});
    auto a = roam::create_array<sec_member>({8 * static_cast<int>(pes)});
    auto sec = roam::section_proxy<sec_member>::where(a, [](const roam::index<1>& i) { return i[0] % 2 == 0; });
    for (int rep = 0; rep <= reps; ++rep) {
      auto [f, p] = roam::make_future<double>();
      d.send<&sec_driver::start>(sec, 20000, p);
      double us = co_await f;
      if (rep > 0) r.samples.push_back(us);
    }
    print(r, g_config.json);
  }
  if (wanted("quiescence")) {
    result r{"coll", "quiescence_after_last_message", pes, -1, "us", {}};
    auto x = roam::create_chare_on<chain_link>(roam::pe_id{0});
    auto y = roam::create_chare_on<chain_link>(roam::pe_id{pes - 1});
    for (int rep = 0; rep <= reps; ++rep) {
      auto [f, p] = roam::make_future<double>();
      g_qd_promise = p;
      // Detection retries every 10 us while work moves: with a fixed chain
      // the last message always fell at the same phase of that timer, and
      // the figure flipped between ~0.2 and ~6 us from one build to the
      // next. Chains of varying length sample the phases.
      x.send<&chain_link::pass>(1000 + 37 * rep, y);
      roam::on_quiescence(roam::callback<>::function<&qd_fired>(roam::pe_id{0}));
      double us = co_await f;
      if (rep > 0) r.samples.push_back(us);
    }
    print(r, g_config.json);
  }
}

roam::task<> bench_main() {
  print_header(g_config.json);
  const std::string& n = g_config.name;
  if (n == "pingpong" || n == "all") co_await bench_pingpong();
  if (n == "empty" || n == "all") co_await bench_empty();
  if (n == "create" || n == "all") co_await bench_create();
  if (n == "fib" || n == "all") co_await bench_fib();
  if (n == "coll" || n == "all") co_await bench_coll();
  if (n == "migrate" || n == "all") co_await bench_migrate();
  if (n == "thread" || n == "all") co_await bench_thread();
  if (n == "flow" || n == "all") co_await bench_flow();
  if (n == "idle" || n == "all") co_await bench_idle();
  if (n == "lb") co_await bench_lb();
  if (n == "checkpoint") co_await bench_checkpoint();
  if (n == "aggregation" || n == "all") co_await bench_aggregation();
  if (n == "pdes" || n == "all") co_await bench_pdes();
  roam::exit(0);
}

// ---- the command line --------------------------------------------------------

// In the usage's order: pingpong first, the pseudo-benches last.
constexpr const char* bench_names[] = {"pingpong", "empty", "create", "fib",         "coll", "migrate", "thread", "flow",
                                       "idle",     "lb",    "checkpoint", "aggregation", "pdes", "all",  "noop"};

// Its first line's "[name|name|...]" is what scripts/bench_compare/runner.py
// reads (from the usage printed for an unknown argument) to learn the benches.
std::string usage_text() {
  std::string names;
  for (const char* name : bench_names) names += (names.empty() ? "" : "|") + std::string(name);
  return "usage: roam-bench [" + names +
         "] [--json] [--reps R] [--case SUBSTRING] [--dir DIR] [+p N and other runtime options]\n"
         "  NAME              the benchmark (default all; lb and checkpoint are not part of all;\n"
         "                    noop: start and stop only)\n"
         "  --json            one JSON object per result instead of a table\n"
         "  --reps R          repetitions of each case (default 5)\n"
         "  --case SUBSTRING  only the cases whose name contains SUBSTRING\n"
         "  --dir DIR         where checkpoint writes (default: a temporary directory)\n"
         "  -h, --help        this text\n"
         "Runtime options start with '+' and may go anywhere; `roam-bench +help` lists them.\n"
         "Example: roam-bench pingpong --reps 3 +p2\n";
}

struct usage_error : std::invalid_argument {
  using std::invalid_argument::invalid_argument;
};

bool is_bench_name(const std::string& s) {
  return std::find(std::begin(bench_names), std::end(bench_names), s) != std::end(bench_names);
}

int whole_number(const std::string& option, const std::string& text) {
  int value = 0;
  const char* end = text.data() + text.size();
  const auto [stop, ec] = std::from_chars(text.data(), end, value);
  if (text.empty() || ec != std::errc{} || stop != end || value < 1)
    throw usage_error(option + " needs a whole number of at least 1, not '" + text + "'");
  return value;
}

/// Reads the command line into g_config; throws usage_error saying what is wrong.
void read_config(const roam::args& a) {
  for (std::size_t i = 1; i < a.size(); ++i) {
    const std::string& arg = a[i];
    auto value = [&]() -> const std::string& {
      if (i + 1 >= a.size()) throw usage_error(arg + " needs a value");
      return a[++i];
    };
    if (arg == "--json") g_config.json = true;
    else if (arg == "--reps") g_config.reps = whole_number(arg, value());
    else if (arg == "--case") g_config.only = value();
    else if (arg == "--dir") g_config.dir = value();
    else if (is_bench_name(arg)) g_config.name = arg;
    else if (arg.starts_with("-")) throw usage_error("unknown option " + arg);
    else throw usage_error("no benchmark named '" + arg + "'");
  }
}

bool asks_for_help(const roam::args& a) {
  return std::any_of(a.begin() + 1, a.end(), [](const std::string& arg) { return arg == "-h" || arg == "--help"; });
}

}  // namespace

int main(int argc, char** argv) {
  return roam::run(argc, argv, [](const roam::args& a) -> roam::task<> {
    if (asks_for_help(a)) {
      std::fputs(usage_text().c_str(), stdout);
      std::fflush(stdout);
      roam::exit(0);
      co_return;
    }
    try {
      read_config(a);
    } catch (const usage_error& e) {
      std::fprintf(stderr, "roam-bench: %s\n%s", e.what(), usage_text().c_str());
      roam::exit(2);
      co_return;
    }
    if (g_config.name == "noop") {  // start-up and shutdown only (bench/startup.sh)
      roam::exit(0);
      co_return;
    }
    co_await bench_main();
  });
}
