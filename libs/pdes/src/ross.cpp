// ROSS's model API (ross.h, a C header) on roam's PDES engine: options, the
// LP-type registry, the model adapter (one engine instance per message size
// class) and tw_run, which starts roam and prints ROSS's statistics.
#include <ross.h>

#include <algorithm>
#include <cstdarg>
#include <cstddef>
#include <optional>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <new>
#include <stdexcept>
#include <string>
#include <vector>

#include <roam/pdes/simulation.hpp>
#include <roam/roam.hpp>

tw_stime g_tw_ts_end = 100000;
tw_stime g_tw_lookahead = 0.005;
unsigned int g_tw_synchronization_protocol = 0;
unsigned int g_tw_mblock = 16;
unsigned int g_tw_gvt_interval = 16;
tw_stime g_tw_max_opt_lookahead = 0;
tw_lpid g_tw_nlp = 0;
tw_lpid g_tw_lps_per_chare = 0;
unsigned int g_tw_events_per_pe = 0;
unsigned int g_tw_check_gvt = 0;

namespace {

namespace pdes = roam::pdes;

// The C header's views of the engine's types: the same layout.
static_assert(sizeof(tw_bf) == sizeof(pdes::bitfield) && alignof(tw_bf) == alignof(pdes::bitfield));
static_assert(sizeof(tw_rng_stream) == sizeof(pdes::rng_stream) &&
              offsetof(tw_rng_stream, count) == offsetof(pdes::rng_stream, count));
static_assert(offsetof(tw_event, data) % 16 == 0);
tw_bf* c_view(pdes::bitfield& b) { return reinterpret_cast<tw_bf*>(&b); }
tw_rng_stream* c_view(pdes::rng_stream& r) { return reinterpret_cast<tw_rng_stream*>(&r); }
pdes::rng_stream& engine_view(tw_rng_stream* g) { return *reinterpret_cast<pdes::rng_stream*>(g); }

// ---- the process-wide setup (written by main before tw_run, read-only after) ----
struct setup {
  std::vector<const tw_optdef*> tables;
  int argc = 0;
  char** argv = nullptr;
  std::size_t msg_sz = 0;
  bool defined = false;
  std::vector<const tw_lptype*> type_of;  // per local LP (gid % g_tw_nlp), or empty with a mapper
  // What roam::run will start (tw_init): tw_nnodes() and g_tw_mynode before the run.
  std::optional<roam::startup_layout> layout;
  std::string layout_error;
  const tw_lptype* mapped_types = nullptr;
  std::size_t (*mapper)(tw_lpid) = nullptr;
  bool running = false;
  int exit_status = 0;
  unsigned int extramem = 0, nkp = 0;  // ROSS's pool and kernel-process knobs: accepted (see core_options)
};
setup& the_setup() {
  static setup s;
  return s;
}

const tw_lptype* type_of(tw_lpid gid) {
  const setup& s = the_setup();
  if (s.mapper) return &s.mapped_types[s.mapper(gid)];
  return s.type_of[gid % s.type_of.size()];
}

// ---- options ----
const tw_optdef core_options[] = {
    TWOPT_GROUP("ROSS kernel (roam)"),
    TWOPT_UINT("synch", g_tw_synchronization_protocol, "1 sequential, 2 conservative, 3 optimistic, 4 optimistic with the rollback check"),
    TWOPT_STIME("end", g_tw_ts_end, "simulation end time"),
    TWOPT_UINT("batch", g_tw_mblock, "events per scheduling slice"),
    TWOPT_UINT("gvt-interval", g_tw_gvt_interval, "batches between GVT rounds"),
    TWOPT_STIME("max-opt-lookahead", g_tw_max_opt_lookahead, "optimistic: run only events below GVT + this (0: no bound)"),
    TWOPT_ULONGLONG("lps-per-chare", g_tw_lps_per_chare, "LPs per migratable LP chare (0: about 4 chares per PE)"),
    TWOPT_UINT("check-gvt", g_tw_check_gvt, "1: fail if anything arrives below GVT"),
    // ROSS sizes a fixed event pool with extramem and groups LPs in kernel
    // processes for rollback; roam's pools grow and it rolls back per LP.
    // Accepted so that ROSS command lines run unchanged.
    {TWOPTTYPE_UINT, "extramem", "accepted for ROSS command lines (roam's event pools grow as needed)", &the_setup().extramem},
    {TWOPTTYPE_UINT, "nkp", "accepted for ROSS command lines (roam rolls back per LP)", &the_setup().nkp},
    TWOPT_END(),
};

const char* program_name() { return the_setup().argv ? the_setup().argv[0] : "model"; }

// The lines every roam program's usage has: the synopsis, and (after the
// option table, in --help) where the runtime options are and a command that
// runs (a model's own options all have defaults).
void print_synopsis(std::FILE* to) {
  std::fprintf(to, "usage: %s [--name=value ...] [+p N and other runtime options]\n", program_name());
}
void print_runtime_hint_and_example(std::FILE* to) {
  std::fprintf(to,
               "Runtime options start with '+' and may go anywhere; `%s +help` lists them.\n"
               "Example: %s --synch=3 --end=100 +p2\n",
               program_name(), program_name());
}

void print_help() {
  print_synopsis(stdout);
  for (const tw_optdef* t : the_setup().tables) {
    for (const tw_optdef* o = t; o->type != TWOPTTYPE_END; ++o) {
      if (o->type == TWOPTTYPE_GROUP) std::printf("%s:\n", o->help);
      else std::printf("  --%-24s %s\n", o->name, o->help);
    }
  }
  std::printf("  -h, --help                 this text\n");
  print_runtime_hint_and_example(stdout);
}

[[noreturn]] void bad_option(const std::string& what) {
  std::fprintf(stderr, "%s: %s\n", program_name(), what.c_str());
  print_synopsis(stderr);
  std::fprintf(stderr, "`%s --help` lists the options.\n", program_name());
  print_runtime_hint_and_example(stderr);
  std::exit(2);
}

void set_option(const tw_optdef& o, const std::string& name, const char* value) {
  auto need = [&] {
    if (!value) bad_option("--" + name + " needs a value (--" + name + "=...)");
  };
  char* end = nullptr;
  auto check_end = [&] {
    if (!end || *end != '\0') bad_option("--" + name + "=" + value + ": not a number");
  };
  switch (o.type) {
    case TWOPTTYPE_UINT:
      need();
      *static_cast<unsigned int*>(o.value) = static_cast<unsigned int>(std::strtoul(value, &end, 10));
      check_end();
      break;
    case TWOPTTYPE_ULONG:
      need();
      *static_cast<unsigned long*>(o.value) = std::strtoul(value, &end, 10);
      check_end();
      break;
    case TWOPTTYPE_ULONGLONG:
      need();
      *static_cast<unsigned long long*>(o.value) = std::strtoull(value, &end, 10);
      check_end();
      break;
    case TWOPTTYPE_STIME:
    case TWOPTTYPE_DOUBLE:
      need();
      *static_cast<double*>(o.value) = std::strtod(value, &end);
      check_end();
      break;
    case TWOPTTYPE_CHAR:
      need();
      std::snprintf(static_cast<char*>(o.value), 1024, "%s", value);
      break;
    case TWOPTTYPE_FLAG:
      *static_cast<unsigned int*>(o.value) = value ? static_cast<unsigned int>(std::strtoul(value, &end, 10)) : 1u;
      if (value) check_end();
      break;
    default:
      break;
  }
}

const tw_optdef* find_option(const std::string& name) {
  for (const tw_optdef* t : the_setup().tables)
    for (const tw_optdef* o = t; o->type != TWOPTTYPE_END; ++o)
      if (o->type != TWOPTTYPE_GROUP && name == o->name) return o;
  return nullptr;
}

// ---- the model adapter ----
template <std::size_t N>
struct ross_message {
  alignas(16) unsigned char bytes[N];
};

/// An LP's state: state_sz bytes, 16-byte aligned (operator new's alignment).
struct ross_state {
  std::vector<unsigned char> bytes;
  friend bool operator==(const ross_state&, const ross_state&) = default;
  template <class P>
  void pup(P& p) {
    p | bytes;
  }
};

template <std::size_t N>
struct ross_model {
  using state = ross_state;
  using message = ross_message<N>;
  using lp_type = pdes::lp<ross_model>;

