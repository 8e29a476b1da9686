#!/usr/bin/python3
"""Checks a cost scan against the truth of its noise-free virtual measurement.

Usage: check_scan.py SCAN.h5 X_TRUE Y_TRUE

The grid must hold the truth (X_TRUE, Y_TRUE), where the measurement was simulated with the scan's own integrator and
steps: there J and its gradient vanish (to 1e-12 of their largest values on the grid) and every other point has a
larger J.
"""
import sys

import h5py
import numpy as np

path, x_true, y_true = sys.argv[1], float(sys.argv[2]), float(sys.argv[3])
with h5py.File(path, "r") as f:
    x, y, J, grad = f["scan/x"][:], f["scan/y"][:], f["scan/J"][:], f["scan/gradient"][:]
ix, iy = np.flatnonzero(x == x_true), np.flatnonzero(y == y_true)
if len(ix) != 1 or len(iy) != 1:
    sys.exit(f"FAIL the grid {x} x {y} does not hold the truth ({x_true:g}, {y_true:g})")
i, j = iy[0], ix[0]
checks = [
    (f"J at the truth {J[i, j]:.3e} (want <= 1e-12 of the largest, {J.max():.3e})", J[i, j] <= 1e-12 * J.max()),
    (f"|dJ/dp| at the truth {np.abs(grad[i, j]).max():.3e} (want <= 1e-12 of the largest, {np.abs(grad).max():.3e})", np.abs(grad[i, j]).max() <= 1e-12 * np.abs(grad).max()),
    (f"every other point has a larger J (smallest {np.sort(J, axis=None)[1]:.3e})", int(np.sum(J <= J[i, j])) == 1),
]
for text, ok in checks:
    print(("ok   " if ok else "FAIL ") + text)
sys.exit(0 if all(ok for _, ok in checks) else 1)
