#!/usr/bin/env python3
"""V1 of powertrain_mounts.md (section 8.1) assembled independently of mbsid, from the spec's tables: the linear
mass, damping and stiffness matrices in the coordinate-free z = (u_P, phi_P, u_S, phi_S) (small displacements and
rotation vectors in ground axes, M_z = blockdiag(m_P I, J_P, m_S I, J_S)). A bushing's deflection about the
undeflected rest state is e = C^T (G_B z_B - G_A z_A), G = [I, -[s]x] for the point s relative to the body's centre
(G = 0 for the ground), so K_z = sum G^T C K C^T G and C_z likewise with D. Checks against `mbsid eigen -o FILE` of
inputs/models/powertrain_mounts.yaml: the spec's principal moments of inertia (its 4 decimals), all 24 eigenvalues
(companion form) to 1e-8 relative, f_n and zeta of the 12 modes, the undamped f_0 (K phi = w^2 M_z phi) to 1e-8
relative, and the mode shapes in z that mbsid maps from its natural coordinates (/eigen/modes_z, /eigen/undamped_modes_z)
normalised as section 8.1 says (damped: the z component of largest modulus 1; undamped: phi^T M_z phi = 1, that
component positive) to 1e-6 per component (section 11); prints f_n, f_d, zeta, f_0 and both sets of shapes.
Usage: check_powertrain_modes.py EIGEN_H5"""
import math
import sys

import h5py
import numpy as np


def rot(axis, degrees):
    c, s = math.cos(math.radians(degrees)), math.sin(math.radians(degrees))
    return {"x": [[1, 0, 0], [0, c, -s], [0, s, c]], "y": [[c, 0, s], [0, 1, 0], [-s, 0, c]], "z": [[c, -s, 0], [s, c, 0], [0, 0, 1]]}[axis]


I3 = np.eye(3)
# name, A, B, point at rest, C, k, d (section 3.2)
BUSHINGS = [("M1", "S", "P", (0.30, 0.35, 0.10), I3, (2.0e5, 1.5e5, 3.0e5), (300, 220, 450)),
            ("M2", "S", "P", (0.30, -0.35, 0.05), rot("x", 30), (1.8e5, 1.2e5, 2.5e5), (270, 180, 380)),
            ("M3", "S", "P", (-0.25, 0.00, -0.15), rot("y", 45), (4.0e5, 0.5e5, 0.8e5), (600, 80, 120)),
            ("B1", None, "S", (0.40, 0.45, -0.30), rot("z", 30), (5.0e5, 5.0e5, 8.0e5), (700, 700, 1100)),
            ("B2", None, "S", (0.40, -0.45, -0.30), rot("z", -30), (5.0e5, 5.0e5, 8.0e5), (700, 700, 1100)),
            ("B3", None, "S", (-0.40, 0.45, -0.40), rot("z", -30), (4.5e5, 4.5e5, 7.0e5), (650, 650, 1000)),
            ("B4", None, "S", (-0.40, -0.45, -0.40), rot("z", 30), (4.5e5, 4.5e5, 7.0e5), (650, 650, 1000))]
CENTRE = {"P": np.array([0.0, 0.0, 0.0]), "S": np.array([0.0, 0.0, -0.35])}
OFFSET = {"P": 0, "S": 6}
J = {"P": np.array([[8.0, 0.4, -1.2], [0.4, 14.0, 0.3], [-1.2, 0.3, 12.0]]), "S": np.array([[3.0, 0.0, 0.1], [0.0, 1.5, 0.0], [0.1, 0.0, 4.0]])}
MASS = {"P": 180.0, "S": 40.0}
PRINCIPAL = {"P": (7.6335, 12.3132, 14.0533), "S": (1.5, 2.9901, 4.0099)}


def skew(s):
    return np.array([[0, -s[2], s[1]], [s[2], 0, -s[0]], [-s[1], s[0], 0]])


def linear_matrices():
    """M, D, K (12 x 12) of the linearisation in z = (u_P, phi_P, u_S, phi_S)"""
    M = np.zeros((12, 12))
    K = np.zeros((12, 12))
    D = np.zeros((12, 12))
    for body in "PS":
        o = OFFSET[body]
        M[o:o + 3, o:o + 3] = MASS[body] * I3
        M[o + 3:o + 6, o + 3:o + 6] = J[body]
    for name, a, b, point, C, k, d in BUSHINGS:
        G = np.zeros((3, 12))  # e = C^T G z
        for body, sign in ((a, -1), (b, 1)):
            if body is None:
                continue
            s = np.array(point) - CENTRE[body]
            o = OFFSET[body]
            G[:, o:o + 3] += sign * I3
            G[:, o + 3:o + 6] += -sign * skew(s)
        E = np.array(C).T @ G
        K += E.T @ np.diag(k) @ E
        D += E.T @ np.diag(d) @ E
    return M, D, K


Z_NAMES = [f"{q}_{b}{c}" for b in "PS" for q in ("u", "phi") for c in "xyz"]


def undamped_modes(M, K):
    """f_0 [Hz] ascending and the shapes (mode x z): phi^T M phi = 1, the component of largest modulus positive"""
    L = np.linalg.cholesky(M)
    Li = np.linalg.inv(L)
    w2, Y = np.linalg.eigh(Li @ K @ Li.T)
    Phi = Li.T @ Y  # Phi^T M Phi = I
    for i in range(12):
        Phi[:, i] *= np.sign(Phi[np.argmax(np.abs(Phi[:, i])), i])
    return np.sqrt(w2) / (2 * math.pi), Phi.T


