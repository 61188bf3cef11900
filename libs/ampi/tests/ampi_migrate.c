/* ampi_migrate: MPI ranks that move while they compute and communicate.
 *   ampi_migrate hop [STEPS=12]      every rank hops to the next PE each step
 *                                    (AMPI_Migrate_to_pe) while its
 *                                    neighbours' messages are in flight
 *   ampi_migrate balance [STEPS=8]   skewed work and AMPI_Migrate every
 *                                    other step: the balancer moves ranks
 *   ampi_migrate checkpoint DIR|memory [KILLFILE]
 *                                    the hops, with a checkpoint through
 *                                    AMPI_Migrate half-way (to_file=DIR or
 *                                    in_memory); `+restart DIR` goes on from
 *                                    there on any PE count. With KILLFILE
 *                                    (absent), the last process creates it
 *                                    and kills itself (SIGKILL) after the
 *                                    checkpoint: under roamrun --ft the
 *                                    survivors roll back to it and finish.
 *   ampi_migrate lent TO_PE         rank 0 sends rank 1 large messages; rank 1
 *                                    probes the first, moves to PE TO_PE
 *                                    with it still queued, then receives it
 *                                    and two more (a large message between
 *                                    PEs of a process lends the sender's
 *                                    buffer: a receiver that left the
 *                                    process must fetch the bytes)
 *   ampi_migrate pending            every rank but 0 starts an MPI_Ibcast, an
 *                                    MPI_Iallreduce and an MPI_Iallgather that
 *                                    cannot finish yet (rank 0 joins once all
 *                                    have moved to the next PE twice), then
 *                                    waits for them
 *   ampi_migrate hopbalance [STEPS=20] odd ranks hop to the next PE, then
 *                                    every rank calls AMPI_Migrate with the
 *                                    balancer at once (moves still in
 *                                    flight when the step starts)
 * Each rank keeps a linked list on its heap (malloc), pointers to its own
 * stack frames and a half-finished recursion across every move, and checks
 * them and every message exactly. Rank 0 prints
 * "ampi_migrate: OK (<mode>, N ranks, M moves)". */
#include <mpi.h>
#include <signal.h>
#include <stdio.h>
#include <unistd.h>
#include <stdlib.h>
#include <string.h>

struct node {
  struct node* next;
  long value;
};

struct state {
  int me, np, steps, moves, bad;
  int balance;
  struct node* list;
  const char* checkpoint; /* DIR, "memory" or NULL */
  const char* killfile;
};

static void check(struct state* s, int ok, const char* what, long got) {
  if (!ok) {
    fprintf(stderr, "ampi_migrate: rank %d: FAILED %s (%ld)\n", s->me, what, got);
    s->bad++;
  }
}

static void spin(long units) {
  volatile double x = 0;
  for (long i = 0; i < units * 20000; ++i) x = x + 1e-9 * (double)i;
}

/* One step: a halo exchange with both neighbours (the values name sender
 * and step), a move in the middle, then the checks. */
static void step(struct state* s, int k) {
  int right = (s->me + 1) % s->np, left = (s->me - 1 + s->np) % s->np;
  long out[2] = {s->me * 1000L + k, -(s->me * 1000L + k)}, from_left = -1, from_right = -1;
  MPI_Request r[4];
  MPI_Irecv(&from_left, 1, MPI_LONG, left, 100 + k % 3, MPI_COMM_WORLD, &r[0]);
  MPI_Irecv(&from_right, 1, MPI_LONG, right, 200 + k % 3, MPI_COMM_WORLD, &r[1]);
  MPI_Isend(&out[0], 1, MPI_LONG, right, 100 + k % 3, MPI_COMM_WORLD, &r[2]);
  MPI_Isend(&out[1], 1, MPI_LONG, left, 200 + k % 3, MPI_COMM_WORLD, &r[3]);
  int before = AMPI_My_pe();
  if (!s->balance) {
    AMPI_Migrate_to_pe((before + 1) % AMPI_Num_pes());
    if (AMPI_Num_pes() > 1) check(s, AMPI_My_pe() == (before + 1) % AMPI_Num_pes(), "woke on the wrong PE", AMPI_My_pe());
  } else {
    spin(s->me % 4 == 0 ? 8 : 1);
    if (k % 2 == 1) AMPI_Migrate(AMPI_INFO_LB_SYNC);
  }
  if (AMPI_My_pe() != before) s->moves++;
  MPI_Waitall(4, r, MPI_STATUSES_IGNORE);
  check(s, from_left == left * 1000L + k, "value from the left", from_left);
  check(s, from_right == -(right * 1000L + k), "value from the right", from_right);
  if (s->checkpoint && k == s->steps / 2) {
    char value[512];
    if (strcmp(s->checkpoint, "memory") == 0) snprintf(value, sizeof value, "in_memory");
    else snprintf(value, sizeof value, "to_file=%s", s->checkpoint);
    MPI_Info info;
    MPI_Info_create(&info);
    MPI_Info_set(info, "ampi_checkpoint", value);
    if (AMPI_Migrate(info) != MPI_SUCCESS) s->bad++;
    MPI_Info_free(&info);
    if (s->killfile && AMPI_Num_nodes() > 1 && AMPI_My_node() == AMPI_Num_nodes() - 1 && access(s->killfile, F_OK) != 0) {
      FILE* f = fopen(s->killfile, "w");
      if (f) fclose(f);
      raise(SIGKILL); /* no goodbye: the others find out */
    }
  }
  struct node* n = malloc(sizeof *n);
  n->value = k;
  n->next = s->list;
  s->list = n;
}

