#!/bin/sh
# Stands in for ssh in tests: `fake_ssh.sh HOST COMMAND` runs COMMAND with
# sh on this machine (stdin included, which carries the job secret), after
# saying which host it was asked for.
host=$1
shift
echo "fake ssh to $host" >&2
exec sh -c "$*"
