// Drives the mpi transport directly (no runtime) under mpirun:
//   mpirun -n 2|3 mpi-transport-probe [--threads K] [--frames N] [--big BYTES] [--drain D] [--segments] [--die]
// Checks, on every rank: the bootstrap allgather; wake() interrupting wait();
// that an idle wait() does not burn the CPU; per-pair FIFO and content of
// frames sent by K PE-like threads (SMP: queue + wake) and by the progress
// thread itself (non-SMP: direct MPI_Isend), mixed small and 64 KiB frames;
// a big frame followed by small ones on one stream; frames sent right before
// finish() arriving inside it. Prints "rank R of N: OK ..." or "FAIL: ...".
// --segments: a third of all frames carry out-of-line segments (empty, 1 B,
// 16 KiB + a few, now and then 1 MiB), checked for count, size and content.
// --die: rank 1 exits abruptly after the bootstrap (what happens then is
// OpenMPI's business: see docs/design/mpi-transport.md).
#include <atomic>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <thread>
#include <vector>

#include <sys/resource.h>
#include <unistd.h>

#include <roam/machine/detail/transport.hpp>

#include "../probe_frames.hpp"

namespace {

using namespace std::chrono_literals;
using probe_clock = std::chrono::steady_clock;
namespace rd = roam::detail;

struct options {
  std::uint32_t threads = 2;
  std::uint64_t frames = 2000;
  std::size_t big = std::size_t{4} << 20;
  std::uint64_t drain = 500;
  bool segments = false;
  bool die = false;
};
bool g_segments = false;

struct state {
  std::uint32_t me = 0;
  probe::checker check;
  std::string first_error;
  std::vector<std::string> failures;
};

[[noreturn]] void fail(std::uint32_t me, const std::string& what) {
  std::printf("rank %u: FAIL: %s\n", me, what.c_str());
  std::fflush(stdout);
  std::_Exit(1);
}

void on_frame(void* ctx, std::uint32_t src, std::span<const std::byte> frame, std::span<rd::frame_segment> segments) {
  auto& s = *static_cast<state*>(ctx);
  std::string err = s.check.accept(src, frame, segments);
  if (!err.empty() && s.first_error.empty()) s.first_error = err;
}

void on_peer_failure(void* ctx, std::uint32_t node, const std::string& why) {
  auto& s = *static_cast<state*>(ctx);
  s.failures.push_back("node " + std::to_string(node) + ": " + why);
  std::printf("rank %u: peer failure reported: node %u: %s\n", s.me, node, why.c_str());
  std::fflush(stdout);
}

// Frame sizes: mostly small, now and then one over the eager limit.
std::size_t payload_size(std::uint64_t seq) { return seq % 97 == 13 ? 65536 + seq % 1000 : (seq * 37) % 300; }

double thread_cpu_seconds() {
  rusage r{};
  getrusage(RUSAGE_THREAD, &r);
  return static_cast<double>(r.ru_utime.tv_sec + r.ru_stime.tv_sec) +
         static_cast<double>(r.ru_utime.tv_usec + r.ru_stime.tv_usec) * 1e-6;
}

options parse(int argc, char** argv) {
  options o;
  for (int i = 1; i < argc; ++i) {
    std::string a = argv[i];
    auto value = [&] {
      if (i + 1 >= argc) {
        std::fprintf(stderr, "probe: %s needs a value\n", a.c_str());
        std::exit(2);
      }
      return std::strtoull(argv[++i], nullptr, 10);
    };
    if (a == "--threads") o.threads = static_cast<std::uint32_t>(value());
    else if (a == "--frames") o.frames = value();
    else if (a == "--big") o.big = value();
    else if (a == "--drain") o.drain = value();
    else if (a == "--segments") o.segments = true;
    else if (a == "--die") o.die = true;
    else {
      std::fprintf(stderr, "probe: unknown argument '%s'\n", a.c_str());
      std::exit(2);
    }
  }
  return o;
}

void check_allgather(rd::transport& t) {
  std::uint32_t me = t.my_node();
  auto blob_of = [](std::uint32_t node) {
    std::string s;
    for (std::uint32_t i = 0; i <= node; ++i) s += "node " + std::to_string(node) + ";";
    return s;
  };
  std::string mine = blob_of(me);
  auto all = t.allgather(std::as_bytes(std::span(mine.data(), mine.size())));
  if (all.size() != t.num_nodes()) fail(me, "allgather returned " + std::to_string(all.size()) + " blobs");
  for (std::uint32_t n = 0; n < t.num_nodes(); ++n) {
    std::string got(reinterpret_cast<const char*>(all[n].data()), all[n].size());
    if (got != blob_of(n)) fail(me, "allgather blob of node " + std::to_string(n) + " is '" + got + "'");
  }
}

void check_wake_interrupts_wait(rd::transport& t) {
  std::thread waker([&] {
    std::this_thread::sleep_for(30ms);
    t.wake();
  });
  auto t0 = probe_clock::now();
  t.wait(std::chrono::microseconds(10s));
  auto waited = probe_clock::now() - t0;
  waker.join();
  if (waited > 5s) fail(t.my_node(), "wake() did not interrupt wait(10 s)");
}

// An idle node sleeps: wait() may spin briefly, then must back off.
void check_idle_wait_is_cheap(rd::transport& t) {
  const auto span = 300ms;
  double cpu0 = thread_cpu_seconds();
  auto t0 = probe_clock::now();
  while (probe_clock::now() - t0 < span) {
    t.progress();
    t.wait(std::chrono::duration_cast<std::chrono::microseconds>(span - (probe_clock::now() - t0)));
  }
  double cpu = thread_cpu_seconds() - cpu0;
  double wall = std::chrono::duration<double>(probe_clock::now() - t0).count();
  if (cpu > 0.3 * wall)
    fail(t.my_node(), "idle wait() used " + std::to_string(cpu * 1e3) + " ms of CPU in " + std::to_string(wall * 1e3) +
                          " ms");
}

}  // namespace

