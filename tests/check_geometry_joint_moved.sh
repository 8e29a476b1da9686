#!/bin/bash
# A joint's point moved by its parameter is the same model as the file with the moved point written as a number: the
# modes (eigen) and the simulated channels of MODEL at -p_NAME VALUE ... must equal those of a copy of MODEL whose
# {param: NAME} fields read VALUE (an independent build of the rows at read time, against the rows MbsGeometryUpdate
# moves and the free motions recomputed at p), to 1e-10 of the largest value. With --simulate-only, the channels
# alone (a model released away from equilibrium, which eigen refuses).
# Usage: check_geometry_joint_moved.sh MBSID MODEL [--simulate-only] NAME=VALUE ...
set -e
mbsid=$1 model=$2 eigen=1
shift 2
if [ "$1" = --simulate-only ]; then
  eigen=0
  shift
fi
dir=$(mktemp -d geometry_joint_moved.XXXXXX)
trap 'rm -rf "$dir"' EXIT
script="" options=()
for pair in "$@"; do
  name=${pair%%=*} value=${pair#*=}
  script="$script;s/{param: $name}/$value/g"
  options+=("-p_$name" "$value")
done
sed -e "${script#;}" "$model" > "$dir/moved.yaml"
if [ $eigen = 1 ]; then
  "$mbsid" eigen -model_file "$model" "${options[@]}" -o "$dir/eigen_p.h5" > /dev/null
  "$mbsid" eigen -model_file "$dir/moved.yaml" -o "$dir/eigen_file.h5" > /dev/null
fi
"$mbsid" simulate -model_file "$model" "${options[@]}" -o "$dir/sim_p.h5" -save_measurement "$dir/meas_p.h5" > /dev/null
"$mbsid" simulate -model_file "$dir/moved.yaml" -o "$dir/sim_file.h5" -save_measurement "$dir/meas_file.h5" > /dev/null
/usr/bin/python3 - "$dir" $eigen <<'PY'
import sys, h5py, numpy
d = sys.argv[1]
worst, status = 0.0, 0
pairs = [("eigen_p.h5", "eigen_file.h5", "eigen/frequency_hz"), ("eigen_p.h5", "eigen_file.h5", "eigen/damping_ratio")] if sys.argv[2] == "1" else []
with h5py.File(f"{d}/meas_file.h5") as f:
    channels = [f"channels/{c}/signal/y" for c in f["channels"]] if "channels" in f else ["signal/y"]  # or the output alone
pairs += [("meas_p.h5", "meas_file.h5", name) for name in channels]
for a, b, name in pairs:
    x, y = h5py.File(f"{d}/{a}")[name][:], h5py.File(f"{d}/{b}")[name][:]
    e = numpy.max(numpy.abs(x - y)) / numpy.max(numpy.abs(y))
    print(f"{name}: {len(y)} values, parameter against file differ by {e:.2e} of the largest")
    worst = max(worst, e)
    status |= not (x.shape == y.shape and e <= 1e-10)
print("ok" if not status else "FAIL", f"largest difference {worst:.2e}")
sys.exit(status)
PY
