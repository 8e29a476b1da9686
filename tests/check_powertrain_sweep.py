#!/usr/bin/env python3
"""V2 of powertrain_mounts.md (section 8.2), short: a stationary sweep of inputs/models/powertrain_mounts.yaml on two
step sizes (mbsid simulate -sweep_rpm with -sweep_steps_per_revolution m and 2m, a short warm-up from rest) against
the linear frequency response of V1 assembled independently of mbsid (check_powertrain_modes.py's z matrices, the
excitation of section 5 at the reference configuration). Checks: every output channel in /channels/NAME/orders of
one sweep (the 9 accelerometers in m/s^2 and u_P in m), the speeds; Crank-Nicolson's error falls as h^2 (the
distance to the linear response shrinks 3 to 5 times from m to 2m); the Richardson extrapolation (4 y_2m - y_m)/3
of a and b of order 2 lies within 1e-4 of the speed's largest accelerometer amplitude of the linear response (what
is left: the model's nonlinearity, ~1e-5, the transient after the short warm-up and the O(h^4) remainder).
Usage: check_powertrain_sweep.py SWEEP_m.h5 SWEEP_2m.h5"""
import math
import sys

import h5py
import numpy as np

from check_powertrain_modes import linear_matrices

ACC = ["A1x", "A1y", "A1z", "A2x", "A2y", "A2z", "A3x", "A3y", "A3z"]
SENSORS = {"A1": ("P", (0.35, 0.30, 0.20)), "A2": ("P", (-0.30, -0.30, 0.15)), "A3": ("S", (0.40, 0.00, -0.35))}
CENTRE = {"P": np.zeros(3), "S": np.array([0, 0, -0.35])}
OFFSET = {"P": 0, "S": 6}


def linear_response(N, channels=ACC):
    """(a, b) of order 2 per channel at N rpm: the accelerations -Omega^2 (u + phi x s) of the sensor points (uPx..:
    the displacement u_P) of the linear harmonic solution, y = a cos(Omega t) + b sin(Omega t), t = 0 at crank angle 0"""
    M, D, K = linear_matrices()
    w, Omega = 2 * math.pi * N / 60, 4 * math.pi * N / 60
    f = np.zeros(12, dtype=complex)
    f[2] = 1.6 * 0.043 * 0.29 * w**2  # F_z = m_osc r lambda w^2 cos(2 theta) at c, on P's z axis: no moment
    f[3] = -1j * 90.0                 # M_x = T2 sin(2 theta) = Re(-i T2 e^(i 2 theta))
    z = np.linalg.solve(-Omega**2 * M + 1j * Omega * D + K, f)
    out = []
    for c in channels:
        if c.startswith("uP"):
            y = z["xyz".index(c[2])]
        else:
            body, point = SENSORS[c[:2]]
            o, s = OFFSET[body], np.array(point) - CENTRE[body]
            y = (-Omega**2 * (z[o:o + 3] + np.cross(z[o + 3:o + 6], s)))["xyz".index(c[2])]
        out.append((y.real, -y.imag))
    return np.array(out)


def main(coarse, fine):
    failures = 0

    def check(what, ok, detail):
        nonlocal failures
        failures += not ok
        print(f"{'ok  ' if ok else 'FAIL'} {what}: {detail}")

    data = []
    for path in (coarse, fine):
        with h5py.File(path, "r") as f:
            names = sorted(f["channels"].keys())
            check(f"{path}: 12 channels", names == sorted(ACC + ["uPx", "uPy", "uPz"]), ", ".join(names))
            units = {c: f[f"channels/{c}"].attrs["units"] for c in names}
            check(f"{path}: units", all(units[c] == ("m/s^2" if c in ACC else "m") for c in names), str(units))
            speed = f["channels/A1x/orders/speed"][:]
            data.append(np.array([[f[f"channels/{c}/orders/A"][:, 0], f[f"channels/{c}/orders/B"][:, 0]] for c in ACC]))
    for j, N in enumerate(speed):
        lin = linear_response(N)
        scale = np.max(np.hypot(lin[:, 0], lin[:, 1]))
        e_coarse = np.max(np.abs(data[0][:, :, j] - lin)) / scale
        e_fine = np.max(np.abs(data[1][:, :, j] - lin)) / scale
        e_rich = np.max(np.abs((4 * data[1][:, :, j] - data[0][:, :, j]) / 3 - lin)) / scale
        check(f"{N:g} rpm: CN error falls as h^2", 3 <= e_coarse / e_fine <= 5, f"{e_coarse:.2e} -> {e_fine:.2e} (ratio {e_coarse / e_fine:.2f})")
        check(f"{N:g} rpm: extrapolated a, b against the linear response", e_rich <= 1e-4, f"{e_rich:.2e} of {scale:.4e} m/s^2 (tolerance 1e-4)")
    print(f"{failures} failed")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main(*sys.argv[1:3]))
