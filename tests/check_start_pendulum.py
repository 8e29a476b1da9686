#!/usr/bin/python3
"""The start of a hinged link whose initial state's fields are parameters, computed apart from mbsid's rows and
projection (tests/models/start_pendulum.yaml; model_described.c, ProjectPose and ImposeMotion).

At values of py, vx, wz, uy, vxa away from the file's, the file's state is q_f(p): the centre r_f = (0.2866, py, 0),
the axes the polar factor of [[0.955, uy, 0], [vxa, 0.955, 0], [0, 0, 1]] (numpy's SVD), the velocity (vx, 0.5732, 0)
and e' = omega x e with omega = (0, 0, wz). The hinge at the ground's origin about z leaves the angle theta alone:
r = 0.3 (cos, sin, 0), u = (cos, sin, 0), v = (-sin, cos, 0), w = z. The start is the pose nearest q_f in the kinetic
metric m |r - r_f|^2 + sum_i Jbar_ii |e_i - e_i,f|^2 (Jbar = tr(I)/2 - I, diagonal here), minimised over theta by
Newton's method on its derivative, and the velocities' projection omega0 = t^T M v_f / t^T M t with t = dq/dtheta.
The channels tipy (the y of the link's end, 0.6 m from the hinge) and tipv (its velocity) at t0 must agree with
0.6 sin(theta) and 0.6 cos(theta) omega0 to 1e-12, in 3D and planar.
Usage: check_start_pendulum.py MBSID MODEL py vx wz uy vxa
"""
import math
import os
import subprocess
import sys
import tempfile

import h5py
import numpy

mbsid, model = sys.argv[1], sys.argv[2]
py, vx, wz, uy, vxa = (float(v) for v in sys.argv[3:8])
m, inertia = 1.2, numpy.array([0.004, 0.04, 0.042])
jbar = inertia.sum() / 2 - inertia
c0 = 0.955336489125606
A = numpy.array([[c0, uy, 0], [vxa, c0, 0], [0, 0, 1]])
U, _, Vt = numpy.linalg.svd(A)
R = U @ Vt  # rows: the axes u, v, w at t0 (the polar factor)
rf = numpy.array([0.2866009467376818, py, 0])
vf = numpy.array([vx, 0.5732018934753636, 0])
omega = numpy.array([0, 0, wz])
qf = numpy.concatenate([rf, R[0], R[1], R[2]])
vqf = numpy.concatenate([vf] + [numpy.cross(omega, R[i]) for i in range(3)])
metric = numpy.diag(numpy.concatenate([[m] * 3] + [[jbar[i]] * 3 for i in range(3)]))


def pose(theta):
    c, s = math.cos(theta), math.sin(theta)
    return numpy.array([0.3 * c, 0.3 * s, 0, c, s, 0, -s, c, 0, 0, 0, 1])


def tangent(theta):
    c, s = math.cos(theta), math.sin(theta)
    return numpy.array([-0.3 * s, 0.3 * c, 0, -s, c, 0, -c, -s, 0, 0, 0, 0])


theta = math.atan2(R[0][1], R[0][0])
for _ in range(50):  # d/dtheta (q - q_f)^T M (q - q_f) / 2 = t^T M (q - q_f) = 0, Newton with a numerical second derivative
    g = tangent(theta) @ metric @ (pose(theta) - qf)
    h = 1e-6
    dg = (tangent(theta + h) @ metric @ (pose(theta + h) - qf) - tangent(theta - h) @ metric @ (pose(theta - h) - qf)) / (2 * h)
    step = -g / dg
    theta += step
    if abs(step) < 1e-15:
        break
t = tangent(theta)
omega0 = t @ metric @ vqf / (t @ metric @ t)
status = 0
with tempfile.TemporaryDirectory(dir=".") as d:
    for planar in ("z", "none"):
        out = os.path.join(d, f"start_{planar}.h5")
        subprocess.run([mbsid, "simulate", "-model_file", model, "-model_planar", planar, "-time_span", "0,0.01", "-p_py", repr(py), "-p_vx", repr(vx), "-p_wz", repr(wz),
                        "-p_uy", repr(uy), "-p_vxa", repr(vxa), "-o", out], check=True, stdout=subprocess.DEVNULL)
        with h5py.File(out) as f:
            y0 = f["channels/tipy/signal/y"][0]
            v0 = f["channels/tipv/signal/y"][0]
        ey, ev = abs(y0 - 0.6 * math.sin(theta)), abs(v0 - 0.6 * math.cos(theta) * omega0)
        ok = ey <= 1e-12 and ev <= 1e-12
        print(f"planar {planar}: theta0 = {theta:.15f} rad (the file's axes at {math.atan2(R[0][1], R[0][0]):.6f}), omega0 = {omega0:.15f} rad/s; "
              f"tipy(t0) off by {ey:.1e} m, tipv(t0) off by {ev:.1e} m/s {'ok' if ok else 'FAIL'}")
        status |= not ok
sys.exit(int(status))
