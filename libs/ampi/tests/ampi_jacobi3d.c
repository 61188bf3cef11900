/* ampi_jacobi3d: a 3-D Jacobi relaxation in plain MPI (a Cartesian grid of
 * ranks, halo exchanges of the six faces with derived datatypes, an
 * Allreduce of the residual), with an injected imbalance: ranks in the first
 * half of the grid do extra (discarded) work each step. Every LB_EVERY steps
 * the ranks call AMPI_Migrate(AMPI_INFO_LB_SYNC) so the balancer can move
 * them. The result does not depend on where the ranks ran: rank 0 prints
 *   ampi_jacobi3d: N ranks, STEPS steps, checksum C, M moves
 *   ampi_jacobi3d: time T s
 * and the test compares C with a run on one PE. The extra work is
 * proportional to a rank's cells, so that the same domain cut into fewer,
 * larger blocks (a native MPI run: `mpicc` builds it too, without the
 * AMPI_ calls) has the same total work: the benchmark of docs/perf.md.
 *   ampi_jacobi3d [CELLS=12 per rank and dimension] [STEPS=40] [LB_EVERY=10]
 *                 [IMBALANCE=4] */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>

#define AT(x, y, z) (((x) * (n + 2) + (y)) * (n + 2) + (z))

static double spin(long units) {
  volatile double v = 0;
  for (long i = 0; i < units * 40000; ++i) v += 1e-9 * (double)i;
  return v;
}

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  int me, np;
  MPI_Comm_rank(MPI_COMM_WORLD, &me);
  MPI_Comm_size(MPI_COMM_WORLD, &np);
  const int n = argc > 1 ? atoi(argv[1]) : 12;
  const int steps = argc > 2 ? atoi(argv[2]) : 40;
  const int lb_every = argc > 3 ? atoi(argv[3]) : 10;
  const int imbalance = argc > 4 ? atoi(argv[4]) : 4;
  int dims[3] = {0, 0, 0}, periods[3] = {0, 0, 0}, coords[3];
  MPI_Dims_create(np, 3, dims);
  MPI_Comm grid;
  MPI_Cart_create(MPI_COMM_WORLD, 3, dims, periods, 0, &grid);
  int r;
  MPI_Comm_rank(grid, &r);
  MPI_Cart_coords(grid, r, 3, coords);
  const size_t cells = (size_t)(n + 2) * (n + 2) * (n + 2);
  double* u = calloc(cells, sizeof(double));
  double* v = calloc(cells, sizeof(double));
  /* a hot plane on the grid's x = 0 boundary */
  if (coords[0] == 0)
    for (int y = 0; y < n + 2; ++y)
      for (int z = 0; z < n + 2; ++z) u[AT(0, y, z)] = v[AT(0, y, z)] = 1.0;
  /* faces: x planes are contiguous blocks, y and z faces strided */
  MPI_Datatype xface, yface, zface;
  MPI_Type_contiguous((n + 2) * (n + 2), MPI_DOUBLE, &xface);
  MPI_Type_vector(n + 2, n + 2, (n + 2) * (n + 2), MPI_DOUBLE, &yface);
  MPI_Type_vector((n + 2) * (n + 2), 1, n + 2, MPI_DOUBLE, &zface);
  MPI_Type_commit(&xface);
  MPI_Type_commit(&yface);
  MPI_Type_commit(&zface);
  MPI_Datatype face[3] = {xface, yface, zface};
#ifdef AMPI_INFO_LB_SYNC
  int moves = 0, pe = AMPI_My_pe();
#else
  int moves = 0;
#endif
  double residual = 0;
  MPI_Barrier(MPI_COMM_WORLD);
  const double start = MPI_Wtime();
  for (int step = 1; step <= steps; ++step) {
    for (int d = 0; d < 3; ++d) {
      int lo, hi;
      MPI_Cart_shift(grid, d, 1, &lo, &hi);
      /* offsets of the first interior and first ghost plane along d */
      int first = d == 0 ? AT(1, 0, 0) : d == 1 ? AT(0, 1, 0) : AT(0, 0, 1);
      int last = d == 0 ? AT(n, 0, 0) : d == 1 ? AT(0, n, 0) : AT(0, 0, n);
      int ghost_lo = d == 0 ? AT(0, 0, 0) : 0;
      int ghost_hi = d == 0 ? AT(n + 1, 0, 0) : d == 1 ? AT(0, n + 1, 0) : AT(0, 0, n + 1);
      MPI_Sendrecv(&u[last], 1, face[d], hi, d, &u[ghost_lo], 1, face[d], lo, d, grid, MPI_STATUS_IGNORE);
      MPI_Sendrecv(&u[first], 1, face[d], lo, 10 + d, &u[ghost_hi], 1, face[d], hi, 10 + d, grid, MPI_STATUS_IGNORE);
    }
    if (coords[0] == 0) /* the boundary stays hot */
      for (int y = 0; y < n + 2; ++y)
        for (int z = 0; z < n + 2; ++z) u[AT(0, y, z)] = 1.0;
    double local = 0;
    for (int x = 1; x <= n; ++x)
      for (int y = 1; y <= n; ++y)
        for (int z = 1; z <= n; ++z) {
          const double w = (u[AT(x - 1, y, z)] + u[AT(x + 1, y, z)] + u[AT(x, y - 1, z)] + u[AT(x, y + 1, z)] +
                            u[AT(x, y, z - 1)] + u[AT(x, y, z + 1)]) / 6.0;
          local += (w - u[AT(x, y, z)]) * (w - u[AT(x, y, z)]);
          v[AT(x, y, z)] = w;
        }
    double* t = u;
    u = v;
    v = t;
    if (coords[0] < (dims[0] + 1) / 2) spin(imbalance * (long)n * n * n / 1728); /* the injected imbalance */
    MPI_Allreduce(&local, &residual, 1, MPI_DOUBLE, MPI_SUM, grid);
#ifdef AMPI_INFO_LB_SYNC
    if (lb_every > 0 && step % lb_every == 0) {
      AMPI_Migrate(AMPI_INFO_LB_SYNC);
      if (AMPI_My_pe() != pe) ++moves, pe = AMPI_My_pe();
    }
#else
    (void)lb_every;
#endif
  }
  const double elapsed = MPI_Wtime() - start;
  double sum = 0, checksum = 0;
  for (int x = 1; x <= n; ++x)
    for (int y = 1; y <= n; ++y)
      for (int z = 1; z <= n; ++z) sum += u[AT(x, y, z)] * (1 + (x + y + z) % 7);
  MPI_Reduce(&sum, &checksum, 1, MPI_DOUBLE, MPI_SUM, 0, grid);
  int all_moves = 0;
  MPI_Reduce(&moves, &all_moves, 1, MPI_INT, MPI_SUM, 0, grid);
  if (me == 0) {
    printf("ampi_jacobi3d: %d ranks, %d steps, checksum %.12e, residual %.6e, %d moves\n", np, steps, checksum,
           residual, all_moves);
    printf("ampi_jacobi3d: time %.3f s\n", elapsed);
  }
  MPI_Type_free(&xface);
  MPI_Type_free(&yface);
  MPI_Type_free(&zface);
  free(u);
  free(v);
  MPI_Finalize();
  return 0;
}
