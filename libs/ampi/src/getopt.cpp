// getopt() and its long forms called by ranks. The C library keeps the
// parse in process globals (optind, optarg, optopt, opterr, and, hidden
// inside glibc, its position within an argument and the permutation it is
// building), and the ranks of a process share them: the first rank to parse
// its command line leaves optind past the end, and the next rank's getopt
// returns -1 at once — it sees no options; ranks parsing at once on two PEs
// would read each other's optarg. These definitions take the C library's
// place (in the loader and in programs linked with roam::ampi):
// - one rank parses at a time: from its first call until 2 ms after a call
//   returned -1 (time to read optind: the positional arguments) it owns the
//   globals, and another rank that calls meanwhile yields its PE until they
//   are free (so what the owner reads between its calls, optarg and
//   optind, is its own; a rank descheduled by the system for longer than
//   that between -1 and its read of optind could still see another's);
// - each rank keeps in its thread (a thread_private: it moves with the
//   rank) how many calls its parse made; a rank whose parse was left
//   unfinished (it stopped before -1, or it blocked in the middle of its
//   parse — an MPI call inside the loop — for 100 ms while others waited:
//   the globals are taken from it) finds glibc's hidden state rebuilt when
//   it calls again: a fresh parse replayed, silently, for as many calls as
//   it made, on its arguments;
// - optind written by the program since the last call (1 or 0, to parse
//   again) starts a new parse.
#include <dlfcn.h>
#include <getopt.h>
#include <unistd.h>

#include <chrono>
#include <mutex>
#include <stdexcept>

#include <roam/iso/thread.hpp>
#include <roam/sched/thread.hpp>

namespace {

struct parse_state {
  bool started = false;
  int calls = 0;  // calls made in the current parse
};

roam::thread_private<parse_state> g_parse;
std::mutex g_globals;                   // held during one call (and to take ownership)
const parse_state* g_holder = nullptr;  // the rank whose parse glibc's state is (compared, never written through)
const parse_state* g_owner = nullptr;   // the rank parsing now (until -1), or none
std::chrono::steady_clock::time_point g_owner_seen;  // its last call
int g_left_at = 1;                      // optind as the last call left it (another value: the program wrote it)
bool g_owner_done = false;              // its last call returned -1 (it reads optind now)
constexpr auto owner_patience = std::chrono::milliseconds(100);
constexpr auto owner_reading = std::chrono::milliseconds(2);

bool in_a_rank_thread() noexcept {
  try {
    return roam::this_thread_owner_address() != nullptr;
  } catch (const std::exception&) {
    return false;
  }
}

template <class F>
F libc_function(const char* name) noexcept {
  return reinterpret_cast<F>(::dlsym(RTLD_NEXT, name));
}

using short_form = int (*)(int, char* const*, const char*);
using long_form = int (*)(int, char* const*, const char*, const struct option*, int*);

// Runs `parse` (one call of the C library's function) as the calling rank.
template <class Parse>
int as_this_rank(Parse parse) {
  if (!in_a_rank_thread()) return parse();
  parse_state& mine = g_parse.get();
  std::unique_lock lock(g_globals);
  // (The owner's own record is in its thread, which may have moved away
  // or ended: only the time of its last call, kept here, is looked at.)
  while (g_owner != nullptr && g_owner != &mine) {
    if (std::chrono::steady_clock::now() - g_owner_seen > (g_owner_done ? owner_reading : owner_patience))
      break;  // done and read, or blocked in the middle of its parse: take the globals (it replays later)
    lock.unlock();
    roam::this_thread_yield();
    lock.lock();
  }
  if (!mine.started || optind != g_left_at) {
    // This rank's first parse, or optind was written since the last call
    // (by the caller, to parse again: it has not yielded since).
    if (!mine.started || optind <= 1) optind = 0;  // glibc's full restart
    mine.started = true;
    mine.calls = 0;
  } else if (g_holder != &mine) {
    const int errors_were = opterr;
    opterr = 0;  // the replay prints nothing: its messages were printed the first time
    optind = 0;
    for (int i = 0; i < mine.calls; ++i) parse();
    opterr = errors_were;
  }
  g_holder = &mine;
  const int result = parse();
  ++mine.calls;
  g_left_at = optind;
  g_owner = &mine;
  g_owner_done = result == -1;
  g_owner_seen = std::chrono::steady_clock::now();
  return result;
}

}  // namespace

extern "C" int getopt(int argc, char* const* argv, const char* options) noexcept {
  static const auto libc = libc_function<short_form>("getopt");
  return as_this_rank([&] { return libc(argc, argv, options); });
}

extern "C" int getopt_long(int argc, char* const* argv, const char* options, const struct option* longs,
                           int* index) noexcept {
  static const auto libc = libc_function<long_form>("getopt_long");
  return as_this_rank([&] { return libc(argc, argv, options, longs, index); });
}

extern "C" int getopt_long_only(int argc, char* const* argv, const char* options, const struct option* longs,
                                int* index) noexcept {
  static const auto libc = libc_function<long_form>("getopt_long_only");
  return as_this_rank([&] { return libc(argc, argv, options, longs, index); });
}
