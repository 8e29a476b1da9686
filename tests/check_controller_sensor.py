#!/usr/bin/env python3
"""Checks controllers that read any sensor of a model (-controller_sensor) and drive any force with input: true
(-FORCE_controller) against truth computed here from the equations of tests/models/pid_two_sensors.yaml and
pid_two_inputs.yaml, written out by hand: two masses on a rail, a spring k1 and damper c1 from the ground to m1, k2, c2
from m1 to m2, and on mass i the force F_i(t) - u_i (u_i = 0 without a controller on it):

    m1 x1'' + (c1 + c2) x1' - c2 x2' + (k1 + k2) x1 - k2 x2 = F_1(t) - u_1,
    m2 x2'' + c2 (x2' - x1') + k2 (x2 - x1) = F_2(t) - u_2,

each loop a PID u = K_p y + K_i int y + K_d y' on its sensor y, one of x1, v1 = x1', x2, v2 = x2'. Each loop is given
as --loop FORCE MASS SENSOR GAINS (GAINS K_p,K_i,K_d, or - for eigen, which reads them from the file), the first the
one of -controller, the others of -FORCE_controller.

  check_controller_sensor.py eigen FILE --plant m1,m2,k1,c1,k2,c2 --loop ... --rtol r
      the closed-loop eigenvalues of mbsid eigen -controller (/eigen/closed_loop, /eigen/closed_loop_integral) equal
      the eigenvalues (numpy) of the first-order system in (x, x', z) built here with the gains the file reports:
      (M + sum K_d b s_v^T) x'' = -(C + sum K_p b s_v^T + K_d b s_q^T) x' - (K + sum K_p b s_q^T) x - sum K_i b z_l,
      z_l' = s_q x + s_v x' (without the integral states: no z). Each within r max(1, |lambda|).
  check_controller_sensor.py loop FILE --plant ... --loop ... --force A1,f1,A2,f2 --dt h --tf T --rtol r
      the samples y_n and u_n of every loop that mbsid perturb recorded without perturbations (/perturbation/reference,
      /perturbation/loops/FORCE/reference) equal a simulation made here of the same sampled loops: the plant on the
      trapezoidal rule (Crank-Nicolson) with steps h, F_i = A_i sin(2 pi f_i t), each u held over the sample period
      (the file's controller_dt), the built-in pid's law (pid_sdof.md, section 3: trapezoidal integral,
      backward-difference derivative, u_0 = K_p y_0); within r of the largest |y| and |u| of the loop.
"""
import argparse
import sys

import h5py
import numpy as np


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
    row = np.eye(2)[int(sensor[1]) - 1]
    return (row, np.zeros(2)) if sensor[0] == "x" else (np.zeros(2), row)


def loops(args):
    """(force, b, s_q, s_v, sensor, gains or None) of each --loop"""
    result = []
    for force, mass, sensor, gains in args.loop:
        sq, sv = sensor_rows(sensor)
        result.append((force, np.eye(2)[int(mass) - 1], sq, sv, sensor, None if gains == "-" else floats(gains)))
    return result


def check_eigen(f, args, faults):
    M, C, K = matrices(floats(args.plant))
    gains = np.atleast_2d(f["/eigen/controller_gains"][()])
    sensors = f["/eigen/controller_gains"].attrs["controller_sensor"].split(",")
    forces = f["/eigen/controller_gains"].attrs["controller_force"].split(",")
    loop = loops(args)
    if len(gains) != len(loop) or [l[4] for l in loop] != sensors or [l[0] for l in loop] != forces:
        faults.append("the file has loops %s on sensors %s, want %s on %s" % (forces, sensors, [l[0] for l in loop], [l[4] for l in loop]))
        return
    for (force, _, _, _, _, given), row in zip(loop, gains):
        if given is not None and not np.array_equal(np.asarray(given, dtype=float), row):
            faults.append("loop %s has gains %s, the command gave %s" % (force, list(row), given))
    Mc, Cc, Kc = M.copy(), C.copy(), K.copy()
    for (force, b, sq, sv, sensor, _), (kp, ki, kd) in zip(loop, gains):
        Mc += kd * np.outer(b, sv)
        Cc += kp * np.outer(b, sv) + kd * np.outer(b, sq)
        Kc += kp * np.outer(b, sq)
    nl = len(loop)
    Minv = np.linalg.inv(Mc)
    for group, integral in (("closed_loop", False), ("closed_loop_integral", True)):
        n = 4 + (nl if integral else 0)
        A = np.zeros((n, n))
        A[0:2, 2:4] = np.eye(2)
        A[2:4, 0:2] = -Minv @ Kc
        A[2:4, 2:4] = -Minv @ Cc
        for l, ((force, b, sq, sv, sensor, _), (kp, ki, kd)) in enumerate(zip(loop, gains)):
            if integral:
                A[2:4, 4 + l] = -Minv @ (ki * b)
                A[4 + l, 0:2] = sq
                A[4 + l, 2:4] = sv
        want = np.linalg.eigvals(A)
        found = f["/eigen/%s/eigenvalues" % group][()]
        found = found[:, 0] + 1j * found[:, 1] if found.ndim == 2 else found
        if len(found) != len(want):
            faults.append("%s: %d finite eigenvalues, the first-order system has %d" % (group, len(found), len(want)))
            continue
        worst = 0
        for value in want:
            error = np.min(np.abs(found - value)) / max(1.0, abs(value))
            worst = max(worst, error)
            if not error <= args.rtol:
                faults.append("%s: eigenvalue %s of the first-order system has no eigenvalue of mbsid within %g (%.2e)" % (group, value, args.rtol, error))
        print("%s, loops %s: %d eigenvalues against numpy's of the first-order system, largest error %.2e" % (group, ", ".join("%s <- %s" % (l[0], l[4]) for l in loop), len(want), worst))


