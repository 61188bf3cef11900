// mpi_put_pingpong: the MPI side of the CkDirect seed's ping-pong (Table 1),
// run with mpirun -n 2 beside direct_pingpong: round trips of MPI_Send /
// MPI_Recv ("two_sided"), and of MPI_Put into the partner's window followed
// by a flag the partner polls, with passive-target synchronisation
// (MPI_Win_lock_all once, MPI_Win_flush after the data and after the flag:
// "put"), the closest MPI form of a channel put.
//
//   mpirun -n 2 mpi_put_pingpong [--sizes 100,1000,...] [--seconds S]
// Prints "mpi_put_pingpong: MODE BYTES B round trip X us [min .. max]"
// (the median of 5 batches) and a JSON line each.
#include <mpi.h>

#include <algorithm>
#include <atomic>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <sstream>
#include <string>
#include <vector>

namespace {

double batch_two_sided(std::vector<char>& buf, int me, long trips) {
  const int other = 1 - me;
  const int n = static_cast<int>(buf.size());
  MPI_Barrier(MPI_COMM_WORLD);
  const double t0 = MPI_Wtime();
  for (long i = 0; i < trips; ++i) {
    if (me == 0) {
      MPI_Send(buf.data(), n, MPI_BYTE, other, 1, MPI_COMM_WORLD);
      MPI_Recv(buf.data(), n, MPI_BYTE, other, 1, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    } else {
      MPI_Recv(buf.data(), n, MPI_BYTE, other, 1, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
      MPI_Send(buf.data(), n, MPI_BYTE, other, 1, MPI_COMM_WORLD);
    }
  }
  return MPI_Wtime() - t0;
}

// The window: the data, then a 64-bit sequence number the writer sets last.
double batch_put(std::vector<char>& src, char* win_mem, MPI_Win win, int me, long trips, long long& seq) {
  const int other = 1 - me;
  const MPI_Aint bytes = static_cast<MPI_Aint>(src.size());
  auto* flag = reinterpret_cast<volatile long long*>(win_mem + ((bytes + 7) & ~MPI_Aint{7}));
  auto put_to_other = [&](long long s) {
    if (bytes > 0) MPI_Put(src.data(), static_cast<int>(bytes), MPI_BYTE, other, 0, static_cast<int>(bytes), MPI_BYTE, win);
    MPI_Win_flush(other, win);
    MPI_Put(&s, 1, MPI_LONG_LONG, other, (bytes + 7) & ~MPI_Aint{7}, 1, MPI_LONG_LONG, win);
    MPI_Win_flush(other, win);
  };
  auto wait_for = [&](long long s) {
    while (*flag < s) MPI_Win_sync(win);
  };
  MPI_Barrier(MPI_COMM_WORLD);
  const double t0 = MPI_Wtime();
  for (long i = 0; i < trips; ++i) {
    ++seq;
    if (me == 0) {
      put_to_other(seq);
      wait_for(seq);
    } else {
      wait_for(seq);
      put_to_other(seq);
    }
  }
  return MPI_Wtime() - t0;
}

}  // namespace

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  int me = 0, np = 0;
  MPI_Comm_rank(MPI_COMM_WORLD, &me);
  MPI_Comm_size(MPI_COMM_WORLD, &np);
  if (np != 2) {
    if (me == 0) std::fprintf(stderr, "mpi_put_pingpong: run on 2 ranks\n");
    MPI_Abort(MPI_COMM_WORLD, 2);
  }
  std::vector<long long> sizes{100, 1000, 5000, 10000, 20000, 30000, 40000, 70000, 100000, 500000};
  double seconds = 2.0;
  for (int i = 1; i < argc; ++i) {
    if (!std::strcmp(argv[i], "--sizes") && i + 1 < argc) {
      sizes.clear();
      std::stringstream ss(argv[++i]);
      for (std::string t; std::getline(ss, t, ',');) sizes.push_back(std::atoll(t.c_str()));
    } else if (!std::strcmp(argv[i], "--seconds") && i + 1 < argc) {
      seconds = std::atof(argv[++i]);
    } else {
      if (me == 0) {
        if (!std::strcmp(argv[i], "--help"))
          std::printf("usage: mpirun -n 2 mpi_put_pingpong [--sizes 100,1000,...] [--seconds S]\n");
        else
          std::fprintf(stderr, "mpi_put_pingpong: unknown argument '%s' (--help lists them)\n", argv[i]);
      }
      MPI_Finalize();
      return std::strcmp(argv[i], "--help") ? 2 : 0;
    }
  }
  for (long long b : sizes)
    if (b <= 0 || seconds <= 0) {
      if (me == 0) std::fprintf(stderr, "mpi_put_pingpong: --sizes takes positive byte counts, --seconds a positive time\n");
      MPI_Finalize();
      return 2;
    }
  for (long long bytes : sizes) {
    std::vector<char> buf(static_cast<std::size_t>(bytes), 1);
    char* win_mem = nullptr;
    MPI_Win win;
    MPI_Win_allocate(static_cast<MPI_Aint>(((bytes + 7) & ~7LL) + 8), 1, MPI_INFO_NULL, MPI_COMM_WORLD, &win_mem, &win);
    std::memset(win_mem, 0, static_cast<std::size_t>(((bytes + 7) & ~7LL) + 8));
    MPI_Win_lock_all(0, win);
    long long seq = 0;
    for (const char* mode : {"two_sided", "put"}) {
      const bool put = !std::strcmp(mode, "put");
      auto run = [&](long trips) {
        double t = put ? batch_put(buf, win_mem, win, me, trips, seq) : batch_two_sided(buf, me, trips);
        MPI_Bcast(&t, 1, MPI_DOUBLE, 0, MPI_COMM_WORLD);
        return t;
      };
      long trips = 50;
      for (;;) {
        const double t = run(trips);
        if (t > seconds / 50 || trips > (1L << 30)) {
          trips = std::max(10L, static_cast<long>(static_cast<double>(trips) * (seconds / 5) / t));
          break;
        }
        trips *= 4;
      }
      std::vector<double> us;
      for (int k = 0; k < 5; ++k) us.push_back(run(trips) * 1e6 / static_cast<double>(trips));
      std::sort(us.begin(), us.end());
      if (me == 0) {
        std::printf("mpi_put_pingpong: %-9s %7lld B round trip %9.3f us  [%.3f .. %.3f]\n", mode, bytes, us[2], us[0],
                    us[4]);
        std::printf("{\"bench\":\"mpi_put_pingpong\",\"mode\":\"%s\",\"bytes\":%lld,\"round_trip_us\":%.4f}\n", mode, bytes,
                    us[2]);
        std::fflush(stdout);
      }
    }
    MPI_Win_unlock_all(win);
    MPI_Win_free(&win);
  }
  MPI_Finalize();
  return 0;
}
