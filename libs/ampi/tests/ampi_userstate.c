/* ampi_userstate: Adaptive MPI's hooks for a program's own state.
 *   ampi_userstate pup     each rank registers a pup function for a chunk it
 *                          malloc'ed (AMPI_Register_pup, as Charm++'s AMPI
 *                          programs do) and hops across every PE: the
 *                          function runs at each move (the chunk is
 *                          re-made on arrival) and the data is intact
 *   ampi_userstate checkpoint DIR
 *                          the same chunk through a checkpoint to DIR
 *                          (AMPI_Migrate): the function packs it there;
 *                          `+restart DIR` (any PE count) wakes each rank in
 *                          AMPI_Migrate with its chunk re-made by it
 *                          (printed: "restored" 0 or 1)
 *   ampi_userstate load    rank 0 says its load is 100 s, the others
 *                          1 ms (AMPI_Load_set_value); run with a greedy
 *                          balancer, AMPI_Migrate leaves rank 0 alone on
 *                          its PE
 *   ampi_userstate callbacks
 *                          AMPI_Register_about_to_migrate / just_migrated
 *                          (and a pup function) logged at every move: to
 *                          its own PE (nothing), hops across every PE and
 *                          AMPI_Migrate's balancer (each move exactly
 *                          about-to-migrate on the old PE, pack, unpack,
 *                          just-migrated on the new PE on the rank's
 *                          thread), then with the functions removed one by
 *                          one. Prints the number of moves: run it with a
 *                          balancer that moves every rank (Rotate)
 * Rank 0 prints "ampi_userstate: OK (<mode>, N ranks)". */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum { N = 1000 };
struct chunk {
  int owner;
  int arrivals; /* unpacks of this rank's chunk */
  double values[N];
};

static void chunk_pup(pup_er p, void* data) {
  struct chunk** cpp = (struct chunk**)data;
  if (pup_isUnpacking(p)) *cpp = (struct chunk*)malloc(sizeof(struct chunk));
  struct chunk* c = *cpp;
  pup_int(p, &c->owner);
  pup_int(p, &c->arrivals);
  pup_doubles(p, c->values, N);
  if (pup_isUnpacking(p)) c->arrivals++;
  if (pup_isDeleting(p)) free(c); /* the rank leaves: the copy here goes */
}

/* The callbacks have no argument: each rank's log is found by its rank
 * (a global: one per rank when privatized, one per process otherwise, where
 * each rank writes its own entry). */
enum { MAX_RANKS = 64, MAX_EVENTS = 96 };
struct moves_log {
  int n;
  char what[MAX_EVENTS + 1]; /* A about to migrate, P packed, U unpacked, J just migrated */
  int pe[MAX_EVENTS];        /* the PE each ran on */
  int wrong_rank;            /* MPI_Comm_rank in a callback gave another rank */
  int moved_pes;             /* the PE seen by just_migrated differs from about_to_migrate's */
};
static struct moves_log logs[MAX_RANKS];

static void log_event(char what) {
  int r = -1;
  MPI_Comm_rank(MPI_COMM_WORLD, &r); /* in the callbacks: the rank whose move it is */
  if (r < 0 || r >= MAX_RANKS) return;
  struct moves_log* l = &logs[r];
  if (l->n >= MAX_EVENTS) return;
  l->what[l->n] = what;
  l->pe[l->n] = AMPI_My_pe();
  l->n++;
  l->what[l->n] = 0;
}

static void about_to_migrate(void) { log_event('A'); }
static void just_migrated(void) { log_event('J'); }

static void log_pup(pup_er p, void* data) {
  struct moves_log* l = (struct moves_log*)data;
  const int packing = pup_isPacking(p) && !pup_isDeleting(p);
  const int unpacking = pup_isUnpacking(p);
  int n = l->n;
  pup_int(p, &n); /* the log is in the rank's memory anyway: only counted */
  if ((packing || unpacking) && l->n < MAX_EVENTS) {
    l->what[l->n] = packing ? 'P' : 'U';
    l->pe[l->n] = AMPI_My_pe();
    l->n++;
    l->what[l->n] = 0;
  }
}

/* Moves to `pe` and checks what was logged: `expect` appended when the rank
 * moved, nothing when it stayed; A and P on the old PE, U and J on the new. */
