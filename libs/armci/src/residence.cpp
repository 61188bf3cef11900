// Ranks of this process reachable directly (residence.hpp).
#include "residence.hpp"

#include "host_residence.hpp"

#include <array>
#include <cstdio>
#include <cstdlib>
#include <memory>
#include <thread>

namespace roam::armci {
namespace {

// Entries in chunks, installed once and never freed or moved: an origin on
// any PE may hold a reference while another PE makes the next chunk.
constexpr int chunk_bits = 10;
constexpr int chunks = 1 << 12;  // up to 4M ranks
std::array<std::atomic<residence*>, chunks> table{};

}  // namespace

residence& residence_of(int world) {
  const auto c = static_cast<std::size_t>(world >> chunk_bits);
  if (world < 0 || c >= table.size()) {
    std::fprintf(stderr, "armci: rank %d is beyond the %d ranks ARMCI supports\n", world, chunks << chunk_bits);
    std::abort();
  }
  residence* chunk = table[c].load(std::memory_order_acquire);
  if (chunk == nullptr) {
    auto* made = new residence[1u << chunk_bits];
    if (table[c].compare_exchange_strong(chunk, made, std::memory_order_acq_rel)) chunk = made;
    else delete[] made;  // another PE installed one first: `chunk` is it
  }
  return chunk[world & ((1 << chunk_bits) - 1)];
}

pinned::pinned(int world) : entry_(residence_of(world)) {
  entry_.pins.fetch_add(1, std::memory_order_seq_cst);
  state_ = entry_.resident.load(std::memory_order_seq_cst);
}

pinned::~pinned() { entry_.pins.fetch_sub(1, std::memory_order_release); }

void rank_arrived(ampi::rank& r) {
  state& s = state_of(r);  // made here, on the rank's PE
  const int world = ampi::world_rank_of(r);
  host_arrived(world, s);  // first: origins of this process read the state's host table once it is resident
  residence_of(world).resident.store(&s, std::memory_order_seq_cst);
}

void rank_leaving(ampi::rank& r) {
  const int world = ampi::world_rank_of(r);
  host_leaving(world, state_of(r));
  residence& e = residence_of(world);
  state* mine = &state_of(r);
  // Only this element's own entry (after a move inside the process the rank
  // may have arrived on its new PE already).
  if (!e.resident.compare_exchange_strong(mine, nullptr, std::memory_order_seq_cst)) return;
  while (e.pins.load(std::memory_order_acquire) != 0) std::this_thread::yield();  // a copy in progress: short
}

}  // namespace roam::armci
