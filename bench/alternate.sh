#!/bin/bash
# Runs several builds of one benchmark in turn, N rounds, so that a noisy or drifting machine
# affects each build alike; prints each run's summary line, prefixed with the binary.
# usage: BINS="/tmp/base/build/bench/bench_sas_step build/bench/bench_sas_step" \
#          bench/alternate.sh N [benchmark options...]
# (Compare builds by pairing each round's lines; quote the paired differences.)
set -euo pipefail
export OPENBLAS_NUM_THREADS=${OPENBLAS_NUM_THREADS:-1}
rounds=$1
shift
for _ in $(seq "$rounds"); do
  for b in $BINS; do
    echo "$b $("$b" "$@" 2>&1 | grep -E '^step:')"
  done
done
