/* ARMCI on roam, checked exactly (libs/armci).
 *
 *   armci_check ops          every call's meaning: contiguous, strided (1-3
 *                            levels, zero-length levels), vector, accumulate
 *                            of each type with scale, values, non-blocking
 *                            handles, fences, location consistency, flags,
 *                            read-modify-write, groups, the message layer
 *   armci_check atomic       contention: fetch-and-add, accumulate and
 *                            mutexes (and try-locks) from every rank at once
 *   armci_check hop          a migration storm: puts, accumulates and gets
 *                            while their targets hop PEs (AMPI_Migrate_to_pe)
 *                            and the balancer moves ranks (ARMCI_Migrate)
 *   armci_check checkpoint DIR|memory [KILLFILE]
 *                            ARMCI_Checkpoint half way (+restart DIR resumes
 *                            there); under roamrun --ft the last process
 *                            kills itself once after the in-memory one
 *   armci_check bad target|address|unlock   the errors a wrong argument gets
 *
 * Prints "armci_check: OK (MODE, N ranks...)" from rank 0. */
#define CHECK_PROGRAM "armci_check"
#include <complex.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <armci.h>
#include <armcix.h>
#include <mpi.h>

#include "../../ampi/tests/check.h"

#define BLOCK 8192 /* bytes of each rank's ARMCI_Malloc'd block */

static void contiguous_ops(struct ctx* c, void** base) {
  int right = (me + 1) % np, left = (me + np - 1) % np;
  int* mine = (int*)base[me];
  int out[256], in[256];
  for (int i = 0; i < 256; ++i) out[i] = me * 1000 + i;
  ARMCI_Put(out, base[right], sizeof out, right);
  for (int i = 0; i < 256; ++i) mine[256 + i] = me * 7 + i;
  ARMCI_Barrier();
  for (int i = 0; i < 256; ++i) CHECK(mine[i] == left * 1000 + i, "put: [%d] = %d", i, mine[i]);
  ARMCI_Get((int*)base[right] + 256, in, sizeof in, right);
  for (int i = 0; i < 256; ++i) CHECK(in[i] == right * 7 + i, "get: [%d] = %d", i, in[i]);
  /* Location consistency: a get after a put to the same place, no fence. */
  int v = 4242 + me;
  ARMCI_Put(&v, (int*)base[right] + 600, sizeof v, right);
  int back = 0;
  ARMCI_Get((int*)base[right] + 600, &back, sizeof back, right);
  CHECK(back == v, "get after put: %d", back);
  ARMCI_Barrier();
}

/* dst += scale * src of every type, from every rank into rank 0. */
static void accumulate_types(struct ctx* c, void** base) {
  enum { N = 16 };
  char* target = (char*)base[0];
  if (me == 0) memset(target, 0, 6 * N * 16);
  ARMCI_Barrier();
  int si[N], sci = 2;
  long sl[N], scl = 3;
  float sf[N], scf = 0.5f;
  double sd[N], scd = 0.25;
  float sc[2 * N], scc[2] = {1.0f, 1.0f};
  double sz[2 * N], scz[2] = {0.0, 2.0};
  for (int i = 0; i < N; ++i) {
    si[i] = i + 1, sl[i] = (long)(i + 1) << 33, sf[i] = (float)(i + 1), sd[i] = i + 1;
    sc[2 * i] = (float)(i + 1), sc[2 * i + 1] = 0.0f;
    sz[2 * i] = i + 1, sz[2 * i + 1] = 1.0;
  }
  ARMCI_Acc(ARMCI_ACC_INT, &sci, si, target, sizeof si, 0);
  ARMCI_Acc(ARMCI_ACC_LNG, &scl, sl, target + 1 * N * 16, sizeof sl, 0);
  ARMCI_Acc(ARMCI_ACC_FLT, &scf, sf, target + 2 * N * 16, sizeof sf, 0);
  ARMCI_Acc(ARMCI_ACC_DBL, &scd, sd, target + 3 * N * 16, sizeof sd, 0);
  ARMCI_Acc(ARMCI_ACC_CPL, scc, sc, target + 4 * N * 16, sizeof sc, 0);
  ARMCI_Acc(ARMCI_ACC_DCP, scz, sz, target + 5 * N * 16, sizeof sz, 0);
  ARMCI_Barrier();
  if (me == 0) {
    for (int i = 0; i < N; ++i) {
      const int* ri = (const int*)target;
      const long* rl = (const long*)(target + N * 16);
      const float* rf = (const float*)(target + 2 * N * 16);
      const double* rd = (const double*)(target + 3 * N * 16);
      const float* rc = (const float*)(target + 4 * N * 16);
      const double* rz = (const double*)(target + 5 * N * 16);
      CHECK(ri[i] == np * 2 * (i + 1), "acc int [%d] = %d", i, ri[i]);
      CHECK(rl[i] == np * 3 * ((long)(i + 1) << 33), "acc long [%d] = %ld", i, rl[i]);
      CHECK(rf[i] == np * 0.5f * (float)(i + 1), "acc float [%d] = %g", i, rf[i]);
      CHECK(rd[i] == np * 0.25 * (i + 1), "acc double [%d] = %g", i, rd[i]);
      /* (1 + 1i) * (i+1) = (i+1) + (i+1)i */
      CHECK(rc[2 * i] == np * (float)(i + 1) && rc[2 * i + 1] == np * (float)(i + 1), "acc complex [%d] = %g%+gi", i,
            rc[2 * i], rc[2 * i + 1]);
      /* 2i * ((i+1) + 1i) = -2 + 2(i+1)i */
      CHECK(rz[2 * i] == np * -2.0 && rz[2 * i + 1] == np * 2.0 * (i + 1), "acc double complex [%d] = %g%+gi", i,
            rz[2 * i], rz[2 * i + 1]);
    }
  }
  ARMCI_Barrier();
}

