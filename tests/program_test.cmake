# roam_program_test(NAME [RC <status|nonzero>] [REGEX <re>] [NOT_REGEX <re>] [TIMEOUT <s>]
#                   [EACH_REGEX <re>...] [LABELS <label>...] [ENV <VAR=value>...] COMMAND <program> <args>...)
# Runs a whole program (directly, under roamrun or under mpirun) and checks its
# exit status and output through integration/run_expect.cmake (CTest's own
# PASS_REGULAR_EXPRESSION would ignore the exit status). RC defaults to 0,
# LABELS to "integration". Every EACH_REGEX must match on its own: use it for
# lines printed by different processes, whose relative order is not promised.
# TIMEOUT (default 55 s) is how long the program may run: the driver stops
# it then, and CTest's own limit is 5 s more (setting CTest's TIMEOUT
# property alone does not lengthen the driver's).
function(roam_program_test name)
  cmake_parse_arguments(PARSE_ARGV 1 A "" "RC;REGEX;NOT_REGEX;TIMEOUT" "EACH_REGEX;LABELS;ENV;COMMAND")
  if(NOT A_TIMEOUT)
    set(A_TIMEOUT 55)
  endif()
  if(NOT DEFINED A_RC)
    set(A_RC 0)
  endif()
  if(NOT A_LABELS)
    set(A_LABELS integration)
  endif()
  # Each -D is one list element; a regex with an unbalanced "[" would merge
  # the elements after it, so the free-form regexes come last.
  set(defs -DEXPECT_RC=${A_RC} -DRUN_TIMEOUT=${A_TIMEOUT})
  set(i 0)
  # A ";" in a regex would split its -D in two (the rest silently ignored by
  # cmake -P): each stays escaped through the list of arguments.
  foreach(re IN LISTS A_EACH_REGEX)
    string(REPLACE ";" "\\;" re "${re}")
    list(APPEND defs "-DEACH_REGEX_${i}=${re}")
    math(EXPR i "${i} + 1")
  endforeach()
  if(i GREATER 0)
    list(APPEND defs -DEACH_REGEX_COUNT=${i})
  endif()
  if(DEFINED A_REGEX)
    string(REPLACE ";" "\\;" A_REGEX "${A_REGEX}")
    list(APPEND defs "-DREGEX=${A_REGEX}")
  endif()
  if(DEFINED A_NOT_REGEX)
    string(REPLACE ";" "\\;" A_NOT_REGEX "${A_NOT_REGEX}")
    list(APPEND defs "-DNOT_REGEX=${A_NOT_REGEX}")
  endif()
  add_test(NAME ${name}
           COMMAND ${CMAKE_COMMAND} ${defs} -P ${CMAKE_CURRENT_FUNCTION_LIST_DIR}/integration/run_expect.cmake -- ${A_COMMAND})
  math(EXPR _ctest_timeout "${A_TIMEOUT} + 5")
  set_tests_properties(${name} PROPERTIES TIMEOUT ${_ctest_timeout} LABELS "${A_LABELS}")
  if(A_ENV)
    set_tests_properties(${name} PROPERTIES ENVIRONMENT "${A_ENV}")
  endif()
endfunction()
