# One case of the layers.check.* tests (tests/layers/CMakeLists.txt):
#   cmake -DCASE=<case> -DGRAPH=<build>/roam_layers.cmake -DCHECK=<src>/cmake/layer_check.cmake
#         -DWORK=<empty dir to plant in> [-DMODE=configure -DGENERATOR=<g> -DCXX=<compiler>]
#         -P planted_tree.cmake
# Plants a skeleton of the declared layers in WORK: each layer has a public
# header including its direct dependencies' and a source including its own
# header and a private one; then adds the case's fault, runs the layer check
# on WORK (in script mode, or with MODE=configure in a throwaway configure of
# WORK declaring the same layers with roam_add_layer) and passes only if the check passes (clean) or fails
# with a message naming the planted file (every other case).
cmake_minimum_required(VERSION 3.25)
foreach(v CASE GRAPH CHECK WORK)
  if(NOT ${v})
    message(FATAL_ERROR "planted_tree.cmake: -D${v}=... missing")
  endif()
endforeach()
include(${CHECK})  # functions only: script mode runs the check for its own file, not when included
include(${GRAPH})
get_property(_layers GLOBAL PROPERTY ROAM_LAYERS)

file(REMOVE_RECURSE ${WORK})
foreach(layer IN LISTS _layers)
  get_property(_deps GLOBAL PROPERTY ROAM_LAYER_${layer}_DEPS)
  set(_hpp "#pragma once\n")
  foreach(dep IN LISTS _deps)
    string(APPEND _hpp "#include <roam/${dep}/api.hpp>\n")
  endforeach()
  file(WRITE ${WORK}/include/roam/${layer}/api.hpp "${_hpp}")
  file(WRITE ${WORK}/include/roam/${layer}/detail/internals.hpp "#pragma once\n#include <roam/${layer}/api.hpp>\n")
  file(WRITE ${WORK}/src/${layer}/private.hpp "#pragma once\n#include <roam/${layer}/detail/internals.hpp>\n")
  file(WRITE ${WORK}/src/${layer}/impl.cpp "#include <roam/${layer}/api.hpp>\n#include \"private.hpp\"\n#include <vector>\n")
endforeach()
file(WRITE ${WORK}/include/roam/roam.hpp "#pragma once\n")

# Each fault uses real layer names: msg is below coll and obj, sched below msg.
foreach(needed machine sched msg obj coll)
  if(NOT needed IN_LIST _layers)
    message(FATAL_ERROR "planted_tree.cmake: the graph (${GRAPH}) has no layer '${needed}'")
  endif()
endforeach()
if(CASE STREQUAL "clean")
  set(_expect "")
elseif(CASE STREQUAL "upward_include")
  set(_planted src/msg/planted_upward.cpp)
  file(WRITE ${WORK}/${_planted} "#include <roam/msg/api.hpp>\n#include <roam/coll/reduction.hpp>\n")
  set(_expect "src/msg/planted_upward.cpp \\(layer msg\\) includes <roam/coll/reduction.hpp>")
elseif(CASE STREQUAL "upward_header")
  set(_planted include/roam/sched/detail/planted.hpp)
  file(WRITE ${WORK}/${_planted} "#pragma once\n  #  include \"roam/obj/array.hpp\"\n")
  set(_expect "include/roam/sched/detail/planted.hpp \\(layer sched\\) includes <roam/obj/array.hpp>")
elseif(CASE STREQUAL "undeclared_folder")
  set(_planted src/planted_layer)
  file(WRITE ${WORK}/${_planted}/probe.cpp "#include <roam/machine/api.hpp>\n")
  set(_expect "src/planted_layer/ is not a declared layer")
elseif(CASE STREQUAL "escaping_include")
  set(_planted src/sched/planted_escape.cpp)
  file(WRITE ${WORK}/${_planted} "#include \"../obj/private.hpp\"\n")
  set(_expect "src/sched/planted_escape.cpp \\(layer sched\\) includes \"../obj/private.hpp\"")
else()
  message(FATAL_ERROR "planted_tree.cmake: unknown CASE '${CASE}'")
endif()

if(MODE STREQUAL "configure")
  # A throwaway configure of the planted tree as a project of its own, declaring
  # the same layers with roam_add_layer: the check as src/CMakeLists.txt runs it.
  get_filename_component(_cmake_dir ${CHECK} DIRECTORY)
  set(_lists "cmake_minimum_required(VERSION 3.25)\nproject(planted LANGUAGES CXX)\n")
  string(APPEND _lists "find_package(Threads REQUIRED)\nadd_library(roam_warnings INTERFACE)\n")
  string(APPEND _lists "set(ROAM_BUILD_TESTS OFF)\ninclude(${_cmake_dir}/roam_layer.cmake)\n")
  foreach(layer IN LISTS _layers)
    get_property(_deps GLOBAL PROPERTY ROAM_LAYER_${layer}_DEPS)
    string(REPLACE ";" " " _deps "${_deps}")
    string(APPEND _lists "roam_add_layer(NAME ${layer} DEPENDS ${_deps})\n")
  endforeach()
  string(APPEND _lists "roam_check_layers(\${PROJECT_SOURCE_DIR})\n")
  file(WRITE ${WORK}/CMakeLists.txt "${_lists}")
  file(REMOVE_RECURSE ${WORK}-build)
  set(_gen "")
  if(GENERATOR)
    set(_gen -G ${GENERATOR})
  endif()
  execute_process(
    COMMAND ${CMAKE_COMMAND} ${_gen} -DCMAKE_CXX_COMPILER=${CXX} -S ${WORK} -B ${WORK}-build
    RESULT_VARIABLE _rc OUTPUT_VARIABLE _out ERROR_VARIABLE _out)
else()
  execute_process(
    COMMAND ${CMAKE_COMMAND} -DROAM_ROOT=${WORK} -DROAM_LAYER_GRAPH=${GRAPH} -P ${CHECK}
    RESULT_VARIABLE _rc OUTPUT_VARIABLE _out ERROR_VARIABLE _out)
endif()
if(_expect STREQUAL "")
  if(NOT _rc EQUAL 0)
    message(FATAL_ERROR "the layer check rejected a tree that keeps to the graph:\n${_out}")
  endif()
  message(STATUS "clean tree accepted")
else()
  if(_rc EQUAL 0)
    message(FATAL_ERROR "the layer check accepted ${_planted}:\n${_out}")
  endif()
  if(NOT _out MATCHES "${_expect}")
    message(FATAL_ERROR "the layer check failed, but without naming ${_planted} as expected (${_expect}):\n${_out}")
  endif()
  if(NOT _out MATCHES " 1 violation\\(s\\)")
    message(FATAL_ERROR "the layer check should report the planted fault only:\n${_out}")
  endif()
  message(STATUS "rejected as expected:\n${_out}")
endif()
