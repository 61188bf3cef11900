#pragma once
// Collectives of every rank on roam's array reductions
// (world_collectives.cpp): combined per PE first, then across PEs once.
#include <array>
#include <cstddef>
#include <cstdint>
#include <vector>

#include <roam/roam.hpp>

#include "datatype.hpp"

namespace roam::ampi {

struct communicator;

/// A rank's contribution, and the partials combined from them: packed
/// elements of one basic type and a predefined operation. Up to
/// `inline_bytes` travel inside it (a small reduction allocates nothing).
struct world_part {
  static constexpr std::uint32_t inline_bytes = 64;
  std::uint64_t number = 0;  // the collective's number among the world's (the hub's slot)
  std::int32_t op = 0;
  std::int32_t primitive = 0;
  std::uint32_t size = 0;    // bytes; 0 for a barrier
  std::array<std::byte, inline_bytes> small{};
  buffer<std::byte> large;   // when size > inline_bytes

  /// Room for `bytes` bytes, written through mutable_data().
  void reserve(std::uint32_t bytes) {
    size = bytes;
    if (bytes > inline_bytes) large = buffer<std::byte>::uninitialized(bytes);
  }
  const std::byte* data() const noexcept { return size <= inline_bytes ? small.data() : large.data(); }
  std::byte* mutable_data() { return size <= inline_bytes ? small.data() : large.mutable_data(); }
  void pup(pup_er& p) {
    p | number | op | primitive | size;
    if (size <= inline_bytes) p.bytes(small.data(), size);
    else p | large;
  }
};
void combine_world_parts(world_part& acc, const world_part& v);

struct rank;

/// One per PE: takes a result once for the ranks of its PE and wakes those
/// that wait for it (they read it from here), so a result crosses to each
/// PE once and no message per rank is made. A PE has a slot per collective
/// in progress (one or two: the collectives are blocking), reused.
struct world_hub : group_member<world_hub> {
  world_hub() = default;
  explicit world_hub(migrating) {}
  struct slot {
    bool in_use = false;
    bool arrived = false;
    int readers = 0;             // ranks of this PE that contributed and have not read it
    world_part result;           // result.number: the collective
    std::vector<rank*> waiting;  // blocked until it arrives (they cannot move meanwhile)
  };
  std::vector<slot> slots;
  slot* find(std::uint64_t number) noexcept;
  slot& open(std::uint64_t number);
  void result(world_part v);
  // Holds nothing across a checkpoint: ranks take one at AMPI_Migrate, with
  // no collective of theirs in flight.
  void pup(pup_er&) {}
};

/// Whether a collective on `c` may take this path: every rank of the world
/// in world order, on the rank's own thread.
bool on_world_path(const communicator& c);
/// Whether `op` over elements of `t` is a predefined operation the
/// partials can combine anywhere (applicability checked before).
bool world_reducible(int op, const type_info& t);
/// MPI_ERR_OP when predefined `op` does not apply to `t` (tried on the
/// first of `count` packed elements at `data`), else MPI_SUCCESS. Every
/// rank finds the same before any message leaves, so all return the error.
int predefined_op_applies(int op, const type_info& t, const void* data, int count);

/// MPI_Allreduce of `count` elements of `t` from `sendbuf` into `recvbuf`
/// over every rank. Returns MPI_ERR_OP, before anything is sent, when the
/// operation does not apply to the type.
int world_allreduce(const void* sendbuf, void* recvbuf, int count, int op, const type_info& t);
/// The same with the result in `recvbuf` at `root_world` only (the others
/// return once they have contributed).
int world_reduce(const void* sendbuf, void* recvbuf, int count, int op, const type_info& t, int root_world);
/// Returns once every rank has called it.
void world_barrier();

}  // namespace roam::ampi
