#!/usr/bin/python3
"""A body's initial position and velocity as parameters against a closed form (tests/models/start_oscillator.yaml).

A point mass m on a bushing of stiffness k and damping c whose ends are the ground's origin and the mass's centre (body
coordinates: the spring is relaxed at x = 0, whatever the start). mbsid simulates it at -p_x0 X0 -p_v0 V0, values away
from the file's; its channel x is compared with the free decay
    x(t) = exp(-zeta w t) (x0 cos(wd t) + (v0 + zeta w x0) / wd sin(wd t)),  w = sqrt(k/m), zeta = c / (2 m w),
    wd = w sqrt(1 - zeta^2),
at two time steps: the start exactly (|x(t0) - x0| <= 1e-15 m), and the largest error over the run at -ts_dt 2e-4
below 2e-5 of the amplitude |x0| + |v0| / w and falling as dt^2 (the trapezoidal rule; ratio 4 +- 0.2 when dt halves).
Without the start's parameters (the file's x0 = 0.01 m, v0 = 0.2 m/s) the error would be of the order of the change.
Usage: check_start_oscillator.py MBSID MODEL X0 V0
"""
import math
import os
import subprocess
import sys
import tempfile

import h5py
import numpy

mbsid, model, x0, v0 = sys.argv[1], sys.argv[2], float(sys.argv[3]), float(sys.argv[4])
m, k, c = 2.0, 800.0, 4.0
w = math.sqrt(k / m)
zeta = c / (2 * m * w)
wd = w * math.sqrt(1 - zeta**2)
amplitude = abs(x0) + abs(v0) / w
errors = []
status = 0
with tempfile.TemporaryDirectory(dir=".") as d:
    for dt in (2e-4, 1e-4):
        out = os.path.join(d, f"osc_{dt}.h5")
        subprocess.run([mbsid, "simulate", "-model_file", model, "-p_x0", repr(x0), "-p_v0", repr(v0), "-ts_dt", repr(dt), "-o", out], check=True, stdout=subprocess.DEVNULL)
        with h5py.File(out) as f:
            t = f["signal/t"][:]
            x = f["signal/y"][:]
        exact = numpy.exp(-zeta * w * t) * (x0 * numpy.cos(wd * t) + (v0 + zeta * w * x0) / wd * numpy.sin(wd * t))
        error = numpy.max(numpy.abs(x - exact))
        errors.append(error)
        start = abs(x[0] - x0)
        print(f"dt = {dt}: x(t0) = {x[0]!r} against x0 = {x0!r} (off by {start:.1e} m); largest error over {t[-1]:.2f} s {error:.3e} m "
              f"({error / amplitude:.2e} of the amplitude {amplitude:.4f} m)")
        status |= bool(start > 1e-15)
    ratio = errors[0] / errors[1]
    ok = bool(errors[0] <= 2e-5 * amplitude and abs(ratio - 4) <= 0.2)
    print(f"error ratio at dt and dt/2: {ratio:.3f} (second order: 4) {'ok' if ok and not status else 'FAIL'}")
    status |= not ok
sys.exit(int(status))
