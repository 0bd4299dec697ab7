#!/usr/bin/env bash
# One deeplink handler's worth of load: COUNT sequential `tokenctl activate` runs on the
# passes PREFIX0 … PREFIX(COUNT-1). Each run appends "EXIT MICROSECONDS" to RESULTS; stderr
# goes to ERRORS.
#   activate_loop.sh TOKENCTL PREFIX COUNT RESULTS ERRORS
set -u
tokenctl=$1 prefix=$2 count=$3 results=$4 errors=$5
for ((i = 0; i < count; i++)); do
  start=${EPOCHREALTIME/./}
  "$tokenctl" activate "mybank://activate?serialNumber=${prefix}${i}" > /dev/null 2>> "$errors"
  status=$?
  end=${EPOCHREALTIME/./}
  echo "$status $((end - start))" >> "$results"
done
