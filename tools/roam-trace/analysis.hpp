#pragma once
// What the commands of roam-trace compute from a read trace: entry slices
// (begin/end matched, nested), idle periods, user spans, and each receipt
// linked to its send.
#include <cstdint>
#include <string>
#include <vector>

#include "trace_reader.hpp"

namespace roam_trace {

struct slice {
  std::int64_t begin = 0, end = 0;
  std::size_t event = 0;  ///< index of the begin event in its PE's events
  int depth = 0;          ///< 0: run by the scheduler; 1+: nested in another entry
};

struct interval {
  std::int64_t begin = 0, end = 0;
  std::uint32_t name = 0;  ///< user spans: the name id
};

struct flow_link {
  std::uint32_t src_pe = 0, dst_pe = 0;
  std::size_t send = 0, receive = 0;  ///< event indices on their PEs
  std::int64_t sent_ns = 0, received_ns = 0;
  std::int64_t started_ns = -1;       ///< the entry begin that follows the receipt (-1: none)
};

struct pe_analysis {
  std::vector<slice> slices;
  std::vector<interval> idle;
  std::vector<interval> spans;
  std::int64_t busy_ns = 0;  ///< depth-0 slices
  std::int64_t idle_ns = 0;
  std::uint64_t sent = 0, sent_bytes = 0, received = 0, received_bytes = 0;
  std::int64_t first_ns = 0, last_ns = 0;
};

struct analysis {
  std::vector<pe_analysis> pe;
  std::vector<flow_link> flows;
  std::uint64_t unmatched_receipts = 0;
  std::uint64_t unbalanced = 0;  ///< ends without a begin, or begins never ended
};

analysis analyze(const trace_run& run);

/// Per entry method over the whole run.
struct entry_total {
  std::string name;
  std::uint64_t count = 0;
  std::int64_t total_ns = 0, max_ns = 0;
};
std::vector<entry_total> entry_totals(const trace_run& run, const analysis& a);

/// The summary table, as `roam-trace summary` prints it.
std::string summary_text(const trace_run& run, const analysis& a);

}  // namespace roam_trace
