#!/usr/bin/env bash
# A throw-away one-node Slurm cluster on loopback, for testing jobs/*.sbatch (tests/jobs/).
#
#   scripts/slurm/local-cluster.sh start  DIR   start slurmctld + slurmd, wait until the node is idle
#   scripts/slurm/local-cluster.sh stop   DIR   cancel the cluster's jobs, stop both daemons, wait for them
#   scripts/slurm/local-cluster.sh status DIR   daemons' pids, sinfo and squeue (exit 1 if not up)
#
#   eval "$(scripts/slurm/local-cluster.sh start /tmp/mycluster)"   # exports SLURM_CONF
#   sbatch -n 2 --wait jobs/train.sbatch configs/x.toml
#   scripts/slurm/local-cluster.sh stop /tmp/mycluster
#
# Everything lives in DIR: the generated slurm.conf, state, spool, logs and pid files. /etc/slurm is
# never read or written (SLURM_CONF and PlugStackConfig point into DIR); no munge, no systemd, no
# cgroups (auth/none, cred/none, proctrack/linuxproc, task/none). Must run as root (slurmd has to
# start jobs as their owner). `start` prints `export SLURM_CONF=DIR/slurm.conf` on stdout (everything
# else goes to stderr) and writes the same line to DIR/env. `start` on a DIR whose cluster is already
# up does nothing; `start` after `stop` on the same DIR brings the cluster back with its saved state.
# `stop` on a DIR without a running cluster is a no-op, so it is safe in `trap ... EXIT`.
#
# Environment:
#   SLURM_LOCAL_PORT       first port to try for slurmctld (default 16817; slurmd gets the next free
#                          one). Ports in use are skipped, so clusters of several users can coexist.
#   SLURM_LOCAL_CPUS       CPUs to advertise (default: what `slurmd -C` reports). More than the
#                          machine has is allowed (SlurmdParameters=config_overrides), e.g. to test
#                          8-rank jobs on a 2-core VM.
#   SLURM_LOCAL_TIMEOUT    seconds to wait for the node to become idle (default 60).
#   SLURM_LOCAL_CRED_EXPIRE  AuthInfo=cred_expire (default 10 s, Slurm's is 120 s): also the delay
#                          before a requeued job may start again.
#
# Slurm quirks handled here (Debian 12, Slurm 22.05):
#   * slurmd names itself after the hostname unless told otherwise: we run `slurmd -N localhost`
#     so that NodeName=localhost in the generated slurm.conf matches on any machine.
#   * A requeued job stays PENDING (Reason=BeginTime) for cred_expire + 1 seconds, 121 s by default;
#     AuthInfo=cred_expire=10 shortens that to 11 s (Slurm rejects values below 5).
#   * Requeued jobs (whose BeginTime passes) only start at the next periodic scheduler pass
#     (sched_interval, 60 s by default): SchedulerParameters=sched_interval=2,bf_interval=2.
#   * auth/none accepts any request, so the daemons must not listen on 0.0.0.0:
#     CommunicationParameters=NoCtldInAddrAny,NoInAddrAny binds them to 127.0.0.1.
#   * srun --mpi=pmix puts PMIx client dirs in /tmp/spmix_appdir_<uid>_<job>.<step> unless
#     mpi.conf (next to slurm.conf) sets PMIxCliTmpDirBase; job ids restart at 1 in every cluster.
#   * Unix socket paths under DIR (slurmstepd's, PMIx's) must stay below 108 bytes: short DIRs only.
#   * `slurmd -C` prints the hardware (CPUs, RealMemory); RealMemory must not exceed it, or the node
#     is drained as "Low RealMemory".
#   * slurmstepd processes (one per running job step) outlive slurmd. `stop` therefore cancels the
#     jobs first and waits for them to go, then stops the daemons and finally kills any process that
#     still holds a file open under DIR (a leftover slurmstepd logs to DIR/log/slurmd.log) together
#     with its descendants, so no job process survives the cluster.
set -euo pipefail

usage() {
  echo "usage: $0 start|stop|status DIR" >&2
  exit 2
}
[ $# -eq 2 ] || usage
action=$1
dir=$2
case "$action" in start|stop|status) ;; *) usage ;; esac

log() { echo "local-cluster: $*" >&2; }
die() { echo "local-cluster: error: $*" >&2; exit 1; }

