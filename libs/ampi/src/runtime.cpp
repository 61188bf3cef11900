// The program: the real main, +vp, starting each rank's thread on the
// program's renamed main, the end of the run, MPI_Init/Finalize/Abort, and
// the rank element's life (pup, moves, load balancing).
#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <ctime>
#include <stdexcept>
#include <string>
#include <sys/personality.h>
#include <unistd.h>

#include <roam/ft/checkpoint.hpp>
#include <roam/ft/memory_checkpoint.hpp>
#include <roam/sched/options.hpp>

#include "api.hpp"
#include "privatize.hpp"

namespace roam::ampi {
namespace {

struct settings {
  std::uint32_t vp = 0;                   // 0: one rank per PE
  std::size_t stack_bytes = 1u << 20;     // each rank's thread stack
  bool round_robin = false;               // +vpmap: rank r on PE r mod P instead of blocks of ranks
};
settings g_settings;

// "block" (ranks 0..V/P-1 on PE 0, ...) or "round_robin"/"rr" (rank r on PE
// r mod P); Charm++'s AMPI spells them BLOCK_MAP and RR_MAP (+mapping).
std::string parse_vpmap(std::string_view v) {
  if (v == "block" || v == "BLOCK_MAP") {
    g_settings.round_robin = false;
  } else if (v == "round_robin" || v == "rr" || v == "RR_MAP") {
    g_settings.round_robin = true;
  } else {
    return "value '" + std::string(v) + "' is not a rank map (block or round_robin)";
  }
  return {};
}

[[maybe_unused]] const bool g_registered = register_runtime_options(
    "ampi",
    {{"vp", "ROAM_AMPI_VP", "N", "Adaptive MPI: virtual ranks (MPI_COMM_WORLD's size; default one per PE)",
      [](std::string_view v) { return option_parse::count(v, 1, 1u << 24, g_settings.vp); }},
     {"vpmap", "ROAM_AMPI_VPMAP", "MAP",
      "Adaptive MPI: ranks to PEs, block (default: consecutive ranks together) or round_robin (rank r on PE r mod P)",
      parse_vpmap},
     {"mapping", "", "MAP", "Adaptive MPI: Charm++'s name of +vpmap (BLOCK_MAP or RR_MAP)", parse_vpmap},
     {"ampi_stack", "ROAM_AMPI_STACK", "BYTES", "Adaptive MPI: each rank's stack (default 1M; only used pages count)",
      [](std::string_view v) { return option_parse::bytes(v, 64u << 10, 1u << 30, g_settings.stack_bytes); }},
     // Charm++'s AMPI needs this flag before AMPI_Migrate_to_pe works; here
     // it always works, and the flag is accepted so that programs and
     // scripts written for Charm++ run unchanged.
     {"ampiEnableMigrateToPe", "", "", "Adaptive MPI: accepted for Charm++'s AMPI programs (AMPI_Migrate_to_pe always works)",
      [](std::string_view v) {
        bool unused = true;
        return option_parse::flag(v, unused);
      }}},
    [] { g_settings = {}; });

// A rank that moves to another process, or is restarted from a checkpoint,
// resumes in code at the addresses it left: every process of every run must
// have address space randomisation off. roamrun starts its children so;
// otherwise (mpirun, a plain start) the program turns it off itself and
// starts again, so that `mpirun -n 2 ./prog +vp 16` and `./prog +restart DIR`
// work as they are.
void same_addresses_everywhere(char** argv) {
  const int now = personality(0xffffffff);
  if (now == -1 || (now & ADDR_NO_RANDOMIZE) != 0) return;
  if (personality(static_cast<unsigned long>(now) | ADDR_NO_RANDOMIZE) == -1) return;
  execv("/proc/self/exe", argv);
  std::fprintf(stderr, "ampi: could not restart with address space randomisation off (%s): ranks cannot move "
                       "between processes; start the program with setarch -R\n", std::strerror(errno));
}

// The rank's thread: the program's main with the rank's own argv (in the
// thread's heap, so it moves with it), on the rank's copy of the program
// when its globals are privatized.
// Deregisters the rank's copy's unwind tables when the thread ends, also
// when the run ends with the rank blocked and its stack is unwound: after
// the copy's frames are gone and before its slot is, since libgcc reads
// every registered table it is asked about (a table left behind in a freed
// slot would fault the next exception anywhere in the process).
struct image_registration {
  image_registration() = default;
  image_registration(const image_registration&) = delete;
  image_registration& operator=(const image_registration&) = delete;
  ~image_registration() {
    rank& r = me();
    if (!r.image_here) return;
    image_leaving(r.image);
    r.image_here = false;
  }
};

void rank_thread() {
  {
    const std::uint64_t image = make_rank_image();
    rank& r = me();
    r.image = image;
    r.image_here = image != 0;
  }
  const image_registration registered;
  const std::vector<std::string>& args = me().argv_;
  const int argc = static_cast<int>(args.size());
  auto** argv = static_cast<char**>(std::malloc(sizeof(char*) * (args.size() + 1)));
  for (std::size_t i = 0; i < args.size(); ++i) argv[i] = strdup(args[i].c_str());
  argv[args.size()] = nullptr;
  const int code = run_program_main(me().image, argc, argv);
  rank& r = me();
  if (r.initialized && !r.finalized)
    std::fprintf(stderr, "ampi: rank %d returned from main without calling MPI_Finalize\n", r.this_index()[0]);
  r.collector_.send<&collector::finished>(code);
}

}  // namespace

// The rank whose AMPI_Register_about_to_migrate function runs on this PE
// (user_pup.cpp), off the rank's thread: me() for the MPI calls it makes.
constinit thread_local rank* t_leaving_rank = nullptr;

rank& me() {
  if (t_leaving_rank != nullptr) [[unlikely]]
    return *t_leaving_rank;
  return this_thread_owner<rank>();
}
array_proxy<rank> ranks() { return me().this_array(); }
int world_rank() { return me().this_index()[0]; }

void rank::start(chare_proxy<collector> done, group_proxy<world_hub> hubs, int world_size, std::vector<std::string> argv,
                 std::uint64_t stack_bytes) {
  collector_ = done;
  hub = hubs;
  argv_ = std::move(argv);
  stack_bytes_ = stack_bytes;
  extensions_arrived(*this);
  const int n = world_size;
  communicator world;
  world.context = 2;
  world.my_rank = this_index()[0];
  world.size = n;
  world.name = "MPI_COMM_WORLD";
  comms[MPI_COMM_WORLD] = world;
  communicator self;
  self.context = 4;
  self.members = {this_index()[0]};
  self.size = 1;
  self.name = "MPI_COMM_SELF";
  comms[MPI_COMM_SELF] = self;
  thread.start(this, [] { rank_thread(); },
               thread_options{.stack_bytes = static_cast<std::size_t>(stack_bytes), .isomalloc_heap = true});
}

void rank::block() {
  if (t_leaving_rank != nullptr)
    throw std::logic_error("ampi: rank " + std::to_string(t_leaving_rank->this_index()[0]) +
                           ": a blocking MPI call in the function registered with AMPI_Register_about_to_migrate "
                           "(it runs off the rank's thread while the rank leaves)");
  rank& r = me();
  const int job = running_job();
  if (job == 0) r.waiting = true;
  else r.jobs.at(job).waiting = true;
  suspend_this_thread();
}

void rank::notify() {
  if (waiting) {
    waiting = false;
    thread.resume();
  }
  if (jobs.empty()) return;
  std::vector<int> blocked;
  for (const auto& [id, job] : jobs)
    if (job.waiting) blocked.push_back(id);
  for (int id : blocked) {
    auto it = jobs.find(id);
    if (it == jobs.end() || !it->second.waiting) continue;
    it->second.waiting = false;
    for (coll_thread& h : coll_threads)
      if (h.job == id && h.thread.suspended()) h.thread.resume();
  }
}

void rank::go(int pe) {
  if (static_cast<std::uint32_t>(pe) == roam::my_pe().value()) {
    wake_after_move();
    return;
  }
  migrate_to(pe_id{static_cast<std::uint32_t>(pe)});
}

void rank::after_migration() {
  extensions_arrived(*this);
  migrated_flag = true;
  arrived_by_move = true;
  if (moving) this_proxy().send<&rank::wake_after_move>();
}

void rank::wake_after_move() {
  if (!moving) return;
  moving = false;
  thread.resume();
}

void rank::resume_from_sync() { thread.resume(); }

void rank::checkpointed(bool ok) {
  if (!parked) return;
  parked = false;
  checkpoint_ok = ok;
  thread.resume();
}

void collector::parked(std::string dir) {
  dir_ = std::move(dir);
  if (++parked_ < ranks_) return;
  parked_ = 0;
  // Every rank waits in AMPI_Migrate: nothing is in flight.
  auto done = callback<checkpoint_result>::to<&collector::saved>(this_proxy());
  if (dir_.empty()) checkpoint_in_memory(done);
  else checkpoint(dir_, done);
}

void collector::saved(checkpoint_result result) {
  if (!result.ok)
    std::fprintf(stderr, "ampi: the checkpoint AMPI_Migrate asked for failed: %s\n", result.error.c_str());
  else if (result.restarted || result.recovered)
    std::printf("ampi: %s from checkpoint %u (written on %u PEs, %u processes; now %u PEs, %u processes): the ranks "
                "go on\n",
                result.recovered ? "recovered" : "restarted", static_cast<unsigned>(result.number),
                static_cast<unsigned>(result.pes), static_cast<unsigned>(result.processes), roam::num_pes(),
                roam::num_nodes());
  all_.send<&rank::checkpointed>(result.ok);
}

void rank::pup(pup_er& p) {
  // Before the thread's memory is packed: the functions read it (a move
  // made the blob already, in before_migration).
  if (!p.is_unpacking()) pack_user_state(false);
  p | collector_ | argv_ | stack_bytes_ | initialized | finalized | waiting | moving | parked | checkpoint_ok | migrated_flag | attached_buffer | attached_size |
      user_pups | about_to_migrate_fn | just_migrated_fn | arrived_by_move | comms | next_comm | groups | next_group | types | freed_types | held_types | next_type | reusable_types | type_names | ops | next_op | infos | next_info | keyvals | next_keyval | extras | jobs | next_job | windows | next_window | rma_sent_to | rma_expected_from | rma_early | requests |
      free_requests | unexpected | posted | sent_to | expected_from | early | messages | next_message | hub | world_collectives |
      world_results;
  // The copy's unwind tables are deregistered while its pages are still
  // here (a move takes them away during the thread's pup), and registered
  // again if the pup was a checkpoint's and the thread stays.
  const bool had_image = p.is_packing() && image_here;
  if (had_image) {
    image_leaving(image);
    image_here = false;
  }
  std::uint32_t helpers = static_cast<std::uint32_t>(coll_threads.size());
  p | helpers;
  if (p.is_unpacking()) {
    coll_threads.clear();
    for (std::uint32_t i = 0; i < helpers; ++i) coll_threads.emplace_back();
  }
  for (coll_thread& h : coll_threads) p | h.job | h.thread;
  // The list's nodes were made anew: their threads learn where the rank is.
  if (p.is_unpacking())
    for (coll_thread& h : coll_threads) h.thread.set_owner(this);
  p | thread | image;
  if (had_image && thread.slot() != ~0u) {
    image_arrived(image);
    image_here = true;
  }
  if (p.is_unpacking() && image != 0 && !thread.finished()) {
    image_arrived(image);
    image_here = true;
  }
  p | user_pup_blob;
  if (p.is_packing()) user_pup_blob_ready = false;  // the next move or checkpoint makes its own
  if (p.is_unpacking() && !thread.finished()) unpack_user_state();  // into the arrived heap and stack
}

rank::~rank() {
  extensions_leaving(*this);
  if (image_here) image_leaving(image);
}

int fail(int comm, int code, const char* function, const std::string& what) {
  rank& r = me();
  const communicator* c = find_comm(r, comm);
  const int handler = c ? c->errhandler : r.comms[MPI_COMM_WORLD].errhandler;
  if (handler == MPI_ERRORS_RETURN) return code;
  if (handler != MPI_ERRORS_ARE_FATAL) return call_errhandler(c ? comm : MPI_COMM_WORLD, handler, code);  // errhandlers.cpp
  std::fprintf(stderr, "ampi: rank %d (PE %u) in %s: %s (error class %d)\n", r.this_index()[0], my_pe().value(),
               function, what.c_str(), code);
  std::fflush(stderr);
  roam::exit(code == 0 ? 1 : code);
  suspend_this_thread();  // never resumed: the run ends and unwinds the thread
  return code;
}

communicator* find_comm(rank& r, int handle) noexcept {
  auto it = r.comms.find(handle);
  return it == r.comms.end() ? nullptr : &it->second;
}

const type_info* find_type(rank& r, int handle) noexcept {
  if (handle < first_derived_type) return predefined_type(handle);
  auto it = r.types.find(handle);
  return it == r.types.end() ? nullptr : &it->second;
}

}  // namespace roam::ampi

