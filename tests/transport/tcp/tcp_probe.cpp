// tcp_probe: drives the tcp transport directly, without the runtime, in the
// processes roamrun starts. One mode per property:
//   order [FRAMES] [THREADS]  per-pair FIFO of many frames sent from several
//                             threads at once, one 4 MiB frame per pair,
//                             allgather, finish
//   pingpong [ITERS] [BYTES]  node 0 <-> node 1 round trips with busy polling;
//                             prints the one-way latency (median, p10, p90)
//   rogue                     node 0 dials node 1 and roamrun as a stranger
//                             (wrong secret, garbage); both must refuse and log
//                             it, and the job must still complete
//   die                       the last node SIGKILLs itself; survivors must
//                             report it by number
//   hang                      the last node stops driving progress; survivors
//                             must report it through the heartbeat timeout,
//                             and must not report each other
//   exit                      the last node exits with code 3 without finish()
//   segments [FRAMES] [THREADS] like order, but a third of the frames carry
//                             out-of-line segments (empty, 1 B, 16 KiB + a
//                             few, now and then 1 MiB), checked for count,
//                             size and content (../probe_frames.hpp)
// Every node prints "tcp_probe <mode>: node N OK" when its checks pass.
#include <signal.h>
#include <sys/socket.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <functional>
#include <string>
#include <thread>
#include <vector>

#include <roam/machine/detail/transport.hpp>

#include "tcp/handshake.hpp"
#include "tcp/socket_io.hpp"
#include "tcp/tcp_config.hpp"
#include "tcp/tcp_transport.hpp"
#include "../probe_frames.hpp"

namespace {

using roam::detail::transport;
using roam::detail::transport_handlers;
namespace tcp = roam::detail::tcp;
using clk = std::chrono::steady_clock;

constexpr std::size_t big_frame_bytes = 4u << 20;
enum : std::uint8_t { msg_small = 1, msg_big = 2, msg_done = 3, msg_ping = 4 };

[[noreturn]] void fail(const std::string& what) {
  std::fprintf(stderr, "tcp_probe: FAILED: %s\n", what.c_str());
  std::fflush(stderr);
  std::_Exit(1);
}

std::byte pattern(std::uint64_t seed, std::size_t i) {
  return static_cast<std::byte>((seed * 131 + i * 7 + (i >> 8)) & 0xFF);
}

roam::detail::out_frame frame_of(const std::vector<std::byte>& bytes) {
  return roam::detail::out_frame::copy_of(bytes);
}

struct probe {
  std::unique_ptr<transport> t;
  std::uint32_t me = 0, n = 0;
  std::function<void(std::uint32_t, std::span<const std::byte>)> on_frame;
  std::function<void(std::uint32_t, std::span<const std::byte>, std::span<roam::detail::frame_segment>)>
      on_segmented_frame;
  std::vector<std::pair<std::uint32_t, std::string>> failures;

  probe() {
    std::string error;
    t = roam::detail::make_transport(roam::detail::detect_transport(), error);
    if (!t) fail("cannot create the transport: " + error);
    me = t->my_node();
    n = t->num_nodes();
    transport_handlers h;
    h.ctx = this;
    h.on_frame = [](void* ctx, std::uint32_t src, std::span<const std::byte> f,
                    std::span<roam::detail::frame_segment> segs) {
      auto* p = static_cast<probe*>(ctx);
      if (p->on_segmented_frame) p->on_segmented_frame(src, f, segs);
      else if (p->on_frame) p->on_frame(src, f);
    };
    h.on_peer_failure = [](void* ctx, std::uint32_t node, const std::string& why) {
      auto* p = static_cast<probe*>(ctx);
      std::printf("tcp_probe: node %u saw node %u fail: %s\n", p->me, node, why.c_str());
      std::fflush(stdout);
      p->failures.emplace_back(node, why);
    };
    t->set_handlers(h);
  }

  /// Drives progress until `done()` or `seconds` pass (then fails loudly).
  void run_until(const std::function<bool()>& done, int seconds, const char* what) {
    const auto by = clk::now() + std::chrono::seconds(seconds);
    while (!done()) {
      if (clk::now() > by) fail("node " + std::to_string(me) + ": timed out waiting for " + what);
      if (!t->progress()) t->wait(std::chrono::milliseconds(5));
    }
  }

  bool failed(std::uint32_t node) const {
    return std::any_of(failures.begin(), failures.end(), [&](const auto& f) { return f.first == node; });
  }

