# Checkpoints and restarts through real processes (roam::checkpoint, +restart):
# runs programs/checkpoint_check, takes checkpoints, restarts from them on other
# PE counts, process counts and transports, and compares the final checksum line
# with a run that was never checkpointed (the line is the same for any layout).
#   cmake -DSCENARIO=<name> -DPROG=<checkpoint_check> -DDIR=<scratch dir, wiped first>
#         [-DROAMRUN=<roamrun>] [-DMPIEXEC=<mpirun> -DMPIEXEC_FLAGS=<list>]
#         [-DOTHER_PROG=<another roam program>] -P checkpoint_restart.cmake
# Scenarios:
#   pes_A_B        checkpoint on A PEs, restart on B PEs (one process)
#   tcp_2x2_3x1    checkpoint on roamrun -n 2 +ppn 2, restart on -n 3 +ppn 1 and on +p2 (ROAMRUN)
#   mpi_2_3        checkpoint on MPI -n 2, restart on MPI -n 3 (and on roamrun -n 2 when ROAMRUN is given)
#   older          two checkpoints: restart from the newest (DIR) and from the older one named directly
#   keep_two       five checkpoints: only the newest two stay, and the run is not disturbed
#   corrupt        bytes flipped, files truncated or deleted: every restart fails, naming the file
#   other_program  OTHER_PROG refuses checkpoint_check's checkpoint
#   disk_full      writes fail (ulimit -f): reported, the run goes on, the older checkpoint stays usable
#   bad_option     +restart without a directory
# Every command, its exit status and its output are printed; the script ends
# with FATAL_ERROR listing every problem, or prints PASSED.
cmake_minimum_required(VERSION 3.25)

foreach(var SCENARIO PROG DIR)
  if(NOT DEFINED ${var} OR "${${var}}" STREQUAL "")
    message(FATAL_ERROR "checkpoint_restart.cmake: -D${var}=... is required")
  endif()
endforeach()
set(TIMEOUT 60)
set(STEPS 12)  # the default run: 12 steps, a checkpoint when step 5 begins
file(REMOVE_RECURSE "${DIR}")
file(MAKE_DIRECTORY "${DIR}")

# ---- helpers ------------------------------------------------------------------------
set(SCRIPT_TIMEOUT ${TIMEOUT})
include(${CMAKE_CURRENT_LIST_DIR}/script_checks.cmake)

# run(ID COMMAND...): runs it; sets ID_rc, ID_out, ID_err.
macro(run id)
  run_logged(${id} ${ARGN})
endmacro()

function(expect_rc id want)
  if(NOT "${${id}_rc}" STREQUAL "${want}")
    problem("${id}: expected exit status ${want}, got '${${id}_rc}'")
  endif()
endfunction()

# expect_has(ID out|err TEXT): the output contains TEXT (a plain string, not a regex).
function(expect_has id stream text)
  string(FIND "${${id}_${stream}}" "${text}" at)
  if(at EQUAL -1)
    problem("${id}: std${stream} does not contain '${text}'")
  endif()
endfunction()

function(expect_lacks id stream text)
  string(FIND "${${id}_${stream}}" "${text}" at)
  if(NOT at EQUAL -1)
    problem("${id}: std${stream} contains '${text}'")
  endif()
endfunction()

# checksum_of(ID VAR): the final checksum line of run ID ("" if none).
function(checksum_of id var)
  set(line "")
  if("${${id}_out}" MATCHES "checkpoint_check: checksum [^\n]*")
    set(line "${CMAKE_MATCH_0}")
  endif()
  set(${var} "${line}" PARENT_SCOPE)
endfunction()

# The same final line as the reference run, and the layout the run had.
function(expect_reference id pes processes)
  checksum_of(${id} line)
  if(line STREQUAL "")
    problem("${id}: no checksum line")
  elseif(NOT line STREQUAL REFERENCE)
    problem("${id}: '${line}' differs from the reference run's '${REFERENCE}'")
  endif()
  expect_has(${id} out "checkpoint_check: done on ${pes} pes, ${processes} processes")
