#!/usr/bin/python3
"""Checks that instantaneous channel values converge at the integrator's order: three simulate result files made with
steps h, h/2, h/4 give at time T the values y_1, y_2, y_3 of each channel; their successive differences must fall by
2^ORDER (Crank-Nicolson: 4) within RTOL, for every channel whose first difference is above 1e-12 of its largest |y|
(below that it is rounding). Richardson's extrapolation needs this to mean anything.

Usage: check_step_convergence.py T ORDER RTOL CHANNELS COARSE.h5 MEDIUM.h5 FINE.h5   (CHANNELS: comma-separated)
"""
import sys

import h5py
import numpy as np


def value(path, channel, t):
    with h5py.File(path, "r") as f:
        times, y = f[f"channels/{channel}/signal/t"][:], f[f"channels/{channel}/signal/y"][:]
    k = np.argmin(np.abs(times - t))
    if abs(times[k] - t) > 1e-9 * max(1.0, abs(t)):
        sys.exit(f"FAIL {path}: no step point at t = {t:g} s (nearest {times[k]:.12g} s)")
    return y[k]


def main():
    t, order, rtol, channels, files = float(sys.argv[1]), float(sys.argv[2]), float(sys.argv[3]), sys.argv[4].split(","), sys.argv[5:8]
    failed, checked = False, 0
    for c in channels:
        y = np.array([value(path, c, t) for path in files])
        d1, d2 = y[1] - y[0], y[2] - y[1]
        if abs(d1) <= 1e-12 * np.max(np.abs(y)):
            print(f"skip {c}: y(h) - y(h/2) = {d1:.1e} is rounding")
            continue
        ratio = d1 / d2 if d2 != 0 else np.inf
        ok = abs(ratio / 2**order - 1) <= rtol
        print(f"{'ok  ' if ok else 'FAIL'} {c}: y(t = {t:g}) = {y[2]:+.10e}, differences {d1:+.3e}, {d2:+.3e}, ratio {ratio:.4f} (want {2**order:g} within {rtol:g})")
        failed |= not ok
        checked += 1
    if not checked:
        print("FAIL: every channel's differences are rounding, nothing was checked")
    sys.exit(1 if failed or not checked else 0)


if __name__ == "__main__":
    main()
