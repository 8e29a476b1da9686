#!/usr/bin/env python3
"""The modes of a free flexible body in a model (mbsid eigen) against its file's finite-element modes (mbsid beam's
eigenproblem, an independent computation: the model assembles the formulation's mass, stiffness and constraints and
projects onto the free motions) and against the closed-form Euler-Bernoulli free-free frequencies of the beam of
../shared/models/beam_bushings.md (beta_n L = 4.7300, 7.8532, 10.9956), to the elements' accuracy.
Usage: check_flex_modes.py EIGEN_H5 BODY_H5 TOL_FILE TOL_CLOSED_FORM"""
import sys
import h5py
import numpy as np

eigen, body, tol_file, tol_exact = sys.argv[1], sys.argv[2], float(sys.argv[3]), float(sys.argv[4])
f = np.sort(h5py.File(eigen, "r")["eigen/frequency_hz"][:])
rigid, elastic = f[f < 1e-2], f[f >= 1e-2]
fe = h5py.File(body, "r")["modes/frequencies"][:]
L, b, h, E, rho = 1.2, 0.040, 0.010, 210e9, 7850.0
A, Iy, Iz = b * h, b * h**3 / 12, h * b**3 / 12
bend = lambda bl, I: (bl / L) ** 2 * np.sqrt(E * I / (rho * A)) / (2 * np.pi)
exact = np.sort([bend(4.730040744862704, Iy), bend(7.853204624095838, Iy), bend(4.730040744862704, Iz), bend(10.995607838001671, Iy)])
err_file = np.max(np.abs(elastic - fe) / fe) if len(elastic) == len(fe) else np.inf
err_exact = np.max(np.abs(elastic[:4] - exact) / exact) if len(elastic) >= 4 else np.inf
print(f"model's elastic modes [Hz] {elastic}; file's {fe}; closed form {exact}")
print(f"relative difference to the file's {err_file:.2e} (tolerance {tol_file:g}), to the closed form {err_exact:.2e} (tolerance {tol_exact:g}); "
      f"{len(rigid)} frequencies below 0.01 Hz (rigid-body modes; the reduced eigenproblem reports one of each zero pair at most)")
sys.exit(0 if err_file <= tol_file and err_exact <= tol_exact else 1)
