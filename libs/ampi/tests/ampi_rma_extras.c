/* ampi_rma_extras: MPI-3.1's one-sided communication beyond ampi_check's
 * rma mode (plain C, standard MPI; checks exact values on any number of
 * ranks):
 *   - request-based operations (MPI_Rput, MPI_Rget, MPI_Raccumulate,
 *     MPI_Rget_accumulate) in MPI_Win_lock_all epochs, completed by
 *     MPI_Waitall, MPI_Testsome, MPI_Waitany, MPI_Request_free; refused
 *     outside a passive-target epoch;
 *   - MPI_Win_flush_local(_all), MPI_Win_sync, MPI_Win_set_info/get_info,
 *     the flavor and memory model attributes;
 *   - dynamic windows: two regions attached by every rank, reached by
 *     absolute address (also after the rank moved, under Adaptive MPI), and
 *     an access after MPI_Win_detach refused (MPI_ERRORS_RETURN);
 *   - shared windows on MPI_Comm_split_type(MPI_COMM_TYPE_SHARED): plain
 *     stores, then the neighbours' parts read through MPI_Win_shared_query,
 *     and put/get on the same window.
 * Rank 0 prints "ampi_rma_extras: OK (N ranks)"; the program returns
 * nonzero otherwise.
 *   ampi_rma_extras unattached: rank 0 puts to memory rank 1 never attached,
 *   under MPI_ERRORS_ARE_FATAL (the run must stop, naming the window, the
 *   target and the address). */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define CHECK_PROGRAM "ampi_rma_extras"
#include "check.h"

static int error_class(int code) {
  int cls = -1;
  MPI_Error_class(code, &cls);
  return cls;
}

static int int_attr(MPI_Win win, int keyval) {
  int* value = NULL;
  int flag = 0;
  MPI_Win_get_attr(win, keyval, &value, &flag);
  return flag && value ? *value : -1;
}

/* ---- request-based operations --------------------------------------------- */
/* Each rank's window: 5 ints per origin. Origin o, at target t:
 *   [5o+0] Rput o*100+t        [5o+1] Raccumulate SUM (o+1), twice
 *   [5o+2] t*1000+o, Rget      [5o+3] 5, Rget_accumulate SUM o (fetches 5)
 *   [5o+4] 7, Rget_accumulate NO_OP (fetches 7) */
