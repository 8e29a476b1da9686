#!/usr/bin/env python3
"""The modes of the flexible beam on two bushings (inputs/models/flexible/beam_bushings_small.yaml, mbsid eigen)
against an independent computation of the same reduced model in numpy: the body's rigid motions (t, theta) about its
centre of mass with the mass and inertia of its file, its mass-normalised elastic modes (M = 1, K = omega^2,
C = 2 zeta omega), and each bushing's K and D on the displacement of its node, t + theta x x_i + Phi_i delta, then the
quadratic eigenproblem as a first-order one. Usage: check_flex_bushings.py EIGEN_H5 BODY_H5 TOLERANCE"""
import sys
import h5py
import numpy as np

eigen, body, tol = sys.argv[1], sys.argv[2], float(sys.argv[3])
f = h5py.File(body, "r")
n, zeta = 4, 0.05  # beam_bushings_small.yaml: modes, modal_damping
x, T, S, w2 = f["nodes/coordinates"][:], f["modes/translation"][:, :n], f["inertia/slots"][:], np.diag(f["modes/stiffness"][:])[:n]
bushings = [(1, [1.0e6, 2.0e5, 2.0e5], [50, 20, 20]), (11, [1.0e6, 2.0e5, 2.0e5], [50, 20, 20])]  # node, k, d
J = S[1:4, 1:4]  # int X X^T dm
N = 6 + n
M, K, C = np.zeros((N, N)), np.zeros((N, N)), np.zeros((N, N))
M[:3, :3] = S[0, 0] * np.eye(3)
M[3:6, 3:6] = np.trace(J) * np.eye(3) - J  # the inertia tensor
M[6:, 6:] = np.eye(n)
K[6:, 6:] = np.diag(w2)
C[6:, 6:] = np.diag(2 * zeta * np.sqrt(w2))
for node, k, d in bushings:
    xi = x[node]
    skew = np.array([[0, -xi[2], xi[1]], [xi[2], 0, -xi[0]], [-xi[1], xi[0], 0]])
    B = np.hstack([np.eye(3), -skew, T[3 * node:3 * node + 3, :]])  # displacement of the node
    K += B.T @ np.diag(k) @ B
    C += B.T @ np.diag(d) @ B
A = np.block([[np.zeros((N, N)), np.eye(N)], [-np.linalg.solve(M, K), -np.linalg.solve(M, C)]])
lam = np.linalg.eigvals(A)
lam = lam[(lam.imag > 0) & (np.abs(lam) > 2 * np.pi * 0.1)]
lam = lam[np.argsort(np.abs(lam))]
ref, ref_zeta = np.abs(lam) / (2 * np.pi), -lam.real / np.abs(lam)
e = h5py.File(eigen, "r")["eigen"]
got, got_zeta = e["frequency_hz"][:], e["damping_ratio"][:]
order = np.argsort(got)
got, got_zeta = got[order], got_zeta[order]
got, got_zeta = got[got > 0.1], got_zeta[got > 0.1]
same = len(got) == len(ref)
err = np.max(np.abs(got - ref) / ref) if same else np.inf
err_zeta = np.max(np.abs(got_zeta - ref_zeta) / ref_zeta) if same else np.inf
print(f"mbsid eigen [Hz] {got}\nnumpy       [Hz] {ref}\nlargest relative difference {err:.2e}, of the damping ratios {err_zeta:.2e} (tolerance {tol:g})")
sys.exit(0 if err <= tol and err_zeta <= tol else 1)
