#pragma once
// Hooks that higher layers register at static-initialisation time, so that the
// scheduler can run their checks and per-PE setup without depending on them.
#include <string>
#include <vector>

#include <roam/sched/detail/unique_function.hpp>

namespace roam::detail {

struct runtime_state;

/// A check run before any PE starts; a non-empty result is a fatal start-up error.
using startup_check = std::string (*)();
/// Registers a check (static initialisation time). Returns true so it can initialise a variable.
bool register_startup_check(startup_check check);

/// Per-PE setup run on each PE's thread before its loop starts.
using pe_setup = void (*)(class pe_state&);
bool register_pe_setup(pe_setup setup);

/// Process-level hooks around a run: `started` once this process's runtime
/// exists and before any of its PEs starts (a non-empty result is a fatal
/// start-up error), `finished` once every one of its PEs has stopped; both on
/// the thread that called roam::run, `finished` in reverse registration order.
struct run_hooks {
  std::string (*started)(runtime_state&) = nullptr;
  void (*finished)(runtime_state&) = nullptr;
};
bool register_run_hooks(run_hooks hooks);

/// True while PE 0 runs main's synchronous part and no message has left it yet
/// (messages to PE 0 itself, such as creating a chare there, do not count):
/// the window in which readonly globals may be assigned.
bool readonly_window_open() noexcept;

/// What PE 0 runs instead of main under `+restart DIR` (set by the checkpoint
/// layer, src/ft/): it restores the readonlies in main's window, then the
/// objects. Null when that layer is not linked.
inline void (*g_restart_main)(const std::vector<std::string>& args) = nullptr;

}  // namespace roam::detail