static void check_requests(struct ctx* c) {
  const int slots = 5 * np;
  int* base = NULL;
  MPI_Win win;
  MPI_Win_allocate((MPI_Aint)(slots * sizeof(int)), sizeof(int), MPI_INFO_NULL, MPI_COMM_WORLD, &base, &win);
  CHECK(int_attr(win, MPI_WIN_CREATE_FLAVOR) == MPI_WIN_FLAVOR_ALLOCATE, "flavor");
  CHECK(int_attr(win, MPI_WIN_MODEL) == MPI_WIN_UNIFIED, "model %d", int_attr(win, MPI_WIN_MODEL));
  MPI_Win_lock(MPI_LOCK_EXCLUSIVE, me, 0, win);
  for (int o = 0; o < np; ++o) {
    base[5 * o + 0] = -1;
    base[5 * o + 1] = 0;
    base[5 * o + 2] = me * 1000 + o;
    base[5 * o + 3] = 5;
    base[5 * o + 4] = 7;
  }
  MPI_Win_unlock(me, win);
  MPI_Barrier(MPI_COMM_WORLD);

  /* Outside a passive-target epoch: MPI_ERR_RMA_SYNC. */
  MPI_Win_set_errhandler(win, MPI_ERRORS_RETURN);
  int one = 1;
  MPI_Request stray = MPI_REQUEST_NULL;
  int e = MPI_Rput(&one, 1, MPI_INT, (me + 1) % np, 0, 1, MPI_INT, win, &stray);
  CHECK(error_class(e) == MPI_ERR_RMA_SYNC, "Rput outside an epoch: %d", e);
  e = MPI_Rget(&one, 1, MPI_INT, (me + 1) % np, 0, 1, MPI_INT, win, &stray);
  CHECK(error_class(e) == MPI_ERR_RMA_SYNC, "Rget outside an epoch: %d", e);

  int* put = malloc((size_t)np * sizeof(int));
  int* acc = malloc((size_t)np * sizeof(int));
  int* got = malloc((size_t)np * sizeof(int));
  int* add = malloc((size_t)np * sizeof(int));
  int* fetched = malloc((size_t)np * sizeof(int));
  int* peeked = malloc((size_t)np * sizeof(int));
  MPI_Request* reqs = malloc((size_t)(6 * np) * sizeof(MPI_Request));
  MPI_Win_lock_all(0, win);
  for (int t = 0; t < np; ++t) {
    put[t] = me * 100 + t;
    acc[t] = me + 1;
    add[t] = me;
    got[t] = fetched[t] = peeked[t] = -1;
    MPI_Request* r = reqs + 6 * t;
    MPI_Rput(&put[t], 1, MPI_INT, t, 5 * me + 0, 1, MPI_INT, win, &r[0]);
    MPI_Raccumulate(&acc[t], 1, MPI_INT, t, 5 * me + 1, 1, MPI_INT, MPI_SUM, win, &r[1]);
    MPI_Raccumulate(&acc[t], 1, MPI_INT, t, 5 * me + 1, 1, MPI_INT, MPI_SUM, win, &r[2]);
    MPI_Rget(&got[t], 1, MPI_INT, t, 5 * me + 2, 1, MPI_INT, win, &r[3]);
    MPI_Rget_accumulate(&add[t], 1, MPI_INT, &fetched[t], 1, MPI_INT, t, 5 * me + 3, 1, MPI_INT, MPI_SUM, win, &r[4]);
    MPI_Rget_accumulate(NULL, 0, MPI_INT, &peeked[t], 1, MPI_INT, t, 5 * me + 4, 1, MPI_INT, MPI_NO_OP, win, &r[5]);
  }
  /* MPI_PROC_NULL as target: nothing done, the requests complete. */
  MPI_Request none[2];
  e = MPI_Rput(&one, 1, MPI_INT, MPI_PROC_NULL, 0, 1, MPI_INT, win, &none[0]);
  e |= MPI_Rget(&one, 1, MPI_INT, MPI_PROC_NULL, 0, 1, MPI_INT, win, &none[1]);
  CHECK(e == MPI_SUCCESS, "to MPI_PROC_NULL: %d", e);
  MPI_Waitall(2, none, MPI_STATUSES_IGNORE);
  CHECK(one == 1 && none[0] == MPI_REQUEST_NULL && none[1] == MPI_REQUEST_NULL, "to MPI_PROC_NULL: %d", one);
  /* Local completion of the puts: the origin buffers may be reused now. */
  e = MPI_Waitall(6 * np, reqs, MPI_STATUSES_IGNORE);
  CHECK(e == MPI_SUCCESS, "Waitall: %d", e);
  for (int t = 0; t < np; ++t) {
    put[t] = acc[t] = -99;
    CHECK(got[t] == t * 1000 + me, "Rget from %d: %d", t, got[t]);
    CHECK(fetched[t] == 5, "Rget_accumulate from %d fetched %d", t, fetched[t]);
    CHECK(peeked[t] == 7, "Rget_accumulate NO_OP from %d fetched %d", t, peeked[t]);
  }
  MPI_Win_unlock_all(win);
  MPI_Barrier(MPI_COMM_WORLD);
  MPI_Win_lock(MPI_LOCK_SHARED, me, 0, win);
  for (int o = 0; o < np; ++o) {
    CHECK(base[5 * o + 0] == o * 100 + me, "Rput from %d: %d", o, base[5 * o + 0]);
    CHECK(base[5 * o + 1] == 2 * (o + 1), "Raccumulate from %d: %d", o, base[5 * o + 1]);
    CHECK(base[5 * o + 3] == 5 + o, "Rget_accumulate from %d: %d", o, base[5 * o + 3]);
    CHECK(base[5 * o + 4] == 7, "NO_OP from %d changed it: %d", o, base[5 * o + 4]);
  }
  MPI_Win_unlock(me, win);
  MPI_Barrier(MPI_COMM_WORLD);

  /* Testsome until done (no sleeping: each test lets the replies in),
   * Waitany, and a freed request whose reply comes later. */
  const int right = (me + 1) % np;
  MPI_Win_lock_all(0, win);
  int a = -1, b = -1, d = -1;
  MPI_Request two[2], freed;
  MPI_Rget(&a, 1, MPI_INT, right, 5 * me + 0, 1, MPI_INT, win, &two[0]);
  MPI_Rget(&b, 1, MPI_INT, right, 5 * me + 1, 1, MPI_INT, win, &two[1]);
  int done = 0;
  while (done < 2) {
    int out = 0, idx[2];
    MPI_Testsome(2, two, &out, idx, MPI_STATUSES_IGNORE);
    if (out != MPI_UNDEFINED) done += out;
  }
  CHECK(a == me * 100 + right && b == 2 * (me + 1), "Testsome'd Rgets: %d %d", a, b);
  MPI_Rget(&d, 1, MPI_INT, right, 5 * me + 2, 1, MPI_INT, win, &freed);
  MPI_Request_free(&freed);
  int f = -1, index = -1;
  MPI_Request any[2] = {MPI_REQUEST_NULL, MPI_REQUEST_NULL};
  MPI_Rget_accumulate(&one, 1, MPI_INT, &f, 1, MPI_INT, right, 5 * me + 3, 1, MPI_INT, MPI_SUM, win, &any[1]);
  MPI_Waitany(2, any, &index, MPI_STATUS_IGNORE);
  CHECK(index == 1 && f == 5 + me, "Waitany: index %d, fetched %d", index, f);
  MPI_Win_flush(right, win); /* the freed get's reply is in too */
  CHECK(d == right * 1000 + me, "freed Rget: %d", d);
  MPI_Win_unlock_all(win);

  free(put);
  free(acc);
  free(got);
  free(add);
  free(fetched);
  free(peeked);
  free(reqs);
  MPI_Win_free(&win);
}

