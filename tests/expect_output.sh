#!/usr/bin/env bash
# Runs a command that must succeed and print a line matching the pattern.
# Usage: expect_output.sh PATTERN COMMAND [ARGS...]
pattern=$1
shift
output=$("$@" 2>&1)
status=$?
printf '%s\n' "$output"
if [ "$status" -ne 0 ]; then
  echo "expect_output: the command failed with exit status $status" >&2
  exit 1
fi
if ! printf '%s\n' "$output" | grep -Eq -- "$pattern"; then
  echo "expect_output: no line matches: $pattern" >&2
  exit 1
fi
