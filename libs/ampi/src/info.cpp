// Info objects, and AMPI_Migrate (load balancing and checkpoints at a sync
// point, driven by info keys).
#include <cstdio>
#include <cstring>

#include "api.hpp"

using namespace roam::ampi;

namespace {

info_object* info_of(MPI_Info info, const char* function, int* err) {
  rank& r = me();
  auto it = r.infos.find(info);
  *err = it != r.infos.end() ? MPI_SUCCESS
                             : fail(MPI_COMM_WORLD, MPI_ERR_INFO, function, "invalid info " + std::to_string(info));
  return it != r.infos.end() ? &it->second : nullptr;
}

const std::string* lookup(const info_object& i, const std::string& key) {
  for (const auto& [k, v] : i.entries)
    if (k == key) return &v;
  return nullptr;
}

}  // namespace

extern "C" int PMPI_Info_create(MPI_Info* info) {
  const roam::process_heap_scope runtime_heap;  // the rank's records live in the process heap
  rank& r = me();
  const int h = r.next_info++;
  r.infos[h] = info_object{};
  *info = h;
  return MPI_SUCCESS;
}
ROAM_AMPI_PMPI(Info_create)

extern "C" int PMPI_Info_set(MPI_Info info, const char* key, const char* value) {
  const roam::process_heap_scope runtime_heap;  // the rank's records live in the process heap
  int err = 0;
  info_object* i = info_of(info, "MPI_Info_set", &err);
  if (!i) return err;
  if (std::strlen(key) > MPI_MAX_INFO_KEY || std::strlen(key) == 0)
    return fail(MPI_COMM_WORLD, MPI_ERR_INFO_KEY, "MPI_Info_set", "the key is empty or too long");
  if (std::strlen(value) > MPI_MAX_INFO_VAL)
    return fail(MPI_COMM_WORLD, MPI_ERR_INFO_VALUE, "MPI_Info_set", "the value is too long");
  for (auto& [k, v] : i->entries)
    if (k == key) {
      v = value;
      return MPI_SUCCESS;
    }
  i->entries.emplace_back(key, value);
  return MPI_SUCCESS;
}
ROAM_AMPI_PMPI(Info_set)

extern "C" int PMPI_Info_get(MPI_Info info, const char* key, int valuelen, char* value, int* flag) {
  const roam::process_heap_scope runtime_heap;  // the rank's records live in the process heap
  int err = 0;
  info_object* i = info_of(info, "MPI_Info_get", &err);
  if (!i) return err;
  const std::string* v = lookup(*i, key);
  *flag = v != nullptr;
  if (v) std::snprintf(value, static_cast<std::size_t>(valuelen) + 1, "%s", v->c_str());
  return MPI_SUCCESS;
}
ROAM_AMPI_PMPI(Info_get)

extern "C" int PMPI_Info_get_valuelen(MPI_Info info, const char* key, int* valuelen, int* flag) {
  const roam::process_heap_scope runtime_heap;  // the rank's records live in the process heap
  int err = 0;
  info_object* i = info_of(info, "MPI_Info_get_valuelen", &err);
  if (!i) return err;
  const std::string* v = lookup(*i, key);
  *flag = v != nullptr;
  if (v) *valuelen = static_cast<int>(v->size());
  return MPI_SUCCESS;
}
ROAM_AMPI_PMPI(Info_get_valuelen)

extern "C" int PMPI_Info_get_nkeys(MPI_Info info, int* nkeys) {
  const roam::process_heap_scope runtime_heap;  // the rank's records live in the process heap
  int err = 0;
  info_object* i = info_of(info, "MPI_Info_get_nkeys", &err);
  if (!i) return err;
  *nkeys = static_cast<int>(i->entries.size());
  return MPI_SUCCESS;
}
ROAM_AMPI_PMPI(Info_get_nkeys)

extern "C" int PMPI_Info_get_nthkey(MPI_Info info, int n, char* key) {
  const roam::process_heap_scope runtime_heap;  // the rank's records live in the process heap
  int err = 0;
  info_object* i = info_of(info, "MPI_Info_get_nthkey", &err);
  if (!i) return err;
  if (n < 0 || n >= static_cast<int>(i->entries.size()))
    return fail(MPI_COMM_WORLD, MPI_ERR_ARG, "MPI_Info_get_nthkey", "no key number " + std::to_string(n));
  std::snprintf(key, MPI_MAX_INFO_KEY + 1, "%s", i->entries[static_cast<std::size_t>(n)].first.c_str());
  return MPI_SUCCESS;
}
ROAM_AMPI_PMPI(Info_get_nthkey)

extern "C" int PMPI_Info_delete(MPI_Info info, const char* key) {
  const roam::process_heap_scope runtime_heap;  // the rank's records live in the process heap
  int err = 0;
  info_object* i = info_of(info, "MPI_Info_delete", &err);
  if (!i) return err;
  for (auto it = i->entries.begin(); it != i->entries.end(); ++it)
    if (it->first == key) {
      i->entries.erase(it);
      return MPI_SUCCESS;
    }
  return fail(MPI_COMM_WORLD, MPI_ERR_INFO_NOKEY, "MPI_Info_delete", std::string("no key ") + key);
}
ROAM_AMPI_PMPI(Info_delete)