/* ---- MPI_Win_flush_local(_all), MPI_Win_sync --------------------------------- */
static void check_flush_local(struct ctx* c) {
  int* base = NULL;
  MPI_Win win;
  MPI_Win_allocate(2 * sizeof(int), sizeof(int), MPI_INFO_NULL, MPI_COMM_WORLD, &base, &win);
  base[0] = base[1] = 0;
  MPI_Win_sync(win);
  MPI_Barrier(MPI_COMM_WORLD);
  const int right = (me + 1) % np, left = (me - 1 + np) % np;
  MPI_Win_lock_all(0, win);
  int v = me + 11;
  MPI_Put(&v, 1, MPI_INT, right, 0, 1, MPI_INT, win);
  MPI_Win_flush_local(right, win);
  v = -1; /* may be reused after the local flush: the put carries me + 11 */
  MPI_Win_flush(right, win);
  int g = -1;
  MPI_Get(&g, 1, MPI_INT, right, 0, 1, MPI_INT, win);
  MPI_Win_flush_local_all(win); /* a get is locally complete when its data is here */
  CHECK(g == me + 11, "flush_local: got %d", g);
  MPI_Accumulate(&v, 1, MPI_INT, right, 1, 1, MPI_INT, MPI_SUM, win);
  MPI_Win_flush_all(win);
  MPI_Win_unlock_all(win);
  MPI_Barrier(MPI_COMM_WORLD);
  MPI_Win_sync(win); /* the unified window's memory as the others left it */
  CHECK(base[0] == left + 11 && base[1] == -1, "flush_local at target: %d %d", base[0], base[1]);
  MPI_Win_free(&win);
}

/* ---- info hints ------------------------------------------------------------ */
static int hint_is(MPI_Info info, const char* key, const char* want) {
  char value[MPI_MAX_INFO_VAL + 1];
  int flag = 0;
  MPI_Info_get(info, key, MPI_MAX_INFO_VAL, value, &flag);
  return flag && strcmp(value, want) == 0;
}

