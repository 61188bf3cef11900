#pragma once
// The hello frame that opens every connection, in both directions: the job
// secret plus who is speaking to whom. The side that connects sends first; the
// side that accepts checks it and answers with its own hello, so both ends
// know the other holds the secret before anything else is exchanged.
#include <array>
#include <cstddef>
#include <cstdint>
#include <span>
#include <string>

#include "tcp/frame_format.hpp"
#include "tcp/job_secret.hpp"

namespace roam::detail::tcp {

/// The node id roamrun uses in hellos (processes are 0..n-1).
inline constexpr std::uint32_t launcher_id = 0xFFFFFFFFu;

struct hello {
  job_secret secret;
  std::uint32_t from = 0;
  std::uint32_t to = 0;
};

inline constexpr std::size_t hello_payload_size = 24;
static_assert(hello_payload_size == 16 + 4 + 4);

/// A whole hello frame (header + payload), ready to write.
std::array<std::byte, frame_header_size + hello_payload_size> encode_hello(const job_secret& secret,
                                                                         std::uint32_t from, std::uint32_t to);
/// Reads a hello payload (the decoder has already checked its size).
hello decode_hello(std::span<const std::byte> payload) noexcept;

/// Why a received hello is refused by `me`, or "" when it is acceptable as far
/// as the secret and addressing go (the caller checks that `from` is expected).
std::string hello_refusal(const hello& h, const job_secret& expected, std::uint32_t me);

/// "node 3" or "roamrun", for messages.
std::string endpoint_name(std::uint32_t id);

}  // namespace roam::detail::tcp
