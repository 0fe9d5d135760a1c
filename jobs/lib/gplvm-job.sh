# shellcheck shell=bash
# Shared by jobs/*.sbatch (sourced, not run): finds the gplvm binary, picks the MPI launcher, runs
# it with signal forwarding, and requeues a stopped training job. Not meant to be edited per job;
# configure it with these environment variables (sbatch passes the submitting shell's environment):
#
#   GPLVM_BIN          the gplvm executable (default: <repo>/build/gplvm, else `gplvm` on PATH)
#   GPLVM_LAUNCHER     auto (default) | srun | mpirun
#                        auto: srun when running inside a Slurm job, srun exists and its MPI plugin
#                        (GPLVM_SRUN_MPI) is listed by `srun --mpi=list`; mpirun otherwise.
#   GPLVM_SRUN_MPI     srun's --mpi plugin (default pmix). With Debian 12's Open MPI 4.1 + Slurm
#                      22.05 only pmix works: --mpi=none and --mpi=pmi2 abort in MPI_Init (Open MPI
#                      sees the Slurm environment, finds no PMIx server and refuses to run).
#   GPLVM_SRUN_ARGS    extra srun arguments (word-split), e.g. "--cpu-bind=cores"
#   GPLVM_MPIRUN_ARGS  extra mpirun arguments (word-split), e.g. "--mca btl tcp,self"
#   OPENBLAS_NUM_THREADS / OMP_NUM_THREADS   default: SLURM_CPUS_PER_TASK, or 1
#
# Signals (why the launcher runs in the background): bash runs a trap only after the foreground
# command ends, so a foreground launcher would never see a forwarded signal in time. We start it in
# the background, trap USR1/USR2/TERM/INT in the batch shell, forward SIGUSR1 to the launcher (mpirun
# and srun both pass SIGUSR1 on to every rank; gplvm then checkpoints after the current step and
# exits 3), and loop on `wait`, which returns early (128+signal) whenever a trapped signal arrives.

gplvm_log() { echo "[$(date '+%F %T')] ${GPLVM_JOB_NAME:-gplvm-job}: $*" >&2; }
gplvm_die() { gplvm_log "error: $*"; exit "${2:-2}"; }

# gplvm_setup REPO: sets GPLVM (the binary) and the thread counts; prints where things are.
gplvm_setup() {
  local repo=$1
  if [ -n "${GPLVM_BIN:-}" ]; then
    GPLVM=$GPLVM_BIN
  elif [ -x "$repo/build/gplvm" ]; then
    GPLVM=$repo/build/gplvm
  elif command -v gplvm >/dev/null 2>&1; then
    GPLVM=$(command -v gplvm)
  else
    gplvm_die "no gplvm binary: set GPLVM_BIN, build $repo/build/gplvm, or put gplvm on PATH"
  fi
  [ -x "$GPLVM" ] || GPLVM=$(command -v "$GPLVM" 2>/dev/null) || gplvm_die "GPLVM_BIN=$GPLVM is not executable"
  export OPENBLAS_NUM_THREADS=${OPENBLAS_NUM_THREADS:-${SLURM_CPUS_PER_TASK:-1}}
  export OMP_NUM_THREADS=${OMP_NUM_THREADS:-${SLURM_CPUS_PER_TASK:-1}}
  if [ "$(id -u)" -eq 0 ]; then   # Open MPI refuses root without these
    export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
  fi
  gplvm_log "job ${SLURM_JOB_ID:-none}${SLURM_ARRAY_TASK_ID:+ (array task $SLURM_ARRAY_TASK_ID)}" \
    "restart ${SLURM_RESTART_COUNT:-0} on $(hostname), binary $GPLVM, cwd $(pwd)"
}