static int move_and_check(int me, int pe, int balance, const char* expect, char* want, int* moves) {
  struct moves_log* l = &logs[me];
  const int from = AMPI_My_pe(), before = l->n;
  if (balance) {
    /* every rank done hopping before any reaches the sync point (a rank
     * still moving while others wait there can hang the balancing step on
     * 3 PEs: not what is tested here) */
    MPI_Barrier(MPI_COMM_WORLD);
    AMPI_Migrate(AMPI_INFO_LB_SYNC);
  } else {
    AMPI_Migrate_to_pe(pe);
  }
  const int to = AMPI_My_pe();
  int bad = 0;
  if (!balance && to != pe) bad++, fprintf(stderr, "rank %d: on PE %d after moving to %d\n", me, to, pe);
  if (to != from) {
    strcat(want, expect);
    ++*moves;
  }
  if (strcmp(l->what, want) != 0)
    bad++, fprintf(stderr, "rank %d: after %s from PE %d to %d: logged \"%s\", want \"%s\"\n", me,
                   balance ? "AMPI_Migrate" : "AMPI_Migrate_to_pe", from, to, l->what, want);
  for (int i = before; i < l->n; ++i) {
    const int old_side = l->what[i] == 'A' || l->what[i] == 'P';
    if (l->pe[i] != (old_side ? from : to))
      bad++, fprintf(stderr, "rank %d: '%c' ran on PE %d (moving from %d to %d)\n", me, l->what[i], l->pe[i], from, to);
  }
  return bad;
}

