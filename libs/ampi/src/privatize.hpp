#pragma once
// Per-rank globals for unmodified programs ("PIE globals";
// docs/design/ampi.md): the MPI program is a position-independent shared
// object (ampicc builds it so) that the roam-ampi loader opens once per
// process. Each rank gets its own copy of the whole loaded image (code and
// data) in its thread's heap, with every relocated pointer into the image
// moved to the copy, and runs the copy's constructors and main: every global
// and static of the program is the rank's, at an address that moves with the
// rank. The program's own shared libraries (linked with it, and not already
// in the loader's process) are copied with it, after it in the same block:
// their globals are the rank's too. Calls out of the image (MPI, libc) go
// through the copy's GOT to the process's libraries, which are at the same
// addresses in every process.
#include <cstdint>
#include <string>

namespace roam::ampi {

/// The program shared object of this run (+ampi_program), or "" when the
/// program is linked into the executable (its main renamed by mpi.h).
const std::string& program_path();
/// Whether each rank gets its own copy of the program's globals
/// (+ampi_privatize, on by default for a program shared object).
bool privatizing();

/// Opens the program shared object in this process (once; later calls
/// return at once). Stops the run with a clear message when it cannot.
void load_program();

/// Makes the calling rank's copy of the program image (and its own
/// libraries) in its thread heap and runs the copy's constructors; returns the copy's address (0 when not
/// privatizing).
std::uint64_t make_rank_image();
/// Runs the program's main: the rank's copy's when `image` is not 0, else the
/// one shared object's (or the executable's renamed main).
int run_program_main(std::uint64_t image, int argc, char** argv);

/// After a rank's copy arrived in this process (a move, a restart): its code
/// pages made executable again and its unwind tables registered.
void image_arrived(std::uint64_t image);
/// Before the memory of a rank's copy leaves this process or ends: its
/// unwind tables are deregistered.
void image_leaving(std::uint64_t image);

}  // namespace roam::ampi
