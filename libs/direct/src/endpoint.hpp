#pragma once
// A channel's receiving end in one process (docs/design/direct.md): the
// buffer, the callback, the state word senders and the receiver change with
// atomics, and, once the receiver has moved on, where puts go instead.
#include <atomic>
#include <cstdint>
#include <functional>
#include <memory>
#include <mutex>
#include <span>
#include <string>
#include <unordered_map>
#include <vector>

#include <roam/direct/channel.hpp>

#include "host.hpp"
#include <roam/msg/buffer.hpp>
#include <roam/sched/notice.hpp>
#include <roam/sched/runtime.hpp>

namespace roam::direct::detail {

/// The state word. A put needs `armed` and takes it (CAS armed -> landing),
/// copies, then turns landing into `landed`; the receiver's ready() arms
/// again. `away`: the receiver has left (moving, or moved through pup:
/// `gone_to` then says where); puts then wait (`parked`) or are forwarded.
enum state_bits : std::uint32_t {
  armed = 1u << 0,
  polling = 1u << 1,    ///< the callback is on
  landing = 1u << 2,    ///< a sender is copying
  landed = 1u << 3,     ///< data in place, not yet reported / consumed
  away = 1u << 4,
  closed = 1u << 5,
  queued = 1u << 6,     ///< the notice is queued
  staged = 1u << 7,     ///< landed in the staging area (a put from another process): copy before use
  travelling = armed | polling | landed,  ///< what a move or checkpoint keeps
};

constexpr std::uint32_t nowhere = ~0u;

inline std::uint32_t this_pe() { return roam::my_pe().value(); }

/// A put that found the receiver away, waiting for it to settle.
struct parked_put {
  std::uint32_t from_pe;
  roam::buffer<std::byte> data;
};

struct endpoint : std::enable_shared_from_this<endpoint> {
  endpoint(std::uint64_t id, std::uint64_t bytes);
  /// Moves the state word into this process's segment (a receiver's, not a record's).
  void share_state() noexcept;

  const std::uint64_t id;
  const std::uint64_t bytes;
  /// The state word: in this process's shared segment when it has one
  /// (senders of other processes of the host take it there), else own_state.
  std::atomic<std::uint32_t>& st() noexcept { return *state_word; }
  const std::atomic<std::uint32_t>& st() const noexcept { return *state_word; }
  std::atomic<std::uint32_t> own_state{0};
  std::atomic<std::uint32_t>* state_word = &own_state;
  std::uint32_t slot = nowhere;  ///< its index in the segment (nowhere: own_state)
  std::byte* staging = nullptr;  ///< where puts from other processes land first (nullptr: none)
  std::uint64_t staging_offset = 0;
  std::atomic<std::uint32_t> pe{nowhere};  ///< where the receiver (and the callback) is
  std::byte* data = nullptr;               ///< null: a forwarding record, no receiver here
  std::function<void()> on_arrival;
  const void* owner = nullptr;
  std::string owner_name;
  std::uint32_t epoch = 0;  ///< moves so far

  std::mutex mu;  // guards the rest
  std::uint32_t gone_to = nowhere;       ///< once away: the PE it settled on (nowhere: not yet known)
  std::weak_ptr<endpoint> successor;     ///< once away: its endpoint, when it settled in this process
  std::vector<parked_put> parked;

  roam::pe_notice notice;
  std::shared_ptr<endpoint> keep;  ///< this, while the notice is queued
};

/// The endpoints and forwarding records of this process.
struct registry {
  std::mutex mu;
  std::unordered_map<std::uint64_t, std::shared_ptr<endpoint>> by_id;
  std::unordered_multimap<const void*, std::shared_ptr<endpoint>> by_owner;  ///< live receivers, by object
};
registry& the_registry();
std::shared_ptr<endpoint> lookup(std::uint64_t id);
/// The endpoint or record of `id` here, made (away, going nowhere yet) if none.
std::shared_ptr<endpoint> record_for(std::uint64_t id, std::uint32_t epoch);

/// A put from another process landed in the staging area: into the buffer
/// with it (on the receiver's PE; clears `staged`).
void unstage(endpoint& e) noexcept;
/// On the receiver's PE: claims a landed put (callback on, notice not
/// queued) and runs the callback; false when there was none.
bool deliver_landed(endpoint& e) noexcept;
/// Queues the notice (once) so the callback runs on the receiver's PE.
void signal(endpoint& e);
/// Copies `data` into the receiver's buffer on its own PE and reports it
/// (the message path: a put from another process, a parked put).
void land_here(endpoint& e, std::span<const std::byte> data, std::uint32_t from_pe);
/// Sends a put to PE `pe` as a message.
void send_put(std::uint32_t pe, std::uint64_t id, roam::buffer<std::byte> data);
/// A put that found `e` away: parks it or forwards it (under e.mu).
void park_or_forward(endpoint& e, roam::buffer<std::byte> data, std::uint32_t from_pe);
/// Subscribes the lifecycle observer that follows receivers' moves (once).
void follow_moves();
/// The receiver leaves: puts wait from now on (once per move).
void go_away(endpoint& e);
/// The receiving object is now `owner` (same buffer).
void rebind_owner(endpoint& e, const void* owner);

[[noreturn]] void fail(const std::string& what);
std::string describe(const endpoint& e);
/// "channel ID into RECEIVER (N bytes)", for errors.
std::string describe_channel(std::uint64_t id, const std::string& receiver, std::uint64_t bytes);

}  // namespace roam::direct::detail
