#pragma once
// What a window keeps beyond MPI-2's windows (rma.cpp, rma_windows.cpp):
// its flavor, a dynamic window's attached regions, a shared window's
// segments, its info hints, and an error a target reported. Packed with the
// window (ranks move and are checkpointed).
#include <cstdint>
#include <map>
#include <string>
#include <utility>
#include <vector>

#include <roam/roam.hpp>

namespace roam::ampi {

struct window_extras {
  int flavor = 1;  // MPI_WIN_FLAVOR_CREATE, _ALLOCATE, _DYNAMIC or _SHARED
  // MPI_Win_create_dynamic: the memory attached at this rank (address ->
  // bytes). Addresses are the rank's thread memory, the same wherever it
  // runs, so they stay valid when it moves.
  std::map<std::uint64_t, std::int64_t> regions;
  // MPI_Win_allocate_shared: every member's segment (by rank in the
  // window), in one block of process memory that the window's rank 0 frees.
  std::vector<std::uint64_t> shared_bases;
  std::vector<std::int64_t> shared_sizes;
  std::vector<int> shared_units;
  std::uint64_t segment = 0;
  // MPI_Win_set_info's hints, and those given at creation.
  std::vector<std::pair<std::string, std::string>> hints;
  // An operation a target refused (outside its attached memory), reported
  // at this rank's next synchronization on the window.
  std::string error;

  void pup(pup_er& p) { p | flavor | regions | shared_bases | shared_sizes | shared_units | segment | hints | error; }
};

}  // namespace roam::ampi
