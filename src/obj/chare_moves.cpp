// Singleton chares that migrate. The protocol is the arrays' (element_*.cpp,
// docs/design/migration.md) with the birth PE as the home:
// - a PE a chare leaves keeps where it went (newest epoch); the birth PE
//   also hears of every arrival, so it can always pass a message on;
// - a message passed on is flagged "via pointer": where it lands, the chare
//   is there or on its way on the same FIFO path, so one that finds nothing
//   waits for the arrival;
// - senders send where they last heard the chare is (their birth PE at first)
//   and are told the new place when a message of theirs had to be passed on.
#include <mutex>
#include <string>
#include <unordered_map>

#include <roam/msg/detail/control.hpp>
#include <roam/msg/detail/stable_registry.hpp>
#include <roam/obj/detail/objects.hpp>

#include "moves.hpp"

#include "pe_objects.hpp"

namespace roam::detail {

bool moves_as_itself(const move_ops& ops, std::uint32_t dest) noexcept {
  const runtime_state& rt = tls_pe->runtime();
  return !ops.pup_on_migration && rt.is_local(dest) && !rt.opts.serialize;
}

namespace {

std::uint32_t me() noexcept { return tls_pe->id(); }

std::string describe_chare(const chare_ops* ops, std::uint64_t id) {
  return "chare " + std::string(ops ? ops->cls->name : std::string_view("?")) + " #" + std::to_string(id >> 40) + "." +
         std::to_string(id & ((std::uint64_t{1} << 40) - 1));
}

stable_registry<const chare_ops*>& chare_types() {
  static stable_registry<const chare_ops*> r("chare type");
  return r;
}
const chare_ops* find_chare_ops(std::uint64_t cls_id) { return chare_types().find(cls_id); }

// Records news of where chare `id` is, if newer than what this PE knew.
void note_location(pe_objects& objs, std::uint64_t id, location where) {
  g_chares_moved.store(true, std::memory_order_relaxed);
  location& l = objs.chare_where[id];
  if (l.pe == no_pe || where.epoch > l.epoch) l = where;
}

void chare_news(std::uint64_t id, std::uint32_t pe, std::uint32_t epoch) {
  pe_objects& objs = objects();
  if (objs.chares.count(id)) return;  // it is back here: nothing to correct
  note_location(objs, id, {pe, epoch});
}

void send_chare_news(std::uint64_t id, std::uint32_t to, location where) {
  if (to == me()) {
    chare_news(id, where.pe, where.epoch);
    return;
  }
  post_control_uncounted<&chare_news>(to, id, where.pe, where.epoch);
}

// The chare is here now (unpacked or handed over).
void settle_chare(std::uint64_t id, void* obj, const chare_ops* ops, std::uint32_t home, std::uint32_t restarts = 0) {
  pe_objects& objs = objects();
  g_chares_moved.store(true, std::memory_order_relaxed);
  chare_base* base = ops->base(obj);
  objs.chares.emplace(id, chare_record{obj, base, ops});
  objs.chare_where.erase(id);
  const std::uint32_t epoch = chare_access::epoch(*base);
  if (home != me()) send_chare_news(id, home, {me(), epoch});
  if (!welcome_arrival(*ops->moves, obj, chare_access::tasks(*base), nullptr, restarts,
                       [&] { return describe_chare(ops, id) + " on pe " + std::to_string(me()); }))
    return;
  chare_lifecycle(lifecycle_step::arrived, id, obj);
  // after_migration may ask to move on.
  carry_out_chare_move(objs, id, chare_record{obj, base, ops});
  if (!objs.chares.count(id)) return;
  if (auto it = objs.chare_pending.find(id); it != objs.chare_pending.end()) {
    auto waiting = std::move(it->second);
    objs.chare_pending.erase(it);
    for (message* m : waiting) deliver(m, work_action::run);
  }
}

void chare_arrives(std::uint64_t id, std::uint64_t cls_id, std::uint32_t home, std::uint32_t epoch, std::uint32_t restarts,
                   bytes state) {
  const chare_ops* ops = find_chare_ops(cls_id);
  if (!ops || !ops->moves->unpack_state) {
    report_fatal(describe_chare(ops, id) + " arriving on pe " + std::to_string(me()) +
                 ": its type is not known to this process (or cannot migrate)");
    return;
  }
  construction_context ctx;
  ctx.chare_id = id;
  ctx.pe = home;
  void* obj = nullptr;
  tls_constructing = &ctx;
  try {
    obj = ops->moves->unpack_state(state.span());
  } catch (const std::exception& e) {
    tls_constructing = nullptr;
    report_fatal(describe_chare(ops, id) + " arriving on pe " + std::to_string(me()) + ": its state does not unpack: " +
                 e.what());
    return;
  }
  tls_constructing = nullptr;
  chare_access::epoch(*ops->base(obj)) = epoch;
  settle_chare(id, obj, ops, home, restarts);
}

}  // namespace

bool register_chare_ops(const chare_ops* ops) { return chare_types().add(ops->cls_id, ops, ops->cls->name); }

std::uint32_t chare_location(std::uint64_t id, std::uint32_t home) noexcept {
  home = restored_chare_home(home);
  if (!tls_pe) return home;
  pe_objects& objs = objects();
  if (objs.chares.count(id)) return me();
  auto it = objs.chare_where.find(id);
  return it == objs.chare_where.end() ? home : it->second.pe;
}

bool forward_chare_message(pe_objects& objs, message* m, std::uint64_t id) noexcept {
  auto it = objs.chare_where.find(id);
  if (it != objs.chare_where.end() && it->second.pe != me()) {
    std::uint32_t hops = std::min<std::uint32_t>(((m->flags & work_hop_mask) >> work_hop_shift) + 1, 15);
    m->flags = (m->flags & ~(work_via_pointer | work_via_home | work_hop_mask)) | work_via_pointer | (hops << work_hop_shift);
    m->dst_pe = it->second.pe;
    post(it->second.pe, m);
    return true;
  }
  if (m->flags & work_via_pointer) {  // the chare is on its way here
    objs.chare_pending[id].push_back(m);
    return true;
  }
  return false;
}

void correct_chare_sender(const message& m, std::uint64_t id, const chare_record& rec) noexcept {
  if ((m.flags & work_hop_mask) == 0 || m.src_pe == me() || m.src_pe >= tls_pe->runtime().num_pes) return;
  send_chare_news(id, m.src_pe, {me(), chare_access::epoch(*rec.base)});
}

void carry_out_chare_move(pe_objects& objs, std::uint64_t id, const chare_record& rec) noexcept {
  // A threaded entry still blocked on it holds its address: the move waits
  // for the last one to end (chare_threads_done). docs/design/threads.md.
  if (chare_access::threads(*rec.base) != 0) return;
  std::uint32_t dest = chare_access::take_move(*rec.base);
  if (dest == no_pe || dest == me()) return;
  const runtime_state& rt = tls_pe->runtime();
  const chare_ops* ops = rec.ops;
  if (dest >= rt.num_pes) {
    report_fatal(describe_chare(ops, id) + " on pe " + std::to_string(me()) + ": migrate_to pe " + std::to_string(dest) +
                 " outside [0," + std::to_string(rt.num_pes) + ")");
    return;
  }
  std::uint32_t& epoch = chare_access::epoch(*rec.base);
  const std::uint32_t home = chare_access::home(*rec.base);
  depart(
      *ops->moves, ops->cls, rec.obj, chare_access::tasks(*rec.base), dest,
      [&] { return describe_chare(ops, id) + " on pe " + std::to_string(me()); },
      [&] {
        ++epoch;
        chare_lifecycle(lifecycle_step::leaving, id, rec.obj, dest, ops->moves->resume_from_sync != nullptr);
        objs.chares.erase(id);
        note_location(objs, id, {dest, epoch});
      },
      [&](object_in_transit t) {
        post_closure(dest, [id, home, ops, t = std::move(t)]() mutable noexcept { settle_chare(id, t.take(), ops, home); });
      },
      [&](bytes state, std::uint32_t restarts, auto destroy) {
        const std::uint32_t travelling_epoch = epoch;  // epoch lives in the chare
        destroy();
        post_control<&chare_arrives>(dest, 0, id, ops->cls_id, home, travelling_epoch, restarts, std::move(state));
      });
}

const chare_ops* chare_ops_by_class(std::uint64_t cls_id) { return find_chare_ops(cls_id); }

std::uint32_t restored_chare_home(std::uint32_t birth_pe) noexcept {
  const runtime_state* rt = g_runtime.load();
  return rt && birth_pe >= rt->num_pes ? birth_pe % rt->num_pes : birth_pe;
}

}  // namespace roam::detail
