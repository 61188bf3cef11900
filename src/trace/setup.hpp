#pragma once
// The trace layer's run hooks: +trace and +summary start with the run and
// finish after every PE of the process stopped.
#include "trace_observer.hpp"

namespace roam::trace::detail {

/// The tracer of this run, or null when the run is not traced.
trace_observer* active_tracer() noexcept;

}  // namespace roam::trace::detail
