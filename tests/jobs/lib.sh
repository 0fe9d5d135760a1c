# shellcheck shell=bash
# Shared by tests/jobs/test_*.sh (sourced): a private local Slurm cluster per test, cleaned up on
# any exit, bounded waits, and failure reports that include the job and daemon logs.
#
# A test sets TEST_BUDGET (seconds; the test fails and cleans up when it is exceeded) and sources
# this after `set -euo pipefail` with BUILD_DIR as $1, and gets:
#   REPO, BUILD (absolute), GPLVM (the binary), WORK (a fresh temp dir, removed on success, kept on
#   failure), CLUSTER (WORK/cluster), SLURM_CONF exported once slurm_start has run, MPIRUN (array).

if [ $# -lt 1 ] || [ ! -d "$1" ]; then
  echo "usage: $0 BUILD_DIR   (the cmake build directory holding gplvm)" >&2
  exit 2
fi
REPO=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd -P)
BUILD=$(cd "$1" && pwd -P)
GPLVM=$BUILD/gplvm
TEST_NAME=$(basename "$0" .sh)
T0=$SECONDS

say() { echo "[$TEST_NAME +$((SECONDS - T0))s] $*"; }
check() { say "CHECK: $*"; }
ok() { say "  ok: $*"; }

# Logs of the cluster and of every job output file in WORK, printed on failure.
dump_logs() {
  local f
  for f in "$WORK"/*.out; do
    [ -f "$f" ] || continue
    echo "===== job log $f ====="
    cat "$f"
  done
  for f in "$CLUSTER"/log/slurmctld.log "$CLUSTER"/log/slurmd.log "$CLUSTER"/log/jobcomp.log; do
    [ -f "$f" ] || continue
    echo "===== $f (last 80 lines) ====="
    tail -n 80 "$f"
  done
  if [ -n "${SLURM_CONF:-}" ]; then
    echo "===== scontrol show job ====="
    timeout 10 scontrol show job 2>&1 || true
  fi
}

fail() {
  say "FAIL: $*"
  dump_logs
  exit 1
}

_cleanup() {
  local rc=$?
  trap - EXIT INT TERM
  if [ -n "${WATCHDOG:-}" ]; then
    kill "$WATCHDOG" 2>/dev/null || true
    wait "$WATCHDOG" 2>/dev/null || true
  fi
  say "cleanup: stopping the local cluster"
  "$REPO/scripts/slurm/local-cluster.sh" stop "$CLUSTER" || say "warning: local-cluster.sh stop failed"
  if [ "$rc" -eq 0 ]; then
    rm -rf "$WORK"
    say "PASSED in $((SECONDS - T0)) s"
  else
    say "FAILED (exit $rc) after $((SECONDS - T0)) s; files kept in $WORK"
  fi
  exit "$rc"
}

WORK=$(mktemp -d "${TMPDIR:-/tmp}/gplvm-$TEST_NAME.XXXXXX")
CLUSTER=$WORK/cluster
trap _cleanup EXIT
trap 'say "interrupted"; exit 130' INT
trap 'say "terminated"; exit 143' TERM

# Watchdog: a test must end by itself, with its cleanup, before ctest's TIMEOUT (ctest kills the
# test's process tree with SIGKILL, which would skip the EXIT trap and leave the daemonised slurmctld
# and slurmd running). After TEST_BUDGET seconds it stops the cluster (which ends every job and makes
# any pending sbatch/scontrol call return), then sends SIGTERM to the test and its child processes.
# bash runs the TERM trap only once the current foreground command ends, hence the children too.
_watchdog() {
  local main=$1 budget=$2
  sleep "$budget" &
  local sleeper=$!
  trap 'kill "$sleeper" 2>/dev/null; exit 0' TERM
  wait "$sleeper" || exit 0
  echo "[$TEST_NAME] FAIL: time budget of ${budget}s exceeded; stopping the cluster"
  dump_logs
  "$REPO/scripts/slurm/local-cluster.sh" stop "$CLUSTER" || true
  # shellcheck disable=SC2046
  kill -TERM $(pgrep -P "$main" | grep -vx "$BASHPID") "$main" 2>/dev/null || true
}
_watchdog $$ "${TEST_BUDGET:?set TEST_BUDGET before sourcing lib.sh}" &
WATCHDOG=$!

[ -x "$GPLVM" ] || fail "no gplvm binary at $GPLVM (build the gplvm_cli target first)"
[ -x /usr/bin/python3 ] && /usr/bin/python3 -c 'import h5py, numpy' 2>/dev/null ||
  fail "/usr/bin/python3 with h5py and numpy is required (bash scripts/install-deps.sh)"
export OPENBLAS_NUM_THREADS=1
# The jobs must use this build, whatever is on PATH.
export GPLVM_BIN=$GPLVM
MPIRUN=(mpirun)
if [ "$(id -u)" -eq 0 ]; then MPIRUN+=(--allow-run-as-root); fi

slurm_start() {
  check "a local Slurm cluster starts (slurmctld + slurmd on loopback, node idle)"
  local out
  # No `|| fail` inside $(...): a failure there would only end the subshell.
  if ! out=$("$REPO/scripts/slurm/local-cluster.sh" start "$CLUSTER"); then
    fail "the local Slurm cluster did not start (daemon logs above/below)"
  fi
  eval "$out"
  [ -n "${SLURM_CONF:-}" ] && [ -f "$SLURM_CONF" ] || fail "local-cluster.sh printed no SLURM_CONF"
  timeout 10 sinfo -N || fail "sinfo failed"
  ok "cluster up, SLURM_CONF=$SLURM_CONF"
}

# job_field JOBID FIELD: a field of `scontrol show job` (e.g. JobState, Restarts, ExitCode).
job_field() {
  timeout 10 scontrol show job "$1" 2>/dev/null | tr ' ' '\n' | sed -n "s/^$2=//p" | head -n 1
}

# wait_for SECONDS DESCRIPTION COMMAND...: poll COMMAND every 0.5 s until it succeeds; fail on timeout.
wait_for() {
  local limit=$1 what=$2
  shift 2
  local deadline=$((SECONDS + limit))
  until "$@"; do
    [ $SECONDS -lt $deadline ] || fail "timed out after ${limit}s waiting for: $what"
    sleep 0.5
  done
}

# write_data_and_config NAME N D BATCH ACTIVE MAX_STEPS: data WORK/NAME.h5, config WORK/NAME.toml
# (run file WORK/NAME-run.h5).
write_data_and_config() {
  local name=$1 n=$2 d=$3 batch=$4 active=$5 steps=$6
  "$GPLVM" generate --kind gp --n "$n" --d "$d" --output "$WORK/$name.h5" >/dev/null ||
    fail "gplvm generate failed"
  cat >"$WORK/$name.toml" <<EOF
[data]
path = "$WORK/$name.h5"

[model]
encoder_hidden = [16, 8]

[sas]
batch_size = $batch
active_size = $active

[train]
seed = 0
epochs = 1000000
max_steps = $steps
progress_seconds = 1
tolerance = 0  # the jobs must run their steps: no stopping rule

[output]
path = "$WORK/$name-run.h5"
EOF
}