def damped_shapes(A):
    """the displacement part of the eigenvectors of the companion form A with Im lambda > 0, by |lambda|, scaled so
    that the component of largest modulus is 1 (mode x z)"""
    lam, V = np.linalg.eig(A)
    keep = np.where(lam.imag > 0)[0]
    keep = keep[np.argsort(np.abs(lam[keep]))]
    X = V[:12, keep].T
    return np.array([x / x[np.argmax(np.abs(x))] for x in X])


def print_shapes(title, shapes):
    print(title)
    print("mode " + " ".join(f"{n:>20s}" for n in Z_NAMES))
    for i, x in enumerate(shapes):
        if np.iscomplexobj(x):
            print(f"{i + 1:4d} " + " ".join(f"{v.real:+10.6f}{v.imag:+10.6f}" for v in x))
        else:
            print(f"{i + 1:4d} " + " ".join(f"{v:+20.12e}" for v in x))


def main(path):
    failures = 0

    def check(what, ok, detail):
        nonlocal failures
        failures += not ok
        print(f"{'ok  ' if ok else 'FAIL'} {what}: {detail}")

    for body in "PS":
        moments = np.linalg.eigvalsh(J[body])
        err = np.max(np.abs(moments - PRINCIPAL[body]))
        check(f"principal moments of {body}", err <= 5e-5, f"{np.array2string(moments, precision=6)} vs the spec's {PRINCIPAL[body]} (error {err:.1e}, its rounding 5e-5)")
    M, D, K = linear_matrices()
    A = np.block([[np.zeros((12, 12)), np.eye(12)], [-np.linalg.solve(M, K), -np.linalg.solve(M, D)]])
    lam = np.linalg.eigvals(A)
    lam = lam[np.argsort(np.abs(lam), kind="stable")]
    with h5py.File(path, "r") as f:
        got = f["eigen/eigenvalues"][:, 0] + 1j * f["eigen/eigenvalues"][:, 1]
        freq, zeta = f["eigen/frequency_hz"][:], f["eigen/damping_ratio"][:]
    check("24 finite eigenvalues", len(got) == 24, f"mbsid {len(got)}")
    worst = max(np.min(np.abs(lam - g)) / abs(g) for g in got) if len(got) else math.inf
    check("every eigenvalue in the independent companion form's", worst <= 1e-8, f"largest relative distance {worst:.2e} (tolerance 1e-8)")
    upper = lam[lam.imag > 0]
    check("12 underdamped modes (Im lambda > 0)", len(upper) == 12 and len(freq) == 12, f"independent {len(upper)}, mbsid {len(freq)}")
    fn, zn = np.abs(upper) / (2 * math.pi), -upper.real / np.abs(upper)
    order = np.argsort(fn)
    fn, zn, fd = fn[order], zn[order], upper.imag[order] / (2 * math.pi)
    if len(freq) == 12:
        check("f_n of the 12 modes", np.max(np.abs(freq - fn) / fn) <= 1e-8, f"largest relative error {np.max(np.abs(freq - fn) / fn):.2e}")
        check("zeta of the 12 modes", np.max(np.abs(zeta - zn)) <= 1e-8, f"largest absolute error {np.max(np.abs(zeta - zn)):.2e}")
    f0, shapes0 = undamped_modes(M, K)
    shapes = damped_shapes(A)
    with h5py.File(path, "r") as f:
        got_f0 = f["eigen/undamped_frequency_hz"][:] if "eigen/undamped_frequency_hz" in f else np.zeros(0)
        got_z = f["eigen/modes_z"][:, :, 0] + 1j * f["eigen/modes_z"][:, :, 1] if "eigen/modes_z" in f else np.zeros((0, 12))
        got_z0 = f["eigen/undamped_modes_z"][:] if "eigen/undamped_modes_z" in f else np.zeros((0, 12))
    check("12 undamped frequencies f_0", len(got_f0) == 12, f"mbsid {len(got_f0)}")
    if len(got_f0) == 12:
        err = np.max(np.abs(got_f0 - f0) / f0)
        check("f_0 of the 12 modes", err <= 1e-8, f"largest relative error {err:.2e} (tolerance 1e-8)")
    check("damped mode shapes in z, 12 x 12", got_z.shape == (12, 12), f"mbsid {got_z.shape}")
    if got_z.shape == (12, 12):
        err = np.max(np.abs(got_z - shapes))
        check("damped shapes (largest component 1), every component", err <= 1e-6, f"largest error {err:.2e} (tolerance 1e-6)")
    check("undamped mode shapes in z, 12 x 12", got_z0.shape == (12, 12), f"mbsid {got_z0.shape}")
    if got_z0.shape == (12, 12):
        err = np.max(np.abs(got_z0 - shapes0))
        check("undamped shapes (phi^T M_z phi = 1), every component", err <= 1e-6, f"largest error {err:.2e} (tolerance 1e-6)")
    print("mode   f_n [Hz]        f_d [Hz]        zeta            f_0 [Hz] (undamped)")
    for i in range(12):
        print(f"{i + 1:4d}   {fn[i]:.10g}   {fd[i]:.10g}   {zn[i]:.10g}   {f0[i]:.10g}")
    print_shapes("damped mode shapes in z (independent), |component| <= 1, the largest 1: Re / Im", shapes)
    print_shapes("undamped mode shapes in z (independent), phi^T M_z phi = 1", shapes0)
    print(f"{failures} failed")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1]))
