// pingpong: two array elements (on different PEs when there are several)
// bounce a std::vector<double> back and forth. Every receiver adds 1 to
// element 0 of the payload, so after N round trips (2N hops) it must hold 2N;
// the other elements must arrive unchanged.
//   pingpong [ROUND_TRIPS=1000] [DOUBLES=1024] [+p N ...runtime options]
#include <chrono>
#include <cstdio>
#include <vector>

#include <roam/roam.hpp>

#include "command_line.hpp"

namespace {

using pp_clock = std::chrono::steady_clock;

// What element 0 hands back to main once the last round trip is done.
struct pingpong_result {
  std::vector<double> payload;
  double seconds = 0;
  std::uint32_t pe0 = 0;  // where each element ran
  std::uint32_t pe1 = 0;
  template <class P>
  void pup(P& p) {
    p | seconds | payload | pe0 | pe1;
  }
};

}  // namespace

struct pinger : roam::element<pinger> {
  pinger() = default;

  // Runs on element 0: starts the first hop towards element 1.
  void start(std::int64_t round_trips, std::vector<double> payload, roam::promise<pingpong_result> done) {
    remaining_ = round_trips;
    done_ = done;
    t0_ = pp_clock::now();
    partner().send<&pinger::ball>(std::move(payload), roam::my_pe().value());
  }

  // One hop: `from_pe` is where the sender ran (element 0 learns element 1's PE).
  void ball(std::vector<double> payload, std::uint32_t from_pe) {
    payload[0] += 1.0;
    if (this_index()[0] == 0 && --remaining_ == 0) {
      pingpong_result r;
      r.seconds = std::chrono::duration<double>(pp_clock::now() - t0_).count();
      r.payload = std::move(payload);
      r.pe0 = roam::my_pe().value();
      r.pe1 = from_pe;
      done_.set_value(std::move(r));
      return;
    }
    partner().send<&pinger::ball>(std::move(payload), roam::my_pe().value());
  }

 private:
  roam::element_proxy<pinger> partner() const { return this_array()[1 - this_index()[0]]; }

  std::int64_t remaining_ = 0;
  roam::promise<pingpong_result> done_;
  pp_clock::time_point t0_;
};

namespace {

constexpr examples::usage_text usage{"pingpong", "[ROUND_TRIPS >= 1] [DOUBLES in 1..16777216]",
                                     "  ROUND_TRIPS   how often the payload goes there and back (default 1000)\n"
                                     "  DOUBLES       the payload's size in doubles (default 1024)\n",
                                     "pingpong 10000 1 +p2"};

struct pingpong_args {
  long long trips = 1000;
  long long doubles = 1024;
};

}  // namespace

int main(int argc, char** argv) {
  return roam::run(argc, argv, [](const roam::args& a) -> roam::task<> {
    const std::optional<pingpong_args> parsed =
        examples::read_command_line(a, usage, 2, {}, [](const examples::command_line& c) {
          return pingpong_args{c.whole(1, "ROUND_TRIPS", 1000LL, 1LL, 1LL << 40),
                               c.whole(2, "DOUBLES", 1024LL, 1LL, 1LL << 24)};
        });
    if (!parsed) co_return;  // the usage is printed and the program ends
    const long long trips = parsed->trips;
    const long long doubles = parsed->doubles;
    std::vector<double> payload(static_cast<std::size_t>(doubles));
    for (std::size_t i = 0; i < payload.size(); ++i) payload[i] = static_cast<double>(i) * 0.5;

    // Round robin puts element 1 on PE 1 whenever there are two PEs or more.
    auto pair = roam::create_array<pinger>(roam::array_options<1>({2}, roam::round_robin_map()));
    auto [f, p] = roam::make_future<pingpong_result>();
    pair[0].send<&pinger::start>(static_cast<std::int64_t>(trips), payload, p);
    pingpong_result r = co_await f;

    // Check: element 0 was incremented once per hop, everything else untouched.
    bool ok = r.payload.size() == payload.size() && r.payload[0] == static_cast<double>(2 * trips);
    for (std::size_t i = 1; ok && i < payload.size(); ++i) ok = r.payload[i] == payload[i];
    bool placed = roam::num_pes() == 1 || r.pe0 != r.pe1;

    const double one_way_us = r.seconds * 1e6 / static_cast<double>(2 * trips);
    std::printf("pingpong: %lld round trips of %lld doubles (%lld bytes) between pe %u and pe %u\n", trips, doubles,
                doubles * static_cast<long long>(sizeof(double)), r.pe0, r.pe1);
    std::printf("pingpong: one-way latency %.3f us, bandwidth %.1f MB/s\n", one_way_us,
                static_cast<double>(doubles) * sizeof(double) / one_way_us);
    if (ok && placed) {
      std::printf("pingpong: OK (payload[0] = %.0f after %lld hops)\n", r.payload[0], 2 * trips);
      roam::exit(0);
    } else {
      std::printf("pingpong: FAILED (payload[0] = %.0f, expected %lld; %s)\n", r.payload.empty() ? -1.0 : r.payload[0],
                  2 * trips, placed ? "payload corrupted" : "both elements on one pe");
      roam::exit(1);
    }
  });
}
