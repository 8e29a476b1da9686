#!/usr/bin/python3
"""A hinge whose axis is a parameter: the eigen frequency of a physical pendulum on a tilted axis (branch axes).

inputs/models/axes_pendulum.yaml hangs a rod (m = 2 kg, centre of mass d = 0.5 m below the hinge, principal inertia
Ixx, Iyy, Izz = 0.05, 0.06, 0.02 kg m^2 about it) on a hinge about a = (1, 0, t), tilted by alpha = atan(t) from the
horizontal, and a torsion spring k = 0.8 N m/rad about the same axis (its axis follows t too). Rotating by theta about
the unit axis lowers the centre of mass, which lies d cos(alpha) from the axis, by d cos^2(alpha) (1 - cos(theta)), so
the swing is

    omega^2 = (m g d cos^2(alpha) + k) / I_axis,   I_axis = Ixx cos^2(alpha) + Izz sin^2(alpha) + m d^2 cos^2(alpha)

(the inertia about the axis through the centre of mass plus Steiner's term). A spring about the file's axis alone
would be stiffer against a turn about another axis. For each t given, `mbsid eigen -p_t t`
must find one mode at omega / (2 pi) to 1e-8 (relative). Usage: check_axes_pendulum.py MBSID MODEL t...
"""
import math
import os
import subprocess
import sys
import tempfile

import h5py

mbsid, model, tilts = sys.argv[1], sys.argv[2], [float(v) for v in sys.argv[3:]]
m, g, d, Ixx, Izz, k = 2.0, 9.81, 0.5, 0.05, 0.02, 0.8
status = 0
with tempfile.TemporaryDirectory(dir=".") as tmp:
    for t in tilts:
        out = os.path.join(tmp, f"eigen_{t}.h5")
        subprocess.run([mbsid, "eigen", "-model_file", model, "-p_t", repr(t), "-o", out], check=True, stdout=subprocess.DEVNULL)
        with h5py.File(out) as f:
            frequency = f["eigen/frequency_hz"][:]
        alpha = math.atan(t)
        c2, s2 = math.cos(alpha) ** 2, math.sin(alpha) ** 2
        expected = math.sqrt((m * g * d * c2 + k) / (Ixx * c2 + Izz * s2 + m * d * d * c2)) / (2 * math.pi)
        ok = len(frequency) == 1 and abs(frequency[0] / expected - 1) <= 1e-8
        print(f"t = {t} (tilt {math.degrees(alpha):.2f} deg): modes {list(frequency)} Hz against the closed form {expected:.12f} Hz "
              f"(relative {frequency[0] / expected - 1 if len(frequency) else float('nan'):.1e}) {'ok' if ok else 'FAIL'}")
        status |= not ok
sys.exit(status)
