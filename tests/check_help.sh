#!/usr/bin/env bash
# Runs "COMMAND -help" and checks that it lists each given option once, no option twice, and no default for an
# option that has none.
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
# An option without a default shows <none>: PETSc 3.18 shows the first element of an empty array, an unset <0.> or
# garbage such as <5.9e-323> (options.c, MbsOptionsRealArray)
no_default=$(printf '%s\n' "$output" | grep -E '^  -[A-Za-z0-9_]+ <' | grep -v -E '^  -[A-Za-z0-9_]+ <none>:' |
  grep -E 'default: none|^  -[A-Za-z0-9_]+ <[^>]*[0-9]e-3[0-9][0-9]' | sed 's/>:.*/>/' | tr '\n' ' ')
[ -z "$no_default" ] || { echo "check_help: a default where there is none: $no_default" >&2; fault=1; }
duplicates=$(printf '%s\n' "$listed" | sort | uniq -d | tr '\n' ' ')
[ -z "$duplicates" ] || { echo "check_help: listed more than once: $duplicates" >&2; fault=1; }
[ "$fault" -eq 0 ] && echo "check_help: $(printf '%s\n' "$listed" | wc -l) options listed, each once, among them: $options"
exit "$fault"
