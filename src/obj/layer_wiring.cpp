// What the object layer installs into the layers below at start-up: PE
// setup, delivery of entry messages, error text, the owners of threads and
// tasks, the remote hooks and the built-in maps.
#include <algorithm>
#include <cstdio>
#include <mutex>
#include <string>
#include <unordered_map>
#include <vector>

#include <roam/obj/detail/objects.hpp>
#include <roam/obj/map.hpp>
#include <roam/msg/detail/remote.hpp>
#include <roam/obj/detail/layer_anchor.hpp>
#include <roam/sched/detail/startup.hpp>

#include "obj/pe_objects.hpp"

namespace roam::detail {

namespace {

void resume_owned_task(task_roots& roots, std::coroutine_handle<> h) noexcept {
  switch (roots.kind) {
    case task_owner_kind::element:
      resume_element_task(roots, h);
      return;
    case task_owner_kind::chare:
      resume_chare_task(roots, h);
      return;
    case task_owner_kind::none:
      h.resume();
      return;
  }
}

const bool registered = [] {
  register_pe_setup(&setup_objects);
  g_describe_delivery = &describe_context;
  g_thread_owner.counter = &thread_counter;
  g_thread_owner.idle = &threads_idle;
  g_task_owner.resume = &resume_owned_task;
  g_deliver_entry = &deliver;
  g_report_waiting_tasks = &print_waiting_tasks_here;
  install_remote_hooks();
  register_map("block", &block_map_fn);
  register_map("round_robin", &round_robin_map_fn);
  register_map("hash", &hash_map_fn);
  return true;
}();

}  // namespace

bool objects_layer_linked() noexcept { return registered; }

}  // namespace roam::detail
