// The lists layers register into at static initialisation (startup.hpp):
// start-up checks, per-PE setups and run hooks, and running them.
#include <cstdio>
#include <string>
#include <vector>

#include <roam/sched/detail/startup.hpp>

#include "runtime_internal.hpp"

namespace roam::detail {

namespace {
std::vector<pe_setup>& pe_setups() {
  static std::vector<pe_setup> v;
  return v;
}
std::vector<run_hooks>& all_run_hooks() {
  static std::vector<run_hooks> v;
  return v;
}
}  // namespace

std::vector<startup_check>& startup_checks() {
  static std::vector<startup_check> v;
  return v;
}

bool register_startup_check(startup_check check) {
  startup_checks().push_back(check);
  return true;
}
bool register_pe_setup(pe_setup setup) {
  pe_setups().push_back(setup);
  return true;
}
bool register_run_hooks(run_hooks hooks) {
  all_run_hooks().push_back(hooks);
  return true;
}

bool run_started_hooks(runtime_state& rt) {
  rt.command_line = g_command_line;
  for (const run_hooks& h : all_run_hooks()) {
    if (!h.started) continue;
    if (std::string e = h.started(rt); !e.empty()) {
      std::fprintf(stderr, "roam: node %u: %s\n", rt.my_node, e.c_str());
      return false;
    }
  }
  return true;
}
void run_finished_hooks(runtime_state& rt) {
  auto& hooks = all_run_hooks();
  for (auto it = hooks.rbegin(); it != hooks.rend(); ++it)
    if (it->finished) it->finished(rt);
}

void run_pe_setups(pe_state& pe) {
  for (auto setup : pe_setups()) setup(pe);
}

}  // namespace roam::detail
