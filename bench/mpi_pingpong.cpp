// mpi-pingpong: plain MPI ping-pong between 2 ranks, and the same ping-pong
// through roam's mpi transport (transport level, no runtime), so the
// transport's own overhead shows beside the MPI library's limit.
//   mpirun -n 2 mpi-pingpong [--json] [--reps R] [--mode plain|transport|all] [--sizes 8,1024,...]
// Cases:
//   plain           MPI_Send/MPI_Recv from one reused buffer (the usual figure)
//   plain_rotating  the same, but each send from a different buffer, as a
//                   transport does (each frame is its own vector); OpenMPI's
//                   single-copy path is markedly slower on such buffers
//   plain_fresh     one buffer, rewritten (memset) by the sender before each
//                   send, as freshly produced data is: the copy then reads
//                   lines dirty in the sender's cache (64 KiB: 16 us against
//                   5 us clean, on this VM). The fair baseline for frames a
//                   runtime has just built
//   plain_echo      one buffer per rank, received into and sent back from
//                   (each rank forwards what it received): the source lines
//                   are dirty in the other core's cache, as in plain_fresh
//   transport       send() from the progress thread with pre-built frames,
//                   progress() until the reply: the non-SMP path; compare it
//                   with plain_rotating for the transport's own overhead
//   transport_wait  the same, calling wait() whenever progress() found
//                   nothing, as an idle PE would
//   transport_alloc each frame allocated (and written) just before send(), as
//                   a runtime packs them; compare with plain_fresh
//   transport_segment the data as an out-of-line segment beside a 96-byte
//                   inline part, each side sending its own clean block every
//                   time (a roam::buffer sent again); compare with plain
//   transport_segment_echo the same, each side sending back the block it
//                   received (a roam::buffer forwarded); compare with plain_echo
// One-way latency = round trip / 2, median of the reps; MB/s = bytes / one-way.
#include <mpi.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <map>
#include <string>
#include <vector>

#include <roam/machine/detail/transport.hpp>

#include "report.hpp"

