#!/usr/bin/env bash
# jobs/train.sbatch end to end on a private one-node Slurm cluster (scripts/slurm/local-cluster.sh):
# a short training job on 2 tasks, once with the automatic launcher (srun --mpi=pmix) and once with
# GPLVM_LAUNCHER=mpirun; checks the exit status, the job state, the run file's datasets and shapes,
# and the job log (resolved configuration, progress lines, JSON summary with 2 ranks).
#
#   bash tests/jobs/test_train_job.sh BUILD_DIR        (as root; about 10 s)
#
# Fails (with the daemon and job logs) when Slurm cannot run here: it never skips.
set -euo pipefail
TEST_BUDGET=${TEST_BUDGET:-150}   # seconds; ctest's TIMEOUT must be larger
# shellcheck source=SCRIPTDIR/lib.sh
source "$(dirname "$0")/lib.sh"

slurm_start
N=300 D=10 STEPS=200
check "data (gplvm generate --kind gp --n $N --d $D) and a small config (batch 64, active 16, encoder [16,8], $STEPS steps)"
write_data_and_config small $N $D 64 16 $STEPS
ok "$WORK/small.h5, $WORK/small.toml"
cd "$WORK"

srun_pmix=no
if timeout 10 srun --mpi=list 2>&1 | grep -qw pmix; then srun_pmix=yes; fi

run_job() {
  local launcher=$1 run=$WORK/run-$1.h5 rc=0 jid log
  check "sbatch --wait -n 2 jobs/train.sbatch (GPLVM_LAUNCHER=$launcher) exits 0"
  jid=$(GPLVM_LAUNCHER=$launcher timeout 180 sbatch --parsable --wait -n 2 \
    --output="$WORK/train-$launcher-%j.out" "$REPO/jobs/train.sbatch" "$WORK/small.toml" \
    --json --output.path="$run") || rc=$?
  jid=${jid%%;*}
  [ "$rc" -ne 124 ] || fail "job $jid did not finish within 180 s"
  [ "$rc" -eq 0 ] || fail "sbatch --wait returned $rc for job $jid (launcher $launcher)"
  log=$WORK/train-$launcher-$jid.out
  ok "job $jid exited 0"

  check "job $jid: scontrol shows JobState=COMPLETED, ExitCode=0:0, Restarts=0"
  local state exit restarts
  state=$(job_field "$jid" JobState) exit=$(job_field "$jid" ExitCode) restarts=$(job_field "$jid" Restarts)
  [ "$state" = COMPLETED ] && [ "$exit" = 0:0 ] && [ "$restarts" = 0 ] ||
    fail "job $jid: JobState=$state ExitCode=$exit Restarts=$restarts"
  ok "JobState=$state ExitCode=$exit Restarts=$restarts"

  check "job log $log: launcher, resolved configuration, progress lines, JSON summary with 2 ranks"
  [ -f "$log" ] || fail "no job log $log"
  case "$launcher" in
    mpirun) grep -q 'gplvm-train: running: mpirun -n 2 ' "$log" || fail "mpirun was not used" ;;
    auto)
      if [ $srun_pmix = yes ]; then
        grep -q 'gplvm-train: running: srun --mpi=pmix --ntasks=2 ' "$log" ||
          fail "srun --mpi=pmix is available but the job did not use it"
      else
        say "  note: srun --mpi=pmix not available, the job fell back to mpirun"
        grep -q 'gplvm-train: running: mpirun -n 2 ' "$log" || fail "no launcher line in the log"
      fi
      ;;
  esac
  grep -q '^# resolved configuration' "$log" || fail "no resolved configuration in the log"
  grep -Eq "^epoch [0-9]+ step $STEPS/$STEPS objective -?[0-9.e+-]+ .*points/s" "$log" ||
    fail "no final progress line 'epoch E step $STEPS/$STEPS objective ...' in the log"
  grep -q 'gplvm-train: launcher exited with code 0' "$log" || fail "no 'launcher exited with code 0'"
  grep -q '^{"command":"train",.*"ranks":2,"steps":'"$STEPS"',' "$log" ||
    fail "no JSON summary with \"ranks\":2 and \"steps\":$STEPS (did MPI start 2 ranks?)"
  ok "$(grep -E "^epoch [0-9]+ step $STEPS/$STEPS" "$log" | tail -n 1)"

  check "run file $run: /params/shared (334,) and /latent/mean ($N, 2), finite, 200 steps, 2 ranks"
  [ -f "$run" ] || fail "no run file $run"
  /usr/bin/python3 - "$run" $N $D $STEPS <<'EOF' || fail "run file check failed"
import sys, h5py, numpy as np
path, n, d, steps = sys.argv[1], int(sys.argv[2]), int(sys.argv[3]), int(sys.argv[4])
q, h1, h2 = 2, 16, 8
# encoder (d->16->8->q, weights + biases) + q lengthscales + kernel variance + noise variance
n_shared = d * h1 + h1 + h1 * h2 + h2 + h2 * q + q + q + 2
with h5py.File(path, "r") as f:
    for name in ("/params/shared", "/latent/mean"):
        assert name in f, f"{name} missing"
    shared, mean = f["/params/shared"][...], f["/latent/mean"][...]
    assert shared.shape == (n_shared,), f"/params/shared shape {shared.shape} != ({n_shared},)"
    assert mean.shape == (n, q), f"/latent/mean shape {mean.shape} != ({n}, {q})"
    assert np.all(np.isfinite(shared)) and np.all(np.isfinite(mean)), "non-finite values"
    assert int(f.attrs["steps"]) == steps, f"steps attribute {f.attrs['steps']} != {steps}"
    assert int(f.attrs["ranks"]) == 2, f"ranks attribute {f.attrs['ranks']} != 2"
print(f"  /params/shared {shared.shape}, /latent/mean {mean.shape}, steps {steps}, ranks 2")
EOF
  ok "run file valid"
}

run_job auto
run_job mpirun

check "both launchers give the same model (/params/shared, /latent/mean to 1e-12 relative)"
/usr/bin/python3 - "$WORK/run-auto.h5" "$WORK/run-mpirun.h5" <<'EOF' || fail "the two runs differ"
import sys, h5py, numpy as np
a, b = (h5py.File(p, "r") for p in sys.argv[1:3])
for name in ("/params/shared", "/latent/mean"):
    x, y = a[name][...], b[name][...]
    rel = np.max(np.abs(x - y) / np.maximum(np.maximum(np.abs(x), np.abs(y)), 1e-300))
    print(f"  {name}: max relative difference {rel:.3e}")
    assert rel <= 1e-12, name
EOF
ok "identical"
