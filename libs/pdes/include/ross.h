#pragma once
/// ROSS's model API on roam's PDES engine, so that a ROSS model compiles
/// (as C++) with the few changes docs/design/pdes.md ("The ROSS API") lists:
/// LPs are counted in total (the engine places them, not the ranks), LP
/// types are set per global id or by a mapper, the model is not sized with
/// tw_nnodes(), and ROSS's instrumentation hooks are left out.
///
/// The same model under ROSS and under this header, with the same options,
/// commits the same events: the random streams are ROSS's (CLCG4, same
/// seeds and layout) and the distributions below make the same draws.
/// What runs it: roam's sequential, conservative, optimistic or
/// rollback-check scheduler (`--synch=1|2|3|4`, as ROSS numbers them), on
/// the PEs and processes the roam program was started with.
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <cstdio>

#include <roam/pdes/model.hpp>
#include <roam/pdes/rng.hpp>

typedef double tw_stime;
typedef std::uint64_t tw_lpid;
typedef std::uint64_t tw_peid;
typedef unsigned int tw_node;
typedef roam::pdes::bitfield tw_bf;
typedef roam::pdes::rng_stream tw_rng_stream;

struct tw_lp;
typedef void (*init_f)(void* state, tw_lp* lp);
typedef void (*pre_run_f)(void* state, tw_lp* lp);
typedef void (*event_f)(void* state, tw_bf* bf, void* msg, tw_lp* lp);
typedef void (*revent_f)(void* state, tw_bf* bf, void* msg, tw_lp* lp);
typedef void (*commit_f)(void* state, tw_bf* bf, void* msg, tw_lp* lp);
typedef void (*final_f)(void* state, tw_lp* lp);
typedef tw_peid (*map_f)(tw_lpid gid);

/// An LP type: ROSS's handler table (fields in ROSS's order). `map` is not
/// used (the runtime places LPs); pre_run, commit and final may be null.
struct tw_lptype {
  init_f init;
  pre_run_f pre_run;
  event_f event;
  revent_f revent;
  commit_f commit;
  final_f final;
  map_f map;
  std::size_t state_sz;
};

/// What a handler gets: ROSS's fields a model reads, and the engine's LP.
struct tw_lp {
  tw_lpid gid;
  tw_lpid id;  ///< = gid (ROSS: the index on its PE; roam has no per-PE numbering)
  void* cur_state;
  tw_rng_stream* rng;
  const tw_lptype* type;
  // roam's part
  tw_stime now;
  void* engine_lp;
  void (*send)(void* engine_lp, tw_lpid dest, tw_stime offset, const void* msg);
};

/// An event being built: tw_event_new, fill tw_event_data, tw_event_send.
struct tw_event {
  tw_lpid dest;
  tw_stime offset;
  tw_lp* src;
  tw_event* next_free;
  alignas(16) unsigned char data[1];  // message bytes follow (the defined message size)
};

tw_event* tw_event_new(tw_lpid dest, tw_stime offset, tw_lp* sender);
inline void* tw_event_data(tw_event* e) { return e->data; }
void tw_event_send(tw_event* e);
inline tw_stime tw_now(const tw_lp* lp) { return lp->now; }

// ---- random numbers (one stream per LP: lp->rng) ----
inline double tw_rand_unif(tw_rng_stream* g) { return roam::pdes::unif(*g); }
inline void tw_rand_reverse_unif(tw_rng_stream* g) { roam::pdes::reverse_unif(*g); }
inline long tw_rand_integer(tw_rng_stream* g, long low, long high) { return roam::pdes::integer(*g, low, high); }
unsigned long tw_rand_ulong(tw_rng_stream* g, unsigned long low, unsigned long high);
/// Exponential of mean `mean` (one draw; ROSS's argument is the mean).
inline double tw_rand_exponential(tw_rng_stream* g, double mean) { return roam::pdes::exponential(*g, mean); }
/// Pareto: scale / U^(1/shape) (one draw).
double tw_rand_pareto(tw_rng_stream* g, double shape, double scale);
/// Successes in n trials of probability p (n draws).
long tw_rand_binomial(tw_rng_stream* g, long n, double p);
/// Trials up to the first success of probability p (as many draws as trials; reverse with lp->rng->count).
long tw_rand_geometric(tw_rng_stream* g, double p);
/// Weibull of the given mean and shape (one draw).
double tw_rand_weibull(tw_rng_stream* g, double mean, double shape);

