#pragma once
// The wording of a checkpoint's errors, shared by its writers and its checks:
// every message starts with the path at fault, then says what went wrong
// ("<path>: truncated: 12 bytes, ...", "<path>: header CRC-32C mismatch
// (stored 0x..., computed 0x...): corrupted"), so that a user sees which file
// to look at. Tests match these texts (tests/unit/ft/format_test.cpp).
#include <cstdint>
#include <filesystem>
#include <string>
#include <string_view>

namespace roam::detail::ckpt {

/// Throws checkpoint_error "<path>: <reason>".
[[noreturn]] void fail_at(const std::filesystem::path& path, const std::string& reason);
/// ... with ": <the text of errno `err`>" after `what`.
[[noreturn]] void fail_errno(const std::filesystem::path& path, const std::string& what, int err);
/// For a call that just failed: errno is read before anything can change it.
[[noreturn]] void fail_errno(const std::filesystem::path& path, const char* what);

/// "1 byte", "12 bytes".
std::string n_bytes(std::uint64_t n);
/// "0x0000abcd", "0x00000000deadbeef".
std::string hex32(std::uint32_t value);
std::string hex64(std::uint64_t value);
/// "<what> CRC-32C mismatch (stored 0x..., computed 0x...): corrupted".
std::string crc_mismatch(std::string_view what, std::uint32_t stored, std::uint32_t computed);

}  // namespace roam::detail::ckpt
