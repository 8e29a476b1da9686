#!/usr/bin/python3
"""Base excitation on a shaker (inputs/models/elements/prescribed_shaker.yaml) against its closed form.

The table's point is prescribed, y(t) = Y sin(w t), from rest at t = 0; the table starts with the law's velocity Y w
(the least impulse), the mass at rest. The mass obeys m x'' + c x' + k x = k y + c y', so x = x_p + x_h with the
steady state x_p = a sin(w t) + b cos(w t),
    (k - m w^2) a - c w b = k Y,   c w a + (k - m w^2) b = c w Y,
and x_h = exp(-zeta wn t) (C1 cos(wd t) + C2 sin(wd t)) with x(0) = x'(0) = 0. Asserts the whole simulated response
against it (largest error / largest |x| below tol), and the amplitude of a least-squares sine fit over the last
periods against the transmissibility |X/Y| = sqrt((k^2 + (c w)^2) / ((k - m w^2)^2 + (c w)^2)) (where the transient
has decayed to exp(-zeta wn t) < 1e-4). A result with channels (inputs/models/elements/reaction_force.yaml) has x in
channel x and the shaker's force gauge in channel gauge, asserted against F = m_t y'' + k (y - x) + c (y' - x') (the
table's equation of motion) to the same tolerance of its largest value.

usage: check_shaker.py RESULT.h5 TOL [k c Y m f x0 m_t]
"""
import math
import sys

import h5py
import numpy as np

path, tol = sys.argv[1], float(sys.argv[2])
k, c, Y, m, f, x0, m_t = (float(v) for v in (sys.argv[3:10] if len(sys.argv) > 3 else (1000, 20, 0.001, 1, 8, 0.1, 5)))
with h5py.File(path, "r") as h5:
    channels = "channels" in h5
    t = h5["channels/x/signal/t" if channels else "signal/t"][()]
    x = h5["channels/x/signal/y" if channels else "signal/y"][()] - x0
    gauge = h5["channels/gauge/signal/y"][()] if channels else None
w = 2 * math.pi * f
a, b = np.linalg.solve([[k - m * w * w, -c * w], [c * w, k - m * w * w]], [k * Y, c * w * Y])
wn = math.sqrt(k / m)
zeta = c / (2 * math.sqrt(k * m))
wd = wn * math.sqrt(1 - zeta * zeta)
C1 = -b  # x(0) = 0
C2 = (zeta * wn * C1 - a * w) / wd  # x'(0) = 0
decay = np.exp(-zeta * wn * t)
exact = a * np.sin(w * t) + b * np.cos(w * t) + decay * (C1 * np.cos(wd * t) + C2 * np.sin(wd * t))
error = np.max(np.abs(x - exact)) / np.max(np.abs(exact))
print(f"shaker: largest error of x(t) {error:.3e} of its largest value (tol {tol:g}) over {len(t)} samples")
ok = error <= tol
if channels:
    rate = a * w * np.cos(w * t) - b * w * np.sin(w * t) + decay * ((C2 * wd - zeta * wn * C1) * np.cos(wd * t) - (C1 * wd + zeta * wn * C2) * np.sin(wd * t))
    y, y_rate, y_accel = Y * np.sin(w * t), Y * w * np.cos(w * t), -Y * w * w * np.sin(w * t)
    force = m_t * y_accel + k * (y - exact) + c * (y_rate - rate)
    error = np.max(np.abs(gauge - force)) / np.max(np.abs(force))
    print(f"shaker: largest error of the gauge's force {error:.3e} of its largest value {np.max(np.abs(force)):.6g} N (tol {tol:g})")
    ok = ok and error <= tol
late = t >= t[-1] - 2 / f
assert math.exp(-zeta * wn * t[late][0]) < 1e-4, "the run is too short for the transient to decay"
basis = np.column_stack([np.sin(w * t[late]), np.cos(w * t[late])])
fit = np.linalg.lstsq(basis, x[late], rcond=None)[0]
ratio = math.hypot(*fit) / Y
closed = math.sqrt((k * k + (c * w) ** 2) / ((k - m * w * w) ** 2 + (c * w) ** 2))
print(f"shaker: transmissibility |X/Y| {ratio:.8f}, closed form {closed:.8f}, relative error {abs(ratio / closed - 1):.3e} (tol {tol:g})")
ok = ok and abs(ratio / closed - 1) <= tol
sys.exit(0 if ok else 1)