// ---- options (ROSS's tw_optdef tables: --name=value) ----
enum tw_opttype { TWOPTTYPE_GROUP, TWOPTTYPE_UINT, TWOPTTYPE_ULONG, TWOPTTYPE_ULONGLONG, TWOPTTYPE_STIME,
                  TWOPTTYPE_DOUBLE, TWOPTTYPE_CHAR, TWOPTTYPE_FLAG, TWOPTTYPE_END };
struct tw_optdef {
  tw_opttype type;
  const char* name;
  const char* help;
  void* value;
};
#define TWOPT_GROUP(h) {TWOPTTYPE_GROUP, nullptr, (h), nullptr}
#define TWOPT_UINT(n, v, h) {TWOPTTYPE_UINT, (n), (h), &(v)}
#define TWOPT_ULONG(n, v, h) {TWOPTTYPE_ULONG, (n), (h), &(v)}
#define TWOPT_ULONGLONG(n, v, h) {TWOPTTYPE_ULONGLONG, (n), (h), &(v)}
#define TWOPT_STIME(n, v, h) {TWOPTTYPE_STIME, (n), (h), &(v)}
#define TWOPT_DOUBLE(n, v, h) {TWOPTTYPE_DOUBLE, (n), (h), &(v)}
#define TWOPT_CHAR(n, v, h) {TWOPTTYPE_CHAR, (n), (h), (v)}
#define TWOPT_FLAG(n, v, h) {TWOPTTYPE_FLAG, (n), (h), &(v)}
#define TWOPT_END() {TWOPTTYPE_END, nullptr, nullptr, nullptr}
/// Adds a model's option table (before tw_init; TWOPT_CHAR values are char[1024]).
void tw_opt_add(const tw_optdef* options);

// ---- setup and run ----
/// Parses ROSS's options and the model's (`--name=value`; `--help` lists
/// them); roam's own `+options` are left for the runtime.
void tw_init(int* argc, char*** argv);
/// Defines `total_lps` LPs (all of them: the runtime spreads them over PEs)
/// with messages of `msg_sz` bytes (at most 1024).
void tw_define_lps(tw_lpid total_lps, std::size_t msg_sz);
/// LP `gid`'s type (every gid, or use tw_lp_setmapper).
void tw_lp_settype(tw_lpid gid, const tw_lptype* type);
/// The LP-type mapper: `types[mapper(gid)]` is LP gid's type.
void tw_lp_setmapper(const tw_lptype* types, std::size_t (*mapper)(tw_lpid gid));
/// Starts roam on this process's PEs, runs the simulation to the end and
/// prints ROSS's statistics; returns when every process is done.
void tw_run();
/// Ends the run (returns the program's exit status to use).
int tw_end();

/// Ends the run with `file:line: message` (tw_error(TW_LOC, ...)): inside a
/// handler by an exception the runtime reports with the PE and entry (exit
/// status 1), before tw_run on stderr (exit status 1).
[[noreturn]] void tw_error(const char* file, int line, const char* fmt, ...);
#define TW_LOC __FILE__, __LINE__
/// printf for models (ROSS's tw_output).
void tw_output(tw_lp* lp, const char* fmt, ...);

/// The PE count (only inside the simulation: a model sized by it before
/// tw_run would depend on placement; tw_error otherwise).
tw_node tw_nnodes();
/// The calling PE (0 outside the simulation).
tw_node roam_ross_mynode();
#define g_tw_mynode (roam_ross_mynode())

// ---- ROSS's knobs (set by options or by the model before tw_run) ----
extern tw_stime g_tw_ts_end;              ///< --end
extern tw_stime g_tw_lookahead;           ///< the least send offset (conservative scheduler)
extern unsigned int g_tw_synchronization_protocol;  ///< --synch: 1 sequential, 2 conservative, 3 optimistic, 4 optimistic debug
extern unsigned int g_tw_mblock;          ///< --batch
extern unsigned int g_tw_gvt_interval;    ///< --gvt-interval
extern tw_stime g_tw_max_opt_lookahead;   ///< --max-opt-lookahead (0: no bound)
extern tw_lpid g_tw_nlp;                  ///< the LPs defined (tw_define_lps: all of them)
extern tw_lpid g_tw_lps_per_chare;        ///< --lps-per-chare (roam: 0 = about 4 chares per PE)
extern std::size_t g_tw_events_per_pe;    ///< accepted; roam's event pools grow as needed
extern unsigned int g_tw_check_gvt;       ///< --check-gvt: fail on anything below GVT

inline constexpr double tw_opi = 6.28318530717958647692;  // 2 pi, as ROSS names it
