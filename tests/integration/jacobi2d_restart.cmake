# jacobi2d's disk checkpoints (examples/jacobi2d.cpp, --checkpoint-every) and
# restarts from them on other PE counts: one script, because the restarts
# need the checkpoints of the first run and the second restart's own
# checkpoint would become the first restart's newest one if it ran first.
#   cmake -DPROG=<jacobi2d> -DDIR=<scratch dir, wiped first> [-DROAMRUN=<roamrun>] -P jacobi2d_restart.cmake
# Without ROAMRUN:
#   checkpoint  +p3, a checkpoint after iterations 50, 100 and 150 (ckpt-1..3; the newest two are kept)
#   newest      +p2 +restart DIR: from ckpt-3, after iteration 150
#   older       +p4 +restart DIR/ckpt-00000002: after iteration 100, and it checkpoints again after 150 (ckpt-4)
# With ROAMRUN: the checkpoint on roamrun -n 2 +ppn 2 (the options among the
# positional arguments), the restart from DIR on +p1 in one process.
# Every run must end like a run that never checkpointed: the usual 30x30 grid
# stops on the tolerance after 189 iterations, equal to the serial run.
# Every command, its exit status and its output are printed; the script ends
# with FATAL_ERROR listing every problem, or prints PASSED.
cmake_minimum_required(VERSION 3.25)

foreach(var PROG DIR)
  if(NOT DEFINED ${var} OR "${${var}}" STREQUAL "")
    message(FATAL_ERROR "jacobi2d_restart.cmake: -D${var}=... is required")
  endif()
endforeach()
set(ARGS 30 4 400 1e-3)
set(OK_LINE "jacobi2d: OK (max |parallel - serial| = 0.000e+00 after 189 iterations)")
file(REMOVE_RECURSE "${DIR}")
file(MAKE_DIRECTORY "${DIR}")

include(${CMAKE_CURRENT_LIST_DIR}/script_checks.cmake)

# run(ID COMMAND...): runs it and checks that it ends well (status 0, the OK
# line, no FAILED); sets ID_out (stdout and stderr).
function(run id)
  run_logged(${id} ${ARGN})
  set(rc "${${id}_rc}")
  set(out "${${id}_out}")
  set(err "${${id}_err}")
  if(NOT "${rc}" STREQUAL "0")
    problem("${id}: expected exit status 0, got '${rc}'")
  endif()
  set(all "${out}${err}")
  string(FIND "${all}" "${OK_LINE}" at)
  if(at EQUAL -1)
    problem("${id}: no '${OK_LINE}'")
  endif()
  string(FIND "${all}" "FAILED" at)
  if(NOT at EQUAL -1)
    problem("${id}: a FAILED in the output")
  endif()
  set(${id}_out "${all}" PARENT_SCOPE)
endfunction()

# expect_lines(ID LINES...): the lines of ID's output that report checkpoints
# and restarts are exactly LINES, in this order (each a regex for one line).
function(expect_lines id)
  string(REGEX MATCHALL "jacobi2d: (checkpoint after|restarted from|restart after)[^\n]*" got "${${id}_out}")
  list(LENGTH got n_got)
  list(LENGTH ARGN n_want)
  if(NOT n_got EQUAL n_want)
    problem("${id}: ${n_got} checkpoint or restart lines, expected ${n_want}")
    return()
  endif()
  foreach(i RANGE 1 ${n_want})
    math(EXPR k "${i} - 1")
    list(GET got ${k} line)
    list(GET ARGN ${k} want)
    if(NOT line MATCHES "^${want}$")
      problem("${id}: line ${i} '${line}' does not match '${want}'")
    endif()
  endforeach()
endfunction()

# A checkpoint line: after iteration ITER into checkpoint NUMBER of DIR, with the 16 blocks.
function(written iter number var)
  string(REGEX REPLACE "([][+.*?^$()|\\\\])" "\\\\\\1" dir "${DIR}")  # DIR as a literal in a regex
  string(CONCAT line "jacobi2d: checkpoint after iteration ${iter}: ${dir}/ckpt-0000000${number} "
                "\\(16 objects, [0-9]+ bytes, [0-9.]+ ms\\)")
  set(${var} "${line}" PARENT_SCOPE)
endfunction()
function(restarted number iter var)
  string(REGEX REPLACE "([][+.*?^$()|\\\\])" "\\\\\\1" dir "${DIR}")
  set(${var} "jacobi2d: restarted from ${dir}/ckpt-0000000${number} after iteration ${iter}" PARENT_SCOPE)
endfunction()

written(50 1 W1)
written(100 2 W2)
written(150 3 W3)
written(150 4 W4)
restarted(3 150 R3)
restarted(2 100 R2)

if(NOT DEFINED ROAMRUN OR ROAMRUN STREQUAL "")
  run(checkpoint ${PROG} +p3 ${ARGS} --checkpoint-every 50 --checkpoint-dir "${DIR}")
  expect_lines(checkpoint "${W1}" "${W2}" "${W3}")
  run(newest ${PROG} +p2 +restart "${DIR}")
  expect_lines(newest "${R3}")
  run(older ${PROG} +p4 +restart "${DIR}/ckpt-00000002")
  expect_lines(older "${R2}" "${W4}")
else()
  run(checkpoint ${ROAMRUN} -n 2 +ppn 2 ${PROG} 30 --checkpoint-every 50 4 400 --checkpoint-dir "${DIR}" 1e-3)
  expect_lines(checkpoint "${W1}" "${W2}" "${W3}")
  run(newest_p1 ${PROG} +p1 +restart "${DIR}")
  expect_lines(newest_p1 "${R3}")
endif()

finish_checks(jacobi2d)
