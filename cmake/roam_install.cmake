# What a user of an installed roam gets (docs/packaging.md):
#
# - `cmake --install`: the public headers (roam's and the libraries' in libs/),
#   the generated <roam/version.hpp>, the libraries, the tools (roamrun,
#   roam-trace, roam-lb), the docs, and
# - a CMake package: find_package(roam 0.1 CONFIG REQUIRED [COMPONENTS pdes
#   aggregation]) then target_link_libraries(app PRIVATE roam::roam), with a
#   version file (same major and minor version: 0.x minors may change the API);
# - pkg-config files roam.pc and roam-<library>.pc for each library in libs/
#   (pdes, aggregation, ampi);
# - `cpack -G DEB` (`make package`): libroam-dev.
#
# Every installed file is relocatable: the CMake package finds itself from its
# own location, the .pc files from ${pcfiledir}, and link dependencies are
# named (-lzstd), never located, so the tree carries no path of the machine
# that built it (tests/packaging checks).
include_guard(GLOBAL)
include(GNUInstallDirs)
include(CMakePackageConfigHelpers)

set(ROAM_INSTALL_CMAKEDIR ${CMAKE_INSTALL_LIBDIR}/cmake/roam CACHE STRING
    "Where roamConfig.cmake is installed, relative to the prefix")

# ---- targets --------------------------------------------------------------

get_property(_roam_layers GLOBAL PROPERTY ROAM_LAYERS)
set(_roam_link_order "")   # dependents first, for the .pc files
set(_roam_targets roam)
foreach(_layer IN LISTS _roam_layers)
  list(APPEND _roam_targets roam_${_layer})
  get_target_property(_type roam_${_layer} TYPE)
  if(NOT _type STREQUAL "INTERFACE_LIBRARY")
    list(PREPEND _roam_link_order roam_${_layer})
  endif()
endforeach()
# The libraries in libs/ that declared themselves (libs/CMakeLists.txt).
get_property(_roam_libraries GLOBAL PROPERTY ROAM_LIBRARIES)
set(_roam_library_targets "")
set(_roam_library_headers "")
foreach(_lib IN LISTS _roam_libraries)
  list(APPEND _roam_library_targets roam_${_lib})
  get_property(_own GLOBAL PROPERTY ROAM_LIBRARY_${_lib}_OWN_HEADERS)
  if(NOT _own)
    list(APPEND _roam_library_headers ${PROJECT_SOURCE_DIR}/libs/${_lib}/include/)
  endif()
endforeach()
install(TARGETS ${_roam_targets} roam_iso_heap ${_roam_library_targets}
  EXPORT roamTargets
  ARCHIVE DESTINATION ${CMAKE_INSTALL_LIBDIR}
  LIBRARY DESTINATION ${CMAKE_INSTALL_LIBDIR}
  RUNTIME DESTINATION ${CMAKE_INSTALL_BINDIR}
  INCLUDES DESTINATION ${CMAKE_INSTALL_INCLUDEDIR})
install(TARGETS roamrun roam-trace roam-lb RUNTIME DESTINATION ${CMAKE_INSTALL_BINDIR})

install(DIRECTORY ${PROJECT_SOURCE_DIR}/include/roam
                  ${_roam_library_headers}
        DESTINATION ${CMAKE_INSTALL_INCLUDEDIR}
        FILES_MATCHING PATTERN "*.hpp" PATTERN "*.h")
install(FILES ${PROJECT_BINARY_DIR}/include/roam/version.hpp DESTINATION ${CMAKE_INSTALL_INCLUDEDIR}/roam)

install(DIRECTORY ${PROJECT_SOURCE_DIR}/docs/ DESTINATION ${CMAKE_INSTALL_DOCDIR})
install(FILES ${PROJECT_SOURCE_DIR}/README.md DESTINATION ${CMAKE_INSTALL_DOCDIR})

# ---- the CMake package ----------------------------------------------------

