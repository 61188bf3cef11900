# MPI transport tests: mpi-transport-probe drives the transport directly (no
# runtime) under mpirun. Included by tests/transport/CMakeLists.txt when MPI
# was found.
#
# ROAM_MPIRUN / ROAM_MPIRUN_FLAGS: how every roam test starts an MPI job on
# one host (reuse them for integration tests:
#   ${ROAM_MPIRUN} ${ROAM_MPIRUN_FLAGS} -n 2 $<TARGET_FILE:prog> +ppn 2 ...).
# For OpenMPI:
#   --allow-run-as-root  CI and these VMs run as root; harmless otherwise.
#   --oversubscribe      more ranks (and threads) than the 2 cores here.
#   --bind-to none       mpirun binds each rank to one core by default when
#                        np <= 2; a rank's PE threads and its communication
#                        thread would then share that core. roam pins its own
#                        threads (+setcpuaffinity).
#   --mca btl self,vader shared memory only: no probing of absent networks
#                        (openib/ofi/tcp) and their warnings. Drop it for jobs
#                        across hosts.
# Other MPIs (MPICH's Hydra) need no flags here.
set(ROAM_MPIRUN "${MPIEXEC_EXECUTABLE}" CACHE INTERNAL "mpirun used by roam's tests")
set(_roam_mpirun_flags)
if(MPIEXEC_EXECUTABLE)
  execute_process(COMMAND ${MPIEXEC_EXECUTABLE} --version OUTPUT_VARIABLE _mpirun_version ERROR_QUIET)
  if(_mpirun_version MATCHES "Open MPI|OpenRTE")
    set(_roam_mpirun_flags --allow-run-as-root --oversubscribe --bind-to none --mca btl self,vader)
  endif()
endif()
set(ROAM_MPIRUN_FLAGS "${_roam_mpirun_flags}" CACHE INTERNAL "flags roam's tests give mpirun (a list)")

# Under -DROAM_SANITIZE=thread, MPI jobs need OpenMPI's own reports suppressed
# (tsan.supp says which and why). The environment reaches every local rank.
set(ROAM_MPI_TEST_ENVIRONMENT)
if(ROAM_SANITIZE MATCHES "thread")
  set(ROAM_MPI_TEST_ENVIRONMENT
      "TSAN_OPTIONS=halt_on_error=1 second_deadlock_stack=1 suppressions=${CMAKE_CURRENT_LIST_DIR}/tsan.supp")
elseif(ROAM_SANITIZE MATCHES "address")
  # OpenMPI leaks its own start-up allocations, many in dlopen'ed components
  # that LeakSanitizer cannot name for a suppression; ASan itself stays on.
  set(ROAM_MPI_TEST_ENVIRONMENT "ASAN_OPTIONS=detect_leaks=0")
endif()
set(ROAM_MPI_TEST_ENVIRONMENT "${ROAM_MPI_TEST_ENVIRONMENT}" CACHE INTERNAL "environment for tests run under mpirun")

add_executable(mpi-transport-probe ${CMAKE_CURRENT_LIST_DIR}/mpi_transport_probe.cpp)
target_link_libraries(mpi-transport-probe PRIVATE roam_warnings)
roam_use_layer_internals(mpi-transport-probe machine)

# roam_mpi_test(NAME RANKS <n> [RC <status|nonzero>] [REGEX <re>] [NOT_REGEX <re>] [ENV VAR=VALUE...] ARGS <args>...)
function(roam_mpi_test name)
  cmake_parse_arguments(PARSE_ARGV 1 A "" "RANKS;RC;REGEX;NOT_REGEX" "ENV;ARGS")
  set(env_flags)
  foreach(kv IN LISTS A_ENV)
    list(APPEND env_flags -x ${kv})  # OpenMPI: export to every rank
  endforeach()
  # Values quoted: a regex element with "\\[" would open a CMake bracket in a list.
  roam_program_test(${name} RC "${A_RC}" REGEX "${A_REGEX}" NOT_REGEX "${A_NOT_REGEX}" LABELS transport
                    ENV ${ROAM_MPI_TEST_ENVIRONMENT}
                    COMMAND ${ROAM_MPIRUN} ${ROAM_MPIRUN_FLAGS} ${env_flags} -n ${A_RANKS}
                            $<TARGET_FILE:mpi-transport-probe> ${A_ARGS})
endfunction()

