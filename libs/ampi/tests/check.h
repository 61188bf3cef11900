/* What the Adaptive MPI test programs share: a rank's context and CHECK,
 * which reports a failed condition (the program, the rank, the condition,
 * a printf-style detail, the line) and counts it. Define CHECK_PROGRAM to
 * the program's name before including. No globals: under Adaptive MPI they
 * would be shared by the ranks of a process unless privatised. */
#ifndef AMPI_TESTS_CHECK_H
#define AMPI_TESTS_CHECK_H
#include <stdio.h>

struct ctx {
  int me, np, failures;
};
#define me (c->me)
#define np (c->np)

#define CHECK(cond, ...)                                                        \
  do {                                                                          \
    if (!(cond)) {                                                              \
      fprintf(stderr, "%s: rank %d: FAILED %s: ", CHECK_PROGRAM, me, #cond);    \
      fprintf(stderr, __VA_ARGS__);                                             \
      fprintf(stderr, " (line %d)\n", __LINE__);                                \
      c->failures++;                                                            \
    }                                                                           \
  } while (0)

#endif
