"""Torques and follower forces of model files against closed forms computed here (branch loadframe).

  check_torque.py free RESULT.h5 Ixx Iyy Izz Ixy Iyz Ixz ax ay az M0 f TOL [body]
      tests/models/torque_free.yaml: a free rigid body from rest under M(t) = M0 sin(2 pi f t) m about the fixed ground
      axis m = a/|a|. Its angular momentum about the centre of mass obeys H' = M whatever the body does, so
      H(t) = m M0 (1 - cos(w t)) / w. With body (torque_free_body.yaml, frame: body) the axis turns with the body,
      M = M0 sin(w t) R(t) m (R = I at t = 0), and H(t) is the integral of that over the sampled R (trapezoids; the
      file samples every 1e-3 s, so they err by about (w dt)^2 / 12 = 7e-6 of H). The body points at the tips of its axes (channels ux..wz: positions, dux..dwz:
      velocities) give R = [u v w] and R'; then [omega]x = R' R^T and H = R I R^T omega, I the inertia tensor in body
      axes (the file's entries: I_xy = Ixy, ...). Also asserts that the centre of mass stays put (channel rx) and that
      the body tumbles (omega leaves m, so the test needs the torque on all of u, v, w).
  check_torque.py follower RESULT.h5 J F L TOL
      tests/models/force_body_hinge.yaml: a disc (moment J about its hinge axis z, centre on the axis) from rest under a
      constant force F at the arm L along the tangent, frame: body: the force turns with the disc, so its moment stays
      F L and theta(t) = F L t^2 / (2 J) (channel theta) past 90 degrees; the same force in ground axes, turned by hand
      to the disc's pose, is F (-sin theta, cos theta, 0), which a fixed ground force would not be (its moment
      F L cos(theta) would give another angle).
"""
import sys

import h5py
import numpy


def channel(f, name):
    group = f[f"channels/{name}/signal"]
    return group["t"][:], group["y"][:]


def free(path, moments, axis, M0, freq, tol, turning):
    Ixx, Iyy, Izz, Ixy, Iyz, Ixz = moments
    inertia = numpy.array([[Ixx, Ixy, Ixz], [Ixy, Iyy, Iyz], [Ixz, Iyz, Izz]])
    m = numpy.array(axis) / numpy.linalg.norm(axis)
    w = 2 * numpy.pi * freq
    with h5py.File(path, "r") as f:
        t, _ = channel(f, "ux")
        R = numpy.zeros((len(t), 3, 3))
        Rdot = numpy.zeros((len(t), 3, 3))
        for j, a in enumerate("uvw"):
            for i, x in enumerate("xyz"):
                R[:, i, j] = channel(f, f"{a}{x}")[1]
                Rdot[:, i, j] = channel(f, f"d{a}{x}")[1]
        _, rx = channel(f, "rx")
    H = numpy.zeros((len(t), 3))
    tumble = 0
    for k in range(len(t)):
        S = Rdot[k] @ R[k].T
        omega = numpy.array([S[2, 1] - S[1, 2], S[0, 2] - S[2, 0], S[1, 0] - S[0, 1]]) / 2
        H[k] = R[k] @ inertia @ R[k].T @ omega
        if numpy.linalg.norm(omega) > 0:
            tumble = max(tumble, numpy.linalg.norm(numpy.cross(omega / numpy.linalg.norm(omega), m)))
    exact = numpy.outer(M0 * (1 - numpy.cos(w * t)) / w, m)
    if turning:
        rate = M0 * numpy.sin(w * t)[:, None] * (R @ m)
        exact = numpy.concatenate(([numpy.zeros(3)], numpy.cumsum((rate[1:] + rate[:-1]) / 2 * numpy.diff(t)[:, None], axis=0)))
    scale = numpy.max(numpy.abs(exact))
    error = numpy.max(numpy.abs(H - exact)) / scale
    orthonormal = numpy.max(numpy.abs(numpy.einsum("kij,kil->kjl", R, R) - numpy.eye(3)))
    law = "the integral of M0 sin(w t) R m" if turning else "m M0 (1 - cos w t) / w"
    print(f"{len(t)} samples: max |H - {law}| = {error:.2e} of max |H| {scale:.4e} N m s (tolerance {tol:g})")
    print(f"the body tumbles: sin of the largest angle between omega and m {tumble:.3f} (needs > 0.05); R^T R - I {orthonormal:.1e}; centre of mass moved {numpy.max(numpy.abs(rx)):.1e} m")
    return 0 if error <= tol and tumble > 0.05 and orthonormal < 1e-6 and numpy.max(numpy.abs(rx)) < 1e-9 else 1


def follower(path, J, F, L, tol):
    with h5py.File(path, "r") as f:
        t, theta = channel(f, "theta") if "channels" in f else (f["signal/t"][:], f["signal/y"][:])
    exact = F * L * t**2 / (2 * J)
    fixed = numpy.max(numpy.abs(theta - exact)) / numpy.max(exact)
    print(f"theta reaches {numpy.max(theta):.4f} rad ({numpy.degrees(numpy.max(theta)):.1f} deg); max |theta - F L t^2 / (2 J)| = {fixed:.2e} of its largest (tolerance {tol:g})")
    return 0 if fixed <= tol and numpy.max(theta) > numpy.pi / 2 else 1


def main():
    mode, path = sys.argv[1], sys.argv[2]
    if mode == "free":
        turning = sys.argv[-1] == "body"
        args = [float(a) for a in sys.argv[3 : len(sys.argv) - turning]]
        return free(path, args[0:6], args[6:9], args[9], args[10], args[11], turning)
    if mode == "follower":
        return follower(path, *[float(a) for a in sys.argv[3:]])
    print(f"unknown mode {mode}")
    return 1


if __name__ == "__main__":
    sys.exit(main())
