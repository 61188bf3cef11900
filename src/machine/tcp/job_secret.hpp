#pragma once
// The per-job secret: 16 random bytes roamrun draws once per job and hands to
// every process (hex in ROAM_TCP_SECRET). Every connection opens with it, so a
// stray or hostile connection to a listening port is refused before any of its
// bytes reach the runtime. It is an admission ticket, not encryption: traffic
// after the handshake is plain TCP.
#include <array>
#include <cstddef>
#include <optional>
#include <string>
#include <string_view>

namespace roam::detail::tcp {

struct job_secret {
  std::array<std::byte, 16> bytes{};
};

/// A fresh secret from the kernel's CSPRNG (getrandom); nullopt and `error` set if it fails.
std::optional<job_secret> generate_job_secret(std::string& error);
/// 32 lowercase hex digits.
std::string to_hex(const job_secret& s);
/// Parses 32 hex digits (either case); nullopt for anything else.
std::optional<job_secret> parse_job_secret(std::string_view hex) noexcept;
/// Compares in time independent of where the secrets differ.
bool secrets_equal(const job_secret& a, const job_secret& b) noexcept;

}  // namespace roam::detail::tcp
