#!/usr/bin/env python3
"""The start pose of a universal joint whose axes are parameters, against an independent computation.

Usage: check_universal_start.py MBSID MODEL ay by bz

MODEL is tests/models/universal_axes.yaml: a shaft (mass m, inertia I about its centre, body axes the ground's at the
file's pose, centre r_f) hanging on a universal joint at the ground's origin, axis_a = (1, ay, 0) in the ground and
axis_b = (-0.1, by, bz) in the shaft. At other (ay, by, bz) the file's pose violates the cross row, and mbsid starts
from the consistent pose nearest the file's in the kinetic metric (model_described.c, ProjectPose). Here that pose is
found apart from mbsid's rows and projection: over the rotations R of the shaft (its centre then at r = -R x_p, x_p
the joint point in body axes),

    min m |r - r_f|^2 + sum_ij Jbar_ij (R e_i - e_i).(R e_j - e_j),   Jbar = tr(I)/2 - I,
    subject to (R e_b).e_a = 0   (e_a, e_b the unit axes),

by Newton's method on its Lagrange conditions (scipy fsolve). The three coordinates of a point of the shaft off its
axis at t0, which mbsid writes as channels of a copy of MODEL, must equal those of this pose to 1e-9 m; and the pose
must have moved (the file's pose violates the joint by more than 1e-3).
"""
import os, subprocess, sys, tempfile
import h5py
import numpy as np
from scipy.optimize import fsolve
from scipy.spatial.transform import Rotation

mbsid, model = sys.argv[1], sys.argv[2]
ay, by, bz = (float(x) for x in sys.argv[3:6])
m, inertia = 1.0, np.diag([0.03, 0.002, 0.03])
r_f, joint, point = np.array([0, -0.5, 0.0]), np.zeros(3), np.array([0.3, -0.5, 0.2])
jbar = np.trace(inertia) / 2 * np.eye(3) - inertia
x_p = joint - r_f
e_a = np.array([1, ay, 0.0]) / np.linalg.norm([1, ay, 0.0])
e_b = np.array([-0.1, by, bz]) / np.linalg.norm([-0.1, by, bz])


def rotation(phi):
    return Rotation.from_rotvec(phi).as_matrix()


def cost(phi):
    R = rotation(phi)
    r = -R @ x_p
    d = R - np.eye(3)  # columns: R e_i - e_i
    return m * (r - r_f) @ (r - r_f) + np.sum(jbar * (d.T @ d))


def row(phi):
    return (rotation(phi) @ e_b) @ e_a


def gradient(f, phi, h=1e-6):
    return np.array([(f(phi + h * e) - f(phi - h * e)) / (2 * h) for e in np.eye(3)])


def lagrange(z):
    phi, nu = z[:3], z[3]
    return np.append(gradient(cost, phi) + nu * gradient(row, phi), row(phi))


z = fsolve(lagrange, np.zeros(4), xtol=1e-14)
R = rotation(z[:3])
expected = -R @ x_p + R @ (point - r_f)
status = 0
violation = abs(e_a @ e_b)
print(f"the file's pose violates the cross row by {violation:.3e}; Lagrange residual {np.max(np.abs(lagrange(z))):.1e}")
status |= violation <= 1e-3

with tempfile.TemporaryDirectory(dir=".") as d:
    text = open(model).read().replace("output: z", "  px: {type: position, body: shaft, point: [0.3, -0.5, 0.2], axis: [1, 0, 0]}\n"
                                      "  py: {type: position, body: shaft, point: [0.3, -0.5, 0.2], axis: [0, 1, 0]}\n"
                                      "  pz: {type: position, body: shaft, point: [0.3, -0.5, 0.2], axis: [0, 0, 1]}\n"
                                      "output: px")
    copy = os.path.join(d, "start.yaml")
    open(copy, "w").write(text)
    subprocess.run([mbsid, "simulate", "-model_file", copy, "-p_ay", str(ay), "-p_by", str(by), "-p_bz", str(bz), "-time_span", "0,0.01",
                    "-o", os.path.join(d, "sim.h5"), "-save_measurement", os.path.join(d, "meas.h5")], check=True, stdout=subprocess.DEVNULL)
    with h5py.File(os.path.join(d, "meas.h5")) as f:
        got = np.array([f[f"channels/{c}/signal/y"][0] for c in ("px", "py", "pz")])
err = np.max(np.abs(got - expected))
print(f"the shaft's point {point} at t0: mbsid {got}, independent {expected}, differ by {err:.2e} m (moved {np.max(np.abs(expected - point)):.3e} m)")
status |= not err <= 1e-9
print("ok" if not status else "FAIL")
sys.exit(int(status))
