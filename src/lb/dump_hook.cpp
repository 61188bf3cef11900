// +LBDump (dump_hook.hpp), through the dump format of roam/lb/dump.hpp.
#include "dump_hook.hpp"

#include <cstdio>
#include <stdexcept>

#if __has_include(<roam/lb/dump.hpp>)
#include <roam/lb/dump.hpp>
#define ROAM_LB_DUMP_FORMAT 1
#endif

namespace roam::lb::detail {

void append_dump(const std::string& path, const problem& p, const std::string& strategy) {
  static bool failed = false;
  if (failed) return;
  try {
#if defined(ROAM_LB_DUMP_FORMAT)
    append_dump_step(path, p, strategy);
#else
    (void)path, (void)p, (void)strategy;
    throw std::runtime_error("TEMPORARY: dump format not built yet");
#endif
  } catch (const std::exception& e) {
    failed = true;
    std::fprintf(stderr, "roam: pe 0: +LBDump: %s (no further steps are dumped)\n", e.what());
  }
}

}  // namespace roam::lb::detail
