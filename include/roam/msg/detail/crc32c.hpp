#pragma once

/// \file
/// CRC-32C (Castagnoli), used to reject bit-flipped messages and checkpoints.

#include <cstddef>
#include <cstdint>

namespace roam::detail {

/// CRC-32C of data[0, n), continuing from crc, the value returned for the
/// bytes before it (0 to start). Chaining holds:
/// crc32c(b, nb, crc32c(a, na)) == crc32c(a followed by b). Uses the SSE4.2
/// crc32 instruction when the CPU has it, else crc32c_portable. Never fails;
/// data may be null when n is 0.
std::uint32_t crc32c(const void* data, std::size_t n, std::uint32_t crc = 0) noexcept;

/// The CRC-32C of A followed by B, from crc_a = crc32c(A), crc_b = crc32c(B)
/// and B's length: CRC-32C is linear, so B need not be read again (about
/// 50 ns, whatever the length).
std::uint32_t crc32c_combine(std::uint32_t crc_a, std::uint32_t crc_b, std::uint64_t length_b) noexcept;

/// crc32c computed with lookup tables only, on any CPU.
std::uint32_t crc32c_portable(const void* data, std::size_t n, std::uint32_t crc = 0) noexcept;

/// Whether this CPU has the crc32 instruction crc32c_hardware uses.
bool crc32c_hardware_available() noexcept;

/// crc32c computed with the SSE4.2 crc32 instruction; falls back to
/// crc32c_portable when crc32c_hardware_available() is false.
std::uint32_t crc32c_hardware(const void* data, std::size_t n, std::uint32_t crc = 0) noexcept;

}  // namespace roam::detail
