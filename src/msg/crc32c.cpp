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

#if ROAM_CRC32C_X86
__attribute__((target("sse4.2"))) std::uint32_t crc32c_sse42(const unsigned char* p, std::size_t n,
                                                             std::uint32_t crc) noexcept {
  std::uint64_t c = crc;
  for (; n >= 8; n -= 8, p += 8) {
    std::uint64_t word;
    std::memcpy(&word, p, sizeof word);  // unaligned loads are cheap on x86
    c = _mm_crc32_u64(c, word);
  }
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

}  // namespace roam::detail
