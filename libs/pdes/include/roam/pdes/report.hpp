#pragma once
/// The engine's statistics as the applications print them (two lines,
/// prefixed with the program's name; tests match them).
#include <cstdio>

#include <roam/pdes/model.hpp>

namespace roam::pdes {

inline void print_stats(const char* program, const run_stats& r) {
  std::printf("%s: committed %llu events in %.3f s (%.2f M events/s); %llu sends past the end\n", program,
              static_cast<unsigned long long>(r.committed), r.seconds, r.events_per_second() / 1e6,
              static_cast<unsigned long long>(r.past_end));
  std::printf("%s: processed %llu, rolled back %llu (efficiency %.2f %%), rollbacks %llu primary / %llu "
              "secondary, anti-messages %llu, remote events %llu, GVT rounds %llu (+%llu retries), checked %llu\n",
              program, static_cast<unsigned long long>(r.processed), static_cast<unsigned long long>(r.rolled_back),
              100.0 * r.efficiency(), static_cast<unsigned long long>(r.primary_rollbacks),
              static_cast<unsigned long long>(r.secondary_rollbacks), static_cast<unsigned long long>(r.anti_messages),
              static_cast<unsigned long long>(r.remote_events), static_cast<unsigned long long>(r.gvt_rounds),
              static_cast<unsigned long long>(r.gvt_retries), static_cast<unsigned long long>(r.checked));
  if (r.slice_halvings != 0 || r.window_narrowings != 0) {
    std::printf("%s: optimism bounded by the rollbacks: slices halved %llu times, windows narrowed %llu times", program,
                static_cast<unsigned long long>(r.slice_halvings),
                static_cast<unsigned long long>(r.window_narrowings));
    if (r.final_window != infinite_time) std::printf(", narrowest window at the end %g", r.final_window);
    std::printf("\n");
  }
  if (r.restored != 0)
    std::printf("%s: restarted from a checkpoint: %llu of the committed events were committed before it\n", program,
                static_cast<unsigned long long>(r.restored));
  if (r.balancing_steps != 0)
    std::printf("%s: load balancing steps %llu, LP chares moved %llu\n", program,
                static_cast<unsigned long long>(r.balancing_steps), static_cast<unsigned long long>(r.chares_moved));
}

}  // namespace roam::pdes
