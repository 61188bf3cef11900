// PE pollers (include/roam/sched/poller.hpp): a fixed table, filled once per
// subscriber and read by every PE with one relaxed load when empty.
#include <roam/sched/poller.hpp>

#include <array>
#include <atomic>
#include <mutex>

namespace roam {
namespace {
constexpr std::size_t max_pollers = 8;
std::array<std::atomic<pe_poller*>, max_pollers> g_pollers{};
std::atomic<std::size_t> g_count{0};
std::mutex g_adding;
}  // namespace

bool add_pe_poller(pe_poller& p) noexcept {
  std::lock_guard lock(g_adding);
  const std::size_t n = g_count.load(std::memory_order_relaxed);
  for (std::size_t i = 0; i < n; ++i)
    if (g_pollers[i].load(std::memory_order_relaxed) == &p) return false;
  if (n == max_pollers) return false;
  g_pollers[n].store(&p, std::memory_order_relaxed);
  g_count.store(n + 1, std::memory_order_release);
  return true;
}

namespace detail {

bool have_pollers() noexcept { return g_count.load(std::memory_order_relaxed) != 0; }

bool poll_pollers(std::uint32_t pe) noexcept {
  const std::size_t n = g_count.load(std::memory_order_acquire);
  bool found = false;
  for (std::size_t i = 0; i < n; ++i) found |= g_pollers[i].load(std::memory_order_relaxed)->poll(pe);
  return found;
}

void tell_pollers_sleeping(std::uint32_t pe, bool asleep) noexcept {
  const std::size_t n = g_count.load(std::memory_order_acquire);
  for (std::size_t i = 0; i < n; ++i) g_pollers[i].load(std::memory_order_relaxed)->sleeping(pe, asleep);
}

}  // namespace detail
}  // namespace roam
