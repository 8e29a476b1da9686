#!/usr/bin/env python3
"""The beam of ../shared/models/beam_bushings.md on its two bushings (dampers removed), undamped frequencies below
300 Hz: mbsid's reduced models (mbsid eigen of model files whose flexible body keeps free-free modes, with attachment
modes at the bushing nodes or without) against numpy's eigenproblem of the full finite-element model (the same 3D
Euler-Bernoulli elements written anew here, every degree of freedom, the bushings as springs on the nodes'
translations). Usage: check_flex_attachment.py ELEMENTS TOL_WITH EIGEN_WITH_H5 [EIGEN_WITHOUT_H5 MIN_ERR_WITHOUT]
(the model without attachment modes must be worse than MIN_ERR_WITHOUT: the attachment modes are what converges)"""
import sys
import h5py
import numpy as np

ne, tol = int(sys.argv[1]), float(sys.argv[2])
L, b, h, E, G, rho, Jt = 1.2, 0.040, 0.010, 210e9, 81e9, 7850.0, 1.1232518e-8
A, Iy, Iz = b * h, b * h**3 / 12, h * b**3 / 12
l, nd = L / ne, 6 * (ne + 1)
K, M = np.zeros((nd, nd)), np.zeros((nd, nd))
bar, barm = np.array([[1, -1], [-1, 1]]), np.array([[2, 1], [1, 2]])
bend = np.array([[12, 6 * l, -12, 6 * l], [6 * l, 4 * l * l, -6 * l, 2 * l * l], [-12, -6 * l, 12, -6 * l], [6 * l, 2 * l * l, -6 * l, 4 * l * l]])
bendm = np.array([[156, 22 * l, 54, -13 * l], [22 * l, 4 * l * l, 13 * l, -3 * l * l], [54, 13 * l, 156, -22 * l], [-13 * l, -3 * l * l, -22 * l, 4 * l * l]])
for e in range(ne):
    a, c = 6 * e, 6 * e + 6
    for idx, ke, me in (([a, c], E * A / l * bar, rho * A * l / 6 * barm), ([a + 3, c + 3], G * Jt / l * bar, rho * (Iy + Iz) * l / 6 * barm)):
        K[np.ix_(idx, idx)] += ke
        M[np.ix_(idx, idx)] += me
    for idx, s, I in (([a + 1, a + 5, c + 1, c + 5], np.array([1, 1, 1, 1]), Iz), ([a + 2, a + 4, c + 2, c + 4], np.array([1, -1, 1, -1]), Iy)):
        S = np.outer(s, s)
        K[np.ix_(idx, idx)] += E * I / l**3 * bend * S
        M[np.ix_(idx, idx)] += rho * A * l / 420 * bendm * S
for x in (0.1, 1.1):  # the bushings: k = (1e6, 2e5, 2e5) N/m on the node's translation
    i = int(round(x / l))
    for k, kk in enumerate((1.0e6, 2.0e5, 2.0e5)):
        K[6 * i + k, 6 * i + k] += kk
Lc = np.linalg.cholesky(M)
w2 = np.linalg.eigvalsh(np.linalg.solve(Lc, np.linalg.solve(Lc, K).T))
f = np.sqrt(np.abs(w2)) / (2 * np.pi)
ref = f[(f > 1) & (f < 300)]


def error(path):
    got = np.sort(h5py.File(path, "r")["eigen/frequency_hz"][:])
    got = got[(got > 1)][: len(ref)]
    return np.max(np.abs(got - ref) / ref), got


err, got = error(sys.argv[3])
print(f"full FE ({ne} elements) [Hz] {np.round(ref, 4)}\nreduced with attachment modes [Hz] {np.round(got, 4)}: largest relative error {err:.2e} (tolerance {tol:g})")
ok = err <= tol
if len(sys.argv) > 4:
    err0, got0 = error(sys.argv[4])
    print(f"reduced without [Hz] {np.round(got0, 4)}: largest relative error {err0:.2e} (must exceed {float(sys.argv[5]):g})")
    ok = ok and err0 > float(sys.argv[5])
sys.exit(0 if ok else 1)