/* Recursion to depth d, a step at each level on the way down: the frames
 * above hold pointers into each other while the rank moves. */
static long recurse(struct state* s, int d, const long* parent) {
  long local = d * 7L + 3;
  const long* mine = &local;
  if (d < s->steps) {
    step(s, d);
    local += recurse(s, d + 1, mine);
  }
  if (*mine < d * 7L + 3 || (parent && *parent < (d - 1) * 7L + 3)) s->bad++;
  return local;
}

static int lent_after_move(struct state* s, int to_pe) {
  enum { N = 50000 }; /* 400 KB of doubles */
  double* buf = malloc(sizeof(double) * N);
  int bad = 0;
  for (int round = 0; round < 3; ++round) {
    if (s->me == 0) {
      for (int i = 0; i < N; ++i) buf[i] = round * 1e6 + i;
      MPI_Send(buf, N, MPI_DOUBLE, 1, round, MPI_COMM_WORLD);
    } else if (s->me == 1) {
      MPI_Status st;
      int count = -1;
      if (round == 0) {
        MPI_Probe(0, 0, MPI_COMM_WORLD, &st);
        AMPI_Migrate_to_pe(to_pe);
        s->moves++;
      }
      MPI_Recv(buf, N, MPI_DOUBLE, 0, round, MPI_COMM_WORLD, &st);
      MPI_Get_count(&st, MPI_DOUBLE, &count);
      check(s, count == N, "the large message's count", count);
      int wrong = 0;
      for (int i = 0; i < N; ++i) wrong += buf[i] != round * 1e6 + i;
      check(s, wrong == 0, "wrong values in a large message", wrong);
      check(s, AMPI_My_pe() == to_pe, "the PE after the move", AMPI_My_pe());
    }
  }
  free(buf);
  int moves = 0;
  MPI_Allreduce(&s->bad, &bad, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
  MPI_Reduce(&s->moves, &moves, 1, MPI_INT, MPI_SUM, 0, MPI_COMM_WORLD);
  if (s->me == 0 && bad == 0) printf("ampi_migrate: OK (lent, %d ranks, %d moves)\n", s->np, moves);
  if (s->me == 0 && bad != 0) printf("ampi_migrate: FAILED (%d failed checks)\n", bad);
  MPI_Finalize();
  return bad == 0 ? 0 : 1;
}

/* Non-blocking collectives run on threads of their own, held by the rank:
 * they move with it while blocked. */
static int pending_across_moves(struct state* s) {
  int value = s->me == 0 ? 4321 : -1, one = 1, sum = 0, bad = 0;
  if (s->np > 64) {
    if (s->me == 0) fprintf(stderr, "ampi_migrate pending: at most 64 ranks\n");
    MPI_Finalize();
    return 2;
  }
  int blocks[64], mine = s->me * 3;
  for (int i = 0; i < 64; ++i) blocks[i] = -1;
  MPI_Request rq[3];
  if (s->me != 0) {
    MPI_Ibcast(&value, 1, MPI_INT, 0, MPI_COMM_WORLD, &rq[0]);
    MPI_Iallreduce(&one, &sum, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD, &rq[1]);
    MPI_Iallgather(&mine, 1, MPI_INT, blocks, 1, MPI_INT, MPI_COMM_WORLD, &rq[2]); /* np <= 64 */
    for (int hop = 0; hop < 2; ++hop) {
      AMPI_Migrate_to_pe((AMPI_My_pe() + 1) % AMPI_Num_pes());
      s->moves++;
    }
    MPI_Send(&s->moves, 1, MPI_INT, 0, 77, MPI_COMM_WORLD);
  } else {
    /* only once every other rank has moved with its collectives pending */
    for (int i = 1; i < s->np; ++i) MPI_Recv(&bad, 1, MPI_INT, i, 77, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    bad = 0;
    MPI_Ibcast(&value, 1, MPI_INT, 0, MPI_COMM_WORLD, &rq[0]);
    MPI_Iallreduce(&one, &sum, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD, &rq[1]);
    MPI_Iallgather(&mine, 1, MPI_INT, blocks, 1, MPI_INT, MPI_COMM_WORLD, &rq[2]); /* np <= 64 */
  }
  MPI_Waitall(3, rq, MPI_STATUSES_IGNORE);
  check(s, value == 4321, "the broadcast value", value);
  check(s, sum == s->np, "the allreduce", sum);
  for (int i = 0; i < s->np && i < 64; ++i) check(s, blocks[i] == 3 * i, "the allgather", blocks[i]);
  int moves = 0;
  MPI_Allreduce(&s->bad, &bad, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
  MPI_Reduce(&s->moves, &moves, 1, MPI_INT, MPI_SUM, 0, MPI_COMM_WORLD);
  if (s->me == 0 && bad == 0) printf("ampi_migrate: OK (pending, %d ranks, %d moves)\n", s->np, moves);
  if (s->me == 0 && bad != 0) printf("ampi_migrate: FAILED (%d failed checks)\n", bad);
  MPI_Finalize();
  return bad == 0 ? 0 : 1;
}

/* A balancing step that starts while some ranks are still moving. */
static int hop_then_balance(struct state* s, int steps) {
  int moves = 0;
  for (int k = 0; k < steps; ++k) {
    int before = AMPI_My_pe();
    if (s->me % 2) AMPI_Migrate_to_pe((before + 1) % AMPI_Num_pes());
    if (AMPI_My_pe() != before) moves++;
    AMPI_Migrate(AMPI_INFO_LB_SYNC);
  }
  int all = 0;
  MPI_Reduce(&moves, &all, 1, MPI_INT, MPI_SUM, 0, MPI_COMM_WORLD);
  if (s->me == 0) printf("ampi_migrate: OK (hopbalance, %d ranks, %d hops)\n", s->np, all);
  MPI_Finalize();
  return 0;
}

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  struct state st = {0, 0, 12, 0, 0, 0, NULL, NULL, NULL};
  MPI_Comm_rank(MPI_COMM_WORLD, &st.me);
  MPI_Comm_size(MPI_COMM_WORLD, &st.np);
  const char* mode = argc > 1 ? argv[1] : "hop";
  if (strcmp(mode, "lent") == 0) return lent_after_move(&st, argc > 2 ? atoi(argv[2]) : 0);
  if (strcmp(mode, "pending") == 0) return pending_across_moves(&st);
  if (strcmp(mode, "hopbalance") == 0) return hop_then_balance(&st, argc > 2 ? atoi(argv[2]) : 20);
  st.balance = strcmp(mode, "balance") == 0;
  if (st.balance) st.steps = 8;
  if (strcmp(mode, "checkpoint") == 0) {
    st.checkpoint = argc > 2 ? argv[2] : "ampi_ckpt";
    st.killfile = argc > 3 ? argv[3] : NULL;
  } else if (argc > 2) {
    st.steps = atoi(argv[2]);
  }
  long r = recurse(&st, 0, NULL);
  long want = 0;
  for (int d = st.steps; d >= 0; --d) want = d * 7L + 3 + (d < st.steps ? want : 0);
  check(&st, r == want, "the recursion's result", r);
  long listed = 0, count = 0;
  while (st.list) {
    struct node* n = st.list;
    listed += n->value;
    count++;
    st.list = n->next;
    free(n);
  }
  check(&st, count == st.steps && listed == (long)st.steps * (st.steps - 1) / 2, "the heap's list", listed);
  int bad = 0, moves = 0;
  MPI_Allreduce(&st.bad, &bad, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
  MPI_Reduce(&st.moves, &moves, 1, MPI_INT, MPI_SUM, 0, MPI_COMM_WORLD);
  if (st.me == 0 && bad == 0) printf("ampi_migrate: OK (%s, %d ranks, %d moves)\n", mode, st.np, moves);
  if (st.me == 0 && bad != 0) printf("ampi_migrate: FAILED (%d failed checks)\n", bad);
  MPI_Finalize();
  return bad == 0 ? 0 : 1;
}
