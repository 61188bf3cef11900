# Fault tolerance through real processes (roam::checkpoint_in_memory, issue #17):
# runs programs/checkpoint_check in memory mode under roamrun --ft, has
# ft_kill_driver kill (or stop) one of its processes at a moment drawn from a
# seed, and checks that the job ends with the checksum line of a run that
# never failed (the line is the same for any number of processes).
#   cmake -DSCENARIO=<name> -DPROG=<checkpoint_check> -DDRIVER=<ft_kill_driver>
#         -DROAMRUN=<roamrun> [-DSEEDS=<first>:<last>] [-DPPN=<k>] -P ft_recovery.cmake
# Scenarios:
#   kill_random        SIGKILL to a random process at a random step, once per seed (3 -> 2 processes)
#   kill_node0         the process hosting PE 0
#   two_failures       a second SIGKILL after the first recovery (3 -> 2 -> 1)
#   spare              roamrun --spares 1: the spare takes the failed process's place (3 -> 3)
#   during_checkpoint  SIGKILL right after a checkpoint was asked for: the previous one is used
#   die_now            a process goes silent (roam::die_now); found by the heartbeat timeout
#   slow               SIGSTOP for 1 s with +fttimeout 4000: not declared failed, no recovery
#   no_checkpoint      a failure before any checkpoint: the job ends with status 1 and says why
#   host_dies          4 processes on two hosts (fake ssh; nodes 0, 1 on alpha, 2, 3 on beta): both
#                      of alpha's processes SIGKILLed at once; recovers (4 -> 2) only because each
#                      checkpoint's copy is kept on the other host
#   ftcopies           4 processes with +ftcopies 2, processes 0 and 1 SIGKILLed at once (4 -> 2), and
#                      with +ftcopies 3, processes 0, 1 and 2 (4 -> 1); with one copy (the default) the
#                      first ends with status 1: "no complete in-memory checkpoint survived"
#   mpi_die_now        over MPI (-DMPIEXEC, -DMPIEXEC_FLAGS): a rank goes silent (roam::die_now) and stays
#                      a silent rank; the others find it by heartbeat timeout, recover on the survivors
#                      (3 -> 2 ranks) and the job ends with status 0 and the reference answer
#   mpi_fenced         over MPI: a rank stopped (SIGSTOP) past the timeout is declared failed; when it
#                      wakes it reads the declaration and fences itself by going silent, never
#                      disturbing the survivors
#   mpi_slow           over MPI: SIGSTOP for 1 s with +fttimeout 4000: not declared failed
#   mpi_spare          over MPI, 4 ranks of which one is a spare (ROAM_SPARES=1): rank 1 goes silent, the
#                      spare takes its place (3 -> 3 processes) and the answer is the reference one
#   app                PROG is an application (LeanMD, jacobi2d) run with APP_ARGS ("|"-separated)
#                      and in-memory checkpoints; SIGKILL to a random process at the NTH line
#                      containing ON; the line matching RESULT must be the reference run's
cmake_minimum_required(VERSION 3.25)

foreach(var SCENARIO PROG DRIVER ROAMRUN)
  if(NOT DEFINED ${var} OR "${${var}}" STREQUAL "")
    message(FATAL_ERROR "ft_recovery.cmake: -D${var}=... is required")
  endif()
endforeach()
if(NOT DEFINED SEEDS)
  set(SEEDS 1:1)
endif()
if(NOT DEFINED PPN)
  set(PPN 1)
endif()
set(SCRIPT_TIMEOUT 90)
include(${CMAKE_CURRENT_LIST_DIR}/script_checks.cmake)

# 40 steps, an in-memory checkpoint at step 1 and every 4 steps after it;
# WORK mixing rounds per block per step make a step last a few milliseconds.
set(STEPS 40)
set(WORK 20000)
set(ARGS memory ${STEPS} 1 4 0 ${WORK})
set(JOB ${ROAMRUN} -n 3 --ft +ppn ${PPN} ${PROG} ${ARGS})
if(SCENARIO MATCHES "^mpi_")
  if(NOT DEFINED MPIEXEC OR "${MPIEXEC}" STREQUAL "")
    message(FATAL_ERROR "ft_recovery.cmake: scenario ${SCENARIO} needs -DMPIEXEC=...")
  endif()
  set(MPI_JOB ${MPIEXEC} ${MPIEXEC_FLAGS} -n 3 ${PROG} +ppn ${PPN} ${ARGS})
endif()

