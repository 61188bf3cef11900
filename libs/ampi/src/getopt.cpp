// getopt() and its long forms called by ranks. The C library keeps the
// parse in process globals (optind, optarg, optopt, opterr, and its own
// position inside an argument), and the ranks of a process share them: the
// first rank to parse its command line leaves optind past the end, and the
// next rank's getopt returns -1 at once — it sees no options. These
// definitions take the C library's place (in the loader and in programs
// linked with roam::ampi) and give each rank its own parse: the globals
// belong to one rank at a time; each call leaves their values in the
// calling rank's thread (a thread_private, which moves with it), and a call
// by another rank puts its own back first, or, at its first call, starts a
// fresh parse (optind 0: glibc's full restart). What a rank writes to optind itself
// (optind = 1 to parse again) is kept, as long as no other rank parses
// in between. Off a rank these are the C library's functions.
#include <dlfcn.h>
#include <getopt.h>
#include <unistd.h>

#include <mutex>
#include <stdexcept>

#include <roam/iso/thread.hpp>

namespace {

struct parse_state {
  bool started = false;
  int optind = 1;
  int opterr = 1;
  int optopt = '?';
  char* optarg = nullptr;
};

roam::thread_private<parse_state> g_parse;
std::mutex g_globals;               // the C library's getopt is not thread-safe either
const parse_state* g_holder = nullptr;  // the rank whose parse the globals hold (its thread's copy)

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

// Runs `parse` with the calling rank's state in the globals, and keeps the
// state it leaves in the rank (never in another rank's memory: that rank
// may have ended, or moved to another process, since).
template <class Parse>
int as_this_rank(Parse parse) {
  if (!in_a_rank_thread()) return parse();
  parse_state& mine = g_parse.get();
  const std::lock_guard lock(g_globals);
  if (!mine.started) {
    optind = 0;  // a fresh parse of this rank's arguments
    optarg = nullptr;
    mine.started = true;
  } else if (g_holder != &mine) {
    optind = mine.optind;
    opterr = mine.opterr;
    optopt = mine.optopt;
    optarg = mine.optarg;
  }
  g_holder = &mine;  // compared, never written through
  const int result = parse();
  mine = {true, optind, opterr, optopt, optarg};
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
