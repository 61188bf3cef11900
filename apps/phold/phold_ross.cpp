// PHOLD written against ROSS's model API (libs/pdes/include/ross.h), in the
// style of a ROSS model (C handlers, an LP type table, an option table), to
// show and test that such a model runs on roam with the changes
// docs/design/pdes.md lists: LPs counted in total (--nlp is all LPs, not
// per rank), types set per global id, no instrumentation hooks.
//
//   phold_ross --synch=3 --nlp=80 --remote=0.1 --start-events=16 --lookahead=0.1 --mean=1.0 --end=25000 [+p2]
#include <ross.h>

struct phold_state {
  long count;
};
struct phold_message {
  long payload;
};

static tw_stime lookahead = 1.0;
static tw_stime percent_remote = 0.25;
static unsigned int nlp = 8;
static unsigned int start_events = 1;
static tw_stime mean = 1.0;

// Handlers take void* as ROSS's handler types do (ROSS models often declare
// them with their own pointer types and cast the function: the same ABI,
// but a call through a cast function pointer is undefined in C++).
static void phold_init(void*, tw_lp* lp) {
  for (unsigned int i = 0; i < start_events; i++)
    tw_event_send(tw_event_new(lp->gid, tw_rand_exponential(lp->rng, mean) + lookahead, lp));
}

static void phold_event(void* sv, tw_bf* bf, void*, tw_lp* lp) {
  phold_state* s = static_cast<phold_state*>(sv);
  tw_lpid dest = lp->gid;
  bf->c1 = 0;
  if (tw_rand_unif(lp->rng) <= percent_remote) {
    bf->c1 = 1;
    dest = static_cast<tw_lpid>(tw_rand_integer(lp->rng, 0, static_cast<long>(nlp) - 1));
  }
  s->count++;
  tw_event* e = tw_event_new(dest, tw_rand_exponential(lp->rng, mean) + lookahead, lp);
  static_cast<phold_message*>(tw_event_data(e))->payload = s->count;
  tw_event_send(e);
}

static void phold_event_rc(void* sv, tw_bf* bf, void*, tw_lp* lp) {
  phold_state* s = static_cast<phold_state*>(sv);
  tw_rand_reverse_unif(lp->rng);
  tw_rand_reverse_unif(lp->rng);
  if (bf->c1) tw_rand_reverse_unif(lp->rng);
  s->count--;
}

static void phold_final(void*, tw_lp*) {}

static tw_lptype phold_types[] = {
    {phold_init, nullptr, phold_event, phold_event_rc, nullptr, phold_final, nullptr, sizeof(phold_state)},
};

static const tw_optdef app_opt[] = {
    TWOPT_GROUP("PHOLD model"),
    TWOPT_DOUBLE("remote", percent_remote, "share of events sent to a random LP"),
    TWOPT_UINT("nlp", nlp, "number of LPs (in total)"),
    TWOPT_DOUBLE("mean", mean, "mean time between an event and the one it sends"),
    TWOPT_DOUBLE("lookahead", lookahead, "least time between an event and the one it sends"),
    TWOPT_UINT("start-events", start_events, "events per LP at the start"),
    TWOPT_END(),
};

int main(int argc, char** argv) {
  tw_opt_add(app_opt);
  tw_init(&argc, &argv);
  if (lookahead > 1.0) tw_error(TW_LOC, "lookahead above 1.0");
  mean = mean - lookahead;  // the option is the mean offset; the exponential's mean excludes the lookahead
  g_tw_lookahead = lookahead;
  tw_define_lps(nlp, sizeof(phold_message));
  for (tw_lpid g = 0; g < nlp; g++) tw_lp_settype(g, &phold_types[0]);
  tw_run();
  return tw_end();
}
