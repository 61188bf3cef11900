# roam::buffer<T> arguments and results (docs/design/zero-copy.md): one
# program, checked byte for byte, in one process (threads, +serialize), on TCP
# nodes and on MPI ranks.
add_executable(buffer_check programs/buffer_check.cpp)
target_link_libraries(buffer_check PRIVATE roam roam_warnings)
set(_buffer_ok "buffer_check: OK \\([0-9]+ checks\\)")
foreach(pes 1 2)
  roam_program_test(buffer_check.p${pes} RC 0 REGEX "${_buffer_ok}" COMMAND $<TARGET_FILE:buffer_check> +p${pes})
endforeach()
roam_program_test(buffer_check.serialize_p2 RC 0 REGEX "${_buffer_ok}"
                  COMMAND $<TARGET_FILE:buffer_check> +p2 +serialize)
if(TARGET roamrun)
  foreach(config "2;1" "2;2" "3;1")
    list(GET config 0 nodes)
    list(GET config 1 ppn)
    roam_program_test(tcp.buffer_check.n${nodes}_ppn${ppn} RC 0 REGEX "${_buffer_ok}"
                      COMMAND $<TARGET_FILE:roamrun> -n ${nodes} +ppn ${ppn} $<TARGET_FILE:buffer_check>)
    set_tests_properties(tcp.buffer_check.n${nodes}_ppn${ppn} PROPERTIES LABELS "integration;tcp")
  endforeach()
endif()
if(ROAM_HAVE_MPI AND ROAM_MPIRUN)
  foreach(config "2;1" "2;2" "3;1")
    list(GET config 0 nodes)
    list(GET config 1 ppn)
    roam_program_test(mpi.buffer_check.n${nodes}_ppn${ppn} RC 0 REGEX "${_buffer_ok}"
                      COMMAND ${ROAM_MPIRUN} ${ROAM_MPIRUN_FLAGS} -n ${nodes} $<TARGET_FILE:buffer_check> +ppn ${ppn})
    set_tests_properties(mpi.buffer_check.n${nodes}_ppn${ppn} PROPERTIES LABELS "integration;mpi")
    if(ROAM_MPI_TEST_ENVIRONMENT)
      set_tests_properties(mpi.buffer_check.n${nodes}_ppn${ppn} PROPERTIES ENVIRONMENT "${ROAM_MPI_TEST_ENVIRONMENT}")
    endif()
  endforeach()
endif()