static void check_info(struct ctx* c) {
  MPI_Info hints, used;
  MPI_Info_create(&hints);
  MPI_Info_set(hints, "no_locks", "true");
  MPI_Info_set(hints, "accumulate_ordering", "none");
  MPI_Info_set(hints, "roam_not_a_hint", "1"); /* unknown: ignored */
  int x = 0;
  MPI_Win win;
  MPI_Win_create(&x, sizeof x, sizeof x, hints, MPI_COMM_WORLD, &win);
  MPI_Info_free(&hints);
  CHECK(int_attr(win, MPI_WIN_CREATE_FLAVOR) == MPI_WIN_FLAVOR_CREATE, "flavor");
  MPI_Win_get_info(win, &used);
  CHECK(hint_is(used, "no_locks", "true"), "no_locks not true");
  CHECK(hint_is(used, "accumulate_ordering", "none"), "accumulate_ordering not none");
  CHECK(hint_is(used, "accumulate_ops", "same_op_no_op"), "accumulate_ops not the default");
  char value[MPI_MAX_INFO_VAL + 1];
  int flag = 1;
  MPI_Info_get(used, "roam_not_a_hint", MPI_MAX_INFO_VAL, value, &flag);
  CHECK(!flag, "an unknown key was kept");
  MPI_Info_free(&used);
  MPI_Info_create(&hints);
  MPI_Info_set(hints, "accumulate_ordering", "rar,war");
  MPI_Info_set(hints, "no_locks", "false");
  MPI_Win_set_info(win, hints);
  MPI_Info_free(&hints);
  MPI_Win_get_info(win, &used);
  CHECK(hint_is(used, "accumulate_ordering", "rar,war"), "accumulate_ordering after set_info");
  CHECK(hint_is(used, "no_locks", "false"), "no_locks after set_info");
  MPI_Info_free(&used);
  MPI_Win_free(&win);

  MPI_Win_create(&x, sizeof x, sizeof x, MPI_INFO_NULL, MPI_COMM_WORLD, &win);
  MPI_Win_get_info(win, &used);
  CHECK(hint_is(used, "no_locks", "false"), "no_locks not false by default");
  CHECK(hint_is(used, "accumulate_ordering", "rar,raw,war,waw"), "accumulate_ordering not the default");
  MPI_Info_free(&used);
  MPI_Win_free(&win);
}