install(EXPORT roamTargets NAMESPACE roam:: DESTINATION ${ROAM_INSTALL_CMAKEDIR} FILE roamTargets.cmake)
configure_package_config_file(${PROJECT_SOURCE_DIR}/cmake/roamConfig.cmake.in
  ${PROJECT_BINARY_DIR}/package/roamConfig.cmake
  INSTALL_DESTINATION ${ROAM_INSTALL_CMAKEDIR})
# 0.x: a new minor version may change the API, so a request for 0.1 accepts
# 0.1.z (z at least the requested one) and nothing else; from 1.0 on the rule
# becomes SameMajorVersion.
if(PROJECT_VERSION_MAJOR EQUAL 0)
  set(_roam_compat SameMinorVersion)
else()
  set(_roam_compat SameMajorVersion)
endif()
write_basic_package_version_file(${PROJECT_BINARY_DIR}/package/roamConfigVersion.cmake
  VERSION ${PROJECT_VERSION} COMPATIBILITY ${_roam_compat})
install(FILES ${PROJECT_BINARY_DIR}/package/roamConfig.cmake ${PROJECT_BINARY_DIR}/package/roamConfigVersion.cmake
        DESTINATION ${ROAM_INSTALL_CMAKEDIR})

# ---- pkg-config -----------------------------------------------------------

set(_pcdir ${CMAKE_INSTALL_LIBDIR}/pkgconfig)
# ${pcfiledir} is where the .pc file is found: the prefix is that many levels up.
file(RELATIVE_PATH ROAM_PC_PREFIX_FROM_PCDIR /prefix/${_pcdir} /prefix)
string(REGEX REPLACE "/$" "" ROAM_PC_PREFIX_FROM_PCDIR "${ROAM_PC_PREFIX_FROM_PCDIR}")

# A dependency through its own .pc file when the system has one, else by name.
find_program(ROAM_PKG_CONFIG pkg-config)
function(_roam_pc_module out)
  set(${out} "" PARENT_SCOPE)
  if(NOT ROAM_PKG_CONFIG)
    return()
  endif()
  foreach(m IN LISTS ARGN)
    execute_process(COMMAND ${ROAM_PKG_CONFIG} --exists ${m} RESULT_VARIABLE _rc)
    if(_rc EQUAL 0)
      set(${out} ${m} PARENT_SCOPE)
      return()
    endif()
  endforeach()
endfunction()

set(_requires "")
set(_cflags "")
set(_private_libs "")
if(ROAM_HAVE_MPI)
  _roam_pc_module(_mpi_pc mpi-cxx ompi-cxx)
  if(_mpi_pc)
    list(APPEND _requires ${_mpi_pc})
  else()
    foreach(_dir IN LISTS MPI_CXX_INCLUDE_DIRS)
      string(APPEND _cflags " -I${_dir}")
    endforeach()
    foreach(_lib IN LISTS MPI_CXX_LIBRARIES)
      get_filename_component(_name ${_lib} NAME_WE)
      string(REGEX REPLACE "^lib" "" _name ${_name})
      string(APPEND _private_libs " -l${_name}")
    endforeach()
  endif()
  string(APPEND _cflags " -DROAM_HAVE_MPI=1")
endif()
if(ROAM_HAVE_ZSTD)
  string(APPEND _cflags " -DROAM_HAVE_ZSTD=1")
  string(APPEND _private_libs " -lzstd")
endif()
if(ROAM_HAVE_METIS)
  string(APPEND _private_libs " -lmetis")
endif()
set(_libs "")
foreach(_t IN LISTS _roam_link_order)
  string(APPEND _libs " -l${_t}")
endforeach()
# C programs (ROSS models against ross.h) link with the C compiler: name
# the C++ runtime roam needs.
string(APPEND _private_libs " -lstdc++ -lm")
if(BUILD_SHARED_LIBS)
  set(ROAM_PC_LIBS "-L\${libdir}${_libs} -pthread")
  set(ROAM_PC_LIBS_PRIVATE "${_private_libs}")
else()
  # Whole archives: some objects only register themselves at start-up and
  # nothing refers to them (cmake/roam_layer.cmake says which).
  set(ROAM_PC_LIBS "-L\${libdir} -Wl,--whole-archive${_libs} -Wl,--no-whole-archive${_private_libs} -pthread")
  set(ROAM_PC_LIBS_PRIVATE "")
