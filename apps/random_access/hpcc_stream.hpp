#pragma once
// The HPC Challenge Random Access pseudo-random stream: x_{k+1} = x_k * 2 in
// GF(2)[x] modulo the primitive polynomial x^63 + x^2 + x + 1 (shift left,
// xor POLY when the top bit falls out), starting from x_0 = 1. Its period is
// PERIOD. starts(n) jumps straight to x_n, so each PE starts its share of the
// stream where it begins without generating what comes before.
#include <cstdint>

namespace random_access {

inline constexpr std::uint64_t poly = 0x0000000000000007ull;
inline constexpr std::int64_t period = 1317624576693539401ll;

/// The next element of the stream.
inline std::uint64_t next(std::uint64_t x) noexcept {
  return (x << 1) ^ (static_cast<std::int64_t>(x) < 0 ? poly : 0);
}

/// x_n: the n-th element of the stream (n taken modulo the period).
std::uint64_t starts(std::int64_t n) noexcept;

}  // namespace random_access
