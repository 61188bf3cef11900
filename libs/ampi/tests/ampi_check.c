/* ampi_check: an MPI program (plain C, standard MPI only) that checks
 * Adaptive MPI's answers exactly, on any number of ranks:
 *   ampi_check [p2p|coll|types|comms|topo|nbc|rma|inter|all] [+vp N +p P ...]
 * Each rank checks what it received; rank 0 prints
 * "ampi_check: OK (<what>, N ranks)" when every rank agreed, and the program
 * returns nonzero otherwise. */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define CHECK_PROGRAM "ampi_check"
#include "check.h"

/* ---- point to point ---------------------------------------------------- */
static void check_p2p(struct ctx* c) {
  int right = (me + 1) % np, left = (me - 1 + np) % np;
  /* a ring with Sendrecv */
  int out = me * 10, in = -1;
  MPI_Status st;
  MPI_Sendrecv(&out, 1, MPI_INT, right, 7, &in, 1, MPI_INT, left, 7, MPI_COMM_WORLD, &st);
  CHECK(in == left * 10, "sendrecv got %d", in);
  CHECK(st.MPI_SOURCE == left && st.MPI_TAG == 7, "status %d/%d", st.MPI_SOURCE, st.MPI_TAG);
  int count = -1;
  MPI_Get_count(&st, MPI_INT, &count);
  CHECK(count == 1, "count %d", count);

  /* MPI's order: 50 messages with one tag from each rank to rank 0, and
   * messages with other tags received out of order by tag. */
  enum { K = 50 };
  if (me != 0) {
    for (int i = 0; i < K; ++i) {
      int v = me * 1000 + i;
      MPI_Send(&v, 1, MPI_INT, 0, 3, MPI_COMM_WORLD);
    }
    double d = me + 0.5;
    MPI_Send(&d, 1, MPI_DOUBLE, 0, 4, MPI_COMM_WORLD);
    int w = -me;
    MPI_Ssend(&w, 1, MPI_INT, 0, 5, MPI_COMM_WORLD);
  } else {
    int* next = calloc((size_t)np, sizeof(int));
    for (int i = 0; i < K * (np - 1); ++i) {
      int v;
      MPI_Recv(&v, 1, MPI_INT, MPI_ANY_SOURCE, 3, MPI_COMM_WORLD, &st);
      int src = st.MPI_SOURCE;
      CHECK(v == src * 1000 + next[src], "from %d got %d, expected %d", src, v, src * 1000 + next[src]);
      next[src]++;
    }
    for (int r = np - 1; r >= 1; --r) { /* tag 5 first, from the highest rank down */
      int w;
      MPI_Recv(&w, 1, MPI_INT, r, 5, MPI_COMM_WORLD, &st);
      CHECK(w == -r, "ssend value %d from %d", w, r);
      double d;
      MPI_Recv(&d, 1, MPI_DOUBLE, r, MPI_ANY_TAG, MPI_COMM_WORLD, &st);
      CHECK(d == r + 0.5 && st.MPI_TAG == 4, "double %g tag %d", d, st.MPI_TAG);
    }
    free(next);
  }

  /* non-blocking: every rank sends to every other, receives posted first
   * for half, Waitall; then Waitany over a fresh set. */
  int* sendv = malloc(sizeof(int) * (size_t)np);
  int* recvv = malloc(sizeof(int) * (size_t)np);
  MPI_Request* reqs = malloc(sizeof(MPI_Request) * 2 * (size_t)np);
  for (int i = 0; i < np; ++i) {
    sendv[i] = me * np + i;
    recvv[i] = -1;
  }
  int n = 0;
  for (int i = 0; i < np; ++i) MPI_Irecv(&recvv[i], 1, MPI_INT, i, 11, MPI_COMM_WORLD, &reqs[n++]);
  for (int i = 0; i < np; ++i) MPI_Isend(&sendv[i], 1, MPI_INT, i, 11, MPI_COMM_WORLD, &reqs[n++]);
  MPI_Status* sts = malloc(sizeof(MPI_Status) * 2 * (size_t)np);
  MPI_Waitall(n, reqs, sts);
  for (int i = 0; i < np; ++i) {
    CHECK(recvv[i] == i * np + me, "alltoall by hand: from %d got %d", i, recvv[i]);
    CHECK(sts[i].MPI_SOURCE == i, "status source %d", sts[i].MPI_SOURCE);
    CHECK(reqs[i] == MPI_REQUEST_NULL, "request not freed");
  }
  for (int i = 0; i < np; ++i) MPI_Irecv(&recvv[i], 1, MPI_INT, MPI_ANY_SOURCE, 12, MPI_COMM_WORLD, &reqs[i]);
  for (int i = 0; i < np; ++i) MPI_Send(&sendv[i], 1, MPI_INT, i, 12, MPI_COMM_WORLD);
  long seen = 0;
  for (int k = 0; k < np; ++k) {
    int idx = -1;
    MPI_Waitany(np, reqs, &idx, &st);
    CHECK(idx >= 0 && idx < np, "waitany index %d", idx);
    if (idx >= 0 && idx < np) seen += recvv[idx] - st.MPI_SOURCE * np;
  }
  CHECK(seen == (long)me * np, "waitany values sum %ld", seen);
  int idx = 0;
  MPI_Waitany(np, reqs, &idx, &st);
  CHECK(idx == MPI_UNDEFINED, "waitany on nothing gave %d", idx);

  /* Test until done; Iprobe then Recv; Probe and Get_count on a longer one */
  if (np > 1) {
    int token = me + 100, got = -1, flag = 0;
    MPI_Request r;
    MPI_Irecv(&got, 1, MPI_INT, left, 13, MPI_COMM_WORLD, &r);
    MPI_Send(&token, 1, MPI_INT, right, 13, MPI_COMM_WORLD);
    while (!flag) MPI_Test(&r, &flag, &st);
    CHECK(got == left + 100, "test got %d", got);
    int arr[17];
    for (int i = 0; i < 17; ++i) arr[i] = me + i;
    MPI_Send(arr, 17, MPI_INT, right, 14, MPI_COMM_WORLD);
    flag = 0;
    while (!flag) MPI_Iprobe(MPI_ANY_SOURCE, 14, MPI_COMM_WORLD, &flag, &st);
    MPI_Get_count(&st, MPI_INT, &count);
    CHECK(count == 17 && st.MPI_SOURCE == left, "iprobe count %d source %d", count, st.MPI_SOURCE);
    int back[17];
    MPI_Recv(back, 17, MPI_INT, st.MPI_SOURCE, 14, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    CHECK(back[16] == left + 16, "array %d", back[16]);
    /* truncation is an error the program can see */
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    MPI_Send(arr, 17, MPI_INT, right, 15, MPI_COMM_WORLD);
    int small[4];
    int rc = MPI_Recv(small, 4, MPI_INT, left, 15, MPI_COMM_WORLD, &st);
    int cls = -1;
    MPI_Error_class(rc, &cls);
    CHECK(cls == MPI_ERR_TRUNCATE && small[3] == left + 3, "truncation rc %d", rc);
    rc = MPI_Send(arr, 1, MPI_INT, np + 5, 0, MPI_COMM_WORLD);
    CHECK(rc == MPI_ERR_RANK, "bad rank rc %d", rc);
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_ARE_FATAL);
    /* cancel a receive that nothing matches */
    MPI_Irecv(&got, 1, MPI_INT, MPI_ANY_SOURCE, 999, MPI_COMM_WORLD, &r);
    MPI_Cancel(&r);
    MPI_Wait(&r, &st);
    MPI_Test_cancelled(&st, &flag);
    CHECK(flag == 1, "not cancelled");
    /* Mprobe / Mrecv */
    MPI_Send(&token, 1, MPI_INT, right, 16, MPI_COMM_WORLD);
    MPI_Message msg;
    MPI_Mprobe(left, 16, MPI_COMM_WORLD, &msg, &st);
    got = -1;
    MPI_Mrecv(&got, 1, MPI_INT, &msg, &st);
    CHECK(got == left + 100 && msg == MPI_MESSAGE_NULL, "mrecv got %d", got);
  }

  /* persistent requests, three rounds */
  {
    int sv = 0, rv = -1;
    MPI_Request pr[2];
    MPI_Recv_init(&rv, 1, MPI_INT, left, 20, MPI_COMM_WORLD, &pr[0]);
    MPI_Send_init(&sv, 1, MPI_INT, right, 20, MPI_COMM_WORLD, &pr[1]);
    for (int round = 0; round < 3; ++round) {
      sv = me * 100 + round;
      MPI_Startall(2, pr);
      MPI_Waitall(2, pr, MPI_STATUSES_IGNORE);
      CHECK(rv == left * 100 + round, "persistent round %d got %d", round, rv);
    }
    MPI_Request_free(&pr[0]);
    MPI_Request_free(&pr[1]);
  }
  /* MPI_PROC_NULL */
  MPI_Recv(&in, 1, MPI_INT, MPI_PROC_NULL, 0, MPI_COMM_WORLD, &st);
  CHECK(st.MPI_SOURCE == MPI_PROC_NULL, "proc null source %d", st.MPI_SOURCE);
  MPI_Send(&in, 1, MPI_INT, MPI_PROC_NULL, 0, MPI_COMM_WORLD);
  free(sendv);
  free(recvv);
  free(reqs);
  free(sts);

  /* Large messages (lent between PEs of a process: the receiver copies from
   * the blocked sender's buffer). A ring with Sendrecv; then pairs where
   * the receive comes late (the message waits, probed first), into a
   * strided type, truncated, and with MPI_Ssend. */
  {
    enum { N = 40000 }; /* 320 KB of doubles */
    double* big = malloc(sizeof(double) * N);
    double* got = malloc(sizeof(double) * 2 * N);
    for (int i = 0; i < N; ++i) big[i] = me * 1e6 + i;
    MPI_Sendrecv(big, N, MPI_DOUBLE, right, 30, got, N, MPI_DOUBLE, left, 30, MPI_COMM_WORLD, &st);
    int bad = 0;
    for (int i = 0; i < N; ++i) bad += got[i] != left * 1e6 + i;
    CHECK(bad == 0, "large sendrecv: %d wrong values", bad);
    MPI_Get_count(&st, MPI_DOUBLE, &count);
    CHECK(count == N, "large sendrecv count %d", count);
    /* rank i and i + half: on different PEs when ranks are spread in blocks */
    const int half = np / 2, partner = me < half ? me + half : me - half;
    if (me < 2 * half) {
      if (me < half) {
        MPI_Send(big, N, MPI_DOUBLE, partner, 31, MPI_COMM_WORLD);
        MPI_Send(big, N, MPI_DOUBLE, partner, 32, MPI_COMM_WORLD);
        MPI_Ssend(big, N, MPI_DOUBLE, partner, 33, MPI_COMM_WORLD);
        MPI_Send(big, N, MPI_DOUBLE, partner, 34, MPI_COMM_WORLD);
      } else {
        MPI_Probe(partner, 31, MPI_COMM_WORLD, &st);
        MPI_Get_count(&st, MPI_DOUBLE, &count);
        CHECK(count == N, "probed large count %d", count);
        MPI_Recv(got, N, MPI_DOUBLE, partner, 31, MPI_COMM_WORLD, &st);
        bad = 0;
        for (int i = 0; i < N; ++i) bad += got[i] != partner * 1e6 + i;
        CHECK(bad == 0, "late large receive: %d wrong values", bad);
        /* every other double of a 2N array */
        MPI_Datatype every_other;
        MPI_Type_vector(N, 1, 2, MPI_DOUBLE, &every_other);
        MPI_Type_commit(&every_other);
        for (int i = 0; i < 2 * N; ++i) got[i] = -1;
        MPI_Recv(got, 1, every_other, partner, 32, MPI_COMM_WORLD, &st);
        bad = 0;
        for (int i = 0; i < N; ++i) bad += got[2 * i] != partner * 1e6 + i || got[2 * i + 1] != -1;
        CHECK(bad == 0, "large strided receive: %d wrong values", bad);
        MPI_Type_free(&every_other);
        MPI_Recv(got, N, MPI_DOUBLE, partner, 33, MPI_COMM_WORLD, &st);
        CHECK(got[N - 1] == partner * 1e6 + N - 1, "large ssend %g", got[N - 1]);
        MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
        int e = MPI_Recv(got, N / 2, MPI_DOUBLE, partner, 34, MPI_COMM_WORLD, &st);
        int cls = -1;
        MPI_Error_class(e, &cls);
        CHECK(cls == MPI_ERR_TRUNCATE, "large truncated receive: error class %d", cls);
        CHECK(got[N / 2 - 1] == partner * 1e6 + N / 2 - 1, "large truncated receive kept %g", got[N / 2 - 1]);
        MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_ARE_FATAL);
      }
    }
    free(big);
    free(got);
  }
}

