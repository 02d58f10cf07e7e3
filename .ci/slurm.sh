#!/usr/bin/env bash
# Runs worl schedules on a real Slurm: installs Debian's Slurm and MUNGE, starts a one-node
# cluster on this machine (4 logical GPUs without devices, no cgroups, no systemd), then
# runs the live test crates/worl-cli/tests/engines_live.rs: `worl schedule` a 10-task DAG on
# one machine of 4 GPUs, `worl export --to slurm --policy devices=planned` (this Slurm has
# no cgroups, so a job sees every GPU and the planned index is usable), submit, wait, and
# check that every task ran on its planned node and GPU index (WORL_GPU and
# CUDA_VISIBLE_DEVICES), after its data predecessors and after the task before it on its GPU.
#
# Usage: .ci/slurm.sh   (as root, or a user with passwordless sudo; Debian/Ubuntu)
# Env:   CARGO_TARGET_DIR (as for the rest of CI), WORL_SLURM_KEEP=1 leaves the daemons up.
# Each step prints its duration; the whole script takes about 1-2 minutes warm (Slurm
# already installed, worl-cli built), plus the apt install (~1 min) on a fresh machine. The
# live test is built with --workspace so that it reuses the artifacts of `cargo test
# --workspace --release` (-p would change feature unification and rebuild burn).
set -euo pipefail
cd "$(dirname "$0")/.."

SUDO=""
if [ "$(id -u)" != 0 ]; then SUDO="sudo"; fi
NODE=$(hostname -s)
T0=$(date +%s)
step() { echo "--- [$(( $(date +%s) - T0 ))s] $*"; }

step "install slurm-wlm and munge"
if ! command -v slurmctld >/dev/null || ! command -v munged >/dev/null; then
  $SUDO apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq slurm-wlm munge >/dev/null
fi
slurmctld -V

step "write /etc/slurm/slurm.conf and gres.conf for node $NODE (4 GPUs, no devices)"
$SUDO mkdir -p /etc/slurm /var/spool/slurmctld /var/spool/slurmd /var/log/slurm /run/munge
# select/cons_tres with GPU GRES; no cgroups (proctrack/linuxproc, task/none), no
# accounting, daemons as root. CPUs=8 > real cores is accepted through config_overrides,
# so four 1-CPU GPU jobs fit at once even on a 2-core CI machine.
$SUDO tee /etc/slurm/slurm.conf >/dev/null <<CONF
ClusterName=worlci
SlurmctldHost=$NODE
AuthType=auth/munge
CredType=cred/munge
SlurmUser=root
SlurmdUser=root
StateSaveLocation=/var/spool/slurmctld
SlurmdSpoolDir=/var/spool/slurmd
SlurmctldPidFile=/run/slurmctld.pid
SlurmdPidFile=/run/slurmd.pid
SlurmctldLogFile=/var/log/slurm/slurmctld.log
SlurmdLogFile=/var/log/slurm/slurmd.log
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
JobAcctGatherType=jobacct_gather/none
AccountingStorageType=accounting_storage/none
JobCompType=jobcomp/none
MpiDefault=none
MailProg=/bin/true
SwitchType=switch/none
SchedulerType=sched/backfill
SchedulerParameters=sched_interval=2
SelectType=select/cons_tres
SelectTypeParameters=CR_Core
GresTypes=gpu
SlurmdParameters=config_overrides
ReturnToService=2
MinJobAge=300
NodeName=$NODE CPUs=8 Gres=gpu:4 State=UNKNOWN
PartitionName=debug Nodes=$NODE Default=YES MaxTime=INFINITE State=UP
CONF
# Slurm 22.05 counts a gpu GRES only with device files: four character devices that are
# /dev/null (1,3) stand in for GPUs; Slurm allocates them and sets CUDA_VISIBLE_DEVICES.
for i in 0 1 2 3; do
  [ -c /dev/worl-gpu$i ] || $SUDO mknod -m 666 /dev/worl-gpu$i c 1 3
done
$SUDO tee /etc/slurm/gres.conf >/dev/null <<CONF
AutoDetect=off
NodeName=$NODE Name=gpu File=/dev/worl-gpu[0-3]
CONF

step "start munged, slurmctld, slurmd"
$SUDO chown munge:munge /run/munge
if [ ! -s /etc/munge/munge.key ]; then
  $SUDO mungekey --create --force 2>/dev/null || $SUDO /usr/sbin/create-munge-key -f
  $SUDO chown munge:munge /etc/munge/munge.key
fi
pgrep -x munged >/dev/null || $SUDO -u munge /usr/sbin/munged 2>/dev/null || $SUDO runuser -u munge -- /usr/sbin/munged
pgrep -x slurmctld >/dev/null || $SUDO slurmctld -c
pgrep -x slurmd >/dev/null || $SUDO slurmd
for _ in $(seq 60); do
  state=$(sinfo -h -n "$NODE" -o %t 2>/dev/null || true)
  if [ "$state" = idle ]; then break; fi
  sleep 1
done
sinfo -N -o "%N %t %G %c"
if [ "$(sinfo -h -n "$NODE" -o %t)" != idle ]; then
  echo "node $NODE is not idle" >&2
  tail -n 30 /var/log/slurm/slurmctld.log /var/log/slurm/slurmd.log >&2 || true
  exit 1
fi

step "live test: worl schedule -> worl export --to slurm --policy devices=planned -> sbatch -> check"
WORL_SLURM_LIVE=1 WORL_SLURM_NODE="$NODE" \
  cargo test --workspace --release --locked --test engines_live slurm -- --nocapture

step "done"
if [ "${WORL_SLURM_KEEP:-0}" != 1 ]; then
  $SUDO scontrol shutdown >/dev/null 2>&1 || true
fi