  void check_allgather() {
    const std::string mine = "node " + std::to_string(me) + " of " + std::to_string(n);
    auto all = t->allgather(std::as_bytes(std::span(mine)));
    if (all.size() != n) fail("allgather returned " + std::to_string(all.size()) + " blobs");
    for (std::uint32_t j = 0; j < n; ++j) {
      const std::string want = "node " + std::to_string(j) + " of " + std::to_string(n);
      if (std::string(reinterpret_cast<const char*>(all[j].data()), all[j].size()) != want)
        fail("allgather blob " + std::to_string(j) + " is wrong");
    }
  }

  void finish_ok(const char* mode) {
    t->finish();
    std::printf("tcp_probe %s: node %u OK\n", mode, me);
    std::fflush(stdout);
  }
};

std::vector<std::byte> small_frame(std::uint32_t thread, std::uint64_t seq) {
  const std::size_t pad = (seq * 37 + thread) % 200;
  std::vector<std::byte> f(1 + 4 + 8 + pad);
  f[0] = std::byte{msg_small};
  tcp::store_le(f.data() + 1, thread, 4);
  tcp::store_le(f.data() + 5, seq, 8);
  for (std::size_t i = 0; i < pad; ++i) f[13 + i] = pattern(seq, i);
  return f;
}

int mode_order(int argc, char** argv) {
  const std::uint64_t frames = argc > 2 ? std::strtoull(argv[2], nullptr, 10) : 2000;
  const std::uint32_t threads = argc > 3 ? static_cast<std::uint32_t>(std::strtoul(argv[3], nullptr, 10)) : 3;
  probe p;
  p.check_allgather();
  // next[src][thread]: the sequence number expected next from that sender.
  std::vector<std::vector<std::uint64_t>> next(p.n, std::vector<std::uint64_t>(threads, 0));
  std::uint64_t small = 0, big = 0;
  p.on_frame = [&](std::uint32_t src, std::span<const std::byte> f) {
    if (f.empty()) fail("empty frame from node " + std::to_string(src));
    if (f[0] == std::byte{msg_big}) {
      if (f.size() != big_frame_bytes) fail("big frame of " + std::to_string(f.size()) + " bytes");
      for (std::size_t i = 1; i < f.size(); ++i)
        if (f[i] != pattern(src, i)) fail("big frame from node " + std::to_string(src) + " corrupt at " + std::to_string(i));
      ++big;
      return;
    }
    if (f.size() < 13) fail("short frame");
    const auto th = static_cast<std::uint32_t>(tcp::load_le(f.data() + 1, 4));
    const std::uint64_t seq = tcp::load_le(f.data() + 5, 8);
    if (th >= threads) fail("bad thread id");
    if (seq != next[src][th])
      fail("node " + std::to_string(src) + " thread " + std::to_string(th) + ": got seq " + std::to_string(seq) +
           ", expected " + std::to_string(next[src][th]) + " (per-pair FIFO broken)");
    const auto want = small_frame(th, seq);
    if (f.size() != want.size() || !std::equal(f.begin(), f.end(), want.begin())) fail("small frame corrupt");
    ++next[src][th];
    ++small;
  };

  std::vector<std::thread> senders;
  for (std::uint32_t th = 0; th < threads; ++th)
    senders.emplace_back([&, th] {
      for (std::uint64_t s = 0; s < frames; ++s)
        for (std::uint32_t d = 0; d < p.n; ++d)
          if (d != p.me) p.t->send(d, frame_of(small_frame(th, s)));
    });
  // The big frames go from the progress thread while the senders run.
  for (std::uint32_t d = 0; d < p.n; ++d) {
    if (d == p.me) continue;
    std::vector<std::byte> f(big_frame_bytes);
    f[0] = std::byte{msg_big};
    for (std::size_t i = 1; i < f.size(); ++i) f[i] = pattern(p.me, i);
    p.t->send(d, frame_of(f));
  }
  const std::uint64_t want_small = std::uint64_t{p.n - 1} * threads * frames;
  p.run_until([&] { return small == want_small && big == p.n - 1; }, 45, "all frames");
  for (auto& s : senders) s.join();
  if (!p.failures.empty()) fail("a peer was reported failed");
  std::printf("tcp_probe order: node %u received %llu frames from %u threads per peer and %llu x 4 MiB\n", p.me,
              static_cast<unsigned long long>(small), threads, static_cast<unsigned long long>(big));
  p.finish_ok("order");
  return 0;
}

int mode_segments(int argc, char** argv) {
  const std::uint64_t frames = argc > 2 ? std::strtoull(argv[2], nullptr, 10) : 1000;
  const std::uint32_t threads = argc > 3 ? static_cast<std::uint32_t>(std::strtoul(argv[3], nullptr, 10)) : 2;
  probe p;
  p.check_allgather();
  // Streams [0, threads) come from sender threads, stream `threads` from the progress thread.
  ::probe::checker check(p.n, threads + 1);
  p.on_segmented_frame = [&](std::uint32_t src, std::span<const std::byte> f,
                             std::span<roam::detail::frame_segment> segs) {
    if (std::string err = check.accept(src, f, segs); !err.empty()) fail(err);
  };
  auto payload = [](std::uint64_t seq) { return static_cast<std::size_t>((seq * 37) % 300); };
  std::vector<std::thread> senders;
  for (std::uint32_t th = 0; th < threads; ++th)
    senders.emplace_back([&, th] {
      for (std::uint64_t s = 0; s < frames; ++s)
        for (std::uint32_t d = 0; d < p.n; ++d)
          if (d != p.me) p.t->send(d, ::probe::make_frame(p.me, th, s, payload(s), true));
    });
  for (std::uint64_t s = 0; s < frames; ++s) {
    for (std::uint32_t d = 0; d < p.n; ++d)
      if (d != p.me) p.t->send(d, ::probe::make_frame(p.me, threads, s, payload(s), true));
    p.t->progress();
  }
  const std::uint64_t want = std::uint64_t{p.n - 1} * (threads + 1) * frames;
  p.run_until([&] { return check.total() == want; }, 60, "all segmented frames");
  for (auto& s : senders) s.join();
  if (!p.failures.empty()) fail("a peer was reported failed");
  std::printf("tcp_probe segments: node %u received %llu frames in order and intact, a third with segments\n",
              p.me, static_cast<unsigned long long>(check.total()));
  p.finish_ok("segments");
  return 0;
}

int mode_pingpong(int argc, char** argv) {
  const int iters = argc > 2 ? std::atoi(argv[2]) : 10000;
  const std::size_t bytes = argc > 3 ? std::strtoull(argv[3], nullptr, 10) : 8;
  probe p;
  p.check_allgather();
  if (p.n < 2) fail("pingpong needs 2 nodes");
  bool got = false, done = false;
  p.on_frame = [&](std::uint32_t src, std::span<const std::byte> f) {
    if (f[0] == std::byte{msg_done}) {
      done = true;
    } else if (p.me == 1) {
      p.t->send(src, roam::detail::out_frame::copy_of(f));  // echo
    } else {
      got = true;
    }
  };
  if (p.me == 0) {
    std::vector<double> rtt;
    rtt.reserve(static_cast<std::size_t>(iters));
    const int warmup = std::min(1000, iters);
    for (int i = 0; i < warmup + iters; ++i) {
      std::vector<std::byte> f(std::max<std::size_t>(bytes, 1), std::byte{msg_ping});
      got = false;
      const auto t0 = clk::now();
      p.t->send(1, frame_of(f));
      while (!got) p.t->progress();  // busy polling: this measures the transport, not the scheduler
      const auto t1 = clk::now();
      if (i >= warmup) rtt.push_back(std::chrono::duration<double, std::micro>(t1 - t0).count());
    }
    for (std::uint32_t d = 1; d < p.n; ++d) p.t->send(d, frame_of({std::byte{msg_done}}));
    std::sort(rtt.begin(), rtt.end());
    auto at = [&](double q) { return rtt[static_cast<std::size_t>(q * static_cast<double>(rtt.size() - 1))] / 2; };
    std::printf("tcp_probe pingpong: %zu-byte frames, %d round trips: one-way latency median %.2f us "
                "(p10 %.2f, p90 %.2f, min %.2f)\n",
                bytes, iters, at(0.5), at(0.1), at(0.9), rtt.front() / 2);
  } else if (p.me == 1) {
    while (!done) p.t->progress();
  } else {
    p.run_until([&] { return done; }, 120, "the end of the ping-pong");
  }
  p.finish_ok("pingpong");
  return 0;
}

/// Dials `to` as a stranger, sends `bytes`, and waits until the other side
/// closes the connection (it must: a stranger is refused).
void play_stranger(const tcp::host_port& to, std::span<const std::byte> bytes, const char* what) {
  std::string err;
  const auto by = tcp::after(std::chrono::seconds(15));
  tcp::unique_fd fd = tcp::connect_tcp(to, by, err);
  if (!fd) fail(std::string(what) + ": " + err);
  if (!tcp::write_all(fd.get(), bytes, by, err)) fail(std::string(what) + ": " + err);
  tcp::frame_decoder dec(64);
  tcp::frame_decoder::result r;
  if (tcp::read_frame(fd.get(), dec, by, r, err)) fail(std::string(what) + ": the stranger got an answer");
  if (err == "timed out") fail(std::string(what) + ": the connection was not closed");
}

int mode_rogue() {
  probe p;
  auto* tt = dynamic_cast<tcp::tcp_transport*>(p.t.get());
  if (!tt || p.n < 2) fail("rogue needs the tcp transport and 2 nodes");
  const std::string mine = tt->listen_address().str();
  auto all = p.t->allgather(std::as_bytes(std::span(mine)));
  bool done = false;
  p.on_frame = [&](std::uint32_t, std::span<const std::byte> f) { done = f[0] == std::byte{msg_done}; };
  if (p.me == 0) {
    const auto node1 = tcp::parse_host_port(std::string(reinterpret_cast<const char*>(all[1].data()), all[1].size()));
    const auto launcher = tcp::parse_host_port(std::getenv(tcp::env_launcher));
    if (!node1 || !launcher) fail("bad addresses");
    std::string err;
    auto wrong = tcp::generate_job_secret(err);
    const auto bad_hello = tcp::encode_hello(*wrong, 0, 1);
    play_stranger(*node1, bad_hello, "wrong secret to node 1");
    const char garbage[] = "GET / HTTP/1.0\r\n\r\n";
    play_stranger(*node1, std::as_bytes(std::span(garbage)), "garbage to node 1");
    play_stranger(*launcher, tcp::encode_hello(*wrong, 0, tcp::launcher_id), "wrong secret to roamrun");
    // The real peers still work after the strangers were turned away.
    p.t->send(1, frame_of({std::byte{msg_done}}));
    done = true;
  }
  p.run_until([&] { return done; }, 30, "the rogue test to end");
  if (!p.failures.empty()) fail("a peer was reported failed");
  p.finish_ok("rogue");
  return 0;
}

/// The last node misbehaves (`victim`) after everyone has exchanged a frame;
/// the others wait until the transport reports it.
int mode_victim(const std::string& mode) {
  probe p;
  p.check_allgather();
  if (p.n < 2) fail(mode + " needs 2 nodes");
  const std::uint32_t victim = p.n - 1;
  std::uint32_t heard = 0;
  p.on_frame = [&](std::uint32_t, std::span<const std::byte>) { ++heard; };
  for (std::uint32_t d = 0; d < p.n; ++d)
    if (d != p.me) p.t->send(d, frame_of({std::byte{msg_small}}));
  p.run_until([&] { return heard == p.n - 1; }, 30, "a frame from every peer");
  if (p.me == victim) {
    std::printf("tcp_probe %s: node %u misbehaves now\n", mode.c_str(), p.me);
    std::fflush(stdout);
    if (mode == "die") ::raise(SIGKILL);
    if (mode == "exit") std::_Exit(3);
    std::this_thread::sleep_for(std::chrono::seconds(30));  // hang: no progress, no heartbeats
    return 0;
  }
  p.run_until([&] { return p.failed(victim); }, 30, "the victim's failure report");
  for (std::uint32_t j = 0; j < victim; ++j)
    if (p.failed(j)) fail("node " + std::to_string(j) + " was reported failed but is alive");
  p.finish_ok(mode.c_str());
  // A runtime that lost a node gives up; in hang mode that also makes roamrun stop the hung node.
  return mode == "hang" ? 1 : 0;
}

}  // namespace

int main(int argc, char** argv) {
  const std::string mode = argc > 1 ? argv[1] : "";
  if (mode == "order") return mode_order(argc, argv);
  if (mode == "segments") return mode_segments(argc, argv);
  if (mode == "pingpong") return mode_pingpong(argc, argv);
  if (mode == "rogue") return mode_rogue();
  if (mode == "die" || mode == "hang" || mode == "exit") return mode_victim(mode);
  std::fprintf(stderr, "usage: roamrun -n N tcp_probe order|pingpong|rogue|die|hang|exit [args]\n");
  return 2;
}