set(RESULT_REGEX "checkpoint_check: checksum [0-9a-f]+ tags [0-9a-f]+ cubes [0-9a-f]+ groups [0-9a-f]+ nodes [0-9a-f]+")
if(SCENARIO STREQUAL "app")
  string(REPLACE "|" ";" ARGS "${APP_ARGS}")
  set(RESULT_REGEX "${RESULT}")
endif()
run_logged(reference ${ROAMRUN} -n 3 +ppn ${PPN} ${PROG} ${ARGS})
string(REGEX MATCH "${RESULT_REGEX}" expected "${reference_out}")
if(NOT reference_rc EQUAL 0 OR expected STREQUAL "")
  problem("the reference run failed (exit status ${reference_rc})")
  finish_checks(${SCENARIO})
endif()

# fault(ID SEED DRIVER-OPTIONS... -- COMMAND...): the driver checks exit status and the line.
macro(fault id seed)
  run_logged(${id} ${DRIVER} --seed ${seed} ${ARGN})
  if(NOT ${id}_rc EQUAL 0)
    problem("${id} (seed ${seed}): the driver reports a failure (exit status ${${id}_rc}); replay with --seed ${seed}")
  endif()
endmacro()

string(REPLACE ":" ";" seed_range "${SEEDS}")
list(GET seed_range 0 first_seed)
list(GET seed_range 1 last_seed)

if(SCENARIO STREQUAL "kill_random")
  foreach(seed RANGE ${first_seed} ${last_seed})
    fault(run_${seed} ${seed} --node random --nth 2:36 --expect "${expected}" -- ${JOB})
    if(NOT run_${seed}_out MATCHES "roam: recovered .*3 -> 2 processes")
      problem("seed ${seed}: no recovery from 3 to 2 processes was reported")
    endif()
  endforeach()
elseif(SCENARIO STREQUAL "kill_node0")
  fault(run ${first_seed} --node 0 --nth 10:20 --expect "${expected}" -- ${JOB})
  if(NOT run_out MATCHES "roamrun: the job recovered")
    problem("roamrun did not report the recovery")
  endif()
elseif(SCENARIO STREQUAL "two_failures")
  fault(run ${first_seed} --node random --nth 4:12 --failures 2 --expect "${expected}" -- ${JOB})
  if(NOT run_out MATCHES "3 -> 2 processes.*2 -> 1 processes")
    problem("two recoveries (3 -> 2 -> 1 processes) were not reported")
  endif()
elseif(SCENARIO STREQUAL "spare")
  fault(run ${first_seed} --node 1 --nth 10:20 --expect "${expected}" --
        ${ROAMRUN} -n 3 --spares 1 +ppn ${PPN} ${PROG} ${ARGS})
  if(NOT run_out MATCHES "roam: recovered .*3 -> 3 processes")
    problem("the spare did not take the failed process's place (3 -> 3 processes)")
  endif()
elseif(SCENARIO STREQUAL "during_checkpoint")
  fault(run ${first_seed} --node random --on "in-memory checkpoint asked" --nth 3:5 --expect "${expected}" -- ${JOB})
elseif(SCENARIO STREQUAL "die_now")
  fault(run ${first_seed} --nth 1000000:1000000 --failures 0 --expect "${expected}" --
        ${ROAMRUN} -n 3 --ft +ppn ${PPN} ${PROG} ${ARGS} 1:13 +ftheartbeat 100 +fttimeout 1000)
  if(NOT run_out MATCHES "goes silent \\(roam::die_now\\).*roam: recovered.*sent nothing")
    problem("the silent process was not found by the heartbeat timeout and recovered from")
  endif()
elseif(SCENARIO STREQUAL "slow")
  fault(run ${first_seed} --node 1 --nth 15:15 --stop-ms 1000 --expect "${expected}" --
        ${ROAMRUN} -n 3 --ft +ppn ${PPN} ${PROG} ${ARGS} +fttimeout 4000)
  if(run_out MATCHES "declared failed|roam: recovered")
    problem("a process stopped for 1 s (timeout 4 s) was declared failed")
  endif()
elseif(SCENARIO STREQUAL "no_checkpoint")
  fault(run ${first_seed} --node 2 --nth 5:5 --expect-status 1 --expect "no in-memory checkpoint was completed" --
        ${ROAMRUN} -n 3 --ft +ppn ${PPN} ${PROG} memory ${STEPS} -1 0 0 ${WORK})
