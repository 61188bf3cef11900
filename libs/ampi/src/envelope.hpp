#pragma once
// What travels in front of an MPI message's bytes.
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

}  // namespace roam::ampi

template <>
inline constexpr bool roam::bitwise_serializable<roam::ampi::envelope> = true;