/* A 5x3 patch of a local 8x8 matrix into a remote 16x16 one, and back; a
 * 3-level section; zero-length levels move nothing. */
static void strided_ops(struct ctx* c, void** base) {
  int right = (me + 1) % np, left = (me + np - 1) % np;
  double* remote = (double*)base[right];
  double* mine = (double*)base[me];
  for (int i = 0; i < 16 * 16; ++i) mine[i] = -1.0;
  double local[8][8];
  for (int i = 0; i < 8; ++i)
    for (int j = 0; j < 8; ++j) local[i][j] = me * 100 + i * 8 + j;
  ARMCI_Barrier();
  int src_stride[1] = {8 * sizeof(double)}, dst_stride[1] = {16 * sizeof(double)};
  int count[2] = {3 * sizeof(double), 5};
  ARMCI_PutS(&local[1][2], src_stride, remote + 4 * 16 + 7, dst_stride, count, 1, right);
  ARMCI_Barrier();
  for (int i = 0; i < 16; ++i)
    for (int j = 0; j < 16; ++j) {
      const int inside = i >= 4 && i < 9 && j >= 7 && j < 10;
      const double want = inside ? left * 100 + (i - 4 + 1) * 8 + (j - 7 + 2) : -1.0;
      CHECK(mine[i * 16 + j] == want, "puts [%d][%d] = %g, not %g", i, j, mine[i * 16 + j], want);
    }
  double got[5][3];
  int got_stride[1] = {3 * sizeof(double)};
  ARMCI_GetS(remote + 4 * 16 + 7, dst_stride, got, got_stride, count, 1, right);
  for (int i = 0; i < 5; ++i)
    for (int j = 0; j < 3; ++j) CHECK(got[i][j] == local[i + 1][j + 2], "gets [%d][%d] = %g", i, j, got[i][j]);
  /* AccS: scale 2 onto the same patch, once everyone has checked it. */
  double two = 2.0;
  ARMCI_Barrier();
  ARMCI_AccS(ARMCI_ACC_DBL, &two, &local[1][2], src_stride, remote + 4 * 16 + 7, dst_stride, count, 1, right);
  ARMCI_Barrier();
  for (int i = 4; i < 9; ++i)
    for (int j = 7; j < 10; ++j)
      CHECK(mine[i * 16 + j] == 3.0 * (left * 100 + (i - 4 + 1) * 8 + (j - 7 + 2)), "accs [%d][%d] = %g", i, j,
            mine[i * 16 + j]);
  /* Three levels: a 2x3x4 block of ints out of a 4x5x6 cube, into a 3x4x5 one. */
  int* cube = (int*)((char*)base[me] + 4096);
  for (int i = 0; i < 60; ++i) cube[i] = -7;
  int src[4][5][6];
  for (int a = 0; a < 4; ++a)
    for (int b = 0; b < 5; ++b)
      for (int d = 0; d < 6; ++d) src[a][b][d] = me * 1000 + a * 100 + b * 10 + d;
  ARMCI_Barrier();
  int s3[2] = {6 * sizeof(int), 30 * sizeof(int)}, d3[2] = {5 * sizeof(int), 20 * sizeof(int)};
  int c3[3] = {4 * sizeof(int), 3, 2};
  ARMCI_PutS(&src[1][1][1], s3, (int*)((char*)base[right] + 4096), d3, c3, 2, right);
  ARMCI_Barrier();
  for (int a = 0; a < 3; ++a)
    for (int b = 0; b < 4; ++b)
      for (int d = 0; d < 5; ++d) {
        const int inside = a < 2 && b < 3 && d < 4;
        const int want = inside ? left * 1000 + (a + 1) * 100 + (b + 1) * 10 + (d + 1) : -7;
        CHECK(cube[a * 20 + b * 5 + d] == want, "3-level puts [%d][%d][%d] = %d", a, b, d, cube[a * 20 + b * 5 + d]);
      }
  /* Zero-length levels: nothing moves, nothing waits. */
  int z1[3] = {4 * sizeof(int), 0, 2}, z0[3] = {0, 3, 2};
  int sentinel[60];
  for (int i = 0; i < 60; ++i) sentinel[i] = 99;
  ARMCI_PutS(sentinel, s3, (int*)((char*)base[right] + 4096), d3, z1, 2, right);
  ARMCI_PutS(sentinel, s3, (int*)((char*)base[right] + 4096), d3, z0, 2, right);
  ARMCI_GetS((int*)((char*)base[right] + 4096), d3, sentinel, s3, z1, 2, right);
  ARMCI_Barrier();
  CHECK(cube[0] == left * 1000 + 111 && sentinel[0] == 99, "zero-length levels moved data: %d %d", cube[0],
        sentinel[0]);
  ARMCI_Barrier();
}

