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

# Migratable threads across processes (issue #37): every second hop (2 PEs
# per process) or every hop (1) crosses to the other process; a thousand
# moves of one thread; load balancing of threads across processes;
# checkpoints of blocked threads. Their
# frames return into code at the same addresses only with address space
# randomisation off: roamrun turns it off for its children, under mpirun
# `setarch -R` does.
find_program(ROAM_SETARCH setarch)
if(ROAM_BUILD_EXAMPLES AND TARGET roamrun)
  roam_program_test(tcp.thread_migration_check.walk_n2_ppn2 RC 0 REGEX "thread_migration_check: OK \\(8 walkers, 12 hops each\\)"
                    COMMAND $<TARGET_FILE:roamrun> -n 2 +ppn 2 $<TARGET_FILE:thread_migration_check> walk)
  roam_program_test(tcp.thread_migration_check.thousand_moves_n2 RC 0 REGEX "thread_migration_check: OK \\(1 walkers, 1000 hops each\\)"
                    COMMAND $<TARGET_FILE:roamrun> -n 2 $<TARGET_FILE:thread_migration_check> walk 1 6 1000)
  # The same moves with the range shared by the two processes
  # (+isomalloc_share on): a slot's pages are the host's, adopted and left
  # without being dropped, and dropped (punched out) where the thread ends.
  roam_program_test(tcp.thread_migration_check.shared_walk_n2_ppn2 RC 0
                    EACH_REGEX "thread memory shared on the host" "thread_migration_check: OK \\(8 walkers, 12 hops each\\)"
                    COMMAND $<TARGET_FILE:roamrun> -n 2 +ppn 2 $<TARGET_FILE:thread_migration_check> +isomalloc_share on walk)
  roam_program_test(tcp.thread_migration_check.shared_thousand_moves_n2 RC 0
                    EACH_REGEX "thread memory shared on the host" "thread_migration_check: OK \\(1 walkers, 1000 hops each\\)"
                    COMMAND $<TARGET_FILE:roamrun> -n 2 $<TARGET_FILE:thread_migration_check> +isomalloc_share on walk 1 6 1000)
  roam_program_test(tcp.thread_migration_check.balance_n2_ppn2 RC 0
                    REGEX "thread_migration_check: OK \\(64 elements, 3 steps, 192 moves\\)"
                    COMMAND ${CMAKE_COMMAND} -E env ROAM_TEST_EVERY_STEP_MOVES=1
                            $<TARGET_FILE:roamrun> -n 2 +ppn 2 $<TARGET_FILE:thread_migration_check> +balancer Rotate balance 64 3)
  # Blocked threads in a disk checkpoint taken on 2 processes x 2 PEs,
  # restarted on 3 processes and on one process (setarch -R: the same code
  # addresses as roamrun's children; the newest of the directory's
  # checkpoints is the fixture's); in an in-memory checkpoint of 3
  # processes, one of them SIGKILLed, the survivors rolling back to it.
  set(_thread_ckpt ${CMAKE_CURRENT_BINARY_DIR}/thread_ckpt)
  roam_program_test(tcp.thread_migration_check.checkpoint_n2_ppn2 RC 0
                    REGEX "thread_migration_check: checkpoint written \\(8 walkers parked\\)"
                    COMMAND $<TARGET_FILE:roamrun> -n 2 +ppn 2 $<TARGET_FILE:thread_migration_check> checkpoint
                            ${_thread_ckpt})
  roam_program_test(tcp.thread_migration_check.restart_n3 RC 0
                    REGEX "restarted from .* on 3 pes.*thread_migration_check: OK \\(16 walkers, 12 hops each\\)"
                    COMMAND $<TARGET_FILE:roamrun> -n 3 $<TARGET_FILE:thread_migration_check> +restart ${_thread_ckpt})
  set(_thread_restarts tcp.thread_migration_check.restart_n3)
  find_program(ROAM_SETARCH setarch)
  if(ROAM_SETARCH)
    roam_program_test(tcp.thread_migration_check.restart_p2 RC 0
                      REGEX "restarted from .* on 2 pes.*thread_migration_check: OK \\(16 walkers, 12 hops each\\)"
                      COMMAND ${ROAM_SETARCH} -R $<TARGET_FILE:thread_migration_check> +p2 +restart ${_thread_ckpt})
    list(APPEND _thread_restarts tcp.thread_migration_check.restart_p2)
  endif()
  set_tests_properties(tcp.thread_migration_check.checkpoint_n2_ppn2 PROPERTIES FIXTURES_SETUP thread_ckpt)
  set_tests_properties(${_thread_restarts} PROPERTIES FIXTURES_REQUIRED thread_ckpt)
  roam_program_test(ft.thread_migration_check.memory_kill RC 0
                    REGEX "killing the last process.*recovered from .* on 2 pes.*thread_migration_check: OK \\(16 walkers, 12 hops each\\)"
                    COMMAND $<TARGET_FILE:roamrun> --ft -n 3 $<TARGET_FILE:thread_migration_check> checkpoint memory)
  set_tests_properties(tcp.thread_migration_check.walk_n2_ppn2 tcp.thread_migration_check.thousand_moves_n2
                       tcp.thread_migration_check.shared_walk_n2_ppn2 tcp.thread_migration_check.shared_thousand_moves_n2
                       tcp.thread_migration_check.balance_n2_ppn2 tcp.thread_migration_check.checkpoint_n2_ppn2
                       ${_thread_restarts} PROPERTIES LABELS "integration;tcp")
  set_tests_properties(ft.thread_migration_check.memory_kill PROPERTIES LABELS "integration;tcp;ft")
  # Thread heaps (isomalloc_heap) across processes, into a disk checkpoint
  # restarted on another process count, and through a process's death.
  set(_thread_heap_ckpt ${CMAKE_CURRENT_BINARY_DIR}/thread_heap_ckpt)
  roam_program_test(tcp.thread_migration_check.heap_walk_n2_ppn2 RC 0
                    REGEX "thread_migration_check: OK \\(8 walkers, 12 hops each\\)"
                    COMMAND $<TARGET_FILE:roamrun> -n 2 +ppn 2 $<TARGET_FILE:thread_migration_check> heap-walk)
  roam_program_test(tcp.thread_migration_check.shared_heap_walk_n2_ppn2 RC 0
                    EACH_REGEX "thread memory shared on the host" "thread_migration_check: OK \\(8 walkers, 12 hops each\\)"
                    COMMAND $<TARGET_FILE:roamrun> -n 2 +ppn 2 $<TARGET_FILE:thread_migration_check> +isomalloc_share on heap-walk)
  roam_program_test(ft.thread_migration_check.shared_heap_memory_kill RC 0
                    REGEX "killing the last process.*recovered from .* on 2 pes.*thread_migration_check: OK \\(16 walkers, 12 hops each\\)"
                    COMMAND $<TARGET_FILE:roamrun> --ft -n 3 $<TARGET_FILE:thread_migration_check> +isomalloc_share on heap-checkpoint memory)
  roam_program_test(tcp.thread_migration_check.heap_checkpoint_n2_ppn2 RC 0
                    REGEX "thread_migration_check: checkpoint written \\(8 walkers parked\\)"
                    COMMAND $<TARGET_FILE:roamrun> -n 2 +ppn 2 $<TARGET_FILE:thread_migration_check> heap-checkpoint
                            ${_thread_heap_ckpt})
  roam_program_test(tcp.thread_migration_check.heap_restart_n3 RC 0
                    REGEX "restarted from .* on 3 pes.*thread_migration_check: OK \\(16 walkers, 12 hops each\\)"
                    COMMAND $<TARGET_FILE:roamrun> -n 3 $<TARGET_FILE:thread_migration_check> +restart ${_thread_heap_ckpt})
  set_tests_properties(tcp.thread_migration_check.heap_checkpoint_n2_ppn2 PROPERTIES FIXTURES_SETUP thread_heap_ckpt)
  set_tests_properties(tcp.thread_migration_check.heap_restart_n3 PROPERTIES FIXTURES_REQUIRED thread_heap_ckpt)
  roam_program_test(ft.thread_migration_check.heap_memory_kill RC 0
                    REGEX "killing the last process.*recovered from .* on 2 pes.*thread_migration_check: OK \\(16 walkers, 12 hops each\\)"
                    COMMAND $<TARGET_FILE:roamrun> --ft -n 3 $<TARGET_FILE:thread_migration_check> heap-checkpoint memory)
  roam_program_test(tcp.thread_migration_check.futures_n2_ppn2 RC 0
                    REGEX "thread_migration_check: OK \\(8 callers, 12 calls each, 168 moves while waiting\\)"
                    COMMAND $<TARGET_FILE:roamrun> -n 2 +ppn 2 $<TARGET_FILE:thread_migration_check> futures)
  roam_program_test(tcp.thread_migration_check.heap_futures_n3 RC 0
                    REGEX "thread_migration_check: OK \\(6 callers, 12 calls each, 126 moves while waiting\\)"
                    COMMAND $<TARGET_FILE:roamrun> -n 3 $<TARGET_FILE:thread_migration_check> heap-futures 6)
  set_tests_properties(tcp.thread_migration_check.futures_n2_ppn2 tcp.thread_migration_check.heap_futures_n3
                       PROPERTIES LABELS "integration;tcp")
  set_tests_properties(tcp.thread_migration_check.heap_walk_n2_ppn2 tcp.thread_migration_check.heap_checkpoint_n2_ppn2
                       tcp.thread_migration_check.heap_restart_n3 PROPERTIES LABELS "integration;tcp")
  set_tests_properties(ft.thread_migration_check.heap_memory_kill ft.thread_migration_check.shared_heap_memory_kill
                       PROPERTIES LABELS "integration;tcp;ft")
  set_tests_properties(tcp.thread_migration_check.shared_heap_walk_n2_ppn2 PROPERTIES LABELS "integration;tcp")
