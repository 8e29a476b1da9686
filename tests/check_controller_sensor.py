#!/usr/bin/env python3
"""Checks a controller that reads another sensor than the model's output (-controller_sensor) against truth computed
here from the equations of tests/models/pid_two_sensors.yaml, written out by hand: two masses on a rail, the force
F_App(t) - u on m1, a spring k1 and damper c1 from the ground to m1 and k2, c2 from m1 to m2,

    m1 x1'' + (c1 + c2) x1' - c2 x2' + (k1 + k2) x1 - k2 x2 = F_App(t) - u,
    m2 x2'' + c2 (x2' - x1') + k2 (x2 - x1) = 0,

and a PID u = K_p y + K_i int y + K_d y' on the sensor y, one of x1, v1 = x1', x2, v2 = x2'.

  check_controller_sensor.py eigen FILE --plant m1,m2,k1,c1,k2,c2 --sensor S --rtol r
      the closed-loop eigenvalues of mbsid eigen -controller (/eigen/closed_loop, /eigen/closed_loop_integral) equal
      the roots (numpy) of the characteristic polynomials built here with the gains the file reports: with the
      feedback rank one, det(D + g b s^T) = det D + g s^T adj(D) b, D(l) = M l^2 + C l + K, b = e1,
      s(l) = s_q + l s_v the sensor's row; without the integral state g = K_p + K_d l, with it (one more coordinate
      z' = y) l (det D + (K_p + K_d l) s^T adj(D) b) + K_i s^T adj(D) b. Each root within r max(1, |root|).
  check_controller_sensor.py loop FILE --plant ... --sensor S --gains Kp,Ki,Kd --force A,f --dt h --tf T --rtol r
      the samples y_n and u_n that mbsid perturb recorded without perturbations (/perturbation/reference) equal a
      simulation made here of the same sampled loop: the plant on the trapezoidal rule (Crank-Nicolson) with steps h,
      u held over each sample period (the file's controller_dt), the built-in pid's law (pid_sdof.md, section 3:
      trapezoidal integral, backward-difference derivative, u_0 = K_p y_0); within r of the largest |y| and |u|.
"""
import argparse
import sys

import h5py
import numpy as np

P = np.polynomial.polynomial


def floats(text):
    return [float(v) for v in text.split(",")]


def matrices(plant):
    m1, m2, k1, c1, k2, c2 = plant
    M = np.diag([m1, m2])
    C = np.array([[c1 + c2, -c2], [-c2, c2]])
    K = np.array([[k1 + k2, -k2], [-k2, k2]])
    return M, C, K


def sensor_rows(sensor):
    """s_q, s_v of the sensor on (x1, x2)"""
    index = {"1": 0, "2": 1}[sensor[1]]
    row = np.eye(2)[index]
    return (row, np.zeros(2)) if sensor[0] == "x" else (np.zeros(2), row)


def check_eigen(f, args, faults):
    M, C, K = matrices(floats(args.plant))
    sq, sv = sensor_rows(args.sensor)
    kp, ki, kd = f["/eigen/controller_gains"][()]
    D = [[[K[i, j], C[i, j], M[i, j]] for j in range(2)] for i in range(2)]
    det = P.polysub(P.polymul(D[0][0], D[1][1]), P.polymul(D[0][1], D[1][0]))
    adj_b = [D[1][1], P.polymul([-1], D[1][0])]  # adj(D) e1 = (D22, -D21)
    s_adj_b = P.polyadd(P.polymul([sq[0], sv[0]], adj_b[0]), P.polymul([sq[1], sv[1]], adj_b[1]))
    closed = P.polyadd(det, P.polymul([kp, kd], s_adj_b))
    polynomials = {"closed_loop": closed, "closed_loop_integral": P.polyadd(P.polymul([0, 1], closed), P.polymul([ki], s_adj_b))}
    for group, polynomial in polynomials.items():
        roots = P.polyroots(polynomial)
        found = f["/eigen/%s/eigenvalues" % group][()]
        found = found[:, 0] + 1j * found[:, 1] if found.ndim == 2 else found
        if len(found) != len(roots):
            faults.append("%s: %d finite eigenvalues, the polynomial has %d roots" % (group, len(found), len(roots)))
            continue
        worst = 0
        for root in roots:
            error = np.min(np.abs(found - root)) / max(1.0, abs(root))
            worst = max(worst, error)
            if not error <= args.rtol:
                faults.append("%s: root %s has no eigenvalue within %g (%.2e)" % (group, root, args.rtol, error))
        print("%s on sensor %s: %d eigenvalues against the roots of the characteristic polynomial, largest error %.2e" % (group, args.sensor, len(roots), worst))