# gplvm_ntasks: the job's task count. SLURM_NTASKS is only set when -n/--ntasks-per-node was given
# (`sbatch -N 2` alone sets SLURM_TASKS_PER_NODE="1(x2)"); outside Slurm: GPLVM_NP or 1.
gplvm_ntasks() {
  if [ -n "${SLURM_NTASKS:-}" ]; then echo "$SLURM_NTASKS"; return; fi
  if [ -n "${SLURM_TASKS_PER_NODE:-}" ]; then
    local total=0 part parts=()
    IFS=, read -r -a parts <<<"$SLURM_TASKS_PER_NODE"
    for part in "${parts[@]}"; do
      if [[ "$part" =~ ^([0-9]+)\(x([0-9]+)\)$ ]]; then
        total=$((total + BASH_REMATCH[1] * BASH_REMATCH[2]))
      elif [[ "$part" =~ ^[0-9]+$ ]]; then
        total=$((total + part))
      fi
    done
    if [ "$total" -gt 0 ]; then echo "$total"; return; fi
  fi
  echo "${GPLVM_NP:-1}"
}

# gplvm_launcher NP: sets the array LAUNCH to the command prefix that starts NP ranks.
gplvm_launcher() {
  local np=$1 mode=${GPLVM_LAUNCHER:-auto} mpi=${GPLVM_SRUN_MPI:-pmix}
  case "$mode" in
    auto)
      mode=mpirun
      if [ -n "${SLURM_JOB_ID:-}" ] && command -v srun >/dev/null 2>&1 &&
        srun --mpi=list 2>&1 | grep -qw -- "$mpi"; then
        mode=srun
      fi
      ;;
    srun | mpirun) ;;
    *) gplvm_die "GPLVM_LAUNCHER must be auto, srun or mpirun (got '$mode')" ;;
  esac
  if [ "$mode" = srun ]; then
    command -v srun >/dev/null 2>&1 || gplvm_die "GPLVM_LAUNCHER=srun but srun is not on PATH"
    # shellcheck disable=SC2206
    LAUNCH=(srun --mpi="$mpi" --ntasks="$np" ${GPLVM_SRUN_ARGS:-})
  else
    command -v mpirun >/dev/null 2>&1 || gplvm_die "mpirun is not on PATH"
    LAUNCH=(mpirun -n "$np")
    # Open MPI binds each rank to one core by default: no room for the BLAS threads of --cpus-per-task.
    if [ "${SLURM_CPUS_PER_TASK:-1}" -gt 1 ]; then LAUNCH+=(--bind-to none); fi
    # (nproc honours OMP_NUM_THREADS, which gplvm_setup sets: ask without it)
    local slots
    if [ -n "${SLURM_JOB_ID:-}" ]; then slots=$(gplvm_ntasks); else slots=$(env -u OMP_NUM_THREADS -u OMP_THREAD_LIMIT nproc); fi
    if [ "$np" -gt "$slots" ]; then LAUNCH+=(--oversubscribe); fi
    LAUNCH+=(-x OPENBLAS_NUM_THREADS -x OMP_NUM_THREADS)
    # shellcheck disable=SC2206
    LAUNCH+=(${GPLVM_MPIRUN_ARGS:-})
  fi
}

GPLVM_SIGNAL=""      # last signal the batch shell caught (USR1, TERM, ...), empty if none
GPLVM_SIGNALS=""     # all signals it caught, e.g. " USR1 TERM"
GPLVM_LAUNCHER_PID=""

_gplvm_on_signal() {
  local sig=$1
  GPLVM_SIGNAL=$sig
  GPLVM_SIGNALS="$GPLVM_SIGNALS $sig"
  if [ -n "$GPLVM_LAUNCHER_PID" ] && kill -0 "$GPLVM_LAUNCHER_PID" 2>/dev/null; then
    # SIGUSR1 whatever we caught: mpirun forwards SIGUSR1 to the ranks and then exits with their code
    # 3, whereas a SIGTERM sent to mpirun makes it exit 1 even though the ranks checkpointed.
    gplvm_log "caught SIG$sig: forwarding SIGUSR1 to launcher pid $GPLVM_LAUNCHER_PID (ranks checkpoint and stop)"
    kill -USR1 "$GPLVM_LAUNCHER_PID" 2>/dev/null || true
  else
    gplvm_log "caught SIG$sig (no launcher running)"
  fi
}

