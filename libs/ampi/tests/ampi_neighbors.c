/* ampi_neighbors: distributed graph topologies and neighbourhood
 * collectives (MPI-3.1 sections 7.5.4 and 7.6), checked exactly (plain C,
 * standard MPI only), on any number of ranks:
 *   ampi_neighbors [seed] [+vp N +p P ...]
 * - MPI_Dist_graph_create_adjacent (a weighted ring, the last rank without
 *   neighbours when there are more than 2) and MPI_Dist_graph_create (an
 *   unweighted ring, and a random graph from `seed` with repeated edges,
 *   self edges and weights, named by ranks other than their ends): the
 *   neighbours, counts, weights and MPI_UNWEIGHTED, MPI_Topo_test, the
 *   topology through MPI_Comm_dup;
 * - every neighbourhood collective, blocking and non-blocking (all five
 *   started at once), on a 2-D periodic grid, the same grid without
 *   periods (MPI_PROC_NULL neighbours: their slots untouched), a graph and
 *   those distributed graphs; a receive of the program's posted on the
 *   communicator throughout must not take their messages;
 * - the errors: no topology (MPI_ERR_TOPOLOGY), bad degrees and ranks.
 * Rank 0 prints "ampi_neighbors: OK (N ranks)" when every rank agreed;
 * the program returns nonzero otherwise, each failure printed. */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* No globals: under Adaptive MPI they would be shared by the ranks of a
 * process unless privatised. */
struct ctx {
  int me, np, failures;
  const char* where; /* the topology being checked */
};