def check_loop(f, args, faults):
    M, C, K = matrices(floats(args.plant))
    sq, sv = sensor_rows(args.sensor)
    kp, ki, kd = floats(args.gains)
    amplitude, frequency = floats(args.force)
    g = f["/perturbation"]
    dt_sample = float(g.attrs["controller_dt"])
    if g.attrs["controller_sensor"] != args.sensor:
        faults.append("the file says the controller read %s, not %s" % (g.attrs["controller_sensor"], args.sensor))
    h = args.dt
    m = int(round(dt_sample / h))
    samples = int(round(args.tf / dt_sample)) + 1
    # x' = A x + B (F - u), x = (x1, x2, v1, v2); the trapezoidal step (I - h/2 A) x+ = (I + h/2 A) x + h/2 B (f + f+)
    Minv = np.linalg.inv(M)
    A = np.block([[np.zeros((2, 2)), np.eye(2)], [-Minv @ K, -Minv @ C]])
    B = np.concatenate([np.zeros(2), Minv @ np.array([1.0, 0.0])])
    left, right = np.eye(4) - h / 2 * A, np.eye(4) + h / 2 * A
    x, t = np.zeros(4), 0.0
    y, u = np.zeros(samples), np.zeros(samples)
    law = lambda t: amplitude * np.sin(2 * np.pi * frequency * t)
    for n in range(samples):
        y[n] = sq @ x[:2] + sv @ x[2:]
        if n == 0:
            integral, rate = 0.0, 0.0
        else:
            integral += dt_sample * (y[n - 1] + y[n]) / 2
            rate = (y[n] - y[n - 1]) / dt_sample
        u[n] = kp * y[n] + ki * integral + kd * rate
        for k in range(m):
            t0, t1 = n * dt_sample + k * h, n * dt_sample + (k + 1) * h
            x = np.linalg.solve(left, right @ x + h / 2 * B * (law(t0) + law(t1) - 2 * u[n]))
    for name, want in (("y", y), ("u", u)):
        got = g["reference/" + name][()]
        if got.shape != want.shape:
            faults.append("%s: %d samples, want %d" % (name, len(got), len(want)))
            continue
        error = np.max(np.abs(got - want)) / np.max(np.abs(want))
        print("%s (%s) of mbsid perturb against the loop simulated here: %d samples, largest difference %.2e of max |%s| = %.4g" % (name, args.sensor if name == "y" else "N", len(want), error, name, np.max(np.abs(want))))
        if not error <= args.rtol:
            faults.append("%s differs from the loop simulated here by %.2e of its largest value (rtol %g)" % (name, error, args.rtol))


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("mode", choices=["eigen", "loop"])
    parser.add_argument("file")
    parser.add_argument("--plant", required=True)
    parser.add_argument("--sensor", required=True, choices=["x1", "v1", "x2", "v2"])
    parser.add_argument("--rtol", type=float, required=True)
    parser.add_argument("--gains", default="100,20,6")
    parser.add_argument("--force", default="10,1")
    parser.add_argument("--dt", type=float, default=1e-3)
    parser.add_argument("--tf", type=float, default=1.0)
    args = parser.parse_args()
    faults = []
    with h5py.File(args.file, "r") as f:
        (check_eigen if args.mode == "eigen" else check_loop)(f, args, faults)
    for fault in faults:
        print("FAIL:", fault)
    sys.exit(1 if faults else 0)


if __name__ == "__main__":
    main()