  static void send(void* engine_lp, tw_lpid dest, tw_stime offset, const void* msg) {
    message m;
    std::memcpy(m.bytes, msg, N);
    static_cast<lp_type*>(engine_lp)->send(dest, offset, m);
  }
  static tw_lp view(state& s, lp_type& l) {
    return tw_lp{l.gid() % g_tw_nlp, l.gid(), s.bytes.data(), c_view(l.rng()), type_of(l.gid()), l.now(), &l,
                 &ross_model::send};
  }
  void init(state& s, lp_type& l) {
    const tw_lptype* t = type_of(l.gid());
    s.bytes.assign(t->state_sz, 0);
    tw_lp v = view(s, l);
    if (t->init) t->init(v.cur_state, &v);
  }
  void pre_run(state& s, lp_type& l) {
    tw_lp v = view(s, l);
    if (v.type->pre_run) v.type->pre_run(v.cur_state, &v);
  }
  void event(state& s, pdes::bitfield& bf, message& m, lp_type& l) {
    tw_lp v = view(s, l);
    v.type->event(v.cur_state, c_view(bf), m.bytes, &v);
  }
  void reverse(state& s, pdes::bitfield& bf, message& m, lp_type& l) {
    tw_lp v = view(s, l);
    if (v.type->revent) v.type->revent(v.cur_state, c_view(bf), m.bytes, &v);
  }
  void commit(state& s, pdes::bitfield& bf, message& m, lp_type& l) {
    tw_lp v = view(s, l);
    if (v.type->commit) v.type->commit(v.cur_state, c_view(bf), m.bytes, &v);
  }
  void final(state& s, lp_type& l) {
    tw_lp v = view(s, l);
    if (v.type->final) v.type->final(v.cur_state, &v);
  }
  template <class P>
  void pup(P&) {}  // the LP types are the process's own (every process ran the same main)
};

// The engine's options; `pes`: the PE count the LPs are defined for.
pdes::engine_options options_from_globals(std::uint32_t pes) {
  pdes::engine_options o;
  o.lps = g_tw_nlp * pes;
  o.end = g_tw_ts_end;
  switch (g_tw_synchronization_protocol) {
    case 1: o.mode = pdes::synch::sequential; break;
    case 2: o.mode = pdes::synch::conservative; break;
    case 3: o.mode = pdes::synch::optimistic; break;
    case 4: o.mode = pdes::synch::optimistic_check; break;
    default:
      bad_option("--synch=" + std::to_string(g_tw_synchronization_protocol) +
                 ": use 1 (sequential), 2 (conservative), 3 (optimistic) or 4 (optimistic debug)");
  }
  o.lookahead = g_tw_lookahead;
  o.batch = g_tw_mblock;
  o.gvt_interval = g_tw_gvt_interval;
  if (g_tw_max_opt_lookahead > 0) o.max_optimism = g_tw_max_opt_lookahead;
  o.lps_per_chare = g_tw_lps_per_chare;
  o.check_gvt = g_tw_check_gvt != 0;
  return o;
}

roam::future<pdes::run_stats> start(const pdes::engine_options& o) {
  const std::size_t sz = the_setup().msg_sz;
  if (sz <= 16) return pdes::simulate(ross_model<16>{}, o);
  if (sz <= 64) return pdes::simulate(ross_model<64>{}, o);
  if (sz <= 256) return pdes::simulate(ross_model<256>{}, o);
  return pdes::simulate(ross_model<1024>{}, o);
}

void print_statistics(const pdes::run_stats& r, const pdes::engine_options& o) {
  std::printf("\n\t: Running Time = %.4f seconds\n\nTW Library Statistics (roam %s scheduler, %u PEs):\n", r.seconds,
              pdes::synch_name(o.mode), roam::num_pes());
  auto row = [](const char* name, unsigned long long v) { std::printf("\t%-50s %16llu\n", name, v); };
  row("Total Events Processed", r.processed);
  row("Events Rolled Back", r.rolled_back);
  std::printf("\t%-50s %16.2f %%\n", "Efficiency", 100.0 * r.efficiency());
  row("Total Remote Events Sent", r.remote_events);
  row("Total Roll Backs", r.primary_rollbacks + r.secondary_rollbacks);
  row("Primary Roll Backs", r.primary_rollbacks);
  row("Secondary Roll Backs", r.secondary_rollbacks);
  row("Anti-messages", r.anti_messages);
  row("Total GVT Computations", r.gvt_rounds);
  row("Events Checked (rollback check)", r.checked);
  std::printf("\n");
  row("Net Events Processed", r.committed);
  std::printf("\t%-50s %16.1f\n", "Event Rate (events/sec)", r.events_per_second());
  row("Total Events Scheduled Past End Time", r.past_end);
  std::fflush(stdout);
}

// Scratch events for tw_event_new, per thread (a PE runs one handler at a time).
struct event_scratch {
  tw_event* free = nullptr;
  std::vector<std::unique_ptr<unsigned char[]>> blocks;
};
thread_local event_scratch t_scratch;

}  // namespace

