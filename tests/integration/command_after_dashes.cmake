# Included by the `cmake -P` drivers of this folder and of apps/*/tests: sets
# `cmd` to the arguments after "--" on the driver's command line (the program to run).
set(cmd)
set(_in_cmd FALSE)
math(EXPR _last "${CMAKE_ARGC} - 1")
foreach(_i RANGE 1 ${_last})
  if(_in_cmd)
    list(APPEND cmd "${CMAKE_ARGV${_i}}")
  elseif("${CMAKE_ARGV${_i}}" STREQUAL "--")
    set(_in_cmd TRUE)
  endif()
endforeach()
