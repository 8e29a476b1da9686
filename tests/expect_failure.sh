#!/usr/bin/env bash
# Runs a command that must fail: it must exit non-zero and print a line matching the pattern.
# Usage: expect_failure.sh PATTERN COMMAND [ARGS...]
pattern=$1
shift
output=$("$@" 2>&1)
status=$?
printf '%s\n' "$output"
if [ "$status" -eq 0 ]; then
  echo "expect_failure: the command succeeded, but it must fail" >&2
  exit 1
fi
if ! printf '%s\n' "$output" | grep -Eq -- "$pattern"; then
  echo "expect_failure: exit status $status, but no line matches: $pattern" >&2
  exit 1
fi
echo "expect_failure: failed as expected (exit status $status)"
