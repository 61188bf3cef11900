# PHOLD checkpointed on one layout and restarted on others: every run must
# commit the same events (REGEX) as a run never interrupted.
#   cmake -DPROG=<phold> -DDIR=<dir, wiped first> -DARGS=<phold options, ;-list> -DREGEX=<re>
#         -DFIRST=<launch prefix of the checkpointing run> -DRESTARTS=<launch prefixes, |-separated> -P checkpoint_restart.cmake
# A launch prefix is a ;-list (,-list inside RESTARTS): runtime options such as "+p2" (given after the
# program) or a launcher such as "roamrun;-n;2;+ppn;1" (given before it).
file(REMOVE_RECURSE "${DIR}")
set(problems)
macro(launch id prefix)
  # "+p2": runtime options, after the program; "roamrun;-n;2;+ppn;1": a launcher, before it.
  set(before)
  set(after)
  set(_words "${prefix}")  # a macro's parameters are text, not variables
  list(GET _words 0 first_word)
  if(first_word MATCHES "^\\+")
    set(after ${_words})
  else()
    set(before ${_words})
  endif()
  execute_process(COMMAND ${before} ${PROG} ${after} ${ARGN} RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err
                  TIMEOUT 60)
  string(REPLACE ";" " " shown "${before} ${PROG} ${after} ${ARGN}")
  message("--- ${id}: ${shown} (exit ${rc}) ---\n${out}${err}")
  if(NOT rc EQUAL 0)
    list(APPEND problems "${id} exited with ${rc}")
  elseif(NOT out MATCHES "${REGEX}")
    list(APPEND problems "${id}: output does not match '${REGEX}'")
  endif()
endmacro()
launch(first "${FIRST}" ${ARGS} --checkpoint-dir ${DIR})
string(REPLACE "|" ";" restarts "${RESTARTS}")
set(i 0)
foreach(r ${restarts})
  string(REPLACE "," ";" r "${r}")
  math(EXPR i "${i} + 1")
  launch(restart${i} "${r}" +restart ${DIR})
  if(NOT out MATCHES "restarted from a checkpoint: [1-9][0-9]* of the committed events")
    list(APPEND problems "restart${i} did not restart from a checkpoint")
  endif()
endforeach()
if(problems)
  string(REPLACE ";" "\n  " problems "${problems}")
  message(FATAL_ERROR "FAILED:\n  ${problems}")
endif()
message("PASSED")
