# One packaging check (tests/packaging/CMakeLists.txt registers them): builds
# tests/consumer against roam the way a user gets it and runs it.
#
#   cmake -DMODE=<build|install|version|deb|subdirectory|fetchcontent> -DROAM_SOURCE_DIR=... -DROAM_BINARY_DIR=...
#         -DCONSUMER_DIR=... -DWORK_DIR=... -DGENERATOR=... [-DMAKE_PROGRAM=...] -P packaging_test.cmake
#
# build         roam configured and built (static, no tests) into ROAM_BINARY_DIR, for the
#               three tests after it (fixture): they check what users install, not this
#               build tree's configuration (never a sanitizer)
# install       cmake --install --strip into a prefix, moved elsewhere (relocatable); no file in
#               it names the source or build tree or the prefix it was installed to; the
#               consumer built with find_package and with pkg-config; runs on 2 PEs and
#               under roamrun -n 2
# version       against that prefix (fixture): find_package(roam 9.9) and (roam 0.2) fail
#               with CMake's message, (roam 0.1) works
# deb           cpack -G DEB; the package's name and dependencies; unpacked with dpkg-deb -x,
#               no path of this machine in it, the consumer built against its usr/ and run
# subdirectory  add_subdirectory(roam) with BUILD_SHARED_LIBS=ON: none of roam's tests,
#               benchmarks or examples are configured; the consumer and roamrun built, run
# fetchcontent  FetchContent_MakeAvailable(roam): configured the same way (no tests etc.)
cmake_minimum_required(VERSION 3.25)
foreach(v MODE ROAM_SOURCE_DIR ROAM_BINARY_DIR CONSUMER_DIR WORK_DIR GENERATOR)
  if(NOT DEFINED ${v})
    message(FATAL_ERROR "packaging_test.cmake: -D${v}=... missing")
  endif()
endforeach()
set(_gen -G ${GENERATOR})
if(MAKE_PROGRAM)
  list(APPEND _gen -DCMAKE_MAKE_PROGRAM=${MAKE_PROGRAM})
endif()

# Runs a command; fails the test (with its output) unless it exits 0 and its
# output matches every regex after REGEX.
function(run_ok what)
  cmake_parse_arguments(PARSE_ARGV 1 A "" "WORKING_DIRECTORY" "COMMAND;REGEX;ENV")
  set(_cmd ${A_COMMAND})
  if(A_ENV)
    set(_cmd ${CMAKE_COMMAND} -E env ${A_ENV} ${A_COMMAND})
  endif()
  if(NOT A_WORKING_DIRECTORY)
    set(A_WORKING_DIRECTORY ${WORK_DIR})
  endif()
  execute_process(COMMAND ${_cmd} WORKING_DIRECTORY ${A_WORKING_DIRECTORY}
                  RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err TIMEOUT 600)
  if(NOT rc EQUAL 0)
    message(FATAL_ERROR "${what}: exit status ${rc}\ncommand: ${_cmd}\n--- stdout\n${out}\n--- stderr\n${err}")
  endif()
  foreach(re IN LISTS A_REGEX)
    if(NOT "${out}${err}" MATCHES "${re}")
      message(FATAL_ERROR "${what}: output does not match '${re}'\ncommand: ${_cmd}\n--- stdout\n${out}\n--- stderr\n${err}")
    endif()
  endforeach()
  message(STATUS "${what}: ok")
  set(last_output "${out}${err}" PARENT_SCOPE)
endfunction()

# The consumer and its PDES part on 2 PEs, and under roamrun -n 2.
function(run_consumer what dir roamrun)
  run_ok("${what}: consumer +p2" COMMAND ${dir}/consumer +p2 REGEX "2 PEs, 24 elements, sum 4396, product 0: OK")
  run_ok("${what}: consumer_pdes +p2" COMMAND ${dir}/consumer_pdes +p2 REGEX "2 PEs, .*: OK")
  run_ok("${what}: consumer_ross +p2" COMMAND ${dir}/consumer_ross +p2 REGEX "consumer_ross: 2 PEs, 4 LPs" "Net Events Processed +76\n")
  run_ok("${what}: roamrun -n 2 consumer" COMMAND ${roamrun} -n 2 ${dir}/consumer
         REGEX "2 PEs, 24 elements, sum 4396, product 0: OK")
  run_ok("${what}: roamrun --version" COMMAND ${roamrun} --version REGEX "^roamrun: roam [0-9]+\\.[0-9]+\\.[0-9]+ \\(")
