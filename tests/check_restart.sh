#!/usr/bin/env bash
# An identification killed at a random iteration and resumed from its checkpoint ends bitwise as an uninterrupted run.
# Usage: check_restart.sh NPROCS SIGNALS EXPECT MBSID IDENTIFY_ARGS...
#   SIGNALS: comma-separated, each one run, stopped and resumed:
#     KILL  SIGKILL to every process (nothing can be saved: the last checkpoint of an accepted iteration is used)
#     TERM  SIGTERM to each rank, as SLURM sends it (the run writes its checkpoint and exits with status 3)
#     USR1  SIGUSR1 to mpiexec, which passes it to the ranks (SLURM's --signal=USR1@SECONDS)
#   EXPECT: comma-separated NAME=VALUE:RTOL that the resumed runs' parameters must meet (check_result.py): the truth
#     of the measurement, so that a restart that replays a wrong log into a wrong optimum cannot pass by equality alone
# The iteration at which the signal comes is drawn at random from the first half (RANDOM_SEED fixes it) and printed. The stopped run
# writes into an existing result file, which must stay as it was: results are never overwritten in place.
set -uo pipefail
np=$1
IFS=, read -ra signals <<< "$2"
IFS=, read -ra expect <<< "$3"
mbsid=$4
shift 4
RANDOM=${RANDOM_SEED:-$$}
run=(mpiexec -n "$np" "$mbsid" "$@")
tag=restart_np$np
fail() { echo "check_restart: $*" >&2; exit 1; }

rm -f "$tag"_*
"${run[@]}" -o "$tag"_reference.h5 > "$tag"_reference.log 2>&1 || { cat "$tag"_reference.log; fail "the uninterrupted run failed"; }
iterations=$(grep -c '^  it ' "$tag"_reference.log)
[ "$iterations" -ge 5 ] || fail "the reference run took only $iterations iterations: too few to stop it in the middle"

for signal in "${signals[@]}"; do
  # in the first half: the signal (forwarded by mpiexec for USR1) must arrive while iterations remain, and on an idle
  # machine an iteration of this run takes some 40 ms (stopped 2 iterations before the end, the run had finished)
  stop_at=$(( 1 + RANDOM % ((iterations - 1) / 2) ))
  checkpoint=${tag}_$signal.checkpoint.h5
  log=${tag}_$signal.log
  echo "== SIG$signal at iteration $stop_at of $(( iterations - 1 )) on $np rank(s)"
  cp "$tag"_reference.h5 "$tag"_$signal.h5
  setsid "${run[@]}" -checkpoint "$checkpoint" -o "$tag"_$signal.h5 > "$log" 2>&1 &
  pid=$! # setsid execs mpiexec: the pid of mpiexec and of its process group
  until grep -Eq "^  it +$stop_at " "$log"; do
    kill -0 $pid 2> /dev/null || { cat "$log"; fail "the run ended before iteration $stop_at"; }
    sleep 0.02
  done
  case $signal in
    KILL) pkill -KILL -s $pid ;; # Open MPI puts each rank in a process group of its own, but not in a session of its own
    TERM) pkill -TERM -P $pid ;;
    USR1) kill -USR1 $pid ;;
    *) fail "unknown signal $signal" ;;
  esac
  wait $pid
  status=$?
  # the ranks are not children of this shell: wait until none of the job's processes runs (zombies cannot write)
  for (( tries = 0; tries < 600; tries++ )); do
    ps -o stat= -s $pid | grep -qv '^Z' || break
    sleep 0.05
  done
  ! ps -o stat= -s $pid | grep -qv '^Z' || { ps -o pid,stat,args -s $pid; fail "processes of the job still run 30 s after SIG$signal"; }
  cat "$log"
  ! grep -q "^Wrote" "$log" || fail "the run finished before SIG$signal arrived: nothing was tested"
  cmp -s "$tag"_reference.h5 "$tag"_$signal.h5 || fail "the stopped run changed the existing result file ${tag}_$signal.h5"
  [ -f "$checkpoint" ] || fail "no checkpoint $checkpoint after SIG$signal"
  # what SIGKILL leaves when it comes while a checkpoint is written: -restart removes it, since its writer is gone
  dead_writer=$(bash -c 'echo $$')
  echo "partial" > "$checkpoint.tmp.$dead_writer"
  if [ "$signal" != KILL ]; then
    [ "$status" -eq 3 ] || fail "after SIG$signal the exit status is $status, expected 3"
    grep -q "Stopped after .* checkpoint '$checkpoint' written" "$log" || fail "after SIG$signal no line says the checkpoint was written"
    ! grep -Eq "PETSC ERROR|\[ *[0-9]+\] [0-9]+ bytes " "$log" || fail "the run stopped by SIG$signal reported an error or a leak"
  fi
  "${run[@]}" -restart "$checkpoint" -o "$tag"_$signal.h5 > "$log.resumed" 2>&1 || { cat "$log.resumed"; fail "the resumed run failed"; }
  grep -E "Restart|TAO|Removed" "$log.resumed"
  grep -q "^Removed '$checkpoint.tmp.$dead_writer': a temporary file of process $dead_writer, which ended" "$log.resumed" || fail "the resumed run did not remove and name the temporary checkpoint of process $dead_writer"
  for left in "$checkpoint".tmp.* "$tag"_$signal.h5.tmp.*; do
    [ ! -e "$left" ] || fail "$left is left after the resumed run"
  done
  /usr/bin/python3 "$(dirname "${BASH_SOURCE[0]}")/compare_results.py" "$tag"_reference.h5 "$tag"_$signal.h5 || fail "the resumed run after SIG$signal differs from the uninterrupted one"
  /usr/bin/python3 "$(dirname "${BASH_SOURCE[0]}")/check_result.py" "$tag"_$signal.h5 "${expect[@]}" || fail "the resumed run after SIG$signal misses the truth"
done
echo "check_restart: resumed runs equal the uninterrupted one bitwise on $np rank(s)"
