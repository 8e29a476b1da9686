#!/usr/bin/python3
"""Checks that subnormal numbers pass as the finite numbers they are.

Usage: check_subnormal.py RESULT.h5 VALUE

RESULT.h5 is a simulate result of oscillator2 with -p_d2 VALUE -initial_q 0,VALUE (VALUE subnormal, below 2.2e-308):
the parameter must be stored as given, and the output x2 must start at VALUE and stay finite.
"""
import sys

import h5py
import numpy as np

result, value = sys.argv[1], float(sys.argv[2])
assert 0 < value < np.finfo(float).tiny, f"{value} is not subnormal"
with h5py.File(result, "r") as f:
    names = [n.decode() if isinstance(n, bytes) else n for n in f["parameters/name"][:]]
    d2 = dict(zip(names, f["parameters/value"][:]))["d2"]
    y = f["signal/y"][:]
checks = [(f"d2 = {d2:g} (want {value:g})", d2 == value),
          (f"x2(t0) = {y[0]:g} (want {value:g})", y[0] == value),
          (f"every x2 finite ({len(y)} samples)", bool(np.all(np.isfinite(y))))]
for text, ok in checks:
    print(("ok   " if ok else "FAIL ") + text)
sys.exit(0 if all(ok for _, ok in checks) else 1)
