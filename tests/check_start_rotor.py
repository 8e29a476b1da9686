#!/usr/bin/env python3
"""The undamped modes of tests/models/start_rotor.yaml at its start angle: the rotor's axes are the polar factor of
rows u = (c, s, 0), v = (-s0, c, 0), a turn by phi = atan2(s + s0, 2 c) about z; its inertia in ground axes is
I_g = R^T diag(I) R (R's rows the axes). The bushing reads the rotation vect(R_b R_b0^T) from the file's pose, which at a
start turned by D = phi - phi(s0) about z and a small turn d about x, y is cos(D/2) [[cos(D/2), sin(D/2)],
[-sin(D/2), cos(D/2)]] d: the springs diag(k, 200) act as K = J^T diag(k, 200) J, and f = sqrt(eig(K, I_g)) / 2 pi.
Usage: check_start_rotor.py RESULT.h5 S_INITIAL S_IDENTIFIED  (identify's eigen check: initial and identified)"""
import sys
import h5py
import numpy as np

C, S0, INERTIA, K = 0.955336489125606, 0.29552020666134, (0.02, 0.03, 0.04), (100.0, 200.0)


def frequencies(s):
    phi = np.arctan2(s + S0, 2 * C)
    rows = np.array([[np.cos(phi), np.sin(phi), 0], [-np.sin(phi), np.cos(phi), 0], [0, 0, 1]])
    inertia = rows.T @ np.diag(INERTIA) @ rows  # body axes are the rows, in ground coordinates
    half = (phi - np.arctan2(2 * S0, 2 * C)) / 2
    jacobian = np.cos(half) * np.array([[np.cos(half), np.sin(half)], [-np.sin(half), np.cos(half)]])
    omega2 = np.linalg.eigvals(np.linalg.solve(inertia[:2, :2], jacobian.T @ np.diag(K) @ jacobian))
    return np.sort(np.sqrt(omega2.real)) / (2 * np.pi)


result, worst = h5py.File(sys.argv[1], "r"), 0.0
for group, s in (("initial", float(sys.argv[2])), ("identified", float(sys.argv[3]))):
    got, want = np.sort(result[f"eigen/{group}/undamped_frequency_hz"][:]), frequencies(s)
    error = np.max(np.abs(got - want) / want)
    worst = max(worst, error)
    print(f"{group} (s = {s}): mbsid {got} Hz, closed form {want} Hz, relative error {error:.1e}")
print("rotor modes agree with the closed form" if worst <= 1e-6 else "rotor modes differ from the closed form")
sys.exit(0 if worst <= 1e-6 else 1)
