# Precompiled headers. Parsing headers is most of a compile here: a file that
# includes <roam/roam.hpp> spends 4.5 s of its 7 s debug compile parsing it
# (2.3 s of that is the standard library), GoogleTest adds 2.9 s. CI builds the
# whole tree three times (debug, TSan, ASan) on 2 cores, so each header set is
# parsed once per build instead of once per file:
#
# - layer libraries: a PCH of the standard headers the layers use (per layer:
#   a layer must not see the layers above it, so roam's own headers stay out);
# - programs (examples, apps, integration programs, benchmarks): one shared
#   PCH of <roam/roam.hpp>, reused by every executable that links `roam`;
# - unit tests: one shared PCH of <roam/roam.hpp> and GoogleTest.
#
# The public-header check (roam_header_check) never uses a PCH: it is there to
# prove each header includes what it needs. `-DROAM_PCH=OFF` turns all of this
# off (a build that must catch a missing standard include in a .cpp).
include_guard(GLOBAL)
option(ROAM_PCH "Precompile common headers (faster builds)" ON)

set(ROAM_PCH_STD_HEADERS
  <algorithm> <array> <atomic> <chrono> <condition_variable> <coroutine> <cstddef> <cstdint>
  <cstdio> <cstring> <deque> <exception> <functional> <map> <memory> <mutex> <optional>
  <span> <stdexcept> <string> <string_view> <thread> <tuple> <type_traits> <unordered_map>
  <utility> <variant> <vector>)

# Layer library `target`: the standard headers.
function(roam_pch_layer target)
  if(ROAM_PCH)
    target_precompile_headers(${target} PRIVATE ${ROAM_PCH_STD_HEADERS})
  endif()
endfunction()

# Every executable target of this project (the directories below the top).
function(_roam_executables out)
  set(_all)
  set(_dirs ${PROJECT_SOURCE_DIR})
  while(_dirs)
    list(POP_FRONT _dirs _dir)
    get_property(_subs DIRECTORY ${_dir} PROPERTY SUBDIRECTORIES)
    list(APPEND _dirs ${_subs})
    get_property(_targets DIRECTORY ${_dir} PROPERTY BUILDSYSTEM_TARGETS)
    foreach(t IN LISTS _targets)
      get_target_property(_type ${t} TYPE)
      if(_type STREQUAL "EXECUTABLE")
        list(APPEND _all ${t})
      endif()
    endforeach()
  endwhile()
  set(${out} ${_all} PARENT_SCOPE)
endfunction()

# The unit-test binaries (unit_*) compiled with ROAM_UNIT_TEST_FLAGS after the
# build type's own (the sanitizer presets: -O0). Under ASan+UBSan, half of a
# unit-test object's compile time is -O1's optimisation of code that runs for
# milliseconds (reduction_matrix_test.cpp: 54 s at -O1, 29 s at -O0), while
# the runtime's libraries, the programs and the apps keep the build type's
# optimisation. docs/perf.md, "Build and test time".
set(ROAM_UNIT_TEST_FLAGS "" CACHE STRING "Extra compile options of the unit-test binaries (e.g. -O0)")
function(roam_unit_test_optimization)
  if(NOT ROAM_UNIT_TEST_FLAGS)
    return()
  endif()
  _roam_executables(_exes)
  foreach(t IN LISTS _exes)
    if(t MATCHES "^unit_")
      target_compile_options(${t} PRIVATE ${ROAM_UNIT_TEST_FLAGS})
    endif()
  endforeach()
endfunction()

# Called once every target exists (end of the top-level CMakeLists.txt): gives
# the shared PCHs to every executable that links `roam` directly, the unit-test
# binaries (unit_*) the one with GoogleTest. An executable with its own
# precompiled headers keeps them.
function(roam_pch_programs)
  roam_unit_test_optimization()
  if(NOT ROAM_PCH OR NOT TARGET roam)
    return()
  endif()
  set(_gen ${PROJECT_BINARY_DIR}/pch)
  file(CONFIGURE OUTPUT ${_gen}/program_pch.cpp CONTENT "// Generated (cmake/roam_pch.cmake): carries the programs' PCH.\n")
  add_library(roam_pch_program OBJECT ${_gen}/program_pch.cpp)
  target_link_libraries(roam_pch_program PRIVATE roam roam_warnings)
  target_precompile_headers(roam_pch_program PRIVATE <roam/roam.hpp>)
  set(_have_tests FALSE)
  if(TARGET GTest::gtest)
    set(_have_tests TRUE)
    file(CONFIGURE OUTPUT ${_gen}/unit_pch.cpp CONTENT "// Generated (cmake/roam_pch.cmake): carries the unit tests' PCH.\n")
    add_library(roam_pch_unit OBJECT ${_gen}/unit_pch.cpp)
    target_link_libraries(roam_pch_unit PRIVATE roam GTest::gtest roam_warnings)
    # The PCH is compiled like the unit tests that use it (GCC refuses a PCH
    # built at another optimisation level).
    if(ROAM_UNIT_TEST_FLAGS)
      target_compile_options(roam_pch_unit PRIVATE ${ROAM_UNIT_TEST_FLAGS})
    endif()
    target_precompile_headers(roam_pch_unit PRIVATE <roam/roam.hpp> <gtest/gtest.h>)
  endif()

  _roam_executables(_exes)
  foreach(t IN LISTS _exes)
    get_target_property(_own ${t} PRECOMPILE_HEADERS)
    get_target_property(_links ${t} LINK_LIBRARIES)
    get_target_property(_sources ${t} SOURCES)
    list(FILTER _sources INCLUDE REGEX "\\.c$")
    if(_own OR NOT "roam" IN_LIST _links OR _sources)  # C programs (ROSS models) have no C++ PCH
      continue()
    endif()
    if(t MATCHES "^unit_" AND _have_tests)
      target_precompile_headers(${t} REUSE_FROM roam_pch_unit)
    else()
      target_precompile_headers(${t} REUSE_FROM roam_pch_program)
    endif()
  endforeach()
endfunction()
