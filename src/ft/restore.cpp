// Restarting from a checkpoint (+restart DIR): instead of main, PE 0 loads
// and checks the checkpoint, restores the readonlies in main's window and
// tells every process to load it too; every PE rebuilds the objects it hosts
// in this run; once all have, restart entries start again, and then the
// checkpoint's callback fires with `restarted` set. docs/design/checkpoint.md.
#include <algorithm>

#include <roam/coll/detail/checkpoint_support.hpp>
#include <roam/msg/detail/control.hpp>
#include <roam/msg/detail/remote.hpp>
#include <roam/msg/detail/stable_registry.hpp>
#include <roam/obj/detail/checkpoint_support.hpp>
#include <roam/machine/detail/transport.hpp>
#include <roam/sched/detail/startup.hpp>
#include <roam/sched/detail/hook_slot.hpp>

#include "memory_store.hpp"
#include "state.hpp"

namespace roam::detail::ckpt {

namespace {

// A restart that cannot go on: reported (the program ends with status 1 on
// every process), and the step stops here, before anything runs.
struct restart_refused {};
[[noreturn]] void cannot_restart(const std::string& why) {
  const runtime_options& o = tls_pe->runtime().opts;
  report_fatal((o.recovered ? std::string("recovery from the in-memory checkpoint") : "+restart " + o.restart_dir) +
               ": " + why + " (nothing was restored)");
  throw restart_refused{};
}

// Loads and checks the whole checkpoint into this process's restart state; fatal when it cannot be trusted.
void load_here() {
  ft_state& s = state();
  restart_state& r = s.restart;
  if (r.loaded) return;
  runtime_state& rt = tls_pe->runtime();
  r.started = std::chrono::steady_clock::now();
  try {
    if (rt.opts.recovered) {
      r.loaded = store().installed();  // whole and checked by the recovery
      if (!r.loaded) throw checkpoint_error("no checkpoint was installed");
    } else {
      auto dir = resolve_checkpoint(rt.opts.restart_dir);
      r.loaded = std::make_shared<loaded_checkpoint>(dir, program_registry_hash(), &describe_meta);
    }
  } catch (const std::exception& e) {
    cannot_restart(e.what());
  }
  const loaded_checkpoint& l = *r.loaded;
  try {
    unpack_into(l.program_blob(), r.record);
  } catch (const std::exception& e) {
    cannot_restart((l.dir() / "manifest").string() + ": the program record does not unpack: " + e.what());
  }
  r.saved.resize(l.records().size());
  for (std::size_t i = 0; i < l.records().size(); ++i) {
    const record_in& rec = l.records()[i];
    try {
      unpack_into(rec.meta, r.saved[i]);
    } catch (const std::exception& e) {
      cannot_restart(l.file_path(rec.file) + ": record " + std::to_string(rec.number) +
                     ": its description does not unpack: " + e.what());
    }
  }
  restore_id_floor(r.record.highest_id);
  try {
    for (const collection_wire& w : r.record.collections) ensure_collection(w);
  } catch (const std::exception& e) {
    cannot_restart((l.dir() / "manifest").string() + ": " + e.what());
  }
}

void pe_restored(std::uint64_t objects, std::vector<std::uint64_t> collected);
void resume_here();
void pe_resumed();

// Every PE: rebuilds the objects it hosts in this run.
void rebuild_here() {
  ft_state& s = state();
  restart_state& r = s.restart;
  runtime_state& rt = tls_pe->runtime();
  const std::uint32_t me = tls_pe->id();
  const loaded_checkpoint& l = *r.loaded;
  const file_identity& saved = l.identity();
  std::uint64_t restored = 0, highest_chare_seq = 0;
  for (std::size_t i = 0; i < r.saved.size(); ++i) {
    const saved_object& o = r.saved[i];
    const record_in& rec = l.records()[i];
    try {
      switch (o.kind) {
        case object_kind::array_element:
          if (restored_element_pe(o) != me) continue;
          restore_element(o, rec.state);
          break;
        case object_kind::chare:
          if ((o.chare_id >> 40) == me)
            highest_chare_seq = std::max<std::uint64_t>(highest_chare_seq, o.chare_id & ((std::uint64_t{1} << 40) - 1));
          if (restored_chare_home(o.home) != me) continue;
          restore_chare(o, rec.state);
          break;
        case object_kind::group_member:
          if (static_cast<std::uint32_t>(o.index.v[0]) != saved_member_for(me, saved.pes)) continue;
          restore_group_member(o, rec.state);
          break;
        case object_kind::nodegroup_member:
          if (me != rt.first_pe || o.node != saved_member_for(rt.my_node, saved.processes)) continue;
          restore_nodegroup_member(o, rec.state);
          break;
        case object_kind::none:
          throw std::logic_error("an object of no kind");
      }
      ++restored;
    } catch (const std::exception& e) {
      cannot_restart(l.file_path(rec.file) + ": record " + std::to_string(rec.number) + " (" + o.name +
                     "): cannot be rebuilt on pe " + std::to_string(me) + ": " + e.what());
    }
  }
  reserve_chare_ids(highest_chare_seq);
  // Proxies saved by a run with more PEs name homes beyond this run's PEs:
  // senders then look every chare up (chare_location maps such a home).
  if (saved.pes > rt.num_pes) g_chares_moved.store(true, std::memory_order_relaxed);
  finish_restored_collections(r.record.collections);
  if (me == 0) {
    // Reductions count restored elements from number 0: the root learns how many there are.
    std::unordered_map<std::uint32_t, std::int64_t> population;
    for (const saved_object& o : r.saved)
      if (o.kind == object_kind::array_element) ++population[o.collection.id];
    for (const collection_wire& w : r.record.collections)
      if (w.kind == static_cast<std::uint8_t>(collection_kind::array))
        restore_array_population(ensure_collection(w), population[w.id]);
  }
  std::vector<std::uint64_t> collected;
  if (restart_exchange x = registered_restart_exchange(); x.collect) collected = x.collect();
  post_control_uncounted<&pe_restored>(0, restored, std::move(collected));
}

void restore_here() {
  try {
    rebuild_here();
  } catch (const restart_refused&) {
  }
}

// First PE of every other process: load, then rebuild on each of its PEs.
void load_and_restore_process() {
  try {
    load_here();
  } catch (const restart_refused&) {
    return;
  }
  runtime_state& rt = tls_pe->runtime();
  for (std::uint32_t k = 0; k < rt.ppn; ++k) post_control_uncounted<&restore_here>(rt.first_pe + k);
}

void resume_everywhere() {
  const std::uint32_t pes = tls_pe->runtime().num_pes;
  for (std::uint32_t pe = 0; pe < pes; ++pe) post_control_uncounted<&resume_here>(pe);
}

// PE 0: a process installed what the restored objects brought (restart_exchange).
void process_installed() {
  restart_state& r = state().restart;
  if (++r.installs_acked < tls_pe->runtime().num_nodes) return;
  r.installs_acked = 0;
  resume_everywhere();
}

// First PE of a process: before any PE resumes.
void install_here(std::vector<std::uint64_t> everyone) {
  if (restart_exchange x = registered_restart_exchange(); x.install) x.install(everyone);
  post_control_uncounted<&process_installed>(0);
}

// PE 0: every PE has rebuilt its objects; restart entries may start, once
// every process knows what the others restored (a round trip more, only
// when some layer exchanges something).
void pe_restored(std::uint64_t objects, std::vector<std::uint64_t> collected) {
  restart_state& r = state().restart;
  r.objects += objects;
  r.exchanged.insert(r.exchanged.end(), collected.begin(), collected.end());
  runtime_state& rt = tls_pe->runtime();
  if (++r.pes_reported < rt.num_pes) return;
  r.pes_reported = 0;
  std::vector<std::uint64_t> everyone = std::move(r.exchanged);
  r.exchanged.clear();
  if (everyone.empty()) return resume_everywhere();
  std::sort(everyone.begin(), everyone.end());
  everyone.erase(std::unique(everyone.begin(), everyone.end()), everyone.end());
  for (std::uint32_t node = 0; node < rt.num_nodes; ++node)
    post_control_uncounted<&install_here>(rt.first_pe_of(node), everyone);
}

void resume_here() {
  restart_restored_tasks();
  post_control_uncounted<&pe_resumed>(0);
}

// PE 0 of a recovered job: says what happened, on stderr and to roamrun.
void report_recovery(const checkpoint_result& res) {
  const recovery_record& rec = g_last_recovery;
  const auto now = std::chrono::steady_clock::now().time_since_epoch();
  const std::int64_t now_ns = std::chrono::duration_cast<std::chrono::nanoseconds>(now).count();
  char times[160];
  std::snprintf(times, sizeof times, "recovered %.1f ms after the failure was detected (checkpoint whole again at %.1f ms)",
                static_cast<double>(now_ns - rec.detected_ns) / 1e6,
                static_cast<double>(rec.installed_ns - rec.detected_ns) / 1e6);
  const std::string line = "roam: " + std::string(times) + "; rolled back to in-memory checkpoint " +
                           std::to_string(res.number) + " (" + std::to_string(res.objects) + " objects, " +
                           std::to_string(res.bytes) + " bytes); " + std::to_string(rec.processes_before) + " -> " +
                           std::to_string(rec.processes_after) + " processes (" + rec.failed + ")\n";
  std::fwrite(line.data(), 1, line.size(), stderr);
  std::fflush(stderr);
  runtime_state& rt = tls_pe->runtime();
  if (rt.net)
    rt.net->tell_launcher("recovered " + std::to_string(rec.epoch) + " " + std::to_string(rec.detected_ns) + " " +
                          std::to_string(now_ns) + " " + std::to_string(res.number) + " " +
                          std::to_string(rec.processes_before) + " " + std::to_string(rec.processes_after));
}

// PE 0: the program runs again; its checkpoint callback says so.
void pe_resumed() {
  restart_state& r = state().restart;
  const std::uint32_t pes = tls_pe->runtime().num_pes;
  if (++r.pes_reported < pes) return;
  const loaded_checkpoint& l = *r.loaded;
  checkpoint_result res;
  res.ok = true;
  res.restarted = true;
  res.recovered = tls_pe->runtime().opts.recovered;
  res.in_memory = res.recovered;
  res.path = l.dir().string();
  res.number = l.identity().number;
  res.bytes = l.bytes();
  res.objects = r.objects;
  res.pes = l.identity().pes;
  res.processes = l.identity().processes;
  res.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - r.started).count();
  if (res.recovered) report_recovery(res);
  callback<checkpoint_result> done = r.record.done;
  done.send(std::move(res));
}

// Instead of main, on PE 0 while readonlies may still be assigned.
void restart_main(const std::vector<std::string>&) {
  try {
    load_here();
    const restart_state& r = state().restart;
    try {
      restore_readonly_globals(r.record.readonlies);
    } catch (const std::exception& e) {
      cannot_restart((r.loaded->dir() / "manifest").string() + ": the readonly globals: " + e.what());
    }
  } catch (const restart_refused&) {
    return;
  }
  runtime_state& rt = tls_pe->runtime();
  for (std::uint32_t node = 1; node < rt.num_nodes; ++node)
    post_control_uncounted<&load_and_restore_process>(rt.first_pe_of(node));
  for (std::uint32_t k = 0; k < rt.ppn; ++k) post_control_uncounted<&restore_here>(rt.first_pe + k);
}

const bool restart_main_installed = [] {
  install_hook(g_restart_main, &restart_main, "g_restart_main", "ft (src/ft/restore.cpp)");
  return true;
}();

}  // namespace

}  // namespace roam::detail::ckpt