def check_loop(f, args, faults):
    M, C, K = matrices(floats(args.plant))
    loop = loops(args)
    law = floats(args.force)
    g0 = f["/perturbation"]
    dt_sample = float(g0.attrs["controller_dt"])
    groups = [g0] + [f["/perturbation/loops/" + l[0]] for l in loop[1:]]
    for g, l in zip(groups, loop):
        if g.attrs["controller_sensor"] != l[4] or g.attrs["controller_force"] != l[0]:
            faults.append("the file says controller %s read %s and drove %s, want %s and %s" % (g.attrs["controller"], g.attrs["controller_sensor"], g.attrs["controller_force"], l[4], l[0]))
    h = args.dt
    m = int(round(dt_sample / h))
    samples = int(round(args.tf / dt_sample)) + 1
    # x' = A x + B (F(t) - u), x = (x1, x2, v1, v2); trapezoidal step (I - h/2 A) x+ = (I + h/2 A) x + h/2 B (f + f+)
    Minv = np.linalg.inv(M)
    A = np.block([[np.zeros((2, 2)), np.eye(2)], [-Minv @ K, -Minv @ C]])
    B = np.vstack([np.zeros((2, 2)), Minv])
    left, right = np.eye(4) - h / 2 * A, np.eye(4) + h / 2 * A
    force = lambda t: np.array([law[0] * np.sin(2 * np.pi * law[1] * t), law[2] * np.sin(2 * np.pi * law[3] * t)])
    x = np.zeros(4)
    y, u = np.zeros((len(loop), samples)), np.zeros((len(loop), samples))
    integral, rate = np.zeros(len(loop)), np.zeros(len(loop))
    for n in range(samples):
        held = np.zeros(2)
        for k, (_, b, sq, sv, _, (kp, ki, kd)) in enumerate(loop):
            y[k, n] = sq @ x[:2] + sv @ x[2:]
            if n:
                integral[k] += dt_sample * (y[k, n - 1] + y[k, n]) / 2
                rate[k] = (y[k, n] - y[k, n - 1]) / dt_sample
            u[k, n] = kp * y[k, n] + ki * integral[k] + kd * rate[k]
            held += b * u[k, n]
        for i in range(m):
            t0, t1 = n * dt_sample + i * h, n * dt_sample + (i + 1) * h
            x = np.linalg.solve(left, right @ x + h / 2 * B @ (force(t0) + force(t1) - 2 * held))
    for k, (g, l) in enumerate(zip(groups, loop)):
        for name, want in (("y", y[k]), ("u", u[k])):
            got = g["reference/" + name][()]
            if got.shape != want.shape:
                faults.append("%s of loop %s: %d samples, want %d" % (name, l[0], len(got), len(want)))
                continue
            error = np.max(np.abs(got - want)) / np.max(np.abs(want))
            print("loop %s, %s (%s) of mbsid perturb against the loops simulated here: %d samples, largest difference %.2e of max |%s| = %.4g" % (l[0], name, l[4] if name == "y" else "N", len(want), error, name, np.max(np.abs(want))))
            if not error <= args.rtol:
                faults.append("%s of loop %s differs from the loops simulated here by %.2e of its largest value (rtol %g)" % (name, l[0], error, args.rtol))


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("mode", choices=["eigen", "loop"])
    parser.add_argument("file")
    parser.add_argument("--plant", required=True)
    parser.add_argument("--loop", nargs=4, action="append", required=True, metavar=("FORCE", "MASS", "SENSOR", "GAINS"))
    parser.add_argument("--rtol", type=float, required=True)
    parser.add_argument("--force", default="10,1,0,1")
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