# gplvm_run CMD...: runs CMD in the background with signal forwarding, waits until it has really
# exited and sets GPLVM_RC to its exit status.
gplvm_run() {
  trap '_gplvm_on_signal USR1' USR1
  trap '_gplvm_on_signal USR2' USR2
  trap '_gplvm_on_signal TERM' TERM
  trap '_gplvm_on_signal INT' INT
  gplvm_log "running: $*"
  "$@" &
  GPLVM_LAUNCHER_PID=$!
  local pid=$GPLVM_LAUNCHER_PID status rc=""
  while :; do
    wait "$pid"
    status=$?
    # 127: already reported by an earlier wait (it returned the real status then): keep that one.
    if [ "$status" -eq 127 ] && [ -n "$rc" ]; then break; fi
    rc=$status
    # wait returned because a trapped signal arrived while the launcher is still running: wait again.
    if kill -0 "$pid" 2>/dev/null; then continue; fi
    # It is gone. If the last wait was cut short by a trap just as it exited, its status is still
    # pending and this wait returns it; otherwise it returns 127 and rc already holds the status.
    wait "$pid" 2>/dev/null
    status=$?
    if [ "$status" -ne 127 ]; then rc=$status; fi
    break
  done
  GPLVM_LAUNCHER_PID=""
  GPLVM_RC=$rc
  gplvm_log "launcher exited with code $GPLVM_RC${GPLVM_SIGNAL:+ (batch shell caught SIG$GPLVM_SIGNAL)}"
}

# gplvm_expect_summary FILE: FILE holds gplvm's stdout from a --json run. Exit code 0 without a JSON
# summary means gplvm never ran (seen with srun after a slurmctld crash: "task launch failed", yet
# srun returned 0), so turn that into a failure instead of reporting a finished job. Prints FILE.
gplvm_expect_summary() {
  cat "$1"
  if [ "$GPLVM_RC" -eq 0 ] && ! grep -q '^{' "$1"; then
    gplvm_log "error: the launcher exited 0 but gplvm printed no JSON summary (did the ranks start?)"
    GPLVM_RC=1
  fi
}

# gplvm_requeue_or_exit: after a training run. Exit code 3 (gplvm checkpointed after a signal and
# stopped) -> `scontrol requeue $SLURM_JOB_ID`: the job starts again from the top of this script and
# continues with --resume auto. Which signals the batch shell caught decide:
#   USR2 (any time)     `scancel --batch --signal=USR2 JOB`: checkpoint and stop for good, no requeue
#   USR1                the time-limit warning (--signal=B:USR1@120) or `scancel --batch
#                       --signal=USR1 JOB`: requeue, even if SIGTERM followed (the time limit hit
#                       while the checkpoint was written: `scontrol requeue` works on ended jobs too)
#   only TERM/INT       scancel, or a preemption with PreemptMode=REQUEUE (Slurm requeues it
#                       itself): no requeue
#   none                the ranks were signalled directly (e.g. `scancel --signal=USR1 JOB` reaching
#                       srun's tasks): requeue
gplvm_requeue_or_exit() {
  local rc=$GPLVM_RC
  if [ "$rc" -eq 3 ]; then
    case " $GPLVM_SIGNALS " in
      *" USR2 "*)
        gplvm_log "stopped after SIGUSR2: checkpoint kept, not requeueing (resubmit to continue); exit 3"
        exit 3
        ;;
      *" USR1 "* | "  ") ;;
      *)
        gplvm_log "stopped after SIG${GPLVM_SIGNAL} (scancel or preemption): not requeueing; exit 3"
        exit 3
        ;;
    esac
    if [ -z "${SLURM_JOB_ID:-}" ] || ! command -v scontrol >/dev/null 2>&1; then
      gplvm_log "stopped with a checkpoint (exit 3), not under Slurm: rerun the same command to continue"
      exit 3
    fi
    # Array tasks are requeued by their own job id (SLURM_JOB_ID is the task's id).
    gplvm_log "checkpoint written (exit 3): scontrol requeue $SLURM_JOB_ID (restart $((${SLURM_RESTART_COUNT:-0} + 1)) will resume it)"
    if scontrol requeue "$SLURM_JOB_ID"; then
      # slurmctld now ends this run (SIGTERM to the batch shell, then SIGKILL after KillWait) and
      # queues the job again. Nothing is left to do; leave before that with the same code.
      exit 3
    fi
    gplvm_log "scontrol requeue failed (job submitted with --no-requeue, or JobRequeue=0?); exit 3"
    exit 3
  fi
  exit "$rc"
}
