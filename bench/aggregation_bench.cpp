// roam-bench aggregation: fine-grained all-to-all through roam::aggregator
// (libs/aggregation) against one message per item, on the Random Access
// kernel (2^20 words per PE, 4 x as many updates; apps/random_access has the
// full benchmark with verification, docs/perf.md the comparison with Charm++).
#include <cstdint>

#include <roam/aggregation/aggregator.hpp>
#include <roam/roam.hpp>

#include "common.hpp"

namespace roam_bench {
namespace {

constexpr std::uint32_t log_words = 20;
constexpr std::uint64_t poly = 7;
std::uint64_t next(std::uint64_t x) { return (x << 1) ^ (static_cast<std::int64_t>(x) < 0 ? poly : 0); }

struct slice : roam::group_member<slice> {
  std::vector<std::uint64_t> words = std::vector<std::uint64_t>(std::size_t{1} << log_words);
  void update(std::uint64_t ran) { words[ran & (words.size() - 1)] ^= ran; }

  // A seed per PE instead of the HPCC jump-ahead: the kernel's cost is the same.
  roam::task<> aggregated(roam::aggregator<&slice::update> agg) {
    const std::uint64_t count = 4 * words.size();
    const std::uint64_t pes_mask = roam::num_pes() - 1;
    std::uint64_t ran = 0x9e3779b97f4a7c15ull * (roam::my_pe().value() + 1);
    for (std::uint64_t i = 0; i < count; ++i) {
      ran = next(ran);
      co_await agg.insert(roam::pe_id{static_cast<std::uint32_t>((ran >> log_words) & pes_mask)}, ran);
    }
    agg.done();
  }
  void direct(std::uint64_t from, std::uint64_t ran, roam::callback<void> finished) {
    const std::uint64_t count = 4 * words.size(), end = std::min(count, from + 1024);
    const std::uint64_t pes_mask = roam::num_pes() - 1;
    auto group = this_group();
    for (std::uint64_t i = from; i < end; ++i) {
      ran = next(ran);
      const auto owner = static_cast<std::uint32_t>((ran >> log_words) & pes_mask);
      if (owner == roam::my_pe().value()) update(ran);
      else group[roam::pe_id{owner}].send<&slice::update>(ran);
    }
    if (end < count) group[roam::my_pe()].send<&slice::direct>(end, ran, finished);
    else contribute(finished);
  }
  void start_direct(roam::callback<void> finished) {
    direct(0, 0x9e3779b97f4a7c15ull * (roam::my_pe().value() + 1), finished);
  }
};

}  // namespace

roam::task<> bench_aggregation() {
  const std::uint32_t pes = roam::num_pes();
  if (pes & (pes - 1)) co_return;  // the table splits in powers of two
  auto slices = roam::create_group<slice>();
  const double updates = 4.0 * static_cast<double>(std::uint64_t{1} << log_words) * pes;
  if (wanted("random_access_aggregated")) {
    auto agg = roam::make_aggregator<&slice::update>(slices);
    result r{"aggregation", "random_access_aggregated", pes, -1, "M_updates_per_s", {}};
    for (int rep = 0; rep <= g_config.reps; ++rep) {
      auto [f, p] = roam::make_future<void>();
      const auto t0 = bench_clock::now();
      agg.start(pes, roam::callback<void>::to_future(p));
      slices.send<&slice::aggregated>(agg);
      co_await f;
      if (rep > 0) r.samples.push_back(updates / seconds_since(t0) / 1e6);
    }
    print(r, g_config.json);
  }
  if (wanted("random_access_direct")) {
    result r{"aggregation", "random_access_direct", pes, -1, "M_updates_per_s", {}};
    for (int rep = 0; rep <= g_config.reps; ++rep) {
      auto [f, p] = roam::make_future<void>();
      const auto t0 = bench_clock::now();
      slices.send<&slice::start_direct>(roam::callback<void>::to_future(p));
      co_await f;
      co_await roam::quiescence();
      if (rep > 0) r.samples.push_back(updates / seconds_since(t0) / 1e6);
    }
    print(r, g_config.json);
  }
}

}  // namespace roam_bench
