/* ROSS's model API on roam's PDES engine: a C header (C99 and later; from
 * C++ the functions have C linkage), so that ROSS's models compile unchanged
 * with a C compiler and link against roam (`pkg-config roam-pdes`, CMake's
 * `roam::pdes`).
 *
 * As in ROSS, tw_define_lps defines the LPs of one PE (the model has
 * tw_nnodes() x g_tw_nlp in all) and tw_lp_settype sets the type of local
 * LP i; tw_nnodes() and g_tw_mynode answer from tw_init on. roam then places
 * the LPs itself (in migratable LP chares): LP gid's type is the one set for
 * local LP gid % g_tw_nlp, which is where ROSS's linear mapping puts it
 * (tw_lp_setmapper sets types by gid instead).
 *
 * The same model under ROSS and under this header, with the same options,
 * commits the same events: the random streams are ROSS's (CLCG4, same seeds
 * and layout) and the distributions make the same draws. The schedulers are
 * roam's sequential, conservative, optimistic and rollback-check ones
 * (`--synch=1|2|3|4`, as ROSS numbers them), on the PEs and processes the
 * program was started with (`+p N`, roamrun, mpirun).
 *
 * ROSS's instrumentation entry points (st_model_settype,
 * crv_add_custom_state_checkpoint) are accepted and do nothing: roam's
 * tracing (+trace) and `--synch=4` (every event run forward, backward and
 * compared) serve those purposes. docs/design/pdes.md, "The ROSS API".
 */
#ifndef ROAM_ROSS_H
#define ROAM_ROSS_H

