/* A ROSS model in C from outside roam's tree (ross.h from the pdes
 * component, built with the C compiler): a ring of LPs, each passing one
 * token to the next LP 1.0 later. With 2 LPs per PE and the end at 20, each
 * of the 2 x PEs tokens is processed at times 1 .. 19: 38 events per PE. */
#include <ross.h>

typedef struct ring_message {
  long hops;
} ring_message;

static tw_lpid total = 0;

static void ring_init(void* state, tw_lp* lp) {
  (void)state;
  tw_event_send(tw_event_new(lp->gid, 1.0, lp));
}

static void ring_event(void* state, tw_bf* bf, void* msg, tw_lp* lp) {
  (void)state;
  (void)bf;
  tw_event* e = tw_event_new((lp->gid + 1) % total, 1.0, lp);
  ((ring_message*)tw_event_data(e))->hops = ((ring_message*)msg)->hops + 1;
  tw_event_send(e);
}

static tw_lptype ring_type = {ring_init, NULL, ring_event, NULL, NULL, NULL, NULL, sizeof(long)};

int main(int argc, char** argv) {
  tw_init(&argc, &argv);
  g_tw_ts_end = 20;
  g_tw_synchronization_protocol = 3;
  total = 2 * (tw_lpid)tw_nnodes();
  tw_define_lps(2, sizeof(ring_message));
  for (tw_lpid i = 0; i < g_tw_nlp; i++) tw_lp_settype(i, &ring_type);
  if (g_tw_mynode == 0) printf("consumer_ross: %u PEs, %llu LPs\n", tw_nnodes(), (unsigned long long)total);
  tw_run();
  return tw_end();
}
