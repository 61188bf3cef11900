#pragma once
// A futex-backed wake word: the primitive idle PEs sleep on. Linux only, as is
// the rest of the machine layer for now.
#include <atomic>
#include <chrono>
#include <cstdint>

namespace roam::detail {

/// Sleeps while `word == expected`, at most `timeout` (negative: no limit). Spurious wakes are allowed.
void futex_wait(std::atomic<std::uint32_t>& word, std::uint32_t expected, std::chrono::nanoseconds timeout) noexcept;
/// Wakes up to `count` threads sleeping on `word`.
void futex_wake(std::atomic<std::uint32_t>& word, int count) noexcept;

}  // namespace roam::detail