endfunction()

# No file under `root` (binaries included, as strings) names this machine's
# source tree (the build tree is inside it here, but both are checked) or any
# of `ARGN` (prefixes the tree was installed to).
function(check_no_build_paths root)
  file(GLOB_RECURSE _files LIST_DIRECTORIES false ${root}/*)
  list(LENGTH _files _n)
  if(_n LESS 10)
    message(FATAL_ERROR "check_no_build_paths: only ${_n} files under ${root}")
  endif()
  set(_paths ${ROAM_SOURCE_DIR} ${ROAM_BINARY_DIR} ${ARGN})
  foreach(f IN LISTS _files)
    if(IS_SYMLINK ${f})
      continue()
    endif()
    foreach(p IN LISTS _paths)
      string(REGEX REPLACE "([][+.*()^$?|\\\\])" "\\\\\\1" _re "${p}")
      file(STRINGS ${f} _hits REGEX "${_re}" LIMIT_COUNT 1)
      if(_hits)
        list(GET _hits 0 _hit)
        message(FATAL_ERROR "${f} contains a path of the machine that built it (${p}):\n  ${_hit}")
      endif()
    endforeach()
  endforeach()
  message(STATUS "no path of this machine in the ${_n} files under ${root}")
endfunction()

function(configure_consumer what build_dir)
  file(REMOVE_RECURSE ${build_dir})
  run_ok("${what}: configure" COMMAND ${CMAKE_COMMAND} ${_gen} -S ${CONSUMER_DIR} -B ${build_dir} ${ARGN})
  set(last_output "${last_output}" PARENT_SCOPE)
endfunction()

set(_prefix ${WORK_DIR}/prefix)

# What these builds check is what gets installed and how it is found, not
# code generation: each layer is compiled as one translation unit per 8 files
# (CMake's unity build): 87 s instead of 160 file by file. Warnings are
# errors here as in CI's other builds (these are the ones without sanitizers).
set(_quick_build -DCMAKE_UNITY_BUILD=ON -DROAM_WERROR=ON)

if(MODE STREQUAL "build")
  # roam as a user builds it to install: no tests, benchmarks or examples; no
  # build type (no optimisation, no debug information: the quickest build),
  # no sanitizer, whatever the build tree that runs this test uses.
  file(REMOVE_RECURSE ${ROAM_BINARY_DIR})
  file(MAKE_DIRECTORY ${WORK_DIR})
  run_ok("build: configure" COMMAND ${CMAKE_COMMAND} ${_gen} -S ${ROAM_SOURCE_DIR} -B ${ROAM_BINARY_DIR}
         -DROAM_BUILD_TESTS=OFF -DROAM_BUILD_BENCH=OFF -DROAM_BUILD_EXAMPLES=OFF -DROAM_HEADER_CHECK=OFF
         ${_quick_build})
  run_ok("build" COMMAND ${CMAKE_COMMAND} --build ${ROAM_BINARY_DIR})

elseif(MODE STREQUAL "install")
  file(REMOVE_RECURSE ${WORK_DIR})
  file(MAKE_DIRECTORY ${WORK_DIR})
  set(_staged ${WORK_DIR}/staged)
  run_ok("install" COMMAND ${CMAKE_COMMAND} --install ${ROAM_BINARY_DIR} --prefix ${_staged} --strip)
  foreach(f include/roam/roam.hpp include/roam/version.hpp include/roam/pdes/simulation.hpp include/ross.h
            include/roam/aggregation/mesh.hpp bin/roamrun bin/roam-trace bin/roam-lb
            lib/cmake/roam/roamConfig.cmake lib/cmake/roam/roamConfigVersion.cmake lib/cmake/roam/roamTargets.cmake
            lib/pkgconfig/roam.pc lib/pkgconfig/roam-pdes.pc share/doc/roam/README.md share/doc/roam/packaging.md
            include/roam/ampi/mpi.h bin/ampicc bin/ampicxx bin/roam-ampi lib/pkgconfig/roam-ampi.pc)
    if(NOT EXISTS ${_staged}/${f})
      message(FATAL_ERROR "install: ${f} missing from the installed tree")
    endif()
  endforeach()
  # Relocatable: used from somewhere else than where it was installed.
  file(RENAME ${_staged} ${_prefix})
  check_no_build_paths(${_prefix} ${_staged})

  configure_consumer("install: find_package" ${WORK_DIR}/consumer -DCMAKE_PREFIX_PATH=${_prefix})
  if(NOT last_output MATCHES "consumer: roam 0\\.1\\.[0-9]+ from ${_prefix}/lib/cmake/roam")
    message(FATAL_ERROR "install: the consumer did not find roam in ${_prefix}:\n${last_output}")
  endif()
  run_ok("install: build" COMMAND ${CMAKE_COMMAND} --build ${WORK_DIR}/consumer)
  run_consumer("install" ${WORK_DIR}/consumer ${_prefix}/bin/roamrun)

  # pkg-config: the flags alone build it (relocated prefix found through ${pcfiledir}).
  find_program(PKG_CONFIG pkg-config REQUIRED)
  run_ok("pkg-config" COMMAND ${PKG_CONFIG} --cflags --libs roam roam-pdes
         ENV PKG_CONFIG_PATH=${_prefix}/lib/pkgconfig REGEX "-I${_prefix}/" "-lroam_pdes" "--whole-archive")
  string(STRIP "${last_output}" _flags)
  separate_arguments(_flags UNIX_COMMAND "${_flags}")
  file(MAKE_DIRECTORY ${WORK_DIR}/pkgconfig)
  run_ok("pkg-config: compile" COMMAND c++ -std=c++20 ${CONSUMER_DIR}/consumer.cpp ${_flags}
         -o ${WORK_DIR}/pkgconfig/consumer)
  run_ok("pkg-config: compile pdes" COMMAND c++ -std=c++20 ${CONSUMER_DIR}/consumer_pdes.cpp ${_flags}
         -o ${WORK_DIR}/pkgconfig/consumer_pdes)
  # A ROSS model is C: compiled and linked by the C compiler with the same flags.
  run_ok("pkg-config: compile ross (C)" COMMAND cc -std=c11 ${CONSUMER_DIR}/consumer_ross.c ${_flags}
         -o ${WORK_DIR}/pkgconfig/consumer_ross)
  run_consumer("pkg-config" ${WORK_DIR}/pkgconfig ${_prefix}/bin/roamrun)

  # Adaptive MPI: a C MPI program built by the installed ampicc (from the
  # relocated prefix) and run by the installed loader, with globals per rank.
  file(MAKE_DIRECTORY ${WORK_DIR}/ampi)
  run_ok("ampicc" COMMAND ${_prefix}/bin/ampicc -O2 -o ${WORK_DIR}/ampi/consumer_ampi ${CONSUMER_DIR}/consumer_ampi.c)
  run_ok("ampicc: run +p2 +vp 4" COMMAND ${WORK_DIR}/ampi/consumer_ampi +p2 +vp 4 REGEX "consumer_ampi: 4 ranks, sum 6: OK")
  run_ok("ampicc: roamrun -n 2 +vp 6" COMMAND ${_prefix}/bin/roamrun -n 2 ${WORK_DIR}/ampi/consumer_ampi +vp 6
         REGEX "consumer_ampi: 6 ranks, sum 15: OK")

elseif(MODE STREQUAL "version")
  if(NOT EXISTS ${_prefix}/lib/cmake/roam/roamConfig.cmake)
    message(FATAL_ERROR "version: no installed roam in ${_prefix} (the packaging.install test makes it)")
  endif()
  foreach(bad 9.9 0.2)
    file(REMOVE_RECURSE ${WORK_DIR}/version_${bad})
    execute_process(COMMAND ${CMAKE_COMMAND} ${_gen} -S ${CONSUMER_DIR} -B ${WORK_DIR}/version_${bad}
                            -DCMAKE_PREFIX_PATH=${_prefix} -DROAM_REQUEST_VERSION=${bad}
                    RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
    if(rc EQUAL 0)
      message(FATAL_ERROR "version: find_package(roam ${bad}) succeeded against roam 0.1:\n${out}${err}")
    endif()
    string(REGEX REPLACE "[ \n]+" " " _flat "${err}")
    if(NOT _flat MATCHES "Could not find a configuration file for package \"roam\" that is compatible with requested version \"${bad}\"")
      message(FATAL_ERROR "version: find_package(roam ${bad}) failed without CMake's message:\n${err}")
    endif()
    message(STATUS "find_package(roam ${bad}) fails with CMake's message: ok")
  endforeach()
  configure_consumer("version 0.1" ${WORK_DIR}/version_0.1 -DCMAKE_PREFIX_PATH=${_prefix} -DROAM_REQUEST_VERSION=0.1)

elseif(MODE STREQUAL "deb")
  file(REMOVE_RECURSE ${WORK_DIR})
  file(MAKE_DIRECTORY ${WORK_DIR})
  run_ok("cpack" COMMAND cpack -G DEB --config ${ROAM_BINARY_DIR}/CPackConfig.cmake -B ${WORK_DIR}/pkg)
  file(GLOB _debs ${WORK_DIR}/pkg/libroam-dev_*.deb)
  list(LENGTH _debs _n)
  if(NOT _n EQUAL 1)
    message(FATAL_ERROR "deb: expected one libroam-dev_*.deb in ${WORK_DIR}/pkg, found: ${_debs}")
  endif()
  run_ok("dpkg-deb fields" COMMAND dpkg-deb -f ${_debs} Package Version Architecture Depends
         REGEX "Package: libroam-dev" "Version: 0\\.1\\.[0-9]+" "Depends: .*libstdc\\+\\+")
  # What linking needs, as built here.
  foreach(dep MPI:libopenmpi-dev ZSTD:libzstd-dev METIS:libmetis-dev)
    string(REPLACE ":" ";" dep "${dep}")
    list(GET dep 0 _what)
    list(GET dep 1 _pkg)
    if(EXPECT_${_what} AND NOT last_output MATCHES "Depends: [^\n]*${_pkg}")
      message(FATAL_ERROR "deb: built with ${_what} but the package does not depend on ${_pkg}:\n${last_output}")
    endif()
  endforeach()
  run_ok("dpkg-deb -x" COMMAND dpkg-deb -x ${_debs} ${WORK_DIR}/root)
  check_no_build_paths(${WORK_DIR}/root)
  configure_consumer("deb: find_package" ${WORK_DIR}/consumer -DCMAKE_PREFIX_PATH=${WORK_DIR}/root/usr)
  run_ok("deb: build" COMMAND ${CMAKE_COMMAND} --build ${WORK_DIR}/consumer)
  run_consumer("deb" ${WORK_DIR}/consumer ${WORK_DIR}/root/usr/bin/roamrun)

elseif(MODE STREQUAL "subdirectory" OR MODE STREQUAL "fetchcontent")
  file(REMOVE_RECURSE ${WORK_DIR})
  file(MAKE_DIRECTORY ${WORK_DIR})
  set(_b ${WORK_DIR}/consumer)
  # No build type: no optimisation, no debug information; the quickest build of roam.
  configure_consumer("${MODE}" ${_b} -DROAM_CONSUME=${MODE} -DROAM_SOURCE_DIR=${ROAM_SOURCE_DIR}
                     -DBUILD_SHARED_LIBS=ON ${_quick_build})
  # Every target Ninja knows (the tests run with the Ninja generator).
  run_ok("${MODE}: targets" COMMAND ${CMAKE_COMMAND} --build ${_b} -- -t targets all
         REGEX "(^|\n)consumer:" "(^|\n)roamrun:" "(^|\n)roam_obj:")
  foreach(t unit_obj roam-bench leanmd phold hello roam_header_check)
    if(last_output MATCHES "(^|\n|/)${t}:")
      message(FATAL_ERROR "${MODE}: roam as a subproject configured its '${t}' target:\n${last_output}")
    endif()
  endforeach()
  file(GLOB_RECURSE _ctest ${_b}/CTestTestfile.cmake)
  if(_ctest)
    message(FATAL_ERROR "${MODE}: roam as a subproject registered tests: ${_ctest}")
  endif()
  if(MODE STREQUAL "subdirectory")
    run_ok("subdirectory: build" COMMAND ${CMAKE_COMMAND} --build ${_b} --target consumer consumer_pdes consumer_ross roamrun)
    file(GLOB _so ${_b}/roam/src/libroam_obj.so)
    if(NOT _so)
      message(FATAL_ERROR "subdirectory: BUILD_SHARED_LIBS=ON built no libroam_obj.so under ${_b}/roam/src")
    endif()
    run_consumer("subdirectory" ${_b} ${_b}/roam/tools/roamrun/roamrun)
  endif()
else()
  message(FATAL_ERROR "packaging_test.cmake: unknown MODE '${MODE}'")
endif()
