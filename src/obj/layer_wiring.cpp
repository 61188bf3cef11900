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
#include <roam/sched/detail/startup.hpp>
#include <roam/sched/detail/hook_slot.hpp>

#include "pe_objects.hpp"

namespace roam::detail {

namespace {

void resume_unobserved(task_roots& roots, std::coroutine_handle<> h) noexcept {
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

// Observers see a resumption as the owning object's (or no object's).
void resume_owned_task(task_roots& roots, std::coroutine_handle<> h) noexcept {
  if (!observed()) [[likely]] {
    resume_unobserved(roots, h);
    return;
  }
  object_identity who;
  const void* obj = nullptr;
  if (roots.kind == task_owner_kind::element) {
    const auto* b = static_cast<const element_base*>(roots.owner);
    const collection_desc* d = b->descriptor();
    who = identity_of(target_kind::element, d->id, b->stored_index(), d->dims);
    if (local_collection* lc = objects().find(d->id)) obj = lc->elements.find(b->stored_index());
  } else if (roots.kind == task_owner_kind::chare) {
    who.kind = object_kind::chare;
    who.chare_id = roots.owner_id;
    if (auto it = objects().chares.find(roots.owner_id); it != objects().chares.end()) obj = it->second.obj;
  }
  resume_observed(who, obj, roots, h, &resume_unobserved);
}

const bool registered = [] {
  register_pe_setup(&setup_objects);
  constexpr const char* owner = "obj (src/obj/layer_wiring.cpp)";
  install_hook(g_describe_delivery, &describe_context, "g_describe_delivery", owner);
  thread_owner_hooks threads;
  threads.counter = &thread_counter;
  threads.idle = &threads_idle;
  install_hook(g_thread_owner, threads, "g_thread_owner", owner);
  task_owner_hooks tasks;
  tasks.resume = &resume_owned_task;
  install_hook(g_task_owner, tasks, "g_task_owner", owner);
  install_hook(g_deliver_entry, &deliver, "g_deliver_entry", owner);
  install_hook(g_report_waiting_tasks, &print_waiting_tasks_here, "g_report_waiting_tasks", owner);
  install_remote_hooks();
  register_map("block", &block_map_fn);
  register_map("round_robin", &round_robin_map_fn);
  register_map("hash", &hash_map_fn);
  return true;
}();

}  // namespace


}  // namespace roam::detail
