#pragma once
// Which ranks' memory this process holds now, for operations that reach it
// directly from another PE of the process: a put, get or accumulate there is
// one memcpy (or one pass) by the origin's thread, no message.
//
// A rank's entry names its state while its element is on a PE of this
// process (set when it arrives, cleared before it leaves or goes). An origin
// pins the entry before reading it; a rank that leaves clears the entry and
// then waits until no origin holds a pin, so its memory is never packed or
// unmapped under a copy (both sides use sequentially consistent atomics:
// either the origin sees the entry cleared, or the leaver sees the pin).
// Accumulates and read-modify-writes (direct or applied by the target's PE)
// and changes to the rank's list of blocks take the entry's lock, so they
// are atomic with respect to each other.
#include <atomic>

#include "state.hpp"

namespace roam::armci {

struct residence {
  std::atomic<state*> resident{nullptr};
  std::atomic<int> pins{0};
  std::atomic<bool> locked{false};

  void lock() noexcept {
    while (locked.exchange(true, std::memory_order_acquire))
      while (locked.load(std::memory_order_relaxed)) {
      }
  }
  void unlock() noexcept { locked.store(false, std::memory_order_release); }
};

/// World rank `world`'s entry (made on first use; entries never move).
residence& residence_of(int world);

/// Holds `world`'s entry pinned: state() is its state while it stays in
/// this process, null when it is not here.
class pinned {
 public:
  explicit pinned(int world);
  ~pinned();
  pinned(const pinned&) = delete;
  pinned& operator=(const pinned&) = delete;
  state* target() const noexcept { return state_; }
  residence& entry() const noexcept { return entry_; }

 private:
  residence& entry_;
  state* state_;
};

/// The entry's lock held (accumulates, read-modify-writes, block lists).
class entry_lock {
 public:
  explicit entry_lock(residence& e) : e_(e) { e_.lock(); }
  ~entry_lock() { e_.unlock(); }
  entry_lock(const entry_lock&) = delete;
  entry_lock& operator=(const entry_lock&) = delete;

 private:
  residence& e_;
};

/// The extension hooks (ops.cpp registers them).
void rank_arrived(ampi::rank& r);
void rank_leaving(ampi::rank& r);

}  // namespace roam::armci
