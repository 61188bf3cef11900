#pragma once
// The steps of a move that array elements and singleton chares share: may
// it go, pack it (or hand it over as itself), end its restart-entry tasks;
// and on arrival, after_migration and restarting them. Each kind keeps its
// own bookkeeping (locations, reductions, the chare table) around these.
#include <cstdint>
#include <exception>
#include <string>
#include <utility>

#include <roam/msg/buffer.hpp>
#include <roam/msg/detail/packing_to_move.hpp>
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
    if (!as_itself) {
      // A migratable thread in it leaves with it (or, within the process,
      // stays where its memory is and changes PE only).
      const runtime_state& rt = tls_pe->runtime();
      packing_to_move_scope leaving(rt.is_local(dest) && !rt.opts.serialize);
      state = ops.pack_state(obj);
    }
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

/// An object on its way to another PE of this process, as itself. Should the
/// message carrying it be discarded (shutdown), the object is destroyed with
/// it, its suspended tasks first (their frames may refer to it).
class object_in_transit {
 public:
  object_in_transit(void* obj, task_roots& tasks, const class_ops* cls) noexcept : obj_(obj), tasks_(&tasks), cls_(cls) {}
  object_in_transit(object_in_transit&& o) noexcept
      : obj_(std::exchange(o.obj_, nullptr)), tasks_(o.tasks_), cls_(o.cls_) {}
  object_in_transit& operator=(object_in_transit&&) = delete;
  ~object_in_transit() {
    if (!obj_) return;
    tasks_->destroy_all();
    cls_->destroy(obj_);
  }
  void* take() noexcept { return std::exchange(obj_, nullptr); }

 private:
  void* obj_;
  task_roots* tasks_;
  const class_ops* cls_;
};

/// The departure elements and chares share, after their own checks:
/// prepare_departure (nothing happens if it fails); `leave()`, the kind's own
/// bookkeeping (epoch, tables, hooks); then either `send_itself(transit)`
/// within the process, or, packed, `send_packed(state, restarts, destroy)`
/// once the restart-entry tasks have ended: it takes what travels with the
/// state from the object, calls `destroy()` (the object is gone from here
/// before the message leaves, as a move always did), then sends.
template <class Who, class Leave, class SendItself, class SendPacked>
void depart(const move_ops& ops, const class_ops* cls, void* obj, task_roots& tasks, std::uint32_t dest, Who&& who,
            Leave&& leave, SendItself&& send_itself, SendPacked&& send_packed) {
  const bool as_itself = moves_as_itself(ops, dest);
  bytes state;
  if (!prepare_departure(ops, obj, tasks, dest, as_itself, state, who)) return;
  leave();
  // Counted either way: quiescence must not be declared while an object is in flight.
  if (as_itself) {
    send_itself(object_in_transit(obj, tasks, cls));
    return;
  }
  // The restart-entry tasks start again on arrival, from the state just packed (docs/design/flow.md).
  const std::uint32_t restarts = end_restartable_tasks(tasks);
  send_packed(std::move(state), restarts, [cls, obj]() noexcept { cls->destroy(obj); });
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
