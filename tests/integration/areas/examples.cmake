# The examples (examples/) on 1, 2 and 4 PEs and with every message packed
# (+serialize), and some on bigger or odd inputs. Their arguments and success
# lines are in shared.cmake; across processes: transports.cmake; traced:
# trace.cmake; jacobi2d's checkpoints: checkpoint.cmake.
if(ROAM_BUILD_EXAMPLES)
  foreach(example hello pingpong fib nqueens readme_cells jacobi2d jacobi2d_tasks reductions amr1d wanderer threaded_fib)
    foreach(pes 1 2 4)
      roam_program_test(example.${example}.p${pes} RC 0 REGEX "${_${example}_ok}"
                        COMMAND $<TARGET_FILE:${example}> +p${pes} ${_${example}_args})
    endforeach()
    # Every message through pup and the wire format.
    roam_program_test(example.${example}.serialize_p2 RC 0 REGEX "${_${example}_ok}"
                      COMMAND $<TARGET_FILE:${example}> +p2 +serialize ${_${example}_args})
  endforeach()
  # A deeper, more irregular search and a finer-grained tree.
  roam_program_test(example.nqueens.n10_p4 RC 0 REGEX "nqueens\\(10\\) = 724: OK" COMMAND $<TARGET_FILE:nqueens> +p4 10 4)
  roam_program_test(example.fib.grain2_p2 RC 0 REGEX "fib\\(14\\) = 377: OK" COMMAND $<TARGET_FILE:fib> +p2 14 2)
  # Jacobi stopped by the iteration limit, on more blocks than PEs and a PE count that does not divide them.
  roam_program_test(example.jacobi2d.iteration_limit_p3 RC 0 REGEX "jacobi2d: 150 iterations.*jacobi2d: OK"
                    COMMAND $<TARGET_FILE:jacobi2d> +p3 37 5 150 1e-9)
  roam_program_test(example.jacobi2d_tasks.iteration_limit_p3 RC 0 REGEX "jacobi2d_tasks: 150 iterations.*jacobi2d_tasks: OK"
                    COMMAND $<TARGET_FILE:jacobi2d_tasks> +p3 37 5 150 1e-9)
  roam_program_test(example.jacobi2d.unknown_option RC 2
                    REGEX "jacobi2d: unknown option --bogus\nusage: jacobi2d .*\\[--checkpoint-every C >= 0\\]"
                    COMMAND $<TARGET_FILE:jacobi2d> 30 4 --bogus)
  # Twenty elements on four PEs: 20! is the largest product that fits in 64 bits.
  roam_program_test(example.reductions.n20_p4 RC 0
                    REGEX "product +function on_product on pe 0 +2432902008176640000.*reductions: OK"
                    COMMAND $<TARGET_FILE:reductions> +p4 20)
endif()