if [ "$action" = start ]; then mkdir -p "$dir"; fi
if [ ! -d "$dir" ]; then
  [ "$action" = stop ] && { log "no cluster in $dir"; exit 0; }
  echo "dir:       $dir (does not exist)"
  exit 1
fi
dir=$(cd "$dir" && pwd -P)
# slurmstepd and PMIx put Unix sockets under DIR (spool/localhost_<job>.<step>, pmix/...), and a
# socket path is limited to 108 bytes.
if [ $(( ${#dir} + 40 )) -gt 107 ]; then
  echo "local-cluster: error: DIR '$dir' is too long for Unix socket paths under it; use a shorter one" >&2
  exit 2
fi
conf=$dir/slurm.conf
ctld_pidfile=$dir/run/slurmctld.pid
slurmd_pidfile=$dir/run/slurmd.pid
timeout_s=${SLURM_LOCAL_TIMEOUT:-60}

# pid from a pid file, printed only if that process is alive.
live_pid() {
  local f=$1 pid
  [ -s "$f" ] || return 1
  pid=$(tr -dc '0-9' <"$f")
  [ -n "$pid" ] && kill -0 "$pid" 2>/dev/null || return 1
  echo "$pid"
}

# Has the daemon of pid file $1, started at SECONDS=$2, exited? A daemon writes its pid file some
# time after its launcher returns (slurmd does so after its own set-up), so a missing file means
# "still starting" for the first 20 s; a file naming a dead process means exited at once.
daemon_exited() {
  local f=$1 started=$2
  if [ -s "$f" ]; then
    live_pid "$f" >/dev/null && return 1
    return 0
  fi
  [ $((SECONDS - started)) -ge 20 ]
}

# Client commands with a bounded run time: a wedged slurmctld must not hang start/stop/tests.
sl() { SLURM_CONF=$conf timeout 15 "$@"; }

print_logs() {
  local f
  for f in "$dir"/log/slurmctld.log "$dir"/log/slurmd.log "$dir"/log/slurmctld.stderr \
    "$dir"/log/slurmd.stderr; do
    if [ -s "$f" ]; then
      echo "----- $f (last 60 lines) -----" >&2
      tail -n 60 "$f" >&2
    fi
  done
}

node_state() { sl sinfo -h -N -n localhost -o '%T' 2>/dev/null | head -n 1; }

# Is TCP port $1 free on 127.0.0.1 (nothing listening and bindable)?
port_free() {
  /usr/bin/python3 - "$1" <<'EOF' 2>/dev/null
import socket, sys
s = socket.socket()
s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)  # as the daemons do: TIME_WAIT is no conflict
try:
    s.bind(("127.0.0.1", int(sys.argv[1])))
    s.listen(1)
except OSError:
    sys.exit(1)
s.close()
EOF
}

next_free_port() {
  local p=$1 last=$(($1 + 200))
  while [ "$p" -lt "$last" ]; do
    if port_free "$p"; then echo "$p"; return 0; fi
    p=$((p + 1))
  done
  die "no free port in [$1, $last)"
}

write_conf() {
  local hw cpus mem ctld_port slurmd_port overrides=""
  hw=$(slurmd -C 2>/dev/null | head -n 1) || die "slurmd -C failed (is slurm-wlm installed?)"
  cpus=$(sed -n 's/.*\bCPUs=\([0-9]*\).*/\1/p' <<<"$hw")
  mem=$(sed -n 's/.*\bRealMemory=\([0-9]*\).*/\1/p' <<<"$hw")
  [ -n "$cpus" ] && [ -n "$mem" ] || die "cannot parse 'slurmd -C' output: $hw"
  if [ -n "${SLURM_LOCAL_CPUS:-}" ] && [ "$SLURM_LOCAL_CPUS" != "$cpus" ]; then
    cpus=$SLURM_LOCAL_CPUS
    overrides="SlurmdParameters=config_overrides"
  fi
  local comm_params=NoCtldInAddrAny,NoInAddrAny
  if ! getent hosts "$(hostname)" >/dev/null 2>&1; then
    log "warning: hostname '$(hostname)' does not resolve: slurmd and srun will listen on all addresses"
    comm_params=NoCtldInAddrAny
  fi
  ctld_port=$(next_free_port "${SLURM_LOCAL_PORT:-16817}")
  slurmd_port=$(next_free_port $((ctld_port + 1)))
  # A unique cluster name per DIR keeps clusters of different users/tests apart.
  local name
  name=gplvm$(printf '%s' "$dir" | cksum | cut -d' ' -f1)
  cat >"$conf" <<EOF
# Generated by scripts/slurm/local-cluster.sh for $dir -- a one-node test cluster on loopback.
ClusterName=$name
SlurmctldHost=localhost(127.0.0.1)
SlurmctldPort=$ctld_port
SlurmdPort=$slurmd_port
SlurmUser=root
SlurmdUser=root
# auth/none trusts every request: bind to the configured addresses (127.0.0.1) instead of 0.0.0.0,
# or anyone on the network could run jobs as root. NoCtldInAddrAny: slurmctld; NoInAddrAny: slurmd
# (its NodeAddr) and srun (the address the hostname resolves to; dropped if it resolves to none).
CommunicationParameters=$comm_params
AuthType=auth/none
# cred_expire also sets how long a requeued job waits before it may start again (default 120 s;
# Slurm sets its BeginTime to now + cred_expire + 1). 10 s keeps requeue tests short.
AuthInfo=cred_expire=${SLURM_LOCAL_CRED_EXPIRE:-10}
CredType=cred/none
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
MpiDefault=none
SchedulerType=sched/backfill
# Jobs whose BeginTime passes (requeued ones) are only picked up by the periodic scheduler passes
# (default every 60 s, backfill every 30 s): run them every 2 s on this tiny cluster.
SchedulerParameters=sched_interval=2,bf_interval=2
SelectType=select/cons_tres
SelectTypeParameters=CR_CPU
ReturnToService=2
JobRequeue=1
# Jobs stay visible to 'scontrol show job' for 10 minutes after they end (no slurmdbd/sacct here).
MinJobAge=600
# Seconds between SIGTERM and SIGKILL when a job is cancelled, requeued or reaches its time limit.
KillWait=10
InactiveLimit=0
SlurmctldTimeout=30
SlurmdTimeout=30
StateSaveLocation=$dir/state
SlurmdSpoolDir=$dir/spool
SlurmctldPidFile=$ctld_pidfile
SlurmdPidFile=$slurmd_pidfile
SlurmctldLogFile=$dir/log/slurmctld.log
SlurmdLogFile=$dir/log/slurmd.log
SlurmctldDebug=info
SlurmdDebug=info
PlugStackConfig=$dir/plugstack.conf
JobCompType=jobcomp/filetxt
JobCompLoc=$dir/log/jobcomp.log
AccountingStorageType=accounting_storage/none
JobAcctGatherType=jobacct_gather/none
$overrides
NodeName=localhost NodeAddr=127.0.0.1 CPUs=$cpus RealMemory=$mem State=UNKNOWN
PartitionName=debug Nodes=localhost Default=YES MaxTime=INFINITE State=UP
EOF
  : >"$dir/plugstack.conf"
  # srun --mpi=pmix: Slurm reads mpi.conf next to slurm.conf. Keep the PMIx client directories
  # (default /tmp/spmix_appdir_<uid>_<job>.<step>) inside DIR: job ids start at 1 in every fresh
  # cluster, so two clusters on one machine would otherwise share them.
  mkdir -p "$dir/pmix"
  echo "PMIxCliTmpDirBase=$dir/pmix" >"$dir/mpi.conf"
}

# Bytes in file $1 (0 if missing), and its content after byte offset $2.
fsize() { stat -c %s "$1" 2>/dev/null || echo 0; }
since() { tail -c +$(($2 + 1)) "$1" 2>/dev/null || true; }

# One start attempt with freshly chosen ports. Returns 0 when the node is idle, 2 when a daemon
# could not bind its port (another cluster took it meanwhile: try again), 1 on any other failure.
launch() {
  local deadline=$((SECONDS + timeout_s)) state="" ctld_off slurmd_off ctld_started slurmd_started
  ctld_off=$(fsize "$dir/log/slurmctld.log")
  slurmd_off=$(fsize "$dir/log/slurmd.log")
  port_conflict() {
    { since "$dir/log/slurmctld.log" "$ctld_off"; since "$dir/log/slurmd.log" "$slurmd_off"
      cat "$dir"/log/*.stderr 2>/dev/null; } | grep -q 'Address already in use'
  }
  # Ports are chosen and bound under a machine-wide lock, so that clusters started at the same
  # time (parallel tests, several users) do not pick the same free ports.
  exec 8>>/tmp/gplvm-slurm-local-cluster.lock
  flock -w 120 8 || die "could not take /tmp/gplvm-slurm-local-cluster.lock within 120 s"
  write_conf
  log "starting slurmctld and slurmd ($(grep -E '^Slurm(ctld|d)Port=' "$conf" | tr '\n' ' '))"
  # Both daemonise and write their pid files; their own logs go to DIR/log/*.log.
  # (8>&-: the daemons must not inherit the lock, or it would be held as long as they run)
  # Pid files left by an earlier cluster in DIR would name dead processes: the daemons write new ones.
  rm -f "$ctld_pidfile" "$slurmd_pidfile"
  ctld_started=$SECONDS
  if ! SLURM_CONF=$conf slurmctld -f "$conf" 8>&- >"$dir/log/slurmctld.stderr" 2>&1; then
    exec 8>&-
    port_conflict && return 2
    print_logs
    log "slurmctld failed to start"
    return 1
  fi
  until sl scontrol ping 2>/dev/null | grep -q 'is UP'; do
    if [ $SECONDS -ge $deadline ] || daemon_exited "$ctld_pidfile" "$ctld_started"; then
      exec 8>&-
      port_conflict && return 2
      print_logs
      log "slurmctld did not come up within ${timeout_s}s"
      return 1
    fi
    sleep 0.5
  done
  slurmd_started=$SECONDS
  if ! SLURM_CONF=$conf slurmd -f "$conf" -N localhost 8>&- >"$dir/log/slurmd.stderr" 2>&1; then
    exec 8>&-
    port_conflict && return 2
    print_logs
    log "slurmd failed to start"
    return 1
  fi
  while :; do
    state=$(node_state || true)
    case "$state" in
      idle) break ;;
      # After a restart on the same DIR the node may come back down/drained: resume it.
      down* | drain* | *fail*) sl scontrol update nodename=localhost state=resume >/dev/null 2>&1 || true ;;
    esac
    # Once slurmd has registered (state no longer unknown) both ports are bound: unlock.
    case "$state" in "" | unknown*) ;; *) exec 8>&- ;; esac
    if [ $SECONDS -ge $deadline ] || daemon_exited "$slurmd_pidfile" "$slurmd_started" ||
      daemon_exited "$ctld_pidfile" "$ctld_started"; then
      exec 8>&-
      port_conflict && return 2
      print_logs
      sl sinfo -N -l >&2 2>&1 || true
      log "node 'localhost' not idle within ${timeout_s}s (state: '${state:-unknown}'; slurmd" \
        "$(live_pid "$slurmd_pidfile" >/dev/null && echo running || echo exited))"
      return 1
    fi
    sleep 0.5
  done
  exec 8>&-
  return 0
}

start() {
  [ "$(id -u)" -eq 0 ] || die "must run as root (slurmd runs jobs as their owner)"
  command -v slurmctld >/dev/null && command -v slurmd >/dev/null && command -v sinfo >/dev/null ||
    die "slurmctld/slurmd/sinfo not found: install slurm-wlm (bash scripts/install-deps.sh)"
  mkdir -p "$dir"/state "$dir"/spool "$dir"/log "$dir"/run
  local ctld slurmd
  ctld=$(live_pid "$ctld_pidfile" || true)
  slurmd=$(live_pid "$slurmd_pidfile" || true)
  if [ -n "$ctld" ] && [ -n "$slurmd" ] && [ -f "$conf" ] && [ "$(node_state)" = idle ]; then
    log "already running in $dir (slurmctld $ctld, slurmd $slurmd)"
  else
    # Half-started or stale: stop what is left, then start from a fresh slurm.conf (new free ports).
    if [ -n "$ctld$slurmd" ]; then stop; fi
    local attempt rc
    for attempt in 1 2 3; do
      rc=0
      launch || rc=$?
      [ $rc -eq 0 ] && break
      stop >/dev/null 2>&1 || true
      [ $rc -eq 2 ] || die "the cluster in $dir did not start (logs above)"
      log "a port was taken by someone else meanwhile (attempt $attempt of 3): new ports"
    done
    [ $rc -eq 0 ] || { print_logs; die "the cluster in $dir did not start: ports kept being taken"; }
    log "up: slurmctld $(live_pid "$ctld_pidfile"), slurmd $(live_pid "$slurmd_pidfile"), node localhost idle"
  fi
  echo "export SLURM_CONF=$conf" >"$dir/env"
  echo "export SLURM_CONF=$conf"
}

# Descendants of the given pids (from /proc/*/stat's ppid field), printed one per line.
descendants() {
  local -A parent=()
  local stat pid rest ppid
  for stat in /proc/[0-9]*/stat; do
    pid=${stat#/proc/}
    pid=${pid%/stat}
    rest=$(cat "$stat" 2>/dev/null) || continue
    rest=${rest##*) }       # drop "pid (comm) "; comm may contain spaces
    ppid=$(cut -d' ' -f2 <<<"$rest")
    parent[$pid]=$ppid
  done
  local -a queue=("$@")
  local p c
  while [ ${#queue[@]} -gt 0 ]; do
    p=${queue[0]}
    queue=("${queue[@]:1}")
    for c in "${!parent[@]}"; do
      if [ "${parent[$c]}" = "$p" ]; then
        echo "$c"
        queue+=("$c")
      fi
    done
  done
}

# Processes with a file open under DIR (daemons, leftover slurmstepd), except this script's own.
holders() {
  local fd pid
  for fd in /proc/[0-9]*/fd/*; do
    case "$(readlink "$fd" 2>/dev/null)" in
      "$dir"/*)
        pid=${fd#/proc/}
        pid=${pid%%/*}
        [ "$pid" != $$ ] && [ "$pid" != "$BASHPID" ] && echo "$pid" ;;
    esac
  done | sort -u
}

wait_gone() {   # wait_gone SECONDS PID...: 0 if all exited in time
  local deadline=$((SECONDS + $1)) p alive
  shift
  while :; do
    alive=0
    for p in "$@"; do kill -0 "$p" 2>/dev/null && alive=1; done
    [ $alive -eq 0 ] && return 0
    [ $SECONDS -ge $deadline ] && return 1
    sleep 0.2
  done
}

stop() {
  [ -f "$conf" ] || { log "no cluster in $dir"; return 0; }
  local ctld slurmd jobs
  ctld=$(live_pid "$ctld_pidfile" || true)
  slurmd=$(live_pid "$slurmd_pidfile" || true)
  if [ -n "$ctld" ] && [ -n "$slurmd" ]; then
    jobs=$(sl squeue -h -o '%A' 2>/dev/null | tr '\n' ' ' || true)
    if [ -n "${jobs// /}" ]; then
      log "cancelling jobs: $jobs"
      # shellcheck disable=SC2086
      sl scancel $jobs 2>/dev/null || true
      local deadline=$((SECONDS + 30))
      while [ -n "$(sl squeue -h -o '%A' 2>/dev/null || true)" ] && [ $SECONDS -lt $deadline ]; do
        sleep 0.5
      done
    fi
  fi
  local pids=() p
  for p in $slurmd $ctld; do pids+=("$p"); done
  if [ ${#pids[@]} -gt 0 ]; then
    log "stopping daemons: ${pids[*]}"
    kill -TERM "${pids[@]}" 2>/dev/null || true
    if ! wait_gone 20 "${pids[@]}"; then
      log "daemons still alive after 20s, sending SIGKILL"
      kill -KILL "${pids[@]}" 2>/dev/null || true
      wait_gone 10 "${pids[@]}" || die "could not stop ${pids[*]}"
    fi
  fi
  # Leftovers: slurmstepd (and the job processes below it) outlive the daemons.
  local left=()
  mapfile -t left < <(holders)
  if [ ${#left[@]} -gt 0 ]; then
    local all=()
    mapfile -t all < <(printf '%s\n' "${left[@]}"; descendants "${left[@]}")
    log "killing leftover processes: ${all[*]}"
    kill -KILL "${all[@]}" 2>/dev/null || true
    wait_gone 10 "${all[@]}" || log "warning: still alive: ${all[*]}"
  fi
  rm -f "$ctld_pidfile" "$slurmd_pidfile"
  log "stopped ($dir)"
}

status() {
  local ctld slurmd rc=0
  ctld=$(live_pid "$ctld_pidfile" || true)
  slurmd=$(live_pid "$slurmd_pidfile" || true)
  echo "dir:       $dir"
  echo "conf:      $conf"
  echo "slurmctld: ${ctld:-not running}"
  echo "slurmd:    ${slurmd:-not running}"
  if [ -n "$ctld" ]; then
    sl sinfo -N -l || rc=1
    sl squeue || rc=1
  fi
  [ -n "$ctld" ] && [ -n "$slurmd" ] || rc=1
  return $rc
}

"$action"
