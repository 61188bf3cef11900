// Ranks of the other processes of this host, reachable directly (host_residence.hpp).
#include "host_residence.hpp"

#include <unistd.h>

#include <thread>

#include <roam/iso/host_memory.hpp>

#include "state.hpp"

namespace roam::armci {
namespace {

constexpr std::size_t table_ranks = std::size_t{1} << 17;

// ARMCI asks for the range to be shared on the host (the loader and every
// program linking roam::armci carry this). Not under ThreadSanitizer, which
// cannot see that a copy into a rank's memory here happened before the same
// pages were packed in another process and unpacked here again (the pin,
// the leave and the message that carried the rank order them, across
// processes): `+isomalloc_share on` still asks for it there.
#if !defined(__SANITIZE_THREAD__)
[[maybe_unused]] const bool sharing_requested = [] {
  roam::share_thread_memory_on_host();
  return true;
}();
#endif

const std::uint64_t g_pid = static_cast<std::uint64_t>(::getpid());
std::atomic<std::uint32_t> g_arrivals{0};

void publish(host_entry& e, const state& s) {
  e.lock();
  if (s.blocks.size() > host_entry::max_blocks) {
    e.blocks = host_entry::too_many;
  } else {
    e.blocks = 0;
    for (const auto& [base, bytes] : s.blocks)
      e.block_list[e.blocks++] = {base, static_cast<std::uint64_t>(bytes)};
  }
  e.unlock();
}

}  // namespace

int host_entry::where_is(std::uint64_t lo, std::uint64_t hi) const noexcept {
  if (blocks == too_many) return -1;
  for (std::uint32_t i = 0; i < blocks; ++i)
    if (lo >= block_list[i].base && hi <= block_list[i].base + block_list[i].bytes) return 1;
  return 0;
}

host_entry* host_entry_of(const state& s, int world) noexcept {
  if (s.host_table == nullptr || world < 0 || static_cast<std::size_t>(world) >= table_ranks) return nullptr;
  return static_cast<host_entry*>(s.host_table) + world;
}

host_pinned::host_pinned(const state& origin, int world) noexcept : entry_(host_entry_of(origin, world)) {
  if (entry_ == nullptr) return;
  entry_->pins.fetch_add(1, std::memory_order_seq_cst);
  const std::uint64_t w = entry_->where.load(std::memory_order_seq_cst);
  usable_ = w != 0 && (w >> 32) != g_pid;
}

host_pinned::~host_pinned() {
  if (entry_) entry_->pins.fetch_sub(1, std::memory_order_release);
}

void host_arrived(int world, state& s) {
  // The table of this run (found again on every arrival: a state is made
  // anew when its rank arrives, and a run's area is gone after the run).
  s.host_table = roam::host_shared_area("armci.ranks", table_ranks * sizeof(host_entry));
  host_entry* e = host_entry_of(s, world);
  if (e == nullptr) return;
  publish(*e, s);
  s.host_tag = g_pid << 32 | g_arrivals.fetch_add(1, std::memory_order_relaxed);
  e->where.store(s.host_tag, std::memory_order_seq_cst);
}

void host_blocks_changed(int world, const state& s) {
  if (host_entry* e = host_entry_of(s, world); e && s.host_tag != 0) publish(*e, s);
}

void host_leaving(int world, const state& s) {
  host_entry* e = host_entry_of(s, world);
  std::uint64_t mine = s.host_tag;
  if (e == nullptr || mine == 0) return;
  // Only this arrival's tag (a move inside the process may have published
  // the next one already).
  if (!e->where.compare_exchange_strong(mine, 0, std::memory_order_seq_cst)) return;
  while (e->pins.load(std::memory_order_acquire) != 0) std::this_thread::yield();  // a copy in progress: short
}

bool open_peer_memory(std::uint64_t address) noexcept {
  return roam::open_peer_thread_memory(reinterpret_cast<const void*>(address));
}

}  // namespace roam::armci
