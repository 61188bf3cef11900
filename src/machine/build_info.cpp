#include <roam/machine/build_info.hpp>

#ifdef ROAM_HAVE_MPI
#include <mpi.h>
#endif

// The facts come from CMake as definitions on this file alone
// (src/CMakeLists.txt), so a reconfiguration recompiles one file.
#ifndef ROAM_BUILD_VERSION
#error "src/machine/build_info.cpp is compiled with its definitions from src/CMakeLists.txt"
#endif

namespace roam {

namespace {

// The MPI library's own name for itself ("Open MPI v4.1.4"), which CMake does
// not always know; MPI_Get_library_version may be called before MPI_Init.
std::string_view mpi_library() {
#ifdef ROAM_HAVE_MPI
  static const std::string name = [] {
    char text[MPI_MAX_LIBRARY_VERSION_STRING] = {};
    int length = 0;
    if (MPI_Get_library_version(text, &length) != MPI_SUCCESS || length <= 0) return std::string(ROAM_BUILD_MPI);
    std::string s(text, static_cast<std::size_t>(length));
    s = s.substr(0, s.find_first_of(",\n"));
    while (!s.empty() && (s.back() == ' ' || s.back() == '\0')) s.pop_back();
    return s.empty() ? std::string(ROAM_BUILD_MPI) : s;
  }();
  return name;
#else
  return ROAM_BUILD_MPI;
#endif
}

}  // namespace

const build_info& this_build() noexcept {
  static const build_info info{
      .version = ROAM_BUILD_VERSION,
      .build_type = ROAM_BUILD_TYPE,
      .compiler = ROAM_BUILD_COMPILER,
      .sanitizers = ROAM_BUILD_SANITIZERS,
      .mpi = mpi_library(),
      .libraries = ROAM_BUILD_LIBRARIES,
      .context_switch = ROAM_BUILD_CONTEXT_SWITCH,
      .zstd = ROAM_BUILD_ZSTD != 0,
      .metis = ROAM_BUILD_METIS != 0,
  };
  return info;
}

std::string build_description() {
  const build_info& b = this_build();
  std::string out = "roam " + std::string(b.version) + " (" + std::string(b.build_type) + ", " +
                    std::string(b.compiler) + ")\n";
  out += "  transports: threads, tcp";
  if (!b.mpi.empty()) out += ", mpi (" + std::string(b.mpi) + ")";
  out += "\n  sanitizers: " + std::string(b.sanitizers) + "\n";
  out += "  libraries: " + std::string(b.libraries) + "\n";
  out += "  user-level threads: " + std::string(b.context_switch) + "\n";
  out += std::string("  compressed traces (zstd): ") + (b.zstd ? "yes" : "no") + "\n";
  out += std::string("  Metis load balancing: ") + (b.metis ? "yes" : "no") + "\n";
  return out;
}

}  // namespace roam
