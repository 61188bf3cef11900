#pragma once
// Ranks held by the other processes of this host, reachable directly: when
// the isomalloc range is shared on the host (include/roam/iso/detail/
// host_share.hpp), a rank's memory is the same pages in every process of the
// host, so a put, get, accumulate or read-modify-write to a rank in another
// process of the host is one memcpy (or one pass) by the origin's thread,
// after opening the rank's slot here.
//
// The table is in the host's shared control area, one entry per world rank:
// which process holds the rank (a tag naming that process and that arrival;
// 0 while it moves or lives on another host), a pin count, a spin lock, and
// the rank's ARMCI_Malloc'd blocks (so that the origin checks an address
// against them as the target itself would). The protocol is residence.hpp's
// across processes: an origin pins, then reads the tag (sequentially
// consistent); a leaving rank clears its tag, then waits for the pins.
// Accumulates and read-modify-writes to a rank, on whichever path, take its
// host lock when the table exists (residence.hpp's entry lock first, where
// a path takes both), so they stay atomic with respect to each other.
#include <atomic>
#include <cstdint>

namespace roam::armci {

struct state;

struct host_entry {
  static constexpr std::uint32_t max_blocks = 15;
  static constexpr std::uint32_t too_many = ~0u;  // more blocks than fit: no direct path to the rank
  std::atomic<std::uint64_t> where{0};
  std::atomic<std::uint32_t> pins{0};
  std::atomic<std::uint32_t> locked{0};
  std::uint32_t blocks = 0;  // under the lock
  std::uint32_t unused = 0;
  std::uint64_t unused2 = 0;
  struct block {
    std::uint64_t base, bytes;
  } block_list[max_blocks];

  void lock() noexcept {
    while (locked.exchange(1, std::memory_order_acquire))
      while (locked.load(std::memory_order_relaxed)) {
      }
  }
  void unlock() noexcept { locked.store(0, std::memory_order_release); }
  /// Under the lock: 1 if [lo, hi) lies in one published block, 0 if not,
  /// -1 if the rank has more blocks than the entry holds (ask the target).
  int where_is(std::uint64_t lo, std::uint64_t hi) const noexcept;
};

/// `world`'s entry in this host's table (as `s`, a rank of this process,
/// found it); null when memory is not shared on this host (or the rank is
/// beyond the table).
host_entry* host_entry_of(const state& s, int world) noexcept;

/// Holds `world`'s host entry pinned: usable() while the rank stays in the
/// other process of this host that holds it (false: not shared, moving, on
/// another host, or in this process: residence.hpp's path).
class host_pinned {
 public:
  host_pinned(const state& origin, int world) noexcept;
  ~host_pinned();
  host_pinned(const host_pinned&) = delete;
  host_pinned& operator=(const host_pinned&) = delete;
  bool usable() const noexcept { return usable_; }
  host_entry& entry() const noexcept { return *entry_; }

 private:
  host_entry* entry_;
  bool usable_ = false;
};

/// The host entry's lock when there is a table (else nothing).
class host_lock {
 public:
  host_lock(const state& s, int world) noexcept : e_(host_entry_of(s, world)) {
    if (e_) e_->lock();
  }
  ~host_lock() {
    if (e_) e_->unlock();
  }
  host_lock(const host_lock&) = delete;
  host_lock& operator=(const host_lock&) = delete;

 private:
  host_entry* e_;
};

/// The owner's side (on its PE): the rank is here now (publishes its tag and
/// blocks), its blocks changed (under residence.hpp's entry lock), it leaves
/// (clears its tag and waits for the origins that hold it).
void host_arrived(int world, state& s);
void host_blocks_changed(int world, const state& s);
void host_leaving(int world, const state& s);

/// Opens the slot of `address` here for a direct copy to a rank in another
/// process of the host; false if it cannot be.
bool open_peer_memory(std::uint64_t address) noexcept;

}  // namespace roam::armci
