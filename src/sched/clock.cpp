// The event clock (include/roam/sched/clock.hpp): the choice between the TSC
// and the steady clock, and the calibration of ticks against the steady clock.
#include <roam/sched/clock.hpp>

#include <unistd.h>

#include <algorithm>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <functional>
#include <string>
#include <thread>
#include <vector>

#include <roam/machine/detail/transport.hpp>

#include "runtime_internal.hpp"

namespace roam {

namespace detail {
namespace {

// The kernel trusts the TSC (invariant, synchronised across cores) exactly
// when it keeps time with it; then so can we.
bool kernel_keeps_time_with_tsc() {
#if defined(__x86_64__)
  std::ifstream f("/sys/devices/system/clocksource/clocksource0/current_clocksource");
  std::string name;
  return f && (f >> name) && name == "tsc";
#else
  return false;
#endif
}

}  // namespace

const bool g_clock_uses_tsc = kernel_keeps_time_with_tsc();

}  // namespace detail

namespace {

// ROAM_TEST_CLOCK_SKEW=<node>:<ns>: that node's wall clock runs <ns> ahead
// (tests of the offset measurement on one host, where clocks agree).
struct test_skew {
  long long node = -1;
  long long ns = 0;
};
test_skew read_test_skew() {
  test_skew s;
  if (const char* v = std::getenv("ROAM_TEST_CLOCK_SKEW"); v && *v) {
    if (std::sscanf(v, "%lld:%lld", &s.node, &s.ns) != 2) s = {};
  }
  return s;
}
const test_skew g_skew = read_test_skew();
std::int64_t g_skew_here = 0;  // set once this process knows its node
std::int64_t g_offset_ns = 0;

std::uint64_t unix_now() noexcept {
  return static_cast<std::uint64_t>(
      std::chrono::duration_cast<std::chrono::nanoseconds>(std::chrono::system_clock::now().time_since_epoch()).count() +
      g_skew_here);
}

clock_pair take_pair() noexcept {
  clock_pair p;
  // The ticks read between the two other clocks: the pair is within ~20 ns.
  p.steady_ns = detail::steady_ns();
  p.ticks = clock_ticks();
  p.unix_ns = unix_now();
  return p;
}

const clock_pair g_origin = take_pair();

}  // namespace

clock_pair clock_now_pair() noexcept { return take_pair(); }
clock_pair clock_origin() noexcept {
  clock_pair p = g_origin;
  p.unix_ns += static_cast<std::uint64_t>(g_skew_here);
  return p;
}
std::int64_t clock_offset_ns() noexcept { return g_offset_ns; }

namespace detail {

namespace {
struct clock_sample {
  std::uint64_t host;
  std::int64_t unix_ns;
};
std::uint64_t host_id() {
  char name[256] = {};
  gethostname(name, sizeof(name) - 1);
  return std::hash<std::string>{}(name);
}
}  // namespace

// Each round every node posts its wall clock and notes when the gather
// returned: the least (arrival - posted) seen from node 0 here is offset +
// delay, the least seen from here at node 0 is delay - offset; with delays
// alike both ways, their half difference is the offset (NTP's estimate).
std::string measure_clock_offset(transport& net) {
  const std::uint32_t me = net.my_node(), n = net.num_nodes();
  if (g_skew.node == static_cast<long long>(me)) g_skew_here = g_skew.ns;
  if (n == 1) return {};
  constexpr int rounds = 5;
  const std::uint64_t host = host_id();
  std::vector<std::int64_t> least(n, INT64_MAX);
  std::uint64_t host0 = 0;
  for (int r = 0; r < rounds; ++r) {
    clock_sample mine{host, static_cast<std::int64_t>(unix_now())};
    std::vector<std::byte> blob(sizeof(mine));
    std::memcpy(blob.data(), &mine, sizeof(mine));
    auto all = net.allgather(blob);
    const auto arrived = static_cast<std::int64_t>(unix_now());
    if (all.size() != n) return "clock exchange returned " + std::to_string(all.size()) + " records";
    for (std::uint32_t k = 0; k < n; ++k) {
      clock_sample s{};
      if (all[k].size() != sizeof(s)) return "node " + std::to_string(k) + " sent a malformed clock sample";
      std::memcpy(&s, all[k].data(), sizeof(s));
      least[k] = std::min(least[k], arrived - s.unix_ns);
      if (k == 0) host0 = s.host;
    }
  }
  std::vector<std::byte> blob(n * sizeof(std::int64_t));
  std::memcpy(blob.data(), least.data(), blob.size());
  auto all = net.allgather(blob);
  if (all.size() != n || all[0].size() != blob.size()) return "clock exchange: malformed delays from node 0";
  std::int64_t from_me_at_0 = 0;
  std::memcpy(&from_me_at_0, all[0].data() + me * sizeof(std::int64_t), sizeof(from_me_at_0));
  const bool same_host = host0 == host && g_skew.node < 0;
  g_offset_ns = me == 0 || same_host ? 0 : (least[0] - from_me_at_0) / 2;
  return {};
}

}  // namespace detail
bool clock_is_tsc() noexcept { return detail::g_clock_uses_tsc; }

double clock_ticks_per_second() noexcept {
  if (!detail::g_clock_uses_tsc) return 1e9;
  constexpr std::uint64_t min_span_ns = 2'000'000;
  clock_pair now = take_pair();
  while (now.steady_ns - g_origin.steady_ns < min_span_ns) {
    std::this_thread::sleep_for(std::chrono::nanoseconds(min_span_ns - (now.steady_ns - g_origin.steady_ns)));
    now = take_pair();
  }
  return static_cast<double>(now.ticks - g_origin.ticks) * 1e9 / static_cast<double>(now.steady_ns - g_origin.steady_ns);
}

}  // namespace roam
