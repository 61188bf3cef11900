#pragma once
// `roam-trace report`: one self-contained HTML page (Chart.js inlined):
// run header; utilization over time, all PEs and per PE, stacked by entry
// method; top entry methods by time and by count; busy, idle and other share
// per PE; message sizes; the PE-by-PE communication matrix; the longest waits
// from a send to the entry it started.
#include <string>

#include "analysis.hpp"

namespace roam_trace {

/// The page; throws trace_error when Chart.js cannot be read.
std::string report_html(const trace_run& run, const analysis& a);

}  // namespace roam_trace
