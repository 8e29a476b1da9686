#!/usr/bin/env bash
# Runs a gradient check (COMMAND, which must take -info) and asserts that it passed and that every adjoint sweep's KLU
# (MbsPCSetKLUReuse, reported by -info :pc) factored at most FRACTION of the Jacobians it met and refined the rest.
# Usage: check_klu_reuse.sh FRACTION COMMAND [ARGS...]
fraction=$1
shift
output=$("$@" -info :pc 2>&1)
status=$?
printf '%s\n' "$output" | grep -v '^\[0\] <pc> P'
[ "$status" -eq 0 ] || { echo "check_klu_reuse: the command failed with exit status $status" >&2; exit 1; }
printf '%s\n' "$output" | grep -q "Gradient check passed" || { echo "check_klu_reuse: no 'Gradient check passed'" >&2; exit 1; }
printf '%s\n' "$output" | awk -v fraction="$fraction" '
  /KLU reused:/ {
    for (i = 1; i <= NF; i++) {
      if ($(i + 1) == "matrices,") matrices = $i
      if ($(i + 1) == "factored;") factored = $i
      if ($(i + 1) == "solves") solves = $i
      if ($(i + 1) == "corrections") corrections = $i
    }
    sweeps++
    printf "adjoint sweep %d: %d Jacobians, %d factored (limit %g), %d solves refined, %.2f corrections each\n", sweeps, matrices, factored, fraction * matrices, solves, solves ? corrections / solves : 0
    if (matrices < 10 || factored > fraction * matrices || solves + factored < matrices) bad++
  }
  END {
    if (!sweeps) { print "check_klu_reuse: no adjoint sweep reported its KLU reuse" > "/dev/stderr"; exit 1 }
    if (bad) { print "check_klu_reuse: a sweep factored too many of its Jacobians" > "/dev/stderr"; exit 1 }
    print "KLU reuse as required"
  }'
