#!/usr/bin/env bash
# Runs one phase of `make test` and prints its wall time: `phase NAME: SECONDS s` (also when
# it fails, with its exit status), so that a slow phase is seen in every run's output.
# Usage: scripts/phase.sh NAME COMMAND [ARGUMENT…]
set -uo pipefail
name=${1:?usage: scripts/phase.sh NAME COMMAND [ARGUMENT…]}
shift
start=$(date +%s.%N)
"$@"
status=$?
seconds=$(awk -v s="$start" -v e="$(date +%s.%N)" 'BEGIN { printf "%.0f", e - s }')
if [ "$status" = 0 ]; then
  echo "phase $name: $seconds s"
else
  echo "phase $name: $seconds s, failed (exit $status)" >&2
fi
exit "$status"