// ---- events ----
tw_event* tw_event_new(tw_lpid dest, tw_stime offset, tw_lp* sender) {
  if (!(offset >= 0))
    tw_error(TW_LOC, "LP %llu: cannot send events into the past (offset %g)",
             static_cast<unsigned long long>(sender->gid), offset);
  event_scratch& s = t_scratch;
  tw_event* e = s.free;
  if (e) {
    s.free = e->next_free;
  } else {
    s.blocks.push_back(std::make_unique<unsigned char[]>(sizeof(tw_event) + 1024));
    e = new (s.blocks.back().get()) tw_event{};
  }
  e->dest = dest;
  e->offset = offset;
  e->src = sender;
  std::memset(e->data, 0, the_setup().msg_sz);
  return e;
}

void tw_event_send(tw_event* e) {
  e->src->send(e->src->engine_lp, e->dest, e->offset, e->data);
  e->next_free = t_scratch.free;
  t_scratch.free = e;
}

// ---- random numbers ----
double tw_rand_unif(tw_rng_stream* g) { return pdes::unif(engine_view(g)); }
void tw_rand_reverse_unif(tw_rng_stream* g) { pdes::reverse_unif(engine_view(g)); }
long tw_rand_integer(tw_rng_stream* g, long low, long high) { return pdes::integer(engine_view(g), low, high); }
double tw_rand_exponential(tw_rng_stream* g, double mean) { return pdes::exponential(engine_view(g), mean); }
unsigned long tw_rand_ulong(tw_rng_stream* g, unsigned long low, unsigned long high) {
  const double u = tw_rand_unif(g);
  const unsigned long span_end = high == ~0ul ? high : high + 1;
  if (span_end < low) return 0;
  return low + static_cast<unsigned long>(u * static_cast<double>(span_end - low));
}
double tw_rand_pareto(tw_rng_stream* g, double shape, double scale) {
  return scale * 1.0 / std::pow(tw_rand_unif(g), 1.0 / shape);
}
long tw_rand_binomial(tw_rng_stream* g, long n, double p) {
  long hits = 0;
  for (long i = 0; i < n; ++i) hits += tw_rand_unif(g) <= p;
  return hits;
}
long tw_rand_geometric(tw_rng_stream* g, double p) {
  long trials = 1;
  while (tw_rand_unif(g) > p) ++trials;
  return trials;
}
double tw_rand_weibull(tw_rng_stream* g, double mean, double shape) {
  const double scale = mean / std::tgamma(1.0 + 1.0 / shape);
  return scale * std::pow(-std::log(tw_rand_unif(g)), 1.0 / shape);
}

