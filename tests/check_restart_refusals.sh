#!/usr/bin/env bash
# A checkpoint is refused for another problem, with a message naming the difference, on every rank (no rank waits),
# leaving no memory allocated (the tests' PETSC_OPTIONS hold -malloc_dump).
# Usage: check_restart_refusals.sh NPROCS MBSID MEASUREMENT.h5
set -uo pipefail
np=$1
mbsid=$2
tests=$(dirname "${BASH_SOURCE[0]}")
tag=refusal_np$np
measurement=${tag}_meas.h5
checkpoint=${tag}.checkpoint.h5
fail() { echo "check_restart_refusals: $*" >&2; exit 1; }

cp "$3" "$measurement"
base=(identify -time_span 0,5 -p_cf 8.5 -p_df 0.05 -identify cf,df -measurement "$measurement" -tao_max_it 2)
mpiexec -n "$np" "$mbsid" "${base[@]}" -checkpoint "$checkpoint" -o ${tag}_result.h5 > ${tag}_base.log 2>&1 || { cat ${tag}_base.log; fail "the run that writes the checkpoint failed"; }

edit() { /usr/bin/python3 "$tests/edit_h5.py" "$checkpoint" "$1" "${@:2}" > /dev/null || fail "edit_h5.py $*"; }
edit ${tag}_model.h5 attr model bushing2
edit ${tag}_J0.h5 set "/checkpoint/J0[0]" 1e-3
edit ${tag}_path.h5 set_log "/evaluations/x[0]" 1.5
edit ${tag}_gradient.h5 set "/evaluations/gradient[-1]" 0.5 # the last: replayed, TAO would leave the path unseen
edit ${tag}_fingerprint.h5 attr fingerprint_options "-p_cf"
head -c 2000 "$checkpoint" > ${tag}_truncated.h5
# the chain described in a model file: a checkpoint of it, whose model file is then edited (without the confidence
# analysis, a third of that run; the case needs only the checkpoint and its input files)
cp "$tests/../inputs/models/cart_pendulum_chain.yaml" ${tag}_model.yaml
described=(-model_file ${tag}_model.yaml -measurement_allow_model_mismatch -tao_max_it 1 -confidence false)
mpiexec -n "$np" "$mbsid" "${base[@]}" "${described[@]}" -checkpoint ${tag}_described.checkpoint.h5 -o ${tag}_described.h5 > ${tag}_described.log 2>&1 || { cat ${tag}_described.log; fail "the run that writes the described model's checkpoint failed"; }