using namespace roam::ampi;

int main(int argc, char** argv) {
  same_addresses_everywhere(argv);
  // stdio makes stdout's buffer at its first use: on a rank, that would be
  // in the rank's heap, which moves and ends with the rank. The process's
  // own buffer is given now.
  static char stdout_buffer[BUFSIZ];
  std::setvbuf(stdout, stdout_buffer, isatty(STDOUT_FILENO) ? _IOLBF : _IOFBF, sizeof stdout_buffer);
  const int code = roam::run(argc, argv, [](const roam::args& a) {
    const int vp = g_settings.vp != 0 ? static_cast<int>(g_settings.vp) : static_cast<int>(roam::num_pes());
    std::vector<std::string> args(a.begin(), a.end());
    load_program();  // fails early when the program cannot be loaded
    auto done = roam::create_chare_on<collector>(roam::pe_id{0}, vp);
    auto hubs = roam::create_group<world_hub>();
    auto ranks = roam::create_array<rank>(
        roam::array_options<1>{{vp}, g_settings.round_robin ? roam::round_robin_map() : roam::block_map()});
    done.send<&collector::set_ranks>(ranks);
    ranks.send<&rank::start>(done, hubs, vp, args, static_cast<std::uint64_t>(g_settings.stack_bytes));
  });
  report_loans();
  if (privatizing()) {
    // The ranks' copies of the program registered their C++ globals'
    // destructors with the process (atexit); the copies went away with the
    // ranks, so those must not run: output is flushed and the process ends.
    std::fflush(nullptr);
    std::_Exit(code);
  }
  return code;
}

