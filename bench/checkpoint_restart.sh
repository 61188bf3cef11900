#!/bin/sh
# Checkpoint and restart time against state size, beside `dd` writing the
# same number of bytes to the same directory with fsync, in the same minutes.
#   bench/checkpoint_restart.sh ROAM_BENCH DIR [SIZES...] [-- RUNTIME OPTIONS]
# SIZES: 1M 16M 64M 256M 1024M (the cases of `roam-bench checkpoint`);
# runtime options default to +p2. Prints one JSON line per measurement
# (bench, case, bytes, metric, value) and a summary table on stderr.
set -eu
bench=$1
dir=$2
shift 2
sizes=""
while [ $# -gt 0 ] && [ "$1" != "--" ]; do sizes="$sizes $1"; shift; done
[ $# -gt 0 ] && shift
opts=${*:-+p2}
[ -n "$sizes" ] || sizes="1M 16M 64M 256M 1024M"
reps=${REPS:-3}
mkdir -p "$dir"
for size in $sizes; do
  mib=${size%M}
  for rep in $(seq "$reps"); do
    # dd: 1 MiB blocks, fsync before it ends (what a checkpoint file pays).
    start=$(date +%s.%N)
    dd if=/dev/zero of="$dir/dd-probe" bs=1M count="$mib" conv=fsync status=none
    end=$(date +%s.%N)
    rm -f "$dir/dd-probe"
    echo "$start $end $mib" | awk '{printf "{\"bench\":\"checkpoint\",\"case\":\"dd_%sM\",\"bytes\":%d,\"metric\":\"MB/s\",\"value\":%.6g}\n", $3, $3*1048576, $3*1048576/($2-$1)/1e6}'
    # One checkpoint of that state (--reps 1), then a restart from it.
    # shellcheck disable=SC2086
    "$bench" checkpoint --json --reps 1 --case "state_${size}" --dir "$dir" $opts | grep -v '_raw_write\|_over_raw' || true
    # shellcheck disable=SC2086
    "$bench" +restart "$dir/state_${size}" $opts
  done
done
