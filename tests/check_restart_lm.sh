#!/usr/bin/env bash
# Levenberg-Marquardt (-tao_type mbslm) stopped by SIGTERM and resumed from its checkpoint: the stop is honoured within
# one evaluation, the exit is that of the other types (status 3, the checkpoint written), and the restart continues from
# the saved state, solving nothing it had solved (neither an iteration nor the Jacobian at the saved one), to the
# uninterrupted run's iterates bitwise and to the truth of the measurement.
# Usage: check_restart_lm.sh NPROCS MBSID EXPECT SIMULATE_ARGS... -- IDENTIFY_ARGS...
#   EXPECT: comma-separated NAME=VALUE:RTOL of the truth (check_result.py)
#   SIMULATE_ARGS: the virtual measurement, written to restart_lm_meas.h5 (given to identify as -measurement)
# Deterministic stop: the ranks are paused (SIGSTOP) after iteration 2 is printed, SIGTERM queued, then continued
# (SIGCONT). The evaluation running at the pause is finished and the next one is not started, so the run stops after
# the last iteration printed at the pause or, when that evaluation was the next iteration's Jacobian, after that one.
set -uo pipefail
np=$1
mbsid=$2
IFS=, read -ra expect <<< "$3"
shift 3
simulate=()
while [ "$1" != "--" ]; do simulate+=("$1"); shift; done
shift
tag=restart_lm_np$np
run=(mpiexec -n "$np" "$mbsid" "$@" -measurement ${tag}_meas.h5)
checkpoint=${tag}.checkpoint.h5
fail() { echo "check_restart_lm: $*" >&2; exit 1; }
solves() { sed -n 's/^TAO converged: .* after [0-9]* iterations, \([0-9]*\) forward solves.*/\1/p' "$1"; }

rm -f "$tag"_*
"$mbsid" "${simulate[@]}" -save_measurement ${tag}_meas.h5 -o ${tag}_truth.h5 > ${tag}_truth.log 2>&1 || { cat ${tag}_truth.log; fail "the virtual measurement failed"; }
"${run[@]}" -o ${tag}_reference.h5 > ${tag}_reference.log 2>&1 || { cat ${tag}_reference.log; fail "the uninterrupted run failed"; }
iterations=$(( $(grep -c '^  it ' ${tag}_reference.log) - 1 ))
solves_reference=$(solves ${tag}_reference.log)
# every iteration of this run takes one trial step: J0, the Jacobian at the start, a trial and a Jacobian per
# iteration and the final J; the count of the restart below rests on it
[ "$solves_reference" = $(( 3 + 2 * iterations )) ] || fail "the reference took $solves_reference forward solves in $iterations iterations, not 3 + 2 x iterations: choose a run with one trial per iteration"
[ "$iterations" -ge 5 ] || fail "the reference took only $iterations iterations: too few to stop it in the middle"

"${run[@]}" -checkpoint $checkpoint -o ${tag}_stopped.h5 > ${tag}_stopped.log 2>&1 &
pid=$! # mpiexec; the ranks are its children
until grep -Eq '^  it +2 ' ${tag}_stopped.log; do
  kill -0 $pid 2> /dev/null || { cat ${tag}_stopped.log; fail "the run ended before iteration 2"; }
  sleep 0.01
done
pkill -STOP -P $pid
seen=$(( $(grep -c '^  it ' ${tag}_stopped.log) - 1 ))
pkill -TERM -P $pid # to each rank, as SLURM sends it
pkill -CONT -P $pid
wait $pid
status=$?
cat ${tag}_stopped.log
[ "$status" -eq 3 ] || fail "after SIGTERM the exit status is $status, expected 3 (as for the quasi-Newton types)"
! grep -Eq "PETSC ERROR|\[ *[0-9]+\] [0-9]+ bytes " ${tag}_stopped.log || fail "the stopped run reported an error or a leak"
[ ! -e ${tag}_stopped.h5 ] || fail "the stopped run wrote a result file"
stopped_at=$(sed -n "s/^Stopped after \([0-9]*\) iterations and [0-9]* forward solves; checkpoint '$checkpoint' written with the state of iteration \1\. .*/\1/p" ${tag}_stopped.log)
[ -n "$stopped_at" ] && [ -f $checkpoint ] || fail "no line says the checkpoint was written with the state of the last iteration"
[ "$stopped_at" -le $(( seen + 1 )) ] || fail "SIGTERM came after iteration $seen, the run stopped after iteration $stopped_at: more than one evaluation later"
[ "$stopped_at" -lt "$iterations" ] || fail "the run was not stopped early: $stopped_at of $iterations iterations"
echo "SIGTERM after iteration $seen was printed: stopped after iteration $stopped_at of $iterations"

"${run[@]}" -restart $checkpoint -o ${tag}_restarted.h5 > ${tag}_restarted.log 2>&1 || { cat ${tag}_restarted.log; fail "the resumed run failed"; }
grep -E "Restart|TAO" ${tag}_restarted.log
grep -q "^Restart from '$checkpoint': Levenberg-Marquardt continues after iteration $stopped_at " ${tag}_restarted.log || fail "the resumed run does not say it continues after iteration $stopped_at"
solves_restarted=$(solves ${tag}_restarted.log)
# the reference's solves less those the checkpoint holds: the Jacobian at the start and 2 per iteration up to it
[ "$solves_restarted" = $(( solves_reference - 1 - 2 * stopped_at )) ] || fail "the resumed run took $solves_restarted forward solves, expected $(( solves_reference - 1 - 2 * stopped_at )) (the reference's $solves_reference less the $(( 1 + 2 * stopped_at )) up to iteration $stopped_at): it solved again what the checkpoint holds"
/usr/bin/python3 - ${tag}_reference.h5 ${tag}_restarted.h5 <<'EOF' || fail "the resumed run differs from the uninterrupted one"
import sys
import h5py
import numpy as np
a, b = (h5py.File(path, "r") for path in sys.argv[1:])
same = True
for dataset in ("iterations/J", "iterations/params", "iterations/gnorm", "parameters/final"):
    ok = a[dataset].shape == b[dataset].shape and np.array_equal(a[dataset][:], b[dataset][:])
    print(("ok  " if ok else "FAIL"), dataset, "equal bitwise" if ok else "differ")
    same &= ok
sys.exit(0 if same else 1)
EOF
/usr/bin/python3 "$(dirname "${BASH_SOURCE[0]}")/check_result.py" ${tag}_restarted.h5 "${expect[@]}" || fail "the resumed run misses the truth"
# the state is covered by the checkpoint's checksum: an edited lambda is refused
/usr/bin/python3 "$(dirname "${BASH_SOURCE[0]}")/edit_h5.py" $checkpoint ${tag}_edited.h5 set "/checkpoint/state[-1]" 0.5 > /dev/null || fail "edit_h5.py failed"
"${run[@]}" -restart ${tag}_edited.h5 -o ${tag}_edited_result.h5 > ${tag}_edited.log 2>&1 && fail "the restart from an edited state was not refused"
grep -q "the state /checkpoint/state does not match its checksum" ${tag}_edited.log || { cat ${tag}_edited.log; fail "the restart from an edited state was not refused by its checksum"; }
echo "check_restart_lm: stopped after iteration $stopped_at, resumed with $solves_restarted of the $solves_reference forward solves, equal to the uninterrupted run bitwise"
