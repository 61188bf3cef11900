// library_mode_check: roam as a library of an MPI program (issue #41,
// include/roam/interop/mpi_library.hpp). MPI_COMM_WORLD is split: the even
// ranks start roam on their communicator, the odd ranks do MPI alone. Then,
// K times: every rank computes an input in an MPI phase (an allreduce over
// the world), the roam ranks make a library call whose roam work reads each
// process's input (a group) and grows the state of array elements that
// persist from call to call and move between PEs on every call, rank 0
// broadcasts the call's result over the world, and every rank checks it
// against the formula.
//
//   mpirun -n 4 library_mode_check [--calls K] [--all] [--empty-calls C] [+ppn P]
//     --empty-calls: then times C calls of an empty function (µs per call)
//   mpirun -n 2 library_mode_check --error WHAT
//     WHAT: no_mpi single null_comm twice call_before_init exit_twice throw restart
// Prints "library_mode_check: OK ..." (rank 0), or for --error the message
// library_error carried: "library_mode_check: caught: ...".
#include <mpi.h>

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <optional>
#include <stdexcept>
#include <string>
#include <vector>

#include <roam/interop/mpi_library.hpp>
#include <roam/roam.hpp>

namespace {

constexpr int elements = 8;

// This process's input for the current call, set by its MPI phase and read
// by roam through a group member of each of its PEs.
std::int64_t g_input = 0;

struct reader : roam::group_member<reader> {
  std::int64_t input() { return g_input; }
};

struct counter : roam::element<counter> {
  counter() = default;
  explicit counter(roam::migrating) {}
  std::int64_t total = 0;
  // Grows by k+1 on call k, answers total·(i+1), then moves one PE on.
  std::int64_t step(int k) {
    total += k + 1;
    migrate_to(roam::pe_id{(roam::my_pe().value() + 1) % roam::num_pes()});
    return total * (this_index()[0] + 1);
  }
  void pup(roam::pup_er& p) { p | total; }
};

// Node 0's handles, made by the first call and used by the others.
std::optional<roam::array_proxy<counter>> g_counters;
std::optional<roam::group_proxy<reader>> g_readers;

roam::task<std::int64_t> one_call(int k) {
  if (!g_counters) {
    g_counters = roam::create_array<counter>(roam::index<1>{elements});
    g_readers = roam::create_group<reader>();
  }
  std::int64_t sum = 0;
  for (int i = 0; i < elements; ++i) sum += co_await (*g_counters)[{i}].call<&counter::step>(k);
  for (std::uint32_t pe = 0; pe < roam::num_pes(); ++pe)
    sum += co_await (*g_readers)[roam::pe_id{pe}].call<&reader::input>();
  co_return sum;
}

// What call k returns: element i's total after k+1 calls is (k+1)(k+2)/2;
// each roam rank r (world rank 2r or r) gives ppn PEs reading its input.
std::int64_t expected(int k, const std::vector<int>& roam_world_ranks, int ppn) {
  const std::int64_t total = std::int64_t{k + 1} * (k + 2) / 2;
  std::int64_t sum = 0;
  for (int i = 0; i < elements; ++i) sum += total * (i + 1);
  for (int w : roam_world_ranks) sum += std::int64_t{ppn} * (w + 1) * (k + 1);
  return sum;
}

int caught(const std::exception& e) {
  std::printf("library_mode_check: caught: %s\n", e.what());
  std::fflush(stdout);
  return 0;
}

// The misuses, each expected to throw roam::library_error.
int run_error(const std::string& what, int& argc, char** argv) {
  if (what == "no_mpi") {
    try {
      roam::library_init(MPI_COMM_WORLD, argc, argv);
    } catch (const roam::library_error& e) {
      return caught(e);
    }
    return 1;
  }
  int provided = 0;
  MPI_Init_thread(&argc, &argv, what == "single" ? MPI_THREAD_SINGLE : MPI_THREAD_FUNNELED, &provided);
  int status = 1;
  try {
    if (what == "single" || what == "twice" || what == "exit_twice" || what == "restart" || what == "throw") {
      roam::library_init(MPI_COMM_WORLD, argc, argv);
      if (what == "twice") roam::library_init(MPI_COMM_WORLD, argc, argv);
      if (what == "throw") {
        try {
          roam::library_call([]() -> roam::task<int> {
            throw std::runtime_error("boom from the library");
            co_return 0;
          });
        } catch (const roam::library_error& e) {
          caught(e);
        }
        // roam goes on after a failed call.
        const int after = roam::library_call([] { return static_cast<int>(roam::num_pes()); });
        std::printf("library_mode_check: after the failed call, a call returned %d pes\n", after);
        roam::library_exit();
        MPI_Finalize();
        return 0;
      }
      roam::library_exit();
      if (what == "exit_twice") roam::library_exit();
      if (what == "restart") roam::library_init(MPI_COMM_WORLD, argc, argv);
    } else if (what == "null_comm") {
      roam::library_init(MPI_COMM_NULL, argc, argv);
    } else if (what == "call_before_init") {
      roam::library_call([] { return 0; });
    } else {
      std::fprintf(stderr, "library_mode_check: unknown --error '%s'\n", what.c_str());
      status = 2;
    }
  } catch (const roam::library_error& e) {
    status = caught(e);
    if (roam::library_running()) roam::library_exit();
  }
  MPI_Finalize();
  return status;
}

int usage(bool help) {
  std::fprintf(help ? stdout : stderr,
               "usage: library_mode_check [--calls K] [--all] [--empty-calls C] [--error WHAT] [+ppn P]\n"
               "  roam on the even MPI ranks (--all: every rank), K library calls between MPI phases\n"
               "example: mpirun -n 4 library_mode_check --calls 10 +ppn 2\n");
  return help ? 0 : 2;
}

}  // namespace

