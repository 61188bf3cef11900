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

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  int me, np, bad = 0;
  MPI_Comm_rank(MPI_COMM_WORLD, &me);
  MPI_Comm_size(MPI_COMM_WORLD, &np);
  const char* mode = argc > 1 ? argv[1] : "pup";
  if (strcmp(mode, "pup") != 0 && strcmp(mode, "load") != 0 && strcmp(mode, "checkpoint") != 0) {
    if (me == 0) fprintf(stderr, "usage: ampi_userstate [pup|load|checkpoint DIR] [+p N +vp N ...] (not '%s')\n", mode);
    MPI_Finalize();
    return 2;
  }
  if (strcmp(mode, "pup") == 0) {
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
  if (me == 0 && total == 0) printf("ampi_userstate: OK (%s, %d ranks)\n", mode, np);
  if (me == 0 && total != 0) printf("ampi_userstate: FAILED (%d failed checks)\n", total);
  MPI_Finalize();
  return total == 0 ? 0 : 1;
}