static void vector_ops(struct ctx* c, void** base) {
  int right = (me + 1) % np, left = (me + np - 1) % np;
  long* mine = (long*)base[me];
  for (int i = 0; i < 64; ++i) mine[i] = 0;
  ARMCI_Barrier();
  long a[4] = {me + 1, me + 2, me + 3, me + 4}, b[2][3];
  for (int i = 0; i < 2; ++i)
    for (int j = 0; j < 3; ++j) b[i][j] = me * 10 + i * 3 + j;
  long* r = (long*)base[right];
  void* src0[4] = {&a[0], &a[1], &a[2], &a[3]};
  void* dst0[4] = {r + 1, r + 3, r + 5, r + 7};
  void* src1[2] = {b[0], b[1]};
  void* dst1[2] = {r + 20, r + 30};
  armci_giov_t iov[2] = {{src0, dst0, sizeof(long), 4}, {src1, dst1, 3 * sizeof(long), 2}};
  ARMCI_PutV(iov, 2, right);
  ARMCI_Barrier();
  for (int i = 0; i < 4; ++i) CHECK(mine[1 + 2 * i] == left + 1 + i, "putv [%d] = %ld", 1 + 2 * i, mine[1 + 2 * i]);
  for (int j = 0; j < 3; ++j)
    CHECK(mine[20 + j] == left * 10 + j && mine[30 + j] == left * 10 + 3 + j, "putv block %d", j);
  CHECK(mine[0] == 0 && mine[2] == 0, "putv wrote between segments");
  long g[4] = {0, 0, 0, 0};
  void* gsrc[4] = {r + 7, r + 5, r + 3, r + 1};
  void* gdst[4] = {&g[0], &g[1], &g[2], &g[3]};
  armci_giov_t giov = {gsrc, gdst, sizeof(long), 4};
  ARMCI_GetV(&giov, 1, right);
  for (int i = 0; i < 4; ++i) CHECK(g[i] == me + 4 - i, "getv [%d] = %ld", i, g[i]);
  long scale = 10;
  ARMCI_Barrier(); /* everyone has checked the puts */
  ARMCI_AccV(ARMCI_ACC_LNG, &scale, iov, 1, right);
  ARMCI_Barrier();
  for (int i = 0; i < 4; ++i) CHECK(mine[1 + 2 * i] == 11 * (left + 1 + i), "accv [%d] = %ld", i, mine[1 + 2 * i]);
  ARMCI_Barrier();
}

