#pragma once
// What rma.cpp (windows, operations, synchronization) shares with
// rma_windows.cpp (dynamic and shared windows, info hints, MPI_Win_sync,
// local flushes).
#include <cstdint>
#include <string>

#include <mpi.h>

#include "rank.hpp"

namespace roam::ampi {

/// The window `handle` of `r`, or null.
window* find_window(rank& r, int handle);
/// The window of `r` that one-sided messages name by `context`, or null.
window* window_of(rank& r, std::uint64_t context);
/// A new window of `comm`'s members (collective; ends with a barrier, so
/// that no member is reached before it has the window). `flavor` is an
/// MPI_WIN_FLAVOR_*; `hints` the creation's info (MPI_INFO_NULL: none).
int make_window(void* base, MPI_Aint size, int disp_unit, MPI_Info hints, MPI_Comm comm, MPI_Win* win, int flavor,
                const char* function);
/// Reports (through the window's error handler) an operation a target
/// refused since the last report, naming the window, the target and the
/// address; MPI_SUCCESS when there was none.
int report_refused(MPI_Win win, const char* function);
/// Records an info object's entries as the window's hints (rma_windows.cpp).
void record_hints(window& w, MPI_Info info);
/// Frees a shared window's process memory (its rank 0, at MPI_Win_free).
void release_shared(window& w);
/// An address as messages print it (0x...).
std::string address_text(std::uint64_t address);

}  // namespace roam::ampi
