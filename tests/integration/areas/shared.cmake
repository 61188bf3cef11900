# What several areas share. Included first by tests/integration/CMakeLists.txt.

# roam_seed_sweep(NAME FIRST LAST REGEX COMMAND...): the program under the
# deterministic driver (+deterministic SEED: every PE on one thread, the next
# PE to run chosen from the seed) for every seed FIRST..LAST (seed_sweep.cmake);
# a failure names its seed and the command that replays it.
function(roam_seed_sweep name first last regex)
  add_test(NAME ${name}
           COMMAND ${CMAKE_COMMAND} -DFIRST=${first} -DLAST=${last} "-DREGEX=${regex}"
                   -P ${CMAKE_CURRENT_SOURCE_DIR}/seed_sweep.cmake -- ${ARGN})
  set_tests_properties(${name} PROPERTIES TIMEOUT 600 LABELS "integration;deterministic")
endfunction()

# Each program run by more than one area (locally in examples.cmake or
# protocols.cmake, across processes in transports.cmake, traced in
# trace.cmake): its small arguments `_<name>_args` and the line that proves
# success `_<name>_ok`.
# The examples (examples/).
# name | small arguments | the line that proves success
set(_hello_args 16)
set(_hello_ok "all 16 greeters said hello \\(sum of indices 120\\)")
set(_pingpong_args 200 256)
set(_pingpong_ok "pingpong: OK")
set(_fib_args 16 6)
set(_fib_ok "fib\\(16\\) = 987: OK")
set(_nqueens_args 8 3)
set(_nqueens_ok "nqueens\\(8\\) = 92: OK")
set(_readme_cells_args)
set(_readme_cells_ok "energy of cell 1,2 at step 3: 4.5")
# 30x30 in 4x4 (uneven) blocks: stops on the tolerance, always after 189 iterations.
set(_jacobi2d_args 30 4 400 1e-3)
set(_jacobi2d_ok "jacobi2d: OK \\(max \\|parallel - serial\\| = 0\\.000e\\+00 after 189 iterations\\)")
# The same Jacobi as one coroutine per block: the same arguments and result.
set(_jacobi2d_tasks_args ${_jacobi2d_args})
set(_jacobi2d_tasks_ok "jacobi2d_tasks: OK \\(max \\|parallel - serial\\| = 0\\.000e\\+00 after 189 iterations\\)")
set(_reductions_args 10)
set(_reductions_ok "reductions: OK \\(16 reductions checked\\)")
set(_amr1d_args 12)
set(_amr1d_ok "amr1d: mass conserved")
set(_wanderer_args 2 64)
set(_wanderer_ok "wanderer: OK")
set(_threaded_fib_args 16 6)
set(_threaded_fib_ok "threaded_fib\\(16\\) = 987: OK")
# The protocol checks (programs/, protocols.cmake).
set(_collectives_check_args)
set(_collectives_check_ok "collectives_check: OK")
set(_migration_check_args)
set(_migration_check_ok "migration_check: OK")
set(_population_check_args)
set(_observer_check_args)
set(_observer_check_ok "observer_check: OK")
set(_population_check_ok "population_check: OK")
set(_section_regroup_check_args)
set(_section_regroup_check_ok "section_regroup_check: OK")
