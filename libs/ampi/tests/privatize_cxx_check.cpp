// privatize_cxx_check: a C++ MPI program built by ampicxx: globals with
// constructors (a std::string, a std::vector, an object) made per rank, and
// exceptions thrown and caught through the rank's copy of the code after
// every move. Rank 0 prints "privatize_cxx_check: OK (N ranks)".
#include <mpi.h>
#include <cstdio>
#include <stdexcept>
#include <string>
#include <vector>
std::string name = "rank";          // constructed per rank
std::vector<int> seen;              // per rank, in the rank's heap
struct tracker { int made = 0; tracker() { made = 1; } };
tracker t;
static int depth_throw(int d) {
  if (d == 0) throw std::runtime_error("bottom " + name);
  return depth_throw(d - 1) + 1;
}
int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  int me, np;
  MPI_Comm_rank(MPI_COMM_WORLD, &me);
  MPI_Comm_size(MPI_COMM_WORLD, &np);
  name += std::to_string(me);
  int caught = 0;
  for (int i = 0; i < 4; ++i) {
    seen.push_back(AMPI_My_pe());
    AMPI_Migrate_to_pe((AMPI_My_pe() + 1) % AMPI_Num_pes());
    try {
      depth_throw(5);
    } catch (const std::runtime_error& e) {
      if (std::string(e.what()) == "bottom rank" + std::to_string(me)) ++caught;
    }
  }
  int ok = caught == 4 && seen.size() == 4 && t.made == 1 && name == "rank" + std::to_string(me);
  int all = 0;
  MPI_Allreduce(&ok, &all, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
  if (me == 0) {
    if (all == np) std::printf("privatize_cxx_check: OK (%d ranks)\n", np);
    else std::printf("privatize_cxx_check: FAILED (%d of %d ranks right)\n", all, np);
  }
  MPI_Finalize();
  return all == np ? 0 : 1;
}
