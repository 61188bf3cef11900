#pragma once
// Hooks that higher layers register at static-initialisation time, so that the
// scheduler can run their checks and per-PE setup without depending on them.
#include <cstddef>
#include <cstdint>
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

/// What a recovery after a failed process asks of the checkpoint layer
/// (src/ft/recovery.cpp fills it; docs/design/fault-tolerance.md). The run
/// loop calls these on the progress thread while no runtime exists; every
/// live process calls them with the same inputs, so each decides the same.
struct recovery_hooks {
  /// What this process holds of in-memory checkpoints (opaque).
  std::vector<std::byte> (*inventory)() = nullptr;
  /// From every live process's inventory (index `me` is this one's): the
  /// bytes this process contributes to the checkpoint chosen. False and
  /// `error` when no complete checkpoint survives.
  bool (*plan)(const std::vector<std::vector<std::byte>>& inventories, std::uint32_t me,
               std::vector<std::byte>& contribution, std::string& error) = nullptr;
  /// Every live process's contribution: the checkpoint is whole here now;
  /// the next runtime (options.recovered) restores from it. False and `error`
  /// when it does not check.
  bool (*install)(std::vector<std::vector<std::byte>> contributions, std::string& error) = nullptr;
};
inline recovery_hooks g_recovery;

/// The newest recovery of this process's job, for the report the restarted
/// program makes once it runs again (steady_clock nanoseconds).
struct recovery_record {
  std::uint64_t epoch = 0;               ///< 0: this run never recovered
  std::int64_t detected_ns = 0;          ///< when this process first learned of the failure
  std::int64_t installed_ns = 0;         ///< when the checkpoint was whole here again
  /// "node 2 (PE 2) failed: <note>; <note>": the failed nodes (their PEs),
  /// then each failure note this process holds: the detecting process's
  /// reason, "... (reported by process K)" when process K detected it.
  std::string failed;
  std::uint32_t processes_before = 0;    ///< logical processes before and after
  std::uint32_t processes_after = 0;
};
inline recovery_record g_last_recovery;

}  // namespace roam::detail
