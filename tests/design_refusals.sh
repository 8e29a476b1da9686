#!/usr/bin/env bash
# mbsid design refuses a bad option before its first solve (no "Evaluating input" line, no -o file), with a message
# naming the option, on every rank (no rank waits), leaving no memory allocated (PETSC_OPTIONS holds -malloc_dump).
# Only an overflow of the cost (-design_force_max) shows in a solve, and still names its option.
# Usage: design_refusals.sh NPROCS MBSID MPIEXEC   (run in a scratch directory)
set -uo pipefail
np=$1
mbsid=$2
mpiexec=$3
fail() { echo "design_refusals: $*" >&2; exit 1; }
work=design_refusals_np$np
rm -rf "$work" && mkdir -p "$work/read_only" && cd "$work" || fail "cannot make $work"
# a read-only directory: root writes into any directory, but not into a read-only file system
if [ "$(id -u)" -eq 0 ] && mount -t tmpfs -o ro,size=16k mbsid_read_only read_only 2> /dev/null; then
  trap 'umount read_only 2> /dev/null || umount -l read_only' EXIT
  trap 'exit 1' INT TERM HUP
else
  chmod 555 read_only
fi

# name | extra options | message that must be printed | "solve" when the refusal may come in the first solve
cases=(
  "csv directory|-design_max_it 1 -design_csv no_such_dir/x.csv|Option -design_csv no_such_dir/x.csv: directory 'no_such_dir' does not exist or is not writable"
  "csv read-only directory|-design_max_it 1 -design_csv read_only/x.csv|Option -design_csv read_only/x.csv: directory 'read_only' does not exist or is not writable"
  "csv without optimisation|-design_max_it 0 -design_csv x.csv|-design_csv x.csv writes the optimal input, which only an optimisation computes: give -design_max_it > 0"
  "csv with gradcheck|-design_gradcheck -design_csv x.csv|-design_csv x.csv writes the optimal input, which only an optimisation computes"
  "endless span|-time_span 0,1e6|-time_span \[0., 1e\+06\] s in steps of -ts_dt 0.001 s is 1e\+09 steps, more than the 1e\+07 one solve may take"
  "states outside|-design_print_states 0.5,5|-design_print_states: time 5. s lies outside the design's interval \[0., 1.\] s"
  "states decreasing|-design_print_states 0.5,0.2|-design_print_states: time 0.2 s follows 0.5 s; the times must increase"
  "states between steps|-design_print_states 0.1234|-design_print_states: time 0.1234 s is not a step point of the fixed steps -ts_dt 0.001 s"
  "states adaptive|-ts_type rk -ts_adapt_type basic -design_print_states 0.5|-design_print_states: states are kept at step points, which need fixed steps \(-ts_adapt_type none, not basic\)"
  "sample spacing|-design_error 1 -design_sample_dt 0.0015|-design_sample_dt: time 0.0015 s is not a step point of the fixed steps -ts_dt 0.001 s"
  "iterations beyond integers|-design_max_it 1000000000000|Option -design_max_it 1000000000000: must be an integer in \[0, [0-9]+\]"
  "nodes beyond integers|-design_nodes 4294967396|Option -design_nodes 4294967396: must be an integer in \[2, 100000\]"
  "parameter twice|-design_parameters c2,c2 -design_max_it 3|-design_parameters names c2 twice; give each parameter once"
  "force overflow|-design_force_max 1e300 -design_max_it 3|the response to forces up to -design_force_max 1e\+300 N overflows; lower -design_force_max|solve"
)
failures=0
for case in "${cases[@]}"; do
  IFS='|' read -r name options message after_solve <<< "$case"
  read -r -a args <<< "$options"
  rm -f out.h5 x.csv
  # a run that does not end within 60 s (today: -time_span 0,1e6) counts as not refused (exit status 124)
  if [ "$np" -eq 1 ]; then runner=(timeout 60 "$mbsid"); else runner=(timeout 60 "$mpiexec" -n "$np" "$mbsid"); fi
  "${runner[@]}" design -model oscillator2 -design_error 0 "${args[@]}" -o out.h5 > run.log 2>&1
  status=$?
  if [ "$status" -eq 0 ] || [ "$status" -ge 128 ]; then
    echo "FAIL $name: exit status $status"
  elif ! grep -Eq -- "$message" run.log; then
    echo "FAIL $name: no line matches: $message"; grep -m2 "ERROR: [-A-Z]" run.log | grep -v "Error Message"
  elif [ -z "$after_solve" ] && grep -q "Evaluating input" run.log; then
    echo "FAIL $name: refused only after a solve"
  elif [ -e out.h5 ] || [ -e x.csv ] || [ -n "$(ls -A | grep '\.tmp\.')" ]; then
    echo "FAIL $name: left $(ls -A | grep -v '^run.log$' | tr '\n' ' ')"
  elif grep -Eq "\[ *[0-9]+\] [0-9]+ bytes " run.log; then
    echo "FAIL $name: memory left allocated"
  else
    echo "ok   $name: exit status $status"
    continue
  fi
  failures=$((failures + 1))
done
[ "$failures" -eq 0 ] || fail "$failures of ${#cases[@]} refusals failed on $np rank(s)"
echo "design_refusals: every bad option refused as required on $np rank(s)"
