#include "tcp/job_secret.hpp"

#include <sys/random.h>

#include <cerrno>
#include <cstring>

namespace roam::detail::tcp {

std::optional<job_secret> generate_job_secret(std::string& error) {
  job_secret s;
  std::size_t got = 0;
  while (got < s.bytes.size()) {
    const ssize_t n = ::getrandom(s.bytes.data() + got, s.bytes.size() - got, 0);
    if (n < 0) {
      if (errno == EINTR) continue;
      error = std::string("cannot draw the job secret (getrandom): ") + std::strerror(errno);
      return std::nullopt;
    }
    got += static_cast<std::size_t>(n);
  }
  return s;
}

std::string to_hex(const job_secret& s) {
  static constexpr char digits[] = "0123456789abcdef";
  std::string out;
  out.reserve(2 * s.bytes.size());
  for (std::byte b : s.bytes) {
    out.push_back(digits[static_cast<unsigned>(b) >> 4]);
    out.push_back(digits[static_cast<unsigned>(b) & 0xF]);
  }
  return out;
}

namespace {
int hex_value(char c) noexcept {
  if (c >= '0' && c <= '9') return c - '0';
  if (c >= 'a' && c <= 'f') return c - 'a' + 10;
  if (c >= 'A' && c <= 'F') return c - 'A' + 10;
  return -1;
}
}  // namespace

std::optional<job_secret> parse_job_secret(std::string_view hex) noexcept {
  job_secret s;
  if (hex.size() != 2 * s.bytes.size()) return std::nullopt;
  for (std::size_t i = 0; i < s.bytes.size(); ++i) {
    const int hi = hex_value(hex[2 * i]);
    const int lo = hex_value(hex[2 * i + 1]);
    if (hi < 0 || lo < 0) return std::nullopt;
    s.bytes[i] = static_cast<std::byte>(hi << 4 | lo);
  }
  return s;
}

bool secrets_equal(const job_secret& a, const job_secret& b) noexcept {
  unsigned diff = 0;
  for (std::size_t i = 0; i < a.bytes.size(); ++i) diff |= static_cast<unsigned>(a.bytes[i] ^ b.bytes[i]);
  return diff == 0;
}

}  // namespace roam::detail::tcp
