# The same programs across processes: the standard set on TCP nodes started
# by roamrun (1 and 2 PEs per process, 2 and 3 processes) and, when MPI is
# built, on MPI ranks. Their arguments and success lines are in shared.cmake.
set(_multiprocess_programs hello pingpong fib nqueens readme_cells jacobi2d jacobi2d_tasks reductions collectives_check
    migration_check population_check observer_check amr1d wanderer threaded_fib section_regroup_check)
if(ROAM_BUILD_EXAMPLES AND TARGET roamrun)
  foreach(prog IN LISTS _multiprocess_programs)
    foreach(config "2;1" "2;2" "3;1" "3;2")
      list(GET config 0 nodes)
      list(GET config 1 ppn)
      roam_program_test(tcp.${prog}.n${nodes}_ppn${ppn} RC 0 REGEX "${_${prog}_ok}"
                        COMMAND $<TARGET_FILE:roamrun> -n ${nodes} +ppn ${ppn} $<TARGET_FILE:${prog}> ${_${prog}_args})
      set_tests_properties(tcp.${prog}.n${nodes}_ppn${ppn} PROPERTIES LABELS "integration;tcp")
    endforeach()
  endforeach()
endif()

if(ROAM_BUILD_EXAMPLES AND ROAM_HAVE_MPI AND ROAM_MPIRUN)
  # Sanitizer settings for OpenMPI's own reports (tests/transport/mpi/mpi.cmake).
  set(_mpi_tsan_env)
  if(ROAM_MPI_TEST_ENVIRONMENT)
    set(_mpi_tsan_env ENVIRONMENT "${ROAM_MPI_TEST_ENVIRONMENT}")
  endif()
  foreach(prog IN LISTS _multiprocess_programs)
    foreach(ppn 1 2)
      roam_program_test(mpi.${prog}.n2_ppn${ppn} RC 0 REGEX "${_${prog}_ok}"
                        COMMAND ${ROAM_MPIRUN} ${ROAM_MPIRUN_FLAGS} -n 2 $<TARGET_FILE:${prog}> +ppn ${ppn} ${_${prog}_args})
      set_tests_properties(mpi.${prog}.n2_ppn${ppn} PROPERTIES LABELS "integration;mpi" ${_mpi_tsan_env})
    endforeach()
  endforeach()
endif()
