# Library mode (issue #41, include/roam/interop/mpi_library.hpp): roam
# started by an MPI program on a communicator of its choice, called between
# MPI phases. library_mode_check splits MPI_COMM_WORLD (roam on the even
# ranks), alternates MPI collectives with 10 roam calls whose objects persist
# and move, and checks every result on every rank; --error runs one misuse.
if(NOT (ROAM_HAVE_MPI AND ROAM_MPIRUN))
  return()
endif()
add_executable(library_mode_check programs/library_mode_check.cpp)
target_link_libraries(library_mode_check PRIVATE roam roam_warnings)

set(_lib_mpi ${ROAM_MPIRUN} ${ROAM_MPIRUN_FLAGS})
function(library_mode_test name)
  roam_program_test(${name} ${ARGN})
  set_tests_properties(${name} PROPERTIES LABELS "integration;mpi;library_mode")
  if(ROAM_MPI_TEST_ENVIRONMENT)
    set_tests_properties(${name} PROPERTIES ENVIRONMENT "${ROAM_MPI_TEST_ENVIRONMENT}")
  endif()
endfunction()

library_mode_test(mpi.library_mode.half_n4 RC 0 REGEX "library_mode_check: OK, 10 calls, roam on 2 of 4 ranks with 1 pes"
                  COMMAND ${_lib_mpi} -n 4 $<TARGET_FILE:library_mode_check> --calls 10)
library_mode_test(mpi.library_mode.half_n2_ppn2 RC 0 REGEX "library_mode_check: OK, 10 calls, roam on 1 of 2 ranks with 2 pes"
                  COMMAND ${_lib_mpi} -n 2 $<TARGET_FILE:library_mode_check> --calls 10 +ppn 2)
library_mode_test(mpi.library_mode.all_n2_ppn2 RC 0
                  REGEX "an empty library_call takes.*library_mode_check: OK, 10 calls, roam on 2 of 2 ranks with 2 pes"
                  COMMAND ${_lib_mpi} -n 2 $<TARGET_FILE:library_mode_check> --calls 10 --all --empty-calls 50 +ppn 2)

# Misuse: each gives one clear message (the rank named) and loses nothing.
function(library_mode_error what regex)
  library_mode_test(mpi.library_mode.error.${what} RC 0 REGEX "${regex}"
                    COMMAND ${_lib_mpi} -n 2 $<TARGET_FILE:library_mode_check> --error ${what})
endfunction()
library_mode_error(no_mpi "MPI is not initialised: call MPI_Init_thread")
library_mode_error(single "MPI was initialised with MPI_THREAD_SINGLE")
library_mode_error(null_comm "this process is not in the communicator \\(MPI_COMM_NULL\\)")
library_mode_error(twice "library_init \\(MPI rank [0-9] of MPI_COMM_WORLD\\): called twice")
library_mode_error(call_before_init "library_call.*not running in library mode here \\(library_init first\\)")
library_mode_error(exit_twice "library_exit.*called twice")
library_mode_error(restart "it starts only once")
library_mode_error(throw "failed on PE 0: boom from the library.*after the failed call, a call returned 2 pes")