static void nonblocking_ops(struct ctx* c, void** base) {
  int right = (me + 1) % np;
  int* mine = (int*)base[me];
  for (int i = 0; i < 1024; ++i) mine[i] = me * 3 + i;
  ARMCI_Barrier();
  int in[4][128];
  armci_hdl_t h;
  ARMCI_INIT_HANDLE(&h);
  ARMCI_SET_AGGREGATE_HANDLE(&h);
  for (int k = 0; k < 4; ++k) ARMCI_NbGet((int*)base[right] + 128 * k, in[k], sizeof in[k], right, &h);
  ARMCI_Wait(&h);
  CHECK(ARMCI_Test(&h) == 0, "a waited handle tests incomplete");
  for (int k = 0; k < 4; ++k)
    for (int i = 0; i < 128; ++i) CHECK(in[k][i] == right * 3 + 128 * k + i, "nbget [%d][%d] = %d", k, i, in[k][i]);
  armci_hdl_t one;
  ARMCI_INIT_HANDLE(&one);
  int stamp = 77 + me;
  ARMCI_NbPut(&stamp, (int*)base[right] + 700, sizeof stamp, right, &one);
  ARMCI_Wait(&one);
  int x = 0;
  ARMCI_INIT_HANDLE(&one);
  ARMCI_NbGet((int*)base[right] + 701, &x, sizeof x, right, &one);
  ARMCI_WaitProc(right);
  CHECK(x == right * 3 + 701, "waitproc: %d", x);
  ARMCI_NbGet((int*)base[right] + 702, &x, sizeof x, right, NULL);
  ARMCI_WaitAll();
  CHECK(x == right * 3 + 702, "waitall: %d", x);
  /* Fence: the put is at the target before the message that follows it. */
  if (np > 1) {
    int token = 0;
    if (me == 0) {
      int v = 31337;
      ARMCI_Put(&v, (int*)base[1] + 800, sizeof v, 1);
      ARMCI_Fence(1);
      armci_msg_snd(5, &token, sizeof token, 1);
    } else if (me == 1) {
      int len = 0;
      armci_msg_rcv(5, &token, sizeof token, &len, 0);
      CHECK(mine[800] == 31337, "fence: %d", mine[800]);
    }
  }
  ARMCI_Barrier();
}

static void value_ops(struct ctx* c, void** base) {
  int right = (me + 1) % np, left = (me + np - 1) % np;
  char* r = (char*)base[right];
  char* mine = (char*)base[me];
  ARMCI_PutValueInt(me + 5, r + 0, right);
  ARMCI_PutValueLong(((long)me << 40) + 9, r + 8, right);
  ARMCI_PutValueFloat(me + 0.5f, r + 16, right);
  ARMCI_PutValueDouble(me + 0.125, r + 24, right);
  ARMCI_Barrier();
  CHECK(*(int*)mine == left + 5 && *(long*)(mine + 8) == ((long)left << 40) + 9, "putvalue int/long");
  CHECK(*(float*)(mine + 16) == left + 0.5f && *(double*)(mine + 24) == left + 0.125, "putvalue float/double");
  CHECK(ARMCI_GetValueInt(r, right) == me + 5 && ARMCI_GetValueLong(r + 8, right) == ((long)me << 40) + 9,
        "getvalue int/long");
  CHECK(ARMCI_GetValueFloat(r + 16, right) == me + 0.5f && ARMCI_GetValueDouble(r + 24, right) == me + 0.125,
        "getvalue float/double");
  ARMCI_Barrier();
  /* Read-modify-write on rank 0: every rank adds, then swaps. */
  int* counters = (int*)base[0];
  ARMCI_Barrier(); /* everyone has read the values */
  if (me == 0) memset(counters, 0, 64);
  ARMCI_Barrier();
  int old = -1;
  ARMCI_Rmw(ARMCI_FETCH_AND_ADD, &old, counters, me + 1, 0);
  CHECK(old >= 0 && old <= np * (np + 1) / 2 - (me + 1), "fetch-and-add returned %d", old);
  long lold = -1;
  ARMCI_Rmw(ARMCI_FETCH_AND_ADD_LONG, &lold, (long*)counters + 1, 1 << 20, 0);
  ARMCI_Barrier();
  if (me == 0) {
    CHECK(counters[0] == np * (np + 1) / 2, "fetch-and-add total %d", counters[0]);
    CHECK(((long*)counters)[1] == (long)np << 20, "fetch-and-add long total %ld", ((long*)counters)[1]);
  }
  ARMCI_Barrier();
  int mine_in = 1000 + me;
  ARMCI_Rmw(ARMCI_SWAP, &mine_in, counters + 8, 0, 0);
  long lswap = 5000 + me;
  ARMCI_Rmw(ARMCI_SWAP_LONG, &lswap, (long*)counters + 5, 0, 0);
  /* Every value swapped in came out exactly once (or stayed): the set of
   * values seen plus the last one is 0 and the ranks' values. */
  int seen[2] = {mine_in, (int)lswap};
  int* all = malloc(sizeof(int) * 2 * (size_t)np);
  MPI_Allgather(seen, 2, MPI_INT, all, 2, MPI_INT, MPI_COMM_WORLD);
  ARMCI_Barrier();
  int last = ARMCI_GetValueInt(counters + 8, 0);
  long llast = ARMCI_GetValueLong((long*)counters + 5, 0);
  long sum = last, lsum = llast;
  for (int i = 0; i < np; ++i) sum += all[2 * i], lsum += all[2 * i + 1];
  long want = 0, lwant = 0;
  for (int i = 0; i < np; ++i) want += 1000 + i, lwant += 5000 + i;
  CHECK(sum == want, "swaps lost a value: %ld, not %ld", sum, want);
  CHECK(lsum == lwant, "long swaps lost a value: %ld, not %ld", lsum, lwant);
  free(all);
  ARMCI_Barrier();
}

