#pragma once
// The pdes library's runtime options (+pdes_*), declared by the library
// itself (src/pdes_options.cpp, through roam/sched/options.hpp): given on the
// command line they override what the program put in engine_options, so a
// run can be tuned or checked without rebuilding the model.
#include <roam/pdes/options.hpp>

namespace roam::pdes::detail {

/// `o` with this process's +pdes_* options applied (each given one replaces
/// the program's value). Also what links the options' registration into
/// every program that simulates.
engine_options apply_command_line(engine_options o);

}  // namespace roam::pdes::detail