#define CHECK(cond, ...)                                                                   \
  do {                                                                                     \
    if (!(cond)) {                                                                         \
      fprintf(stderr, "ampi_neighbors: rank %d: %s: FAILED %s: ", c->me, c->where, #cond); \
      fprintf(stderr, __VA_ARGS__);                                                        \
      fprintf(stderr, " (line %d)\n", __LINE__);                                           \
      c->failures++;                                                                       \
    }                                                                                      \
  } while (0)

/* ---- every rank's neighbours, as the test expects them ----------------- */
/* in[r][i]: in-neighbour i of rank r (or MPI_PROC_NULL); out[r][j] likewise;
 * match[r][i]: which out-slot of in[r][i] fills in-slot i of rank r. */
struct nbrs {
  int np;
  int *indeg, *outdeg;
  int **in, **out, **match;
};

static void* xcalloc(size_t n, size_t size) {
  void* p = calloc(n + 1, size); /* never NULL for zero degrees */
  if (!p) {
    fprintf(stderr, "ampi_neighbors: out of memory\n");
    exit(3);
  }
  return p;
}

static struct nbrs nbrs_new(int np) {
  struct nbrs n;
  n.np = np;
  n.indeg = xcalloc((size_t)np, sizeof(int));
  n.outdeg = xcalloc((size_t)np, sizeof(int));
  n.in = xcalloc((size_t)np, sizeof(int*));
  n.out = xcalloc((size_t)np, sizeof(int*));
  n.match = xcalloc((size_t)np, sizeof(int*));
  return n;
}

static void nbrs_free(struct nbrs* n) {
  for (int r = 0; r < n->np; ++r) free(n->in[r]), free(n->out[r]), free(n->match[r]);
  free(n->indeg), free(n->outdeg), free(n->in), free(n->out), free(n->match);
}

/* Graphs: the k-th time b names a as an in-neighbour, a's k-th out-slot
 * naming b (messages between two ranks arrive in order). */
static void match_by_order(struct ctx* c, struct nbrs* n) {
  for (int b = 0; b < n->np; ++b) {
    n->match[b] = xcalloc((size_t)n->indeg[b], sizeof(int));
    for (int i = 0; i < n->indeg[b]; ++i) {
      const int a = n->in[b][i];
      int k = 0;
      for (int p = 0; p < i; ++p) k += n->in[b][p] == a;
      n->match[b][i] = -1;
      for (int j = 0; j < n->outdeg[a]; ++j)
        if (n->out[a][j] == b && k-- == 0) {
          n->match[b][i] = j;
          break;
        }
      CHECK(n->match[b][i] >= 0, "the graph is inconsistent: rank %d's in-edge %d from %d has no out-edge", b, i, a);
    }
  }
}

/* A grid's neighbours computed here (row-major, as MPI's): per dimension the
 * rank one step down then one step up; what a rank sent up fills the down
 * slot of the rank above it. */
static struct nbrs nbrs_cart(int np, int ndims, const int dims[], const int periods[]) {
  struct nbrs n = nbrs_new(np);
  for (int r = 0; r < np; ++r) {
    int coords[8];
    for (int d = ndims - 1, x = r; d >= 0; --d) coords[d] = x % dims[d], x /= dims[d];
    n.indeg[r] = n.outdeg[r] = 2 * ndims;
    n.in[r] = xcalloc((size_t)(2 * ndims), sizeof(int));
    n.out[r] = xcalloc((size_t)(2 * ndims), sizeof(int));
    n.match[r] = xcalloc((size_t)(2 * ndims), sizeof(int));
    for (int d = 0; d < ndims; ++d) {
      for (int s = 0; s < 2; ++s) {
        int at[8];
        memcpy(at, coords, sizeof(at));
        at[d] += s ? 1 : -1;
        int rank = 0, null = 0;
        for (int e = 0; e < ndims; ++e) {
          int x = at[e];
          if (x < 0 || x >= dims[e]) {
            if (!periods[e]) null = 1;
            x = (x + dims[e]) % dims[e];
          }
          rank = rank * dims[e] + x;
        }
        n.in[r][2 * d + s] = n.out[r][2 * d + s] = null ? MPI_PROC_NULL : rank;
        n.match[r][2 * d + s] = 2 * d + (1 - s);
      }
    }
  }
  return n;
}

/* ---- the five collectives on one neighbourhood --------------------------- */
/* Sent values name the sender, its out-slot and the element. */
static int V(int sender, int slot, int e) { return sender * 1000000 + slot * 1000 + e; }
/* allgatherv's count of rank s, alltoallv's of rank s's out-slot j */
static int gcount(int s) { return 1 + s % 3; }
static int vcount(int s, int j) { return 1 + (s + j) % 3; }

enum { K_ALLGATHER, K_ALLGATHERV, K_ALLTOALL, K_ALLTOALLV, K_ALLTOALLW, K_N };
static const char* const kind_name[K_N] = {"allgather", "allgatherv", "alltoall", "alltoallv", "alltoallw"};

struct exch {
  int *sbuf, *rbuf, *expect, rlen;
  int *scounts, *sdispls, *rcounts, *rdispls;
  MPI_Aint *swdispls, *rwdispls;
  MPI_Datatype *stypes, *rtypes;
};

/* Fills the send side, the receive buffer (-1 everywhere) and what it
 * must hold afterwards (untouched slots and gaps still -1). Slots are laid
 * out in reverse order with a gap after each where displacements allow. */
static void setup(int kind, int me, const struct nbrs* n, struct exch* x, MPI_Datatype vec2, MPI_Datatype pair) {
  const int indeg = n->indeg[me], outdeg = n->outdeg[me];
  const int* in = n->in[me];
  const int* match = n->match[me];
  memset(x, 0, sizeof(*x));
  x->scounts = xcalloc((size_t)outdeg, sizeof(int));
  x->sdispls = xcalloc((size_t)outdeg, sizeof(int));
  x->rcounts = xcalloc((size_t)indeg, sizeof(int));
  x->rdispls = xcalloc((size_t)indeg, sizeof(int));
  x->swdispls = xcalloc((size_t)outdeg, sizeof(MPI_Aint));
  x->rwdispls = xcalloc((size_t)indeg, sizeof(MPI_Aint));
  x->stypes = xcalloc((size_t)outdeg, sizeof(MPI_Datatype));
  x->rtypes = xcalloc((size_t)indeg, sizeof(MPI_Datatype));
  int slen = 0;
  switch (kind) {
    case K_ALLGATHER:
    case K_ALLGATHERV: slen = 3; break;
    case K_ALLTOALL: slen = 2 * outdeg; break;
    case K_ALLTOALLV:
      for (int j = 0; j < outdeg; ++j) slen += vcount(me, j) + 1;
      break;
    case K_ALLTOALLW: slen = 3 * outdeg; break;
  }
  switch (kind) {
    case K_ALLGATHER:
    case K_ALLTOALL: x->rlen = 2 * indeg; break;
    case K_ALLGATHERV:
      for (int i = 0; i < indeg; ++i) x->rlen += (in[i] == MPI_PROC_NULL ? 2 : gcount(in[i])) + 1;
      break;
    case K_ALLTOALLV:
      for (int i = 0; i < indeg; ++i) x->rlen += (in[i] == MPI_PROC_NULL ? 1 : vcount(in[i], match[i])) + 1;
      break;
    case K_ALLTOALLW: x->rlen = 3 * indeg; break;
  }
  x->sbuf = xcalloc((size_t)slen, sizeof(int));
  x->rbuf = xcalloc((size_t)x->rlen, sizeof(int));
  x->expect = xcalloc((size_t)x->rlen, sizeof(int));
  for (int k = 0; k < slen; ++k) x->sbuf[k] = -2;
  for (int k = 0; k < x->rlen; ++k) x->rbuf[k] = x->expect[k] = -1;
  int pos = slen;
  switch (kind) {
    case K_ALLGATHER:
    case K_ALLGATHERV:
      for (int e = 0; e < 3; ++e) x->sbuf[e] = V(me, 0, e); /* allgatherv sends gcount(me) of them */
      break;
    case K_ALLTOALL:
      for (int j = 0; j < outdeg; ++j) x->sbuf[2 * j] = V(me, j, 0), x->sbuf[2 * j + 1] = V(me, j, 1);
      break;
    case K_ALLTOALLV:
      for (int j = 0; j < outdeg; ++j) {
        x->scounts[j] = vcount(me, j);
        pos -= x->scounts[j] + 1;
        x->sdispls[j] = pos;
        for (int e = 0; e < x->scounts[j]; ++e) x->sbuf[pos + e] = V(me, j, e);
      }
      break;
    case K_ALLTOALLW: /* even slots: 2 MPI_INTs; odd: one vec2 (ints 0 and 2) */
      for (int j = 0; j < outdeg; ++j) {
        const int at = 3 * (outdeg - 1 - j);
        x->swdispls[j] = (MPI_Aint)at * (MPI_Aint)sizeof(int);
        x->scounts[j] = j % 2 ? 1 : 2;
        x->stypes[j] = j % 2 ? vec2 : MPI_INT;
        x->sbuf[at] = V(me, j, 0);
        x->sbuf[at + (j % 2 ? 2 : 1)] = V(me, j, 1);
      }
      break;
  }
  pos = x->rlen;
  for (int i = 0; i < indeg; ++i) {
    const int from = in[i];
    int at = 0, count = 0;
    switch (kind) {
      case K_ALLGATHER: at = 2 * i, count = 2; break;
      case K_ALLTOALL: at = 2 * i, count = 2; break;
      case K_ALLGATHERV:
        x->rcounts[i] = from == MPI_PROC_NULL ? 2 : gcount(from);
        pos -= x->rcounts[i] + 1;
        x->rdispls[i] = at = pos, count = x->rcounts[i];
        break;
      case K_ALLTOALLV:
        x->rcounts[i] = from == MPI_PROC_NULL ? 1 : vcount(from, match[i]);
        pos -= x->rcounts[i] + 1;
        x->rdispls[i] = at = pos, count = x->rcounts[i];
        break;
      case K_ALLTOALLW: /* even slots: one pair; odd: 2 MPI_INTs */
        at = 3 * (indeg - 1 - i) + 1, count = 2;
        x->rwdispls[i] = (MPI_Aint)at * (MPI_Aint)sizeof(int);
        x->rcounts[i] = i % 2 ? 2 : 1;
        x->rtypes[i] = i % 2 ? MPI_INT : pair;
        break;
    }
    if (from == MPI_PROC_NULL) continue;
    const int slot = kind == K_ALLGATHER || kind == K_ALLGATHERV ? 0 : match[i];
    for (int e = 0; e < count; ++e) x->expect[at + e] = V(from, slot, e);
  }
}

static void exch_free(struct exch* x) {
  free(x->sbuf), free(x->rbuf), free(x->expect), free(x->scounts), free(x->sdispls), free(x->rcounts);
  free(x->rdispls), free(x->swdispls), free(x->rwdispls), free(x->stypes), free(x->rtypes);
}

/* The collective, blocking (request NULL) or not. */
static int call(int kind, MPI_Comm comm, struct exch* x, MPI_Request* request) {
  switch (kind) {
    case K_ALLGATHER:
      return request ? MPI_Ineighbor_allgather(x->sbuf, 2, MPI_INT, x->rbuf, 2, MPI_INT, comm, request)
                     : MPI_Neighbor_allgather(x->sbuf, 2, MPI_INT, x->rbuf, 2, MPI_INT, comm);
    case K_ALLGATHERV: {
      int me;
      MPI_Comm_rank(comm, &me);
      return request ? MPI_Ineighbor_allgatherv(x->sbuf, gcount(me), MPI_INT, x->rbuf, x->rcounts, x->rdispls, MPI_INT,
                                                comm, request)
                     : MPI_Neighbor_allgatherv(x->sbuf, gcount(me), MPI_INT, x->rbuf, x->rcounts, x->rdispls, MPI_INT,
                                               comm);
    }
    case K_ALLTOALL:
      return request ? MPI_Ineighbor_alltoall(x->sbuf, 2, MPI_INT, x->rbuf, 2, MPI_INT, comm, request)
                     : MPI_Neighbor_alltoall(x->sbuf, 2, MPI_INT, x->rbuf, 2, MPI_INT, comm);
    case K_ALLTOALLV:
      return request ? MPI_Ineighbor_alltoallv(x->sbuf, x->scounts, x->sdispls, MPI_INT, x->rbuf, x->rcounts,
                                               x->rdispls, MPI_INT, comm, request)
                     : MPI_Neighbor_alltoallv(x->sbuf, x->scounts, x->sdispls, MPI_INT, x->rbuf, x->rcounts,
                                              x->rdispls, MPI_INT, comm);
    case K_ALLTOALLW:
      return request ? MPI_Ineighbor_alltoallw(x->sbuf, x->scounts, x->swdispls, x->stypes, x->rbuf, x->rcounts,
                                               x->rwdispls, x->rtypes, comm, request)
                     : MPI_Neighbor_alltoallw(x->sbuf, x->scounts, x->swdispls, x->stypes, x->rbuf, x->rcounts,
                                              x->rwdispls, x->rtypes, comm);
  }
  return MPI_ERR_OTHER;
}

static void verify(struct ctx* c, int kind, int nonblocking, const struct exch* x) {
  for (int k = 0; k < x->rlen; ++k)
    CHECK(x->rbuf[k] == x->expect[k], "%s%s: receive buffer[%d] = %d, expected %d", nonblocking ? "MPI_Ineighbor_" : "MPI_Neighbor_",
          kind_name[kind], k, x->rbuf[k], x->expect[k]);
}

/* Every collective blocking, then all five non-blocking at once, with a
 * receive of the program's (any source, any tag) posted on `comm` all along:
 * only the message sent for it at the end may complete it. */
static void run_collectives(struct ctx* c, MPI_Comm comm, const struct nbrs* n) {
  MPI_Datatype vec2, pair;
  MPI_Type_vector(2, 1, 2, MPI_INT, &vec2);
  MPI_Type_commit(&vec2);
  MPI_Type_contiguous(2, MPI_INT, &pair);
  MPI_Type_commit(&pair);
  int mine = -1, me = -1;
  MPI_Comm_rank(comm, &me);
  CHECK(me == c->me, "rank %d in the topology, %d in world (no reordering)", me, c->me);
  MPI_Request user;
  MPI_Irecv(&mine, 1, MPI_INT, MPI_ANY_SOURCE, MPI_ANY_TAG, comm, &user);
  struct exch x[K_N];
  for (int k = 0; k < K_N; ++k) {
    setup(k, me, n, &x[k], vec2, pair);
    int rc = call(k, comm, &x[k], NULL);
    CHECK(rc == MPI_SUCCESS, "MPI_Neighbor_%s returned %d", kind_name[k], rc);
    verify(c, k, 0, &x[k]);
    exch_free(&x[k]);
  }
  int flag = 1;
  MPI_Test(&user, &flag, MPI_STATUS_IGNORE);
  CHECK(!flag, "the program's receive took a message of a neighbourhood collective (value %d)", mine);
  MPI_Request reqs[K_N];
  for (int k = 0; k < K_N; ++k) {
    setup(k, me, n, &x[k], vec2, pair);
    int rc = call(k, comm, &x[k], &reqs[k]);
    CHECK(rc == MPI_SUCCESS, "MPI_Ineighbor_%s returned %d", kind_name[k], rc);
  }
  MPI_Status st[K_N];
  int rc = MPI_Waitall(K_N, reqs, st);
  CHECK(rc == MPI_SUCCESS, "MPI_Waitall of the non-blocking ones returned %d", rc);
  for (int k = 0; k < K_N; ++k) {
    verify(c, k, 1, &x[k]);
    exch_free(&x[k]);
  }
  MPI_Test(&user, &flag, MPI_STATUS_IGNORE);
  CHECK(!flag, "the program's receive took a message of a non-blocking neighbourhood collective (value %d)", mine);
  const int token = 4242 + me;
  MPI_Send(&token, 1, MPI_INT, me, 99, comm);
  MPI_Status ust;
  MPI_Wait(&user, &ust);
  CHECK(mine == token && ust.MPI_TAG == 99 && ust.MPI_SOURCE == me, "the program's receive got %d tag %d from %d",
        mine, ust.MPI_TAG, ust.MPI_SOURCE);
  MPI_Type_free(&vec2);
  MPI_Type_free(&pair);
}

/* ---- Cartesian grids and graphs ------------------------------------------ */
static void check_cart(struct ctx* c, int periodic) {
  c->where = periodic ? "2-D periodic grid" : "2-D grid without periods";
  int dims[2] = {0, 0}, periods[2] = {periodic, periodic};
  MPI_Dims_create(c->np, 2, dims);
  MPI_Comm cart;
  MPI_Cart_create(MPI_COMM_WORLD, 2, dims, periods, 0, &cart);
  struct nbrs n = nbrs_cart(c->np, 2, dims, periods);
  for (int d = 0; d < 2; ++d) {
    int source, dest;
    MPI_Cart_shift(cart, d, 1, &source, &dest);
    CHECK(source == n.in[c->me][2 * d] && dest == n.in[c->me][2 * d + 1], "dimension %d: shift %d %d, the test %d %d", d,
          source, dest, n.in[c->me][2 * d], n.in[c->me][2 * d + 1]);
  }
  run_collectives(c, cart, &n);
  int indeg, outdeg, weighted;
  MPI_Comm_set_errhandler(cart, MPI_ERRORS_RETURN);
  int rc = MPI_Dist_graph_neighbors_count(cart, &indeg, &outdeg, &weighted);
  int cls = -1;
  MPI_Error_class(rc, &cls);
  CHECK(cls == MPI_ERR_TOPOLOGY, "MPI_Dist_graph_neighbors_count on a grid: class %d", cls);
  nbrs_free(&n);
  MPI_Comm_free(&cart);
}

/* A ring of the first np-1 ranks (all of them for np <= 2), the edge 0-1
 * once more, and the last rank without neighbours. */
static void check_graph(struct ctx* c) {
  c->where = "graph";
  const int np = c->np, ring = np > 2 ? np - 1 : np;
  struct nbrs n = nbrs_new(np);
  for (int r = 0; r < np; ++r) {
    n.in[r] = xcalloc(3, sizeof(int));
    n.out[r] = xcalloc(3, sizeof(int));
    if (r >= ring) continue;
    int k = 0;
    n.in[r][k++] = (r + 1) % ring;
    n.in[r][k++] = (r - 1 + ring) % ring;
    if (ring > 1 && r < 2) n.in[r][k++] = 1 - r;
    n.indeg[r] = n.outdeg[r] = k;
    memcpy(n.out[r], n.in[r], 3 * sizeof(int));
  }
  int* index = xcalloc((size_t)np, sizeof(int));
  int* edges = xcalloc((size_t)(3 * np), sizeof(int));
  for (int r = 0, e = 0; r < np; ++r) {
    for (int k = 0; k < n.indeg[r]; ++k) edges[e++] = n.in[r][k];
    index[r] = e;
  }
  match_by_order(c, &n);
  MPI_Comm graph;
  MPI_Graph_create(MPI_COMM_WORLD, np, index, edges, 0, &graph);
  int count = -1, got[3] = {-1, -1, -1};
  MPI_Graph_neighbors_count(graph, c->me, &count);
  MPI_Graph_neighbors(graph, c->me, 3, got);
  CHECK(count == n.indeg[c->me], "MPI_Graph_neighbors_count %d, expected %d", count, n.indeg[c->me]);
  for (int k = 0; k < count && k < 3; ++k)
    CHECK(got[k] == n.in[c->me][k], "neighbour %d is %d, expected %d", k, got[k], n.in[c->me][k]);
  run_collectives(c, graph, &n);
  free(index), free(edges);
  nbrs_free(&n);
  MPI_Comm_free(&graph);
}

/* ---- distributed graphs ------------------------------------------------- */
static int cmp_pair(const void* a, const void* b) {
  const int* x = a;
  const int* y = b;
  return x[0] != y[0] ? (x[0] > y[0]) - (x[0] < y[0]) : (x[1] > y[1]) - (x[1] < y[1]);
}

/* Whether `n` (rank, weight) pairs equal `m` others, in any order. */
static int same_pairs(int* a, int n, int* b, int m) {
  if (n != m) return 0;
  qsort(a, (size_t)n, 2 * sizeof(int), cmp_pair);
  qsort(b, (size_t)m, 2 * sizeof(int), cmp_pair);
  return memcmp(a, b, (size_t)n * 2 * sizeof(int)) == 0;
}

/* The topology of `comm` as every rank reports it, gathered, with the
 * weights of each end of each edge checked to agree. */
static struct nbrs gather_dist_graph(struct ctx* c, MPI_Comm comm) {
  const int np = c->np;
  int deg[3];
  MPI_Dist_graph_neighbors_count(comm, &deg[0], &deg[1], &deg[2]);
  int* srcs = xcalloc((size_t)deg[0], sizeof(int));
  int* sw = xcalloc((size_t)deg[0], sizeof(int));
  int* dsts = xcalloc((size_t)deg[1], sizeof(int));
  int* dw = xcalloc((size_t)deg[1], sizeof(int));
  MPI_Dist_graph_neighbors(comm, deg[0], srcs, deg[2] ? sw : MPI_UNWEIGHTED, deg[1], dsts, deg[2] ? dw : MPI_UNWEIGHTED);
  int* all = xcalloc((size_t)(3 * np), sizeof(int));
  MPI_Allgather(deg, 3, MPI_INT, all, 3, MPI_INT, comm);
  struct nbrs n = nbrs_new(np);
  int *counts = xcalloc((size_t)np, sizeof(int)), *displs = xcalloc((size_t)np, sizeof(int));
  int** weights_in = xcalloc((size_t)np, sizeof(int*));
  int** weights_out = xcalloc((size_t)np, sizeof(int*));
  for (int side = 0; side < 2; ++side) {
    int total = 0;
    for (int r = 0; r < np; ++r) counts[r] = all[3 * r + side], displs[r] = total, total += counts[r];
    int* lists = xcalloc((size_t)total, sizeof(int));
    int* wlists = xcalloc((size_t)total, sizeof(int));
    MPI_Allgatherv(side ? dsts : srcs, deg[side], MPI_INT, lists, counts, displs, MPI_INT, comm);
    MPI_Allgatherv(side ? dw : sw, deg[side], MPI_INT, wlists, counts, displs, MPI_INT, comm);
    for (int r = 0; r < np; ++r) {
      int* list = xcalloc((size_t)counts[r], sizeof(int));
      int* wl = xcalloc((size_t)counts[r], sizeof(int));
      memcpy(list, lists + displs[r], (size_t)counts[r] * sizeof(int));
      memcpy(wl, wlists + displs[r], (size_t)counts[r] * sizeof(int));
      if (side) n.out[r] = list, n.outdeg[r] = counts[r], weights_out[r] = wl;
      else n.in[r] = list, n.indeg[r] = counts[r], weights_in[r] = wl;
    }
    free(lists), free(wlists);
  }
  match_by_order(c, &n);
  if (deg[2])
    for (int i = 0; i < n.indeg[c->me]; ++i) {
      const int a = n.in[c->me][i], j = n.match[c->me][i];
      if (j >= 0)
        CHECK(weights_in[c->me][i] == weights_out[a][j], "in-edge %d from %d weighs %d, its out-edge %d there %d", i, a,
              weights_in[c->me][i], j, weights_out[a][j]);
    }
  for (int r = 0; r < np; ++r) free(weights_in[r]), free(weights_out[r]);
  free(weights_in), free(weights_out), free(counts), free(displs), free(all);
  free(srcs), free(sw), free(dsts), free(dw);
  return n;
}

/* Checks what MPI_Dist_graph_neighbors* say against the expected
 * (rank, weight) pairs, in order or as multisets. */
static void check_dist_neighbors(struct ctx* c, MPI_Comm comm, int weighted, int* in_pairs, int indeg, int* out_pairs,
                                 int outdeg, int ordered) {
  int topo = -1;
  MPI_Topo_test(comm, &topo);
  CHECK(topo == MPI_DIST_GRAPH, "MPI_Topo_test %d", topo);
  int i_n = -1, o_n = -1, w = -1;
  MPI_Dist_graph_neighbors_count(comm, &i_n, &o_n, &w);
  CHECK(i_n == indeg && o_n == outdeg && w == weighted, "counts %d %d weighted %d, expected %d %d %d", i_n, o_n, w, indeg,
        outdeg, weighted);
  if (i_n != indeg || o_n != outdeg) return;
  int* s = xcalloc((size_t)indeg, sizeof(int));
  int* sw = xcalloc((size_t)indeg, sizeof(int));
  int* d = xcalloc((size_t)outdeg, sizeof(int));
  int* dw = xcalloc((size_t)outdeg, sizeof(int));
  MPI_Dist_graph_neighbors(comm, indeg, s, weighted ? sw : MPI_UNWEIGHTED, outdeg, d, weighted ? dw : MPI_UNWEIGHTED);
  int* got_in = xcalloc((size_t)(2 * indeg), sizeof(int));
  int* got_out = xcalloc((size_t)(2 * outdeg), sizeof(int));
  for (int k = 0; k < indeg; ++k) got_in[2 * k] = s[k], got_in[2 * k + 1] = weighted ? sw[k] : in_pairs[2 * k + 1];
  for (int k = 0; k < outdeg; ++k) got_out[2 * k] = d[k], got_out[2 * k + 1] = weighted ? dw[k] : out_pairs[2 * k + 1];
  if (ordered) {
    for (int k = 0; k < indeg; ++k)
      CHECK(got_in[2 * k] == in_pairs[2 * k] && got_in[2 * k + 1] == in_pairs[2 * k + 1], "source %d: %d weight %d, expected %d %d",
            k, got_in[2 * k], got_in[2 * k + 1], in_pairs[2 * k], in_pairs[2 * k + 1]);
    for (int k = 0; k < outdeg; ++k)
      CHECK(got_out[2 * k] == out_pairs[2 * k] && got_out[2 * k + 1] == out_pairs[2 * k + 1],
            "destination %d: %d weight %d, expected %d %d", k, got_out[2 * k], got_out[2 * k + 1], out_pairs[2 * k],
            out_pairs[2 * k + 1]);
  } else {
    CHECK(same_pairs(got_in, indeg, in_pairs, indeg), "the sources and their weights differ from the edges given");
    CHECK(same_pairs(got_out, outdeg, out_pairs, outdeg), "the destinations and their weights differ from the edges given");
  }
  free(s), free(sw), free(d), free(dw), free(got_in), free(got_out);
}

/* MPI_Dist_graph_create_adjacent: a weighted ring of the first np-1 ranks
 * (sources: left then right; destinations: right then left; weights name
 * the edge), the last rank alone with MPI_WEIGHTS_EMPTY; then through
 * MPI_Comm_dup. */
static void check_adjacent(struct ctx* c) {
  c->where = "MPI_Dist_graph_create_adjacent ring";
  const int np = c->np, me = c->me, ring = np > 2 ? np - 1 : np;
  int in_pairs[4], out_pairs[4], srcs[2], sw[2], dsts[2], dw[2], deg = 0;
  if (me < ring) {
    const int left = (me - 1 + ring) % ring, right = (me + 1) % ring;
    srcs[0] = left, sw[0] = 100 * left + me, srcs[1] = right, sw[1] = 100 * right + me;
    dsts[0] = right, dw[0] = 100 * me + right, dsts[1] = left, dw[1] = 100 * me + left;
    deg = 2;
  }
  for (int k = 0; k < deg; ++k) {
    in_pairs[2 * k] = srcs[k], in_pairs[2 * k + 1] = sw[k];
    out_pairs[2 * k] = dsts[k], out_pairs[2 * k + 1] = dw[k];
  }
  MPI_Comm g, dup;
  int rc = MPI_Dist_graph_create_adjacent(MPI_COMM_WORLD, deg, srcs, deg ? sw : MPI_WEIGHTS_EMPTY, deg, dsts,
                                          deg ? dw : MPI_WEIGHTS_EMPTY, MPI_INFO_NULL, 1, &g);
  CHECK(rc == MPI_SUCCESS, "MPI_Dist_graph_create_adjacent returned %d", rc);
  check_dist_neighbors(c, g, 1, in_pairs, deg, out_pairs, deg, 1);
  MPI_Comm_dup(g, &dup);
  c->where = "MPI_Dist_graph_create_adjacent ring, duplicated";
  check_dist_neighbors(c, dup, 1, in_pairs, deg, out_pairs, deg, 1);
  struct nbrs n = gather_dist_graph(c, dup);
  run_collectives(c, dup, &n);
  nbrs_free(&n);
  c->where = "MPI_Dist_graph_create_adjacent ring";
  n = gather_dist_graph(c, g);
  run_collectives(c, g, &n);
  nbrs_free(&n);
  MPI_Comm_free(&dup);
  MPI_Comm_free(&g);
}

/* MPI_Dist_graph_create, unweighted: each rank names its own two edges
 * (MPICH's dgraph_unwgt ring). */
static void check_general_ring(struct ctx* c) {
  c->where = "MPI_Dist_graph_create unweighted ring";
  const int np = c->np, me = c->me;
  const int left = (me - 1 + np) % np, right = (me + 1) % np;
  int src = me, degree = 2, dsts[2] = {left, right};
  MPI_Comm g;
  int rc = MPI_Dist_graph_create(MPI_COMM_WORLD, 1, &src, &degree, dsts, MPI_UNWEIGHTED, MPI_INFO_NULL, 0, &g);
  CHECK(rc == MPI_SUCCESS, "MPI_Dist_graph_create returned %d", rc);
  int in_pairs[4] = {left, 0, right, 0}, out_pairs[4] = {left, 0, right, 0};
  check_dist_neighbors(c, g, 0, in_pairs, 2, out_pairs, 2, 0);
  struct nbrs n = gather_dist_graph(c, g);
  run_collectives(c, g, &n);
  nbrs_free(&n);
  MPI_Comm_free(&g);
}

/* The edges rank r names in the random graph, drawn from `seed` (every
 * rank draws every rank's, so each knows the whole graph): up to 2 random
 * sources of up to 3 random destinations each, weights 0-99; rank 0 also
 * names 0->1 twice and rank 1 names it once more. The last rank (of more
 * than 2) is on no edge. Returns the count; edges[3k..3k+2] = src, dst, w. */
static int random_edges(unsigned seed, int r, int np, int* edges) {
  const int active = np > 2 ? np - 1 : np;
  int n = 0;
  if (r >= active) return 0;
  unsigned s = seed * 2654435761u + (unsigned)r * 40503u + 1u;
#define DRAW() (s = s * 1103515245u + 12345u, (int)((s >> 16) & 0x7fff))
  const int sources = DRAW() % 3;
  for (int i = 0; i < sources; ++i) {
    const int src = DRAW() % active, degree = DRAW() % 4;
    for (int d = 0; d < degree; ++d) {
      edges[3 * n] = src, edges[3 * n + 1] = DRAW() % active, edges[3 * n + 2] = DRAW() % 100;
      ++n;
    }
  }
#undef DRAW
  if (active > 1 && r == 0)
    for (int k = 0; k < 2; ++k) edges[3 * n] = 0, edges[3 * n + 1] = 1, edges[3 * n + 2] = 50 + k, ++n;
  if (active > 1 && r == 1) edges[3 * n] = 0, edges[3 * n + 1] = 1, edges[3 * n + 2] = 60, ++n;
  return n;
}

static void check_random_graph(struct ctx* c, unsigned seed) {
  c->where = "MPI_Dist_graph_create random graph";
  const int np = c->np, me = c->me;
  enum { MAX_EDGES = 9 };
  int mine[3 * MAX_EDGES];
  const int n = random_edges(seed, me, np, mine);
  /* as MPI_Dist_graph_create takes them: one entry per edge (sources repeat) */
  int srcs[MAX_EDGES], degrees[MAX_EDGES], dsts[MAX_EDGES], w[MAX_EDGES];
  for (int k = 0; k < n; ++k) srcs[k] = mine[3 * k], degrees[k] = 1, dsts[k] = mine[3 * k + 1], w[k] = mine[3 * k + 2];
  MPI_Comm g, dup;
  int rc = MPI_Dist_graph_create(MPI_COMM_WORLD, n, srcs, degrees, dsts, n ? w : MPI_WEIGHTS_EMPTY, MPI_INFO_NULL, 1, &g);
  CHECK(rc == MPI_SUCCESS, "MPI_Dist_graph_create returned %d", rc);
  /* every edge that ends here, from every rank's draw */
  int* in_pairs = xcalloc((size_t)(2 * MAX_EDGES * np), sizeof(int));
  int* out_pairs = xcalloc((size_t)(2 * MAX_EDGES * np), sizeof(int));
  int indeg = 0, outdeg = 0;
  for (int r = 0; r < np; ++r) {
    int e[3 * MAX_EDGES];
    const int m = random_edges(seed, r, np, e);
    for (int k = 0; k < m; ++k) {
      if (e[3 * k + 1] == me) in_pairs[2 * indeg] = e[3 * k], in_pairs[2 * indeg + 1] = e[3 * k + 2], ++indeg;
      if (e[3 * k] == me) out_pairs[2 * outdeg] = e[3 * k + 1], out_pairs[2 * outdeg + 1] = e[3 * k + 2], ++outdeg;
    }
  }
  check_dist_neighbors(c, g, 1, in_pairs, indeg, out_pairs, outdeg, 0);
  if (np > 2 && me == np - 1) CHECK(indeg == 0 && outdeg == 0, "the last rank has edges (%d in, %d out)", indeg, outdeg);
  MPI_Comm_dup(g, &dup);
  c->where = "MPI_Dist_graph_create random graph, duplicated";
  struct nbrs nb = gather_dist_graph(c, dup);
  run_collectives(c, dup, &nb);
  nbrs_free(&nb);
  free(in_pairs), free(out_pairs);
  MPI_Comm_free(&dup);
  MPI_Comm_free(&g);
}

/* ---- errors ------------------------------------------------------------- */
static void check_errors(struct ctx* c) {
  c->where = "errors";
  MPI_Comm plain;
  MPI_Comm_dup(MPI_COMM_WORLD, &plain);
  MPI_Comm_set_errhandler(plain, MPI_ERRORS_RETURN);
  int sbuf[2] = {0, 0}, rbuf[2] = {0, 0}, cls = -1, topo = 0;
  MPI_Topo_test(plain, &topo);
  CHECK(topo == MPI_UNDEFINED, "MPI_Topo_test without a topology: %d", topo);
  int rc = MPI_Neighbor_allgather(sbuf, 1, MPI_INT, rbuf, 1, MPI_INT, plain);
  MPI_Error_class(rc, &cls);
  CHECK(cls == MPI_ERR_TOPOLOGY, "MPI_Neighbor_allgather without a topology: class %d", cls);
  MPI_Request req = MPI_REQUEST_NULL;
  rc = MPI_Ineighbor_alltoall(sbuf, 1, MPI_INT, rbuf, 1, MPI_INT, plain, &req);
  MPI_Error_class(rc, &cls);
  CHECK(cls == MPI_ERR_TOPOLOGY, "MPI_Ineighbor_alltoall without a topology: class %d", cls);
  int ranks[1] = {c->np}, weights[1] = {1};
  MPI_Comm g = MPI_COMM_NULL;
  rc = MPI_Dist_graph_create_adjacent(plain, -1, ranks, MPI_UNWEIGHTED, 0, ranks, MPI_UNWEIGHTED, MPI_INFO_NULL, 0, &g);
  MPI_Error_class(rc, &cls);
  CHECK(cls == MPI_ERR_ARG, "a negative indegree: class %d", cls);
  rc = MPI_Dist_graph_create_adjacent(plain, 1, ranks, weights, 0, ranks, MPI_WEIGHTS_EMPTY, MPI_INFO_NULL, 0, &g);
  MPI_Error_class(rc, &cls);
  CHECK(cls == MPI_ERR_RANK, "source %d in a communicator of %d: class %d", c->np, c->np, cls);
  int zero[1] = {0}, minus[1] = {-1};
  rc = MPI_Dist_graph_create(plain, 1, zero, minus, ranks, MPI_UNWEIGHTED, MPI_INFO_NULL, 0, &g);
  MPI_Error_class(rc, &cls);
  CHECK(cls == MPI_ERR_ARG, "a negative degree: class %d", cls);
  int one[1] = {1};
  rc = MPI_Dist_graph_create(plain, 1, zero, one, ranks, MPI_UNWEIGHTED, MPI_INFO_NULL, 0, &g);
  MPI_Error_class(rc, &cls);
  CHECK(cls == MPI_ERR_RANK, "destination %d in a communicator of %d: class %d", c->np, c->np, cls);
  CHECK(g == MPI_COMM_NULL, "a communicator was made by a failed call");
  int a, b, w;
  rc = MPI_Dist_graph_neighbors_count(plain, &a, &b, &w);
  MPI_Error_class(rc, &cls);
  CHECK(cls == MPI_ERR_TOPOLOGY, "MPI_Dist_graph_neighbors_count without a topology: class %d", cls);
  MPI_Comm_free(&plain);
}

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  struct ctx cx = {0, 0, 0, "setup"};
  struct ctx* c = &cx;
  MPI_Comm_rank(MPI_COMM_WORLD, &c->me);
  MPI_Comm_size(MPI_COMM_WORLD, &c->np);
  unsigned seed = 20261129u;
  if (argc > 1) seed = (unsigned)strtoul(argv[1], NULL, 10);
  if (c->me == 0) printf("ampi_neighbors: random graph seed %u\n", seed);
  check_cart(c, 1);
  check_cart(c, 0);
  check_graph(c);
  check_adjacent(c);
  check_general_ring(c);
  check_random_graph(c, seed);
  check_errors(c);
  int total = 0;
  MPI_Allreduce(&c->failures, &total, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
  if (c->me == 0) {
    if (total == 0) printf("ampi_neighbors: OK (%d ranks)\n", c->np);
    else printf("ampi_neighbors: %d FAILED checks (%d ranks, seed %u)\n", total, c->np, seed);
    fflush(stdout);
  }
  MPI_Finalize();
  return total == 0 ? 0 : 1;
}
