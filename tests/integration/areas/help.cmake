# Every program explains itself (issue #35): each app, example and tool
# answers --help and -h with its usage and an example command line (exit
# status 0), and an option it does not know with one line saying so and the
# usage (exit status 2).
#   help.<program>             <program> --help
#   help.<program>.short       <program> -h
#   help.<program>.bad_option  <program> --no-such-option
set(_help_programs
    # examples
    hello pingpong fib nqueens readme_cells jacobi2d jacobi2d_tasks reductions amr1d wanderer threaded_fib lb_test
    # apps
    leanmd phold phold_ross dragonfly random_access fft fft_mpi lu sptrsv amr
    # tools
    roamrun roam-trace roam-lb roam-bench)
foreach(program IN LISTS _help_programs)
  # The apps and examples exist only with ROAM_BUILD_EXAMPLES, roam-bench with the benchmarks.
  if(NOT TARGET ${program})
    continue()
  endif()
  foreach(flag --help -h)
    set(name help.${program})
    if(flag STREQUAL "-h")
      set(name help.${program}.short)
    endif()
    roam_program_test(${name} RC 0 EACH_REGEX "[Uu]sage" "[Ee]xample" LABELS "integration;help"
                      COMMAND $<TARGET_FILE:${program}> ${flag})
  endforeach()
  # The complaint first, then the usage.
  roam_program_test(help.${program}.bad_option RC 2 REGEX "no-such-option.*[Uu]sage" LABELS "integration;help"
                    COMMAND $<TARGET_FILE:${program}> --no-such-option)
endforeach()
