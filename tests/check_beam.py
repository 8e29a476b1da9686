#!/usr/bin/env python3
"""The file of mbsid beam (a straight steel beam, doc/model-files.md, "Flexible bodies") against the closed forms of the free-free
continuum (../shared/models/beam_bushings.md, section 3): Euler-Bernoulli bending in both planes (beta_n L = 4.7300,
7.8532, ...), the axial bar and St-Venant torsion (f_n = n c / (2 L)). Also: the modes are mass-normalised and the
inertia of the slots holds the beam's mass, centre and rigid inertia without rotary inertia in bending.
Usage: check_beam.py FILE TOL_BENDING TOL_BAR (relative errors of the frequencies: cubic elements in bending, linear
ones in the bar and torsion, whose error is O(h^2))"""
import sys
import h5py
import numpy as np

path, tol = sys.argv[1], {"bending": float(sys.argv[2]), "bar": float(sys.argv[3])}
L, b, h, E, G, rho, Jt = 1.2, 0.040, 0.010, 210e9, 81e9, 7850.0, 1.1232518e-8  # beam_bushings.md, section 3
A, Iy, Iz = b * h, b * h**3 / 12, h * b**3 / 12
f = h5py.File(path, "r")
assert f.attrs["reduction"] == "free-interface", f.attrs["reduction"]
freq = f["modes/frequencies"][:]
n = len(freq)
beta = [4.730040744862704, 7.853204624095838, 10.995607838001671, 14.137165491257464, 17.278759657399480]
beta += [(2 * k + 1) * np.pi / 2 for k in range(6, 13)]
bend = lambda I: [(bl / L) ** 2 * np.sqrt(E * I / (rho * A)) / (2 * np.pi) for bl in beta]
exact = {"z bending": bend(Iy), "y bending": bend(Iz),
         "axial": [k / (2 * L) * np.sqrt(E / rho) for k in range(1, 6)],
         "torsion": [k / (2 * L) * np.sqrt(G * Jt / (rho * (Iy + Iz))) for k in range(1, 6)]}
T, R = f["modes/translation"][:], f["modes/rotation"][:]
count, worst = {key: 0 for key in exact}, {"bending": 0.0, "bar": 0.0}
for j in range(n):
    share = [np.sum(T[0::3, j] ** 2), np.sum(T[1::3, j] ** 2), np.sum(T[2::3, j] ** 2), np.sum(R[0::3, j] ** 2)]
    kind = ["axial", "y bending", "z bending", "torsion"][int(np.argmax(share))]
    ref = exact[kind][count[kind]]
    count[kind] += 1
    err = abs(freq[j] - ref) / ref
    group = "bending" if "bending" in kind else "bar"
    worst[group] = max(worst[group], err)
    print(f"mode {j + 1:2d}  {kind:9s}  {freq[j]:12.6f} Hz  closed form {ref:12.6f} Hz  relative error {err:.2e}")
S = f["inertia/slots"][:]
M = np.array([[sum(S[4 + 3 * j + k, 4 + 3 * l + k] for k in range(3)) for l in range(n)] for j in range(n)])
inertia = [S[2, 2] + S[3, 3], S[1, 1] + S[3, 3], S[1, 1] + S[2, 2]]  # about x, y, z: tr(Jbar) - Jbar_kk
rigid = [rho * (Iy + Iz) * L, rho * A * L**3 / 12, rho * A * L**3 / 12]
checks = [all(worst[g] <= tol[g] for g in tol), abs(S[0, 0] - rho * A * L) <= 1e-12 * rho * A * L, np.max(np.abs(S[0, 1:4])) <= 1e-12,
          np.max(np.abs(M - np.eye(n))) <= 1e-9, max(abs(a - c) / c for a, c in zip(inertia, rigid)) <= 1e-12]
print(f"largest frequency errors {worst} (tolerances {tol}); mass {S[0, 0]:.6f} kg; modal mass - 1: {np.max(np.abs(M - np.eye(n))):.1e};"
      f" rigid inertia {inertia} (closed form {rigid})")
sys.exit(0 if all(checks) else 1)
