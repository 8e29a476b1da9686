#!/usr/bin/env bash
# The check of the manual's examples is itself checked: on pages with a misspelt option (which mbsid would run
# without -unused_options_error), with a failing command, and with a refusal (`$ ! ...`) that fails by a misspelt
# option, check_doc_examples.py must fail and name the page and the line where the command starts; a block that is
# not `console` is not run; links to no file or no heading are named too.
# Usage: check_doc_examples_catches.sh CHECK_DOC_EXAMPLES_PY SOURCE_DIR BUILD_DIR
set -uo pipefail
check=$1 source=$2 build=$3
pages="$source/tests/docs"
fail() { echo "check_doc_examples_catches: $*" >&2; exit 1; }

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
(cd "$work" && "$build/mbsid" simulate -model oscillator2 -time_span 0,0.1 -o x.h5 -noise_sigmaa 1e-5 > /dev/null 2>&1) ||
  fail "the misspelt option's command fails even without -unused_options_error: the page does not test the check"

output=$(/usr/bin/python3 "$check" --source "$source" --build "$build" "$pages/misspelt_option.md" 2>&1)
status=$?
echo "$output" | tail -5
[ $status -ne 0 ] || fail "a misspelt option was not caught"
echo "$output" | grep -q "^tests/docs/misspelt_option.md:12: the example failed" || fail "the misspelt option is not named by page and line"
echo "$output" | grep -q "Unused option -noise_sigmaa" || fail "the output does not name the misspelt option"
echo "$output" | grep -q "misspelt_option.md:7" && fail "a command of a sh block was run"
echo "$output" | grep -q "^tests/docs/misspelt_option.md:15: the link no_such_page.md names no file" || fail "a link to no file is not named"
echo "$output" | grep -q "^tests/docs/misspelt_option.md:15: the link misspelt_option.md#no-such-heading names no heading" ||
  fail "a link to no heading is not named"

output=$(/usr/bin/python3 "$check" --source "$source" --build "$build" "$pages/failing_command.md" 2>&1)
status=$?
echo "$output" | tail -5
[ $status -ne 0 ] || fail "a failing command was not caught"
echo "$output" | grep -q "^tests/docs/failing_command.md:4: the example failed (exit status [1-9]" || fail "the failing command is not named by page and line"
output=$(/usr/bin/python3 "$check" --source "$source" --build "$build" "$pages/expected_failure.md" 2>&1)
status=$?
echo "$output" | tail -3
[ $status -ne 0 ] || fail "a refusal example that fails by a misspelt option was not caught"
echo "$output" | grep -q "^tests/docs/expected_failure.md:4: the example failed (exit status 0, but mbsid names an option it did not read" ||
  fail "the refusal example with a misspelt option is not named by page and line"
echo "check_doc_examples_catches: every fault caught and named"
