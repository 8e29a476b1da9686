#!/usr/bin/env bash
# Every writer of mbsid on a (nearly) full file system: the run must fail (no crash: an exit status below 128), say "No space
# left on device" and leave nothing behind (no NAME.tmp.<pid>, no partial result), on 1 and 2 ranks. The full file
# system is a 64 kB tmpfs that the test mounts, fills and unmounts whatever happens; a run without the right to mount
# is skipped (exit status 77, SKIP_RETURN_CODE), saying why.
# Usage: full_disk.sh MBSID CONTROLLER_PLUGIN MPIEXEC   (run in a scratch directory)
set -uo pipefail
mbsid=$(realpath "$1")
plugin=$(realpath "$2")
mpiexec=$3
work=$PWD/full_disk
full=$work/full
fail() { echo "full_disk: $*" >&2; exit 1; }

rm -rf "$work" && mkdir -p "$full" || fail "cannot make $full"
[ "$(id -u)" -eq 0 ] || { echo "full_disk: skipped: mounting a small tmpfs needs root"; exit 77; }
mount -t tmpfs -o size=64k mbsid_full_disk "$full" 2> "$work/mount.log" || { echo "full_disk: skipped: cannot mount a tmpfs: $(cat "$work/mount.log")"; exit 77; }
trap 'umount "$full" 2> /dev/null || umount -l "$full"' EXIT # lazily when a killed run still holds it
trap 'exit 1' INT TERM HUP                                     # a CTest timeout unmounts too
# 8 kB stay free: each result (10 kB and more) is cut off in the middle of its writing
dd if=/dev/zero of="$full/room" bs=4k count=2 > /dev/null 2>&1
dd if=/dev/zero of="$full/fill" bs=4k > /dev/null 2>&1 # stops at ENOSPC
rm "$full/room"
[ "$(df --output=avail "$full" | tail -1)" -eq 8 ] || fail "the tmpfs has not 8 kB free after filling it: $(df "$full")"

cd "$work" || fail "cannot enter $work"
osc=(-model oscillator2 -time_span 0,2)
"$mbsid" simulate "${osc[@]}" -save_measurement m.h5 > setup.log 2>&1 || { cat setup.log; fail "simulate for the measurement failed"; }
awk 'BEGIN { print "time,y,speed_Hz"; for (k = 0; k <= 4000; k++) { t = k / 2000; f = 20 + 5 * t; printf "%.6f,%.6f,%.6f\n", t, cos(2 * 3.14159265358979 * (20 * t + 2.5 * t * t) * 2), f } }' > signal.csv
"$mbsid" import -csv signal.csv -kind signal -columns time,y,speed_Hz -units rad -speed_units Hz -o signal.h5 > setup.log 2>&1 || { cat setup.log; fail "import of the signal failed"; }

# name | ranks | command and options (F: the full file system) | "no room" when the output fits into 8 kB
cases=(
  "simulate -o|1 2|simulate ${osc[*]} -o F/x.h5"
  "simulate -save_measurement|1|simulate ${osc[*]} -save_measurement F/x.h5"
  "identify -o|1 2|identify ${osc[*]} -measurement m.h5 -p_c1 1.2 -identify c1 -tao_max_it 2 -o F/x.h5"
  "identify -checkpoint|1 2|identify ${osc[*]} -measurement m.h5 -p_c1 1.2 -identify c1 -tao_max_it 2 -checkpoint F/x.h5"
  "eigen -o|1|eigen ${osc[*]} -o F/x.h5"
  "perturb -o|1|perturb -controller $plugin -controller_symbol pid -perturb_times 0,0.5,1 -perturb_plant prescribed -prescribed_motion 1,1 -o F/x.h5"
  "import -o|1|import -csv signal.csv -kind signal -columns time,y,speed_Hz -units rad -speed_units Hz -o F/x.h5"
  "track -o|1|track -measurement signal.h5 -speed_source channel -orders 2 -speed_rpm 1260,1740,120 -o F/x.h5"
  "design -o|1|design -model oscillator2 -design_max_it 0 -o F/x.h5"
  "design -design_csv|1 2|design -model oscillator2 -design_max_it 1 -o design.h5 -design_csv F/x.csv|no room"
)
failures=0
runs=0
for case in "${cases[@]}"; do
  IFS='|' read -r name ranks command room <<< "$case"
  for np in $ranks; do
    runs=$((runs + 1))
    # the CSV (1 kB) fits into 8 kB: its case has none
    [ -n "$room" ] && dd if=/dev/zero of="$full/fill_room" bs=4k count=2 > /dev/null 2>&1
    read -r -a args <<< "${command//F\//$full/}"
    if [ "$np" -eq 1 ]; then runner=("$mbsid"); else runner=("$mpiexec" -n 2 "$mbsid"); fi
    "${runner[@]}" "${args[@]}" > run.log 2>&1
    status=$?
    rm -f "$full/fill_room"
    left=$(ls -A "$full" | grep -v '^fill$')
    if [ "$status" -eq 0 ] || [ "$status" -ge 128 ]; then
      echo "FAIL $name on $np rank(s): exit status $status (must be an error, not 0 nor a signal)"
    elif ! grep -q "No space left on device" run.log; then
      echo "FAIL $name on $np rank(s): no 'No space left on device' in the output:"; grep -m3 "ERROR: [A-Z]" run.log
    elif [ -n "$left" ]; then
      echo "FAIL $name on $np rank(s): left on the full file system: $left"
    else
      echo "ok   $name on $np rank(s): exit status $status, $(grep -m1 -o "[^]]*No space left on device.*" run.log)"
      continue
    fi
    failures=$((failures + 1))
    rm -f "$full"/*.tmp.* "$full"/x.*
  done
done
[ "$failures" -eq 0 ] || fail "$failures of $runs runs were not refused cleanly"
echo "full_disk: every writer on a full disk failed cleanly, naming the cause"