endif()
if(ROAM_BUILD_EXAMPLES AND ROAM_HAVE_MPI AND ROAM_MPIRUN)
  if(ROAM_SETARCH)
    foreach(ppn 1 2)
      roam_program_test(mpi.thread_migration_check.walk_n2_ppn${ppn} RC 0 REGEX "thread_migration_check: OK \\(8 walkers, 12 hops each\\)"
                        COMMAND ${ROAM_MPIRUN} ${ROAM_MPIRUN_FLAGS} -n 2 ${ROAM_SETARCH} -R
                                $<TARGET_FILE:thread_migration_check> +ppn ${ppn} walk)
      set_tests_properties(mpi.thread_migration_check.walk_n2_ppn${ppn} PROPERTIES LABELS "integration;mpi" ${_mpi_tsan_env})
    endforeach()
    roam_program_test(mpi.thread_migration_check.shared_walk_n2_ppn2 RC 0
                      EACH_REGEX "thread memory shared on the host" "thread_migration_check: OK \\(8 walkers, 12 hops each\\)"
                      COMMAND ${ROAM_MPIRUN} ${ROAM_MPIRUN_FLAGS} -n 2 ${ROAM_SETARCH} -R
                              $<TARGET_FILE:thread_migration_check> +ppn 2 +isomalloc_share on walk)
    set_tests_properties(mpi.thread_migration_check.shared_walk_n2_ppn2 PROPERTIES LABELS "integration;mpi" ${_mpi_tsan_env})
    roam_program_test(mpi.thread_migration_check.heap_walk_n2_ppn2 RC 0
                      REGEX "thread_migration_check: OK \\(8 walkers, 12 hops each\\)"
                      COMMAND ${ROAM_MPIRUN} ${ROAM_MPIRUN_FLAGS} -n 2 ${ROAM_SETARCH} -R
                              $<TARGET_FILE:thread_migration_check> +ppn 2 heap-walk)
    set_tests_properties(mpi.thread_migration_check.heap_walk_n2_ppn2 PROPERTIES LABELS "integration;mpi" ${_mpi_tsan_env})
    roam_program_test(mpi.thread_migration_check.futures_n2_ppn2 RC 0
                      REGEX "thread_migration_check: OK \\(8 callers, 12 calls each, 168 moves while waiting\\)"
                      COMMAND ${ROAM_MPIRUN} ${ROAM_MPIRUN_FLAGS} -n 2 ${ROAM_SETARCH} -R
                              $<TARGET_FILE:thread_migration_check> +ppn 2 futures)
    set_tests_properties(mpi.thread_migration_check.futures_n2_ppn2 PROPERTIES LABELS "integration;mpi" ${_mpi_tsan_env})
  else()
    message(WARNING "setarch (util-linux) not found: the MPI tests of migratable threads are not run")
  endif()
endif()