endfunction()

# split_launch(ARGS...): sets LAUNCH (what comes before PROG: a launcher) and
# AFTER (what comes after "--": arguments right after PROG, such as +p2).
macro(split_launch)
  set(LAUNCH ${ARGN})
  set(AFTER)
  list(FIND LAUNCH "--" _dashes)
  if(NOT _dashes EQUAL -1)
    math(EXPR _first_after "${_dashes} + 1")
    list(SUBLIST LAUNCH ${_first_after} -1 AFTER)
    list(SUBLIST LAUNCH 0 ${_dashes} LAUNCH)
  endif()
endmacro()

# reference(ID STEPS [LAUNCH...] [-- ARGS]): a run that never checkpoints; sets REFERENCE.
function(reference id steps)
  split_launch(${ARGN})
  run(${id} ${LAUNCH} ${PROG} ${AFTER} "${DIR}/never" ${steps} -1)
  expect_rc(${id} 0)
  checksum_of(${id} line)
  if(line STREQUAL "")
    problem("${id}: the reference run printed no checksum line")
    set(line "(no reference checksum)")
  endif()
  expect_lacks(${id} out "FAILED")
  expect_lacks(${id} out "checkpoint written")
  set(REFERENCE "${line}" PARENT_SCOPE)
endfunction()

# restart(ID FROM PICKED PES PROCESSES [LAUNCH...] [-- ARGS]):
# PROG +restart FROM must restart from the checkpoint PICKED and end like the reference.
function(restart id from picked pes processes)
  split_launch(${ARGN})
  run(${id} ${LAUNCH} ${PROG} ${AFTER} +restart "${from}")
  expect_rc(${id} 0)
  expect_has(${id} out "checkpoint_check: restarted from ${picked} (")
  expect_reference(${id} ${pes} ${processes})
  foreach(v rc out err)
    set(${id}_${v} "${${id}_${v}}" PARENT_SCOPE)
  endforeach()
endfunction()

# restart_fails(ID FROM NAMED LAUNCH...): the restart must fail (status 1)
# before anything ran, and its error must name NAMED (a file or directory).
function(restart_fails id from named)
  run(${id} ${ARGN} ${PROG} +restart "${from}")
  expect_rc(${id} 1)
  expect_has(${id} err "${named}")
  expect_lacks(${id} out "checksum")
  expect_lacks(${id} out "restarted from")
endfunction()

# expect_listing(ID DIR NAMES...): DIR holds exactly these entries.
function(expect_listing id dir)
  file(GLOB entries RELATIVE "${dir}" LIST_DIRECTORIES true "${dir}/*")
  list(REMOVE_ITEM entries never)  # the reference run's directory (it never checkpoints)
  list(SORT entries)
  set(want ${ARGN})
  list(SORT want)
  message("==== ${id}: ${dir} holds: ${entries}")
  if(NOT "${entries}" STREQUAL "${want}")
    problem("${id}: ${dir} holds '${entries}', expected exactly '${want}'")
  endif()
  foreach(e IN LISTS want)
    if(NOT EXISTS "${dir}/${e}/manifest")
      problem("${id}: ${dir}/${e} has no manifest")
    endif()
  endforeach()
endfunction()

function(ckpt number out_var)
  string(LENGTH "${number}" n)
  math(EXPR pad "8 - ${n}")
  string(REPEAT "0" ${pad} zeros)
  set(${out_var} "ckpt-${zeros}${number}" PARENT_SCOPE)
endfunction()

# Byte surgery: cmake cannot write arbitrary bytes, python3 can.
macro(need_python)
  find_program(PYTHON3 NAMES python3 python)
  if(NOT PYTHON3)
    message(FATAL_ERROR "checkpoint_restart.cmake: scenario ${SCENARIO} needs python3 to corrupt files")
  endif()
endmacro()