/* The flag arrives after the data (the origin's order). */
static void flag_ops(struct ctx* c, void** base) {
  if (np < 2) return;
  int* mine = (int*)base[me];
  mine[900] = 0;
  ARMCI_Barrier();
  if (me == 0) {
    int data[32];
    for (int i = 0; i < 32; ++i) data[i] = 500 + i;
    ARMCI_Put_flag(data, (int*)base[1] + 901, sizeof data, (int*)base[1] + 900, 1, 1);
  } else if (me == 1) {
    while (*(volatile int*)&mine[900] == 0) AMPI_Yield();
    for (int i = 0; i < 32; ++i) CHECK(mine[901 + i] == 500 + i, "put_flag data [%d] = %d", i, mine[901 + i]);
  }
  ARMCI_Barrier();
}

static void group_ops(struct ctx* c) {
  int evens = (np + 1) / 2;
  int* pids = malloc(sizeof(int) * (size_t)evens);
  for (int i = 0; i < evens; ++i) pids[i] = 2 * i;
  ARMCI_Group g;
  ARMCI_Group_create(evens, pids, &g);
  if (me % 2 == 0) {
    int gr = -1, gs = 0;
    ARMCI_Group_rank(&g, &gr);
    ARMCI_Group_size(&g, &gs);
    CHECK(gr == me / 2 && gs == evens, "group rank %d size %d", gr, gs);
    for (int i = 0; i < evens; ++i) CHECK(ARMCI_Absolute_id(&g, i) == 2 * i, "absolute id of %d", i);
    void** ptrs = malloc(sizeof(void*) * (size_t)evens);
    ARMCI_Malloc_group(ptrs, 64, &g);
    int v = me, next = ARMCI_Absolute_id(&g, (gr + 1) % gs);
    ARMCI_Put(&v, ptrs[(gr + 1) % gs], sizeof v, next);
    armci_msg_group_barrier(&g);
    ARMCI_AllFence();
    armci_msg_group_barrier(&g);
    int prev = ARMCI_Absolute_id(&g, (gr + gs - 1) % gs);
    CHECK(*(int*)ptrs[gr] == prev, "group put: %d, not %d", *(int*)ptrs[gr], prev);
    long x = me;
    armci_msg_group_lgop(&x, 1, "+", &g);
    CHECK(x == (long)evens * (evens - 1), "group lgop: %ld", x);
    ARMCI_Free_group(ptrs[gr], &g);
    free(ptrs);
    ARMCI_Group_free(&g);
  }
  ARMCI_Group split;
  ARMCI_Group world;
  ARMCI_Group_get_world(&world);
  ARMCIX_Group_split(&world, me % 2, -me, &split);
  int sr = -1, ss = 0;
  ARMCI_Group_rank(&split, &sr);
  ARMCI_Group_size(&split, &ss);
  CHECK(ss == (me % 2 == 0 ? evens : np / 2) && ARMCI_Absolute_id(&split, sr) == me, "split: rank %d of %d", sr, ss);
  ARMCI_Group_free(&split);
  free(pids);
  ARMCI_Barrier();
}

