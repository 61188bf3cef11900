#pragma once
// `roam-trace perfetto`: the Chrome/Perfetto JSON trace-event format, which
// ui.perfetto.dev and chrome://tracing open: a process per roam process, a
// track per PE, slices per entry method (the object in args), flow arrows
// from each send to the entry it started, idle slices, user spans, marks and
// counters, phases as instants, and per-PE counters of utilization and of
// messages sent to the PE and not yet received (its queue).
#include <string>

#include "analysis.hpp"

namespace roam_trace {

/// The whole JSON document.
std::string perfetto_json(const trace_run& run, const analysis& a);

}  // namespace roam_trace