# Every rank must print its OK line; a failing rank exits 1 and so does mpirun.
foreach(ranks 2 3)
  math(EXPR _last "${ranks} - 1")
  # SMP style (two PE-like sender threads + the progress thread) with a 4 MiB frame.
  roam_mpi_test(transport.mpi.fifo_threads.n${ranks} RANKS ${ranks}
                REGEX "rank ${_last} of ${ranks}: OK" NOT_REGEX "FAIL" ARGS --threads 2 --frames 2000)
  # Non-SMP style: only the progress thread sends (the direct MPI_Isend path).
  roam_mpi_test(transport.mpi.fifo_progress_thread_only.n${ranks} RANKS ${ranks}
                REGEX "rank 0 of ${ranks}: OK" NOT_REGEX "FAIL" ARGS --threads 0 --frames 5000)
endforeach()

# Burst caps at their minimum: every path through the queue, the staging batch
# and the in-flight limit gets exercised, and order must still hold.
roam_mpi_test(transport.mpi.burst_caps_minimal.n3 RANKS 3 REGEX "rank 1 of 3: OK" NOT_REGEX "FAIL"
              ENV ROAM_MPI_MAX_SENDS=1 ROAM_MPI_MAX_RECVS=1 ROAM_MPI_MAX_TESTS=1 ROAM_MPI_MAX_INFLIGHT=2
              ARGS --threads 2 --frames 500)
# Most frames over the small-frame limit (header in the ordered stream, bytes
# on the bulk communicator), sizes straddling it, and only 2 pre-posted
# receives: order must hold across both paths.
roam_mpi_test(transport.mpi.big_frame_path.n3 RANKS 3 REGEX "rank 2 of 3: OK" NOT_REGEX "FAIL"
              ENV ROAM_MPI_SMALL_FRAME=128 ROAM_MPI_RECV_SLOTS=2 ARGS --threads 2 --frames 1000)
# No spinning in wait(): the idle path alone must still deliver everything.
roam_mpi_test(transport.mpi.no_spin.n2 RANKS 2 REGEX "rank 0 of 2: OK" NOT_REGEX "FAIL"
              ENV ROAM_MPI_SPIN_US=0 ARGS --threads 1 --frames 300)
# A bad tunable is a clear start-up error naming the variable.
roam_mpi_test(transport.mpi.bad_limit_is_reported.n2 RANKS 2 RC nonzero
              REGEX "ROAM_MPI_MAX_SENDS='lots' is not a whole number in \\[1, 1048576\\]"
              NOT_REGEX "ThreadSanitizer" ENV ROAM_MPI_MAX_SENDS=lots ARGS --frames 1)
# A rank that dies: the job must end (non-zero) instead of hanging; OpenMPI's
# mpirun kills the survivors itself.
roam_mpi_test(transport.mpi.peer_dies.n2 RANKS 2 RC nonzero REGEX "rank 1: exiting abruptly" NOT_REGEX "OK \\(|ThreadSanitizer"
              ARGS --die)

# Out-of-line segments (docs/design/zero-copy.md): a third of the frames carry
# some (empty, 1 B, 16 KiB + a few, now and then 1 MiB), checked for count,
# size, content and order with the frames. With the small-frame limit at
# 128 B the inline bytes no longer fit the segmented header and take the
# bulk path too; with minimal caps every queueing path is exercised.
roam_mpi_test(transport.mpi.segments.n2 RANKS 2 REGEX "rank 1 of 2: OK.*a third with segments" NOT_REGEX "FAIL"
              ARGS --threads 2 --frames 1500 --segments)
roam_mpi_test(transport.mpi.segments_inline_on_bulk.n3 RANKS 3 REGEX "rank 2 of 3: OK.*a third with segments"
              NOT_REGEX "FAIL" ENV ROAM_MPI_SMALL_FRAME=128 ROAM_MPI_RECV_SLOTS=2
              ARGS --threads 2 --frames 600 --segments)
roam_mpi_test(transport.mpi.segments_burst_caps_minimal.n3 RANKS 3 REGEX "rank 0 of 3: OK.*a third with segments"
              NOT_REGEX "FAIL" ENV ROAM_MPI_MAX_SENDS=1 ROAM_MPI_MAX_RECVS=1 ROAM_MPI_MAX_TESTS=1 ROAM_MPI_MAX_INFLIGHT=2
              ARGS --threads 2 --frames 300 --segments)
