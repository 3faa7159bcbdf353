#!/usr/bin/env bash
# A one-node Slurm cluster on this machine, for testing the Slurm templates
# (templates/slurm/): munged, slurmctld and slurmd from Debian's munge and slurm-wlm
# packages (scripts/setup.sh installs them in the instructor's repository), run as root,
# with every file they use under STATEDIR. The system's /etc/munge and /etc/slurm are
# neither read nor written: munged gets its own key and socket, Slurm its own slurm.conf.
#
#   scripts/slurm-node.sh start STATEDIR   STATEDIR new or empty; prints the line that
#                                          points sbatch, squeue and scontrol at it
#   scripts/slurm-node.sh stop STATEDIR    cancels its jobs, stops the daemons it started
#
# GPUS=N: the node offers N GPUs (gres.conf: /dev/nvidia0..N-1) for --gres=gpu:N;
# default 0 (CI has none). PORT=P: slurmctld listens on P, slurmd on P+1 (default 6817).
set -euo pipefail

usage() {
  echo "usage: $0 start|stop STATEDIR" >&2
  exit 2
}
[ $# -eq 2 ] || usage
action=$1 state=$2
gpus=${GPUS:-0} port=${PORT:-6817}
# Written first on start: STATEDIR holds this node's files only, and stop touches
# nothing it does not find.
marker=.cuda-labs-slurm-node
daemons=(munged slurmctld slurmd)

die() {
  echo "slurm-node: $*" >&2
  exit 1
}

start() {
  if [ -e "$state" ]; then
    [ -d "$state" ] || die "$state is not a folder"
    [ -z "$(ls -A "$state")" ] || die "$state is not empty: give a new or empty folder"
  fi
  [[ $gpus =~ ^[0-9]+$ ]] || die "GPUS=$gpus: give a number of GPUs"
  [[ $port =~ ^[0-9]+$ ]] || die "PORT=$port: give a port number"
  [ "$(id -u)" -eq 0 ] || die "must run as root (slurmd starts jobs as their users)"
  local tool
  for tool in munged munge slurmctld slurmd sbatch scontrol sinfo squeue scancel; do
    command -v "$tool" >/dev/null ||
      die "$tool not found: install Debian's munge and slurm-wlm (scripts/setup.sh)"
  done
  mkdir -p "$state"
  state=$(cd "$state" && pwd)
  : >"$state/$marker"
  # A start that fails half way stops what it started.
  trap 'stop' EXIT
  # munged serves its socket only from a folder every user can enter.
  chmod 755 "$state"
  mkdir -p "$state"/{munge,ctld,spool,log,pids}
  (umask 077 && head -c 1024 /dev/urandom >"$state/munge/munge.key")

  local host cpus gres_types="" node_gres=""
  host=$(hostname -s)
  cpus=$(nproc)
  if [ "$gpus" -gt 0 ]; then
    gres_types="GresTypes=gpu" node_gres="Gres=gpu:$gpus"
    local devices=/dev/nvidia0
    [ "$gpus" -eq 1 ] || devices="/dev/nvidia[0-$((gpus - 1))]"
    echo "Name=gpu File=$devices" >"$state/gres.conf"
  fi
  cat >"$state/slurm.conf" <<EOF
# Written by scripts/slurm-node.sh: a one-node cluster, its state under $state.
ClusterName=cudalabs
SlurmctldHost=$host(127.0.0.1)
SlurmctldPort=$port
SlurmdPort=$((port + 1))
SlurmUser=root
AuthType=auth/munge
CredType=cred/munge
AuthInfo=socket=$state/munge/munge.socket
StateSaveLocation=$state/ctld
SlurmdSpoolDir=$state/spool
SlurmctldPidFile=$state/ctld/slurmctld.pid
SlurmdPidFile=$state/spool/slurmd.pid
SlurmctldLogFile=$state/log/slurmctld.log
SlurmdLogFile=$state/log/slurmd.log
# No cgroups (a container may have none to give) and no accounting database: the
# job's end state is in the job completion file.
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
JobAcctGatherType=jobacct_gather/none
AccountingStorageType=accounting_storage/none
JobCompType=jobcomp/filetxt
JobCompLoc=$state/log/jobcomp.txt
SelectType=select/cons_tres
SelectTypeParameters=CR_CPU
MpiDefault=none
ReturnToService=2
$gres_types
NodeName=$host NodeAddr=127.0.0.1 CPUs=$cpus $node_gres State=UNKNOWN
PartitionName=debug Nodes=$host Default=YES MaxTime=INFINITE State=UP
EOF

  # Each in the foreground of a background shell job: its process id is the daemon's.
  munged -F --key-file="$state/munge/munge.key" --socket="$state/munge/munge.socket" \
    --pid-file="$state/munge/munged.pid" --seed-file="$state/munge/munged.seed" \
    </dev/null >"$state/log/munged.log" 2>&1 &
  echo $! >"$state/pids/munged"
  wait_for "munged" munge -n -S "$state/munge/munge.socket"
  slurmctld -D -f "$state/slurm.conf" </dev/null >"$state/log/slurmctld.out" 2>&1 &
  echo $! >"$state/pids/slurmctld"
  slurmd -D -f "$state/slurm.conf" </dev/null >"$state/log/slurmd.out" 2>&1 &
  echo $! >"$state/pids/slurmd"
  export SLURM_CONF=$state/slurm.conf
  wait_for "node $host idle" node_idle "$host"
  trap - EXIT
  echo "export SLURM_CONF=$state/slurm.conf"
}

node_idle() {
  [ "$(sinfo -h -n "$1" -o %T 2>/dev/null)" = idle ]
}

# wait_for WHAT COMMAND...: until COMMAND succeeds (30 s at most), or a daemon has died.
wait_for() {
  local what=$1 name
  shift
  for _ in $(seq 300); do
    "$@" >/dev/null 2>&1 && return 0
    for name in "${daemons[@]}"; do
      [ ! -f "$state/pids/$name" ] || running "$name" ||
        die "$name exited: $(tail -n 1 "$state/log/$name.log")"
    done
    sleep 0.1
  done
  die "no $what after 30 s: see $state/log/"
}

# running NAME: the process recorded for NAME has not ended and is still that daemon.
running() {
  local pid
  pid=$(cat "$state/pids/$1")
  alive "$pid" && tr '\0' ' ' <"/proc/$pid/cmdline" | grep -qF "$state/"
}

# alive PID: PID has not ended (an ended process is gone, or a zombie: state Z, the
# field after the name in parentheses).
alive() {
  local stat
  stat=$(cat "/proc/$1/stat" 2>/dev/null) && stat=${stat##*) } && [ "${stat:0:1}" != Z ]
}

queued() { [ -n "$(squeue -h -o %i 2>/dev/null)" ]; }
# A job step's slurmstepd serves a socket in the spool folder until it has ended.
steps() { [ -n "$(find "$state/spool" -type s)" ]; }
# The processes with a file under STATEDIR open: none once everything has ended.
holders() { find /proc/[0-9]*/fd -maxdepth 1 -lname "$state/*" 2>/dev/null | cut -d/ -f3 | sort -u; }
held() { [ -n "$(holders)" ]; }

# while_so WHAT COMMAND...: waits while COMMAND succeeds, 10 s at most; 1 if it still does.
while_so() {
  for _ in $(seq 100); do
    "${@:2}" || return 0
    sleep 0.1
  done
  echo "slurm-node: still $1 after 10 s" >&2
  return 1
}

stop() {
  [ -f "$state/$marker" ] || die "$state was not made by $0 start: nothing stopped"
  state=$(cd "$state" && pwd)
  export SLURM_CONF=$state/slurm.conf
  # Jobs first, while slurmd can still end their processes and hear that they ended.
  if [ -f "$state/pids/slurmctld" ] && running slurmctld; then
    scancel --full --quiet --user=root || true
    while_so "jobs in the queue" queued || true
  fi
  while_so "job steps running" steps || true
  local name pid
  for name in slurmd slurmctld munged; do
    [ -f "$state/pids/$name" ] || continue
    pid=$(cat "$state/pids/$name")
    if running "$name"; then
      kill -TERM "$pid"
      while_so "$name running" alive "$pid" || kill -KILL "$pid"
    fi
    rm "$state/pids/$name"
  done
  while_so "processes with files under $state open" held || die "still running: $(holders | xargs)"
}

case $action in
start) start ;;
stop) stop ;;
*) usage ;;
esac
