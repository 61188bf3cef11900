#pragma once
// Libraries that run on Adaptive MPI's virtual ranks (libs/armci) keep
// per-rank state here and exchange messages between ranks' elements without
// the target rank's thread: the element runs the library's receiver on the
// PE where the rank is, whatever its thread is doing.
//
// A library registers a kind once, during static initialisation (the same
// program in every process registers the same kinds in the same order, so
// a kind's number means the same everywhere). Its state is made on first
// use and packed with the rank (moves, checkpoints), so it must not point
// into the process heap: it lives in the rank's element, never in the
// rank's thread heap (its receiver runs outside the thread).
#include <cstddef>
#include <cstdint>
#include <memory>
#include <span>
#include <vector>

#include <roam/roam.hpp>

namespace roam::ampi {

struct rank;

/// A library's state in one rank.
struct rank_extension {
  virtual ~rank_extension() = default;
  virtual void pup(pup_er& p) = 0;
};

/// Runs on the target rank's PE for a message of the kind: `from_world` is
/// the sender's world rank; `header` what the sender packed; `data` its bytes.
using extension_receiver = void (*)(rank& target, int from_world, std::span<const std::byte> header,
                                    buffer<std::byte>& data);

struct extension_kind {
  const char* name;                             // for error messages
  std::unique_ptr<rank_extension> (*make)();    // an empty state
  extension_receiver receive;
  // Optional: a rank's element settled on a PE (started, or arrived after a
  // move), and about to leave it (before a move packs it, or destroyed), on
  // that PE. Between the two, the rank's memory is mapped in this process.
  void (*arrived)(rank& r) = nullptr;
  void (*leaving)(rank& r) = nullptr;
};

/// Registers a kind (static initialisation only); returns its number.
int register_extension(const extension_kind& kind);
/// The kind's state in `r` (made on first use).
rank_extension& extension_state(rank& r, int kind);
template <class T>
T& extension_of(rank& r, int kind) {
  return static_cast<T&>(extension_state(r, kind));
}
/// Sends a message of `kind` from `from` to world rank `to_world`'s element.
void send_extension(rank& from, int to_world, int kind, std::vector<std::byte> header, buffer<std::byte> data);
/// The world rank of `r`.
int world_rank_of(const rank& r);
/// Blocks the calling rank's thread until something arrives for it (callers
/// loop on their own condition); wakes it from a receiver.
void block_rank();
void wake_rank(rank& r);
/// The calling rank (on its thread).
rank& current_rank();

/// Runs every kind's arrived / leaving hook for `r` (the rank's element).
void extensions_arrived(rank& r);
void extensions_leaving(rank& r);

/// The states of every kind in one rank (a member of rank_extras).
struct extension_slots {
  std::vector<std::unique_ptr<rank_extension>> slots;  // by kind; null: not used yet
  extension_slots() = default;
  extension_slots(extension_slots&&) noexcept = default;
  extension_slots& operator=(extension_slots&&) noexcept = default;
  void pup(pup_er& p);
};

}  // namespace roam::ampi
