# Runs PHOLD with +trace=DIR (DIR emptied first), then `roam-trace summary
# DIR`, whose output must match SUMMARY_REGEX (the engine's entries by method
# name and its user spans: rollback, fossil collection).
#   cmake -DDIR=<dir> -DTOOL=<roam-trace> -DSUMMARY_REGEX=<re> -P trace_summary.cmake -- PROGRAM ARGS...
include(${CMAKE_CURRENT_LIST_DIR}/../../../tests/integration/command_after_dashes.cmake)
file(REMOVE_RECURSE "${DIR}")
execute_process(COMMAND ${cmd} RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err TIMEOUT 100)
message("--- program ---\n${out}${err}")
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "the traced program exited with ${rc}")
endif()
execute_process(COMMAND ${TOOL} summary ${DIR} RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err TIMEOUT 100)
message("--- roam-trace summary ---\n${out}${err}")
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "roam-trace summary failed (${rc})")
endif()
if(NOT out MATCHES "${SUMMARY_REGEX}")
  message(FATAL_ERROR "the summary does not match '${SUMMARY_REGEX}'")
endif()
