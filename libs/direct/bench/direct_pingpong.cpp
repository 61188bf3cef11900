// direct_pingpong: round trips between two array elements (on PEs 0 and 1,
// which are in different processes under roamrun -n 2 / mpirun -n 2), the
// seed's microbenchmark: a channel put each way (roam::direct) against a
// message each way carrying a roam::buffer made from the source (one copy
// on each side's send, none on receipt, as the channel's one copy), or
// such a message copied on receipt into the receive buffer, where a put
// leaves its data (message_copy: what the seed's and Charm++'s message
// versions do).
//
//   direct_pingpong [--sizes 100,1000,...] [--modes channel,message,message_copy] [--seconds S] [--vector-buffers]
//                   [+p2 | roamrun -n 2 ...]
// The channels' receive buffers are roam::direct::host_buffers (puts from
// another process of the host land in them directly); --vector-buffers
// makes them std::vectors (such puts are staged, then copied on arrival).
//
// Prints per mode and size: "direct_pingpong: MODE BYTES B round trip X us"
// (the median of 5 batches, each of about S/5 seconds), and one JSON line
// per result for scripts ("{"bench":"direct_pingpong",...}").
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <sstream>
#include <string>
#include <vector>

#include <roam/direct/channel.hpp>
#include <roam/direct/host_buffer.hpp>
#include <roam/roam.hpp>

namespace {

using bench_clock = std::chrono::steady_clock;

struct batch {
  std::int64_t trips = 0;
  double seconds = 0;
  void pup(roam::pup_er& p) { p | trips | seconds; }
};

struct player : roam::element<player> {
  player() = default;
  explicit player(roam::migrating) {}

  int me() const { return this_index()[0]; }
  roam::element_proxy<player> other() const { return this_array()[1 - me()]; }

  // Setup: both make a receiver and hand the channel to the other.
  void setup(std::int64_t bytes, bool vector_buffers, roam::promise<int> ready) {
    const auto n = static_cast<std::size_t>(bytes);
    out_buf.assign(n, std::byte{2});
    std::span<std::byte> into;
    if (vector_buffers) {
      in_vector.assign(n, std::byte{1});
      into = std::span(in_vector);
    } else {
      in_host = roam::direct::host_buffer<std::byte>(n, std::byte{1});
      into = in_host.span();
    }
    in = roam::direct::make_channel(*this, into, [this] { caught(); });
    other().send<&player::connect>(roam::direct::channel(in), ready);
  }
  void connect(roam::direct::channel c, roam::promise<int> ready) {
    out = std::move(c);
    out.attach(std::span(out_buf));
    ready.set_value(1);
  }

  // A batch of `trips` round trips from element 0.
  void serve(bool channel, bool copy, std::int64_t trips, roam::promise<batch> done) {
    use_channel = channel;
    copy_out = copy;
    remaining = trips;
    total = trips;
    done_ = done;
    t0 = bench_clock::now();
    throw_ball();
  }
  // Message modes: the ball arrives as a message (message_copy: and is
  // copied into the receive buffer, where a channel's put leaves it).
  void ball(roam::buffer<std::byte> data) {
    if (copy_out) {
      std::span<std::byte> into = in_vector.empty() ? in_host.span() : std::span(in_vector);
      std::memcpy(into.data(), data.span().data(), std::min(into.size(), data.span().size()));
    }
    caught();
  }

  void caught() {
    if (use_channel) in.ready();
    if (me() == 0 && --remaining == 0) {
      done_.set_value(batch{total, std::chrono::duration<double>(bench_clock::now() - t0).count()});
      return;
    }
    throw_ball();
  }
  void throw_ball() {
    if (use_channel) out.put();
    else other().send<&player::ball>(roam::buffer<std::byte>(std::span<const std::byte>(out_buf)));
  }
  void set_mode(bool channel, bool copy) {
    use_channel = channel;
    copy_out = copy;
  }

  std::vector<std::byte> in_vector, out_buf;
  roam::direct::host_buffer<std::byte> in_host;
  roam::direct::receiver in;
  roam::direct::channel out;
  bool use_channel = true;
  bool copy_out = false;
  std::int64_t remaining = 0, total = 0;
  roam::promise<batch> done_;
  bench_clock::time_point t0;
};

std::vector<long long> numbers(const std::string& list) {
  std::vector<long long> out;
  std::stringstream ss(list);
  for (std::string item; std::getline(ss, item, ',');) out.push_back(std::atoll(item.c_str()));
  return out;
}

}  // namespace