int main(int argc, char** argv) {
  int calls = 10, empty_calls = 0;
  bool all = false;
  for (int i = 1; i < argc; ++i) {
    const std::string w = argv[i];
    if (w == "--error" && i + 1 < argc) return run_error(argv[i + 1], argc, argv);
    if (w == "--calls" && i + 1 < argc) calls = std::atoi(argv[++i]);
    else if (w == "--all") all = true;
    else if (w == "--empty-calls" && i + 1 < argc) empty_calls = std::atoi(argv[++i]);
    else if (w == "--help" || w == "-h") return usage(true);
    else if (w.empty() || w[0] != '+') {
      std::fprintf(stderr, "library_mode_check: unknown option '%s'\n", w.c_str());
      return usage(false);
    } else if (w == "+ppn" && i + 1 < argc) ++i;
  }
  int provided = 0;
  MPI_Init_thread(&argc, &argv, MPI_THREAD_FUNNELED, &provided);
  int rank = 0, size = 1;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  const bool in_roam = all || rank % 2 == 0;
  MPI_Comm roam_comm = MPI_COMM_NULL;
  MPI_Comm_split(MPI_COMM_WORLD, in_roam ? 0 : MPI_UNDEFINED, rank, &roam_comm);
  std::vector<int> roam_ranks;
  for (int r = 0; r < size; ++r)
    if (all || r % 2 == 0) roam_ranks.push_back(r);

  int ppn = 1;
  if (in_roam) {
    roam::library_init(roam_comm, argc, argv);
    ppn = static_cast<int>(roam::library_call([] { return roam::num_pes() / roam::num_nodes(); }));
  }
  MPI_Bcast(&ppn, 1, MPI_INT, 0, MPI_COMM_WORLD);
  int bad = 0;
  for (int k = 0; k < calls; ++k) {
    // MPI phase: everyone, roam ranks included.
    int kk = k, ksum = 0;
    MPI_Allreduce(&kk, &ksum, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    g_input = std::int64_t{rank + 1} * (ksum / size + 1);
    std::int64_t result = 0;
    if (in_roam) result = roam::library_call([k] { return one_call(k); });
    MPI_Bcast(&result, 1, MPI_INT64_T, 0, MPI_COMM_WORLD);
    if (result != expected(k, roam_ranks, ppn)) {
      std::fprintf(stderr, "library_mode_check: rank %d call %d: %lld, expected %lld\n", rank, k,
                   static_cast<long long>(result), static_cast<long long>(expected(k, roam_ranks, ppn)));
      bad = 1;
    }
  }
  if (in_roam) {
    // Calls back to back with no MPI between them: node 0 ends each at once
    // (its function needs no other process), so ends queue up in the other
    // processes, which must take them in order, one per call.
    for (int i = 0; i < 20; ++i) {
      const int got = roam::library_call([i] { return i; });
      if (got != i) {
        std::fprintf(stderr, "library_mode_check: rank %d: back-to-back call %d returned %d\n", rank, i, got);
        bad = 1;
      }
    }
  }
  if (in_roam && empty_calls > 0) {
    // The cost of a call itself: an empty function, every rank of `comm`.
    const double t0 = MPI_Wtime();
    for (int i = 0; i < empty_calls; ++i) roam::library_call([] {});
    const double us = (MPI_Wtime() - t0) / empty_calls * 1e6;
    if (rank == 0) std::printf("library_mode_check: an empty library_call takes %.2f us (%d calls)\n", us, empty_calls);
  }
  if (in_roam) {
    roam::library_exit();
    MPI_Comm_free(&roam_comm);
  }
  int any_bad = 0;
  MPI_Allreduce(&bad, &any_bad, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
  if (rank == 0 && !any_bad)
    std::printf("library_mode_check: OK, %d calls, roam on %zu of %d ranks with %d pes each\n", calls,
                roam_ranks.size(), size, ppn);
  MPI_Finalize();
  return any_bad;
}