static void message_ops(struct ctx* c) {
  CHECK(armci_msg_me() == me && armci_msg_nproc() == np, "armci_msg_me/nproc");
  int i3[3] = {me, -me, 1};
  armci_msg_igop(i3, 3, "+");
  CHECK(i3[0] == np * (np - 1) / 2 && i3[1] == -i3[0] && i3[2] == np, "igop +: %d %d %d", i3[0], i3[1], i3[2]);
  double d2[2] = {me * 1.5, -(double)me};
  armci_msg_dgop(d2, 2, "max");
  CHECK(d2[0] == (np - 1) * 1.5 && d2[1] == 0.0, "dgop max: %g %g", d2[0], d2[1]);
  long l1 = -(long)me;
  armci_msg_lgop(&l1, 1, "absmax");
  CHECK(l1 == np - 1, "lgop absmax: %ld", l1);
  float f1 = (float)(me + 2);
  armci_msg_fgop(&f1, 1, "min");
  CHECK(f1 == 2.0f, "fgop min: %g", f1);
  long long ll = 1;
  armci_msg_llgop(&ll, 1, "*");
  CHECK(ll == 1, "llgop *: %lld", ll);
  char text[16] = "";
  if (me == np - 1) snprintf(text, sizeof text, "from %d", me);
  armci_msg_brdcst(text, sizeof text, np - 1);
  char want[16];
  snprintf(want, sizeof want, "from %d", np - 1);
  CHECK(strcmp(text, want) == 0, "brdcst: \"%s\"", text);
  double pick[2] = {(double)((me + 1) % np), (double)me};
  armci_msg_sel(pick, sizeof pick, "max", ARMCI_DOUBLE, 1);
  CHECK(pick[0] == np - 1, "sel max: %g from %g", pick[0], pick[1]);
  int root, up, l, r;
  armci_msg_bintree(SCOPE_ALL, &root, &up, &l, &r);
  CHECK(root == 0 && up == (me == 0 ? -1 : (me - 1) / 2), "bintree up %d", up);
  if (np > 1) {
    int token = me, len = 0;
    if (me == 0) {
      for (int i = 1; i < np; ++i) {
        int from = armci_msg_rcvany(9, &token, sizeof token, &len);
        CHECK(token == from && len == sizeof token, "rcvany: %d from %d", token, from);
      }
    } else {
      armci_msg_snd(9, &token, sizeof token, 0);
    }
  }
  armci_msg_barrier();
}

static void run_ops(struct ctx* c) {
  void** base = malloc(sizeof(void*) * (size_t)np);
  ARMCI_Malloc(base, BLOCK);
  CHECK(base[me] != NULL, "my block is null");
  contiguous_ops(c, base);
  accumulate_types(c, base);
  strided_ops(c, base);
  vector_ops(c, base);
  nonblocking_ops(c, base);
  value_ops(c, base);
  flag_ops(c, base);
  ARMCI_Free(base[me]);
  /* Irregular sizes: a null block where 0 bytes were asked for. */
  ARMCI_Malloc(base, me % 2 == 0 ? 0 : 128);
  for (int i = 0; i < np; ++i) CHECK((base[i] == NULL) == (i % 2 == 0), "irregular block %d is %p", i, base[i]);
  ARMCI_Free(base[me]);
  group_ops(c);
  message_ops(c);
  free(base);
}

