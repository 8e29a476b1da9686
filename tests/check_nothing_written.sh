#!/usr/bin/env bash
# A refused run writes nothing: the command must fail with a line matching PATTERN and leave no OUTPUT file.
# Usage: check_nothing_written.sh OUTPUT PATTERN COMMAND [ARGS...]
output=$1
pattern=$2
shift 2
rm -f "$output"
bash "$(dirname "${BASH_SOURCE[0]}")/expect.sh" fail "$pattern" "$@" || exit 1
if [ -e "$output" ]; then
  echo "check_nothing_written: the refused run wrote $output" >&2
  exit 1
fi
echo "check_nothing_written: refused, and $output not written"