// ---- environment ---------------------------------------------------------------

extern "C" int PMPI_Init(int*, char***) {
  const roam::process_heap_scope runtime_heap;  // the rank's records live in the process heap
  rank& r = me();
  if (r.initialized) return fail(MPI_COMM_WORLD, MPI_ERR_OTHER, "MPI_Init", "MPI_Init called twice");
  r.initialized = true;
  return MPI_SUCCESS;
}
ROAM_AMPI_PMPI(Init)

extern "C" int PMPI_Init_thread(int* argc, char*** argv, int, int* provided) {
  const roam::process_heap_scope runtime_heap;  // the rank's records live in the process heap
  *provided = MPI_THREAD_FUNNELED;  // one thread per rank: the rank's own
  return PMPI_Init(argc, argv);
}
ROAM_AMPI_PMPI(Init_thread)

extern "C" int PMPI_Query_thread(int* provided) {
  const roam::process_heap_scope runtime_heap;  // the rank's records live in the process heap
  *provided = MPI_THREAD_FUNNELED;
  return MPI_SUCCESS;
}
ROAM_AMPI_PMPI(Query_thread)

extern "C" int PMPI_Is_thread_main(int* flag) {
  const roam::process_heap_scope runtime_heap;  // the rank's records live in the process heap
  *flag = 1;
  return MPI_SUCCESS;
}
ROAM_AMPI_PMPI(Is_thread_main)

