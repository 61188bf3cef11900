// mpi-pingpong: plain MPI ping-pong between 2 ranks, and the same ping-pong
// through roam's mpi transport (transport level, no runtime), so the
// transport's own overhead shows beside the MPI library's limit.
//   mpirun -n 2 mpi-pingpong [--json] [--reps R] [--mode plain|transport|all] [--sizes 8,1024,...]
// Cases: plain (MPI_Send/MPI_Recv, reused buffers), transport (send() from
// the progress thread, progress() until the reply: the non-SMP path), and
// transport_wait (the same, calling wait() whenever progress() found nothing,
// as an idle PE would). One-way latency = round trip / 2, median of the reps;
// MB/s = bytes / one-way time.
#include <mpi.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <map>
#include <string>
#include <vector>

#include "machine/transport.hpp"
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
double plain_round_trips(int rank, std::vector<char>& out, std::vector<char>& in, int iters) {
  const int n = static_cast<int>(out.size()), peer = 1 - rank;
  MPI_Barrier(MPI_COMM_WORLD);
  double t0 = MPI_Wtime();
  for (int i = 0; i < iters; ++i) {
    if (rank == 0) {
      MPI_Send(out.data(), n, MPI_BYTE, peer, 0, MPI_COMM_WORLD);
      MPI_Recv(in.data(), n, MPI_BYTE, peer, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    } else {
      MPI_Recv(in.data(), n, MPI_BYTE, peer, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
      MPI_Send(out.data(), n, MPI_BYTE, peer, 0, MPI_COMM_WORLD);
    }
  }
  return (MPI_Wtime() - t0) * 1e6 / iters / 2;
}

std::vector<double> plain_case(int rank, std::size_t bytes, int reps) {
  std::vector<char> out(bytes, 'x'), in(bytes);
  int iters = iterations(bytes);
  plain_round_trips(rank, out, in, std::max(2, iters / 10));  // warm-up
  std::vector<double> samples;
  for (int r = 0; r < reps; ++r) samples.push_back(plain_round_trips(rank, out, in, iters));
  return samples;
}

// ---- through the transport --------------------------------------------------

struct arrivals {
  std::uint64_t count = 0;
};

void count_frame(void* ctx, std::uint32_t, std::span<const std::byte>) { ++static_cast<arrivals*>(ctx)->count; }

double transport_round_trips(rd::transport& t, arrivals& got, std::size_t bytes, int iters, bool use_wait) {
  const std::uint32_t me = t.my_node(), peer = 1 - me;
  // Frames are built before the clock starts: send() consumes them, and
  // building one (allocation + fill) is the caller's cost, not the transport's.
  std::vector<std::vector<std::byte>> frames(static_cast<std::size_t>(iters), std::vector<std::byte>(bytes));
  auto await_one = [&](std::uint64_t target) {
    while (got.count < target)
      if (!t.progress() && use_wait) t.wait(std::chrono::microseconds(1000));
  };
  MPI_Barrier(MPI_COMM_WORLD);  // the program's own communicator; the transport uses private ones
  std::uint64_t base = got.count;
  double t0 = MPI_Wtime();
  for (int i = 0; i < iters; ++i) {
    auto& frame = frames[static_cast<std::size_t>(i)];
    if (me == 0) {
      t.send(peer, std::move(frame));
      await_one(base + static_cast<std::uint64_t>(i) + 1);
    } else {
      await_one(base + static_cast<std::uint64_t>(i) + 1);
      t.send(peer, std::move(frame));
    }
  }
  double one_way = (MPI_Wtime() - t0) * 1e6 / iters / 2;
  // The last reply's send may still be in flight on rank 1.
  for (int k = 0; k < 1000; ++k) t.progress();
  return one_way;
}

std::vector<double> transport_case(rd::transport& t, arrivals& got, std::size_t bytes, int reps, bool use_wait) {
  int iters = iterations(bytes);
  transport_round_trips(t, got, bytes, std::max(2, iters / 10), use_wait);
  std::vector<double> samples;
  for (int r = 0; r < reps; ++r) samples.push_back(transport_round_trips(t, got, bytes, iters, use_wait));
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
    for (std::size_t bytes : cfg.sizes) {
      auto samples = plain_case(rank, bytes, cfg.reps);
      if (print) report("plain", bytes, samples, json, medians);
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
    for (bool use_wait : {false, true})
      for (std::size_t bytes : cfg.sizes) {
        auto samples = transport_case(*t, got, bytes, cfg.reps, use_wait);
        if (print) report(use_wait ? "transport_wait" : "transport", bytes, samples, json, medians);
      }
    t->finish();
  }

  if (print && !json && cfg.mode == "all") {
    std::printf("\n%9s %12s %12s %12s %7s %12s %12s\n", "bytes", "plain us", "transport us", "+wait us", "ratio",
                "plain MB/s", "transp. MB/s");
    for (std::size_t bytes : cfg.sizes) {
      double p = medians[{"plain", bytes}], tr = medians[{"transport", bytes}], tw = medians[{"transport_wait", bytes}];
      std::printf("%9zu %12.3f %12.3f %12.3f %7.2f %12.0f %12.0f\n", bytes, p, tr, tw, tr / p,
                  static_cast<double>(bytes) / p, static_cast<double>(bytes) / tr);
    }
  }
  MPI_Finalize();
  return 0;
}
