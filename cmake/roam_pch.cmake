# Precompiled headers. Parsing headers is most of a compile here: a file that
# includes <roam/roam.hpp> spends 4.5 s of its 7 s debug compile parsing it
# (2.3 s of that is the standard library), GoogleTest adds 2.9 s. CI builds the
# whole tree three times (debug, TSan, ASan) on 2 cores, so each header set is
# parsed once per build instead of once per file:
#
# - layer libraries: a PCH of the standard headers the layers use (per layer:
#   a layer must not see the layers above it, so roam's own headers stay out);
# - programs (apps, tools, libraries' loaders): one shared PCH of
#   <roam/roam.hpp>, reused by every executable that links `roam`; the
#   examples and benchmarks get their own when ROAM_TEST_PROGRAM_FLAGS
#   compiles them differently;
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

# Code that runs for milliseconds in the sanitizer builds, compiled with
# lighter optimisation than the runtime it exercises. Under ASan+UBSan, half
# of such an object's compile time is -O1's optimisation (reduction_matrix_
# test.cpp: 54 s at -O1, 29 s at -O0; the reductions example 26.7 s and
# 15.2 s), while the runtime's libraries, the applications and the
# integration programs keep the build type's optimisation: those run in
# many suite tests, and at -O0 the suite lost more than the build gained
# (tests/transport's segment checks 3 s -> 15 s, the traced and seed-swept
# migration_check runs 1.5-2x; docs/perf.md, "Build and test time").
# - ROAM_UNIT_TEST_FLAGS: the unit-test binaries (unit_*);
# - ROAM_TEST_PROGRAM_FLAGS: the executables under examples/ and bench/
#   (the sanitizer builds check that they work, never how fast).
set(ROAM_UNIT_TEST_FLAGS "" CACHE STRING "Extra compile options of the unit-test binaries (e.g. -O0)")
set(ROAM_TEST_PROGRAM_FLAGS "" CACHE STRING
    "Extra compile options of the examples and benchmarks (e.g. -O0)")

# Which extra flags executable `t` gets ("" for none), into `out`.
function(_roam_test_flags t out)
  get_target_property(_dir ${t} SOURCE_DIR)
  set(_flags "")
  if(t MATCHES "^unit_")
    set(_flags "${ROAM_UNIT_TEST_FLAGS}")
  elseif(_dir MATCHES "^${PROJECT_SOURCE_DIR}/(examples|bench)(/|$)")
    set(_flags "${ROAM_TEST_PROGRAM_FLAGS}")
  endif()
  set(${out} "${_flags}" PARENT_SCOPE)
endfunction()

# Called once every target exists (end of the top-level CMakeLists.txt): gives
# the shared PCHs to every executable that links `roam` directly, the unit-test
# binaries (unit_*) the one with GoogleTest. An executable with its own
# precompiled headers keeps them.
function(roam_pch_programs)
  _roam_executables(_exes)
  foreach(t IN LISTS _exes)
    _roam_test_flags(${t} _flags)
    if(_flags)
      target_compile_options(${t} PRIVATE ${_flags})
    endif()
  endforeach()
  if(NOT ROAM_PCH OR NOT TARGET roam)
    return()
  endif()
  # One PCH per set of flags (GCC refuses a PCH built at another optimisation
  # level): the programs', the test programs' (when their flags differ) and
  # the unit tests' (with GoogleTest).
  set(_gen ${PROJECT_BINARY_DIR}/pch)
  function(_roam_pch_carrier name flags)
    file(CONFIGURE OUTPUT ${_gen}/${name}.cpp CONTENT "// Generated (cmake/roam_pch.cmake): carries a shared PCH.\n")
    add_library(${name} OBJECT ${_gen}/${name}.cpp)
    target_link_libraries(${name} PRIVATE roam roam_warnings ${ARGN})
    if(flags)
      target_compile_options(${name} PRIVATE ${flags})
    endif()
  endfunction()
  _roam_pch_carrier(roam_pch_program "")
  target_precompile_headers(roam_pch_program PRIVATE <roam/roam.hpp>)
  set(_test_pch roam_pch_program)
  if(ROAM_TEST_PROGRAM_FLAGS)
    _roam_pch_carrier(roam_pch_test_program "${ROAM_TEST_PROGRAM_FLAGS}")
    target_precompile_headers(roam_pch_test_program PRIVATE <roam/roam.hpp>)
    set(_test_pch roam_pch_test_program)
  endif()
  set(_have_tests FALSE)
  if(TARGET GTest::gtest)
    set(_have_tests TRUE)
    _roam_pch_carrier(roam_pch_unit "${ROAM_UNIT_TEST_FLAGS}" GTest::gtest)
    target_precompile_headers(roam_pch_unit PRIVATE <roam/roam.hpp> <gtest/gtest.h>)
  endif()

  # Libraries that asked for the programs' PCH (ROAM_PCH_LIBRARIES: compiled
  # like the programs, e.g. libs/ampi's objects, shared by a library and its
  # loader executable).
  get_property(_libs GLOBAL PROPERTY ROAM_PCH_LIBRARIES)
  foreach(t IN LISTS _libs _exes)
    get_target_property(_own ${t} PRECOMPILE_HEADERS)
    get_target_property(_links ${t} LINK_LIBRARIES)
    get_target_property(_sources ${t} SOURCES)
    list(FILTER _sources INCLUDE REGEX "\\.c$")
    if(_own OR NOT "roam" IN_LIST _links OR _sources)  # C programs (ROSS models) have no C++ PCH
      continue()
    endif()
    _roam_test_flags(${t} _flags)
    if(t MATCHES "^unit_" AND _have_tests)
      target_precompile_headers(${t} REUSE_FROM roam_pch_unit)
    elseif(_flags)
      target_precompile_headers(${t} REUSE_FROM ${_test_pch})
    else()
      target_precompile_headers(${t} REUSE_FROM roam_pch_program)
    endif()
  endforeach()
endfunction()