/* ---- dynamic windows ------------------------------------------------------- */
static void check_dynamic(struct ctx* c) {
  MPI_Win win;
  MPI_Win_create_dynamic(MPI_INFO_NULL, MPI_COMM_WORLD, &win);
  MPI_Win_set_errhandler(win, MPI_ERRORS_RETURN);
  CHECK(int_attr(win, MPI_WIN_CREATE_FLAVOR) == MPI_WIN_FLAVOR_DYNAMIC, "flavor");
  int* ints = malloc(4 * sizeof(int));
  double* reals = malloc(3 * sizeof(double));
  for (int i = 0; i < 4; ++i) ints[i] = me * 10 + i;
  for (int i = 0; i < 3; ++i) reals[i] = me + 0.25 * i;
  MPI_Win_attach(win, ints, 4 * sizeof(int));
  MPI_Win_attach(win, reals, 3 * sizeof(double));
  int e = MPI_Win_attach(win, ints + 1, sizeof(int));
  CHECK(error_class(e) == MPI_ERR_RMA_ATTACH, "overlapping attach: %d", e);
  e = MPI_Win_detach(win, ints + 1);
  CHECK(error_class(e) == MPI_ERR_RMA_ATTACH, "detach of nothing: %d", e);
  MPI_Aint mine[2], *all = malloc((size_t)(2 * np) * sizeof(MPI_Aint));
  MPI_Get_address(ints, &mine[0]);
  MPI_Get_address(reals, &mine[1]);
  MPI_Allgather(mine, 2, MPI_AINT, all, 2, MPI_AINT, MPI_COMM_WORLD);
#ifdef ROAM_AMPI
  /* The rank's memory keeps its addresses where it goes. */
  AMPI_Migrate_to_pe((AMPI_My_pe() + 1) % AMPI_Num_pes());
#endif
  const int right = (me + 1) % np, left = (me - 1 + np) % np;
  MPI_Win_lock_all(0, win);
  int v = me * 1000, one = 1;
  MPI_Put(&v, 1, MPI_INT, right, MPI_Aint_add(all[2 * right], 2 * sizeof(int)), 1, MPI_INT, win);
  MPI_Accumulate(&one, 1, MPI_INT, right, MPI_Aint_add(all[2 * right], 3 * sizeof(int)), 1, MPI_INT, MPI_SUM, win);
  double r = -1;
  MPI_Request req;
  MPI_Rget(&r, 1, MPI_DOUBLE, left, MPI_Aint_add(all[2 * left + 1], sizeof(double)), 1, MPI_DOUBLE, win, &req);
  MPI_Wait(&req, MPI_STATUS_IGNORE);
  CHECK(r == left + 0.25, "Rget by address: %g", r);
  e = MPI_Win_flush_all(win);
  CHECK(e == MPI_SUCCESS, "flush_all: %d", e);
  MPI_Win_unlock_all(win);
  MPI_Barrier(MPI_COMM_WORLD);
  CHECK(ints[2] == left * 1000 && ints[3] == me * 10 + 3 + 1, "puts by address: %d %d", ints[2], ints[3]);

  /* After MPI_Win_detach: an error, reported at the next synchronization
   * (and by a get's request); the other region still answers. */
  MPI_Win_detach(win, ints);
  MPI_Barrier(MPI_COMM_WORLD);
  MPI_Win_lock_all(0, win);
  MPI_Put(&v, 1, MPI_INT, right, all[2 * right], 1, MPI_INT, win);
  e = MPI_Win_flush(right, win);
  CHECK(error_class(e) == MPI_ERR_RMA_RANGE, "put after detach, flush: %d", e);
  int lost = -7;
  MPI_Rget(&lost, 1, MPI_INT, right, all[2 * right], 1, MPI_INT, win, &req);
  MPI_Status st;
  e = MPI_Wait(&req, &st);
  CHECK(error_class(e) == MPI_ERR_RMA_RANGE && lost == -7, "Rget after detach: %d (%d)", e, lost);
  e = MPI_Win_flush(right, win);
  CHECK(error_class(e) == MPI_ERR_RMA_RANGE, "Rget after detach, flush: %d", e);
  e = MPI_Win_flush(right, win);
  CHECK(e == MPI_SUCCESS, "reported once: %d", e);
  r = -1;
  MPI_Get(&r, 1, MPI_DOUBLE, right, all[2 * right + 1], 1, MPI_DOUBLE, win);
  e = MPI_Win_unlock_all(win);
  CHECK(e == MPI_SUCCESS && r == right, "the other region after detach: %d %g", e, r);
  MPI_Barrier(MPI_COMM_WORLD);
  CHECK(ints[0] == me * 10, "detached memory written: %d", ints[0]);
  MPI_Win_detach(win, reals);
  MPI_Win_free(&win);
  free(all);
  free(ints);
  free(reals);
}

