# Global Arrays built from source against roam's ARMCI, and GA's own C and
# C++ test programs run as virtual ranks (issue #39's aim; ga_suite.py says
# how). Included from libs/armci/tests/CMakeLists.txt.
#
# GA's source: ROAM_GA_SOURCE_DIR (a checkout of github.com/GlobalArrays/ga;
# the environment's ROAM_GA_SOURCE at first configure). Empty: the suite
# looks at ROAM_GA_SOURCE when the test runs, and without it the tests are
# reported skipped, saying why (as when autotools or make are missing). GA is
# configured and built once into the build tree (about 3 minutes on 2 idle
# cores: autoreconf, configure, make) and reused by later runs while GA's
# source, roam's headers, ampicc and the loader's ARMCI exports are unchanged;
# the programs then take 55-75 s (armci.ga_suite) and 20-55 s
# (tcp.armci.ga_suite), idle to busy.
set(ROAM_GA_SOURCE_DIR "$ENV{ROAM_GA_SOURCE}" CACHE PATH
    "A Global Arrays checkout that armci.ga_suite builds against roam's ARMCI (empty: skipped)")
find_package(Python3 COMPONENTS Interpreter)
if(NOT Python3_Interpreter_FOUND)
  message(STATUS "roam: python3 not found; armci.ga_suite is left out")
elseif(ROAM_SANITIZE)
  # GA's build is ordinary -O2 code (the programs', not the loader's), and
  # minutes of it under a sanitizer would tell little about roam.
  message(STATUS "roam: armci.ga_suite is left out under sanitizers (ROAM_SANITIZE=${ROAM_SANITIZE})")
else()
  set(_ga_source)
  if(ROAM_GA_SOURCE_DIR)
    set(_ga_source --ga-source ${ROAM_GA_SOURCE_DIR})
  endif()
  set(_ga_suite Python3::Interpreter ${CMAKE_CURRENT_LIST_DIR}/ga_suite.py ${_ga_source}
                --ampicc ${PROJECT_BINARY_DIR}/bin/ampicc --loader $<TARGET_FILE:roam-ampi>
                --work ${CMAKE_CURRENT_BINARY_DIR}/ga --timeout 120)
  add_test(NAME armci.ga_suite COMMAND ${_ga_suite} --runs "+p1 +vp 1" --runs "+p1 +vp 4" --runs "+p2 +vp 4")
  # The first run builds GA (up to 4 minutes on a busy machine).
  set_tests_properties(armci.ga_suite PROPERTIES TIMEOUT 1500)
  set(_ga_tests armci.ga_suite)
  if(TARGET roamrun)
    add_test(NAME tcp.armci.ga_suite COMMAND ${_ga_suite} --runs "+vp 4" --launcher "$<TARGET_FILE:roamrun> -n 2")
    # It reuses armci.ga_suite's build (and waits for it on the work
    # directory's lock if they run at once).
    set_tests_properties(tcp.armci.ga_suite PROPERTIES DEPENDS armci.ga_suite TIMEOUT 900)
    list(APPEND _ga_tests tcp.armci.ga_suite)
  endif()
  set_tests_properties(${_ga_tests} PROPERTIES LABELS "integration;armci;conformance" SKIP_RETURN_CODE 77
                       PROCESSORS 2)
endif()
