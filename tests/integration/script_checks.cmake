# What the integration scripts that run several programs share (included by
# checkpoint_restart.cmake and jacobi2d_restart.cmake):
#   problem(TEXT)               records a problem (the run goes on, to report them all)
#   run_logged(ID COMMAND...)   runs it with a timeout of SCRIPT_TIMEOUT seconds (default 60),
#                               prints the command, its exit status and its output, and sets
#                               ID_rc, ID_out and ID_err in the caller's scope
#   finish_checks(LABEL)        FATAL_ERROR listing every problem, or prints PASSED
if(NOT DEFINED SCRIPT_TIMEOUT)
  set(SCRIPT_TIMEOUT 60)
endif()

function(problem text)
  string(REPLACE ";" "," text "${text}")
  set_property(GLOBAL APPEND PROPERTY script_problems "${text}")
endfunction()

function(run_logged id)
  execute_process(COMMAND ${ARGN} RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err TIMEOUT ${SCRIPT_TIMEOUT})
  string(REPLACE ";" " " shown "${ARGN}")
  message("==== ${id}\ncommand: ${shown}\nexit status: ${rc}\n--- stdout ---\n${out}--- stderr ---\n${err}--------------")
  set(${id}_rc "${rc}" PARENT_SCOPE)
  set(${id}_out "${out}" PARENT_SCOPE)
  set(${id}_err "${err}" PARENT_SCOPE)
endfunction()

function(finish_checks label)
  get_property(problems GLOBAL PROPERTY script_problems)
  if(problems)
    string(REPLACE ";" "\n  " problems "${problems}")
    message(FATAL_ERROR "FAILED (${label}):\n  ${problems}")
  endif()
  message("PASSED")
endfunction()
