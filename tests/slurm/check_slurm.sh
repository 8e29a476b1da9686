#!/usr/bin/env bash
# The SLURM scripts on a real scheduler: starts slurmctld and slurmd (Debian's slurm-wlm) on this machine from a
# generated slurm.conf, submits jobs/identify.sbatch twice (once with time enough, once with a one-minute limit
# that it must survive by checkpoint, requeue and restart) and jobs/scan_array.sbatch, waits for them with squeue,
# checks their results, and stops the daemons. Exits 77 (CTest: skipped) with the reason when slurm-wlm is missing
# or its daemons cannot start here.
# Usage: check_slurm.sh SOURCE_DIR BUILD_DIR CHAIN_MEASUREMENT.h5 CHAIN_5S_MEASUREMENT.h5
set -uo pipefail
src=$1 build=$2
chain_meas=$(realpath "$3") chain_5s_meas=$(realpath "$4")
lab=$PWD/slurm_lab
work=$PWD/slurm_work
host=$(hostname -s)
skip() { echo "SKIP: $*"; exit 77; }
fail() { echo "check_slurm: FAIL: $*" >&2; exit 1; }

export PATH=$PATH:/usr/sbin:/sbin # the daemons, outside a normal user's PATH on Debian
for program in slurmctld slurmd sbatch squeue scontrol srun; do
  command -v $program > /dev/null || skip "$program not found: install Debian's slurm-wlm (bash jobs/test does)"
done