# name | extra options | message that must be printed
cases=(
  "option value|-p_df 0.06 -restart $checkpoint|was made for another problem: option -p_df: the checkpoint has 0.05, this run 0.06"
  "option added|-ts_rtol 1e-7 -restart $checkpoint|option -ts_rtol 1e-7 is in this run only"
  "parameters|-identify cf -restart $checkpoint|identifies cf,df; this run identifies cf$"
  "model|-restart ${tag}_model.h5|is of model bushing2; this run identifies model cart_pendulum_chain"
  "start cost|-restart ${tag}_J0.h5|J at the start is 0.001 there, [0-9.e-]+ in this run"
  "damaged fingerprint|-restart ${tag}_fingerprint.h5|option -p_cf: the checkpoint has , this run 8.5"
  "path|-restart ${tag}_path.h5|left its path at evaluation 0: TAO asks for x\[0\] = 1, the checkpoint has 1.5"
  "edited log|-restart ${tag}_gradient.h5|the log /evaluations does not match its checksum \(log_checksum [0-9a-f]{16}, the log gives [0-9a-f]{16}\): the file was edited or damaged"
  "not a checkpoint|-restart ${tag}_result.h5|is not an identification checkpoint \(no attribute checkpoint_format\)"
  "missing|-restart ${tag}_missing.h5|Cannot open the checkpoint '${tag}_missing.h5' \(-restart\)"
  "truncated|-restart ${tag}_truncated.h5|Cannot open the checkpoint '${tag}_truncated.h5' \(-restart\): missing, unreadable or not HDF5"
  "live writer|-restart $checkpoint|Checkpoint '$checkpoint' is still being written by process [0-9]+ \('$checkpoint.tmp.[0-9]+'\), a rank of the run that was stopped: wait until that run has ended"
  "measurement changed|-restart $checkpoint|input file -measurement: the checkpoint has ${tag}_meas.h5 \(checksum [0-9a-f]+\), this run ${tag}_meas.h5 \(checksum [0-9a-f]+\)"
  "plane|-restart ${tag}_described.checkpoint.h5 ${described[*]} -model_planar none|Checkpoint '${tag}_described.checkpoint.h5' ran the model file with planar: z \(attribute planar\); this run has planar: none"
  "model file changed|-restart ${tag}_described.checkpoint.h5 ${described[*]}|input file -model_file: the checkpoint has ${tag}_model.yaml \(checksum [0-9a-f]+\), this run ${tag}_model.yaml \(checksum [0-9a-f]+\)"
)
for case in "${cases[@]}"; do
  IFS='|' read -r name options message <<< "$case"
  if [ "$name" = "measurement changed" ]; then
    /usr/bin/python3 "$tests/edit_h5.py" "$3" "$measurement" scale /spectrum/amplitude 1.001 > /dev/null || fail "cannot edit $measurement"
  fi
  if [ "$name" = "model file changed" ]; then
    echo "# edited after the checkpoint" >> ${tag}_model.yaml
  fi
  if [ "$name" = "live writer" ]; then # a stopped mbsid process stands for a rank of a killed run still writing
    "$mbsid" simulate -time_span 0,1e6 > /dev/null 2>&1 &
    writer=$!
    until [ "$(readlink /proc/$writer/exe)" = "$(readlink -f "$mbsid")" ]; do sleep 0.02; done
    kill -STOP $writer
    touch "$checkpoint.tmp.$writer"
  fi
  # shellcheck disable=SC2086 # the options are words
  output=$(timeout 60 mpiexec -n "$np" "$mbsid" "${base[@]}" $options -o ${tag}_refused.h5 2>&1)
  status=$?
  [ $status -ne 0 ] || { echo "$output"; fail "$name: the restart was accepted"; }
  [ $status -ne 124 ] || { echo "$output"; fail "$name: no exit within 60 s (a rank waiting?)"; }
  grep -Eq -- "$message" <<< "$output" || { echo "$output"; fail "$name: exit status $status, but no line matches: $message"; }
  ! grep -Eq -- "^\[ *[0-9]+\] [0-9]+ bytes " <<< "$output" || { echo "$output"; fail "$name: memory left allocated (-malloc_dump)"; }
  [ ! -e ${tag}_refused.h5 ] || fail "$name: a result was written"
  if [ "$name" = "model file changed" ]; then
    echo "# edited after the checkpoint" >> ${tag}_model.yaml
  fi
  if [ "$name" = "live writer" ]; then
    [ -e "$checkpoint.tmp.$writer" ] || fail "$name: the temporary file of a live writer was removed"
    kill -KILL $writer
    wait $writer 2> /dev/null
    rm -f "$checkpoint.tmp.$writer"
  fi
  echo "ok  $name: $(grep -Eo -- "$message" <<< "$output" | head -1)"
done
# Stopping criteria do not change TAO's path, only where it ends: a run that reached -tao_max_it continues from its
# checkpoint with a higher limit and ends bitwise as a run made with that limit from the start
cp "$3" "$measurement"
mpiexec -n "$np" "$mbsid" "${base[@]}" -tao_max_it 4 -o ${tag}_limit4.h5 > ${tag}_limit4.log 2>&1 || { cat ${tag}_limit4.log; fail "the run to 4 iterations failed"; }
mpiexec -n "$np" "$mbsid" "${base[@]}" -tao_max_it 4 -restart "$checkpoint" -o ${tag}_raised.h5 > ${tag}_raised.log 2>&1 || { cat ${tag}_raised.log; fail "the restart with a raised -tao_max_it was refused or failed"; }
/usr/bin/python3 "$tests/compare_results.py" ${tag}_limit4.h5 ${tag}_raised.h5 || fail "the restart with a raised -tao_max_it differs from the run made with that limit"
echo "check_restart_refusals: ${#cases[@]} refusals with their messages on $np rank(s); a raised -tao_max_it continues"
