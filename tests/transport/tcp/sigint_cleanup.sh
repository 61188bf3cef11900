#!/bin/sh
# roamrun interrupted with SIGINT must stop every node (and their children)
# and exit with 130. Usage: sigint_cleanup.sh ROAMRUN
roamrun=$1
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
# Each node starts a grandchild (sleep) and records both pids.
"$roamrun" -n 2 sh -c 'sleep 60 & echo $$ $! > '"$dir"'/pids.$ROAM_TCP_NODE; wait' > "$dir/out" 2>&1 &
rr=$!
i=0
while [ ! -s "$dir/pids.0" ] || [ ! -s "$dir/pids.1" ]; do
  i=$((i + 1))
  if [ $i -gt 200 ]; then echo "nodes did not start"; cat "$dir/out"; exit 1; fi
  sleep 0.05
done
kill -INT $rr
wait $rr
rc=$?
cat "$dir/out"
if [ $rc -ne 130 ]; then echo "roamrun exited with $rc, expected 130"; exit 1; fi
for p in $(cat "$dir"/pids.*); do
  i=0
  while kill -0 "$p" 2>/dev/null; do
    i=$((i + 1))
    if [ $i -gt 40 ]; then echo "process $p survived roamrun"; exit 1; fi
    sleep 0.05
  done
done
echo "PASSED: roamrun exited 130 and left no process behind"
