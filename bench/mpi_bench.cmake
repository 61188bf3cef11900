# mpi-pingpong: plain MPI ping-pong and the same through roam's mpi transport
# (transport level). Included by bench/CMakeLists.txt when MPI was found.
# Run:  mpirun <ROAM_MPIRUN_FLAGS, see tests/transport/mpi/mpi.cmake> -n 2 bench/mpi-pingpong [--json]
add_executable(mpi-pingpong ${CMAKE_CURRENT_LIST_DIR}/mpi_pingpong.cpp)
target_link_libraries(mpi-pingpong PRIVATE roam_warnings)
roam_use_layer_internals(mpi-pingpong machine)