endif()
list(JOIN _requires ", " ROAM_PC_REQUIRES)
set(ROAM_PC_CFLAGS "-I\${includedir} -pthread${_cflags}")
configure_file(${PROJECT_SOURCE_DIR}/cmake/roam.pc.in ${PROJECT_BINARY_DIR}/package/roam.pc @ONLY)
set(_pc_files ${PROJECT_BINARY_DIR}/package/roam.pc)
foreach(_lib IN LISTS _roam_libraries)
  set(ROAM_PC_LIB ${_lib})
  get_property(ROAM_PC_LIB_CFLAGS GLOBAL PROPERTY ROAM_LIBRARY_${_lib}_CFLAGS)
  get_property(ROAM_PC_LIB_EXTRA_LIBS GLOBAL PROPERTY ROAM_LIBRARY_${_lib}_LIBS)
  configure_file(${PROJECT_SOURCE_DIR}/cmake/roam-lib.pc.in ${PROJECT_BINARY_DIR}/package/roam-${_lib}.pc @ONLY)
  list(APPEND _pc_files ${PROJECT_BINARY_DIR}/package/roam-${_lib}.pc)
endforeach()
install(FILES ${_pc_files} DESTINATION ${_pcdir})

# ---- cpack: the Debian package --------------------------------------------

set(CPACK_PACKAGE_NAME libroam-dev)
set(CPACK_PACKAGE_VENDOR "roam")
set(CPACK_PACKAGE_CONTACT "roam developers <roam-dev@localhost>")
set(CPACK_PACKAGE_VERSION ${PROJECT_VERSION})
set(CPACK_PACKAGE_DESCRIPTION_SUMMARY
    "C++20 runtime for over-decomposed, message-driven, migratable objects (development files)")
set(CPACK_PACKAGE_DESCRIPTION
    "roam places many migratable objects on processing elements, delivers asynchronous method invocations to them, measures their load and moves them to balance it, checkpoints them and recovers from a process death. Headers, libraries, CMake package, pkg-config files, and the tools roamrun, roam-trace and roam-lb.")
set(CPACK_GENERATOR DEB)
set(CPACK_PACKAGING_INSTALL_PREFIX /usr)
set(CPACK_STRIP_FILES ON)
set(CPACK_DEBIAN_FILE_NAME DEB-DEFAULT)
set(CPACK_DEBIAN_PACKAGE_SECTION libdevel)
# What linking a program against the libraries needs (the -dev packages of
# the libraries named in roamTargets.cmake / roam.pc), plus what the tools run
# with; shared-library dependencies of the tools from dpkg-shlibdeps when the
# machine has it (dpkg-dev).
set(_deb_depends "libstdc++-12-dev | libstdc++-dev")
if(ROAM_HAVE_MPI)
  list(APPEND _deb_depends "libopenmpi-dev | mpi-default-dev")
endif()
if(ROAM_HAVE_ZSTD)
  list(APPEND _deb_depends libzstd-dev)
endif()
if(ROAM_HAVE_METIS)
  list(APPEND _deb_depends libmetis-dev)
endif()
list(APPEND _deb_depends libjs-chart.js)
list(JOIN _deb_depends ", " CPACK_DEBIAN_PACKAGE_DEPENDS)
set(CPACK_DEBIAN_PACKAGE_RECOMMENDS "cmake (>= 3.25), pkg-config, g++ (>= 4:12)")
find_program(ROAM_DPKG_SHLIBDEPS dpkg-shlibdeps)
if(ROAM_DPKG_SHLIBDEPS)
  set(CPACK_DEBIAN_PACKAGE_SHLIBDEPS ON)
else()
  message(STATUS "roam: dpkg-shlibdeps not found (dpkg-dev): the .deb declares its library dependencies by hand only")
endif()
# The build's own tree is not packaged.
set(CPACK_SOURCE_IGNORE_FILES "/build/;/\\\\.git/")
include(CPack)
