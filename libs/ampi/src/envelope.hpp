#pragma once
// What travels in front of an MPI message's bytes, and of a one-sided
// operation's.
#include <cstdint>

#include <roam/msg/pup.hpp>

namespace roam::ampi {

struct envelope {
  std::uint64_t context = 0;   // the communicator's (even: point-to-point, odd: its collectives)
  std::int32_t source = 0;     // the sender's rank in that communicator
  std::int32_t tag = 0;
  std::int32_t from_world = 0;  // the sender's rank in MPI_COMM_WORLD (MPI's order is kept per sender)
  std::uint32_t seq = 0;        // the sender's count of messages to this receiver
  std::int32_t sync_request = 0;  // a synchronous send's request at the sender, acknowledged on match (0: none)
  std::int32_t unused = 0;
};

/// What travels in front of a one-sided operation's bytes.
struct rma_header {
  enum kind_t : std::int32_t {
    put = 1, get, accumulate, get_reply, lock, grant, unlock, unlock_ack, get_accumulate, compare_swap, flush, flush_ack,
    post, complete,  // PSCW: a target exposes its window to an origin; an origin ends its access
    refused          // the target has no memory there (a dynamic window): op is the refused operation's kind
  };
  std::int32_t kind = 0;
  std::int32_t from_world = 0;
  std::uint32_t seq = 0;       // the sender's count of one-sided messages to this receiver
  std::int32_t op = 0;         // accumulate's operation; lock's type
  std::uint64_t context = 0;   // the window
  std::int64_t disp = 0;       // in the target's displacement units
  std::int64_t count = 0;      // elements of the target type
  std::uint64_t reply_to = 0;  // get: the origin's buffer
  std::int64_t reply_count = 0;
  std::int32_t reply_type = 0;
  std::int32_t fenced = 1;     // counted for MPI_Win_fence (0: under a lock)
  std::int32_t request = 0;    // MPI_Rget...: the origin's request, completed by the reply (0: none)
  std::int32_t unused = 0;     // no padding in what is sent bitwise
};

}  // namespace roam::ampi

template <>
inline constexpr bool roam::bitwise_serializable<roam::ampi::envelope> = true;
template <>
inline constexpr bool roam::bitwise_serializable<roam::ampi::rma_header> = true;