elseif(SCENARIO STREQUAL "host_dies")
  set(ENV{ROAMRUN_SSH} ${CMAKE_CURRENT_LIST_DIR}/../transport/tcp/fake_ssh.sh)
  set(ENV{ROAMRUN_HOST} 127.0.0.1)
  fault(run ${first_seed} --node 0,1 --nth 10:20 --expect "${expected}" --
        ${ROAMRUN} -n 4 --ft --hosts ${CMAKE_CURRENT_LIST_DIR}/hosts_in_blocks.txt +ppn ${PPN} ${PROG} ${ARGS})
  if(NOT run_out MATCHES "roam: recovered .*4 -> 2 processes")
    problem("the job did not recover from losing host alpha (4 -> 2 processes)")
  endif()
elseif(SCENARIO STREQUAL "ftcopies")
  set(FOUR ${ROAMRUN} -n 4 --ft +ppn ${PPN} ${PROG} ${ARGS})
  fault(two ${first_seed} --node 0,1 --nth 10:20 --expect "${expected}" -- ${FOUR} +ftcopies 2)
  if(NOT two_out MATCHES "roam: recovered .*4 -> 2 processes")
    problem("+ftcopies 2: no recovery from two processes killed at once (4 -> 2)")
  endif()
  fault(three ${first_seed} --node 0,1,2 --nth 10:20 --expect "${expected}" -- ${FOUR} +ftcopies 3)
  if(NOT three_out MATCHES "roam: recovered .*4 -> 1 processes")
    problem("+ftcopies 3: no recovery from three processes killed at once (4 -> 1)")
  endif()
  # One copy: two buddies killed at once take both copies of a file with them.
  run_logged(one ${DRIVER} --seed ${first_seed} --node 0,1 --nth 10:20 -- ${FOUR})
  if(NOT one_out MATCHES "no complete in-memory checkpoint survived.*\\+ftcopies K")
    problem("one copy, two buddies killed: the job did not say that no checkpoint survived")
  endif()
elseif(SCENARIO STREQUAL "mpi_die_now")
  fault(run ${first_seed} --nth 1000000:1000000 --failures 0 --expect "${expected}" --
        ${MPI_JOB} 1:13 +ftheartbeat 100 +fttimeout 1000)
  if(NOT run_out MATCHES "goes silent \\(roam::die_now\\).*roam: recovered.*3 -> 2 processes")
    problem("the silent rank was not found by the heartbeat timeout and recovered from (3 -> 2)")
  endif()
elseif(SCENARIO STREQUAL "mpi_fenced")
  fault(run ${first_seed} --node 1 --nth 12:12 --stop-ms 2500 --expect "${expected}" --
        ${MPI_JOB} +ftheartbeat 100 +fttimeout 1000)
  if(NOT run_out MATCHES "roam: recovered.*3 -> 2 processes")
    problem("the stopped rank was not declared failed and recovered from (3 -> 2)")
  endif()
  if(NOT run_out MATCHES "declared this one failed.*silent until the job ends")
    problem("the stopped rank did not fence itself when it woke up")
  endif()
elseif(SCENARIO STREQUAL "mpi_spare")
  # mpirun hands its environment to the ranks it starts on this host.
  set(ENV{ROAM_SPARES} 1)
  fault(run ${first_seed} --nth 1000000:1000000 --failures 0 --expect "${expected}" --
        ${MPIEXEC} ${MPIEXEC_FLAGS} -n 4 ${PROG} +ppn ${PPN} ${ARGS} 1:13 +ftheartbeat 100 +fttimeout 1000)
  unset(ENV{ROAM_SPARES})
  if(NOT run_out MATCHES "goes silent \\(roam::die_now\\).*roam: recovered.*3 -> 3 processes")
    problem("the spare rank did not take the silent rank's place (3 -> 3)")
  endif()
elseif(SCENARIO STREQUAL "mpi_slow")
  fault(run ${first_seed} --node 1 --nth 15:15 --stop-ms 1000 --expect "${expected}" --
        ${MPI_JOB} +fttimeout 4000)
  if(run_out MATCHES "sent nothing|roam: recovered|declared this one failed")
    problem("a rank stopped for 1 s (timeout 4 s) was declared failed")
  endif()
elseif(SCENARIO STREQUAL "app")
  foreach(seed RANGE ${first_seed} ${last_seed})
    fault(run_${seed} ${seed} --node random --on "${ON}" --nth ${NTH} --expect "${expected}" --
          ${ROAMRUN} -n 3 --ft +ppn ${PPN} ${PROG} ${ARGS})
    if(NOT run_${seed}_out MATCHES "roam: recovered .*3 -> 2 processes")
      problem("seed ${seed}: no recovery from 3 to 2 processes was reported")
    endif()
  endforeach()
else()
  message(FATAL_ERROR "ft_recovery.cmake: unknown SCENARIO '${SCENARIO}'")
endif()
finish_checks(${SCENARIO})
