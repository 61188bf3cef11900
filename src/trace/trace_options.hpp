#pragma once
// The trace layer's runtime options (+trace, +tracebuf, +tracezstd,
// +summary), declared by the layer itself (trace_options.cpp) and read when a run
// starts.
#include <cstddef>
#include <string>

namespace roam::trace::detail {

struct trace_settings {
  bool trace = false;                    ///< +trace[=DIR]: record a trace
  std::string trace_dir = "roam-trace";  ///< where it goes
  std::size_t trace_buf = 8u << 20;      ///< +tracebuf BYTES: each PE's buffer
  bool trace_zstd = false;               ///< +tracezstd: compress trace chunks
  bool summary = false;                  ///< +summary[=FILE]: aggregates printed at exit
  std::string summary_json;              ///< ... and written as JSON to FILE (empty: not written)
};

/// This process's settings, as the last parse left them.
const trace_settings& settings() noexcept;

}  // namespace roam::trace::detail