/* Every rank at once on the same places. */
static void run_atomic(struct ctx* c, int rounds) {
  void** base = malloc(sizeof(void*) * (size_t)np);
  ARMCI_Malloc(base, BLOCK);
  memset(base[me], 0, BLOCK);
  ARMCI_Create_mutexes(2);
  ARMCI_Barrier();
  int last = np - 1;
  int* got = malloc(sizeof(int) * (size_t)rounds);
  for (int k = 0; k < rounds; ++k) ARMCI_Rmw(ARMCI_FETCH_AND_ADD, &got[k], base[last], 1, last);
  double ones[64];
  for (int i = 0; i < 64; ++i) ones[i] = me + 1;
  double scale = 1.0;
  for (int k = 0; k < rounds; ++k) ARMCI_Acc(ARMCI_ACC_DBL, &scale, ones, (double*)base[0] + 8, sizeof ones, 0);
  /* A counter kept with a mutex: get, add, put, never atomic by itself. */
  long* counter = (long*)base[0] + 100;
  for (int k = 0; k < rounds; ++k) {
    ARMCI_Lock(1, 0);
    long v = 0;
    ARMCI_Get(counter, &v, sizeof v, 0);
    v += 1;
    ARMCI_Put(&v, counter, sizeof v, 0);
    ARMCI_Unlock(1, 0);
  }
  ARMCI_Barrier();
  int* all = malloc(sizeof(int) * (size_t)rounds * (size_t)np);
  MPI_Allgather(got, rounds, MPI_INT, all, rounds, MPI_INT, MPI_COMM_WORLD);
  char* hit = calloc((size_t)rounds * (size_t)np, 1);
  for (int i = 0; i < rounds * np; ++i) {
    CHECK(all[i] >= 0 && all[i] < rounds * np && !hit[all[i]], "fetch-and-add gave %d twice or out of range",
          all[i]);
    if (all[i] >= 0 && all[i] < rounds * np) hit[all[i]] = 1;
  }
  if (me == last) CHECK(*(int*)base[me] == rounds * np, "fetch-and-add total %d", *(int*)base[me]);
  if (me == 0) {
    for (int i = 0; i < 64; ++i)
      CHECK(((double*)base[0])[8 + i] == (double)rounds * np * (np + 1) / 2, "acc total [%d] = %g", i,
            ((double*)base[0])[8 + i]);
    CHECK(*counter == (long)rounds * np, "mutex counter %ld, not %ld", *counter, (long)rounds * np);
  }
  /* Try-locks on a set over the world: each rank takes every mutex once. */
  ARMCI_Group world;
  ARMCI_Group_get_world(&world);
  armcix_mutex_hdl_t m = ARMCIX_Create_mutexes_hdl(3, &world);
  int tries = 0;
  for (int j = 0; j < 3; ++j) {
    while (ARMCIX_Trylock_hdl(m, j, (me + j) % np) != 0) ++tries;
    ARMCIX_Unlock_hdl(m, j, (me + j) % np);
  }
  ARMCIX_Destroy_mutexes_hdl(m);
  ARMCI_Group_free(&world);
  ARMCI_Destroy_mutexes();
  ARMCI_Free(base[me]);
  free(hit);
  free(all);
  free(got);
  free(base);
}

