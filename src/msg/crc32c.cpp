#include <roam/msg/detail/crc32c.hpp>

#include <array>
#include <cstring>

#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
#include <nmmintrin.h>
#define ROAM_CRC32C_X86 1
#else
#define ROAM_CRC32C_X86 0
#endif

namespace roam::detail {
namespace {

// Bit-reflected Castagnoli polynomial 0x1EDC6F41.
constexpr std::uint32_t reflected_poly = 0x82F63B78u;

// Slicing-by-8: table k maps a byte to its CRC contribution when followed by
// k zero bytes, so eight bytes fold in with eight independent lookups.
using crc_tables = std::array<std::array<std::uint32_t, 256>, 8>;

constexpr crc_tables make_tables() noexcept {
  crc_tables t{};
  for (std::uint32_t i = 0; i < 256; ++i) {
    std::uint32_t c = i;
    for (int bit = 0; bit < 8; ++bit) c = (c >> 1) ^ (reflected_poly & (0u - (c & 1u)));
    t[0][i] = c;
  }
  for (std::size_t k = 1; k < 8; ++k)
    for (std::size_t i = 0; i < 256; ++i) t[k][i] = (t[k - 1][i] >> 8) ^ t[0][t[k - 1][i] & 0xFFu];
  return t;
}

constexpr crc_tables tables = make_tables();

// CRC-32C is linear over GF(2): the register after A then B is the register
// after A times x^(8|B|) mod P, xor the register after B alone from 0.
// Polynomials are bit-reflected like the CRC: bit 31 is x^0.
constexpr std::uint32_t multiply_mod_p(std::uint32_t a, std::uint32_t b) noexcept {
  std::uint32_t product = 0;
  for (std::uint32_t term = 1u << 31; term != 0; term >>= 1) {
    if (a & term) product ^= b;
    b = (b & 1u) ? (b >> 1) ^ reflected_poly : b >> 1;  // b *= x
  }
  return product;
}

// x^(2^k) mod P, for every k a 64-bit byte count times 8 can need.
constexpr auto x_to_powers_of_two = [] {
  std::array<std::uint32_t, 67> table{};
  table[0] = 1u << 30;  // x^1
  for (std::size_t k = 1; k < table.size(); ++k) table[k] = multiply_mod_p(table[k - 1], table[k - 1]);
  return table;
}();

// x^(8 * bytes) mod P.
constexpr std::uint32_t x_to_bytes(std::uint64_t bytes) noexcept {
  std::uint32_t result = 1u << 31;  // x^0
  for (std::size_t k = 3; bytes != 0; bytes >>= 1, ++k)
    if (bytes & 1u) result = multiply_mod_p(x_to_powers_of_two[k], result);
  return result;
}

#if ROAM_CRC32C_X86
__attribute__((target("sse4.2"))) std::uint64_t crc32c_words(const unsigned char* p, std::size_t words,
                                                             std::uint64_t c) noexcept {
  for (; words != 0; --words, p += 8) {
    std::uint64_t word;
    std::memcpy(&word, p, sizeof word);  // unaligned loads are cheap on x86
    c = _mm_crc32_u64(c, word);
  }
  return c;
}

// The crc32 instruction takes 3 cycles but can start one per cycle: large
// inputs run as three interleaved streams of `stripe` bytes each, joined
// with two multiplications per 3 stripes (about 3x the single stream).
constexpr std::size_t stripe = 16 * 1024;
constexpr std::uint32_t x_to_stripe = x_to_bytes(stripe);

__attribute__((target("sse4.2"))) std::uint32_t crc32c_sse42(const unsigned char* p, std::size_t n,
                                                             std::uint32_t crc) noexcept {
  std::uint64_t c = crc;
  for (; n >= 3 * stripe; n -= 3 * stripe, p += 3 * stripe) {
    std::uint64_t a = c, b = 0, d = 0;
    const unsigned char* q = p;
    for (std::size_t w = 0; w < stripe / 8; ++w, q += 8) {
      std::uint64_t x, y, z;
      std::memcpy(&x, q, 8);
      std::memcpy(&y, q + stripe, 8);
      std::memcpy(&z, q + 2 * stripe, 8);
      a = _mm_crc32_u64(a, x);
      b = _mm_crc32_u64(b, y);
      d = _mm_crc32_u64(d, z);
    }
    const auto a32 = static_cast<std::uint32_t>(a), b32 = static_cast<std::uint32_t>(b);
    c = multiply_mod_p(x_to_stripe, multiply_mod_p(x_to_stripe, a32) ^ b32) ^ static_cast<std::uint32_t>(d);
  }
  c = crc32c_words(p, n / 8, c);
  p += n / 8 * 8;
  n %= 8;
  auto c32 = static_cast<std::uint32_t>(c);
  for (; n != 0; --n, ++p) c32 = _mm_crc32_u8(c32, *p);
  return c32;
}
#endif

}  // namespace

std::uint32_t crc32c_portable(const void* data, std::size_t n, std::uint32_t crc) noexcept {
  const auto* p = static_cast<const unsigned char*>(data);
  std::uint32_t c = ~crc;
  for (; n >= 8; n -= 8, p += 8) {
    // Assembled byte by byte so the result does not depend on host byte order.
    const std::uint32_t lo = (static_cast<std::uint32_t>(p[0]) | static_cast<std::uint32_t>(p[1]) << 8 |
                              static_cast<std::uint32_t>(p[2]) << 16 | static_cast<std::uint32_t>(p[3]) << 24) ^
                             c;
    c = tables[7][lo & 0xFFu] ^ tables[6][(lo >> 8) & 0xFFu] ^ tables[5][(lo >> 16) & 0xFFu] ^ tables[4][lo >> 24] ^
        tables[3][p[4]] ^ tables[2][p[5]] ^ tables[1][p[6]] ^ tables[0][p[7]];
  }
  for (; n != 0; --n, ++p) c = (c >> 8) ^ tables[0][(c ^ *p) & 0xFFu];
  return ~c;
}

bool crc32c_hardware_available() noexcept {
#if ROAM_CRC32C_X86
  // __builtin_cpu_init must run before __builtin_cpu_supports when this is
  // reached from a static constructor.
  static const bool available = [] {
    __builtin_cpu_init();
    return __builtin_cpu_supports("sse4.2") != 0;
  }();
  return available;
#else
  return false;
#endif
}

std::uint32_t crc32c_hardware(const void* data, std::size_t n, std::uint32_t crc) noexcept {
#if ROAM_CRC32C_X86
  if (crc32c_hardware_available()) return ~crc32c_sse42(static_cast<const unsigned char*>(data), n, ~crc);
#endif
  return crc32c_portable(data, n, crc);
}

std::uint32_t crc32c(const void* data, std::size_t n, std::uint32_t crc) noexcept {
  return crc32c_hardware(data, n, crc);
}

std::uint32_t crc32c_combine(std::uint32_t crc_a, std::uint32_t crc_b, std::uint64_t length_b) noexcept {
  return multiply_mod_p(x_to_bytes(length_b), crc_a) ^ crc_b;
}

}  // namespace roam::detail
