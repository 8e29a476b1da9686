#!/usr/bin/python3
"""The pendulum of inputs/models/gravity_pendulum.yaml at its identified g and m against the closed form.

Usage: check_gravity_pendulum.py MBSID MODEL IDENTIFY.h5 RTOL

Reads the identified g and m of IDENTIFY.h5, runs `mbsid eigen` on MODEL at them with the bench level (gx = 0, so that
the hanging pose is the static equilibrium eigen linearises about) and compares its undamped frequencies with the
spherical pendulum's small oscillations: along z f = sqrt(g / L) / (2 pi), along x (the spring k across it)
f = sqrt(g / L + k / m) / (2 pi), L = 0.8 m, k = 2 N/m. Both to RTOL relative; exits 1 otherwise.
"""
import math
import subprocess
import sys

import h5py

L, k = 0.8, 2.0


def main():
    mbsid, model, result, rtol = sys.argv[1], sys.argv[2], sys.argv[3], float(sys.argv[4])
    with h5py.File(result, "r") as f:
        names = [n.decode() if isinstance(n, bytes) else n for n in f["parameters/name"][:]]
        final = dict(zip(names, f["parameters/final"][:]))
    g, m = final["g"], final["m"]
    out = "gravity_pendulum_eigen.h5"
    subprocess.run([mbsid, "eigen", "-model_file", model, "-p_g", repr(g), "-p_m", repr(m), "-p_gx", "0", "-o", out], check=True)
    with h5py.File(out, "r") as f:
        computed = sorted(f["eigen/undamped_frequency_hz"][:])
    expected = sorted([math.sqrt(g / L) / (2 * math.pi), math.sqrt(g / L + k / m) / (2 * math.pi)])
    failed = len(computed) != 2
    for c, e in zip(computed, expected):
        error = abs(c - e) / e
        print(f"identified g = {g:.10g} m/s^2, m = {m:.10g} kg: eigen {c:.12g} Hz, closed form {e:.12g} Hz, relative error {error:.2e}")
        failed = failed or not error <= rtol
    sys.exit(1 if failed else 0)


if __name__ == "__main__":
    main()