/* ---- shared windows -------------------------------------------------------- */
static void check_shared(struct ctx* c) {
  MPI_Comm node;
  MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_SHARED, 0, MPI_INFO_NULL, &node);
  int nr = -1, nn = 0;
  MPI_Comm_rank(node, &nr);
  MPI_Comm_size(node, &nn);
  int* world = malloc((size_t)nn * sizeof(int));
  MPI_Allgather(&me, 1, MPI_INT, world, 1, MPI_INT, node);
  /* Rank i of the node has i + 1 ints. */
  int* mine = NULL;
  MPI_Win win;
  MPI_Win_allocate_shared((MPI_Aint)((nr + 1) * sizeof(int)), sizeof(int), MPI_INFO_NULL, node, &mine, &win);
  MPI_Win_set_errhandler(win, MPI_ERRORS_RETURN);
  CHECK(int_attr(win, MPI_WIN_CREATE_FLAVOR) == MPI_WIN_FLAVOR_SHARED, "flavor");
  CHECK(int_attr(win, MPI_WIN_MODEL) == MPI_WIN_UNIFIED, "model %d", int_attr(win, MPI_WIN_MODEL));
  MPI_Win_lock_all(MPI_MODE_NOCHECK, win);
  for (int i = 0; i <= nr; ++i) mine[i] = 1000 * me + i; /* plain stores */
  MPI_Win_sync(win);
  MPI_Barrier(node);
  MPI_Win_sync(win);
  char* previous_end = NULL;
  for (int r = 0; r < nn; ++r) {
    MPI_Aint size = -1;
    int unit = -1;
    int* p = NULL;
    MPI_Win_shared_query(win, r, &size, &unit, &p);
    CHECK(size == (MPI_Aint)((r + 1) * sizeof(int)) && unit == (int)sizeof(int), "query %d: %ld %d", r, (long)size,
          unit);
    CHECK(previous_end == NULL || (char*)p == previous_end, "rank %d's segment is not contiguous", r);
    previous_end = (char*)p + size;
    for (int i = 0; i <= r; ++i) CHECK(p[i] == 1000 * world[r] + i, "load from %d [%d]: %d", r, i, p[i]);
  }
  int* first = NULL;
  MPI_Aint size0 = 0;
  int unit0 = 0;
  MPI_Win_shared_query(win, MPI_PROC_NULL, &size0, &unit0, &first);
  int* zero = NULL;
  MPI_Win_shared_query(win, 0, &size0, &unit0, &zero);
  CHECK(first == zero, "MPI_PROC_NULL's segment is not rank 0's");
  MPI_Barrier(node); /* everyone has read before anyone writes again */

  /* put and get on the shared window */
  const int right = (nr + 1) % nn, left = (nr - 1 + nn) % nn;
  int v = -(me + 1), g = -1;
  MPI_Put(&v, 1, MPI_INT, right, 0, 1, MPI_INT, win);
  MPI_Win_flush(right, win);
  MPI_Win_sync(win);
  MPI_Barrier(node);
  MPI_Win_sync(win);
  CHECK(mine[0] == -(world[left] + 1), "put into the shared window: %d", mine[0]);
  MPI_Get(&g, 1, MPI_INT, right, right, 1, MPI_INT, win);
  MPI_Win_flush(right, win);
  /* the last int of the right neighbour's part (its first when that is
   * rank 0's only int, which this rank's put replaced) */
  CHECK(g == (right == 0 ? v : 1000 * world[right] + right), "get from the shared window: %d", g);
  MPI_Win_unlock_all(win);
#ifdef ROAM_AMPI
  if (AMPI_Num_nodes() > 1) {
    /* A member may not leave the process while the window exists. */
    const int per_node = AMPI_Num_pes() / AMPI_Num_nodes();
    int e = AMPI_Migrate_to_pe((AMPI_My_pe() + per_node) % AMPI_Num_pes());
    CHECK(error_class(e) == MPI_ERR_RMA_SHARED, "a move out of the process: %d", e);
  }
#endif
  MPI_Win_free(&win);
  free(world);
  MPI_Comm_free(&node);
}

/* rank 0 puts to memory rank 1 never attached: the run stops. */
static void unattached(struct ctx* c) {
  MPI_Win win;
  MPI_Win_create_dynamic(MPI_INFO_NULL, MPI_COMM_WORLD, &win);
  if (me == 0 && np > 1) {
    int v = 1;
    MPI_Win_lock(MPI_LOCK_SHARED, 1, 0, win);
    MPI_Put(&v, 1, MPI_INT, 1, (MPI_Aint)0x1000, 1, MPI_INT, win);
    MPI_Win_unlock(1, win);
    fprintf(stderr, "ampi_rma_extras: went on after the refused put\n");
  }
  MPI_Barrier(MPI_COMM_WORLD);
  MPI_Win_free(&win);
}

int main(int argc, char** argv) {
  struct ctx context = {0, 0, 0}, *c = &context;
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &me);
  MPI_Comm_size(MPI_COMM_WORLD, &np);
  if (argc > 1 && strcmp(argv[1], "unattached") == 0) {
    unattached(c);
    MPI_Finalize();
    return 3;
  }
  check_requests(c);
  check_flush_local(c);
  check_info(c);
  check_dynamic(c);
  check_shared(c);
  int total = 0;
  MPI_Allreduce(&c->failures, &total, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
  if (me == 0 && total == 0) printf("ampi_rma_extras: OK (%d ranks)\n", np);
  if (me == 0 && total != 0) printf("ampi_rma_extras: FAILED (%d failed checks)\n", total);
  MPI_Finalize();
  return total == 0 ? 0 : 1;
}
