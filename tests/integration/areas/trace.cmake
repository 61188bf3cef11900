# Tracing (+trace, roam-trace):
# A traced run's events agree with what the program did (trace_verify.cpp),
# locally on 1, 2 and 4 PEs, on TCP nodes and on MPI ranks; roam-trace then
# writes Perfetto JSON and the HTML report from it.
if(ROAM_BUILD_EXAMPLES AND TARGET roam-trace)
  add_executable(trace_verify trace_verify.cpp)
  target_link_libraries(trace_verify PRIVATE roam_trace_reader roam_warnings)
  # jacobi2d 30x30 in 4x4 blocks: 189 iterations, 48 ghost messages each; check and start are broadcasts.
  set(_jacobi_expect "block::ghost=9072,block::check~3024,block::start~16")
  function(roam_trace_test name expect)
    set(dir ${CMAKE_CURRENT_BINARY_DIR}/traces/${name})
    string(REPLACE "@DIR@" "${dir}" cmd "${ARGN}")
    add_test(NAME ${name}
             COMMAND ${CMAKE_COMMAND} -DDIR=${dir} -DVERIFY=$<TARGET_FILE:trace_verify> -DTOOL=$<TARGET_FILE:roam-trace>
                     "-DEXPECT=${expect}" -P ${CMAKE_CURRENT_SOURCE_DIR}/trace_check.cmake -- ${cmd})
    set_tests_properties(${name} PROPERTIES TIMEOUT 120 LABELS "integration;trace")
  endfunction()
  foreach(pes 1 2 4)
    roam_trace_test(trace.jacobi2d.p${pes} "${_jacobi_expect}" $<TARGET_FILE:jacobi2d> +p${pes} +trace=@DIR@ ${_jacobi2d_args})
  endforeach()
  if(ROAM_HAVE_ZSTD)
    roam_trace_test(trace.jacobi2d.zstd_p2 "${_jacobi_expect}" $<TARGET_FILE:jacobi2d> +p2 +tracezstd +trace=@DIR@ ${_jacobi2d_args})
  endif()
  # A tiny buffer: dozens of flushes, nothing lost or doubled.
  roam_trace_test(trace.jacobi2d.small_buffer_p2 "${_jacobi_expect}" $<TARGET_FILE:jacobi2d> +p2 +tracebuf 4K +trace=@DIR@ ${_jacobi2d_args})
  roam_trace_test(trace.observer_check.p3 "" $<TARGET_FILE:observer_check> +p3 +trace=@DIR@)
  # Messages passed on towards migrated elements, multicasts to members that moved, parked messages.
  roam_trace_test(trace.migration_check.p3 "" $<TARGET_FILE:migration_check> +p3 +trace=@DIR@)
  roam_trace_test(trace.migration_check.p4 "" $<TARGET_FILE:migration_check> +p4 +trace=@DIR@)
  roam_trace_test(trace.deterministic_p3 "${_jacobi_expect}" $<TARGET_FILE:jacobi2d> +p3 +deterministic 5 +trace=@DIR@ ${_jacobi2d_args})
  if(TARGET roamrun)
    foreach(config "2;1" "2;2" "3;1")
      list(GET config 0 nodes)
      list(GET config 1 ppn)
      roam_trace_test(trace.tcp.jacobi2d.n${nodes}_ppn${ppn} "${_jacobi_expect}"
                      $<TARGET_FILE:roamrun> -n ${nodes} +ppn ${ppn} $<TARGET_FILE:jacobi2d> +trace=@DIR@ ${_jacobi2d_args})
      set_property(TEST trace.tcp.jacobi2d.n${nodes}_ppn${ppn} APPEND PROPERTY LABELS tcp)
    endforeach()
    roam_trace_test(trace.tcp.migration_check.n2_ppn2 ""
                    $<TARGET_FILE:roamrun> -n 2 +ppn 2 $<TARGET_FILE:migration_check> +trace=@DIR@)
    set_property(TEST trace.tcp.migration_check.n2_ppn2 APPEND PROPERTY LABELS tcp)
    # Node 1's clock 50 ms ahead: the measured offset must still put every arrow forward.
    roam_trace_test(trace.tcp.clock_skew_n2 "${_jacobi_expect}"
                    ${CMAKE_COMMAND} -E env ROAM_TEST_CLOCK_SKEW=1:50000000
                    $<TARGET_FILE:roamrun> -n 2 $<TARGET_FILE:jacobi2d> +trace=@DIR@ ${_jacobi2d_args})
  endif()
  # The HTML report in headless Chromium: no console error, charts drawn.
  find_program(ROAM_CHROMIUM NAMES chromium chromium-browser)
  find_package(Python3 COMPONENTS Interpreter)
  if(ROAM_CHROMIUM AND Python3_Interpreter_FOUND)
    add_test(NAME trace.report_in_browser
             COMMAND ${Python3_EXECUTABLE} ${CMAKE_CURRENT_SOURCE_DIR}/report_in_browser.py ${ROAM_CHROMIUM}
                     $<TARGET_FILE:roam-trace> $<TARGET_FILE:jacobi2d> ${CMAKE_CURRENT_BINARY_DIR}/traces/report_in_browser)
    set_tests_properties(trace.report_in_browser PROPERTIES TIMEOUT 240 LABELS "integration;trace;browser"
                         PASS_REGULAR_EXPRESSION "report_in_browser: OK")
  else()
    message(WARNING "roam: chromium NOT FOUND: the test that opens roam-trace's HTML report in a browser is not "
                    "built. Install chromium (scripts/install-deps.sh does).")
  endif()
  if(ROAM_HAVE_MPI AND ROAM_MPIRUN)
    roam_trace_test(trace.mpi.jacobi2d.n2_ppn2 "${_jacobi_expect}"
                    ${ROAM_MPIRUN} ${ROAM_MPIRUN_FLAGS} -n 2 $<TARGET_FILE:jacobi2d> +ppn 2 +trace=@DIR@ ${_jacobi2d_args})
    set_property(TEST trace.mpi.jacobi2d.n2_ppn2 APPEND PROPERTY LABELS mpi)
    if(ROAM_MPI_TEST_ENVIRONMENT)
      set_property(TEST trace.mpi.jacobi2d.n2_ppn2 PROPERTY ENVIRONMENT "${ROAM_MPI_TEST_ENVIRONMENT}")
    endif()
  endif()
endif()
