# roam_add_layer: one declaration per layer (src/CMakeLists.txt), from which
# come the library, its unit tests, its place in the umbrella target `roam`,
# the layer check and the header check. docs/architecture.md, section 1.
#
#   roam_add_layer(NAME <name> [DEPENDS <layer>...] [SOURCE_DIRS <subfolder>...])
#
# - `roam_<name>`: a static library of src/<name>/*.cpp (and of
#   src/<name>/<subfolder>/*.cpp for each SOURCE_DIRS), or an INTERFACE library
#   when the layer has no source (header-only, like flow). PUBLIC include path
#   include/, PRIVATE include path src/<name> and nothing else: a layer reaches
#   another layer only through include/roam/<other>/ (detail/ for internals).
#   It links the layers in DEPENDS (declared before it; their own dependencies
#   come with them).
# - the graph (cmake/layer_check.cmake): what the layer check and the
#   layers.* tests read.
# - `unit_<name>`: a GoogleTest binary of tests/unit/<name>/*_test.cpp, if there
#   are any and ROAM_BUILD_TESTS is on, with src/<name> and tests/ on its
#   include path.
# - `roam`: the INTERFACE target programs link. Every layer is linked whole
#   (--whole-archive): an object file that only registers something at static
#   initialisation (src/obj/layer_wiring.cpp installs the remote hooks) is kept
#   although nothing refers to it.
#
# Whole-archive and the link line: CMake refuses a library linked both with
# and without a feature, so every link from one layer to another (and from
# `roam`) uses the same $<LINK_LIBRARY:WHOLE_ARCHIVE,...>; CMake then puts
# each archive on the link line once, inside --whole-archive. Code outside the
# layers that needs one layer's internals (roamrun, the transport probes) uses
# roam_use_layer_internals, which links the same way.
include_guard(GLOBAL)
include(${CMAKE_CURRENT_LIST_DIR}/layer_check.cmake)

# `out` = the link item for layer library `lib` linked whole. Installed, the
# same item must name the exported target (roam::roam_obj): CMake 3.25 writes
# the library list of $<LINK_LIBRARY:...> into roamTargets.cmake unchanged, so
# each side gets its own spelling.
function(roam_whole_archive out lib)
  set(${out} "$<BUILD_INTERFACE:$<LINK_LIBRARY:WHOLE_ARCHIVE,${lib}>>"
             "$<INSTALL_INTERFACE:$<LINK_LIBRARY:WHOLE_ARCHIVE,roam::${lib}>>" PARENT_SCOPE)
endfunction()
include(${CMAKE_CURRENT_LIST_DIR}/roam_pch.cmake)

