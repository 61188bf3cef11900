// CLCG4 (rng.hpp). Compiled with -ffp-contract=off (CMakeLists.txt): the
// combination of the four components must round exactly as ROSS's does, or a
// model's timestamps, and so its committed events, would differ.
#include <roam/pdes/rng.hpp>

#include <cmath>

namespace roam::pdes {

namespace {

// a_j^(2^72) mod m_j: the step between consecutive streams.
constexpr std::array<std::int64_t, 4> stream_step{584425330, 1351201844, 1323813018, 28067816};
// a_j^-1 mod m_j (= a_j^(m_j - 2), m_j prime): one draw back.
constexpr std::array<std::int64_t, 4> inverse_multiplier{1441196816, 1463744518, 499766181, 660421676};

// Both factors are below m < 2^31: the product fits in 63 bits.
std::int64_t mul_mod(std::int64_t a, std::int64_t b, std::int64_t m) noexcept { return a * b % m; }

std::int64_t clamp_seed(std::int64_t v, std::int64_t m) noexcept { return v < 1 ? 1 : v > m - 1 ? m - 1 : v; }

}  // namespace

std::int64_t power_mod(std::int64_t a, std::uint64_t e, std::int64_t m) noexcept {
  std::int64_t result = 1 % m, base = a % m;
  while (e != 0) {
    if (e & 1) result = mul_mod(result, base, m);
    base = mul_mod(base, base, m);
    e >>= 1;
  }
  return result;
}

rng_stream make_stream(std::uint64_t id, const std::array<std::int64_t, 4>& seed) noexcept {
  rng_stream s;
  for (int j = 0; j < 4; ++j) {
    const std::int64_t m = clcg4_modulus[j];
    const std::int64_t start = mul_mod(clamp_seed(seed[j], m), power_mod(stream_step[j], id, m), m);
    s.initial[j] = s.current[j] = clamp_seed(start, m);
  }
  s.count = 0;
  return s;
}

double unif(rng_stream& s) noexcept {
  for (int j = 0; j < 4; ++j) s.current[j] = s.current[j] * clcg4_multiplier[j] % clcg4_modulus[j];
  ++s.count;
  // The four components combined as L'Ecuyer and Andres give it (and ROSS
  // computes it): alternating signs, each step wrapped back into [0, 1).
  double u = 4.65661287524579692e-10 * static_cast<double>(s.current[0]);
  u = u - 4.65661310075985993e-10 * static_cast<double>(s.current[1]);
  if (u < 0) u += 1.0;
  u = u + 4.65661336096842131e-10 * static_cast<double>(s.current[2]);
  if (u >= 1.0) u -= 1.0;
  u = u - 4.65661357780891134e-10 * static_cast<double>(s.current[3]);
  if (u < 0) u += 1.0;
  return u;
}

void reverse_unif(rng_stream& s) noexcept {
  for (int j = 0; j < 4; ++j) s.current[j] = inverse_multiplier[j] * s.current[j] % clcg4_modulus[j];
  --s.count;
}

long integer(rng_stream& s, long low, long high) noexcept {
  const double u = unif(s);
  if (high + 1 <= low) return 0;
  return low + static_cast<long>(u * static_cast<double>(high + 1 - low));
}

double exponential(rng_stream& s, double mean) noexcept { return -mean * std::log(unif(s)); }

}  // namespace roam::pdes
