#pragma once
// process-<node>.json: what a traced run was, and what its records' ids name.
#include <string>

#include <roam/sched/detail/runtime_state.hpp>

#include "recorder.hpp"

namespace roam::trace::detail {

/// Writes DIR/process-<node>.json; returns an error text (empty: written).
std::string write_index(const roam::detail::runtime_state& rt, const trace_writer& w, const std::string& dir);

}  // namespace roam::trace::detail
