#!/usr/bin/env bash
# Runs a command that must fail and checks that PETSc's "Option left" list names exactly the given options: the ones
# nothing read, not the ones the program used before the error.
# Usage: options_left.sh "-a -b" COMMAND [ARGS...]
expected=$(printf '%s\n' $1 | sort)
shift
output=$("$@" 2>&1)
status=$?
printf '%s\n' "$output"
left=$(printf '%s\n' "$output" | sed -n 's/.*Option left: name:\(-[^ ]*\).*/\1/p' | sort -u)
if [ "$status" -eq 0 ]; then
  echo "options_left: the command succeeded, but it must fail" >&2
  exit 1
fi
if [ "$left" != "$expected" ]; then
  echo "options_left: PETSc listed as unused: [${left//$'\n'/ }], expected: [${expected//$'\n'/ }]" >&2
  exit 1
fi
echo "options_left: exit status $status, unused options listed: ${left//$'\n'/ }"
