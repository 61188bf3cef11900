#!/usr/bin/env bash
# Start-up plus shutdown time of a roam program of N processes: runs
# `roam-bench noop` RUNS times under the given launcher and prints the median
# and minimum wall time in milliseconds.
#   bench/startup.sh BUILD_DIR [NODES=4] [RUNS=20] [tcp|mpi|local]
set -euo pipefail
build=${1:?usage: bench/startup.sh BUILD_DIR [NODES] [RUNS] [tcp|mpi|local]}
nodes=${2:-4}
runs=${3:-20}
how=${4:-tcp}
bench=$build/bench/roam-bench
case $how in
  tcp) cmd=("$build/tools/roamrun/roamrun" -n "$nodes" "$bench" noop) ;;
  mpi) cmd=(mpirun --allow-run-as-root --oversubscribe -n "$nodes" "$bench" noop) ;;
  local) cmd=("$bench" noop "+p$nodes") ;;
  *) echo "startup.sh: unknown launcher '$how' (tcp, mpi or local)" >&2; exit 2 ;;
esac
times=()
for ((i = 0; i < runs; ++i)); do
  t0=$(date +%s%N)
  "${cmd[@]}" >/dev/null
  t1=$(date +%s%N)
  times+=($(( (t1 - t0) / 1000 )))
done
sorted=($(printf '%s\n' "${times[@]}" | sort -n))
median=${sorted[$((runs / 2))]}
printf 'startup+shutdown %-5s %d processes: median %d.%03d ms, min %d.%03d ms (%d runs)\n' "$how" "$nodes" \
  $((median / 1000)) $((median % 1000)) $((sorted[0] / 1000)) $((sorted[0] % 1000)) "$runs"
