# +MetaLB's balancing steps are the steps it decided to balance in (issue
# #35): runs a program with +MetaLB +LBDebug, counts the "MetaLB at step"
# decisions on stderr and requires the program's "N balancing steps" to be
# that count, and below SYNCS (the sync steps the program took).
#   cmake -DSYNCS=n -P metalb_count.cmake -- <program> <args> +MetaLB +LBDebug
include(${CMAKE_CURRENT_LIST_DIR}/command_after_dashes.cmake)
if(NOT cmd OR NOT DEFINED SYNCS)
  message(FATAL_ERROR "metalb_count: usage: cmake -DSYNCS=n -P metalb_count.cmake -- program args...")
endif()
execute_process(COMMAND ${cmd} RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err TIMEOUT 120)
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "exit status ${rc}\n--- stdout\n${out}\n--- stderr\n${err}")
endif()
string(REGEX MATCHALL "MetaLB at step" decisions "${err}")
list(LENGTH decisions decided)
if(NOT out MATCHES "([0-9]+) balancing steps")
  message(FATAL_ERROR "no 'N balancing steps' in the output:\n${out}")
endif()
set(counted ${CMAKE_MATCH_1})
if(NOT counted EQUAL decided OR NOT counted LESS SYNCS)
  message(FATAL_ERROR "${counted} balancing steps counted, ${decided} MetaLB decisions to balance, ${SYNCS} sync "
                      "steps (the count must be the decisions, below the sync steps)\n--- stdout\n${out}\n--- stderr\n${err}")
endif()
message(STATUS "${counted} balancing steps = ${decided} MetaLB decisions, of ${SYNCS} sync steps: ok")