extern "C" int PMPI_Finalize(void) {
  const roam::process_heap_scope runtime_heap;  // the rank's records live in the process heap
  rank& r = me();
  if (!r.initialized || r.finalized)
    return fail(MPI_COMM_WORLD, MPI_ERR_OTHER, "MPI_Finalize", r.finalized ? "called twice" : "MPI_Init was not called");
  // Everyone gets here before anyone leaves, so no message is left in
  // flight towards a rank that has ended.
  PMPI_Barrier(MPI_COMM_WORLD);
  me().finalized = true;
  return MPI_SUCCESS;
}
ROAM_AMPI_PMPI(Finalize)

extern "C" int PMPI_Initialized(int* flag) {
  const roam::process_heap_scope runtime_heap;  // the rank's records live in the process heap
  *flag = roam::in_user_thread() && me().initialized;
  return MPI_SUCCESS;
}
ROAM_AMPI_PMPI(Initialized)

extern "C" int PMPI_Finalized(int* flag) {
  const roam::process_heap_scope runtime_heap;  // the rank's records live in the process heap
  *flag = roam::in_user_thread() && me().finalized;
  return MPI_SUCCESS;
}
ROAM_AMPI_PMPI(Finalized)

extern "C" int PMPI_Abort(MPI_Comm, int errorcode) {
  const roam::process_heap_scope runtime_heap;  // the rank's records live in the process heap
  std::fprintf(stderr, "ampi: rank %d (PE %u) called MPI_Abort(%d)\n", world_rank(), roam::my_pe().value(), errorcode);
  std::fflush(stderr);
  roam::exit(errorcode == 0 ? 1 : errorcode);
  roam::suspend_this_thread();  // never resumed
  return MPI_SUCCESS;
}
ROAM_AMPI_PMPI(Abort)

