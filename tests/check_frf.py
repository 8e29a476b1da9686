#!/usr/bin/python3
"""Checks mbsid frf of inputs/models/bushing2_frf.yaml against the closed form of its 2-dof system, computed here
independently: M = diag(m1, m2), K = [[k1 + k2, -k2], [-k2, k2]], D alike with d1, d2, the load on m1,

    X = (K - w^2 M + i w D)^-1 e_1,   x1 = X_1, x2 = X_2, v2 = i w X_2, a1 = -w^2 X_1, a2 = -w^2 X_2   (per newton),

every channel at every frequency to a relative 1e-10 of its largest modulus.

With --noise SIGMA (a file of mbsid frf -frf_noise SIGMA) the differences instead, scaled by each channel's largest
exact modulus, must be the noise of beam_bushings.md 9.4: real and imaginary parts of mean 0 and standard deviation
SIGMA / sqrt 2 each (to 10 %, over all channels and frequencies), and not the exact values.

Usage: check_frf.py FILE.h5 [--noise SIGMA] [name=value ...]   (parameters that differ from the model file's)
"""
import sys

import h5py
import numpy as np

p = dict(m1=1.0, m2=1.0, k1=2000.0, k2=1000.0, d1=4.0, d2=2.0)
args = sys.argv[2:]
sigma = None
if args[:1] == ["--noise"]:
    sigma = float(args[1])
    args = args[2:]
for item in args:
    name, value = item.split("=")
    p[name] = float(value)
M = np.diag([p["m1"], p["m2"]])
K = np.array([[p["k1"] + p["k2"], -p["k2"]], [-p["k2"], p["k2"]]])
D = np.array([[p["d1"] + p["d2"], -p["d2"]], [-p["d2"], p["d2"]]])
with h5py.File(sys.argv[1], "r") as f:
    freq = f["/frf/frequency_hz"][()]
    load = f["/frf/frequency_hz"].attrs["load"]
    H = {name: f["/channels/%s/frf/real" % name][()] + 1j * f["/channels/%s/frf/imag" % name][()] for name in f["/channels"]}
    units = {name: f["/channels/%s/frf/real" % name].attrs["units"] for name in f["/channels"]}
load = load.decode() if isinstance(load, bytes) else load
assert load == "F", "load attribute %r, expected 'F'" % load
expected_units = dict(x1="m/N", x2="m/N", v2="m/s/N", a1="m/s^2/N", a2="m/s^2/N")
worst = 0.0
scaled = []
for name, unit in units.items():
    unit = unit.decode() if isinstance(unit, bytes) else unit
    assert unit == expected_units[name], "channel %s in %r, expected %r" % (name, unit, expected_units[name])
for name in expected_units:
    assert name in H, "channel %s missing" % name
    exact = []
    for f in freq:
        w = 2 * np.pi * f
        X = np.linalg.solve(K - w * w * M + 1j * w * D, np.array([1.0, 0.0]))
        exact.append(dict(x1=X[0], x2=X[1], v2=1j * w * X[1], a1=-w * w * X[0], a2=-w * w * X[1])[name])
    exact = np.array(exact)
    scaled.append((H[name] - exact) / np.max(np.abs(exact)))
    error = np.max(np.abs(H[name] - exact)) / np.max(np.abs(exact))
    worst = max(worst, error)
    print("%-3s max |H - H_exact| / max |H_exact| = %.3e over %d frequencies" % (name, error, len(freq)))
if sigma is not None:
    parts = np.concatenate([np.concatenate([d.real, d.imag]) for d in scaled])
    std, mean = np.std(parts), np.mean(parts)
    print("noise: %d values, mean %.3e, standard deviation %.4e, expected %.4e" % (len(parts), mean, std, sigma / np.sqrt(2)))
    assert abs(std / (sigma / np.sqrt(2)) - 1) <= 0.1 and abs(mean) <= 0.2 * sigma, "not the noise of -frf_noise %g" % sigma
    sys.exit(0)
assert worst <= 1e-10, "largest relative error %.3e > 1e-10" % worst
print("frf closed form: largest relative error %.3e <= 1e-10" % worst)
