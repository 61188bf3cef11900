// The wording of a checkpoint's errors (format_errors.hpp says why one place).
#include "format_errors.hpp"

#include <cerrno>
#include <cstdio>
#include <system_error>

#include "format.hpp"

namespace roam::detail::ckpt {

namespace fs = std::filesystem;

namespace {

std::string hex_digits(std::uint64_t value, int digits) {
  char text[24];
  std::snprintf(text, sizeof text, "0x%0*llx", digits, static_cast<unsigned long long>(value));
  return text;
}

}  // namespace

std::string hex32(std::uint32_t value) { return hex_digits(value, 8); }
std::string hex64(std::uint64_t value) { return hex_digits(value, 16); }

[[noreturn]] void fail_at(const fs::path& path, const std::string& reason) {
  throw checkpoint_error(path.string() + ": " + reason);
}

[[noreturn]] void fail_errno(const fs::path& path, const std::string& what, int err) {
  fail_at(path, what + ": " + std::generic_category().message(err));
}

[[noreturn]] void fail_errno(const fs::path& path, const char* what) {
  const int err = errno;
  fail_errno(path, std::string(what), err);
}

std::string n_bytes(std::uint64_t n) { return std::to_string(n) + (n == 1 ? " byte" : " bytes"); }

std::string crc_mismatch(std::string_view what, std::uint32_t stored, std::uint32_t computed) {
  return std::string(what) + " CRC-32C mismatch (stored " + hex32(stored) + ", computed " + hex32(computed) +
         "): corrupted";
}

}  // namespace roam::detail::ckpt