int main(int argc, char** argv) {
  return roam::run(argc, argv, [](const roam::args& a) -> roam::task<> {
    std::vector<long long> sizes{100, 1000, 5000, 10000, 20000, 30000, 40000, 70000, 100000, 500000};
    std::vector<std::string> modes{"channel", "message", "message_copy"};
    double seconds = 2.0;
    bool vector_buffers = false;
    for (std::size_t i = 1; i < a.size(); ++i) {
      if (a[i] == "--help" || a[i] == "-h") {
        std::printf("usage: direct_pingpong [--sizes 100,1000,...] [--modes channel,message,message_copy] [--seconds S] "
                    "[--vector-buffers] [+p2 | under roamrun -n 2 / mpirun -n 2]\n  round trips between two elements on "
                    "PEs 0 and 1: a channel put each way, or a message each way; channels receive into host_buffers "
                    "(--vector-buffers: std::vectors)\n");
        roam::exit(0);
        co_return;
      }
      if (a[i] == "--sizes" && i + 1 < a.size()) sizes = numbers(a[++i]);
      else if (a[i] == "--vector-buffers") vector_buffers = true;
      else if (a[i] == "--modes" && i + 1 < a.size()) {
        modes.clear();
        std::stringstream ss(a[++i]);
        for (std::string m; std::getline(ss, m, ',');) modes.push_back(m);
      } else if (a[i] == "--seconds" && i + 1 < a.size()) seconds = std::atof(a[++i].c_str());
      else {
        std::fprintf(stderr, "direct_pingpong: unknown argument '%s' (--help lists them)\n", a[i].c_str());
        roam::exit(2);
        co_return;
      }
    }
    for (long long b : sizes)
      if (b <= 0) {
        std::fprintf(stderr, "direct_pingpong: --sizes takes positive byte counts\n");
        roam::exit(2);
        co_return;
      }
    for (const std::string& m : modes)
      if (m != "channel" && m != "message" && m != "message_copy") {
        std::fprintf(stderr, "direct_pingpong: unknown mode '%s' (channel, message, message_copy)\n", m.c_str());
        roam::exit(2);
        co_return;
      }
    if (roam::num_pes() < 2) {
      std::fprintf(stderr, "direct_pingpong: needs 2 PEs (+p2, or two processes)\n");
      roam::exit(2);
      co_return;
    }
    for (long long bytes : sizes) {
      auto pair = roam::create_array<player>(roam::array_options<1>({2}, roam::round_robin_map()));
      auto [r0, p0] = roam::make_future<int>();
      auto [r1, p1] = roam::make_future<int>();
      pair[0].send<&player::setup>(static_cast<std::int64_t>(bytes), vector_buffers, p0);
      pair[1].send<&player::setup>(static_cast<std::int64_t>(bytes), vector_buffers, p1);
      co_await r0;
      co_await r1;
      for (const std::string& mode : modes) {
        const bool channel = mode == "channel";
        const bool copy = mode == "message_copy";
        pair[1].send<&player::set_mode>(channel, copy);
        // Calibrate: trips for about seconds/5 per batch.
        std::int64_t trips = 50;
        for (;;) {
          auto [f, p] = roam::make_future<batch>();
          pair[0].send<&player::serve>(channel, copy, trips, p);
          batch b = co_await f;
          if (b.seconds > seconds / 50 || trips > (std::int64_t{1} << 30)) {
            trips = std::max<std::int64_t>(10, static_cast<std::int64_t>(static_cast<double>(trips) * (seconds / 5) / b.seconds));
            break;
          }
          trips *= 4;
        }
        std::vector<double> us;
        for (int k = 0; k < 5; ++k) {
          auto [f, p] = roam::make_future<batch>();
          pair[0].send<&player::serve>(channel, copy, trips, p);
          batch b = co_await f;
          us.push_back(b.seconds * 1e6 / static_cast<double>(b.trips));
        }
        std::sort(us.begin(), us.end());
        std::printf("direct_pingpong: %-12s %7lld B round trip %9.3f us  [%.3f .. %.3f]\n", mode.c_str(), bytes, us[2],
                    us[0], us[4]);
        std::printf("{\"bench\":\"direct_pingpong\",\"mode\":\"%s\",\"buffers\":\"%s\",\"bytes\":%lld,\"round_trip_us\":%.4f,"
                    "\"min_us\":%.4f,\"max_us\":%.4f,\"nodes\":%u,\"pes\":%u}\n",
                    mode.c_str(), vector_buffers ? "vector" : "host", bytes, us[2], us[0], us[4], roam::num_nodes(),
                    roam::num_pes());
        std::fflush(stdout);
      }
    }
    roam::exit(0);
  });
}