// ---- options and setup ----
void tw_opt_add(const tw_optdef* options) {
  if (options) the_setup().tables.push_back(options);
}

void tw_init(int* argc, char*** argv) {
  setup& s = the_setup();
  s.argc = *argc;
  s.argv = *argv;
  s.tables.insert(s.tables.begin(), core_options);
  for (int i = 1; i < *argc; ++i) {
    const std::string arg = (*argv)[i];
    if (arg == "-h" || arg == "--help") {
      print_help();
      std::exit(0);
    }
    if (arg.rfind("--", 0) != 0) continue;  // roam's +options and anything else: the runtime's
    const std::size_t eq = arg.find('=');
    const std::string name = arg.substr(2, eq == std::string::npos ? std::string::npos : eq - 2);
    const tw_optdef* o = find_option(name);
    if (!o) bad_option("unknown option --" + name);
    set_option(*o, name, eq == std::string::npos ? nullptr : (*argv)[i] + eq + 1);
  }
  // As under ROSS, the model may size itself by tw_nnodes() and g_tw_mynode from here on.
  s.layout = roam::planned_layout(*argc, *argv, s.layout_error);
}

void tw_define_lps(tw_lpid nlp, std::size_t msg_sz) {
  setup& s = the_setup();
  if (nlp == 0) tw_error(TW_LOC, "tw_define_lps: no LPs");
  if (msg_sz > 1024) tw_error(TW_LOC, "tw_define_lps: messages of %zu bytes; roam's ROSS API carries at most 1024", msg_sz);
  g_tw_nlp = nlp;
  s.msg_sz = msg_sz;
  s.defined = true;
  s.type_of.assign(nlp, nullptr);
}

