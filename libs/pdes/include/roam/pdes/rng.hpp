#pragma once
/// Reversible random streams for optimistic simulation, the combined
/// multiple recursive generator CLCG4 (L'Ecuyer and Andres) with the
/// parameters, seeding and stream layout ROSS uses, so that a model draws
/// the same numbers here as under ROSS and commits the same events.
///
/// Four multiplicative congruential components x_j <- a_j x_j mod m_j are
/// combined into one uniform in [0, 1). A draw is undone by multiplying each
/// component by a_j^-1 mod m_j: the engine never saves stream state, a
/// model's reverse handler calls reverse_unif() once per draw its forward
/// handler made (each distribution below costs exactly one draw).
///
/// Stream `id` (ROSS: LP gid x streams per LP + stream) starts at
/// seed_j * (a_j^(2^72))^id mod m_j: streams 2^72 draws apart, so they never
/// overlap in practice.
#include <array>
#include <cstdint>

namespace roam::pdes {

inline constexpr std::array<std::int64_t, 4> clcg4_modulus{2147483647, 2147483543, 2147483423, 2147483323};
inline constexpr std::array<std::int64_t, 4> clcg4_multiplier{45991, 207707, 138556, 49689};
/// The seeds of the model's streams unless set otherwise (ROSS's defaults).
inline constexpr std::array<std::int64_t, 4> default_stream_seed{11111111, 22222222, 33333333, 44444444};

/// One stream: where it began, and where it is now; `count` draws made
/// (forward minus reversed).
struct rng_stream {
  std::array<std::int64_t, 4> initial{};
  std::array<std::int64_t, 4> current{};
  std::int64_t count = 0;
  friend bool operator==(const rng_stream&, const rng_stream&) = default;
  template <class P>
  void pup(P& p) {
    p | initial | current | count;
  }
};

/// Stream `id`, seeded from `seed` (each component clamped to [1, m_j - 1]).
rng_stream make_stream(std::uint64_t id, const std::array<std::int64_t, 4>& seed = default_stream_seed) noexcept;

/// The next uniform in [0, 1) (advances the stream by one draw).
double unif(rng_stream& s) noexcept;
/// Undoes the last draw (of any distribution below).
void reverse_unif(rng_stream& s) noexcept;
/// An integer in [low, high] from one draw (0 when high < low, as under ROSS).
long integer(rng_stream& s, long low, long high) noexcept;
/// An exponential variate of mean `mean` from one draw.
double exponential(rng_stream& s, double mean) noexcept;

/// a^e mod m (exposed for the tests: the stream spacing and the inverses).
std::int64_t power_mod(std::int64_t a, std::uint64_t e, std::int64_t m) noexcept;

}  // namespace roam::pdes
