# Failures across processes: roam::exit's code from any process, reports of
# waiting tasks from every node, an exit while a node is still starting, a
# layout that +p contradicts, a process killed mid-run (programs from
# error_programs/, errors.cmake).
if(TARGET roamrun)
  # roam::exit from the last PE of the last node ends every process with its code.
  foreach(config "2;1" "3;2")
    list(GET config 0 nodes)
    list(GET config 1 ppn)
    math(EXPR pes "${nodes} * ${ppn}")
    math(EXPR pes_last "${pes} - 1")
    roam_program_test(tcp.exit_code.n${nodes}_ppn${ppn} RC 7 REGEX "pe ${pes_last} of ${pes} calls roam::exit\\(7\\)"
                      COMMAND $<TARGET_FILE:roamrun> -n ${nodes} +ppn ${ppn} $<TARGET_FILE:err_exit_code>)
    set_tests_properties(tcp.exit_code.n${nodes}_ppn${ppn} PROPERTIES LABELS "integration;tcp")
  endforeach()
  # Reports of waiting tasks come from every node (roamrun tags other nodes' lines).
  roam_program_test(tcp.waiting_tasks.n2_ppn2 RC 0
                    EACH_REGEX "stuck_tasks: reported on 4 pes"
                               "\\[node 1\\] \\[pe 3/4\\] 1 unfinished task:\n\\[node 1\\]   array waiter\\[3\\]: 1 task\n\\[node 1\\]     mailbox waiter::step: 1 receive waits \\(ref 103\\)"
                    COMMAND $<TARGET_FILE:roamrun> -n 2 +ppn 2 $<TARGET_FILE:err_stuck_tasks>)
  set_tests_properties(tcp.waiting_tasks.n2_ppn2 PROPERTIES LABELS "integration;tcp")
  # roam::exit on node 0 while the last node is still starting (held back after
  # its transport is up): that node must take the exit, not hang.
  foreach(ppn 1 2)
    roam_program_test(tcp.exit_while_starting.n3_ppn${ppn} RC 3 REGEX "pe 0 of [36] calls roam::exit\\(3\\)"
                      NOT_REGEX "gave up|stopping node"
                      ENV "ROAM_TEST_SLOW_START=2:1500"
                      COMMAND $<TARGET_FILE:roamrun> -n 3 +ppn ${ppn} $<TARGET_FILE:err_exit_at_once>)
    set_tests_properties(tcp.exit_while_starting.n3_ppn${ppn} PROPERTIES LABELS "integration;tcp")
  endforeach()
  # +p must match nodes x +ppn under a launcher.
  roam_program_test(tcp.p_disagrees_with_layout RC 2 REGEX "\\+p 3 disagrees with 2 nodes x \\+ppn 1"
                    LABELS "integration;tcp" COMMAND $<TARGET_FILE:roamrun> -n 2 $<TARGET_FILE:err_exit_at_once> +p 3)
  # A process killed mid-run: the survivors name it and the launcher fails.
  foreach(ppn 1 2)
    roam_program_test(tcp.node_dies.n3_ppn${ppn} RC nonzero REGEX "roam: node 2 failed" NOT_REGEX "unreachable"
                      COMMAND $<TARGET_FILE:roamrun> -n 3 +ppn ${ppn} $<TARGET_FILE:err_node_dies>)
    set_tests_properties(tcp.node_dies.n3_ppn${ppn} PROPERTIES LABELS "integration;tcp")
  endforeach()
endif()
if(ROAM_BUILD_EXAMPLES AND ROAM_HAVE_MPI AND ROAM_MPIRUN)
  # Sanitizer settings for OpenMPI's own reports (tests/transport/mpi/mpi.cmake).
  set(_mpi_tsan_env)
  if(ROAM_MPI_TEST_ENVIRONMENT)
    set(_mpi_tsan_env ENVIRONMENT "${ROAM_MPI_TEST_ENVIRONMENT}")
  endif()
  roam_program_test(mpi.exit_code.n2_ppn2 RC 7 REGEX "pe 3 of 4 calls roam::exit\\(7\\)"
                    COMMAND ${ROAM_MPIRUN} ${ROAM_MPIRUN_FLAGS} -n 2 $<TARGET_FILE:err_exit_code> +ppn 2)
  set_tests_properties(mpi.exit_code.n2_ppn2 PROPERTIES LABELS "integration;mpi" ${_mpi_tsan_env})
  roam_program_test(mpi.exit_while_starting.n2_ppn2 RC 3 REGEX "pe 0 of 4 calls roam::exit\\(3\\)" NOT_REGEX "gives up"
                    ENV "ROAM_TEST_SLOW_START=1:1500" ${ROAM_MPI_TEST_ENVIRONMENT}
                    COMMAND ${ROAM_MPIRUN} ${ROAM_MPIRUN_FLAGS} -n 2 $<TARGET_FILE:err_exit_at_once> +ppn 2)
  set_tests_properties(mpi.exit_while_starting.n2_ppn2 PROPERTIES LABELS "integration;mpi")
endif()