/* Puts, accumulates and gets to ranks that hop PEs meanwhile. */
static int run_hop(struct ctx* c, int steps) {
  void** base = malloc(sizeof(void*) * (size_t)np);
  ARMCI_Malloc(base, BLOCK);
  long* mine = (long*)base[me];
  memset(mine, 0, BLOCK);
  ARMCI_Barrier();
  int moves = 0;
  const int pes = AMPI_Num_pes();
  for (int k = 1; k <= steps; ++k) {
    armci_hdl_t h;
    ARMCI_INIT_HANDLE(&h);
    ARMCI_SET_AGGREGATE_HANDLE(&h);
    for (int t = 0; t < np; ++t) {
      if (t == me) continue;
      long stamp = k * 1000L + me;
      ARMCI_NbPut(&stamp, (long*)base[t] + me, sizeof stamp, t, &h);
      long one = 1, scale = 1;
      ARMCI_NbAcc(ARMCI_ACC_LNG, &scale, &one, (long*)base[t] + 512 + me, sizeof one, t, &h);
    }
    ARMCI_Wait(&h);
    int before = AMPI_My_pe();
    AMPI_Migrate_to_pe((before + 1 + me % 2) % pes); /* puts to this rank are still on their way */
    if (AMPI_My_pe() != before) ++moves;
    if (k % 3 == 0) {
      before = AMPI_My_pe();
      ARMCI_Migrate();
      if (AMPI_My_pe() != before) ++moves;
    }
    ARMCI_Barrier();
    mine = (long*)base[me];
    for (int s = 0; s < np; ++s) {
      if (s == me) continue;
      CHECK(mine[s] == k * 1000L + s, "step %d: slot %d = %ld", k, s, mine[s]);
      CHECK(mine[512 + s] == k, "step %d: count from %d = %ld", k, s, mine[512 + s]);
    }
    /* A get from a rank that just moved. */
    int t = (me + k) % np;
    long v = -1;
    ARMCI_Get((long*)base[t] + (me + 1) % np, &v, sizeof v, t);
    if ((me + 1) % np != t) CHECK(v == k * 1000L + (me + 1) % np, "step %d: get from %d = %ld", k, t, v);
    ARMCI_Barrier();
  }
  ARMCI_Free(base[me]);
  free(base);
  int all = 0;
  MPI_Allreduce(&moves, &all, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
  return all;
}

/* Data written before ARMCI_Checkpoint is there after it (also after a
 * restart or a recovery), and operations go on. */
static void run_checkpoint(struct ctx* c, const char* where, const char* killfile) {
  void** base = malloc(sizeof(void*) * (size_t)np);
  ARMCI_Malloc(base, BLOCK);
  int right = (me + 1) % np, left = (me + np - 1) % np;
  int out[64];
  for (int i = 0; i < 64; ++i) out[i] = me * 100 + i;
  ARMCI_Put(out, base[right], sizeof out, right);
  ARMCI_Create_mutexes(1);
  ARMCI_Barrier();
  CHECK(ARMCI_Checkpoint(strcmp(where, "memory") == 0 ? "" : where) == 0, "ARMCI_Checkpoint failed");
  if (killfile && AMPI_Num_nodes() > 1 && AMPI_My_node() == AMPI_Num_nodes() - 1 && access(killfile, F_OK) != 0) {
    FILE* f = fopen(killfile, "w");
    if (f) fclose(f);
    raise(SIGKILL); /* no goodbye: the others find out */
  }
  int* mine = (int*)base[me];
  for (int i = 0; i < 64; ++i) CHECK(mine[i] == left * 100 + i, "after the checkpoint [%d] = %d", i, mine[i]);
  int in[64];
  ARMCI_Get(base[right], in, sizeof in, right);
  for (int i = 0; i < 64; ++i) CHECK(in[i] == me * 100 + i, "get after the checkpoint [%d] = %d", i, in[i]);
  ARMCI_Lock(0, 0);
  int one = 1;
  ARMCI_Acc(ARMCI_ACC_INT, &one, &one, (int*)base[0] + 100, sizeof one, 0);
  ARMCI_Unlock(0, 0);
  ARMCI_Barrier();
  if (me == 0) CHECK(((int*)base[0])[100] == np, "accumulated %d", ((int*)base[0])[100]);
  ARMCI_Destroy_mutexes();
  ARMCI_Free(base[me]);
  free(base);
}

static void run_bad(struct ctx* c, const char* what) {
  void** base = malloc(sizeof(void*) * (size_t)np);
  ARMCI_Malloc(base, BLOCK);
  int v = 1;
  if (me == 0 && strcmp(what, "target") == 0) ARMCI_Put(&v, base[0], sizeof v, np);
  if (me == 0 && strcmp(what, "address") == 0) ARMCI_Put(&v, (char*)base[np - 1] + BLOCK - 2, sizeof v, np - 1);
  if (strcmp(what, "unlock") == 0) {
    ARMCI_Create_mutexes(1);
    if (me == 0) ARMCI_Unlock(0, np - 1); /* never locked */
  }
  ARMCI_Barrier();
  fprintf(stderr, "armci_check: rank %d went on after a bad %s\n", me, what);
  ARMCI_Free(base[me]);
  free(base);
}

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  ARMCI_Init();
  struct ctx cx = {0, 0, 0}, *c = &cx;
  MPI_Comm_rank(MPI_COMM_WORLD, &me);
  MPI_Comm_size(MPI_COMM_WORLD, &np);
  const char* mode = argc > 1 ? argv[1] : "ops";
  char detail[64] = "";
  if (strcmp(mode, "ops") == 0) {
    run_ops(c);
  } else if (strcmp(mode, "atomic") == 0) {
    run_atomic(c, 40);
  } else if (strcmp(mode, "hop") == 0) {
    int moves = run_hop(c, 9);
    snprintf(detail, sizeof detail, ", moved");
    CHECK(moves > 0, "no rank moved");
  } else if (strcmp(mode, "checkpoint") == 0 && argc > 2) {
    run_checkpoint(c, argv[2], argc > 3 ? argv[3] : NULL);
  } else if (strcmp(mode, "bad") == 0 && argc > 2) {
    run_bad(c, argv[2]);
  } else {
    if (me == 0) fprintf(stderr, "usage: armci_check ops|atomic|hop|checkpoint DIR|memory [KILLFILE]|bad target|address|unlock\n");
    ARMCI_Finalize();
    MPI_Finalize();
    return 2;
  }
  int failures = 0;
  MPI_Allreduce(&c->failures, &failures, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
  if (me == 0 && failures == 0) printf("armci_check: OK (%s, %d ranks%s)\n", mode, np, detail);
  ARMCI_Finalize();
  MPI_Finalize();
  return failures == 0 ? 0 : 1;
}
