#pragma once
/// How a parallel simulation runs (simulation.hpp).
#include <algorithm>
#include <cstdint>
#include <string>

#include <roam/pdes/model.hpp>

namespace roam::pdes {

enum class synch : std::uint8_t {
  sequential,        ///< one PE, every event in order (the reference)
  conservative,      ///< only events below GVT + lookahead run: never a rollback
  optimistic,        ///< Time Warp: events run ahead, stragglers roll back
  optimistic_check,  ///< optimistic, and every event first runs forward and back to check its reverse handler
};

/// `"sequential"`, `"conservative"`, `"optimistic"`, `"optimistic-check"` (false: unknown).
inline bool parse_synch(const std::string& s, synch& out) {
  if (s == "sequential") out = synch::sequential;
  else if (s == "conservative") out = synch::conservative;
  else if (s == "optimistic") out = synch::optimistic;
  else if (s == "optimistic-check") out = synch::optimistic_check;
  else return false;
  return true;
}
inline const char* synch_name(synch s) noexcept {
  switch (s) {
    case synch::sequential: return "sequential";
    case synch::conservative: return "conservative";
    case synch::optimistic: return "optimistic";
    case synch::optimistic_check: return "optimistic-check";
  }
  return "?";
}

struct engine_options {
  lp_id lps = 0;               ///< LPs in the model (gids 0 .. lps-1)
  sim_time end = 0;            ///< events at or beyond it are never created
  synch mode = synch::optimistic;
  lp_id lps_per_chare = 0;     ///< LPs grouped into one migratable chare (0: about 4 chares per PE)
  sim_time lookahead = 0;      ///< conservative: the least send offset (every send is checked)
  sim_time max_optimism = infinite_time;  ///< optimistic: events only below GVT + this (a fixed window)
  /// Optimistic, no max_optimism: each PE bounds how far beyond GVT it runs
  /// by its own rollbacks, a window that shrinks while more than
  /// 1 - target_efficiency of its events are undone and grows back while
  /// far fewer are (docs/design/pdes.md, "Optimism"). Off: unbounded.
  bool auto_optimism = true;
  double target_efficiency = 0.98;
  std::uint32_t batch = 64;          ///< events per scheduling slice (then messages are let in); with adaptive_batch the most
  /// Optimistic: the slice follows the rollbacks, from batch / 4 (a quarter
  /// of the latency for the other PEs' messages) up to batch (a quarter of
  /// the scheduling and message overhead per event). Off: always `batch`.
  bool adaptive_batch = true;
  std::uint32_t gvt_interval = 16;   ///< PE 0's batches between GVT rounds
  std::uint64_t max_uncommitted = std::uint64_t{1} << 20;  ///< processed, uncommitted events a PE holds before it waits for GVT
  bool check_gvt = false;      ///< fail if anything arrives below GVT or GVT goes back
  /// GVT rounds between load balancing steps (0: none). A step runs only when
  /// the program balances (+balancer ...): every LP is rolled back to GVT, the
  /// balancer moves LP chares by the time their events took, the run goes on.
  std::uint32_t balance_every = 0;
  /// GVT rounds between checkpoints into `checkpoint_dir` (0: none): every LP
  /// back at GVT, every pending event in its chare, then roam::checkpoint. A
  /// run started with `+restart DIR` goes on from the newest one (any number
  /// of PEs); the result then goes to `done` if it is an entry or a function.
  std::uint32_t checkpoint_every = 0;
  std::string checkpoint_dir;

  lp_id per_chare() const noexcept { return lps_per_chare; }
  std::uint32_t chares() const noexcept { return static_cast<std::uint32_t>((lps + lps_per_chare - 1) / lps_per_chare); }

  template <class P>
  void pup(P& p) {
    p | lps | end | mode | lps_per_chare | lookahead | max_optimism | auto_optimism | target_efficiency | batch | adaptive_batch |
        gvt_interval | max_uncommitted | check_gvt | balance_every | checkpoint_every | checkpoint_dir;
  }
};

}  // namespace roam::pdes
