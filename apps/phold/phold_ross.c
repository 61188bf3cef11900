/* PHOLD written in C against ROSS's model API (libs/pdes/include/ross.h),
 * as a ROSS model is: C handlers, an LP type table, an option table, LPs
 * defined per PE. It builds with a C compiler and runs on roam unchanged
 * from how it would run on ROSS (ROSS's own models/phold does too: the
 * tests build it when its source is there).
 *
 *   phold_ross --synch=3 --nlp=40 --remote=0.1 --start-events=16 --lookahead=0.1 --mean=1.0 --end=25000 +p2
 *
 * --nlp is per PE, as in ROSS: +p2 --nlp=40 is 80 LPs, the same model and
 * committed events as ROSS's phold under `mpirun -np 2 ... --nlp=40`. */
#include <ross.h>

typedef struct phold_state {
  long count;
} phold_state;
typedef struct phold_message {
  long payload;
} phold_message;

static tw_stime lookahead = 1.0;
static tw_stime percent_remote = 0.25;
static unsigned int nlp_per_pe = 8;
static unsigned int start_events = 1;
static tw_stime mean = 1.0;
static tw_lpid total_lps = 0;

static void phold_init(void* sv, tw_lp* lp) {
  (void)sv;
  for (unsigned int i = 0; i < start_events; i++)
    tw_event_send(tw_event_new(lp->gid, tw_rand_exponential(lp->rng, mean) + lookahead, lp));
}

static void phold_event(void* sv, tw_bf* bf, void* mv, tw_lp* lp) {
  phold_state* s = (phold_state*)sv;
  (void)mv;
  tw_lpid dest = lp->gid;
  bf->c1 = 0;
  if (tw_rand_unif(lp->rng) <= percent_remote) {
    bf->c1 = 1;
    dest = (tw_lpid)tw_rand_integer(lp->rng, 0, (long)total_lps - 1);
  }
  s->count++;
  tw_event* e = tw_event_new(dest, tw_rand_exponential(lp->rng, mean) + lookahead, lp);
  ((phold_message*)tw_event_data(e))->payload = s->count;
  tw_event_send(e);
}

static void phold_event_rc(void* sv, tw_bf* bf, void* mv, tw_lp* lp) {
  phold_state* s = (phold_state*)sv;
  (void)mv;
  tw_rand_reverse_unif(lp->rng);
  tw_rand_reverse_unif(lp->rng);
  if (bf->c1) tw_rand_reverse_unif(lp->rng);
  s->count--;
}

static void phold_final(void* sv, tw_lp* lp) {
  (void)sv;
  (void)lp;
}

static tw_lptype phold_types[] = {
    {phold_init, NULL, phold_event, phold_event_rc, NULL, phold_final, NULL, sizeof(phold_state)},
};

static const tw_optdef app_opt[] = {
    TWOPT_GROUP("PHOLD model"),
    TWOPT_DOUBLE("remote", percent_remote, "share of events sent to a random LP"),
    TWOPT_UINT("nlp", nlp_per_pe, "number of LPs per PE (as in ROSS)"),
    TWOPT_DOUBLE("mean", mean, "mean time between an event and the one it sends"),
    TWOPT_DOUBLE("lookahead", lookahead, "least time between an event and the one it sends"),
    TWOPT_UINT("start-events", start_events, "events per LP at the start"),
    TWOPT_END(),
};

int main(int argc, char** argv) {
  tw_opt_add(app_opt);
  tw_init(&argc, &argv);
  if (lookahead > 1.0) tw_error(TW_LOC, "lookahead above 1.0");
  mean = mean - lookahead; /* the option is the mean offset; the exponential's mean excludes the lookahead */
  g_tw_lookahead = lookahead;
  total_lps = tw_nnodes() * (tw_lpid)nlp_per_pe;
  tw_define_lps(nlp_per_pe, sizeof(phold_message));
  for (tw_lpid i = 0; i < g_tw_nlp; i++) tw_lp_settype(i, &phold_types[0]);
  if (g_tw_mynode == 0)
    printf("PHOLD: %llu LPs (%u per PE), remote %g, lookahead %g, mean %g\n", (unsigned long long)total_lps,
           nlp_per_pe, percent_remote, lookahead, mean + lookahead);
  tw_run();
  return tw_end();
}
