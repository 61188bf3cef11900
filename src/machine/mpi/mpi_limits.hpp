#pragma once
// The mpi transport's tunables: burst caps (NAMD's communication-thread
// throttling, Mei et al. SC'11 §4.4.2) and idle-wait timing, read from the
// environment once at start-up. No MPI here, so it is unit-testable.
#include <chrono>
#include <cstddef>
#include <string>

namespace roam::detail {

struct mpi_limits {
  /// Sends started per progress() call (ROAM_MPI_MAX_SENDS).
  std::size_t max_sends = 64;
  /// Send requests tested for completion per progress() call (ROAM_MPI_MAX_TESTS).
  std::size_t max_tests = 64;
  /// Frames received (and handed to on_frame) per progress() call (ROAM_MPI_MAX_RECVS).
  std::size_t max_recvs = 64;
  /// Started but not yet completed sends; beyond it new frames wait in the
  /// queue (ROAM_MPI_MAX_INFLIGHT).
  std::size_t max_inflight = 256;
  /// Frames up to this many bytes arrive in pre-posted receive slots; bigger
  /// ones are announced by a header and received into a buffer of their
  /// size (ROAM_MPI_SMALL_FRAME).
  std::size_t small_frame = 8192;
  /// Pre-posted receive slots of small_frame bytes each (ROAM_MPI_RECV_SLOTS).
  std::size_t recv_slots = 32;
  /// wait(): how long to poll for a frame before the first sleep (ROAM_MPI_SPIN_US).
  /// It must outlast the shortest real sleep (~25 us on a VM even with 1 us
  /// timer slack): if it did not, two ranks ping-ponging would settle into
  /// each hop waiting for a sleeper to wake.
  std::chrono::microseconds spin{50};
  /// wait(): the same while this node's own sends are in flight
  /// (ROAM_MPI_SPIN_INFLIGHT_US). A large send in flight means the peer is
  /// reading it right now (single copy) and will likely answer soon; sleeping
  /// through that added up to one backoff step per hop (1 MiB ping-pong:
  /// 184 us one-way against 115 us spinning, docs/perf.md).
  std::chrono::microseconds spin_in_flight{1000};
  /// wait(): the longest single sleep of the exponential backoff, which bounds
  /// the extra latency of a frame that arrives while the thread sleeps
  /// (ROAM_MPI_MAX_SLEEP_US).
  std::chrono::microseconds max_sleep{1000};
  /// finish(): how long to wait for the peers before giving up and aborting
  /// the job (ROAM_MPI_FINISH_TIMEOUT_S).
  std::chrono::seconds finish_timeout{30};
  /// A peer sent nothing to for this long gets an empty heartbeat message
  /// (ROAM_MPI_HEARTBEAT_INTERVAL_MS; +ftheartbeat sets it).
  std::chrono::milliseconds heartbeat_interval{1000};
  /// A peer heard nothing from (no frame, no heartbeat) for this long is
  /// reported failed (ROAM_MPI_HEARTBEAT_TIMEOUT_MS; +fttimeout sets it).
  /// Must exceed the interval.
  std::chrono::milliseconds heartbeat_timeout{60000};
};

/// Reads the ROAM_MPI_* variables through `lookup` (std::getenv in production;
/// it returns nullptr for an unset variable). Unset or empty variables keep the
/// defaults. Returns false and sets `error` (naming the variable, the bad value
/// and the accepted range) for a value that is not a whole number in range.
bool read_mpi_limits(const char* (*lookup)(const char* name), mpi_limits& out, std::string& error);

}  // namespace roam::detail