extern "C" int PMPI_Info_dup(MPI_Info info, MPI_Info* newinfo) {
  const roam::process_heap_scope runtime_heap;  // the rank's records live in the process heap
  int err = 0;
  info_object* i = info_of(info, "MPI_Info_dup", &err);
  if (!i) return err;
  info_object copy = *i;
  PMPI_Info_create(newinfo);
  me().infos[*newinfo] = std::move(copy);
  return MPI_SUCCESS;
}
ROAM_AMPI_PMPI(Info_dup)

extern "C" int PMPI_Info_free(MPI_Info* info) {
  const roam::process_heap_scope runtime_heap;  // the rank's records live in the process heap
  if (me().infos.erase(*info) == 0)
    return fail(MPI_COMM_WORLD, MPI_ERR_INFO, "MPI_Info_free", "invalid info " + std::to_string(*info));
  *info = MPI_INFO_NULL;
  return MPI_SUCCESS;
}
ROAM_AMPI_PMPI(Info_free)

// ---- AMPI_Migrate ----------------------------------------------------------------

namespace {
// What AMPI_Migrate is asked to do. Read before the rank blocks, and with
// nothing left on its stack that owns process heap memory when it does: it
// may wake in another process (a restart, a recovery, the balancer).
struct migrate_request {
  bool balance = false;
  bool checkpoint = false;
  int error = MPI_SUCCESS;
};

migrate_request read_hints(MPI_Info hints) {
  migrate_request q;
  std::string checkpoint;
  if (hints == AMPI_INFO_LB_SYNC || hints == AMPI_INFO_LB_ASYNC) {
    q.balance = true;
  } else if (hints == AMPI_INFO_CHKPT_IN_MEMORY) {
    checkpoint = "in_memory";
  } else if (hints != MPI_INFO_NULL) {
    info_object* i = info_of(hints, "AMPI_Migrate", &q.error);
    if (!i) return q;
    if (const std::string* v = lookup(*i, "ampi_load_balance")) q.balance = *v == "sync" || *v == "async";
    if (const std::string* v = lookup(*i, "ampi_checkpoint")) checkpoint = *v;
  }
  if (checkpoint.empty()) return q;
  // "to_file=DIR" or "in_memory": the collector takes it once every rank
  // waits, and wakes them (also in a restarted or recovered run).
  std::string dir;
  if (checkpoint.rfind("to_file=", 0) == 0) dir = checkpoint.substr(8);
  else if (checkpoint != "in_memory") {
    q.error = fail(MPI_COMM_WORLD, MPI_ERR_INFO_VALUE, "AMPI_Migrate",
                   "ampi_checkpoint must be \"to_file=DIR\" or \"in_memory\", not \"" + checkpoint + "\"");
    return q;
  }
  if (checkpoint.rfind("to_file=", 0) == 0 && dir.empty()) {
    q.error = fail(MPI_COMM_WORLD, MPI_ERR_INFO_VALUE, "AMPI_Migrate", "ampi_checkpoint \"to_file=\" names no directory");
    return q;
  }
  rank& r = me();
  if (!r.jobs.empty()) {
    q.error = fail(MPI_COMM_WORLD, MPI_ERR_PENDING, "AMPI_Migrate",
                   "non-blocking collectives are still in progress (complete them first)");
    return q;
  }
  r.parked = true;
  r.collector_.send<&collector::parked>(dir);
  q.checkpoint = true;
  return q;
}
}  // namespace

namespace {
int migrate(MPI_Info hints) {
  const roam::process_heap_scope runtime_heap;  // the rank's records live in the process heap
  const migrate_request q = read_hints(hints);
  if (q.error != MPI_SUCCESS) return q.error;
  if (q.checkpoint) {
    roam::suspend_this_thread();
    if (!me().checkpoint_ok)
      return fail(MPI_COMM_WORLD, MPI_ERR_OTHER, "AMPI_Migrate", "the checkpoint failed (the reason is printed above)");
  }
  if (!q.balance) return MPI_SUCCESS;
  if (int e = refuse_leaving_shared_windows(-1, "AMPI_Migrate")) return e;  // rma_windows.cpp
  if (!me().jobs.empty())
    return fail(MPI_COMM_WORLD, MPI_ERR_PENDING, "AMPI_Migrate",
                "non-blocking collectives are still in progress (complete them first)");
  // Every rank's element reaches its sync point (one still on its way to
  // another PE, after AMPI_Migrate_to_pe, is counted by the PE it left
  // until it gets there: src/lb/protocol.cpp); the balancer may move it
  // (thread and all) and resumes it where it then is.
  roam::at_sync_and_wait();
  return MPI_SUCCESS;
}
}  // namespace

extern "C" int AMPI_Migrate(MPI_Info hints) {
  const int result = migrate(hints);
  after_moves();  // on the thread, with its own heap
  return result;
}
