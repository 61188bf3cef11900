#pragma once
// Result reporting for roam-bench: a table on stdout, or one JSON object per
// line with --json (keys: bench, case, pes, bytes, metric, value, min, max, reps).
#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <string>
#include <vector>

namespace roam_bench {

struct result {
  std::string bench;
  std::string case_name;
  std::uint32_t pes = 1;
  std::int64_t bytes = -1;  // -1: not applicable
  std::string metric;
  std::vector<double> samples;
};

inline double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  if (v.empty()) return 0;
  std::size_t n = v.size();
  return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

inline void print(const result& r, bool json) {
  double med = median(r.samples);
  double lo = *std::min_element(r.samples.begin(), r.samples.end());
  double hi = *std::max_element(r.samples.begin(), r.samples.end());
  if (json) {
    std::printf("{\"bench\":\"%s\",\"case\":\"%s\",\"pes\":%u,", r.bench.c_str(), r.case_name.c_str(), r.pes);
    if (r.bytes >= 0) std::printf("\"bytes\":%lld,", static_cast<long long>(r.bytes));
    std::printf("\"metric\":\"%s\",\"value\":%.6g,\"min\":%.6g,\"max\":%.6g,\"reps\":%zu}\n", r.metric.c_str(), med, lo, hi,
                r.samples.size());
  } else {
    std::string bytes = r.bytes >= 0 ? std::to_string(r.bytes) : "-";
    std::printf("%-10s %-28s %4u %9s %-18s %12.4g  [%.4g .. %.4g] n=%zu\n", r.bench.c_str(), r.case_name.c_str(), r.pes,
                bytes.c_str(), r.metric.c_str(), med, lo, hi, r.samples.size());
  }
  std::fflush(stdout);
}

inline void print_header(bool json) {
  if (!json)
    std::printf("%-10s %-28s %4s %9s %-18s %12s  %s\n", "bench", "case", "pes", "bytes", "metric", "median", "[min .. max]");
}

}  // namespace roam_bench