# --- a one-node cluster of this machine, every file under $lab -------------------------------------------------
# the daemons of $lab still running: a pid file's process only if it is a slurmctld or slurmd (not a reused pid)
daemon_pids() {
  for pidfile in "$lab"/run/*.pid; do
    [ -s "$pidfile" ] || continue
    pid=$(cat "$pidfile")
    case "$(cat "/proc/$pid/comm" 2> /dev/null)" in slurmctld | slurmd) echo "$pid" ;; esac
  done
}
stop_cluster() {
  [ -f "$lab/etc/slurm.conf" ] || return 0
  local pids
  pids=$(daemon_pids)
  # none left (an earlier run that ended normally): scancel and squeue would wait 18 s and 9 s for a controller that
  # is not there
  [ -n "$pids" ] || return 0
  export SLURM_CONF=$lab/etc/slurm.conf
  scancel --user="$(id -un)" 2> /dev/null
  for _ in $(seq 1 40); do [ -z "$(squeue -h -o %A 2> /dev/null)" ] && break; sleep 0.5; done
  timeout 5 scontrol shutdown > /dev/null 2>&1
  for pid in $pids; do
    for _ in $(seq 1 20); do kill -0 "$pid" 2> /dev/null || break; sleep 0.25; done
    kill -KILL "$pid" 2> /dev/null
  done
}
stop_cluster
rm -rf "$lab" "$work"
mkdir -p "$lab"/{etc,state,spool,log,run,tmp} "$work"/{inputs,results}
trap stop_cluster EXIT
ports=$(( 20000 + ($$ % 5000) * 2 )) # two ports of our own: never a clash with a system slurm (6817, 6818)
user=$(id -un)
cpus=$(getconf _NPROCESSORS_ONLN) # not nproc: it obeys OMP_NUM_THREADS=1 of the test environment
memory=$(awk '/MemTotal/ { print int($2 / 1024 * 0.9) }' /proc/meminfo)
cat > "$lab/etc/slurm.conf" << EOF
ClusterName=mbsidtest
SlurmctldHost=$host(127.0.0.1)
SlurmUser=$user
SlurmdUser=$user
SlurmctldPort=$ports
SlurmdPort=$(( ports + 1 ))
# no munge daemon needed: the cluster is this machine and its one user
AuthType=auth/none
CredType=cred/none
# a requeued job may start cred_expire + 1 s after its requeue (default 120 s)
AuthInfo=cred_expire=5
StateSaveLocation=$lab/state
SlurmdSpoolDir=$lab/spool
SlurmctldPidFile=$lab/run/slurmctld.pid
SlurmdPidFile=$lab/run/slurmd.pid
SlurmctldLogFile=$lab/log/slurmctld.log
SlurmdLogFile=$lab/log/slurmd.log
MailProg=/bin/true
TmpFS=$lab/tmp
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
JobAcctGatherType=jobacct_gather/none
AccountingStorageType=accounting_storage/none
SelectType=select/cons_tres
SelectTypeParameters=CR_Core
SchedulerType=sched/backfill
SchedulerParameters=bf_interval=1,sched_interval=5
# Debian's Open MPI starts under srun through PMIx only
MpiDefault=pmix
ReturnToService=2
JobRequeue=1
KillWait=10
MinJobAge=600
InactiveLimit=0
NodeName=$host NodeAddr=127.0.0.1 CPUs=$cpus RealMemory=$memory State=UNKNOWN
PartitionName=test Nodes=$host Default=YES MaxTime=INFINITE State=UP OverSubscribe=NO
EOF
echo "PMIxCliTmpDirBase=$lab/tmp" > "$lab/etc/mpi.conf"
export SLURM_CONF=$lab/etc/slurm.conf
slurmctld -f "$SLURM_CONF" -c 2> "$lab/log/slurmctld.start" || skip "slurmctld does not start here: $(tail -3 "$lab/log/slurmctld.start" "$lab/log/slurmctld.log" 2> /dev/null)"
slurmd -f "$SLURM_CONF" -N "$host" 2> "$lab/log/slurmd.start" || skip "slurmd does not start here: $(tail -3 "$lab/log/slurmd.start" "$lab/log/slurmd.log" 2> /dev/null)"
state=
for _ in $(seq 1 120); do
  state=$(sinfo -h -n "$host" -o %T 2> /dev/null)
  [ "$state" = idle ] && break
  sleep 0.5
done
[ "$state" = idle ] || skip "the node does not come up (state '$state'): $(tail -5 "$lab/log/slurmd.log" "$lab/log/slurmctld.log" 2> /dev/null)"
echo "check_slurm: slurmctld and slurmd up, node $host idle with $cpus CPUs (slurm.conf in $lab/etc)"

# --- the project as a user has it: build/, jobs/, inputs/ -----------------------------------------------------
ln -s "$build" "$work/build"
ln -s "$src/jobs" "$work/jobs"
# an identification of about 50 s of CPU on one rank (64 copies of the chain's experiment; 32 copies took 25 s on an
# idle core, measured). SIGUSR1 is due 55 s before a time limit of one minute, at 5 s, but slurmctld checks time limits
# every 30 s, so it arrives up to about 35 s after the start (a 26 s job was never signalled): the job must outlast
# that. Ten copies were enough before the Runge-Kutta gradient became five times cheaper
cat > "$work/inputs/slurm_chain.yaml" << EOF
model: cart_pendulum_chain
p:
  cf: 8.5
  df: 0.15
  dc: 0.1
time_span: 0,100
ts:
  type: rk
  rk:
    type: tsit5
  adapt:
    type: basic
  rtol: 1e-9
  atol: 1e-9
tao:
  gatol: 1e-4
measurement: $chain_meas
cost: spectrum
band_hz: 1.25,1.45
identify: cf,df
experiments: $(seq -s, -f 'e%g' 0 63)
EOF
cat > "$work/inputs/slurm_scan.yaml" << EOF
model: cart_pendulum_chain
time_span: 0,5
measurement: $chain_5s_meas
identify: cf,df
EOF
grid=9,11,3,0.01,0.03,8
cd "$work" || fail "no $work"
reference=$(sbatch --parsable --ntasks=1 --time=10 jobs/identify.sbatch inputs/slurm_chain.yaml -o results/reference.h5) || fail "sbatch identify.sbatch refused"
limited=$(sbatch --parsable --ntasks=1 --time=1 --signal=USR1@55 jobs/identify.sbatch inputs/slurm_chain.yaml -o results/time_limited.h5) || fail "sbatch identify.sbatch with a time limit refused"
scan=$(sbatch --parsable --ntasks=1 jobs/scan_array.sbatch inputs/slurm_scan.yaml $grid) || fail "sbatch scan_array.sbatch refused"
echo "check_slurm: submitted identify.sbatch as jobs $reference (10 min) and $limited (1 min, SIGUSR1 55 s before), scan_array.sbatch as $scan"

start=$SECONDS
lifted=
while [ -n "$(squeue -h -j "$reference,$limited,$scan" 2> /dev/null)" ]; do
  [ $(( SECONDS - start )) -lt 900 ] || { squeue; fail "the jobs did not end within 15 minutes"; }
  # once requeued, the limited job has shown what is tested: it then runs to its end, instead of being stopped at
  # every 30 s tick of slurmctld (a loaded machine saw 12 requeues). It waits cred_expire + 1 s before it restarts, so
  # polling every second finds it pending, before a restart under the old limit
  if [ -z "$lifted" ] && [ "$(scontrol show job "$limited" | grep -o 'Restarts=[0-9]*' | cut -d= -f2)" -ge 1 ] 2> /dev/null; then
    scontrol update JobId="$limited" TimeLimit=10 || fail "cannot raise the time limit of the requeued job $limited"
    lifted=yes
    echo "check_slurm: job $limited requeued after $(( SECONDS - start )) s; its time limit raised to 10 min"
  fi
  [ $(( (SECONDS - start) % 15 )) -ne 0 ] || squeue -h -o "  %i %j %T %M %R" -j "$reference,$limited,$scan"
  sleep 1
done
echo "check_slurm: all jobs ended after $(( SECONDS - start )) s"
for job in $reference $limited; do
  echo "---- mbsid-identify-$job.out"
  grep -vE "^  (it |  )|^ +[a-z0-9]+ +=" "mbsid-identify-$job.out"
done

job_field() { scontrol show job "$1" | grep -o "$2=[^ ]*" | head -1 | cut -d= -f2; }
[ "$(job_field "$reference" JobState)" = COMPLETED ] || fail "job $reference ended $(job_field "$reference" JobState), exit code $(job_field "$reference" ExitCode)"
[ "$(job_field "$limited" JobState)" = COMPLETED ] || fail "job $limited ended $(job_field "$limited" JobState), exit code $(job_field "$limited" ExitCode)"
restarts=$(job_field "$limited" Restarts)
[ "${restarts:-0}" -ge 1 ] || fail "job $limited was never requeued: it did not reach its time limit, nothing was tested"
grep -q "stopped with checkpoint .*requeueing job $limited" "mbsid-identify-$limited.out" || fail "job $limited's log does not say it stopped and requeued itself"
grep -q "Restart from .*evaluations are replayed" "mbsid-identify-$limited.out" || fail "job $limited's log shows no restart from its checkpoint"
echo "check_slurm: job $limited stopped at its time limit and was requeued $restarts time(s)"
/usr/bin/python3 "$src/tests/compare_results.py" results/reference.h5 results/time_limited.h5 || fail "the requeued identification differs from the uninterrupted one"

tasks=$(scontrol show job "$scan" | grep -c "JobState=COMPLETED")
[ "$tasks" -eq 4 ] || fail "job array $scan: $tasks of 4 tasks completed: $(scontrol show job "$scan" | grep -o 'JobState=[^ ]*' | tr '\n' ' ')"
mpiexec -n 1 build/mbsid scan -options_file inputs/slurm_scan.yaml -scan_grid $grid -o results/scan_whole.h5 > results/scan_whole.log 2>&1 || { cat results/scan_whole.log; fail "the scan outside SLURM failed"; }
/usr/bin/python3 - << 'EOF' || fail "the job array's scan parts differ from the whole scan"
import h5py
import numpy as np

whole = h5py.File("results/scan_whole.h5", "r")
parts = [h5py.File(f"results/scan_part{k}.h5", "r") for k in range(4)]
J = np.concatenate([p["scan/J"][:] for p in parts])
y = np.concatenate([p["scan/y"][:] for p in parts])
assert J.shape == whole["scan/J"].shape, f"parts give {J.shape}, the whole scan {whole['scan/J'].shape}"
assert np.allclose(y, whole["scan/y"][:], rtol=1e-14, atol=0), "the rows' df values differ"
error = np.max(np.abs(J - whole["scan/J"][:]) / np.abs(whole["scan/J"][:]))
assert error < 1e-10, f"J differs by {error:.1e} (relative)"
print(f"check_slurm: the 4 array tasks' scan parts ({[p['scan/J'].shape[0] for p in parts]} rows) give the whole scan to {error:.1e}")
EOF
echo "check_slurm: both SLURM scripts ran on a real slurmctld/slurmd and gave the results of the runs outside SLURM"
