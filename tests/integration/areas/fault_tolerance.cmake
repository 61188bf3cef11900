# Fault tolerance (issue #17): ft_recovery.cmake kills processes of a job that
# takes in-memory checkpoints (ft_kill_driver) and checks the answer.
if(TARGET roamrun)
  add_executable(ft_kill_driver ft_kill_driver.cpp)
  target_link_libraries(ft_kill_driver PRIVATE roam_warnings)
  function(roam_ft_test name scenario)
    add_test(NAME ft.${name}
             COMMAND ${CMAKE_COMMAND} -DSCENARIO=${scenario} -DPROG=$<TARGET_FILE:checkpoint_check>
                     -DDRIVER=$<TARGET_FILE:ft_kill_driver> -DROAMRUN=$<TARGET_FILE:roamrun> ${ARGN}
                     -P ${CMAKE_CURRENT_SOURCE_DIR}/ft_recovery.cmake)
    set_tests_properties(ft.${name} PROPERTIES TIMEOUT 300 LABELS "integration;tcp;ft")
  endfunction()
  roam_ft_test(kill_random_20 kill_random -DSEEDS=1:20)
  foreach(s kill_node0 two_failures spare during_checkpoint die_now slow no_checkpoint host_dies ftcopies)
    roam_ft_test(${s} ${s})
  endforeach()
  roam_ft_test(kill_random_ppn2 kill_random -DSEEDS=21:23 -DPPN=2)
  roam_ft_test(spare_ppn2 spare -DPPN=2)
  # Over MPI: a silent rank (die_now, or stopped and then fenced) on 3 ranks.
  if(ROAM_HAVE_MPI AND ROAM_MPIRUN)
    string(REPLACE ";" "\\;" _ft_mpirun_flags "${ROAM_MPIRUN_FLAGS}")
    foreach(s mpi_die_now mpi_fenced mpi_slow mpi_spare)
      roam_ft_test(${s} ${s} -DMPIEXEC=${ROAM_MPIRUN} "-DMPIEXEC_FLAGS=${_ft_mpirun_flags}")
      set_tests_properties(ft.${s} PROPERTIES LABELS "integration;mpi;ft")
    endforeach()
    roam_ft_test(mpi_die_now_ppn2 mpi_die_now -DPPN=2 -DMPIEXEC=${ROAM_MPIRUN} "-DMPIEXEC_FLAGS=${_ft_mpirun_flags}")
    set_tests_properties(ft.mpi_die_now_ppn2 PROPERTIES LABELS "integration;mpi;ft")
    if(ROAM_MPI_TEST_ENVIRONMENT)
      foreach(s mpi_die_now mpi_fenced mpi_slow mpi_spare mpi_die_now_ppn2)
        set_tests_properties(ft.${s} PROPERTIES ENVIRONMENT "${ROAM_MPI_TEST_ENVIRONMENT}")
      endforeach()
    endif()
  endif()
  # The applications: LeanMD (forces counted: the same energy to the last
  # digit on any layout) and jacobi2d, a process killed at a random step.
  function(roam_ft_app_test name prog args result on nth)
    add_test(NAME ft.${name}
             COMMAND ${CMAKE_COMMAND} -DSCENARIO=app -DPROG=${prog} -DDRIVER=$<TARGET_FILE:ft_kill_driver>
                     -DROAMRUN=$<TARGET_FILE:roamrun> "-DAPP_ARGS=${args}" "-DRESULT=${result}" "-DON=${on}"
                     -DNTH=${nth} ${ARGN} -P ${CMAKE_CURRENT_SOURCE_DIR}/ft_recovery.cmake)
    set_tests_properties(ft.${name} PROPERTIES TIMEOUT 300 LABELS "integration;tcp;ft")
  endfunction()
  if(TARGET leanmd)
    roam_ft_app_test(leanmd.kill_random $<TARGET_FILE:leanmd>
                     "3|3|3|30|--forces|count|--print-every|1|--checkpoint-every|4|--checkpoint-dir|memory"
                     "final total energy [-0-9.e+]+" "ms/step" 6:26 -DSEEDS=1:2)
  endif()
  if(TARGET jacobi2d)
    roam_ft_app_test(jacobi2d.kill_random $<TARGET_FILE:jacobi2d>
                     "48|4|300|1e-12|--checkpoint-every|20|--checkpoint-dir|memory"
                     "jacobi2d: [0-9]+ iterations, final max change [-0-9.e+]+" "checkpoint after iteration" 2:12
                     -DSEEDS=1:3)
  endif()
endif()
