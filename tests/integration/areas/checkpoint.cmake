# Checkpoints and restarts (issue #16): checkpoint_check (programs/) through
# the scenarios of checkpoint_restart.cmake (a program, its checkpoint and its
# restart, the checksums compared), locally, across processes and under the
# deterministic driver; and jacobi2d's through jacobi2d_restart.cmake.
add_executable(checkpoint_check programs/checkpoint_check.cpp)
target_link_libraries(checkpoint_check PRIVATE roam roam_warnings)
# roam_checkpoint_test(SCENARIO LABELS [-DVAR=VALUE...]): one scenario of
# checkpoint_restart.cmake (its header says what each one checks), in a
# scratch directory of its own.
function(roam_checkpoint_test scenario labels)
  add_test(NAME checkpoint.${scenario}
           COMMAND ${CMAKE_COMMAND} -DSCENARIO=${scenario} -DPROG=$<TARGET_FILE:checkpoint_check>
                   -DDIR=${CMAKE_CURRENT_BINARY_DIR}/ckpt/${scenario} ${ARGN}
                   -P ${CMAKE_CURRENT_SOURCE_DIR}/checkpoint_restart.cmake)
  set_tests_properties(checkpoint.${scenario} PROPERTIES TIMEOUT 120 LABELS "${labels}")
endfunction()
# Checkpoint on A PEs, restart on B; the older of two checkpoints; only two
# kept; corrupted files; another program; a full disk; +restart misused.
foreach(scenario pes_4_2 pes_4_3 pes_2_4 pes_4_1 older keep_two corrupt disk_full bad_option)
  roam_checkpoint_test(${scenario} integration)
endforeach()
roam_checkpoint_test(other_program integration -DOTHER_PROG=$<TARGET_FILE:lb_check>)
# Across processes: checkpoint on 2 processes, restart on 3, and on another transport.
if(TARGET roamrun)
  roam_checkpoint_test(tcp_2x2_3x1 "integration;tcp" -DROAMRUN=$<TARGET_FILE:roamrun>)
endif()
if(ROAM_HAVE_MPI AND ROAM_MPIRUN)
  set(_ckpt_roamrun)
  if(TARGET roamrun)
    set(_ckpt_roamrun -DROAMRUN=$<TARGET_FILE:roamrun>)
  endif()
  # A list in one -D: its ";" escaped through the arguments.
  string(REPLACE ";" "\\;" _ckpt_mpirun_flags "${ROAM_MPIRUN_FLAGS}")
  roam_checkpoint_test(mpi_2_3 "integration;mpi" -DMPIEXEC=${ROAM_MPIRUN} "-DMPIEXEC_FLAGS=${_ckpt_mpirun_flags}"
                       ${_ckpt_roamrun})
  if(ROAM_MPI_TEST_ENVIRONMENT)
    set_tests_properties(checkpoint.mpi_2_3 PROPERTIES ENVIRONMENT "${ROAM_MPI_TEST_ENVIRONMENT}")
  endif()
endif()

# Checkpoints under 15 interleavings each: taking three (quiescence, packing,
# the batches of four PEs, the manifest) and restarting (loading, rebuilding,
# restart entries, the callback) on 3 PEs; the checksum is the reference's.
set(_ckpt_sweep_dir ${CMAKE_CURRENT_BINARY_DIR}/ckpt/deterministic)
set(_ckpt_sum "checksum 4a2fe6421e3de184 tags c6b5210e47fcf6b3 cubes 4b8dd9bb101f71b6 groups 1a640e2d5cf7eb03")
roam_seed_sweep(deterministic.checkpoint_check.p4 1 15 "checkpoint written.*checkpoint written.*checkpoint written.*${_ckpt_sum}"
                $<TARGET_FILE:checkpoint_check> +p4 ${_ckpt_sweep_dir} 10 2 3 0)
roam_seed_sweep(deterministic.checkpoint_check.restart_p3 16 30 "restarted from.*${_ckpt_sum}"
                $<TARGET_FILE:checkpoint_check> +p3 +restart ${_ckpt_sweep_dir})
set_tests_properties(deterministic.checkpoint_check.p4 PROPERTIES FIXTURES_SETUP ckpt_sweep)
set_tests_properties(deterministic.checkpoint_check.restart_p3 PROPERTIES FIXTURES_REQUIRED ckpt_sweep)

# Jacobi with disk checkpoints after every 50 iterations, restarted from the
# newest and from an older one on other PE counts (and across processes):
# jacobi2d_restart.cmake runs them in order, in a scratch directory of its own.
if(ROAM_BUILD_EXAMPLES)
  add_test(NAME example.jacobi2d.checkpoint_restart
           COMMAND ${CMAKE_COMMAND} -DPROG=$<TARGET_FILE:jacobi2d> -DDIR=${CMAKE_CURRENT_BINARY_DIR}/ckpt-jacobi2d/local
                   -P ${CMAKE_CURRENT_SOURCE_DIR}/jacobi2d_restart.cmake)
  set_tests_properties(example.jacobi2d.checkpoint_restart PROPERTIES TIMEOUT 180 LABELS integration)
  if(TARGET roamrun)
    add_test(NAME tcp.jacobi2d.checkpoint_restart.n2_ppn2
             COMMAND ${CMAKE_COMMAND} -DPROG=$<TARGET_FILE:jacobi2d> -DROAMRUN=$<TARGET_FILE:roamrun>
                     -DDIR=${CMAKE_CURRENT_BINARY_DIR}/ckpt-jacobi2d/tcp_n2_ppn2
                     -P ${CMAKE_CURRENT_SOURCE_DIR}/jacobi2d_restart.cmake)
    set_tests_properties(tcp.jacobi2d.checkpoint_restart.n2_ppn2 PROPERTIES TIMEOUT 120 LABELS "integration;tcp")
  endif()
endif()
