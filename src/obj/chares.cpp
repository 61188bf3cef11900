// Singleton chares on this PE: ids, placement, registration, delivery and
// destruction (their moves are chare_moves.cpp).
#include <algorithm>
#include <cstdio>
#include <mutex>
#include <string>
#include <unordered_map>
#include <vector>

#include <roam/obj/detail/objects.hpp>
#include <roam/obj/chare.hpp>

#include "pe_objects.hpp"

namespace roam::detail {

namespace {

// Takes the chare out of this PE's table and destroys it, its suspended tasks first.
void destroy_chare_now(pe_objects& objs, std::uint64_t id, const chare_record& rec) noexcept {
  objs.chares.erase(id);
  chare_lifecycle(lifecycle_step::died, id, rec.obj);
  chare_access::tasks(*rec.base).destroy_all();
  rec.ops->cls->destroy(rec.obj);
}

}  // namespace

void deliver_to_chare(pe_objects& objs, message* m) noexcept {
  std::uint64_t id = chare_id_in(m->index);
  auto it = objs.chares.find(id);
  if (it == objs.chares.end()) {
    if (forward_chare_message(objs, m, id)) return;
    std::uint32_t creator = static_cast<std::uint32_t>(id >> 40);
    std::uint64_t seq = id & ((std::uint64_t{1} << 40) - 1);
    if (creator < objs.chare_seq_seen.size() && seq > objs.chare_seq_seen[creator]) {
      objs.chare_pending[id].push_back(m);  // its creation is still on the way
      return;
    }
    report_delivery_failure(*m, "no such chare here (it was destroyed, or the proxy is invalid)");
    discard_message(m);
    return;
  }
  chare_record rec = it->second;
  correct_chare_sender(*m, id, rec);
  if (observed()) [[unlikely]]
    note_received(m);  // where it runs, not at each PE it was passed on from
  task_roots* outer_tasks = tls_task_owner;
  tls_task_owner = &chare_access::tasks(*rec.base);
  invoke_guarded(m, rec.obj);
  tls_task_owner = outer_tasks;
  discard_message(m);
  // With a threaded entry still blocked on it, the chare dies when its last thread ends (chare_threads_done).
  if (rec.base->destroy_requested() && chare_access::threads(*rec.base) == 0) {
    destroy_chare_now(objs, id, rec);
    return;
  }
  carry_out_chare_move(objs, id, rec);
}

// ---- threaded entries (docs/design/threads.md) ----------------------------
// An object with unfinished threads is neither moved nor destroyed: the
// threads hold its address. What it asked for meanwhile is carried out, in a
// message of its own, once the last one ends.

void chare_threads_done(std::uint64_t id) noexcept {
  pe_objects& objs = objects();
  auto it = objs.chares.find(id);
  if (it == objs.chares.end()) return;
  chare_record rec = it->second;
  if (chare_access::threads(*rec.base) != 0) return;  // another thread started meanwhile: it will call again
  if (rec.base->destroy_requested()) {
    destroy_chare_now(objs, id, rec);
    return;
  }
  carry_out_chare_move(objs, id, rec);
}

// A task that held its chare resumes (a future or timer it waited on is here):
// as the chare's entry would, then what it asked for meanwhile is carried out.
void resume_chare_task(task_roots& roots, std::coroutine_handle<> h) noexcept {
  --chare_access::threads(*static_cast<chare_base*>(roots.owner));
  task_roots* outer_tasks = tls_task_owner;
  tls_task_owner = &roots;
  h.resume();
  tls_task_owner = outer_tasks;
  chare_threads_done(roots.owner_id);
}

std::uint64_t new_chare_id() noexcept {
  pe_objects& objs = objects();
  return (std::uint64_t{tls_pe->id()} << 40) | ++objs.next_chare_seq;
}

std::uint32_t place_chare() noexcept {
  pe_objects& objs = objects();
  std::uint32_t pes = tls_pe->runtime().num_pes;
  return (tls_pe->id() + ++objs.placement) % pes;
}

void register_chare(std::uint64_t id, void* obj, chare_base* base, const chare_ops* ops) {
  pe_objects& objs = objects();
  objs.chares.emplace(id, chare_record{obj, base, ops});
  chare_lifecycle(lifecycle_step::born, id, obj);
  std::uint32_t creator = static_cast<std::uint32_t>(id >> 40);
  std::uint64_t seq = id & ((std::uint64_t{1} << 40) - 1);
  if (creator < objs.chare_seq_seen.size() && seq > objs.chare_seq_seen[creator]) objs.chare_seq_seen[creator] = seq;
  auto it = objs.chare_pending.find(id);
  if (it != objs.chare_pending.end()) {
    auto waiting = std::move(it->second);
    objs.chare_pending.erase(it);
    for (message* m : waiting) deliver(m, work_action::run);
  }
}

namespace {
void destroy_chare_here(std::uint64_t id) {
  pe_objects& objs = objects();
  auto it = objs.chares.find(id);
  if (it == objs.chares.end()) {
    // It moved on: the destroy follows it, behind the messages sent before it.
    if (auto w = objs.chare_where.find(id); w != objs.chare_where.end() && w->second.pe != tls_pe->id()) {
      post_control<&destroy_chare_here>(w->second.pe, 0, id);
      return;
    }
    report_fatal("destroy of chare #" + std::to_string(id >> 40) + "." + std::to_string(id & ((std::uint64_t{1} << 40) - 1)) +
                 ": no such chare here");
    return;
  }
  chare_record rec = it->second;
  if (chare_access::threads(*rec.base) != 0) {
    rec.base->destroy_self();  // a threaded entry still runs on it: destroyed when the last ends
    return;
  }
  destroy_chare_now(objs, id, rec);
}
}  // namespace

void destroy_chare(std::uint32_t pe, std::uint64_t id) { post_control<&destroy_chare_here>(pe, 0, id); }

}  // namespace roam::detail
