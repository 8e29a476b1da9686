#!/usr/bin/python3
"""A distance joint whose length is a parameter moves the start onto the joint (model_described.c, ProjectPose).

Simulates inputs/models/distance_pendulum.yaml (a point mass on a rod of the file's length 1 m, released from rest at
theta0 = 0.01 rad) at -p_L L for each L given, and checks against closed forms:
  - the start is the point of the circle of radius L nearest the file's pose (for one point mass the kinetic metric is
    the Euclidean one): (x, y)(t0) = L (sin theta0, -cos theta0), to 1e-12 m;
  - the joint holds at t0 and after: |sqrt(x^2 + y^2) - L| <= 1e-12 m at t0 and 1e-9 m over the run;
  - the period from the zero crossings of x is that of the pendulum, 2 pi sqrt(L / g) (1 + theta0^2 / 16), to 2e-5
    (the trapezoidal rule's phase error at dt = 1 ms is ~1e-6);
  - the modes (eigen) of a copy hanging at rest at 1 m, linearised about the start at L: two swings at
    sqrt(g / L) / (2 pi), to 1e-8.
Usage: check_distance_pendulum.py MBSID MODEL L...
"""
import math
import os
import subprocess
import sys
import tempfile

import h5py
import numpy

mbsid, model, lengths = sys.argv[1], sys.argv[2], [float(v) for v in sys.argv[3:]]
g, theta0 = 9.81, 0.01
status = 0
with tempfile.TemporaryDirectory(dir=".") as d:
    rest = os.path.join(d, "rest.yaml")
    with open(model) as f, open(rest, "w") as out:
        out.write(f.read().replace("position: [0.009999833334166664, -0.9999500004166653, 0]", "position: [0, -1, 0]"))
    for L in lengths:
        eigen = os.path.join(d, f"eigen_{L}.h5")
        subprocess.run([mbsid, "eigen", "-model_file", rest, "-p_L", repr(L), "-o", eigen], check=True, stdout=subprocess.DEVNULL)
        with h5py.File(eigen) as f:
            frequency = f["eigen/frequency_hz"][:]
        swing = math.sqrt(g / L) / (2 * math.pi)
        ok = len(frequency) == 2 and numpy.max(numpy.abs(frequency / swing - 1)) <= 1e-8
        print(f"L = {L}: modes at rest {frequency} Hz against sqrt(g/L)/(2 pi) = {swing:.10f} Hz {'ok' if ok else 'FAIL'}")
        status |= not ok
        out = os.path.join(d, f"sim_{L}.h5")
        subprocess.run([mbsid, "simulate", "-model_file", model, "-p_L", repr(L), "-o", out], check=True, stdout=subprocess.DEVNULL)
        with h5py.File(out) as f:
            t = f["channels/x/signal/t"][:]
            x = f["channels/x/signal/y"][:]
            y = f["channels/y/signal/y"][:]
        start = max(abs(x[0] - L * math.sin(theta0)), abs(y[0] + L * math.cos(theta0)))
        r = numpy.hypot(x, y) - L
        i = numpy.nonzero(numpy.sign(x[:-1]) != numpy.sign(x[1:]))[0]
        crossings = t[i] - x[i] * (t[i + 1] - t[i]) / (x[i + 1] - x[i])
        period = 2 * (crossings[-1] - crossings[0]) / (len(crossings) - 1)
        expected = 2 * math.pi * math.sqrt(L / g) * (1 + theta0**2 / 16)
        ok = start <= 1e-12 and abs(r[0]) <= 1e-12 and numpy.max(numpy.abs(r)) <= 1e-9 and abs(period / expected - 1) <= 2e-5 and len(crossings) >= 3
        print(f"L = {L}: start off the nearest point by {start:.1e} m, |r - L| {abs(r[0]):.1e} m at t0 and {numpy.max(numpy.abs(r)):.1e} m at most; "
              f"period {period:.8f} s against 2 pi sqrt(L/g) (1 + theta0^2/16) = {expected:.8f} s (relative {period / expected - 1:.1e}, "
              f"frequency {1 / period:.6f} Hz) {'ok' if ok else 'FAIL'}")
        status |= not ok
sys.exit(status)
