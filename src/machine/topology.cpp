#include <roam/machine/detail/topology.hpp>

#include <pthread.h>
#include <sched.h>

#include <cstring>

namespace roam::detail {

int available_cores() noexcept {
  cpu_set_t set;
  CPU_ZERO(&set);
  if (sched_getaffinity(0, sizeof(set), &set) != 0) return 1;
  int n = CPU_COUNT(&set);
  return n > 0 ? n : 1;
}

std::string pin_current_thread(int core) noexcept {
  cpu_set_t allowed;
  CPU_ZERO(&allowed);
  if (sched_getaffinity(0, sizeof(allowed), &allowed) != 0) return std::strerror(errno);
  // Map the k-th PE onto the k-th allowed core, wrapping around.
  int count = CPU_COUNT(&allowed);
  if (count <= 0) return "no allowed cores";
  int want = core % count;
  for (int cpu = 0; cpu < CPU_SETSIZE; ++cpu) {
    if (!CPU_ISSET(cpu, &allowed)) continue;
    if (want-- == 0) {
      cpu_set_t one;
      CPU_ZERO(&one);
      CPU_SET(cpu, &one);
      int rc = pthread_setaffinity_np(pthread_self(), sizeof(one), &one);
      return rc == 0 ? std::string{} : std::string(std::strerror(rc));
    }
  }
  return "core not found";
}

void name_current_thread(const std::string& name) noexcept {
  std::string n = name.substr(0, 15);
  pthread_setname_np(pthread_self(), n.c_str());
}

}  // namespace roam::detail
