# Compiles one file that must fail, and checks that the diagnostic contains the
# text named on its first line: `// expect: <text>`.
#   cmake -DCXX=... -DINCLUDE=... -DSRC=... -P check.cmake
file(STRINGS ${SRC} first LIMIT_COUNT 1)
string(REGEX REPLACE "^// expect: " "" expected "${first}")
execute_process(COMMAND ${CXX} -std=c++20 -fsyntax-only -I${INCLUDE} ${SRC}
                RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
if(rc EQUAL 0)
  message(FATAL_ERROR "${SRC} compiled, but it must not")
endif()
string(FIND "${out}${err}" "${expected}" at)
if(at EQUAL -1)
  message(FATAL_ERROR "${SRC}: diagnostic does not contain '${expected}':\n${err}")
endif()
message(STATUS "failed to compile as expected: ${expected}")
