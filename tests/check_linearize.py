#!/usr/bin/env python3
"""mbsid simulate -linearize (src/models/linearized.c) against the model itself and a closed form.

  check_linearize.py LINEAR_H5 LINEAR_HALF_H5 NONLINEAR_H5 TOL
  check_linearize.py tangent MODEL_H5 LINEAR_H5 MODEL_SMALL_H5 LINEAR_SMALL_H5 TOL

tangent: a nonlinear model (tests/models/beam_small_linearize.yaml: a flexible beam on bushings with a free roll and a
load fixed in ground) under its load and under a quarter of it, and its linearisation under each, on the same steps.
The linearisation is the model's tangent at rest: for every channel the difference relative to the channel's largest
value is at most TOL under the full load and falls at least 3-fold with the load (the leading error is quadratic in
the load, so relative to the response it falls 4-fold or more); wrong M, C, K, B or output rows leave a difference
that does not fall.

The first form, on tests/models/bushing2_linearize.yaml, a model that is linear:

LINEAR_H5: the linearisation integrated by CN at step h, LINEAR_HALF_H5 at h/2, NONLINEAR_H5: the model itself (the
described DAE with its rails' multipliers) by CN at step h. Asserts, for each of the channels x2, v1, a1, a2:
  - the linearisation equals the model at the same steps to 1e-9 of the channel's largest value (the model is linear,
    so the two differ only by the Newton solves);
  - the linearisation at h/2 equals the closed form to TOL of the channel's largest value: the exact response from
    rest of M x'' + C x' + K x = e1 F(t), F = 10 (sin 2 pi 2 t + sin 2 pi 6 t), M = diag(m1, m2),
    C = [[d1 + d2, -d2], [-d2, d2]], K likewise with k (the sum of each harmonic's steady state and the free motion
    e^{A t} that starts from minus its state at t = 0), numpy only;
  - second order: the error at h over the error at h/2 is 4 within 10 % (CN).
"""
import sys
import h5py
import numpy as np

m1, m2, k1, k2, d1, d2 = 1.0, 1.0, 2000.0, 1000.0, 4.0, 2.0
HARMONICS = [(10.0, 2.0), (10.0, 6.0)]
CHANNELS = ["x2", "v1", "a1", "a2"]


def closed_form(t):
    M = np.diag([m1, m2])
    C = np.array([[d1 + d2, -d2], [-d2, d2]])
    K = np.array([[k1 + k2, -k2], [-k2, k2]])
    Minv = np.linalg.inv(M)
    A = np.block([[np.zeros((2, 2)), np.eye(2)], [-Minv @ K, -Minv @ C]])
    b = np.concatenate([np.zeros(2), Minv @ np.array([1.0, 0.0])])
    z = np.zeros((len(t), 4), dtype=complex)
    z0 = np.zeros(4, dtype=complex)
    for amp, f in HARMONICS:  # amp sin(w t) = Im(amp e^{i w t})
        w = 2 * np.pi * f
        Z = np.linalg.solve(1j * w * np.eye(4) - A, b * amp)
        z += np.outer(np.exp(1j * w * t), Z).imag
        z0 += Z.imag
    lam, V = np.linalg.eig(A)
    c = np.linalg.solve(V, -z0)
    z += (V @ (c[:, None] * np.exp(np.outer(lam, t)))).T
    z = z.real
    force = sum(amp * np.sin(2 * np.pi * f * t) for amp, f in HARMONICS)
    acc = (A @ z.T).T[:, 2:] + np.outer(force, b[2:])
    return {"x2": z[:, 1], "v1": z[:, 2], "a1": acc[:, 0], "a2": acc[:, 1]}


def read(path):
    f = h5py.File(path, "r")["channels"]
    return f["x2/signal/t"][:], {c: f[c + "/signal/y"][:] for c in CHANNELS}


def tangent(model, lin, model_small, lin_small, tol):
    ok = True
    a, b, c, d = (h5py.File(p, "r")["channels"] for p in (model, lin, model_small, lin_small))
    for name in a:
        full, small = (np.abs(m[name + "/signal/y"][:] - l[name + "/signal/y"][:]).max() / np.abs(l[name + "/signal/y"][:]).max() for m, l in ((a, b), (c, d)))
        good = full <= tol and small <= full / 3
        ok = ok and good
        print(f"{name}: model - linearisation {full:.2e} (load), {small:.2e} (a quarter of it), ratio {full / small:.2f}" + ("" if good else "  <- FAILS"))
    print(f"the linearisation is the model's tangent (difference at most {tol:g}, falling at least 3-fold with the load): {'pass' if ok else 'FAIL'}")
    return ok


def main():
    if sys.argv[1] == "tangent":
        sys.exit(0 if tangent(*sys.argv[2:6], float(sys.argv[6])) else 1)
    lin, half, nonlin, tol = sys.argv[1], sys.argv[2], sys.argv[3], float(sys.argv[4])
    t, yl = read(lin)
    th, yh = read(half)
    tn, yn = read(nonlin)
    assert np.array_equal(t, tn), "the linearisation and the model were not run on the same steps"
    exact, exact_h = closed_form(t), closed_form(th)
    ok = True
    for c in CHANNELS:
        scale = np.abs(exact[c]).max()
        same = np.abs(yl[c] - yn[c]).max() / scale
        err, err_h = np.abs(yl[c] - exact[c]).max() / scale, np.abs(yh[c] - exact_h[c]).max() / scale
        good = same <= 1e-9 and err_h <= tol and abs(err / err_h - 4) <= 0.4
        ok = ok and good
        print(f"{c}: linearisation - model {same:.2e}, - closed form {err:.2e} (h), {err_h:.2e} (h/2), ratio {err / err_h:.3f} (of the largest |{c}| {scale:.4e})" + ("" if good else "  <- FAILS"))
    print(f"linearisation against the model (1e-9) and the closed form ({tol:g}, second order): {'pass' if ok else 'FAIL'}")
    sys.exit(0 if ok else 1)


if __name__ == "__main__":
    main()
