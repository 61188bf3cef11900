// MPI-3's windows beyond MPI_Win_create/allocate: dynamic windows
// (MPI_Win_create_dynamic, attach, detach), shared-memory windows
// (MPI_Win_allocate_shared, MPI_Win_shared_query), info hints
// (MPI_Win_set_info/get_info), MPI_Win_sync and the local flushes.
//
// Dynamic: displacements are addresses (MPI_Get_address at the target);
// the target checks each operation against the regions attached there
// (rma.cpp, target_address). A rank's memory keeps its addresses when the
// rank moves, so attached regions stay valid across moves.
//
// Shared: the members must all run in one process (MPI_Comm_split_type's
// MPI_COMM_TYPE_SHARED groups ranks by process). The window's rank 0
// allocates one block of process memory, outside every rank's heap (it must
// not move with any of them), holding each member's segment contiguously
// in rank order; the others take its address. While the window exists its
// members may not leave the process (refuse_leaving_shared_windows:
// AMPI_Migrate_to_pe to another process, and load balancing across
// processes, fail with MPI_ERR_RMA_SHARED).
#include <algorithm>
#include <atomic>
#include <cstdlib>
#include <iterator>
#include <string>
#include <vector>

#include "api.hpp"
#include "rma.hpp"

using namespace roam::ampi;

namespace {

std::string window_name(MPI_Win win) { return "window " + std::to_string(win); }

// The window, or null with the error reported in *err.
window* checked_window(MPI_Win win, int* err, const char* function) {
  window* w = find_window(me(), win);
  *err = w ? MPI_SUCCESS : fail(MPI_COMM_WORLD, MPI_ERR_WIN, function, "invalid " + window_name(win));
  return w;
}

// The window must be of `flavor` (the function applies to no other).
int check_flavor(MPI_Win win, const window& w, int flavor, const char* needs, const char* function) {
  if (w.extra.flavor == flavor) return MPI_SUCCESS;
  return fail(w.comm, MPI_ERR_RMA_FLAVOR, function, window_name(win) + " was not made by " + needs);
}

// The hints MPI defines for windows, and what MPI_Win_get_info reports for
// those the program did not set: what this implementation does (every
// ordering kept, locks available, any accumulate operations, contiguous
// shared segments). Other keys are ignored, as MPI allows.
const std::pair<const char*, const char*> default_hints[] = {
    {"no_locks", "false"},       {"accumulate_ordering", "rar,raw,war,waw"}, {"accumulate_ops", "same_op_no_op"},
    {"same_size", "false"},      {"same_disp_unit", "false"},                {"alloc_shared_noncontig", "false"},
};

void set_hint(std::vector<std::pair<std::string, std::string>>& hints, const std::string& key,
              const std::string& value) {
  for (auto& [k, v] : hints)
    if (k == key) {
      v = value;
      return;
    }
  hints.emplace_back(key, value);
}

bool known_hint(const std::string& key) {
  for (const auto& [k, v] : default_hints)
    if (key == k) return true;
  return false;
}

}  // namespace

void roam::ampi::record_hints(window& w, MPI_Info info) {
  if (info == MPI_INFO_NULL) return;
  rank& r = me();
  auto it = r.infos.find(info);
  if (it == r.infos.end()) return;  // not an info object of the program's (AMPI's predefined ones): no hints
  for (const auto& [key, value] : it->second.entries)
    if (known_hint(key)) set_hint(w.extra.hints, key, value);
}

void roam::ampi::release_shared(window& w) {
  if (w.extra.flavor != MPI_WIN_FLAVOR_SHARED || w.extra.segment == 0) return;
  // Rank 0 allocated it; every member has passed MPI_Win_free's barrier.
  if (me().comms.at(w.comm).my_rank == 0) std::free(reinterpret_cast<void*>(w.extra.segment));
  w.extra.segment = 0;
}

