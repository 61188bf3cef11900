#pragma once
/// In-memory checkpoints and recovery from failed processes
/// (docs/design/fault-tolerance.md).
///
///   roam::checkpoint_in_memory(roam::callback<roam::checkpoint_result>::to<&driver::saved>(this_proxy(), step));
///
/// The runtime waits for quiescence, as roam::checkpoint does, packs every
/// object into its process's memory and sends a copy to the process's buddy
/// (the next process); once every process holds both, the checkpoint is
/// committed (the previous one is dropped only then) and `done` fires.
///
/// When a process of the job fails (killed, or silent for +fttimeout), the
/// survivors agree on it, stop, and roll back to the newest committed
/// in-memory checkpoint: its objects are rebuilt where the maps put them on
/// the processes that remain (a spare, started by `roamrun --spares N`,
/// takes the failed process's place; without one the job goes on with fewer
/// processes), restart entries start again, and `done` fires once more with
/// `restarted` and `recovered` set. A failure before any checkpoint was
/// committed ends the job (exit status 1).
#include <roam/ft/checkpoint.hpp>

namespace roam {

/// Takes an in-memory checkpoint (callable from any PE; one checkpoint of
/// either kind at a time). Failures (an object that cannot be packed...)
/// are reported through `done`; the previous checkpoint stays.
void checkpoint_in_memory(callback<checkpoint_result> done);

/// Silences this process at once, as if its machine had stopped (Charm++'s
/// CkDieNow): it sends nothing more, heartbeats included, and the others
/// declare it failed after +fttimeout and recover. For tests of recovery.
/// In a single process it ends the program with status 1.
[[noreturn]] void die_now();

}  // namespace roam
