#include "mpi/mpi_wake_signal.hpp"

#include <roam/machine/detail/futex.hpp>

namespace roam::detail {

void mpi_wake_signal::wake() noexcept {
  pending_.store(true, std::memory_order_seq_cst);
  if (sleeping_.load(std::memory_order_seq_cst)) {
    word_.fetch_add(1, std::memory_order_seq_cst);
    futex_wake(word_, 1);
  }
}

void mpi_wake_signal::sleep_for(std::chrono::nanoseconds d) noexcept {
  sleeping_.store(true, std::memory_order_seq_cst);
  std::uint32_t seen = word_.load(std::memory_order_seq_cst);
  if (!pending_.load(std::memory_order_seq_cst)) futex_wait(word_, seen, d);
  sleeping_.store(false, std::memory_order_seq_cst);
}

}  // namespace roam::detail
