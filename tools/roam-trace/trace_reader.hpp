#pragma once
// Reading a trace directory (include/roam/trace/detail/format.hpp): every
// file is validated as it is read; anything wrong is a trace_error naming the
// file and where, never a crash.
#include <cstdint>
#include <map>
#include <stdexcept>
#include <string>
#include <vector>

#include <roam/sched/observe.hpp>
#include <roam/trace/detail/format.hpp>

namespace roam_trace {

using roam::trace::detail::record;
using roam::trace::detail::record_type;

struct trace_error : std::runtime_error {
  using std::runtime_error::runtime_error;
};

struct process_info {
  std::uint32_t node = 0;
  double ticks_per_ns = 1;
  std::uint64_t origin_ticks = 0;
  std::int64_t origin_ns = 0;  ///< origin on node 0's wall clock
  std::vector<std::string> names;  ///< user event names by id
};

/// One event of a PE, its time on the run's common clock (ns since the run began).
struct event {
  std::int64_t ns;
  record r;
  std::int32_t ext[4] = {};  ///< index 2..5 for elements of more than 2 dims
};

struct pe_trace {
  std::uint32_t pe = 0;
  std::uint32_t node = 0;
  std::uint64_t stalls = 0;
  std::vector<event> events;
};

struct trace_run {
  std::string dir;
  std::string program;
  std::vector<std::string> command_line;
  std::string transport;
  std::uint32_t nodes = 1, pes = 1;
  std::int64_t start_unix_ns = 0;  ///< the run's time 0 (node 0's wall clock)
  std::int64_t end_ns = 0;         ///< the last event
  std::vector<process_info> processes;
  std::vector<pe_trace> pe;        ///< by PE number
  std::map<std::uint64_t, std::string> entries;
  std::map<std::uint32_t, std::string> collections;
  /// Per node: ns added to its times after the start-up offset, so that every
  /// message arrives after it was sent (align_clocks); 0 when none was needed.
  std::vector<std::int64_t> clock_corrections;

  std::string entry_name(std::uint64_t id) const;
  /// "cell[1,2]", "chare 7 (id 123)", "group member 3 of counter".
  std::string object_name(const event& e) const;
  const std::string& user_name(std::uint32_t node, std::uint32_t id) const;
};

/// Reads DIR (clocks aligned, times from the first event); throws trace_error.
trace_run read_trace(const std::string& dir);

/// The start-up measurement of clock offsets leaves an error of about the
/// transport's latency asymmetry (a microsecond on one host): node by node,
/// shifts each process's times by the least amount that puts every message
/// between it and the nodes before it forward in time (the bounds the
/// messages themselves give). In analysis.cpp.
void align_clocks(trace_run& run);

}  // namespace roam_trace