void tw_lp_settype(tw_lpid lp, const tw_lptype* type) {
  setup& s = the_setup();
  if (!s.defined) tw_error(TW_LOC, "tw_lp_settype before tw_define_lps");
  if (lp >= s.type_of.size())
    tw_error(TW_LOC, "tw_lp_settype: local LP %llu of %llu (tw_define_lps defines the LPs of one PE)",
             static_cast<unsigned long long>(lp), static_cast<unsigned long long>(s.type_of.size()));
  s.type_of[lp] = type;
}

void tw_lp_setmapper(const tw_lptype* types, std::size_t (*mapper)(tw_lpid)) {
  the_setup().mapped_types = types;
  the_setup().mapper = mapper;
}

void tw_run(void) {
  setup& s = the_setup();
  if (!s.defined) tw_error(TW_LOC, "tw_run before tw_define_lps");
  if (!s.mapper) {
    for (tw_lpid g = 0; g < s.type_of.size(); ++g)
      if (!s.type_of[g]) tw_error(TW_LOC, "local LP %llu has no type (tw_lp_settype or tw_lp_setmapper)", static_cast<unsigned long long>(g));
  }
  (void)options_from_globals(1);  // a bad --synch is reported here, before the runtime starts
  s.running = true;  // from here on tw_nnodes() and g_tw_mynode answer from the runtime
  s.exit_status = roam::run(s.argc, s.argv, [](const roam::args&) -> roam::task<> {
    const setup& su = the_setup();
    if (su.layout && su.layout->num_pes != roam::num_pes()) {
      std::fprintf(stderr, "%s: tw_nnodes() said %u PEs before tw_run, but the run has %u (runtime bug)\n",
                   su.argv[0], su.layout->num_pes, roam::num_pes());
      roam::exit(1);
      co_return;
    }
    const pdes::engine_options o = options_from_globals(roam::num_pes());
    try {
      (void)pdes::resolve(o);
    } catch (const std::exception& e) {
      std::fprintf(stderr, "%s: %s\n", su.argv[0], e.what());
      roam::exit(2);
      co_return;
    }
    const pdes::run_stats r = co_await start(o);
    print_statistics(r, o);
    roam::exit(0);
  });
  s.running = false;
}

int tw_end(void) { return the_setup().exit_status; }

void tw_error(const char* file, int line, const char* fmt, ...) {
  char text[1024];
  va_list ap;
  va_start(ap, fmt);
  std::vsnprintf(text, sizeof text, fmt, ap);
  va_end(ap);
  const std::string message = std::string(file) + ":" + std::to_string(line) + ": " + text;
  if (the_setup().running) throw std::runtime_error(message);  // the runtime names the PE and entry, exits with 1
  std::fprintf(stderr, "%s\n", message.c_str());
  std::exit(1);
}

int tw_output(tw_lp*, const char* fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  const int n = std::vprintf(fmt, ap);
  va_end(ap);
  return n;
}

tw_node tw_nnodes(void) {
  const setup& s = the_setup();
  if (s.running && roam::num_pes() != 0) return roam::num_pes();
  if (!s.layout)
    tw_error(TW_LOC, "tw_nnodes(): %s", s.argv ? s.layout_error.c_str() : "called before tw_init");
  return s.layout->num_pes;
}

tw_node roam_ross_mynode(void) {
  const setup& s = the_setup();
  if (s.running && roam::num_pes() != 0) return roam::my_pe().value();
  return s.layout ? s.layout->first_pe() : 0;
}

// ROSS's instrumentation: roam's tracing and the rollback check (--synch=4) serve instead.
void st_model_settype(tw_lpid, st_model_types*) {}
void crv_add_custom_state_checkpoint(crv_checkpointer*) {}
