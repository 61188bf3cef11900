#include "mpi/mpi_limits.hpp"

#include <charconv>
#include <cstdint>
#include <string_view>

namespace roam::detail {

namespace {

// One variable: unset/empty keeps `value`; otherwise it must be a decimal
// integer in [lo, hi].
bool read_one(const char* (*lookup)(const char*), const char* name, std::uint64_t lo, std::uint64_t hi,
              std::uint64_t& value, std::string& error) {
  const char* text = lookup(name);
  if (text == nullptr || *text == '\0') return true;
  std::string_view s(text);
  std::uint64_t v = 0;
  auto [end, ec] = std::from_chars(s.data(), s.data() + s.size(), v);
  if (ec != std::errc{} || end != s.data() + s.size() || v < lo || v > hi) {
    error = "mpi transport: " + std::string(name) + "='" + std::string(s) + "' is not a whole number in [" +
            std::to_string(lo) + ", " + std::to_string(hi) + "]";
    return false;
  }
  value = v;
  return true;
}

}  // namespace

bool read_mpi_limits(const char* (*lookup)(const char*), mpi_limits& out, std::string& error) {
  mpi_limits l = out;
  std::uint64_t sends = l.max_sends, tests = l.max_tests, recvs = l.max_recvs, inflight = l.max_inflight;
  std::uint64_t small = l.small_frame, slots = l.recv_slots;
  std::uint64_t spin = static_cast<std::uint64_t>(l.spin.count());
  std::uint64_t spin_in_flight = static_cast<std::uint64_t>(l.spin_in_flight.count());
  std::uint64_t sleep = static_cast<std::uint64_t>(l.max_sleep.count());
  std::uint64_t finish = static_cast<std::uint64_t>(l.finish_timeout.count());
  std::uint64_t beat = static_cast<std::uint64_t>(l.heartbeat_interval.count());
  std::uint64_t beat_timeout = static_cast<std::uint64_t>(l.heartbeat_timeout.count());
  constexpr std::uint64_t big = 1u << 20;
  // A cap of 0 would stop that kind of work altogether, hence the lower bound 1.
  if (!read_one(lookup, "ROAM_MPI_MAX_SENDS", 1, big, sends, error) ||
      !read_one(lookup, "ROAM_MPI_MAX_TESTS", 1, big, tests, error) ||
      !read_one(lookup, "ROAM_MPI_MAX_RECVS", 1, big, recvs, error) ||
      !read_one(lookup, "ROAM_MPI_MAX_INFLIGHT", 1, big, inflight, error) ||
      !read_one(lookup, "ROAM_MPI_SMALL_FRAME", 64, 1u << 20, small, error) ||
      !read_one(lookup, "ROAM_MPI_RECV_SLOTS", 1, 4096, slots, error) ||
      !read_one(lookup, "ROAM_MPI_SPIN_US", 0, 1'000'000, spin, error) ||
      !read_one(lookup, "ROAM_MPI_SPIN_INFLIGHT_US", 0, 1'000'000, spin_in_flight, error) ||
      !read_one(lookup, "ROAM_MPI_MAX_SLEEP_US", 1, 1'000'000, sleep, error) ||
      !read_one(lookup, "ROAM_MPI_FINISH_TIMEOUT_S", 1, 86'400, finish, error) ||
      !read_one(lookup, "ROAM_MPI_HEARTBEAT_INTERVAL_MS", 1, 3'600'000, beat, error) ||
      !read_one(lookup, "ROAM_MPI_HEARTBEAT_TIMEOUT_MS", 2, 86'400'000, beat_timeout, error))
    return false;
  if (beat_timeout <= beat) {
    // A timeout within one interval would declare a healthy idle peer failed.
    error = "mpi transport: ROAM_MPI_HEARTBEAT_TIMEOUT_MS (" + std::to_string(beat_timeout) +
            " ms) must exceed ROAM_MPI_HEARTBEAT_INTERVAL_MS (" + std::to_string(beat) + " ms)";
    return false;
  }
  l.max_sends = sends;
  l.max_tests = tests;
  l.max_recvs = recvs;
  l.max_inflight = inflight;
  l.small_frame = small;
  l.recv_slots = slots;
  l.spin = std::chrono::microseconds(spin);
  l.spin_in_flight = std::chrono::microseconds(spin_in_flight);
  l.max_sleep = std::chrono::microseconds(sleep);
  l.finish_timeout = std::chrono::seconds(finish);
  l.heartbeat_interval = std::chrono::milliseconds(beat);
  l.heartbeat_timeout = std::chrono::milliseconds(beat_timeout);
  out = l;
  return true;
}

}  // namespace roam::detail
