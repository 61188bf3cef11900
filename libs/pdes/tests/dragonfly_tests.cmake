# The dragonfly model (apps/dragonfly): a small network (a 4, p 2, h 2: 9
# groups, 36 routers, 72 terminals and processes, 180 LPs) commits the same
# events and prints the same network statistics under every scheduler, on 1,
# 2 and 4 PEs, for each traffic pattern (counts from the sequential run).
# Included from libs/pdes/tests/CMakeLists.txt.
if(TARGET dragonfly)
  set(_df $<TARGET_FILE:dragonfly>)
  set(_small --a 4 --p 2 --h 2 --messages 20)
  # traffic; committed events; the statistics line (latency avg and max, hops)
  set(_uniform_count 29264)
  set(_uniform_stats "latency avg 1849\\.323 ns, max 4296\\.965 ns. hops avg 2\\.3306 per packet")
  set(_transpose_count 27040)
  set(_transpose_stats "latency avg 1611\\.170 ns, max 4520\\.211 ns. hops avg 1\\.9444 per packet")
  set(_neighbor_count 19688)
  set(_neighbor_stats "latency avg 1107\\.582 ns, max 2686\\.251 ns. hops avg 0\\.6681 per packet")

  # traffic;synch;PEs;extra option: every scheduler, every pattern, 4 PEs
  # several times; one LP per chare (many remote events and rollbacks).
  foreach(case "uniform;sequential;1" "uniform;conservative;2" "uniform;optimistic;4" "uniform;optimistic-check;2"
               "transpose;sequential;1" "transpose;optimistic;2" "transpose;conservative;4" "transpose;optimistic-check;1"
               "neighbor;sequential;1" "neighbor;conservative;1" "neighbor;optimistic;4;--lps-per-chare=1"
               "neighbor;optimistic-check;4")
    list(GET case 0 traffic)
    list(GET case 1 synch)
    list(GET case 2 pes)
    set(extra)
    set(suffix)
    list(LENGTH case n)
    if(n GREATER 3)
      list(GET case 3 opt)
      string(REPLACE "=" ";" extra "${opt}")
      set(suffix .one_lp_per_chare)
    endif()
    set(gvt)
    if(NOT synch STREQUAL "sequential")
      set(gvt --check-gvt)
    endif()
    roam_program_test(dragonfly.${synch}.p${pes}.${traffic}${suffix} REGEX "committed ${_${traffic}_count} events"
                      EACH_REGEX "messages sent 1440, delivered 1440" "${_${traffic}_stats}"
                      LABELS "integration;pdes"
                      COMMAND ${_df} +p${pes} ${_small} --traffic ${traffic} --synch ${synch} ${extra} ${gvt})
  endforeach()

  # An end time: sends at or beyond it are dropped, the same ones everywhere.
  roam_program_test(dragonfly.sequential.p1.uniform_end REGEX "committed 24668 events in .* 339 sends past the end"
                    LABELS "integration;pdes"
                    COMMAND ${_df} +p1 ${_small} --end 20000)
  roam_program_test(dragonfly.optimistic.p2.uniform_end REGEX "committed 24668 events in .* 339 sends past the end"
                    LABELS "integration;pdes"
                    COMMAND ${_df} +p2 ${_small} --end 20000 --synch optimistic --batch 64 --check-gvt)

  # Across processes: the statistics are merged from every process's LPs.
  if(TARGET roamrun)
    roam_program_test(tcp.dragonfly.optimistic.n2_ppn2.uniform REGEX "committed ${_uniform_count} events"
                      EACH_REGEX "messages sent 1440, delivered 1440" "${_uniform_stats}"
                      LABELS "integration;pdes;tcp"
                      COMMAND $<TARGET_FILE:roamrun> -n 2 +ppn 2 ${_df} ${_small} --synch optimistic --check-gvt)
  endif()
  if(ROAM_HAVE_MPI AND ROAM_MPIRUN)
    roam_program_test(mpi.dragonfly.optimistic.n2.transpose REGEX "committed ${_transpose_count} events"
                      EACH_REGEX "messages sent 1440, delivered 1440" "${_transpose_stats}"
                      LABELS "integration;pdes;mpi"
                      COMMAND ${ROAM_MPIRUN} ${ROAM_MPIRUN_FLAGS} -n 2 ${_df} +ppn 1 ${_small} --traffic transpose
                              --synch optimistic --check-gvt)
    if(ROAM_MPI_TEST_ENVIRONMENT)
      set_tests_properties(mpi.dragonfly.optimistic.n2.transpose PROPERTIES ENVIRONMENT "${ROAM_MPI_TEST_ENVIRONMENT}")
    endif()
  endif()

  # Bad command lines: a clear message and exit status 2.
  roam_program_test(dragonfly.bad_option RC 2 REGEX "unknown option '--bogus'" LABELS "integration;pdes"
                    COMMAND ${_df} +p1 --bogus)
  roam_program_test(dragonfly.bad_traffic RC 2 REGEX "--traffic random: use uniform, transpose or neighbor"
                    LABELS "integration;pdes"
                    COMMAND ${_df} +p1 --traffic random)
  roam_program_test(dragonfly.bad_value RC 2 REGEX "--a 0: need a whole number in \\[1, 1024\\]" LABELS "integration;pdes"
                    COMMAND ${_df} +p1 --a 0)
  roam_program_test(dragonfly.missing_value RC 2 REGEX "option --messages needs a value" LABELS "integration;pdes"
                    COMMAND ${_df} +p1 --messages)
endif()
