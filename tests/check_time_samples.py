#!/usr/bin/python3
"""Checks identifications of oscillator2 with the time cost on a measurement sampled 10 times finer than the step.

Usage: check_time_samples.py MEASUREMENT.h5 C2_START C2_TRUE RESULT.h5 ...

MEASUREMENT.h5 is x2 under F = F_max sin(2 pi t) on [0, 1] s at uniform samples, with noise; each RESULT.h5 is
mbsid identify of c2 from C2_START with the time cost and confidence, by a different integrator. Against the exact
solution of the linear system (matrix exponentials, check_design.py), independent of mbsid's integrators:
  - every sample contributes: /iterations/J[0] (J at C2_START) equals sum_i w_i (x2(t_i) - y_i)^2 over ALL samples,
    w_i their trapezoid weights, to the integration error; the sum over every 10th sample alone (the steps' nodes)
    must differ from it by far more, or the check could not tell the two apart;
  - the confidence counts every sample: degrees of freedom = samples - 1;
  - the estimates agree within the shift an output error of EPS = 1e-5 (relative, the integrators' global error
    budget at rtol 1e-6) can cause, |dc2| <= EPS max|x2| sum w |S| / sum w S^2, S = dx2/dc2 exact;
  - the standard deviation is the Gauss-Newton one of the trapezoid weights, sigma sqrt(sum w^2 S^2) / sum w S^2
    with the result's sigma and the exact S, relative 1e-4, and the intervals agree to 1e-3;
  - every 95 % interval contains C2_TRUE.
"""
import os
import sys

import h5py
import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from check_confidence import finish  # noqa: E402
from check_design import expm, oscillator2_matrices  # noqa: E402

F_MAX = 10.0
EPS = 1e-5


def exact_output(c2, h, n, t_end):
    """x2 and dx2/dc2 at t = 0, h, ..., (n - 1) h under F_max sin(2 pi t / t_end), from rest."""
    At, B = oscillator2_matrices(c2=c2)
    M = np.zeros((10, 10))
    M[:8, :8], M[:8, 8] = At, B * F_MAX
    omega = 2 * np.pi / t_end
    M[8, 9], M[9, 8] = omega, -omega
    step = expm(M * h)
    w = np.zeros(10)
    w[9] = 1  # [sin, cos] = [0, 1] at t = 0
    x2, s = np.empty(n), np.empty(n)
    for i in range(n):
        x2[i], s[i] = w[1], w[5]
        w = step @ w
    return x2, s


def trapezoid_weights(t):
    h = np.diff(t)
    return np.concatenate([[h[0] / 2], (h[:-1] + h[1:]) / 2, [h[-1] / 2]])


def main():
    meas, c2_start, c2_true, results = sys.argv[1], float(sys.argv[2]), float(sys.argv[3]), sys.argv[4:]
    with h5py.File(meas, "r") as f:
        t, y = f["/signal/t"][()], f["/signal/y"][()]
    h, faults = t[1] - t[0], []
    if np.max(np.abs(np.diff(t) - h)) > 1e-9 * h:
        sys.exit("%s: the samples are not uniform" % meas)
    w = trapezoid_weights(t)
    x2, _ = exact_output(c2_start, h, len(t), t[-1])
    j_all = np.sum(w * (x2 - y) ** 2)
    j_10th = np.sum(trapezoid_weights(t[::10]) * (x2[::10] - y[::10]) ** 2)
    print("%d samples, every %.3g s; J at c2 = %g: all samples %.10e, every 10th %.10e (%.2e apart)" % (len(t), h, c2_start, j_all, j_10th, abs(j_10th / j_all - 1)))
    found = []
    for path in results:
        with h5py.File(path, "r") as f:
            names = [n.decode() if isinstance(n, bytes) else n for n in f["parameters/name"][()]]
            c = f["confidence"]
            found.append((path, f["iterations/J"][0], f["parameters/final"][names.index("c2")], c["std"][0], c["lower_95"][0], c["upper_95"][0], float(c.attrs["sigma"]), int(c.attrs["degrees_of_freedom"])))
    # the J tolerance: 2 max|dx2| / rms(x2 - y) bounds the relative change of J by an output error dx2 = EPS max|x2|
    j_tol = 2 * EPS * np.max(np.abs(x2)) / np.sqrt(j_all / (t[-1] - t[0]))
    if abs(j_10th / j_all - 1) < 10 * j_tol:
        faults.append("every 10th sample gives J within %.2e of all samples: the check cannot tell them apart" % (10 * j_tol))
    reference = found[0]
    for path, j0, c2, std, lower, upper, sigma, dof in found:
        _, s = exact_output(c2, h, len(t), t[-1])
        shift = EPS * np.max(np.abs(x2)) * np.sum(w * np.abs(s)) / np.sum(w * s * s)
        textbook = sigma * np.sqrt(np.sum(w * w * s * s)) / np.sum(w * s * s)
        checks = [
            ("J at c2 = %g %.10e, over all samples %.10e" % (c2_start, j0, j_all), abs(j0 / j_all - 1), j_tol),
            ("degrees of freedom %d, samples - 1 = %d" % (dof, len(t) - 1), abs(dof - (len(t) - 1)), 0),
            ("c2 = %.8f N/m, %s gives %.8f" % (c2, reference[0], reference[2]), abs(c2 - reference[2]), shift),
            ("std %.8e N/m, Gauss-Newton of the trapezoid weights %.8e" % (std, textbook), abs(std / textbook - 1), 1e-4),
            ("std %.8e N/m, %s gives %.8e" % (std, reference[0], reference[3]), abs(std / reference[3] - 1), 1e-3),
            ("95 %% interval [%.6f, %.6f] N/m contains %g" % (lower, upper, c2_true), 0 if lower <= c2_true <= upper else 1, 0),
        ]
        for text, error, tol in checks:
            ok = error <= tol
            print("%s %s: %s (error %.3e, tolerance %.3e)" % ("ok  " if ok else "FAIL", path, text, error, tol))
            if not ok:
                faults.append("%s: %s" % (path, text))
    finish(faults)


if __name__ == "__main__":
    main()