# mangle(FILE flip OFFSET | truncate SIZE): flips every bit of the byte at OFFSET, or truncates the file.
function(mangle file how value)
  if(how STREQUAL "flip")
    set(code "import sys
path, at = sys.argv[1], int(sys.argv[2])
data = bytearray(open(path, 'rb').read())
data[at] ^= 0xff
open(path, 'wb').write(data)
")
  else()
    set(code "import os, sys
os.truncate(sys.argv[1], int(sys.argv[2]))
")
  endif()
  execute_process(COMMAND ${PYTHON3} -c "${code}" "${file}" ${value} RESULT_VARIABLE rc ERROR_VARIABLE err TIMEOUT ${TIMEOUT})
  if(NOT rc EQUAL 0)
    message(FATAL_ERROR "could not ${how} ${file} at ${value}: ${err}")
  endif()
endfunction()

function(need var)
  if(NOT DEFINED ${var} OR "${${var}}" STREQUAL "")
    message(FATAL_ERROR "checkpoint_restart.cmake: scenario ${SCENARIO} needs -D${var}=...")
  endif()
endfunction()

ckpt(1 C1)
ckpt(2 C2)
ckpt(3 C3)
ckpt(4 C4)
ckpt(5 C5)

# ---- scenarios ----------------------------------------------------------------------
if(SCENARIO MATCHES "^pes_([0-9]+)_([0-9]+)$")
  set(a ${CMAKE_MATCH_1})
  set(b ${CMAKE_MATCH_2})
  reference(reference ${STEPS} -- +p${a})
  run(checkpoint ${PROG} +p${a} "${DIR}" ${STEPS} 5 0 1)
  expect_rc(checkpoint 0)
  expect_has(checkpoint out "checkpoint_check: checkpoint written to ${DIR}/${C1} (")
  expect_has(checkpoint out "${a} pes, 1 processes)")
  expect_lacks(checkpoint out "checksum")
  restart(restart "${DIR}" "${DIR}/${C1}" ${b} 1 -- +p${b})
  expect_listing(listing "${DIR}" ${C1})

elseif(SCENARIO STREQUAL "tcp_2x2_3x1")
  need(ROAMRUN)
  reference(reference ${STEPS} -- +p2)
  run(checkpoint ${ROAMRUN} -n 2 +ppn 2 ${PROG} "${DIR}" ${STEPS} 5 0 1)
  expect_rc(checkpoint 0)
  expect_has(checkpoint out "checkpoint_check: checkpoint written to ${DIR}/${C1} (")
  expect_has(checkpoint out "4 pes, 2 processes)")
  restart(restart_tcp_3x1 "${DIR}" "${DIR}/${C1}" 3 3 ${ROAMRUN} -n 3 +ppn 1)
  # Across transports: the same checkpoint in one process.
  restart(restart_local_p2 "${DIR}" "${DIR}/${C1}" 2 1 -- +p2)

elseif(SCENARIO STREQUAL "mpi_2_3")
  need(MPIEXEC)
  reference(reference ${STEPS} -- +p2)
  run(checkpoint ${MPIEXEC} ${MPIEXEC_FLAGS} -n 2 ${PROG} "${DIR}" ${STEPS} 5 0 1)
  expect_rc(checkpoint 0)
  expect_has(checkpoint out "checkpoint_check: checkpoint written to ${DIR}/${C1} (")
  expect_has(checkpoint out "2 pes, 2 processes)")
  restart(restart_mpi_3 "${DIR}" "${DIR}/${C1}" 3 3 ${MPIEXEC} ${MPIEXEC_FLAGS} -n 3)
  if(DEFINED ROAMRUN AND NOT ROAMRUN STREQUAL "")
    # Across transports: MPI's checkpoint on TCP nodes.
    restart(restart_tcp_2x1 "${DIR}" "${DIR}/${C1}" 2 2 ${ROAMRUN} -n 2 +ppn 1)
  endif()

elseif(SCENARIO STREQUAL "older")
  # 8 steps, checkpoints when steps 3 and 6 begin; the run stops after the second.
  reference(reference 8 -- +p3)
  run(checkpoint ${PROG} +p2 "${DIR}" 8 3 3 2)
  expect_rc(checkpoint 0)
  expect_has(checkpoint out "checkpoint_check: checkpoint written to ${DIR}/${C1} (")
  expect_has(checkpoint out "checkpoint_check: checkpoint written to ${DIR}/${C2} (")
  expect_lacks(checkpoint out "checksum")
  expect_listing(listing_after_checkpoints "${DIR}" ${C1} ${C2})
  # The newest: from step 6, nothing more to checkpoint.
  restart(restart_newest "${DIR}" "${DIR}/${C2}" 3 1 -- +p3)
  expect_lacks(restart_newest out "checkpoint written")
  # The older one, named directly: from step 3, it checkpoints again at step 6 (the third, into DIR).
  restart(restart_older "${DIR}/${C1}" "${DIR}/${C1}" 4 1 -- +p4)
  expect_has(restart_older out "checkpoint_check: checkpoint written to ${DIR}/${C3} (")
  expect_listing(listing_after_restart "${DIR}" ${C2} ${C3})
  # ... which is now the newest.
  restart(restart_third "${DIR}" "${DIR}/${C3}" 1 1 -- +p1)

elseif(SCENARIO STREQUAL "keep_two")
  reference(reference ${STEPS} -- +p2)
  # Checkpoints when steps 2, 4, 6, 8 and 10 begin; never stops early.
  run(run ${PROG} +p3 "${DIR}" ${STEPS} 2 2 0)
  expect_rc(run 0)
  foreach(c C1 C2 C3 C4 C5)
    expect_has(run out "checkpoint_check: checkpoint written to ${DIR}/${${c}} (")
  endforeach()
  expect_lacks(run out "FAILED")
  expect_reference(run 3 1)
  expect_listing(listing "${DIR}" ${C4} ${C5})
  restart(restart "${DIR}" "${DIR}/${C5}" 2 1 -- +p2)

elseif(SCENARIO STREQUAL "corrupt")
  need_python()
  reference(reference ${STEPS} -- +p2)
  run(checkpoint ${PROG} +p2 "${DIR}/original" ${STEPS} 5 0 1)
  expect_rc(checkpoint 0)
  expect_has(checkpoint out "checkpoint_check: checkpoint written to ${DIR}/original/${C1} (")
  set(pristine "${DIR}/original/${C1}")
  if(NOT EXISTS "${pristine}/manifest" OR NOT EXISTS "${pristine}/process-0000.dat")
    problem("no checkpoint in ${pristine}: nothing to corrupt")
  else()
    # fresh_copy(NAME): DIR/cases/NAME/ckpt-00000001, a copy of the pristine checkpoint; sets CASE.
    macro(fresh_copy name)
      set(CASE "${DIR}/cases/${name}")
      file(MAKE_DIRECTORY "${CASE}")
      file(COPY "${pristine}" DESTINATION "${CASE}")
    endmacro()
    foreach(f manifest process-0000.dat)
      file(SIZE "${pristine}/${f}" size)
      math(EXPR middle "${size} / 2")
      math(EXPR last "${size} - 1")
      foreach(offset 0 8 12 20 40 ${middle} ${last})
        fresh_copy(flip-${f}-${offset})
        mangle("${CASE}/${C1}/${f}" flip ${offset})
        restart_fails(flip_${f}_at_${offset} "${CASE}/${C1}" "${CASE}/${C1}/${f}" ${PROG} +p2)
      endforeach()
    endforeach()
    file(SIZE "${pristine}/process-0000.dat" size)
    math(EXPR half "${size} / 2")
    foreach(length ${half} 0)
      fresh_copy(truncate-${length})
      mangle("${CASE}/${C1}/process-0000.dat" truncate ${length})
      restart_fails(truncate_process_to_${length} "${CASE}/${C1}" "${CASE}/${C1}/process-0000.dat" ${PROG} +p2)
    endforeach()
    fresh_copy(no-process-file)
    file(REMOVE "${CASE}/${C1}/process-0000.dat")
    restart_fails(no_process_file "${CASE}/${C1}" "${CASE}/${C1}/process-0000.dat" ${PROG} +p2)
    restart_fails(no_process_file_from_parent "${CASE}" "${CASE}/${C1}/process-0000.dat" ${PROG} +p2)
    fresh_copy(no-manifest)
    file(REMOVE "${CASE}/${C1}/manifest")
    restart_fails(no_manifest "${CASE}/${C1}" "${CASE}/${C1}" ${PROG} +p2)
    # From the parent: no complete checkpoint to pick (an error naming the parent).
    restart_fails(no_manifest_from_parent "${CASE}" "${CASE}" ${PROG} +p2)
    # The control: an untouched copy, and the original, restart fine.
    fresh_copy(untouched)
    restart(untouched_copy "${CASE}/${C1}" "${CASE}/${C1}" 3 1 -- +p3)
    restart(original "${DIR}/original" "${pristine}" 2 1 -- +p2)
  endif()

elseif(SCENARIO STREQUAL "other_program")
  need(OTHER_PROG)
  reference(reference ${STEPS} -- +p2)
  run(checkpoint ${PROG} +p2 "${DIR}" ${STEPS} 5 0 1)
  expect_rc(checkpoint 0)
  expect_has(checkpoint out "checkpoint_check: checkpoint written to ${DIR}/${C1} (")
  run(other ${OTHER_PROG} +p2 +restart "${DIR}")
  if("${other_rc}" STREQUAL "0" OR NOT "${other_rc}" MATCHES "^[0-9]+$")
    problem("other: expected a non-zero exit status, got '${other_rc}'")
  endif()
  expect_has(other err "another program")
  expect_has(other err "${DIR}/${C1}")
  # The checkpoint itself is fine.
  restart(restart "${DIR}" "${DIR}/${C1}" 2 1 -- +p2)

elseif(SCENARIO STREQUAL "disk_full")
  find_program(SH sh)
  need(SH)
  reference(reference 10 -- +p2)
  run(first ${PROG} +p2 "${DIR}" 10 3 0 1)
  expect_rc(first 0)
  expect_has(first out "checkpoint_check: checkpoint written to ${DIR}/${C1} (")
  # Files of at most 4 blocks (2 or 4 KiB): every process file is larger. SIGXFSZ
  # ignored, so that write() fails with EFBIG instead of killing the process.
  # (Lines, not ";": a ";" would split the argument in two.)
  run(full ${SH} -c "ulimit -f 4\ntrap '' XFSZ\nexec \"$0\" +p2 \"$1\" 10 3 3 0" "${PROG}" "${DIR}")
  expect_rc(full 0)
  string(REGEX MATCHALL "checkpoint_check: checkpoint at step [0-9]+ FAILED: [^\n]*" failed "${full_out}")
  list(LENGTH failed n_failed)
  if(NOT n_failed EQUAL 3)
    problem("full: expected 3 FAILED checkpoints (steps 3, 6, 9), got ${n_failed}")
  endif()
  foreach(line IN LISTS failed)
    if(NOT line MATCHES "File too large")
      problem("full: '${line}' does not name 'File too large'")
    endif()
  endforeach()
  expect_lacks(full out "checkpoint written")
  expect_reference(full 2 1)
  expect_listing(listing "${DIR}" ${C1})
  restart(restart "${DIR}" "${DIR}/${C1}" 3 1 -- +p3)

elseif(SCENARIO STREQUAL "bad_option")
  run(no_dir ${PROG} +p2 +restart)
  expect_rc(no_dir 2)
  expect_has(no_dir err "+restart")
  expect_lacks(no_dir out "checksum")

else()
  message(FATAL_ERROR "checkpoint_restart.cmake: unknown SCENARIO '${SCENARIO}'")
endif()

finish_checks(${SCENARIO})