static int callbacks(int me, int np, int* total_moves) {
  int bad = 0, moves = 0;
  const int pes = AMPI_Num_pes();
  if (me >= MAX_RANKS || np > MAX_RANKS) {
    fprintf(stderr, "ampi_userstate callbacks: at most %d ranks\n", MAX_RANKS);
    return 1;
  }
  char want[MAX_EVENTS + 1] = "";
  memset(&logs[me], 0, sizeof logs[me]);
  int idx = -1;
  AMPI_Register_pup(log_pup, &logs[me], &idx);
  AMPI_Register_about_to_migrate(about_to_migrate);
  AMPI_Register_just_migrated(just_migrated);
  bad += move_and_check(me, AMPI_My_pe(), 0, "APUJ", want, &moves); /* stays: nothing */
  for (int hop = 1; hop <= pes; ++hop) bad += move_and_check(me, (AMPI_My_pe() + 1) % pes, 0, "APUJ", want, &moves);
  bad += move_and_check(me, -1, 1, "APUJ", want, &moves); /* the balancer */
  bad += move_and_check(me, -1, 1, "APUJ", want, &moves);
  AMPI_Register_about_to_migrate(NULL);
  bad += move_and_check(me, (AMPI_My_pe() + 1) % pes, 0, "PUJ", want, &moves);
  AMPI_Register_just_migrated(NULL);
  bad += move_and_check(me, (AMPI_My_pe() + 1) % pes, 0, "PU", want, &moves);
  /* counts of each, exactly */
  int counts[4] = {0, 0, 0, 0};
  for (int i = 0; i < logs[me].n; ++i) counts[strchr("APUJ", logs[me].what[i]) - "APUJ"]++;
  const int abouts = pes > 1 ? moves - 2 : 0, justs = pes > 1 ? moves - 1 : 0;
  if (counts[0] != abouts || counts[3] != justs || counts[1] != moves || counts[2] != moves)
    bad++, fprintf(stderr, "rank %d: %d moves: %d about, %d packed, %d unpacked, %d just (want %d, %d, %d, %d)\n", me,
                   moves, counts[0], counts[1], counts[2], counts[3], abouts, moves, moves, justs);
  MPI_Allreduce(&moves, total_moves, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
  return bad;
}

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  int me, np, bad = 0;
  MPI_Comm_rank(MPI_COMM_WORLD, &me);
  MPI_Comm_size(MPI_COMM_WORLD, &np);
  const char* mode = argc > 1 ? argv[1] : "pup";
  if (strcmp(mode, "pup") != 0 && strcmp(mode, "load") != 0 && strcmp(mode, "checkpoint") != 0 &&
      strcmp(mode, "callbacks") != 0) {
    if (me == 0)
      fprintf(stderr, "usage: ampi_userstate [pup|load|checkpoint DIR|callbacks] [+p N +vp N ...] (not '%s')\n", mode);
    MPI_Finalize();
    return 2;
  }
  int moves = 0;
  if (strcmp(mode, "callbacks") == 0) {
    bad += callbacks(me, np, &moves);
  } else if (strcmp(mode, "pup") == 0) {
    struct chunk* cp = (struct chunk*)malloc(sizeof(struct chunk));
    cp->owner = me;
    cp->arrivals = 0;
    for (int i = 0; i < N; ++i) cp->values[i] = me + i * 0.5;
    int idx = -1;
    AMPI_Register_pup(chunk_pup, &cp, &idx);
    const int pes = AMPI_Num_pes();
    /* each hop: the function packs the chunk, frees it here (pup_isDeleting)
     * and makes it anew there (arrivals counts the unpacks) */
    for (int hop = 1; hop <= pes; ++hop) AMPI_Migrate_to_pe((AMPI_My_pe() + 1) % pes);
    void* back = NULL;
    AMPI_Get_pup_data(idx, &back);
    if (back != (void*)&cp) bad++, fprintf(stderr, "rank %d: AMPI_Get_pup_data gave %p, not %p\n", me, back, (void*)&cp);
    if (cp->owner != me || cp->arrivals != (pes > 1 ? pes : 0))
      bad++, fprintf(stderr, "rank %d: owner %d, %d arrivals (want %d)\n", me, cp->owner, cp->arrivals, pes > 1 ? pes : 0);
    for (int i = 0; i < N; ++i)
      if (cp->values[i] != me + i * 0.5) {
        bad++;
        fprintf(stderr, "rank %d: value %d is %g\n", me, i, cp->values[i]);
        break;
      }
    free(cp);
  } else if (strcmp(mode, "checkpoint") == 0) {
    struct chunk* cp = (struct chunk*)malloc(sizeof(struct chunk));
    cp->owner = me;
    cp->arrivals = 0;
    for (int i = 0; i < N; ++i) cp->values[i] = me * 2.0 + i;
    int idx = -1;
    AMPI_Register_pup(chunk_pup, &cp, &idx);
    char where[512];
    snprintf(where, sizeof where, "to_file=%s", argc > 2 ? argv[2] : "ampi_userstate_ckpt");
    MPI_Info hints;
    MPI_Info_create(&hints);
    MPI_Info_set(hints, "ampi_checkpoint", where);
    AMPI_Migrate(hints); /* a restarted run wakes up here */
    MPI_Info_free(&hints);
    if (cp->owner != me || cp->arrivals > 1)
      bad++, fprintf(stderr, "rank %d: owner %d, %d arrivals (want 0 or 1)\n", me, cp->owner, cp->arrivals);
    for (int i = 0; i < N; ++i)
      if (cp->values[i] != me * 2.0 + i) {
        bad++;
        fprintf(stderr, "rank %d: value %d is %g after the checkpoint\n", me, i, cp->values[i]);
        break;
      }
    int restored = cp->arrivals, all_restored = 0;
    MPI_Allreduce(&restored, &all_restored, 1, MPI_INT, MPI_MIN, MPI_COMM_WORLD);
    if (me == 0) printf("ampi_userstate: restored %d\n", all_restored);
    free(cp);
  } else {
    AMPI_Load_set_value(me == 0 ? 100.0 : 0.001);
    AMPI_Migrate(AMPI_INFO_LB_SYNC);
    const int pe = AMPI_My_pe();
    int* pes = (int*)malloc(sizeof(int) * (size_t)np);
    MPI_Allgather(&pe, 1, MPI_INT, pes, 1, MPI_INT, MPI_COMM_WORLD);
    for (int i = 1; i < np; ++i)
      if (pes[i] == pes[0]) bad++, fprintf(stderr, "rank %d shares PE %d with the heavy rank 0\n", i, pes[0]);
    free(pes);
  }
  int total = 0;
  MPI_Allreduce(&bad, &total, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
  if (me == 0 && total == 0 && strcmp(mode, "callbacks") == 0)
    printf("ampi_userstate: OK (%s, %d ranks, %d moves)\n", mode, np, moves);
  else if (me == 0 && total == 0) printf("ampi_userstate: OK (%s, %d ranks)\n", mode, np);
  if (me == 0 && total != 0) printf("ampi_userstate: FAILED (%d failed checks)\n", total);
  MPI_Finalize();
  return total == 0 ? 0 : 1;
}