namespace {

namespace rd = roam::detail;
using roam_bench::result;

struct config {
  bool json = false;
  int reps = 5;
  std::string mode = "all";
  int iters = 0;  // --iters: round trips per rep (0: chosen by size)
  std::vector<std::size_t> sizes{8, 64, 1024, 8192, 65536, 262144, 1048576, 4194304};
};

// Enough round trips per rep for a stable time, bounded so the transport
// cases' pre-built frames stay under ~80 MiB per rep.
int g_iters_override = 0;
int iterations(std::size_t bytes) {
  if (g_iters_override > 0) return g_iters_override;
  std::size_t by_volume = (std::size_t{64} << 20) / std::max<std::size_t>(bytes, 1);
  return static_cast<int>(std::clamp<std::size_t>(by_volume, 20, 20000));
}

config parse(int argc, char** argv) {
  config c;
  for (int i = 1; i < argc; ++i) {
    std::string a = argv[i];
    if (a == "--json") c.json = true;
    else if (a == "--reps" && i + 1 < argc) c.reps = std::max(1, std::atoi(argv[++i]));
    else if (a == "--mode" && i + 1 < argc) c.mode = argv[++i];
    else if (a == "--iters" && i + 1 < argc) c.iters = std::max(1, std::atoi(argv[++i]));
    else if (a == "--sizes" && i + 1 < argc) {
      c.sizes.clear();
      for (char* p = argv[++i]; *p;) {
        c.sizes.push_back(std::strtoull(p, &p, 10));
        if (*p == ',') ++p;
        else if (*p) break;
      }
    } else {
      std::fprintf(stderr, "usage: mpirun -n 2 mpi-pingpong [--json] [--reps R] [--mode plain|transport|all] "
                           "[--sizes 8,1024,...]\n");
      std::exit(2);
    }
  }
  return c;
}

// ---- plain MPI --------------------------------------------------------------

// Returns one-way microseconds for `iters` round trips (rank 0's view).
// Sends go from outs[i % outs.size()].
double plain_round_trips(int rank, std::vector<std::vector<char>>& outs, std::vector<char>& in_buffer, int iters,
                         bool rewrite, bool echo) {
  // echo: each rank sends the buffer it received into (forwarding data, as a
  // runtime passing a received buffer on does).
  std::vector<char>& in = echo ? outs.front() : in_buffer;
  const int n = static_cast<int>(in.size()), peer = 1 - rank;
  MPI_Barrier(MPI_COMM_WORLD);
  double t0 = MPI_Wtime();
  for (int i = 0; i < iters; ++i) {
    auto& buffer = outs[static_cast<std::size_t>(i) % outs.size()];
    char* out = buffer.data();
    if (rewrite && rank == 0) std::memset(out, i, buffer.size());
    if (rank == 0) {
      MPI_Send(out, n, MPI_BYTE, peer, 0, MPI_COMM_WORLD);
      MPI_Recv(in.data(), n, MPI_BYTE, peer, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    } else {
      MPI_Recv(in.data(), n, MPI_BYTE, peer, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
      if (rewrite) std::memset(out, i, buffer.size());
      MPI_Send(out, n, MPI_BYTE, peer, 0, MPI_COMM_WORLD);
    }
  }
  return (MPI_Wtime() - t0) * 1e6 / iters / 2;
}

enum class plain_buffers { reused, rotating, fresh, echo };

std::vector<double> plain_case(int rank, std::size_t bytes, int reps, plain_buffers kind) {
  int iters = iterations(bytes);
  std::size_t count = kind == plain_buffers::rotating ? static_cast<std::size_t>(iters) : 1;
  std::vector<std::vector<char>> outs(count, std::vector<char>(bytes, 'x'));
  std::vector<char> in(bytes);
  bool rewrite = kind == plain_buffers::fresh, echo = kind == plain_buffers::echo;
  plain_round_trips(rank, outs, in, std::max(2, iters / 10), rewrite, echo);  // warm-up
  std::vector<double> samples;
  for (int r = 0; r < reps; ++r) samples.push_back(plain_round_trips(rank, outs, in, iters, rewrite, echo));
  return samples;
}

// ---- through the transport --------------------------------------------------

struct arrivals {
  std::uint64_t count = 0;
  rd::block_ref last_segment;  // the block of the last frame's first segment
};

void count_frame(void* ctx, std::uint32_t, std::span<const std::byte>, std::span<rd::frame_segment> segments) {
  auto& a = *static_cast<arrivals*>(ctx);
  ++a.count;
  if (!segments.empty()) a.last_segment = std::move(segments[0].block);
}

enum class frames_from { prebuilt, allocated, segment, segment_echo };

// A small inline part (a message header and a few arguments) beside the data.
constexpr std::size_t segment_frame_inline = 96;

double transport_round_trips(rd::transport& t, arrivals& got, std::size_t bytes, int iters, bool use_wait,
                             frames_from source) {
  const std::uint32_t me = t.my_node(), peer = 1 - me;
  // Pre-built frames exist before the clock starts: send() consumes them, and
  // building one (allocation + fill) is the caller's cost, not the transport's.
  std::vector<rd::out_frame> frames;
  if (source == frames_from::prebuilt)
    for (int i = 0; i < iters; ++i) {
      frames.emplace_back(bytes);
      std::memset(frames.back().data(), 0, bytes);
    }
  // segment: the data travels as a segment, each side sending its own clean
  // block every time (plain's pattern). segment_echo: each side sends back the
  // block it received (a roam::buffer forwarded; plain_echo's pattern).
  rd::block_ref own;
  if (source == frames_from::segment) {
    own = rd::block_ref::allocate(bytes);
    std::memset(own.data(), 'x', bytes);
  }
  if (source == frames_from::segment_echo && me == 0 && got.last_segment.capacity() < bytes) {
    got.last_segment = rd::block_ref::allocate(bytes);
    std::memset(got.last_segment.data(), 'x', bytes);
  }
  auto next_frame = [&](int i) {
    if (source == frames_from::prebuilt) return std::move(frames[static_cast<std::size_t>(i)]);
    if (source == frames_from::segment || source == frames_from::segment_echo) {
      rd::out_frame f(segment_frame_inline);
      std::memset(f.data(), 0, segment_frame_inline);
      if (source == frames_from::segment) {
        f.add_segment(own, bytes);
        got.last_segment.reset();
      } else {
        f.add_segment(std::move(got.last_segment), bytes);
      }
      return f;
    }
    rd::out_frame f(bytes);  // built just before the send, as the runtime packs one
    std::memset(f.data(), 0, bytes);
    return f;
  };
  auto await_one = [&](std::uint64_t target) {
    while (got.count < target)
      if (!t.progress() && use_wait) t.wait(std::chrono::microseconds(1000));
  };
  MPI_Barrier(MPI_COMM_WORLD);  // the program's own communicator; the transport uses private ones
  std::uint64_t base = got.count;
  double t0 = MPI_Wtime();
  for (int i = 0; i < iters; ++i) {
    if (me == 0) {
      t.send(peer, next_frame(i));
      await_one(base + static_cast<std::uint64_t>(i) + 1);
    } else {
      await_one(base + static_cast<std::uint64_t>(i) + 1);
      t.send(peer, next_frame(i));
    }
  }
  double one_way = (MPI_Wtime() - t0) * 1e6 / iters / 2;
  // The last reply's send may still be in flight on rank 1.
  for (int k = 0; k < 1000; ++k) t.progress();
  return one_way;
}

std::vector<double> transport_case(rd::transport& t, arrivals& got, std::size_t bytes, int reps, bool use_wait,
                                   frames_from source) {
  int iters = iterations(bytes);
  transport_round_trips(t, got, bytes, std::max(2, iters / 10), use_wait, source);
  std::vector<double> samples;
  for (int r = 0; r < reps; ++r) samples.push_back(transport_round_trips(t, got, bytes, iters, use_wait, source));
  return samples;
}

void report(const std::string& name, std::size_t bytes, const std::vector<double>& one_way_us, bool json,
            std::map<std::pair<std::string, std::size_t>, double>& medians) {
  result lat{"mpi", name, 2, static_cast<std::int64_t>(bytes), "one-way us", one_way_us};
  std::vector<double> mbps;
  for (double us : one_way_us) mbps.push_back(static_cast<double>(bytes) / us);  // bytes/us = MB/s
  result bw{"mpi", name, 2, static_cast<std::int64_t>(bytes), "MB/s", mbps};
  roam_bench::print(lat, json);
  roam_bench::print(bw, json);
  medians[{name, bytes}] = roam_bench::median(one_way_us);
}

}  // namespace

int main(int argc, char** argv) {
  config cfg = parse(argc, argv);
  g_iters_override = cfg.iters;
  // The benchmark owns MPI; the transport then finds it initialised, uses its
  // own duplicated communicators, and leaves MPI_Finalize to us.
  int provided = 0;
  MPI_Init_thread(&argc, &argv, MPI_THREAD_FUNNELED, &provided);
  int rank = 0, size = 0;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  if (size != 2) {
    if (rank == 0) std::fprintf(stderr, "mpi-pingpong: run it with exactly 2 ranks (mpirun -n 2)\n");
    MPI_Finalize();
    return 2;
  }
  const bool json = cfg.json && rank == 0, print = rank == 0;
  if (print) roam_bench::print_header(json);
  std::map<std::pair<std::string, std::size_t>, double> medians;

  if (cfg.mode == "plain" || cfg.mode == "all")
    for (auto [kind, name] : {std::pair{plain_buffers::reused, "plain"}, std::pair{plain_buffers::rotating, "plain_rotating"},
                              std::pair{plain_buffers::fresh, "plain_fresh"}, std::pair{plain_buffers::echo, "plain_echo"}})
      for (std::size_t bytes : cfg.sizes) {
        auto samples = plain_case(rank, bytes, cfg.reps, kind);
        if (print) report(name, bytes, samples, json, medians);
      }

  if (cfg.mode == "transport" || cfg.mode == "all") {
    std::string error;
    std::unique_ptr<rd::transport> t = rd::make_mpi_transport(error);
    if (!t) {
      std::fprintf(stderr, "mpi-pingpong: %s\n", error.c_str());
      MPI_Abort(MPI_COMM_WORLD, 1);
    }
    arrivals got;
    t->set_handlers(rd::transport_handlers{&got, &count_frame, nullptr});
    struct variant {
      const char* name;
      bool use_wait;
      frames_from source;
    };
    for (variant v : {variant{"transport", false, frames_from::prebuilt},
                      variant{"transport_wait", true, frames_from::prebuilt},
                      variant{"transport_alloc", false, frames_from::allocated},
                      variant{"transport_segment", false, frames_from::segment},
                      variant{"transport_segment_echo", false, frames_from::segment_echo}})
      for (std::size_t bytes : cfg.sizes) {
        auto samples = transport_case(*t, got, bytes, cfg.reps, v.use_wait, v.source);
        if (print) report(v.name, bytes, samples, json, medians);
      }
    t->finish();
  }

  if (print && !json && cfg.mode == "all") {
    // Medians of one-way us, like against like: transport (pre-built frames)
    // over plain_rotating, transport_alloc (frames built just before sending)
    // over plain_fresh; MB/s of plain_fresh and transport_alloc.
    std::printf("\none-way us (median)\n%8s %8s %8s %8s %8s %8s %8s %8s %8s %8s %7s %7s %7s %7s\n", "bytes",
                "plain", "p_rot", "p_fresh", "p_echo", "transp", "t_wait", "t_alloc", "t_seg", "t_segec", "t/p_rot",
                "a/p_fr", "p/t_seg", "pe/tse");
    for (std::size_t bytes : cfg.sizes) {
      double p = medians[{"plain", bytes}], pr = medians[{"plain_rotating", bytes}];
      double pf = medians[{"plain_fresh", bytes}], tr = medians[{"transport", bytes}];
      double tw = medians[{"transport_wait", bytes}], ta = medians[{"transport_alloc", bytes}];
      double ts = medians[{"transport_segment", bytes}];
      double pe = medians[{"plain_echo", bytes}], te = medians[{"transport_segment_echo", bytes}];
      std::printf("%8zu %8.3f %8.3f %8.3f %8.3f %8.3f %8.3f %8.3f %8.3f %8.3f %7.2f %7.2f %7.2f %7.2f\n", bytes, p, pr,
                  pf, pe, tr, tw, ta, ts, te, tr / pr, ta / pf, p / ts, pe / te);
    }
  }
  MPI_Finalize();
  return 0;
}