#include <math.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#ifdef __cplusplus
extern "C" {
#define ROAM_ROSS_NORETURN [[noreturn]]
#elif defined(__STDC_VERSION__) && __STDC_VERSION__ >= 201112L
#define ROAM_ROSS_NORETURN _Noreturn
#elif defined(__GNUC__)
#define ROAM_ROSS_NORETURN __attribute__((noreturn))
#else
#define ROAM_ROSS_NORETURN
#endif

typedef double tw_stime;
typedef uint64_t tw_lpid;
typedef unsigned long tw_peid;
typedef unsigned int tw_node;

/* Bits a forward handler sets for its reverse handler (ROSS's c0..c31). */
typedef struct tw_bf {
  unsigned int c0 : 1, c1 : 1, c2 : 1, c3 : 1, c4 : 1, c5 : 1, c6 : 1, c7 : 1, c8 : 1, c9 : 1, c10 : 1, c11 : 1,
      c12 : 1, c13 : 1, c14 : 1, c15 : 1, c16 : 1, c17 : 1, c18 : 1, c19 : 1, c20 : 1, c21 : 1, c22 : 1, c23 : 1,
      c24 : 1, c25 : 1, c26 : 1, c27 : 1, c28 : 1, c29 : 1, c30 : 1, c31 : 1;
} tw_bf;

/* An LP's random stream (CLCG4). `count`: draws made, forward minus
 * reversed (models read it to reverse a variable number of draws). */
typedef struct tw_rng_stream {
  int64_t initial[4];
  int64_t current[4];
  int64_t count;
} tw_rng_stream;

typedef struct tw_lp tw_lp;
typedef void (*init_f)(void* state, tw_lp* lp);
typedef void (*pre_run_f)(void* state, tw_lp* lp);
typedef void (*event_f)(void* state, tw_bf* bf, void* msg, tw_lp* lp);
typedef void (*revent_f)(void* state, tw_bf* bf, void* msg, tw_lp* lp);
typedef void (*commit_f)(void* state, tw_bf* bf, void* msg, tw_lp* lp);
typedef void (*final_f)(void* state, tw_lp* lp);
typedef tw_peid (*map_f)(tw_lpid gid);

/* An LP type: ROSS's handler table, in ROSS's order. `map` is not used
 * (roam places LPs); pre_run, revent, commit and final may be null. */
typedef struct tw_lptype {
  init_f init;
  pre_run_f pre_run;
  event_f event;
  revent_f revent;
  commit_f commit;
  final_f final;
  map_f map;
  size_t state_sz;
} tw_lptype;

/* What a handler gets: ROSS's fields a model reads, and the engine's LP. */
struct tw_lp {
  tw_lpid id;  /* gid % g_tw_nlp: its index among its PE's LPs under ROSS's linear mapping */
  tw_lpid gid;
  void* cur_state;
  tw_rng_stream* rng;
  const tw_lptype* type;
  /* roam's part */
  tw_stime now;
  void* engine_lp;
  void (*send)(void* engine_lp, tw_lpid dest, tw_stime offset, const void* msg);
};

/* An event being built: tw_event_new, fill tw_event_data, tw_event_send. */
typedef struct tw_event {
  tw_lpid dest;
  tw_stime offset;
  tw_lp* src;
  struct tw_event* next_free;
  unsigned char data[16]; /* 16-byte aligned; the defined message size follows */
} tw_event;

tw_event* tw_event_new(tw_lpid dest, tw_stime offset, tw_lp* sender);
static inline void* tw_event_data(tw_event* e) { return e->data; }
void tw_event_send(tw_event* e);
static inline tw_stime tw_now(const tw_lp* lp) { return lp->now; }

/* ---- random numbers (one stream per LP: lp->rng); each call one draw unless said ---- */
double tw_rand_unif(tw_rng_stream* g);
/* Undoes the last draw, of any distribution. */
void tw_rand_reverse_unif(tw_rng_stream* g);
long tw_rand_integer(tw_rng_stream* g, long low, long high);
unsigned long tw_rand_ulong(tw_rng_stream* g, unsigned long low, unsigned long high);
/* Exponential of mean `mean` (ROSS's argument is the mean). */
double tw_rand_exponential(tw_rng_stream* g, double mean);
/* Pareto: scale / U^(1/shape). */
double tw_rand_pareto(tw_rng_stream* g, double shape, double scale);
/* Successes in n trials of probability p (n draws). */
long tw_rand_binomial(tw_rng_stream* g, long n, double p);
/* Trials up to the first success of probability p (as many draws as trials: reverse with lp->rng->count). */
long tw_rand_geometric(tw_rng_stream* g, double p);
/* Weibull of the given mean and shape. */
double tw_rand_weibull(tw_rng_stream* g, double mean, double shape);

/* ---- options (ROSS's tw_optdef tables: --name=value) ---- */
typedef enum tw_opttype {
  TWOPTTYPE_GROUP,
  TWOPTTYPE_UINT,
  TWOPTTYPE_ULONG,
  TWOPTTYPE_ULONGLONG,
  TWOPTTYPE_STIME,
  TWOPTTYPE_DOUBLE,
  TWOPTTYPE_CHAR,
  TWOPTTYPE_FLAG,
  TWOPTTYPE_END
} tw_opttype;
typedef struct tw_optdef {
  tw_opttype type;
  const char* name;
  const char* help;
  void* value;
} tw_optdef;
#define TWOPT_GROUP(h) {TWOPTTYPE_GROUP, NULL, (h), NULL}
#define TWOPT_UINT(n, v, h) {TWOPTTYPE_UINT, (n), (h), &(v)}
#define TWOPT_ULONG(n, v, h) {TWOPTTYPE_ULONG, (n), (h), &(v)}
#define TWOPT_ULONGLONG(n, v, h) {TWOPTTYPE_ULONGLONG, (n), (h), &(v)}
#define TWOPT_STIME(n, v, h) {TWOPTTYPE_STIME, (n), (h), &(v)}
#define TWOPT_DOUBLE(n, v, h) {TWOPTTYPE_DOUBLE, (n), (h), &(v)}
#define TWOPT_CHAR(n, v, h) {TWOPTTYPE_CHAR, (n), (h), (v)}
#define TWOPT_FLAG(n, v, h) {TWOPTTYPE_FLAG, (n), (h), &(v)}
#define TWOPT_END() {TWOPTTYPE_END, NULL, NULL, NULL}
/* Adds a model's option table (before tw_init; TWOPT_CHAR values are char[1024]). */
void tw_opt_add(const tw_optdef* options);

/* ---- setup and run ---- */
/* Parses ROSS's options and the model's (`--name=value`; `--help` lists
 * them); roam's own `+options` are left for the runtime. From here on
 * tw_nnodes() and g_tw_mynode answer. */
void tw_init(int* argc, char*** argv);
/* Defines `nlp` LPs per PE (tw_nnodes() x nlp in all: gids 0 ..) with
 * messages of `msg_sz` bytes (at most 1024). Sets g_tw_nlp. */
void tw_define_lps(tw_lpid nlp, size_t msg_sz);
/* The type of local LP `lp` (0 .. g_tw_nlp - 1): of every gid with gid % g_tw_nlp == lp. */
void tw_lp_settype(tw_lpid lp, const tw_lptype* type);
/* roam's: types by gid instead, `types[mapper(gid)]` for LP gid. */
void tw_lp_setmapper(const tw_lptype* types, size_t (*mapper)(tw_lpid gid));
/* Starts roam on this process's PEs, runs the simulation to the end and
 * prints ROSS's statistics; returns when every process is done. */
void tw_run(void);
/* Ends the run; returns the program's exit status (ROSS's returns nothing). */
int tw_end(void);

/* Ends the run with `file:line: message` (tw_error(TW_LOC, ...)): inside a
 * handler by an exception the runtime reports with the PE and entry (exit
 * status 1); outside, on stderr (exit status 1). */
ROAM_ROSS_NORETURN void tw_error(const char* file, int line, const char* fmt, ...);
#define TW_LOC __FILE__, __LINE__
/* printf for models (ROSS's tw_output). */
int tw_output(tw_lp* lp, const char* fmt, ...);

/* The PE count (the whole program's, from tw_init on). */
tw_node tw_nnodes(void);
/* The calling PE inside the run; before it, this process's first PE (0 in
 * the process of PE 0, so `if (g_tw_mynode == 0)` prints once). */
tw_node roam_ross_mynode(void);
#define g_tw_mynode (roam_ross_mynode())

/* ---- ROSS's knobs (set by options or by the model before tw_run) ---- */
extern tw_stime g_tw_ts_end;                       /* --end */
extern tw_stime g_tw_lookahead;                    /* the least send offset (conservative scheduler) */
extern unsigned int g_tw_synchronization_protocol; /* --synch: 1 sequential, 2 conservative, 3 optimistic, 4 optimistic debug */
extern unsigned int g_tw_mblock;                   /* --batch */
extern unsigned int g_tw_gvt_interval;             /* --gvt-interval */
extern tw_stime g_tw_max_opt_lookahead;            /* --max-opt-lookahead (0: no bound) */
extern tw_lpid g_tw_nlp;                           /* LPs per PE (tw_define_lps) */
extern tw_lpid g_tw_lps_per_chare;                 /* --lps-per-chare (roam: 0 = about 4 chares per PE) */
extern unsigned int g_tw_events_per_pe;            /* accepted; roam's event pools grow as needed */
extern unsigned int g_tw_check_gvt;                /* --check-gvt: fail on anything below GVT */

static const double tw_opi = 6.28318530717958647692; /* 2 pi, as ROSS names it */

/* ---- ROSS's instrumentation: accepted, no effect (see the top) ---- */
typedef void (*ev_trace_f)(void* msg, tw_lp* lp, char* buffer, int* collect_flag);
typedef void (*model_stat_f)(void* state, tw_lp* lp, char* buffer);
typedef void (*sample_event_f)(void* state, tw_bf* bf, tw_lp* lp, void* sample);
typedef void (*sample_revent_f)(void* state, tw_bf* bf, tw_lp* lp, void* sample);
typedef struct st_model_types {
  ev_trace_f ev_trace;
  size_t ev_sz;
  model_stat_f model_stat_fn;
  size_t mstat_sz;
  sample_event_f sample_event_fn;
  sample_revent_f sample_revent_fn;
  size_t sample_struct_sz;
} st_model_types;
void st_model_settype(tw_lpid lp, st_model_types* types);

typedef void (*save_checkpoint_state_f)(void* into, void const* from);
typedef void (*clean_checkpoint_state_f)(void* state);
typedef bool (*check_states_f)(void* current_state, void const* before_state);
typedef void (*print_lpstate_f)(FILE* out, char const* prefix, void* state);
typedef void (*print_checkpoint_state_f)(FILE* out, char const* prefix, void* state);
typedef void (*print_event_f)(FILE* out, char const* prefix, void* lp_state, void* event_msg);
typedef struct crv_checkpointer {
  tw_lptype* lptype;
  size_t sz_storage;
  save_checkpoint_state_f save_lp;
  clean_checkpoint_state_f clean_lp;
  check_states_f check_lps;
  print_lpstate_f print_lp;
  print_checkpoint_state_f print_checkpoint;
  print_event_f print_event;
} crv_checkpointer;
void crv_add_custom_state_checkpoint(crv_checkpointer* checkpointer);

#ifdef __cplusplus
}
#endif

#endif /* ROAM_ROSS_H */
