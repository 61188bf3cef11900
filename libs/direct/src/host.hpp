#pragma once
// Channels between processes of one host (docs/design/direct.md, "The host
// path"): each process keeps its receivers' state words in a shared memory
// segment of its own (a memfd that peers open through /proc/PID/fd/N), with
// a doorbell and an "asleep" flag per PE. A sender in another process of
// the host takes the word (armed -> landing) there, writes the data
// straight into the receiver's buffer (process_vm_writev: one copy), marks
// it landed and rings the receiving PE's doorbell, which that PE polls
// (roam::pe_poller); a PE that went to sleep is woken with a message.
#include <atomic>
#include <cstddef>
#include <cstdint>

#include <roam/direct/channel.hpp>

namespace roam::direct::detail {

/// One receiver's state word in the segment (a cache line each).
struct alignas(64) shared_slot {
  std::atomic<std::uint32_t> state{0};
};

/// Per PE: rung by senders of other processes, read by the PE's poller.
struct alignas(64) pe_bell {
  std::atomic<std::uint32_t> ring{0};
  std::atomic<std::uint32_t> asleep{0};
};

/// This process's segment: a state word for `e`, or nullptr when there is
/// no segment (memfd unavailable) or it is full (the word is then private).
std::atomic<std::uint32_t>* claim_slot(std::uint32_t& index) noexcept;
/// A staging area of `bytes` in the segment for puts from other processes
/// (they copy there, the receiver copies on): nullptr when there is no room.
std::byte* claim_staging(std::size_t bytes, std::uint64_t& offset) noexcept;
/// True (and its offset) when [p, p + bytes) lies in this process's
/// segment: a host_buffer, which senders of other processes write directly.
bool in_own_segment(const void* p, std::size_t bytes, std::uint64_t& offset) noexcept;
/// How senders of other processes of this host reach slot `index`, its
/// staging area (offset 0: none, they write the buffer itself) and `buffer`.
host_view view_of(std::uint32_t slot, std::uint64_t staging, const void* buffer, std::uint32_t pe,
                  std::uint32_t epoch) noexcept;

/// A sender's access to a receiver in another process of this host.
struct peer_access {
  std::atomic<std::uint32_t>* state = nullptr;
  pe_bell* bell = nullptr;
  std::byte* staging = nullptr;  ///< nullptr: write the buffer (process_vm_writev)
};
/// Maps the receiver's segment (once per process) and finds its slot; false
/// when it cannot (another host, the process is gone, not permitted).
bool reach(const host_view& v, peer_access& out) noexcept;
/// Copies into the receiver's buffer in its process; false on failure.
bool write_peer(const host_view& v, const void* source, std::size_t bytes) noexcept;
/// Tells PE `pe` of the receiver's process that a put landed.
void ring(const host_view& v, pe_bell& bell) noexcept;
/// Starts this process's poller (once).
void start_polling() noexcept;

/// Location news: how to reach channel `id` directly from this process.
void remember_view(std::uint64_t id, const host_view& v);
bool recall_view(std::uint64_t id, host_view& v);
/// The node (process) of PE `pe` (PEs are spread evenly over nodes).
std::uint32_t node_of(std::uint32_t pe) noexcept;

}  // namespace roam::direct::detail
