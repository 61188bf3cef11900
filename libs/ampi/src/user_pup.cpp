// Adaptive MPI's hooks for a program's own state: AMPI_Register_pup (a C
// pup function the rank runs when it moves or is checkpointed, through the
// C pup API, pup_int()...), AMPI_Register_about_to_migrate /
// just_migrated (functions run around each move) and AMPI_Load_set_value
// (the rank's load for the next balancing step).
//
// A rank's heap and stack move with it anyway (isomalloc), so a program
// needs its pup function only for state outside them; programs written for
// Charm++'s AMPI have them and must work unchanged. The functions run into
// a blob of their own: on the way out before the thread's memory leaves
// (they read the program's data), on the way in after it has arrived (they
// write into it, e.g. `*chunk_ptr = new chunk` on the rank's stack). What
// they allocate while unpacking comes from the process heap, as it would in
// Charm++'s AMPI; it is read and freed normally from the rank.
#include <chrono>

#include "api.hpp"

using namespace roam::ampi;

namespace {
roam::pup_er& of(pup_er p) { return *static_cast<roam::pup_er*>(p); }

// The pass in which a leaving rank's functions release their data.
thread_local bool t_deleting = false;

template <class T>
void items(pup_er p, T* a, size_t n) {
  of(p).bytes(a, n * sizeof(T));
}
}  // namespace

namespace roam::ampi {

void rank::pack_user_state(bool leaving) {
  if (user_pups.empty()) {
    user_pup_blob.clear();
    return;
  }
  // Once per move or checkpoint, before the element's pup passes (a move:
  // from before_migration), which must all see the same blob and the same
  // heap: a leaving rank's functions release their data here
  // (pup_isDeleting), before the thread's heap is sized and packed.
  if (user_pup_blob_ready) return;
  auto run = [this](roam::pup_er& er) {
    for (const auto& [fn, data] : user_pups) reinterpret_cast<MPI_PupFn>(fn)(&er, reinterpret_cast<void*>(data));
  };
  roam::pup_er sizer = roam::pup_er::sizer();
  run(sizer);
  user_pup_blob.resize(sizer.offset());
  roam::pup_er packer = roam::pup_er::packer(user_pup_blob.data(), user_pup_blob.size());
  run(packer);
  user_pup_blob_ready = true;
  if (leaving) {  // over a pass that reads and writes nothing
    roam::pup_er nothing = roam::pup_er::sizer();
    t_deleting = true;
    run(nothing);
    t_deleting = false;
  }
}

// A move to another PE, from its old PE (not a checkpoint, not a move to
// where the rank is): the program's about-to-migrate function, then its pup
// functions, before anything of the rank is packed. The function runs here,
// on the scheduler, as Charm++'s AMPI runs it: the rank's thread is blocked
// in the call that moves it and cannot be run without waking it there. Its
// MPI calls find the rank through me(); the function and the globals it
// reads are the rank's (its copy of the program, when privatized).
void rank::before_migration() {
  if (about_to_migrate_fn != 0) {
    const auto fn = reinterpret_cast<MPI_MigrateFn>(about_to_migrate_fn);
    rank* const outer = t_leaving_rank;
    t_leaving_rank = this;
    try {
      fn();
    } catch (...) {
      t_leaving_rank = outer;
      throw;
    }
    t_leaving_rank = outer;
  }
  pack_user_state(true);
  extensions_leaving(*this);  // libraries that reach the rank's memory directly stop first
}

void after_moves() {
  rank& r = me();
  if (!r.arrived_by_move) return;
  r.arrived_by_move = false;
  if (r.just_migrated_fn != 0) reinterpret_cast<MPI_MigrateFn>(r.just_migrated_fn)();
}

void rank::unpack_user_state() {
  if (user_pups.empty()) return;
  roam::pup_er unpacker = roam::pup_er::unpacker(user_pup_blob.data(), user_pup_blob.size());
  for (const auto& [fn, data] : user_pups) reinterpret_cast<MPI_PupFn>(fn)(&unpacker, reinterpret_cast<void*>(data));
  user_pup_blob.clear();
}

}  // namespace roam::ampi

extern "C" int AMPI_Register_pup(MPI_PupFn fn, void* data, int* idx) {
  const roam::process_heap_scope runtime_heap;  // the rank's records live in the process heap
  if (fn == nullptr) return fail(MPI_COMM_WORLD, MPI_ERR_ARG, "AMPI_Register_pup", "a null pup function");
  rank& r = me();
  r.user_pups.emplace_back(reinterpret_cast<std::uint64_t>(fn), reinterpret_cast<std::uint64_t>(data));
  if (idx) *idx = static_cast<int>(r.user_pups.size()) - 1;
  return MPI_SUCCESS;
}

extern "C" int AMPI_Register_about_to_migrate(MPI_MigrateFn fn) {
  const roam::process_heap_scope runtime_heap;  // the rank's records live in the process heap
  me().about_to_migrate_fn = reinterpret_cast<std::uint64_t>(fn);
  return MPI_SUCCESS;
}

extern "C" int AMPI_Register_just_migrated(MPI_MigrateFn fn) {
  const roam::process_heap_scope runtime_heap;  // the rank's records live in the process heap
  rank& r = me();
  r.just_migrated_fn = reinterpret_cast<std::uint64_t>(fn);
  r.arrived_by_move = false;  // only moves from now on
  return MPI_SUCCESS;
}

extern "C" int AMPI_Get_pup_data(int idx, void* data) {
  const roam::process_heap_scope runtime_heap;  // the rank's records live in the process heap
  rank& r = me();
  if (idx < 0 || static_cast<std::size_t>(idx) >= r.user_pups.size())
    return fail(MPI_COMM_WORLD, MPI_ERR_ARG, "AMPI_Get_pup_data", "no pup function registered as " + std::to_string(idx));
  *static_cast<void**>(data) = reinterpret_cast<void*>(r.user_pups[static_cast<std::size_t>(idx)].second);
  return MPI_SUCCESS;
}

extern "C" int AMPI_Load_set_value(double value) {
  const roam::process_heap_scope runtime_heap;  // the rank's records live in the process heap
  if (!(value >= 0)) return fail(MPI_COMM_WORLD, MPI_ERR_ARG, "AMPI_Load_set_value", "a negative or NaN load");
  roam::set_load(static_cast<const void*>(&me()),
                 std::chrono::nanoseconds(static_cast<std::int64_t>(value * 1e9)));
  return MPI_SUCCESS;
}

// ---- the C pup API ------------------------------------------------------------------

extern "C" int pup_isPacking(const pup_er p) { return of(p).is_packing(); }
extern "C" int pup_isUnpacking(const pup_er p) { return of(p).is_unpacking(); }
extern "C" int pup_isSizing(const pup_er p) { return of(p).is_sizing(); }
extern "C" int pup_isDeleting(const pup_er) { return t_deleting; }
extern "C" int pup_isUserlevel(const pup_er) { return 1; }
extern "C" void pup_bytes(pup_er p, void* ptr, size_t n) { of(p).bytes(ptr, n); }

#define ROAM_AMPI_PUP_TYPE(name, T)                                                    \
  extern "C" void pup_##name(pup_er p, T* v) { items(p, v, 1); }                       \
  extern "C" void pup_##name##s(pup_er p, T* a, size_t n) { items(p, a, n); }
ROAM_AMPI_PUP_TYPES(ROAM_AMPI_PUP_TYPE)
#undef ROAM_AMPI_PUP_TYPE