/* ---- collectives ------------------------------------------------------- */
static void my_prod(void* in, void* inout, int* len, MPI_Datatype* dt) {
  (void)dt;
  /* 2x2 matrix product, not commutative: inout = in * inout */
  double* a = in;
  double* b = inout;
  for (int i = 0; i < *len; ++i, a += 4, b += 4) {
    double c[4] = {a[0] * b[0] + a[1] * b[2], a[0] * b[1] + a[1] * b[3], a[2] * b[0] + a[3] * b[2],
                   a[2] * b[1] + a[3] * b[3]};
    memcpy(b, c, sizeof c);
  }
}

static void check_coll(struct ctx* c) {
  MPI_Barrier(MPI_COMM_WORLD);
  for (int root = 0; root < np; root += (np > 3 ? np / 3 : 1)) {
    int v[3] = {0, 0, 0};
    if (me == root) v[0] = 42, v[1] = root, v[2] = -1;
    MPI_Bcast(v, 3, MPI_INT, root, MPI_COMM_WORLD);
    CHECK(v[0] == 42 && v[1] == root && v[2] == -1, "bcast from %d", root);
    long s = me + 1, total = 0;
    MPI_Reduce(&s, &total, 1, MPI_LONG, MPI_SUM, root, MPI_COMM_WORLD);
    if (me == root) CHECK(total == (long)np * (np + 1) / 2, "reduce sum %ld", total);
  }
  double x[2] = {me, -me}, mx[2];
  MPI_Allreduce(x, mx, 2, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
  CHECK(mx[0] == np - 1 && mx[1] == 0, "allreduce max %g %g", mx[0], mx[1]);
  int bits = 1 << (me % 30), orred = 0;
  MPI_Allreduce(&bits, &orred, 1, MPI_INT, MPI_BOR, MPI_COMM_WORLD);
  int expect = 0;
  for (int i = 0; i < np; ++i) expect |= 1 << (i % 30);
  CHECK(orred == expect, "bor %x", orred);
  struct { double v; int i; } loc = {(double)((me + 3) % np), me}, best; /* a permutation: one maximum */
  MPI_Allreduce(&loc, &best, 1, MPI_DOUBLE_INT, MPI_MAXLOC, MPI_COMM_WORLD);
  CHECK(best.v == np - 1 && best.i == ((np - 4) % np + np) % np, "maxloc %g at %d", best.v, best.i);
  int inplace = me;
  MPI_Allreduce(MPI_IN_PLACE, &inplace, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
  CHECK(inplace == np * (np - 1) / 2, "in place %d", inplace);
  /* a non-commutative user op: the product of rank matrices in rank order */
  MPI_Op op;
  MPI_Op_create(my_prod, 0, &op);
  double m[4] = {1, (double)me, 0, 1}, prod[4];  /* [[1, r],[0, 1]]: the product is [[1, sum],[0,1]] ... */
  if (me % 2 == 1) m[2] = 0.5; /* ... made order-dependent */
  double ref[4] = {1, 0, 0, 1};
  for (int r = 0; r < np; ++r) {
    double mr[4] = {1, (double)r, r % 2 == 1 ? 0.5 : 0, 1};
    double c[4] = {ref[0] * mr[0] + ref[1] * mr[2], ref[0] * mr[1] + ref[1] * mr[3], ref[2] * mr[0] + ref[3] * mr[2],
                   ref[2] * mr[1] + ref[3] * mr[3]};
    memcpy(ref, c, sizeof c);
  }
    MPI_Datatype mat;
  MPI_Type_contiguous(4, MPI_DOUBLE, &mat);
  MPI_Type_commit(&mat);
  MPI_Allreduce(m, prod, 1, mat, op, MPI_COMM_WORLD);
  for (int i = 0; i < 4; ++i) CHECK(prod[i] == ref[i], "user op [%d] %g != %g", i, prod[i], ref[i]);
  MPI_Type_free(&mat);
  MPI_Op_free(&op);

  /* reductions of every rank (combined per PE by the runtime): large, empty,
   * on a copy of the world, MINLOC to a root, an op that does not apply
   * (reported), and a non-blocking one in flight meanwhile */
  {
    enum { L = 20000 };
    double* lv = malloc(sizeof(double) * L);
    double* ls = malloc(sizeof(double) * L);
    for (int i = 0; i < L; ++i) lv[i] = i + me;
    MPI_Request ireq;
    int ia = me, ib = -1;
    MPI_Iallreduce(&ia, &ib, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD, &ireq);
    MPI_Comm world2;
    MPI_Comm_dup(MPI_COMM_WORLD, &world2);
    MPI_Allreduce(lv, ls, L, MPI_DOUBLE, MPI_SUM, world2);
    int bad = 0;
    for (int i = 0; i < L; ++i) bad += ls[i] != (double)i * np + np * (np - 1) / 2.0;
    CHECK(bad == 0, "large allreduce: %d wrong sums", bad);
    MPI_Allreduce(lv, ls, 0, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
    struct { int v; int i; } mloc = {(me * 7) % np, me}, low = {-1, -1};
    const int root = np - 1;
    MPI_Reduce(&mloc, &low, 1, MPI_2INT, MPI_MINLOC, root, world2);
    if (me == root) CHECK(low.v == 0 && low.i == 0, "minloc to root: %d at %d", low.v, low.i);
    MPI_Barrier(world2);
    MPI_Comm_set_errhandler(world2, MPI_ERRORS_RETURN);
    double cd = 1, cr = 0;
    int e = MPI_Allreduce(&cd, &cr, 1, MPI_DOUBLE, MPI_BXOR, world2);
    int cls = -1;
    MPI_Error_class(e, &cls);
    CHECK(cls == MPI_ERR_OP, "bxor on double: error class %d", cls);
    MPI_Wait(&ireq, MPI_STATUS_IGNORE);
    CHECK(ib == np - 1, "iallreduce during blocking ones: %d", ib);
    MPI_Comm_free(&world2);
    free(lv);
    free(ls);
  }

  int* all = malloc(sizeof(int) * (size_t)np * 2);
  int* counts = malloc(sizeof(int) * (size_t)np);
  int* displs = malloc(sizeof(int) * (size_t)np);
  int pair[2] = {me, me * me};
  MPI_Gather(pair, 2, MPI_INT, all, 2, MPI_INT, np - 1, MPI_COMM_WORLD);
  if (me == np - 1)
    for (int i = 0; i < np; ++i) CHECK(all[2 * i] == i && all[2 * i + 1] == i * i, "gather %d", i);
  MPI_Allgather(pair, 2, MPI_INT, all, 2, MPI_INT, MPI_COMM_WORLD);
  for (int i = 0; i < np; ++i) CHECK(all[2 * i] == i && all[2 * i + 1] == i * i, "allgather %d", i);
  /* varying counts: rank i gives i % 3 values */
  int total = 0;
  for (int i = 0; i < np; ++i) counts[i] = i % 3, displs[i] = total, total += counts[i];
  int mine[2] = {me * 5, me * 5 + 1};
  int* gv = malloc(sizeof(int) * (size_t)(total + 1));
  MPI_Allgatherv(mine, me % 3, MPI_INT, gv, counts, displs, MPI_INT, MPI_COMM_WORLD);
  for (int i = 0; i < np; ++i)
    for (int k = 0; k < counts[i]; ++k) CHECK(gv[displs[i] + k] == i * 5 + k, "allgatherv %d.%d", i, k);
  int sc[2] = {-1, -1};
  MPI_Scatterv(gv, counts, displs, MPI_INT, sc, me % 3, MPI_INT, 0, MPI_COMM_WORLD);
  for (int k = 0; k < me % 3; ++k) CHECK(sc[k] == me * 5 + k, "scatterv %d", k);
  int one = -1;
  for (int i = 0; i < np; ++i) all[i] = 100 + i;
  MPI_Scatter(all, 1, MPI_INT, &one, 1, MPI_INT, 0, MPI_COMM_WORLD);
  CHECK(one == 100 + me, "scatter %d", one);
  int* a2a_s = malloc(sizeof(int) * (size_t)np);
  int* a2a_r = malloc(sizeof(int) * (size_t)np);
  for (int i = 0; i < np; ++i) a2a_s[i] = me * 1000 + i;
  MPI_Alltoall(a2a_s, 1, MPI_INT, a2a_r, 1, MPI_INT, MPI_COMM_WORLD);
  for (int i = 0; i < np; ++i) CHECK(a2a_r[i] == i * 1000 + me, "alltoall from %d: %d", i, a2a_r[i]);
  int incl = 0, excl = -7;
  int mv = me + 1;
  MPI_Scan(&mv, &incl, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
  CHECK(incl == (me + 1) * (me + 2) / 2, "scan %d", incl);
  MPI_Exscan(&mv, &excl, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
  if (me > 0) CHECK(excl == me * (me + 1) / 2, "exscan %d", excl);
  for (int i = 0; i < np; ++i) a2a_s[i] = i + me;
  int rs = -1;
  MPI_Reduce_scatter_block(a2a_s, &rs, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
  CHECK(rs == np * me + np * (np - 1) / 2, "reduce_scatter_block %d", rs);
  free(all);
  free(counts);
  free(displs);
  free(gv);
  free(a2a_s);
  free(a2a_r);
}

/* ---- datatypes ----------------------------------------------------------- */
/* MPI_Type_create_darray: a 4 x 6 int array, rows by blocks over 2
 * processes, columns cyclic(2) over 2, in C and Fortran order: the elements
 * each of the 4 grid ranks gets, in storage order, and the type's extent. */
static void check_darray(struct ctx* c) {
  int gsizes[2] = {4, 6}, distribs[2] = {MPI_DISTRIBUTE_BLOCK, MPI_DISTRIBUTE_CYCLIC};
  int dargs[2] = {MPI_DISTRIBUTE_DFLT_DARG, 2}, psizes[2] = {2, 2};
  int a[24], packed[24], want[24];
  for (int k = 0; k < 24; ++k) a[k] = k;
  for (int order = 0; order < 2; ++order) {
    for (int r = 0; r < 4; ++r) {
      MPI_Datatype t;
      MPI_Type_create_darray(4, r, 2, gsizes, distribs, dargs, psizes, order ? MPI_ORDER_FORTRAN : MPI_ORDER_C,
                             MPI_INT, &t);
      MPI_Type_commit(&t);
      int size = -1;
      MPI_Aint lb = -1, extent = -1;
      MPI_Type_size(t, &size);
      MPI_Type_get_extent(t, &lb, &extent);
      const int p0 = r / 2, p1 = r % 2;
      int rows[2] = {2 * p0, 2 * p0 + 1}, cols[4], ncols = 0;
      for (int j = 0; j < 6; ++j)
        if ((j / 2) % 2 == p1) cols[ncols++] = j;
      int n = 0;
      if (!order) {
        for (int i = 0; i < 2; ++i)
          for (int j = 0; j < ncols; ++j) want[n++] = rows[i] * 6 + cols[j];
      } else {
        for (int j = 0; j < ncols; ++j)
          for (int i = 0; i < 2; ++i) want[n++] = rows[i] + 4 * cols[j];
      }
      int position = 0;
      MPI_Pack(a, 1, t, packed, (int)sizeof packed, &position, MPI_COMM_SELF);
      CHECK(size == n * (int)sizeof(int) && lb == 0 && extent == 24 * (MPI_Aint)sizeof(int),
            "darray order %d rank %d: size %d lb %ld extent %ld", order, r, size, (long)lb, (long)extent);
      CHECK(position == n * (int)sizeof(int) && memcmp(packed, want, sizeof(int) * (size_t)n) == 0,
            "darray order %d rank %d: wrong elements (first %d, want %d)", order, r, packed[0], want[0]);
      MPI_Type_free(&t);
    }
  }
}

static void check_types(struct ctx* c) {
  if (np < 2) return;
  int right = (me + 1) % np, left = (me - 1 + np) % np;
  /* a column of a 6x5 matrix */
  double mat[6][5], col[6];
  for (int i = 0; i < 6; ++i)
    for (int j = 0; j < 5; ++j) mat[i][j] = me * 100 + i * 10 + j;
  MPI_Datatype column;
  MPI_Type_vector(6, 1, 5, MPI_DOUBLE, &column);
  MPI_Type_commit(&column);
  int size;
  MPI_Aint lb, extent;
  MPI_Type_size(column, &size);
  MPI_Type_get_extent(column, &lb, &extent);
  CHECK(size == 48 && lb == 0 && extent == (5 * 5 + 1) * 8, "vector size %d extent %ld", size, (long)extent);
  MPI_Sendrecv(&mat[0][2], 1, column, right, 1, col, 6, MPI_DOUBLE, left, 1, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
  for (int i = 0; i < 6; ++i) CHECK(col[i] == left * 100 + i * 10 + 2, "column %d: %g", i, col[i]);
  /* a struct with padding, two of them */
  struct item { char c; double d; int k; } items[2] = {{'a', me + 0.25, me}, {'b', me + 0.75, -me}}, got[2];
  int lens[3] = {1, 1, 1};
  MPI_Aint disps[3] = {offsetof(struct item, c), offsetof(struct item, d), offsetof(struct item, k)};
  MPI_Datatype types[3] = {MPI_CHAR, MPI_DOUBLE, MPI_INT}, st;
  MPI_Type_create_struct(3, lens, disps, types, &st);
  MPI_Type_commit(&st);
  MPI_Type_get_extent(st, &lb, &extent);
  CHECK(extent == sizeof(struct item), "struct extent %ld", (long)extent);
  memset(got, 0, sizeof got);
  MPI_Sendrecv(items, 2, st, right, 2, got, 2, st, left, 2, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
  CHECK(got[1].c == 'b' && got[1].d == left + 0.75 && got[1].k == -left, "struct %c %g %d", got[1].c, got[1].d, got[1].k);
  /* indexed and a subarray */
  int src[10], dst[10];
  for (int i = 0; i < 10; ++i) src[i] = me * 10 + i, dst[i] = -1;
  int bl[3] = {2, 1, 3}, dp[3] = {0, 4, 7};
  MPI_Datatype ix;
  MPI_Type_indexed(3, bl, dp, MPI_INT, &ix);
  MPI_Type_commit(&ix);
  MPI_Sendrecv(src, 1, ix, right, 3, dst, 1, ix, left, 3, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
  int want[10] = {0, 1, -1, -1, 4, -1, -1, 7, 8, 9};
  for (int i = 0; i < 10; ++i) CHECK(dst[i] == (want[i] < 0 ? -1 : left * 10 + want[i]), "indexed [%d] %d", i, dst[i]);
  int sizes[2] = {4, 6}, subs[2] = {2, 3}, starts[2] = {1, 2};
  MPI_Datatype sa;
  MPI_Type_create_subarray(2, sizes, subs, starts, MPI_ORDER_C, MPI_INT, &sa);
  MPI_Type_commit(&sa);
  int grid[4][6], flat[6];
  for (int i = 0; i < 4; ++i)
    for (int j = 0; j < 6; ++j) grid[i][j] = i * 6 + j;
  MPI_Sendrecv(grid, 1, sa, me, 4, flat, 6, MPI_INT, me, 4, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
  int want_sa[6] = {8, 9, 10, 14, 15, 16};
  for (int i = 0; i < 6; ++i) CHECK(flat[i] == want_sa[i], "subarray [%d] %d", i, flat[i]);
  /* Pack / Unpack */
  char packbuf[256];
  int pos = 0, n = 3, back_n = 0;
  double three[3] = {1.5, 2.5, 3.5}, back[3];
  MPI_Pack(&n, 1, MPI_INT, packbuf, sizeof packbuf, &pos, MPI_COMM_WORLD);
  MPI_Pack(three, 3, MPI_DOUBLE, packbuf, sizeof packbuf, &pos, MPI_COMM_WORLD);
  MPI_Send(packbuf, pos, MPI_PACKED, right, 5, MPI_COMM_WORLD);
  MPI_Recv(packbuf, sizeof packbuf, MPI_PACKED, left, 5, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
  pos = 0;
  MPI_Unpack(packbuf, sizeof packbuf, &pos, &back_n, 1, MPI_INT, MPI_COMM_WORLD);
  MPI_Unpack(packbuf, sizeof packbuf, &pos, back, back_n, MPI_DOUBLE, MPI_COMM_WORLD);
  CHECK(back_n == 3 && back[2] == 3.5, "unpack %d %g", back_n, back[2]);
  MPI_Type_free(&column);
  MPI_Type_free(&st);
  MPI_Type_free(&ix);
  MPI_Type_free(&sa);
  /* a type freed while a receive and a non-blocking gather still use it */
  {
    MPI_Datatype pairs, every_other;
    MPI_Type_vector(2, 1, 2, MPI_INT, &every_other);
    MPI_Type_commit(&every_other);
    MPI_Type_contiguous(2, MPI_INT, &pairs);
    MPI_Type_commit(&pairs);
    int got[4] = {-1, -1, -1, -1}, mine[2] = {me, me * 3};
    int* gathered = malloc(sizeof(int) * 2 * (size_t)np);
    MPI_Request rq[2];
    MPI_Irecv(got, 1, every_other, left, 40, MPI_COMM_WORLD, &rq[0]);
    MPI_Igather(mine, 1, pairs, gathered, 1, pairs, 0, MPI_COMM_WORLD, &rq[1]);
    MPI_Type_free(&every_other);
    MPI_Type_free(&pairs);
    CHECK(every_other == MPI_DATATYPE_NULL && pairs == MPI_DATATYPE_NULL, "freed handles %d %d", every_other, pairs);
    MPI_Send(mine, 2, MPI_INT, right, 40, MPI_COMM_WORLD);
    MPI_Waitall(2, rq, MPI_STATUSES_IGNORE);
    CHECK(got[0] == left && got[1] == -1 && got[2] == left * 3 && got[3] == -1, "receive into a freed type %d %d %d %d",
          got[0], got[1], got[2], got[3]);
    if (me == 0)
      for (int i = 0; i < np; ++i) CHECK(gathered[2 * i] == i && gathered[2 * i + 1] == 3 * i, "igather with a freed type %d", i);
    free(gathered);
  }
}

/* MPI_Type_get_envelope / get_contents of every constructor (a derived
 * constituent comes back as a new type, even after the program freed the
 * original); MPI-1's MPI_LB / MPI_UB markers, which win over the data's
 * bounds in the types built from them; MPI_Get_elements of partial
 * receives and of pair types; MPI_Status_set_elements. */
static void check_type_decoding(struct ctx* c) {
  int ni, na, nt, comb;
  MPI_Type_get_envelope(MPI_DOUBLE, &ni, &na, &nt, &comb);
  CHECK(comb == MPI_COMBINER_NAMED && ni == 0 && na == 0 && nt == 0, "envelope of MPI_DOUBLE %d", comb);
  MPI_Datatype vec, hv, st, rs, sub, dup;
  MPI_Type_vector(3, 2, 5, MPI_INT, &vec);
  MPI_Type_create_hvector(4, 1, 24, vec, &hv);
  MPI_Type_get_envelope(vec, &ni, &na, &nt, &comb);
  CHECK(comb == MPI_COMBINER_VECTOR && ni == 3 && na == 0 && nt == 1, "vector envelope %d %d %d %d", comb, ni, na, nt);
  int ints[16];
  MPI_Aint aints[8];
  MPI_Datatype parts[4];
  MPI_Type_get_contents(vec, 16, 8, 4, ints, aints, parts);
  CHECK(ints[0] == 3 && ints[1] == 2 && ints[2] == 5 && parts[0] == MPI_INT, "vector contents %d %d %d", ints[0], ints[1],
        ints[2]);
  MPI_Type_free(&vec); /* hv keeps it: get_contents still gives it back */
  MPI_Type_get_contents(hv, 16, 8, 4, ints, aints, parts);
  CHECK(ints[0] == 4 && ints[1] == 1 && aints[0] == 24, "hvector contents %d %d %ld", ints[0], ints[1], (long)aints[0]);
  MPI_Type_get_envelope(parts[0], &ni, &na, &nt, &comb);
  CHECK(comb == MPI_COMBINER_VECTOR && ni == 3, "the freed vector from hvector's contents: combiner %d", comb);
  int size = 0;
  MPI_Type_size(parts[0], &size);
  CHECK(size == 6 * (int)sizeof(int), "its size %d", size);
  MPI_Type_free(&parts[0]);
  int lens[3] = {1, 2, 1};
  MPI_Aint disps[3] = {0, 8, 40};
  MPI_Datatype members[3] = {MPI_INT, MPI_DOUBLE, hv};
  MPI_Type_create_struct(3, lens, disps, members, &st);
  MPI_Type_get_envelope(st, &ni, &na, &nt, &comb);
  CHECK(comb == MPI_COMBINER_STRUCT && ni == 4 && na == 3 && nt == 3, "struct envelope %d %d %d %d", comb, ni, na, nt);
  MPI_Type_get_contents(st, 16, 8, 4, ints, aints, parts);
  CHECK(ints[0] == 3 && ints[2] == 2 && aints[2] == 40 && parts[0] == MPI_INT && parts[1] == MPI_DOUBLE,
        "struct contents %d %d %ld", ints[0], ints[2], (long)aints[2]);
  MPI_Type_get_envelope(parts[2], &ni, &na, &nt, &comb);
  CHECK(comb == MPI_COMBINER_HVECTOR, "the struct's third member: combiner %d", comb);
  MPI_Type_free(&parts[2]);
  MPI_Type_create_resized(MPI_INT, -4, 16, &rs);
  MPI_Type_get_contents(rs, 16, 8, 4, ints, aints, parts);
  CHECK(aints[0] == -4 && aints[1] == 16 && parts[0] == MPI_INT, "resized contents %ld %ld", (long)aints[0], (long)aints[1]);
  int sizes[2] = {4, 6}, subs[2] = {2, 3}, starts[2] = {1, 2};
  MPI_Type_create_subarray(2, sizes, subs, starts, MPI_ORDER_FORTRAN, MPI_INT, &sub);
  MPI_Type_get_envelope(sub, &ni, &na, &nt, &comb);
  MPI_Type_get_contents(sub, 16, 8, 4, ints, aints, parts);
  CHECK(comb == MPI_COMBINER_SUBARRAY && ni == 8 && ints[0] == 2 && ints[3] == 2 && ints[6] == 2 &&
            ints[7] == MPI_ORDER_FORTRAN,
        "subarray contents: combiner %d, %d integers", comb, ni);
  MPI_Type_dup(MPI_FLOAT, &dup);
  MPI_Type_get_envelope(dup, &ni, &na, &nt, &comb);
  CHECK(comb == MPI_COMBINER_DUP && nt == 1, "dup envelope %d", comb);
  MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
  CHECK(MPI_Type_get_contents(MPI_INT, 1, 1, 1, ints, aints, parts) == MPI_ERR_TYPE, "contents of a named type");
  CHECK(MPI_Type_get_contents(dup, 0, 0, 0, ints, aints, parts) == MPI_ERR_ARG, "contents into arrays too small");
  MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_ARE_FATAL);
  MPI_Type_free(&hv);
  MPI_Type_free(&st);
  MPI_Type_free(&rs);
  MPI_Type_free(&sub);
  MPI_Type_free(&dup);

  /* markers: {(LB,-8), int at 0, (UB,24)} has bounds -8 and 24 (size 4),
   * and a contiguous run of three steps by its extent, 32 */
  MPI_Datatype marked, run;
  int mlens[3] = {1, 1, 1};
  MPI_Aint mdisps[3] = {-8, 0, 24};
  MPI_Datatype mtypes[3] = {MPI_LB, MPI_INT, MPI_UB};
  MPI_Type_struct(3, mlens, mdisps, mtypes, &marked);
  MPI_Aint lb = 0, extent = 0, tlb = 0, textent = 0;
  MPI_Type_get_extent(marked, &lb, &extent);
  MPI_Type_get_true_extent(marked, &tlb, &textent);
  CHECK(lb == -8 && extent == 32 && tlb == 0 && textent == 4, "marked struct: lb %ld extent %ld true %ld %ld", (long)lb,
        (long)extent, (long)tlb, (long)textent);
  MPI_Type_contiguous(3, marked, &run);
  MPI_Type_commit(&run);
  MPI_Type_get_extent(run, &lb, &extent);
  CHECK(lb == -8 && extent == 96, "a run of marked structs: lb %ld extent %ld", (long)lb, (long)extent);
  int spread[24], packed3[3];
  for (int i = 0; i < 24; ++i) spread[i] = i;
  int pos = 0;
  MPI_Pack(&spread[2], 1, run, packed3, (int)sizeof packed3, &pos, MPI_COMM_SELF);
  CHECK(pos == 12 && packed3[0] == 2 && packed3[1] == 10 && packed3[2] == 18, "packed marked run %d %d %d", packed3[0],
        packed3[1], packed3[2]);
  MPI_Type_free(&marked);
  MPI_Type_free(&run);

  /* MPI_Get_elements: an int then up to 32 chars, received partly */
  MPI_Datatype ic;
  int iclens[2] = {1, 32};
  MPI_Aint icdisps[2] = {0, 4};
  MPI_Datatype ictypes[2] = {MPI_INT, MPI_CHAR};
  MPI_Type_create_struct(2, iclens, icdisps, ictypes, &ic);
  MPI_Type_commit(&ic);
  char bytes[40] = {0}, into[40];
  MPI_Status status;
  int elements = -1, count = -1;
  MPI_Sendrecv(bytes, 11, MPI_BYTE, me, 50, into, 1, ic, me, 50, MPI_COMM_WORLD, &status);
  MPI_Get_elements(&status, ic, &elements);
  MPI_Get_count(&status, ic, &count);
  CHECK(elements == 8 && count == MPI_UNDEFINED, "int + 7 chars: %d elements, count %d", elements, count);
  MPI_Sendrecv(bytes, 2, MPI_BYTE, me, 51, into, 1, ic, me, 51, MPI_COMM_WORLD, &status);
  MPI_Get_elements(&status, ic, &elements);
  CHECK(elements == MPI_UNDEFINED, "half an int: %d elements", elements);
  MPI_Status_set_elements(&status, ic, 3);
  MPI_Get_count(&status, MPI_BYTE, &count);
  CHECK(count == 6, "MPI_Status_set_elements(3) of int + chars: %d bytes", count);
  MPI_Type_free(&ic);
  struct { double v; int i; } pairs[2] = {{1.5, 1}, {2.5, 2}}, pairs_in[2];
  MPI_Sendrecv(pairs, 2, MPI_DOUBLE_INT, me, 52, pairs_in, 2, MPI_DOUBLE_INT, me, 52, MPI_COMM_WORLD, &status);
  MPI_Get_elements(&status, MPI_DOUBLE_INT, &elements);
  MPI_Get_count(&status, MPI_DOUBLE_INT, &count);
  CHECK(elements == 4 && count == 2 && pairs_in[1].i == 2, "two MPI_DOUBLE_INTs: %d elements, count %d", elements, count);
}

/* ---- communicators ------------------------------------------------------- */
static void check_comms(struct ctx* c) {
  MPI_Comm half, dup;
  int color = me % 2, r, n;
  MPI_Comm_split(MPI_COMM_WORLD, color, -me, &half); /* keys reversed: ranks reversed */
  MPI_Comm_rank(half, &r);
  MPI_Comm_size(half, &n);
  int expect_n = (np + 1 - color) / 2;
  CHECK(n == expect_n, "split size %d", n);
  int sum = 0;
  MPI_Allreduce(&me, &sum, 1, MPI_INT, MPI_SUM, half);
  int want = 0;
  for (int i = color; i < np; i += 2) want += i;
  CHECK(sum == want, "split sum %d", sum);
  int top = -1; /* rank 0 of half is the highest world rank of that color */
  int mine = me;
  MPI_Bcast(&mine, 1, MPI_INT, 0, half);
  top = mine;
  int highest = color;
  while (highest + 2 < np) highest += 2;
  CHECK(top == highest, "split order: rank 0 is %d", top);
  MPI_Comm_dup(half, &dup);
  int cmp;
  MPI_Comm_compare(half, dup, &cmp);
  CHECK(cmp == MPI_CONGRUENT, "compare %d", cmp);
  /* messages on dup and half do not mix */
  if (n > 1) {
    int right = (r + 1) % n, left = (r - 1 + n) % n, a = 1, b = 2, ga = 0, gb = 0;
    MPI_Request q[2];
    MPI_Irecv(&ga, 1, MPI_INT, left, 0, half, &q[0]);
    MPI_Irecv(&gb, 1, MPI_INT, left, 0, dup, &q[1]);
    MPI_Send(&b, 1, MPI_INT, right, 0, dup);
    MPI_Send(&a, 1, MPI_INT, right, 0, half);
    MPI_Waitall(2, q, MPI_STATUSES_IGNORE);
    CHECK(ga == 1 && gb == 2, "contexts mixed: %d %d", ga, gb);
  }
  /* groups */
  MPI_Group world, evens, odds_from_comm;
  MPI_Comm_group(MPI_COMM_WORLD, &world);
  int ne = (np + 1) / 2;
  int* er = malloc(sizeof(int) * (size_t)ne);
  for (int i = 0; i < ne; ++i) er[i] = 2 * i;
  MPI_Group_incl(world, ne, er, &evens);
  int gr;
  MPI_Group_rank(evens, &gr);
  CHECK(gr == (me % 2 == 0 ? me / 2 : MPI_UNDEFINED), "group rank %d", gr);
  MPI_Comm ecomm;
  MPI_Comm_create(MPI_COMM_WORLD, evens, &ecomm);
  CHECK((ecomm == MPI_COMM_NULL) == (me % 2 == 1), "comm_create membership");
  if (ecomm != MPI_COMM_NULL) {
    int es;
    MPI_Comm_size(ecomm, &es);
    CHECK(es == ne, "created size %d", es);
    MPI_Barrier(ecomm);
    MPI_Comm_free(&ecomm);
  }
  MPI_Comm_group(half, &odds_from_comm);
  int tr_in = 0, tr_out = -5;
  MPI_Group_translate_ranks(odds_from_comm, 1, &tr_in, world, &tr_out);
  CHECK(tr_out == highest, "translate %d", tr_out);
  MPI_Group_free(&world);
  MPI_Group_free(&evens);
  MPI_Group_free(&odds_from_comm);
  free(er);
  MPI_Comm_free(&dup);
  MPI_Comm_free(&half);
  CHECK(half == MPI_COMM_NULL, "free");
  int flag = 0, *ub = NULL;
  MPI_Comm_get_attr(MPI_COMM_WORLD, MPI_TAG_UB, &ub, &flag);
  CHECK(flag && *ub >= 32767, "tag ub");
}

/* ---- topologies and attributes ------------------------------------------ */
static int copy_attr(MPI_Comm comm, int keyval, void* extra, void* in, void* out, int* flag) {
  (void)comm, (void)keyval, (void)extra;
  *(void**)out = (char*)in + 1;
  *flag = 1;
  ++*(int*)extra;
  return MPI_SUCCESS;
}
static int delete_attr(MPI_Comm comm, int keyval, void* value, void* extra) {
  (void)comm, (void)keyval, (void)value;
  ++*((int*)extra + 1);
  return MPI_SUCCESS;
}


static int refuse_copy(MPI_Comm comm, int k, void* extra, void* in, void* out, int* flag) {
  (void)comm; (void)k; (void)extra; (void)in; (void)out;
  *flag = 0;
  return MPI_ERR_OTHER;
}

/* Graph topologies (a ring), topology mapping, zero-dimensional grids, and
 * MPI_Comm_dup when an attribute's copy function fails. */
static void check_graph(struct ctx* c) {
  int* index = malloc(sizeof(int) * (size_t)np);
  int* edges = malloc(sizeof(int) * 2 * (size_t)np);
  for (int i = 0; i < np; ++i) {
    index[i] = 2 * (i + 1);
    edges[2 * i] = (i - 1 + np) % np;
    edges[2 * i + 1] = (i + 1) % np;
  }
  MPI_Comm ring;
  MPI_Graph_create(MPI_COMM_WORLD, np, index, edges, 0, &ring);
  int kind = -1, nnodes = -1, nedges = -1, count = -1, nb[2] = {-1, -1}, mapped = -1;
  MPI_Topo_test(ring, &kind);
  MPI_Graphdims_get(ring, &nnodes, &nedges);
  MPI_Graph_neighbors_count(ring, me, &count);
  MPI_Graph_neighbors(ring, me, 2, nb);
  CHECK(kind == MPI_GRAPH && nnodes == np && nedges == 2 * np && count == 2, "graph kind %d nodes %d edges %d count %d",
        kind, nnodes, nedges, count);
  CHECK(nb[0] == (me - 1 + np) % np && nb[1] == (me + 1) % np, "graph neighbours %d %d", nb[0], nb[1]);
  int* got_index = malloc(sizeof(int) * (size_t)np);
  int* got_edges = malloc(sizeof(int) * 2 * (size_t)np);
  MPI_Graph_get(ring, np, 2 * np, got_index, got_edges);
  CHECK(memcmp(got_index, index, sizeof(int) * (size_t)np) == 0 && memcmp(got_edges, edges, sizeof(int) * 2 * (size_t)np) == 0,
        "graph_get differs");
  int sum = 0;
  MPI_Allreduce(&me, &sum, 1, MPI_INT, MPI_SUM, ring);
  CHECK(sum == np * (np - 1) / 2, "allreduce on the graph %d", sum);
  MPI_Graph_map(MPI_COMM_WORLD, np, index, edges, &mapped);
  CHECK(mapped == me, "graph_map %d", mapped);
  int dims1[1] = {np}, periods1[1] = {1};
  MPI_Cart_map(MPI_COMM_WORLD, 1, dims1, periods1, &mapped);
  CHECK(mapped == me, "cart_map %d", mapped);
  MPI_Comm_free(&ring);
  free(index); free(edges); free(got_index); free(got_edges);
  /* zero dimensions: one rank, a Cartesian topology of dimension 0 */
  MPI_Comm point;
  MPI_Cart_create(MPI_COMM_WORLD, 0, NULL, NULL, 0, &point);
  if (me == 0) {
    int psize = -1, ndims = -1;
    MPI_Comm_size(point, &psize);
    MPI_Topo_test(point, &kind);
    MPI_Cartdim_get(point, &ndims);
    CHECK(psize == 1 && kind == MPI_CART && ndims == 0, "0-d grid size %d kind %d dims %d", psize, kind, ndims);
    MPI_Comm_free(&point);
  } else {
    CHECK(point == MPI_COMM_NULL, "rank %d got a 0-d grid", me);
  }
  /* a failing copy function: no communicator, the function's error */
  MPI_Comm base, dup = MPI_COMM_WORLD;
  MPI_Comm_dup(MPI_COMM_WORLD, &base);
  int key = MPI_KEYVAL_INVALID, v = 1;
  MPI_Comm_create_keyval(refuse_copy, MPI_COMM_NULL_DELETE_FN, &key, NULL);
  MPI_Comm_set_attr(base, key, &v);
  const int err = MPI_Comm_dup(base, &dup);
  CHECK(err != MPI_SUCCESS && dup == MPI_COMM_NULL, "dup with a failing copy: error %d", err);
  MPI_Comm_free(&base);
  MPI_Comm_free_keyval(&key);
}

static void check_topo(struct ctx* c) {
  int d3[3] = {0, 0, 0};
  MPI_Dims_create(24, 3, d3);
  CHECK(d3[0] == 4 && d3[1] == 3 && d3[2] == 2, "dims_create 24: %d %d %d", d3[0], d3[1], d3[2]);
  int d2[2] = {0, 3};
  MPI_Dims_create(12, 2, d2);
  CHECK(d2[0] == 4 && d2[1] == 3, "dims_create 12 with 3 fixed: %d %d", d2[0], d2[1]);
  int dims[2] = {0, 0}, periods[2] = {1, 0};
  MPI_Dims_create(np, 2, dims);
  MPI_Comm grid;
  MPI_Cart_create(MPI_COMM_WORLD, 2, dims, periods, 0, &grid);
  int status = -1;
  MPI_Topo_test(grid, &status);
  CHECK(status == MPI_CART, "topo_test %d", status);
  int gr, coords[2], back = -1;
  MPI_Comm_rank(grid, &gr);
  MPI_Cart_coords(grid, gr, 2, coords);
  MPI_Cart_rank(grid, coords, &back);
  CHECK(back == gr && coords[0] == gr / dims[1] && coords[1] == gr % dims[1], "coords of %d: %d %d", gr, coords[0], coords[1]);
  int up, down, left, right;
  MPI_Cart_shift(grid, 0, 1, &up, &down);   /* periodic */
  MPI_Cart_shift(grid, 1, 1, &left, &right); /* not periodic */
  CHECK(down == ((coords[0] + 1) % dims[0]) * dims[1] + coords[1], "shift down %d", down);
  CHECK(up == ((coords[0] - 1 + dims[0]) % dims[0]) * dims[1] + coords[1], "shift up %d", up);
  CHECK((coords[1] == dims[1] - 1) == (right == MPI_PROC_NULL), "shift right %d", right);
  CHECK((coords[1] == 0) == (left == MPI_PROC_NULL), "shift left %d", left);
  /* a halo exchange along the periodic dimension */
  int mine = gr, from_up = -1;
  MPI_Sendrecv(&mine, 1, MPI_INT, down, 9, &from_up, 1, MPI_INT, up, 9, grid, MPI_STATUS_IGNORE);
  CHECK(from_up == up, "halo from %d got %d", up, from_up);
  /* rows: keep dimension 1 */
  int keep[2] = {0, 1};
  MPI_Comm row;
  MPI_Cart_sub(grid, keep, &row);
  int rn, rsum = 0;
  MPI_Comm_size(row, &rn);
  MPI_Allreduce(&gr, &rsum, 1, MPI_INT, MPI_SUM, row);
  int want = 0;
  for (int k = 0; k < dims[1]; ++k) want += coords[0] * dims[1] + k;
  CHECK(rn == dims[1] && rsum == want, "row size %d sum %d", rn, rsum);
  int nd = 0;
  MPI_Cartdim_get(row, &nd);
  CHECK(nd == 1, "sub dims %d", nd);
  MPI_Comm_free(&row);
  MPI_Comm_free(&grid);
  /* attributes: a copy function on dup, a delete function on free */
  int counts[2] = {0, 0}, key = MPI_KEYVAL_INVALID, flag = 0;
  MPI_Comm_create_keyval(copy_attr, delete_attr, &key, counts);
  static char base[4];
  MPI_Comm_set_attr(MPI_COMM_WORLD, key, base);
  MPI_Comm dup;
  MPI_Comm_dup(MPI_COMM_WORLD, &dup);
  char* got = NULL;
  MPI_Comm_get_attr(dup, key, &got, &flag);
  CHECK(flag && got == base + 1 && counts[0] == 1, "copied attribute %p", (void*)got);
  MPI_Comm_free(&dup);
  CHECK(counts[1] == 1, "delete ran %d times", counts[1]);
  MPI_Comm_delete_attr(MPI_COMM_WORLD, key);
  MPI_Comm_get_attr(MPI_COMM_WORLD, key, &got, &flag);
  CHECK(!flag && counts[1] == 2, "deleted attribute still there");
  MPI_Comm_free_keyval(&key);
  check_graph(c);
  /* MPI_Cart_sub keeping no dimension: a grid of one cell for rank 0 */
  MPI_Comm line, none;
  int one_dim[1] = {np}, no_period[1] = {0}, keep_none[1] = {0};
  MPI_Cart_create(MPI_COMM_WORLD, 1, one_dim, no_period, 0, &line);
  MPI_Cart_sub(line, keep_none, &none);
  if (me == 0) {
    int result = -1, ndims = -1;
    MPI_Comm_compare(MPI_COMM_SELF, none, &result);
    MPI_Cartdim_get(none, &ndims);
    CHECK(result == MPI_CONGRUENT && ndims == 0, "Cart_sub to no dimension: compare %d, %d dims", result, ndims);
    MPI_Comm_free(&none);
  } else {
    CHECK(none == MPI_COMM_NULL, "Cart_sub to no dimension on rank %d: not MPI_COMM_NULL", me);
  }
  MPI_Comm_free(&line);
}

/* ---- non-blocking collectives -------------------------------------------- */
static void check_nbc(struct ctx* c) {
  /* NBX: synchronous sends to two ranks, probe-receive until every rank's
   * sends were matched (Ibarrier), the barrier tested while receiving. */
  int out[2] = {me * 10 + 1, me * 10 + 3}, got = 0, sum = 0, barrier_started = 0, done = 0;
  MPI_Request sends[2], barrier = MPI_REQUEST_NULL;
  MPI_Issend(&out[0], 1, MPI_INT, (me + 1) % np, 77, MPI_COMM_WORLD, &sends[0]);
  MPI_Issend(&out[1], 1, MPI_INT, (me + 3) % np, 77, MPI_COMM_WORLD, &sends[1]);
  while (!done) {
    int flag = 0;
    MPI_Status st;
    MPI_Iprobe(MPI_ANY_SOURCE, 77, MPI_COMM_WORLD, &flag, &st);
    if (flag) {
      int v;
      MPI_Recv(&v, 1, MPI_INT, st.MPI_SOURCE, 77, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
      ++got;
      sum += v;
    }
    if (!barrier_started) {
      int sent = 0;
      MPI_Testall(2, sends, &sent, MPI_STATUSES_IGNORE);
      if (sent) {
        MPI_Ibarrier(MPI_COMM_WORLD, &barrier);
        barrier_started = 1;
      }
    } else {
      MPI_Test(&barrier, &done, MPI_STATUS_IGNORE);
    }
  }
  int want = ((me - 1 + np) % np) * 10 + 1 + ((me - 3 + 3 * np) % np) * 10 + 3;
  CHECK(got == 2 && sum == want, "nbx got %d messages, sum %d (want %d)", got, sum, want);

  /* several at once, a blocking one in between, completed out of order */
  double x = me + 1.0, total = 0;
  int root_val = me == np - 1 ? 4242 : 0, block_sum = 0, one = 1;
  int* all = malloc(sizeof(int) * (size_t)np);
  int* a2a_in = malloc(sizeof(int) * (size_t)np);
  int* a2a_out = malloc(sizeof(int) * (size_t)np);
  for (int i = 0; i < np; ++i) a2a_in[i] = me * 100 + i;
  MPI_Request q[5];
  MPI_Iallreduce(&x, &total, 1, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD, &q[0]);
  MPI_Ibcast(&root_val, 1, MPI_INT, np - 1, MPI_COMM_WORLD, &q[1]);
  MPI_Iallgather(&me, 1, MPI_INT, all, 1, MPI_INT, MPI_COMM_WORLD, &q[2]);
  MPI_Allreduce(&one, &block_sum, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
  MPI_Ialltoall(a2a_in, 1, MPI_INT, a2a_out, 1, MPI_INT, MPI_COMM_WORLD, &q[3]);
  int scan = 0;
  MPI_Iscan(&one, &scan, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD, &q[4]);
  for (int k = 4; k >= 0; --k) MPI_Wait(&q[k], MPI_STATUS_IGNORE);
  CHECK(total == np * (np + 1) / 2.0, "iallreduce %g", total);
  CHECK(root_val == 4242, "ibcast %d", root_val);
  CHECK(block_sum == np, "blocking allreduce between %d", block_sum);
  for (int i = 0; i < np; ++i) CHECK(all[i] == i && a2a_out[i] == i * 100 + me, "iallgather/ialltoall [%d]", i);
  CHECK(scan == me + 1, "iscan %d", scan);
  /* a reduction to each root in turn, left pending together */
  MPI_Request* rq = malloc(sizeof(MPI_Request) * (size_t)np);
  long* res = malloc(sizeof(long) * (size_t)np);
  long mine = me;
  for (int r = 0; r < np; ++r) MPI_Ireduce(&mine, &res[r], 1, MPI_LONG, MPI_MAX, r, MPI_COMM_WORLD, &rq[r]);
  MPI_Waitall(np, rq, MPI_STATUSES_IGNORE);
  CHECK(res[me] == np - 1, "ireduce max at my root %ld", res[me]);
  free(rq);
  free(res);
  free(all);
  free(a2a_in);
  free(a2a_out);
}

/* ---- one-sided ---------------------------------------------------------- */
/* Post/start/complete/wait: each rank exposes its cell to its left
 * neighbour and puts into its right neighbour's, three rounds (the last
 * waited for by MPI_Win_test), then gets back what it put. */
static void check_pscw(struct ctx* c) {
  int cell = -1, left = (me - 1 + np) % np, right = (me + 1) % np;
  MPI_Win win;
  MPI_Win_create(&cell, sizeof cell, sizeof(int), MPI_INFO_NULL, MPI_COMM_WORLD, &win);
  MPI_Group world, from_left, to_right;
  MPI_Comm_group(MPI_COMM_WORLD, &world);
  MPI_Group_incl(world, 1, &left, &from_left);
  MPI_Group_incl(world, 1, &right, &to_right);
  for (int round = 0; round < 3; ++round) {
    MPI_Win_post(from_left, 0, win);
    MPI_Win_start(to_right, 0, win);
    int v = me * 10 + round;
    MPI_Put(&v, 1, MPI_INT, right, 0, 1, MPI_INT, win);
    MPI_Win_complete(win);
    if (round < 2) {
      MPI_Win_wait(win);
    } else {
      int done = 0, polls = 0;
      while (!done) {
        MPI_Win_test(win, &done);
        ++polls;
      }
      CHECK(polls >= 1, "win_test polls %d", polls);
    }
    CHECK(cell == left * 10 + round, "round %d: cell %d, want %d", round, cell, left * 10 + round);
  }
  int back = -1;
  MPI_Win_post(from_left, 0, win);
  MPI_Win_start(to_right, 0, win);
  MPI_Get(&back, 1, MPI_INT, right, 0, 1, MPI_INT, win);
  MPI_Win_complete(win);
  MPI_Win_wait(win);
  CHECK(back == me * 10 + 2, "get in an access epoch: %d", back);
  /* a fence epoch after PSCW ones counts only its own operations */
  MPI_Win_fence(0, win);
  int w = me;
  MPI_Put(&w, 1, MPI_INT, right, 0, 1, MPI_INT, win);
  MPI_Win_fence(0, win);
  CHECK(cell == left, "fence after pscw: cell %d", cell);
  MPI_Group_free(&from_left);
  MPI_Group_free(&to_right);
  MPI_Group_free(&world);
  MPI_Win_free(&win);
}

static void check_rma(struct ctx* c) {
  int* slots = malloc(sizeof(int) * (size_t)np);
  for (int i = 0; i < np; ++i) slots[i] = -1;
  MPI_Win win;
  MPI_Win_create(slots, (MPI_Aint)(sizeof(int) * (size_t)np), sizeof(int), MPI_INFO_NULL, MPI_COMM_WORLD, &win);
  MPI_Win_fence(0, win);
  for (int t = 0; t < np; ++t) MPI_Put(&me, 1, MPI_INT, t, me, 1, MPI_INT, win);
  MPI_Win_fence(0, win);
  for (int i = 0; i < np; ++i) CHECK(slots[i] == i, "put: slot %d holds %d", i, slots[i]);
  /* get the right neighbour's slots (as it sees them: all i) */
  int* got = malloc(sizeof(int) * (size_t)np);
  MPI_Get(got, np, MPI_INT, (me + 1) % np, 0, np, MPI_INT, win);
  MPI_Win_fence(0, win);
  for (int i = 0; i < np; ++i) CHECK(got[i] == i, "get: slot %d holds %d", i, got[i]);
  MPI_Win_free(&win);
  CHECK(win == MPI_WIN_NULL, "win_free");

  /* accumulate into an allocated window; a strided target type */
  long* counter = NULL;
  MPI_Win cwin;
  MPI_Win_allocate((MPI_Aint)(4 * sizeof(long)), sizeof(long), MPI_INFO_NULL, MPI_COMM_WORLD, &counter, &cwin);
  counter[0] = counter[1] = counter[2] = counter[3] = 0;
  MPI_Win_fence(0, cwin);
  long add = me + 1;
  for (int t = 0; t < np; ++t) MPI_Accumulate(&add, 1, MPI_LONG, t, 0, 1, MPI_LONG, MPI_SUM, cwin);
  MPI_Win_fence(0, cwin);
  CHECK(counter[0] == (long)np * (np + 1) / 2, "accumulate sum %ld", counter[0]);
  MPI_Datatype every_other;
  MPI_Type_vector(2, 1, 2, MPI_LONG, &every_other);
  MPI_Type_commit(&every_other);
  long pair[2] = {7, 9};
  if (me == 0) MPI_Put(pair, 2, MPI_LONG, np - 1, 1, 1, every_other, cwin); /* slots 1 and 3 */
  MPI_Win_fence(0, cwin);
  if (me == np - 1) CHECK(counter[1] == 7 && counter[3] == 9 && counter[2] == 0, "strided put %ld %ld", counter[1], counter[3]);
  MPI_Type_free(&every_other);
  /* read-modify-write of rank 0's counter under an exclusive lock */
  MPI_Barrier(MPI_COMM_WORLD);
  if (me == 0) counter[2] = 0;
  MPI_Barrier(MPI_COMM_WORLD);
  for (int k = 0; k < 5; ++k) {
    long v = -1;
    MPI_Win_lock(MPI_LOCK_EXCLUSIVE, 0, 0, cwin);
    MPI_Get(&v, 1, MPI_LONG, 0, 2, 1, MPI_LONG, cwin);
    MPI_Win_unlock(0, cwin);
    v += 1;
    MPI_Win_lock(MPI_LOCK_EXCLUSIVE, 0, 0, cwin);
    MPI_Accumulate(&add, 1, MPI_LONG, 0, 2, 1, MPI_LONG, MPI_SUM, cwin);
    MPI_Win_unlock(0, cwin);
  }
  MPI_Barrier(MPI_COMM_WORLD);
  if (me == 0) CHECK(counter[2] == 5L * np * (np + 1) / 2, "locked accumulates %ld", counter[2]);
  /* shared locks together, then a fence epoch again */
  MPI_Win_lock(MPI_LOCK_SHARED, np - 1, 0, cwin);
  long peek = -1;
  MPI_Get(&peek, 1, MPI_LONG, np - 1, 0, 1, MPI_LONG, cwin);
  MPI_Win_unlock(np - 1, cwin);
  CHECK(peek == (long)np * (np + 1) / 2, "shared-lock get %ld", peek);
  MPI_Win_fence(0, cwin);
  MPI_Put(&add, 1, MPI_LONG, (me + 1) % np, 3, 1, MPI_LONG, cwin);
  MPI_Win_fence(0, cwin);
  CHECK(counter[3] == ((me - 1 + np) % np) + 1 || (me == np - 1 && np == 1), "fence after locks %ld", counter[3]);
  MPI_Win_free(&cwin);
  /* atomics: tickets from a shared counter, one winner of a compare-and-swap */
  long* cell = NULL;
  MPI_Win awin;
  MPI_Win_allocate((MPI_Aint)(2 * sizeof(long)), sizeof(long), MPI_INFO_NULL, MPI_COMM_WORLD, &cell, &awin);
  cell[0] = cell[1] = 0;
  MPI_Barrier(MPI_COMM_WORLD);
  MPI_Win_lock_all(0, awin);
  long one = 1, tickets[3];
  for (int k = 0; k < 3; ++k) {
    MPI_Fetch_and_op(&one, &tickets[k], MPI_LONG, 0, 0, MPI_SUM, awin);
    MPI_Win_flush(0, awin);
  }
  long mine_plus = me + 1, zero = 0, previous = -1;
  MPI_Compare_and_swap(&mine_plus, &zero, &previous, MPI_LONG, 0, 1, awin);
  MPI_Win_flush_all(awin);
  MPI_Win_unlock_all(awin);
  long* all_tickets = malloc(sizeof(long) * 3 * (size_t)np);
  MPI_Allgather(tickets, 3, MPI_LONG, all_tickets, 3, MPI_LONG, MPI_COMM_WORLD);
  int* seen = calloc(3 * (size_t)np, sizeof(int));
  int distinct = 1;
  for (int i = 0; i < 3 * np; ++i) {
    if (all_tickets[i] < 0 || all_tickets[i] >= 3 * np || seen[all_tickets[i]]++) distinct = 0;
  }
  CHECK(distinct, "fetch_and_op tickets are not 0..%d once each", 3 * np - 1);
  int won = previous == 0, winners = 0;
  MPI_Allreduce(&won, &winners, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
  CHECK(winners == 1, "compare_and_swap winners %d", winners);
  MPI_Barrier(MPI_COMM_WORLD);
  if (me == 0) CHECK(cell[0] == 3L * np && cell[1] >= 1 && cell[1] <= np, "atomics left %ld %ld", cell[0], cell[1]);
  MPI_Win_free(&awin);
  free(all_tickets);
  free(seen);
  free(slots);
  free(got);
}


/* ---- intercommunicators, group ranges, MPI-1's names, window attributes -- */
static int win_deletes(MPI_Win w, int k, void* v, void* extra) {
  (void)w; (void)k; (void)v;
  ++*(int*)extra;
  return MPI_SUCCESS;
}

static void check_inter(struct ctx* c) {
  /* Group ranges: the even world ranks, then every world rank but the odd ones. */
  MPI_Group world, evens, not_odds;
  MPI_Comm_group(MPI_COMM_WORLD, &world);
  int range[1][3] = {{0, np - 1, 2}};
  MPI_Group_range_incl(world, 1, range, &evens);
  int n_evens = -1, cmp = -1;
  MPI_Group_size(evens, &n_evens);
  CHECK(n_evens == (np + 1) / 2, "range_incl size %d", n_evens);
  if (np > 1) {
    /* the odd ranks from the highest down (a negative stride) */
    int odd_range[1][3] = {{(np - 1) % 2 == 1 ? np - 1 : np - 2, 1, -2}};
    MPI_Group_range_excl(world, 1, odd_range, &not_odds);
    MPI_Group_compare(evens, not_odds, &cmp);
    CHECK(cmp == MPI_IDENT, "range_excl of the odd ranks is not the evens (%d)", cmp);
    MPI_Group_free(&not_odds);
  }
  /* Comm_create_group: only the even ranks call. */
  if (me % 2 == 0) {
    MPI_Comm ec;
    MPI_Comm_create_group(MPI_COMM_WORLD, evens, 5, &ec);
    int er = -1, es = -1, sum = 0, one = 1;
    MPI_Comm_rank(ec, &er);
    MPI_Comm_size(ec, &es);
    CHECK(er == me / 2 && es == (np + 1) / 2, "create_group rank %d size %d", er, es);
    MPI_Allreduce(&one, &sum, 1, MPI_INT, MPI_SUM, ec);
    CHECK(sum == es, "allreduce on the created group %d", sum);
    MPI_Comm_free(&ec);
  }
  MPI_Group_free(&evens);
  MPI_Group_free(&world);

  /* Intercommunicator between the even and the odd ranks. */
  if (np > 1) {
    MPI_Comm half, inter, merged, dup;
    MPI_Comm_split(MPI_COMM_WORLD, me % 2, me, &half);
    int hr = -1, hs = -1;
    MPI_Comm_rank(half, &hr);
    MPI_Comm_size(half, &hs);
    /* the leaders: world rank 0 (evens) and world rank 1 (odds) */
    MPI_Intercomm_create(half, 0, MPI_COMM_WORLD, me % 2 == 0 ? 1 : 0, 77, &inter);
    int flag = 0, rs = -1, lr = -1, ls = -1;
    MPI_Comm_test_inter(inter, &flag);
    MPI_Comm_remote_size(inter, &rs);
    MPI_Comm_rank(inter, &lr);
    MPI_Comm_size(inter, &ls);
    const int other = me % 2 == 0 ? np / 2 : (np + 1) / 2;
    CHECK(flag == 1 && rs == other && lr == hr && ls == hs, "inter flag %d remote %d rank %d size %d", flag, rs, lr, ls);
    MPI_Group remote;
    int remote_size = -1;
    MPI_Comm_remote_group(inter, &remote);
    MPI_Group_size(remote, &remote_size);
    CHECK(remote_size == other, "remote group size %d", remote_size);
    MPI_Group_free(&remote);
    /* point to point across: rank i of each side with rank i of the other (if there) */
    if (lr < rs) {
      int out = me * 100, in = -1;
      MPI_Status st;
      MPI_Sendrecv(&out, 1, MPI_INT, lr, 3, &in, 1, MPI_INT, lr, 3, inter, &st);
      const int partner = me % 2 == 0 ? me + 1 : me - 1;
      CHECK(in == partner * 100 && st.MPI_SOURCE == lr, "intercomm got %d from %d", in, st.MPI_SOURCE);
    }
    /* a dup of it works the same and is freed with its hidden half */
    MPI_Comm_dup(inter, &dup);
    if (lr == 0) {
      int token = me + 1, back = -1;
      MPI_Sendrecv(&token, 1, MPI_INT, 0, 4, &back, 1, MPI_INT, 0, 4, dup, MPI_STATUS_IGNORE);
      CHECK(back == (me == 0 ? 2 : 1), "dup'd intercomm leader got %d", back);
    }
    MPI_Comm_free(&dup);
    /* collectives from one group to the other: world rank w is rank w/2 of
     * its side; the evens' rank 0 is the root of the rooted ones */
    {
      const int even = me % 2 == 0;
      const int remote_world0 = even ? 1 : 0; /* world rank of remote rank i: 2i + remote_world0 */
      MPI_Barrier(inter);
      int v = even && lr == 0 ? 4242 : -1;
      MPI_Bcast(&v, 1, MPI_INT, even ? (lr == 0 ? MPI_ROOT : MPI_PROC_NULL) : 0, inter);
      CHECK(even ? v == (lr == 0 ? 4242 : -1) : v == 4242, "inter bcast %d", v);
      int sum = -1, want = 0;
      for (int i = 0; i < rs; ++i) want += 2 * i + remote_world0;
      MPI_Allreduce(&me, &sum, 1, MPI_INT, MPI_SUM, inter);
      CHECK(sum == want, "inter allreduce %d (want %d)", sum, want);
      MPI_Request ir;
      int mx = -1;
      MPI_Iallreduce(&me, &mx, 1, MPI_INT, MPI_MAX, inter, &ir);
      MPI_Wait(&ir, MPI_STATUS_IGNORE);
      CHECK(mx == 2 * (rs - 1) + remote_world0, "inter iallreduce max %d", mx);
      int* got = malloc(sizeof(int) * (size_t)rs);
      int* out = malloc(sizeof(int) * (size_t)rs);
      MPI_Allgather(&me, 1, MPI_INT, got, 1, MPI_INT, inter);
      for (int i = 0; i < rs; ++i) CHECK(got[i] == 2 * i + remote_world0, "inter allgather [%d] %d", i, got[i]);
      for (int i = 0; i < rs; ++i) out[i] = me * 1000 + i;
      MPI_Alltoall(out, 1, MPI_INT, got, 1, MPI_INT, inter);
      for (int i = 0; i < rs; ++i)
        CHECK(got[i] == (2 * i + remote_world0) * 1000 + lr, "inter alltoall [%d] %d", i, got[i]);
      /* reduce to the odds' rank 0, gather to the evens' rank 0 */
      int red = -1;
      MPI_Reduce(&me, &red, 1, MPI_INT, MPI_SUM, even ? 0 : (lr == 0 ? MPI_ROOT : MPI_PROC_NULL), inter);
      if (!even && lr == 0) CHECK(red == want, "inter reduce %d (want %d)", red, want);
      for (int i = 0; i < rs; ++i) got[i] = -1;
      MPI_Gather(&me, 1, MPI_INT, got, 1, MPI_INT, even ? (lr == 0 ? MPI_ROOT : MPI_PROC_NULL) : 0, inter);
      if (even && lr == 0)
        for (int i = 0; i < rs; ++i) CHECK(got[i] == 2 * i + 1, "inter gather [%d] %d", i, got[i]);
      /* reduce-scatter: the remote group's sum, rs elements to each rank */
      {
        const int total = ls * rs;
        int* in = malloc(sizeof(int) * (size_t)total);
        int* part = malloc(sizeof(int) * (size_t)rs);
        int* counts = malloc(sizeof(int) * (size_t)ls);
        for (int k = 0; k < total; ++k) in[k] = me * 100 + k;
        for (int i = 0; i < ls; ++i) counts[i] = rs;
        MPI_Reduce_scatter(in, part, counts, MPI_INT, MPI_SUM, inter);
        for (int j = 0; j < rs; ++j)
          CHECK(part[j] == 100 * want + rs * (lr * rs + j), "inter reduce_scatter [%d] %d", j, part[j]);
        for (int j = 0; j < rs; ++j) part[j] = -1;
        MPI_Request rsq;
        MPI_Ireduce_scatter_block(in, part, rs, MPI_INT, MPI_SUM, inter, &rsq);
        MPI_Wait(&rsq, MPI_STATUS_IGNORE);
        for (int j = 0; j < rs; ++j)
          CHECK(part[j] == 100 * want + rs * (lr * rs + j), "inter ireduce_scatter_block [%d] %d", j, part[j]);
        free(in);
        free(part);
        free(counts);
      }
      MPI_Comm_set_errhandler(inter, MPI_ERRORS_RETURN);
      int cls = -1, e = MPI_Scan(&me, &red, 1, MPI_INT, MPI_SUM, inter);
      MPI_Error_class(e, &cls);
      CHECK(cls == MPI_ERR_COMM, "scan on an intercommunicator: class %d", cls);
      free(got);
      free(out);
    }
    /* merge: the odd group asks to go first (high = 0) */
    MPI_Intercomm_merge(inter, me % 2 == 0, &merged);
    int mr = -1, ms = -1;
    MPI_Comm_rank(merged, &mr);
    MPI_Comm_size(merged, &ms);
    const int expect = me % 2 == 1 ? me / 2 : np / 2 + me / 2;
    CHECK(ms == np && mr == expect, "merged rank %d (want %d) size %d", mr, expect, ms);
    int* order = malloc(sizeof(int) * (size_t)np);
    MPI_Allgather(&me, 1, MPI_INT, order, 1, MPI_INT, merged);
    for (int i = 0; i < np; ++i) {
      const int want = i < np / 2 ? 2 * i + 1 : 2 * (i - np / 2);
      CHECK(order[i] == want, "merged order[%d] = %d, want %d", i, order[i], want);
    }
    free(order);
    MPI_Comm_free(&merged);
    MPI_Comm_free(&inter);
    MPI_Comm_free(&half);
  }

  /* MPI_Alloc_mem, MPI-1's names, names of datatypes */
  double* mem = NULL;
  MPI_Alloc_mem(64 * sizeof(double), MPI_INFO_NULL, &mem);
  CHECK(mem != NULL, "alloc_mem gave null");
  for (int i = 0; i < 64; ++i) mem[i] = i;
  MPI_Free_mem(mem);
  MPI_Datatype vec, st;
  MPI_Type_hvector(3, 2, 4 * (MPI_Aint)sizeof(int), MPI_INT, &vec);
  MPI_Aint ext = -1, lb = -1, ub = -1;
  MPI_Type_extent(vec, &ext);
  MPI_Type_lb(vec, &lb);
  MPI_Type_ub(vec, &ub);
  CHECK(ext == 10 * (MPI_Aint)sizeof(int) && lb == 0 && ub == ext, "hvector extent %ld lb %ld ub %ld", (long)ext, (long)lb, (long)ub);
  int lens[2] = {1, 1};
  MPI_Aint displs[2] = {0, 8};
  MPI_Datatype types[2] = {MPI_INT, MPI_DOUBLE};
  MPI_Type_struct(2, lens, displs, types, &st);
  MPI_Type_extent(st, &ext);
  CHECK(ext == 16, "struct extent %ld", (long)ext);
  char name[MPI_MAX_OBJECT_NAME];
  int len = -1;
  MPI_Type_get_name(MPI_DOUBLE, name, &len);
  CHECK(strcmp(name, "MPI_DOUBLE") == 0 && len == 10, "name of MPI_DOUBLE '%s'", name);
  MPI_Type_set_name(st, "int then double");
  MPI_Type_get_name(st, name, &len);
  CHECK(strcmp(name, "int then double") == 0, "name of the struct '%s'", name);
  MPI_Type_free(&st);
  MPI_Type_free(&vec);
  int key = MPI_KEYVAL_INVALID, value = 42, *got = NULL, found = 0;
  MPI_Keyval_create(MPI_NULL_COPY_FN, MPI_NULL_DELETE_FN, &key, NULL);
  MPI_Attr_put(MPI_COMM_WORLD, key, &value);
  MPI_Attr_get(MPI_COMM_WORLD, key, &got, &found);
  CHECK(found && got == &value, "attr_get found %d", found);
  MPI_Attr_delete(MPI_COMM_WORLD, key);
  MPI_Keyval_free(&key);
  MPI_Status status;
  int count = -1, cancelled = -1;
  MPI_Status_set_elements(&status, MPI_DOUBLE, 5);
  MPI_Status_set_cancelled(&status, 1);
  MPI_Get_count(&status, MPI_DOUBLE, &count);
  MPI_Test_cancelled(&status, &cancelled);
  CHECK(count == 5 && cancelled == 1, "status setters count %d cancelled %d", count, cancelled);

  /* window attributes: set, replaced (the old value's delete runs), freed with the window */
  int deletes = 0, wkey = MPI_KEYVAL_INVALID, wflag = 0, a = 1, b = 2;
  int* wgot = NULL;
  int cells[4] = {0, 0, 0, 0};
  MPI_Win win;
  MPI_Win_create(cells, sizeof cells, sizeof(int), MPI_INFO_NULL, MPI_COMM_WORLD, &win);
  MPI_Win_create_keyval(MPI_WIN_NULL_COPY_FN, win_deletes, &wkey, &deletes);
  MPI_Win_set_attr(win, wkey, &a);
  MPI_Win_set_attr(win, wkey, &b);
  MPI_Win_get_attr(win, wkey, &wgot, &wflag);
  CHECK(wflag && wgot == &b && deletes == 1, "win attr flag %d deletes %d", wflag, deletes);
  MPI_Win_set_name(win, "cells");
  MPI_Win_get_name(win, name, &len);
  CHECK(strcmp(name, "cells") == 0 && len == 5, "window name '%s'", name);
  MPI_Win_free(&win);
  CHECK(deletes == 2, "deletes after free %d", deletes);
  MPI_Win_free_keyval(&wkey);
}

int main(int argc, char** argv) {
  struct ctx context = {0, 0, 0}, *c = &context;
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &me);
  MPI_Comm_size(MPI_COMM_WORLD, &np);
  const char* what = argc > 1 ? argv[1] : "all";
  if (strcmp(what, "fatal") == 0) { /* an error under MPI_ERRORS_ARE_FATAL ends the run, naming where */
    int v = 0;
    if (me == np - 1) MPI_Send(&v, 1, MPI_INT, np + 5, 0, MPI_COMM_WORLD);
    MPI_Barrier(MPI_COMM_WORLD);
    printf("ampi_check: the run went on after a fatal error\n");
    MPI_Finalize();
    return 0;
  }
  if (strcmp(what, "placement") == 0) { /* +vpmap: where each rank starts */
    const int rr = argc > 2 && strcmp(argv[2], "round_robin") == 0, pes = AMPI_Num_pes();
    const int want = rr ? me % pes : (int)(((long)me * pes) / np), bad = AMPI_My_pe() != want;
    if (bad) printf("ampi_check: rank %d of %d starts on PE %d, not %d (%s map)\n", me, np, AMPI_My_pe(), want,
                    rr ? "round_robin" : "block");
    int total = 0;
    MPI_Allreduce(&bad, &total, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    if (me == 0 && total == 0) printf("ampi_check: OK (placement %s, %d ranks on %d PEs)\n", rr ? "round_robin" : "block", np, pes);
    MPI_Finalize();
    return total == 0 ? 0 : 1;
  }
  int all = strcmp(what, "all") == 0;
  if (all || strcmp(what, "p2p") == 0) check_p2p(c);
  if (all || strcmp(what, "coll") == 0) check_coll(c);
  if (all || strcmp(what, "types") == 0) check_types(c);
  if (all || strcmp(what, "types") == 0) check_darray(c);
  if (all || strcmp(what, "types") == 0) check_type_decoding(c);
  if (all || strcmp(what, "comms") == 0) check_comms(c);
  if (all || strcmp(what, "topo") == 0) check_topo(c);
  if (all || strcmp(what, "nbc") == 0) check_nbc(c);
  if (all || strcmp(what, "rma") == 0) check_rma(c);
  if (all || strcmp(what, "rma") == 0) check_pscw(c);
  if (all || strcmp(what, "inter") == 0) check_inter(c);
  int total = 0;
  MPI_Allreduce(&c->failures, &total, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
  if (me == 0 && total == 0) printf("ampi_check: OK (%s, %d ranks)\n", what, np);
  if (me == 0 && total != 0) printf("ampi_check: FAILED (%d failed checks)\n", total);
  MPI_Finalize();
  return total == 0 ? 0 : 1;
}
