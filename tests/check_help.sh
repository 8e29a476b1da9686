#!/usr/bin/env bash
# Runs "COMMAND -help" and checks that it lists each given option once, and no option twice.
# Usage: check_help.sh "-a -b" COMMAND [ARGS...]
options=$1
shift
output=$("$@" -help 2>&1)
status=$?
listed=$(printf '%s\n' "$output" | grep -o '^  -[A-Za-z0-9_]*' | sed 's/^  //')
fault=0
[ "$status" -eq 0 ] || { echo "check_help: -help exited with status $status" >&2; fault=1; }
for option in $options; do
  count=$(printf '%s\n' "$listed" | grep -cx -- "$option")
  [ "$count" -eq 1 ] || { echo "check_help: $option is listed $count times" >&2; fault=1; }
done
duplicates=$(printf '%s\n' "$listed" | sort | uniq -d | tr '\n' ' ')
[ -z "$duplicates" ] || { echo "check_help: listed more than once: $duplicates" >&2; fault=1; }
[ "$fault" -eq 0 ] && echo "check_help: $(printf '%s\n' "$listed" | wc -l) options listed, each once, among them: $options"
exit "$fault"
