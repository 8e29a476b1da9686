#!/usr/bin/env bash
# An output never replaces an input, nor another output (issue 36, item 1): every command refuses, before any work,
# an output (-o, -save_measurement, -checkpoint, -design_csv) that names a file it reads (-measurement, -tacho, -csv,
# -input_file, -restart, -controller, -options_file) or another output, by any path (./x, dir/../x, a hard link).
# Each refusal exits non-zero with its message, and leaves the directory as it was: every file unchanged, none added.
# Usage: check_outputs_not_inputs.sh MBSID SOURCE_DIR MEASUREMENT.h5 CONTROLLER.so
set -uo pipefail
mbsid=$(realpath "$1")
tests=$(realpath "$2")
measurement=$(realpath "$3")
controller=$(realpath "$4")
fail() { echo "check_outputs_not_inputs: $*" >&2; exit 1; }

rm -rf outputs_not_inputs && mkdir outputs_not_inputs && cd outputs_not_inputs || fail "cannot make its directory"
cp "$measurement" m.h5 && cp "$measurement" ck.h5 && cp "$controller" controller.so && mkdir sub || fail "cannot copy the inputs"
cp "$tests/bad_inputs/csv/signal_good.csv" self.csv
printf 'time\n0.01\n0.02\n0.03\n' > pulses.csv
printf 'time_span: 0,5\n' > opts.yaml
printf '0,0\n1,0.5\n2,0\n' > force.csv
"$mbsid" import -kind signal -units mrad -csv self.csv -o sig.h5 > /dev/null || fail "cannot import the signal"
"$mbsid" import -kind tacho -csv pulses.csv -o tacho.h5 > /dev/null || fail "cannot import the pulses"
ln sig.h5 hardlink.h5 || fail "cannot link"

# name | arguments | message that must be printed
identify=(identify -time_span 0,5 -measurement m.h5)
cases=(
  "track's raw signal|track -measurement sig.h5 -o sig.h5|-o sig\.h5 is the same file as the input -measurement sig\.h5: mbsid never writes over a file it reads; give -o another file"
  "track's pulses by ./|track -measurement sig.h5 -tacho tacho.h5 -o ./tacho.h5|-o \./tacho\.h5 is the same file as the input -tacho tacho\.h5"
  "a hard link|track -measurement sig.h5 -o hardlink.h5|-o hardlink\.h5 is the same file as the input -measurement sig\.h5"
  "dir/..|track -measurement sig.h5 -o sub/../sig.h5|-o sub/\.\./sig\.h5 is the same file as the input -measurement sig\.h5"
  "identify's measurement as checkpoint|${identify[*]} -checkpoint ./m.h5|-checkpoint \./m\.h5 is the same file as the input -measurement m\.h5"
  "identify's measurement as result|${identify[*]} -o m.h5|-o m\.h5 is the same file as the input -measurement m\.h5"
  "the options file|identify -options_file opts.yaml -measurement m.h5 -checkpoint opts.yaml|-checkpoint opts\.yaml is the same file as the input -options_file opts\.yaml"
  "the restart file as result|${identify[*]} -restart ck.h5 -o ck.h5|-o ck\.h5 is the same file as the input -restart ck\.h5"
  "result and checkpoint|${identify[*]} -checkpoint new.h5 -o ./new.h5|-o \./new\.h5 and -checkpoint new\.h5 are the same file: each output needs a file of its own"
  "import's table|import -kind signal -units mrad -csv self.csv -o ./self.csv|-o \./self\.csv is the same file as the input -csv self\.csv"
  "design's two outputs|design -model oscillator2 -design_csv x.csv -o x.csv|-o x\.csv and -design_csv x\.csv are the same file"
  "simulate's two outputs|simulate -time_span 0,5 -o s.h5 -save_measurement sub/../s.h5|-o s\.h5 and -save_measurement sub/\.\./s\.h5 are the same file"
  "the input force|simulate -model oscillator2 -input_file force.csv -o force.csv|-o force\.csv is the same file as the input -input_file force\.csv"
  "the controller library|perturb -controller ./controller.so -o controller.so|-o controller\.so is the same file as the input -controller \./controller\.so"
)
state() { find . -type f -exec md5sum {} + | sort; find . | sort; }
before=$(state)
for case in "${cases[@]}"; do
  IFS='|' read -r name arguments message <<< "$case"
  # shellcheck disable=SC2086 # the arguments are words
  output=$(timeout 120 "$mbsid" $arguments 2>&1)
  status=$?
  [ $status -ne 0 ] || { echo "$output"; fail "$name: exit status 0"; }
  grep -Eq -- "$message" <<< "$output" || { echo "$output"; fail "$name: exit status $status, but no line matches: $message"; }
  ! grep -Eq -- "^\[ *[0-9]+\] [0-9]+ bytes " <<< "$output" || { echo "$output"; fail "$name: memory left allocated (-malloc_dump)"; }
  [ "$(state)" = "$before" ] || { diff <(echo "$before") <(state); fail "$name: the directory changed"; }
  echo "ok  $name: $(grep -Eo -- "$message" <<< "$output" | head -1)"
done
echo "check_outputs_not_inputs: ${#cases[@]} refusals, every file kept"
