#!/usr/bin/env bash
# Runs a command and checks its outcome and output.
# Usage: expect.sh fail|succeed PATTERN COMMAND [ARGS...]
#   fail:    the command must exit non-zero and print a line matching PATTERN
#   succeed: the command must exit zero and print a line matching PATTERN
outcome=$1
pattern=$2
shift 2
output=$("$@" 2>&1)
status=$?
printf '%s\n' "$output"
if [ "$outcome" = fail ] && [ "$status" -eq 0 ]; then
  echo "expect: the command succeeded, but it must fail" >&2
  exit 1
fi
if [ "$outcome" = succeed ] && [ "$status" -ne 0 ]; then
  echo "expect: the command failed with exit status $status" >&2
  exit 1
fi
if ! printf '%s\n' "$output" | grep -Eq -- "$pattern"; then
  echo "expect: exit status $status, but no line matches: $pattern" >&2
  exit 1
fi
echo "expect: exit status $status and the expected output, as required"
