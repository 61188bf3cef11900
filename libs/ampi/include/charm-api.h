/* charm-api.h for roam's Adaptive MPI: the linkage and export macros that
 * programs written for Charm++'s AMPI take from Charm++'s header of this
 * name, so that they build unchanged with ampicc / ampicxx (installed next
 * to mpi.h). Only the macros such programs use; nothing of Charm++ itself.
 *
 *   CLINKAGE      C linkage for a definition or declaration (extern "C" in C++)
 *   FLINKAGE      the same, for functions Fortran calls
 *   CDECL, FDECL  older names of the two
 *   FTN_NAME(UPPER, lower)
 *                 the link name Fortran gives a routine: gfortran's (lower
 *                 case and one underscore)
 *   CMI_EXPORT    exported from a shared library built with -fvisibility=hidden
 */
#ifndef ROAM_AMPI_CHARM_API_H
#define ROAM_AMPI_CHARM_API_H

#ifdef __cplusplus
#define CLINKAGE extern "C"
#else
#define CLINKAGE
#endif
#define FLINKAGE CLINKAGE

#undef CDECL
#define CDECL CLINKAGE
#define FDECL FLINKAGE

#define FTN_NAME(UPPER, lower) lower##_

#if defined(__GNUC__) || defined(__clang__)
#define CMI_EXPORT __attribute__((visibility("default")))
#else
#define CMI_EXPORT
#endif

#endif /* ROAM_AMPI_CHARM_API_H */