int main(int argc, char** argv) {
  options opt = parse(argc, argv);
  g_segments = opt.segments;
  std::string kind = rd::detect_transport();
  if (kind != "mpi") {
    std::fprintf(stderr, "probe: start me with mpirun (detected transport '%s')\n", kind.c_str());
    return 2;
  }
  std::string error;
  std::unique_ptr<rd::transport> t = rd::make_transport(kind, error);
  if (!t) {
    std::fprintf(stderr, "probe: %s\n", error.c_str());
    return 2;
  }
  const std::uint32_t me = t->my_node(), n = t->num_nodes();
  if (std::strcmp(t->name(), "mpi") != 0) fail(me, std::string("transport name is ") + t->name());
  if (n < 2) fail(me, "needs at least 2 ranks");

  // Streams: [0, threads) from PE-like threads, then the progress thread's
  // own, the big-frame stream and the drain stream.
  const std::uint32_t own_stream = opt.threads, big_stream = opt.threads + 1, drain_stream = opt.threads + 2;
  state s{me, probe::checker(n, opt.threads + 3), {}, {}};

  check_allgather(*t);
  t->set_handlers(rd::transport_handlers{&s, &on_frame, &on_peer_failure});

  if (opt.die) {
    if (me == 1) {
      std::printf("rank 1: exiting abruptly\n");
      std::fflush(stdout);
      _exit(3);
    }
    // Keep sending to the dead rank, small and rendezvous-sized, so a failing
    // MPI call has a chance to name it.
    auto t0 = probe_clock::now();
    for (std::uint64_t seq = 0; s.failures.empty() && probe_clock::now() - t0 < 20s; ++seq) {
      if (seq < 200) t->send(1, probe::make_frame(me, 0, seq, seq % 16 == 0 ? 1 << 20 : 16));
      if (!t->progress()) t->wait(1000us);
    }
    std::printf("rank %u: %s\n", me, s.failures.empty() ? "no peer failure reported in 20 s" : "saw the failure");
    return 5;
  }

  check_wake_interrupts_wait(*t);
  check_idle_wait_is_cheap(*t);
  check_allgather(*t);  // also a barrier: nobody sends before every idle check is over

  std::atomic<std::uint32_t> senders_done{0};
  std::vector<std::thread> senders;
  for (std::uint32_t k = 0; k < opt.threads; ++k)
    senders.emplace_back([&, k] {
      for (std::uint64_t seq = 0; seq < opt.frames; ++seq)
        for (std::uint32_t dst = 0; dst < n; ++dst)
          if (dst != me) t->send(dst, probe::make_frame(me, k, seq, payload_size(seq), g_segments));
      senders_done.fetch_add(1);
    });

  // The progress thread sends too (non-SMP style), between progress calls.
  for (std::uint32_t dst = 0; dst < n; ++dst) {
    if (dst == me) continue;
    t->send(dst, probe::make_frame(me, big_stream, 0, opt.big));
    for (std::uint64_t seq = 1; seq <= 3; ++seq) t->send(dst, probe::make_frame(me, big_stream, seq, seq * 10));
  }
  auto all_arrived = [&] {
    for (std::uint32_t src = 0; src < n; ++src) {
      if (src == me) continue;
      for (std::uint32_t k = 0; k <= own_stream; ++k)
        if (s.check.received(src, k) < opt.frames) return false;
      if (s.check.received(src, big_stream) < 4) return false;
    }
    return true;
  };
  std::uint64_t own_seq = 0;
  auto deadline = probe_clock::now() + 40s;
  while (!(all_arrived() && own_seq == opt.frames && senders_done.load() == opt.threads)) {
    bool busy = t->progress();
    for (int burst = 0; burst < 8 && own_seq < opt.frames; ++burst, ++own_seq)
      for (std::uint32_t dst = 0; dst < n; ++dst)
        if (dst != me) t->send(dst, probe::make_frame(me, own_stream, own_seq, payload_size(own_seq), g_segments));
    if (!s.first_error.empty()) fail(me, s.first_error);
    if (probe_clock::now() > deadline)
      fail(me, "timed out: " + std::to_string(s.check.total()) + " frames received so far");
    if (!busy && own_seq == opt.frames) t->wait(1000us);
  }
  for (auto& th : senders) th.join();

  // Frames sent right before finish() must still arrive, inside it.
  for (std::uint64_t seq = 0; seq < opt.drain; ++seq)
    for (std::uint32_t dst = 0; dst < n; ++dst)
      if (dst != me) t->send(dst, probe::make_frame(me, drain_stream, seq, payload_size(seq), g_segments));
  t->finish();
  if (!s.first_error.empty()) fail(me, s.first_error);
  for (std::uint32_t src = 0; src < n; ++src)
    if (src != me && s.check.received(src, drain_stream) != opt.drain)
      fail(me, "finish() returned with " + std::to_string(s.check.received(src, drain_stream)) + " of " +
                   std::to_string(opt.drain) + " last frames from node " + std::to_string(src));
  if (!s.failures.empty()) fail(me, "unexpected peer failure: " + s.failures.front());
  std::printf("rank %u of %u: OK (%llu frames in order and intact: %u sender threads + progress thread x %llu "
              "frames per peer, a %zu-byte frame, %llu frames drained by finish%s)\n",
              me, n, static_cast<unsigned long long>(s.check.total()), opt.threads,
              static_cast<unsigned long long>(opt.frames), opt.big, static_cast<unsigned long long>(opt.drain),
              opt.segments ? ", a third with segments" : "");
  return 0;
}
