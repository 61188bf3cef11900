# Runs a program under the deterministic driver once per seed in
# [FIRST, LAST]: `<program> <args> +deterministic <seed>`. Each run must exit
# with status 0 and print REGEX. The first seed that fails is reported with
# the command that replays it, and the test fails.
#   cmake -DFIRST=1 -DLAST=40 -DREGEX=... -P seed_sweep.cmake -- <program> <args>...
include(${CMAKE_CURRENT_LIST_DIR}/command_after_dashes.cmake)
if(NOT cmd OR NOT DEFINED FIRST OR NOT DEFINED LAST)
  message(FATAL_ERROR "seed_sweep: usage: cmake -DFIRST=a -DLAST=b [-DREGEX=re] -P seed_sweep.cmake -- program args...")
endif()
foreach(seed RANGE ${FIRST} ${LAST})
  execute_process(COMMAND ${cmd} +deterministic ${seed} RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err
                  TIMEOUT 120)
  set(bad "")
  if(NOT rc EQUAL 0)
    set(bad "exit status ${rc}")
  elseif(DEFINED REGEX AND NOT out MATCHES "${REGEX}")
    set(bad "output does not match '${REGEX}'")
  endif()
  if(bad)
    list(JOIN cmd " " _line)
    message(FATAL_ERROR "seed ${seed} failed (${bad}); replay: ${_line} +deterministic ${seed}\n--- stdout ---\n${out}\n--- stderr ---\n${err}")
  endif()
endforeach()
math(EXPR n "${LAST} - ${FIRST} + 1")
message(STATUS "seed_sweep: ${n} seeds passed (${FIRST}..${LAST})")