extern "C" int PMPI_Get_version(int* version, int* subversion) {
  const roam::process_heap_scope runtime_heap;  // the rank's records live in the process heap
  *version = MPI_VERSION;
  *subversion = MPI_SUBVERSION;
  return MPI_SUCCESS;
}
ROAM_AMPI_PMPI(Get_version)

extern "C" int PMPI_Get_library_version(char* version, int* resultlen) {
  const roam::process_heap_scope runtime_heap;  // the rank's records live in the process heap
  const int n = std::snprintf(version, MPI_MAX_LIBRARY_VERSION_STRING,
                              "roam Adaptive MPI (MPI %d.%d; virtual ranks on migratable threads)", MPI_VERSION,
                              MPI_SUBVERSION);
  *resultlen = n;
  return MPI_SUCCESS;
}
ROAM_AMPI_PMPI(Get_library_version)

extern "C" int PMPI_Get_processor_name(char* name, int* resultlen) {
  const roam::process_heap_scope runtime_heap;  // the rank's records live in the process heap
  char host[MPI_MAX_PROCESSOR_NAME] = {};
  gethostname(host, sizeof host - 1);
  *resultlen = std::snprintf(name, MPI_MAX_PROCESSOR_NAME, "%s", host);
  return MPI_SUCCESS;
}
ROAM_AMPI_PMPI(Get_processor_name)

extern "C" double PMPI_Wtime(void) {
  const roam::process_heap_scope runtime_heap;  // the rank's records live in the process heap
  timespec t{};
  clock_gettime(CLOCK_MONOTONIC, &t);
  return static_cast<double>(t.tv_sec) + static_cast<double>(t.tv_nsec) * 1e-9;
}
ROAM_AMPI_PMPI(Wtime)

extern "C" double PMPI_Wtick(void) { return 1e-9; }
ROAM_AMPI_PMPI(Wtick)

// ---- Adaptive MPI's own --------------------------------------------------------

std::uint32_t roam::ampi::process_of_pe(std::uint32_t pe) { return pe / (roam::num_pes() / roam::num_nodes()); }

namespace {
int migrate_to_pe(int pe) {
  const roam::process_heap_scope runtime_heap;  // the rank's records live in the process heap
  if (pe < 0 || static_cast<std::uint32_t>(pe) >= roam::num_pes())
    return fail(MPI_COMM_WORLD, MPI_ERR_ARG, "AMPI_Migrate_to_pe",
                "no PE " + std::to_string(pe) + " (there are " + std::to_string(roam::num_pes()) + ")");
  if (int e = refuse_leaving_shared_windows(pe, "AMPI_Migrate_to_pe")) return e;  // rma_windows.cpp
  rank& r = me();
  // A non-blocking collective's thread keeps its working buffers in this
  // process's memory: it may move with its rank in the process, not out of it.
  if (!r.jobs.empty() && process_of_pe(static_cast<std::uint32_t>(pe)) != roam::my_node().value())
    return fail(MPI_COMM_WORLD, MPI_ERR_PENDING, "AMPI_Migrate_to_pe",
                "non-blocking collectives are still in progress: a rank leaves its process (to PE " +
                    std::to_string(pe) + ") only without them (complete them first)");
  r.moving = true;
  r.this_proxy().send<&rank::go>(pe);
  roam::suspend_this_thread();
  return MPI_SUCCESS;
}
}  // namespace

extern "C" int AMPI_Migrate_to_pe(int pe) {
  const int result = migrate_to_pe(pe);
  after_moves();  // on the thread, with its own heap
  return result;
}

extern "C" int AMPI_Yield(void) {
  const roam::process_heap_scope runtime_heap;  // the rank's records live in the process heap
  roam::this_thread_yield();
  return MPI_SUCCESS;
}

extern "C" int AMPI_My_pe(void) { return static_cast<int>(roam::my_pe().value()); }
extern "C" int AMPI_Num_pes(void) { return static_cast<int>(roam::num_pes()); }
extern "C" int AMPI_My_node(void) { return static_cast<int>(roam::my_node().value()); }
extern "C" int AMPI_Num_nodes(void) { return static_cast<int>(roam::num_nodes()); }

extern "C" int AMPI_Migrated(int* flag) {
  const roam::process_heap_scope runtime_heap;  // the rank's records live in the process heap
  rank& r = me();
  *flag = r.migrated_flag;
  r.migrated_flag = false;
  return MPI_SUCCESS;
}
