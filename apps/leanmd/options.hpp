#pragma once
// LeanMD's command line: presets, options, --help, and the opening summary.
#include <optional>

#include <roam/roam.hpp>

#include "physics.hpp"

namespace leanmd {

/// The configuration the arguments ask for, or nothing after printing the
/// usage (`exit_code` 0 for --help, 2 for a bad argument).
std::optional<config> parse_options(const roam::args& a, int& exit_code);
/// What will run: box, atoms, computes, PEs, physics, periods.
void print_configuration(const config& c);

}  // namespace leanmd
