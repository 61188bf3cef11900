#include "hpcc_stream.hpp"

#include <array>

namespace random_access {

// x_n by square-and-multiply on the exponent n: in GF(2)[x] mod POLY,
// x_{2k} = x_k^2, and squaring is linear over GF(2), so the square of a
// value is the xor of the squares of its set bits: squares[j] = (x^j)^2 =
// x^{2j}, computed once by doubling twice per step.
std::uint64_t starts(std::int64_t n) noexcept {
  while (n < 0) n += period;
  while (n > period) n -= period;
  if (n == 0) return 1;

  std::array<std::uint64_t, 64> squares{};
  std::uint64_t t = 1;
  for (auto& s : squares) {
    s = t;
    t = next(next(t));
  }
  // The highest set bit of n below bit 63 (n is positive).
  int bit = 62;
  while (bit >= 0 && !((n >> bit) & 1)) --bit;
  std::uint64_t x = 2;  // x_1: the exponent's leading 1
  while (bit > 0) {
    std::uint64_t sq = 0;
    for (int j = 0; j < 64; ++j)
      if ((x >> j) & 1) sq ^= squares[j];
    x = sq;
    --bit;
    if ((n >> bit) & 1) x = next(x);
  }
  return x;
}

}  // namespace random_access
