#pragma once
// The steps of a move that array elements and singleton chares share: may
// it go, pack it (or hand it over as itself), end its restart-entry tasks;
// and on arrival, after_migration and restarting them. Each kind keeps its
// own bookkeeping (locations, reductions, the chare table) around these.
#include <cstdint>
#include <exception>
#include <string>

#include <roam/msg/buffer.hpp>
#include <roam/obj/detail/migratable.hpp>
#include <roam/sched/task.hpp>

#include "pe_objects.hpp"

namespace roam::detail {

/// Whether a move to `dest` hands the object over instead of packing it.
bool moves_as_itself(const move_ops& ops, std::uint32_t dest) noexcept;

/// Before an object leaves for `dest`: checks that it can go, runs
/// before_migration and packs it unless it moves as itself (`state`). False
/// when it cannot go: reported as fatal, nothing changed. `who()` names the
/// object in a report (only built then).
template <class Who>
bool prepare_departure(const move_ops& ops, void* obj, const task_roots& tasks, std::uint32_t dest, bool as_itself,
                       bytes& state, Who&& who) {
  // Even a move within the process needs pup: the same program must be able
  // to run across processes.
  if (!ops.pack_state) {
    report_fatal(who() + ": cannot migrate: " + ops.not_migratable_why);
    return false;
  }
  if (!as_itself && tasks.size() != tasks.restartable) {
    report_fatal(who() + ": cannot migrate to pe " + std::to_string(dest) + " while " +
                 std::to_string(tasks.size() - tasks.restartable) +
                 " of its entry tasks are suspended: a coroutine cannot be packed (move it after they finish, within "
                 "its process, or make it the class's restart_entry; docs/design/flow.md)");
    return false;
  }
  try {
    ops.before_migration(obj);
    if (!as_itself) state = ops.pack_state(obj);
  } catch (const std::exception& e) {
    report_fatal(who() + (as_itself ? ": before_migration threw: " : ": packing it to migrate threw: ") + e.what());
    return false;
  }
  return true;
}

/// A packed object's last step before it is destroyed here: its restart-entry
/// tasks end, and the count returned travels so that they start again.
inline std::uint32_t end_restartable_tasks(task_roots& tasks) noexcept {
  const std::uint32_t n = tasks.restartable;
  tasks.destroy_all();
  return n;
}

/// On arrival: after_migration, then the restart entry `restarts` times with
/// the object current (`running`: the element, or null for a chare). False
/// when after_migration threw (reported as fatal).
template <class Who>
bool welcome_arrival(const move_ops& ops, void* obj, task_roots& tasks, element_base* running, std::uint32_t restarts,
                     Who&& who) {
  try {
    ops.after_migration(obj);
  } catch (const std::exception& e) {
    report_fatal(who() + ": after_migration threw: " + e.what());
    return false;
  }
  if (restarts == 0 || !ops.restart) return true;
  element_base* outer = tls_running_element;
  task_roots* outer_tasks = tls_task_owner;
  tls_running_element = running;
  tls_task_owner = &tasks;
  const std::string name = who();
  for (std::uint32_t k = 0; k < restarts; ++k) ops.restart(obj, name);
  tls_running_element = outer;
  tls_task_owner = outer_tasks;
  return true;
}

}  // namespace roam::detail
