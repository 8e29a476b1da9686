#!/usr/bin/python3
"""A force whose direction is a parameter loads the frequency response along its unit direction (branch dirparam).

tests/models/dirparam_pendulum.yaml pushes the pendulum's foot P = (0, 0, -1) along e = (u, 1, 0)/sqrt(1 + u^2). Its
moment about the hinge axis h = (1, 0, t)/sqrt(1 + t^2) is (P x e).h = (1, -u, 0).h / sqrt(1 + u^2) =
1 / (sqrt(1 + u^2) sqrt(1 + t^2)): u only scales the load, so the response at u is the one at u = 0 times
1/sqrt(1 + u^2) at every frequency. For each u given, `mbsid frf -p_u u` must match it to 1e-10 (relative to the
largest entry). Usage: check_dirparam_frf.py MBSID MODEL u...
"""
import math
import os
import subprocess
import sys
import tempfile

import h5py
import numpy

mbsid, model, values = sys.argv[1], sys.argv[2], [float(v) for v in sys.argv[3:]]
status = 0


def response(tmp, u):
    out = os.path.join(tmp, f"frf_{u}.h5")
    subprocess.run([mbsid, "frf", "-model_file", model, "-p_u", repr(u), "-frequencies", "0.3,0.6,1,2", "-o", out], check=True, stdout=subprocess.DEVNULL)
    with h5py.File(out) as f:
        return f["channels/y/frf/real"][:] + 1j * f["channels/y/frf/imag"][:]


with tempfile.TemporaryDirectory(dir=".") as tmp:
    reference = response(tmp, 0.0)
    for u in values:
        expected = reference / math.sqrt(1 + u * u)
        error = numpy.max(numpy.abs(response(tmp, u) - expected)) / numpy.max(numpy.abs(expected))
        ok = numpy.max(numpy.abs(reference)) > 0 and error <= 1e-10
        print(f"u = {u}: the response against the one at u = 0 over sqrt(1 + u^2) = {math.sqrt(1 + u * u):.6f} differs by {error:.1e} {'ok' if ok else 'FAIL'}")
        status |= not ok
sys.exit(status)
