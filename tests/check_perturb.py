#!/usr/bin/env python3
"""Checks the result files of mbsid perturb and mbsid eigen -controller against independent truth.

  check_perturb.py gains FILE --truth Kp,Ki,Kd --atol a_p,a_i,a_d [--zero-times t1,...]
      every estimate within atol of the truth (or exactly zero at the zero times, and only there); the sampled
      controller output and plant output with perturbations equal those of the run without, bit for bit
  check_perturb.py eigen FILE --plant m,c,k --rtol r
      the closed-loop eigenvalues (with and without the integral coordinate) and the open loop's equal the roots of
      the characteristic polynomials m l^3 + (c + Kd) l^2 + (k + Kp) l + Ki, m l^2 + (c + Kd) l + (k + Kp) and
      m l^2 + c l + k (numpy.roots), with the gains the file reports
  --samples N --sample-dt dt (gains): the controller was sampled N times, at exactly t_n = n dt (n = 0..N-1, in
      double precision), with and without perturbations
"""
import argparse
import sys

import h5py
import numpy as np


def floats(text):
    return [float(v) for v in text.split(",")] if text else []


def check_gains(f, args, faults):
    g = f["/perturbation"]
    times, gains = g["time"][()], g["gains"][()]
    truth, atol, zero = floats(args.truth), floats(args.atol), floats(args.zero_times)
    for t, row in zip(times, gains):
        collapsed = any(abs(t - z) < 1e-9 for z in zero)
        want = [0.0] * len(truth) if collapsed else truth
        for k, (got, w, a) in enumerate(zip(row, want, atol)):
            if not abs(got - w) <= a:
                faults.append("t0 = %g s: gain %d is %.17g, want %.17g within %g" % (t, k + 1, got, w, a))
        if (all(v == 0 for v in row)) != collapsed:
            faults.append("t0 = %g s: all estimates zero is %s, expected %s" % (t, all(v == 0 for v in row), collapsed))
    for name in ("u", "y"):
        a, b = g["signal/" + name][()], g["reference/" + name][()]
        if a.shape != b.shape or not np.array_equal(a, b) or a.tobytes() != b.tobytes():
            faults.append("signal/%s differs from reference/%s" % (name, name))
    if np.ptp(g["signal/u"][()]) == 0:
        faults.append("the controller output never changes: nothing was compared")
    if args.samples:
        t, want = g["signal/t"][()], np.arange(args.samples) * args.sample_dt
        if t.shape != want.shape:
            faults.append("%d samples, want %d" % (len(t), args.samples))
        elif not np.array_equal(t, want):
            n = int(np.argmax(t != want))
            faults.append("sample %d at t = %.17g s, want %.17g s = %d x %g s" % (n, t[n], want[n], n, args.sample_dt))
        else:
            print("%d samples at exactly n x %g s, the last at %.17g s" % (len(t), args.sample_dt, t[-1]))
    print("%d estimates checked against %s; signal and reference equal bit for bit over %d samples" % (len(times), args.truth, len(g["signal/u"])))


def check_eigen(f, args, faults):
    m, c, k = floats(args.plant)
    kp, ki, kd = f["/eigen/controller_gains"][()]
    polynomials = {
        "open_loop": [m, c, k],
        "closed_loop": [m, c + kd, k + kp],
        "closed_loop_integral": [m, c + kd, k + kp, ki],
    }
    for group, coefficients in polynomials.items():
        roots = np.roots(coefficients)
        found = f["/eigen/%s/eigenvalues" % group][()]
        found = found[:, 0] + 1j * found[:, 1]
        if len(found) != len(roots):
            faults.append("%s: %d finite eigenvalues, the polynomial has %d roots" % (group, len(found), len(roots)))
            continue
        for root in roots:
            error = min(abs(found - root)) / abs(root)
            print("%-22s root %-36s relative distance %.2e" % (group, "%.12g%+.12gi" % (root.real, root.imag), error))
            if not error <= args.rtol:
                faults.append("%s: root %s has no eigenvalue within %g relative (%.2e)" % (group, root, args.rtol, error))


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("mode", choices=["gains", "eigen"])
    parser.add_argument("file")
    parser.add_argument("--truth", default="")
    parser.add_argument("--atol", default="")
    parser.add_argument("--zero-times", default="")
    parser.add_argument("--plant", default="1,1,100")
    parser.add_argument("--rtol", type=float, default=1e-9)
    parser.add_argument("--samples", type=int, default=0)
    parser.add_argument("--sample-dt", type=float, default=0.0)
    args = parser.parse_args()
    faults = []
    with h5py.File(args.file, "r") as f:
        (check_gains if args.mode == "gains" else check_eigen)(f, args, faults)
    for fault in faults:
        print("FAIL " + fault)
    print("%s: %d faults" % (args.file, len(faults)))
    sys.exit(1 if faults else 0)


if __name__ == "__main__":
    main()