int roam::ampi::refuse_leaving_shared_windows(int pe, const char* function) {
  const std::uint32_t nodes = roam::num_nodes();
  if (nodes <= 1) return MPI_SUCCESS;
  const bool leaves = pe < 0 || process_of_pe(static_cast<std::uint32_t>(pe)) != roam::my_node().value();
  if (!leaves) return MPI_SUCCESS;
  rank& r = me();
  for (const auto& [handle, w] : r.windows) {
    if (w.extra.flavor != MPI_WIN_FLAVOR_SHARED) continue;
    const std::string where = pe < 0 ? "may be moved to another process by the balancer"
                                     : "would move to PE " + std::to_string(pe) + " in another process";
    return fail(w.comm, MPI_ERR_RMA_SHARED, function,
                "rank " + std::to_string(r.this_index()[0]) + " " + where + ", but it is a member of shared " +
                    window_name(handle) + " (MPI_Win_allocate_shared), whose memory is in process " +
                    std::to_string(roam::my_node().value()) + ": free the window first");
  }
  return MPI_SUCCESS;
}

// ---- dynamic windows ---------------------------------------------------------------

extern "C" int PMPI_Win_create_dynamic(MPI_Info info, MPI_Comm comm, MPI_Win* win) {
  const roam::process_heap_scope runtime_heap;  // the rank's records live in the process heap
  // Displacements are addresses: base MPI_BOTTOM, unit 1.
  return make_window(MPI_BOTTOM, 0, 1, info, comm, win, MPI_WIN_FLAVOR_DYNAMIC, "MPI_Win_create_dynamic");
}
ROAM_AMPI_PMPI(Win_create_dynamic)

extern "C" int PMPI_Win_attach(MPI_Win win, void* base, MPI_Aint size) {
  const roam::process_heap_scope runtime_heap;  // the rank's records live in the process heap
  int err = 0;
  window* w = checked_window(win, &err, "MPI_Win_attach");
  if (w == nullptr) return err;
  if (int e = check_flavor(win, *w, MPI_WIN_FLAVOR_DYNAMIC, "MPI_Win_create_dynamic", "MPI_Win_attach")) return e;
  if (size < 0) return fail(w->comm, MPI_ERR_SIZE, "MPI_Win_attach", window_name(win) + ": negative size");
  const auto start = reinterpret_cast<std::uint64_t>(base);
  const std::uint64_t end = start + static_cast<std::uint64_t>(size);
  auto& regions = w->extra.regions;
  // Regions must not overlap (an address names one region).
  auto next = regions.lower_bound(start);
  const bool hits_next = next != regions.end() && (next->first < end || next->first == start);
  const bool hits_previous =
      next != regions.begin() && std::prev(next)->first + static_cast<std::uint64_t>(std::prev(next)->second) > start;
  if (hits_next || hits_previous) {
    const auto& other = hits_next ? *next : *std::prev(next);
    return fail(w->comm, MPI_ERR_RMA_ATTACH, "MPI_Win_attach",
                window_name(win) + ": [" + address_text(start) + ", +" + std::to_string(size) +
                    ") overlaps the region at " + address_text(other.first) + " (" +
                    std::to_string(other.second) + " bytes) attached already");
  }
  regions.emplace(start, size);
  return MPI_SUCCESS;
}
ROAM_AMPI_PMPI(Win_attach)

extern "C" int PMPI_Win_detach(MPI_Win win, const void* base) {
  const roam::process_heap_scope runtime_heap;  // the rank's records live in the process heap
  int err = 0;
  window* w = checked_window(win, &err, "MPI_Win_detach");
  if (w == nullptr) return err;
  if (int e = check_flavor(win, *w, MPI_WIN_FLAVOR_DYNAMIC, "MPI_Win_create_dynamic", "MPI_Win_detach")) return e;
  const auto start = reinterpret_cast<std::uint64_t>(base);
  if (w->extra.regions.erase(start) == 0)
    return fail(w->comm, MPI_ERR_RMA_ATTACH, "MPI_Win_detach",
                window_name(win) + ": no region is attached at " + address_text(start) +
                    " (give the address MPI_Win_attach had)");
  return MPI_SUCCESS;
}
ROAM_AMPI_PMPI(Win_detach)

// ---- shared-memory windows ---------------------------------------------------------

namespace {

// Each member's (process, size, disp_unit), gathered; checks that they all
// share this rank's process.
int gather_members(MPI_Comm comm, MPI_Aint size, int disp_unit, std::vector<std::int64_t>* all) {
  const communicator& c = me().comms.at(comm);
  const std::int64_t mine[3] = {static_cast<std::int64_t>(process_token()), size, disp_unit};
  all->assign(static_cast<std::size_t>(3 * c.size), 0);
  if (int e = PMPI_Allgather(mine, 3, MPI_INT64_T, all->data(), 3, MPI_INT64_T, comm)) return e;
  for (std::size_t i = 0; i < all->size(); i += 3)
    if ((*all)[i] != mine[0])
      return fail(comm, MPI_ERR_RMA_SHARED, "MPI_Win_allocate_shared",
                  "the ranks of communicator " + std::to_string(comm) + " are not all in one process (rank " +
                      std::to_string(i / 3) + " runs in another): use one made by MPI_Comm_split_type with "
                      "MPI_COMM_TYPE_SHARED");
  return MPI_SUCCESS;
}

}  // namespace

