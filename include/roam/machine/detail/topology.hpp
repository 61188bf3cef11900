#pragma once
// What the machine layer knows about this host: cores, and pinning threads.
#include <string>

namespace roam::detail {

/// Number of cores this process may run on (sched_getaffinity), at least 1.
int available_cores() noexcept;
/// Pins the calling thread to one core; returns an empty string or a reason it failed.
std::string pin_current_thread(int core) noexcept;
/// Names the calling thread (shown by debuggers and `top -H`).
void name_current_thread(const std::string& name) noexcept;

}  // namespace roam::detail
