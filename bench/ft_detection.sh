#!/bin/sh
# Failure detection latency against the configured timeout (issue #17).
# A 3-process job (checkpoint_check with in-memory checkpoints, under
# roamrun --ft) loses one process at its 15th step: stopped with SIGSTOP for
# three timeouts (silent, like roam::die_now: only the heartbeat timeout
# finds it), or killed with SIGKILL (its connections close). ft_kill_driver
# prints how long after the fault roamrun declared the process failed.
#   bench/ft_detection.sh BUILD_DIR [TIMEOUT_MS...]     (default: 250 500 1000 2000)
# The heartbeat period is a tenth of the timeout. REPS runs of each (default 3).
# Prints one JSON line per run and a table on stderr.
set -eu
build=$1
shift
timeouts=${*:-250 500 1000 2000}
reps=${REPS:-3}
driver=$build/tests/integration/ft_kill_driver
prog=$build/tests/integration/checkpoint_check
roamrun=$build/tools/roamrun/roamrun
for f in "$driver" "$prog" "$roamrun"; do
  [ -x "$f" ] || { echo "ft_detection.sh: $f is missing (build the release preset's tests)" >&2; exit 2; }
done
job_args="memory 40 1 4 0 20000"
latency() {  # the driver's figure, or "none" when the job never declared the fault
  sed -n 's/^ft_kill_driver: declared failed \([0-9.]*\) ms after the fault$/\1/p' | head -n 1 | grep . || echo none
}
printf '%-10s %-8s %s\n' "fault" "timeout" "declared failed after (ms), each run" >&2
for t in $timeouts; do
  hb=$((t / 10))
  for fault in stop kill; do
    runs=""
    for rep in $(seq "$reps"); do
      if [ "$fault" = stop ]; then how="--stop-ms $((3 * t))"; else how=""; fi
      # shellcheck disable=SC2086
      ms=$("$driver" --seed "$rep" --node 1 --nth 15:15 $how -- \
             "$roamrun" -n 3 --ft "$prog" $job_args +ftheartbeat "$hb" +fttimeout "$t" 2>&1 | latency)
      runs="$runs $ms"
      value=$ms
      [ "$ms" != none ] || value=null
      echo "{\"bench\":\"ft\",\"case\":\"detection_${fault}_timeout_${t}ms\",\"metric\":\"ms\",\"value\":$value}"
    done
    printf '%-10s %-8s%s\n' "$fault" "${t}ms" "$runs" >&2
  done
done