extern "C" int PMPI_Win_allocate_shared(MPI_Aint size, int disp_unit, MPI_Info info, MPI_Comm comm, void* baseptr,
                                        MPI_Win* win) {
  const roam::process_heap_scope runtime_heap;  // the rank's records live in the process heap (so does the segment)
  communicator* c = find_comm(me(), comm);
  if (c == nullptr)
    return fail(MPI_COMM_WORLD, MPI_ERR_COMM, "MPI_Win_allocate_shared",
                "invalid communicator " + std::to_string(comm));
  if (c->inter) return fail(comm, MPI_ERR_COMM, "MPI_Win_allocate_shared", "an intercommunicator has no shared memory");
  if (size < 0 || disp_unit <= 0)
    return fail(comm, MPI_ERR_ARG, "MPI_Win_allocate_shared", "negative size or non-positive disp_unit");
  std::vector<std::int64_t> all;
  if (int e = gather_members(comm, size, disp_unit, &all)) return e;
  // Segments in rank order, contiguous (MPI's default without
  // alloc_shared_noncontig).
  const std::size_t n = all.size() / 3;
  std::vector<std::uint64_t> offsets(n + 1, 0);
  for (std::size_t i = 0; i < n; ++i) offsets[i + 1] = offsets[i] + static_cast<std::uint64_t>(all[3 * i + 1]);
  const int my_rank = me().comms.at(comm).my_rank;
  std::uint64_t segment = 0;
  if (my_rank == 0) {
    void* block = std::calloc(std::max<std::uint64_t>(offsets[n], 1), 1);
    if (block == nullptr)
      return fail(comm, MPI_ERR_NO_MEM, "MPI_Win_allocate_shared",
                  "no memory for " + std::to_string(offsets[n]) + " bytes of shared segments");
    segment = reinterpret_cast<std::uint64_t>(block);
  }
  if (int e = PMPI_Bcast(&segment, 1, MPI_UINT64_T, 0, comm)) return e;
  void* base = reinterpret_cast<void*>(segment + offsets[static_cast<std::size_t>(my_rank)]);
  *static_cast<void**>(baseptr) = base;
  if (int e = make_window(base, size, disp_unit, info, comm, win, MPI_WIN_FLAVOR_SHARED, "MPI_Win_allocate_shared"))
    return e;
  window_extras& x = me().windows.at(*win).extra;
  x.segment = segment;
  for (std::size_t i = 0; i < n; ++i) {
    x.shared_bases.push_back(segment + offsets[i]);
    x.shared_sizes.push_back(all[3 * i + 1]);
    x.shared_units.push_back(static_cast<int>(all[3 * i + 2]));
  }
  return MPI_SUCCESS;
}
ROAM_AMPI_PMPI(Win_allocate_shared)

extern "C" int PMPI_Win_shared_query(MPI_Win win, int member, MPI_Aint* size, int* disp_unit, void* baseptr) {
  const roam::process_heap_scope runtime_heap;  // the rank's records live in the process heap
  int err = 0;
  window* w = checked_window(win, &err, "MPI_Win_shared_query");
  if (w == nullptr) return err;
  if (int e = check_flavor(win, *w, MPI_WIN_FLAVOR_SHARED, "MPI_Win_allocate_shared", "MPI_Win_shared_query"))
    return e;
  const window_extras& x = w->extra;
  const int n = static_cast<int>(x.shared_sizes.size());
  int r = member;
  if (member == MPI_PROC_NULL) {
    // The first member with memory; when none has any, an empty segment.
    r = 0;
    while (r < n - 1 && x.shared_sizes[static_cast<std::size_t>(r)] == 0) ++r;
  } else if (member < 0 || member >= n) {
    return fail(w->comm, MPI_ERR_RANK, "MPI_Win_shared_query",
                window_name(win) + ": no rank " + std::to_string(member) + " (it has " + std::to_string(n) + ")");
  }
  const auto i = static_cast<std::size_t>(r);
  *size = x.shared_sizes[i];
  *disp_unit = x.shared_units[i];
  // An empty segment has no address (as MPICH answers; programs check it).
  *static_cast<void**>(baseptr) = *size == 0 ? nullptr : reinterpret_cast<void*>(x.shared_bases[i]);
  return MPI_SUCCESS;
}
ROAM_AMPI_PMPI(Win_shared_query)

