// exit() called by a rank. An MPI process that calls exit(status) ends, and
// the job with it, with that status; a rank is a thread sharing its process
// with other ranks and the runtime, so the C library's exit (atexit
// handlers, static destructors, under the feet of every other rank still
// running) would crash the process instead. exit.c's exit() takes the
// C library's place in the program and the loader: on a rank's thread it
// ends the program like MPI_Abort (without the message) and the rank
// blocks for good; anywhere else it is the C library's exit.
#include <dlfcn.h>

#include <cstdio>
#include <stdexcept>

#include <roam/iso/thread.hpp>
#include <roam/sched/runtime.hpp>

namespace {

bool on_a_rank() noexcept {
  try {
    return roam::this_thread_owner_address() != nullptr;
  } catch (const std::exception&) {
    return false;  // not a migratable thread: the runtime, main, a helper thread
  }
}

using exit_function = void (*)(int);

exit_function libc_exit() noexcept {
  static const auto real = reinterpret_cast<exit_function>(::dlsym(RTLD_NEXT, "exit"));
  return real;
}

}  // namespace

// On a rank's thread: ends the program with `status` and blocks for good
// (returns only when the runtime tears the thread down by unwinding it).
// Elsewhere: returns 0 at once. Called by exit() (exit.c).
extern "C" int roam_ampi_exit_on_rank(int status) {
  if (!on_a_rank()) return 0;
  std::fflush(nullptr);
  roam::exit(status);
  for (;;) roam::suspend_this_thread();  // the program ends; the rank never runs again
}

extern "C" void roam_ampi_libc_exit(int status) {
  if (exit_function real = libc_exit()) real(status);
  std::_Exit(status);  // no C library exit found (cannot happen with glibc): end without handlers
}
