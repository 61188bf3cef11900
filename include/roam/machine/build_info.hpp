#pragma once
/// What this copy of roam is and how it was built: `+version` and `+help` on
/// every program, and `roamrun --version`, print it.
#include <string>
#include <string_view>

namespace roam {

struct build_info {
  std::string_view version;     ///< "0.1.0"
  std::string_view build_type;  ///< CMake's build type: "Release", "Debug", ...
  std::string_view compiler;    ///< "GNU 12.2.0"
  std::string_view sanitizers;  ///< "none", "thread", "address,undefined"
  std::string_view mpi;         ///< empty without the mpi transport, else the MPI library's version
  std::string_view libraries;   ///< "static" or "shared"
  std::string_view context_switch;  ///< how user-level threads switch: "x86-64 assembly" or "ucontext"
  bool zstd = false;            ///< compressed traces (+tracezstd)
  bool metis = false;           ///< the Metis load balancing strategy
};

/// The build of the roam library this program links.
const build_info& this_build() noexcept;

/// `this_build()` as text, one fact per line, ending in '\n': the first line is
/// "roam <version> (<build type>, <compiler>)".
std::string build_description();

}  // namespace roam