// ---- info hints --------------------------------------------------------------------

extern "C" int PMPI_Win_set_info(MPI_Win win, MPI_Info info) {
  const roam::process_heap_scope runtime_heap;  // the rank's records live in the process heap
  int err = 0;
  window* w = checked_window(win, &err, "MPI_Win_set_info");
  if (w == nullptr) return err;
  if (info != MPI_INFO_NULL && me().infos.count(info) == 0)
    return fail(w->comm, MPI_ERR_INFO, "MPI_Win_set_info", window_name(win) + ": invalid info " + std::to_string(info));
  record_hints(*w, info);
  return MPI_SUCCESS;
}
ROAM_AMPI_PMPI(Win_set_info)

extern "C" int PMPI_Win_get_info(MPI_Win win, MPI_Info* info_used) {
  const roam::process_heap_scope runtime_heap;  // the rank's records live in the process heap
  int err = 0;
  window* w = checked_window(win, &err, "MPI_Win_get_info");
  if (w == nullptr) return err;
  std::vector<std::pair<std::string, std::string>> hints;
  for (const auto& [key, value] : default_hints) set_hint(hints, key, value);
  for (const auto& [key, value] : w->extra.hints) set_hint(hints, key, value);
  if (int e = PMPI_Info_create(info_used)) return e;
  for (const auto& [key, value] : hints)
    if (int e = PMPI_Info_set(*info_used, key.c_str(), value.c_str())) return e;
  return MPI_SUCCESS;
}
ROAM_AMPI_PMPI(Win_get_info)

// ---- MPI_Win_sync, local flushes -----------------------------------------------------

extern "C" int PMPI_Win_sync(MPI_Win win) {
  const roam::process_heap_scope runtime_heap;  // the rank's records live in the process heap
  int err = 0;
  if (checked_window(win, &err, "MPI_Win_sync") == nullptr) return err;
  // Operations are applied by the target's element on the target's PE, and
  // a shared window's other members may store from other PEs' threads: a
  // full fence orders this rank's loads and stores with theirs. A
  // sequentially consistent read-modify-write of one process-wide atomic is
  // one (and thread sanitizers, which do not model atomic_thread_fence, see
  // the order it makes between the callers).
  static std::atomic<std::uint64_t> syncs{0};
  syncs.fetch_add(1, std::memory_order_seq_cst);
  return MPI_SUCCESS;
}
ROAM_AMPI_PMPI(Win_sync)

namespace {

// Local completion: puts and accumulates have their data packed into the
// message when they are called, so only the gets' replies are waited for.
int flush_local(MPI_Win win, int target_rank, const char* function) {
  int err = 0;
  window* w = checked_window(win, &err, function);
  if (w == nullptr) return err;
  const int n = me().comms.at(w->comm).size;
  if (target_rank != MPI_ANY_SOURCE && (target_rank < 0 || target_rank >= n))
    return fail(w->comm, MPI_ERR_RANK, function,
                window_name(win) + ": target " + std::to_string(target_rank) + " is not in the window");
  const std::uint64_t context = w->context;
  while (window_of(me(), context)->replies_due != 0) rank::block();
  return report_refused(win, function);
}

}  // namespace

extern "C" int PMPI_Win_flush_local(int target_rank, MPI_Win win) {
  const roam::process_heap_scope runtime_heap;  // the rank's records live in the process heap
  return flush_local(win, target_rank, "MPI_Win_flush_local");
}
ROAM_AMPI_PMPI(Win_flush_local)

extern "C" int PMPI_Win_flush_local_all(MPI_Win win) {
  const roam::process_heap_scope runtime_heap;  // the rank's records live in the process heap
  return flush_local(win, MPI_ANY_SOURCE, "MPI_Win_flush_local_all");
}
ROAM_AMPI_PMPI(Win_flush_local_all)
