#pragma once
/// Checkpoints to disk, and restarting from them on any number of PEs and
/// processes (docs/design/checkpoint.md).
///
///   roam::checkpoint("ckpt", roam::callback<roam::checkpoint_result>::to<&driver::saved>(this_proxy()));
///
/// The runtime waits for quiescence (no message in flight, none running: the
/// program must be at a point where it waits for the callback), packs every
/// object through its pup (chares, array elements, group and nodegroup
/// members) with the readonly globals, writes one file per process in
/// parallel and a manifest last, and publishes the checkpoint atomically as
/// `dir/ckpt-NNNNNNNN/` (keeping the newest two). Then `done` fires with the
/// result. `prog +restart dir ...` starts from the newest complete checkpoint
/// in `dir` (or from a checkpoint directory named directly) instead of
/// running main: the readonlies and every object are rebuilt, suspended
/// restart-entry tasks start again, and `done` fires once more, with
/// `restarted` set.
#include <cstdint>
#include <string>
#include <string_view>

#include <roam/coll/callback.hpp>
#include <roam/msg/pup.hpp>

namespace roam {

/// What a checkpoint (or a restart from one) reports to its callback.
struct checkpoint_result {
  bool ok = false;            ///< written (or restored) completely
  bool restarted = false;     ///< delivered in a program restarted from this checkpoint
  bool recovered = false;     ///< ... restarted by a recovery after a process failed (in memory)
  bool in_memory = false;     ///< an in-memory checkpoint (roam::checkpoint_in_memory)
  std::string error;          ///< why not (ok == false): the file or object, and the reason
  std::string path;           ///< the checkpoint's directory: dir/ckpt-NNNNNNNN
  std::uint64_t number = 0;   ///< its sequence number in dir (1, 2, ...)
  std::uint64_t bytes = 0;    ///< bytes written (read, after a restart), files and manifest
  std::uint64_t objects = 0;  ///< objects saved (restored)
  double seconds = 0;         ///< from the request to the callback (the whole restart, after one)
  std::uint32_t pes = 0;      ///< PEs of the run that wrote it
  std::uint32_t processes = 0;
  void pup(pup_er& p) {
    p | ok | restarted | recovered | in_memory | error | path | number | bytes | objects | seconds | pes | processes;
  }
};

struct checkpoint_options {
  /// Complete checkpoints kept in the directory (older ones are removed once
  /// a new one is published); at least 1.
  std::uint32_t keep = 2;
  /// Every file and directory is fsynced before the checkpoint is published,
  /// so that it survives a crash of the machine. false: the same files, the
  /// same atomic rename, no fsync: the checkpoint survives the program's
  /// processes dying (the kernel still holds it) but not the machine's, as
  /// Charm++'s checkpoints; most of a small checkpoint's time is the fsyncs.
  bool durable = true;
};

/// Takes a checkpoint into directory `dir` (created if missing) and reports
/// to `done` (callable from any PE, at most one at a time: a second request
/// while one runs fails through its own callback). A checkpoint that cannot
/// be taken (an object that cannot be packed, a reduction partly contributed
/// at the cut) or written (disk full, permissions) is reported through
/// `done` with the reason; the program goes on and earlier checkpoints stay
/// as they were. `done` survives a restart only if its target does: an
/// entry method of an object or a function (not a future).
void checkpoint(std::string_view dir, callback<checkpoint_result> done, checkpoint_options options = {});

}  // namespace roam