function(roam_add_layer)
  cmake_parse_arguments(PARSE_ARGV 0 L "" "NAME" "DEPENDS;SOURCE_DIRS")
  if(NOT L_NAME OR L_UNPARSED_ARGUMENTS)
    message(FATAL_ERROR "usage: roam_add_layer(NAME <name> [DEPENDS <layer>...] [SOURCE_DIRS <subfolder>...])")
  endif()
  set(name ${L_NAME})
  roam_layer_record(${name} ${L_DEPENDS})

  set(_dir ${PROJECT_SOURCE_DIR}/src/${name})
  set(_globs ${_dir}/*.cpp)
  foreach(sub IN LISTS L_SOURCE_DIRS)
    list(APPEND _globs ${_dir}/${sub}/*.cpp)
  endforeach()
  file(GLOB _srcs CONFIGURE_DEPENDS ${_globs})

  if(NOT TARGET roam)
    add_library(roam INTERFACE)
    add_library(roam::roam ALIAS roam)
  endif()

  if(_srcs)
    # Static unless BUILD_SHARED_LIBS (docs/packaging.md).
    add_library(roam_${name} ${_srcs})
    target_include_directories(roam_${name}
      PUBLIC $<BUILD_INTERFACE:${PROJECT_SOURCE_DIR}/include>
             $<BUILD_INTERFACE:${PROJECT_BINARY_DIR}/include>  # the generated roam/version.hpp
      PRIVATE ${_dir})
    # Warnings are roam's own business: never exported to users.
    target_link_libraries(roam_${name} PUBLIC Threads::Threads PRIVATE $<BUILD_INTERFACE:roam_warnings>)
    target_compile_features(roam_${name} PUBLIC cxx_std_20)
    target_compile_options(roam_${name} PRIVATE ${ROAM_UBSAN_LIBRARY_CHECKS})
    roam_pch_layer(roam_${name})
    set(_scope PUBLIC)
    roam_whole_archive(_whole roam_${name})
    target_link_libraries(roam INTERFACE ${_whole})
  else()
    add_library(roam_${name} INTERFACE)
    target_include_directories(roam_${name} INTERFACE $<BUILD_INTERFACE:${PROJECT_SOURCE_DIR}/include>)
    target_link_libraries(roam_${name} INTERFACE Threads::Threads)
    target_compile_features(roam_${name} INTERFACE cxx_std_20)
    set(_scope INTERFACE)
    target_link_libraries(roam INTERFACE roam_${name})
  endif()
  foreach(dep IN LISTS L_DEPENDS)
    get_target_property(_type roam_${dep} TYPE)
    if(NOT _type STREQUAL "INTERFACE_LIBRARY")
      roam_whole_archive(_whole roam_${dep})
      target_link_libraries(roam_${name} ${_scope} ${_whole})
    else()
      target_link_libraries(roam_${name} ${_scope} roam_${dep})
    endif()
  endforeach()

  if(ROAM_BUILD_TESTS)
    file(GLOB _tests CONFIGURE_DEPENDS ${PROJECT_SOURCE_DIR}/tests/unit/${name}/*_test.cpp)
    if(_tests)
      add_executable(unit_${name} ${_tests})
      set_target_properties(unit_${name} PROPERTIES RUNTIME_OUTPUT_DIRECTORY ${PROJECT_BINARY_DIR}/tests)
      # Unity build, batches of 8 test files per translation unit (most
      # layers: one). Each test file costs ~4 s on top of its tests (the
      # PCH, GoogleTest's and roam's templates that every file instantiates)
      # and unit tests are half of each CI build. Measured, -j 1, GCC 12,
      # debug, the layer's test objects, one file per object -> batches of 8:
      # obj 82 -> 40 s, coll 63 -> 42 s, lb 34 -> 20 s, every layer
      # 314 -> 176 s (-44%); batches of 4 saved 40% (obj, coll, lb, msg),
      # of 8 47%. ASan+UBSan: lb 137 -> 96 s, coll 246 -> 184 s. The price:
      # editing one test recompiles its batch, and one job takes up to
      # 1.5 GB (coll). Every test file keeps its content in a namespace of
      # its own, so that files of one batch do not collide.
      set_target_properties(unit_${name} PROPERTIES UNITY_BUILD ON UNITY_BUILD_BATCH_SIZE 8)
      target_link_libraries(unit_${name} PRIVATE roam GTest::gtest GTest::gtest_main roam_warnings)
      target_include_directories(unit_${name} PRIVATE ${PROJECT_SOURCE_DIR}/tests)
      if(IS_DIRECTORY ${_dir})
        target_include_directories(unit_${name} PRIVATE ${_dir})
      endif()
      gtest_discover_tests(unit_${name} DISCOVERY_TIMEOUT 60 PROPERTIES TIMEOUT 120)
    endif()
  endif()
endfunction()

# Gives `target` (a tool or test outside the layers) the private headers of
# `layer`, and links the layer, whole like everywhere else (so the target may
# link `roam` as well: one library linked with and without WHOLE_ARCHIVE is a
# CMake error). Link layers only through `roam`, roam_add_layer and this.
function(roam_use_layer_internals target layer)
  get_property(_layers GLOBAL PROPERTY ROAM_LAYERS)
  if(NOT layer IN_LIST _layers)
    message(FATAL_ERROR "roam_use_layer_internals(${target} ${layer}): '${layer}' is not a declared layer")
  endif()
  target_include_directories(${target} PRIVATE ${PROJECT_SOURCE_DIR}/src/${layer})
  roam_whole_archive(_whole roam_${layer})
  target_link_libraries(${target} PRIVATE ${_whole})
endfunction()

# `roam_header_check`: every public header (include/roam/**/*.hpp) compiled
# alone, one generated translation unit each (including it twice, which also
# checks its include guard), with the usage requirements of its own layer
# only; roam.hpp with `roam`. Part of the default build.
function(roam_add_header_check)
  get_property(_layers GLOBAL PROPERTY ROAM_LAYERS)
  set(_gen ${PROJECT_BINARY_DIR}/header_check)
  set(_all_tus "")
  set(_all_files "")
  foreach(layer IN LISTS _layers ITEMS roam)
    if(layer STREQUAL "roam")
      file(GLOB _headers CONFIGURE_DEPENDS RELATIVE ${PROJECT_SOURCE_DIR}/include ${PROJECT_SOURCE_DIR}/include/roam/*.hpp)
      set(_links roam)
    else()
      file(GLOB_RECURSE _headers CONFIGURE_DEPENDS RELATIVE ${PROJECT_SOURCE_DIR}/include
        ${PROJECT_SOURCE_DIR}/include/roam/${layer}/*.hpp)
      set(_links roam_${layer})
    endif()
    if(NOT _headers)
      continue()
    endif()
    list(SORT _headers)
    set(_tus "")
    foreach(h IN LISTS _headers)
      string(REGEX REPLACE "\\.hpp$" ".cpp" _tu ${_gen}/${h})
      file(CONFIGURE OUTPUT ${_tu}
        CONTENT "// Generated by roam_add_header_check (cmake/roam_layer.cmake): ${h} compiles on its own.\n#include <${h}>\n#include <${h}>\n"
        @ONLY)
      list(APPEND _tus ${_tu})
    endforeach()
    list(APPEND _all_files ${_tus})
    add_library(roam_header_check_${layer} OBJECT ${_tus})
    target_link_libraries(roam_header_check_${layer} PRIVATE ${_links} roam_warnings)
    # Only whether it compiles matters: no optimisation, debug information or
    # instrumentation, whatever the build's (the ASan build checks too).
    target_compile_options(roam_header_check_${layer} PRIVATE -O0 -g0 $<$<BOOL:${ROAM_SANITIZE}>:-fno-sanitize=all>)
    # Each header alone is the point: never merged into a unity build.
    set_target_properties(roam_header_check_${layer} PROPERTIES UNITY_BUILD OFF)
    list(APPEND _all_tus roam_header_check_${layer})
  endforeach()
  # Translation units of headers since removed go too.
  file(GLOB_RECURSE _old ${_gen}/*.cpp)
  foreach(f IN LISTS _old)
    if(NOT f IN_LIST _all_files)
      file(REMOVE ${f})
    endif()
  endforeach()
  add_custom_target(roam_header_check)
  add_dependencies(roam_header_check ${_all_tus})
endfunction()
