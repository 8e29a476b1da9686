#!/usr/bin/env python3
"""The exact continuum solution of ../shared/models/beam_bushings.md, sections 3 to 6 (numpy only, no mbsid).

The free steel bar on two point bushings decouples into four one-dimensional problems: bending in x-z (w, E I_y,
bushing constants k_z, d_z), bending in x-y (v, E I_z, k_y, d_y), the axial bar (u, E A, k_x, d_x) and St-Venant
torsion (phi, G J_t, no bushing: the bushings act on the axis). Each is solved exactly by transfer matrices of the
state (displacement and its derivatives) along x: the uniform segments' matrices are entire functions of the
eigenvalue (Krylov functions of beta x, cos/sin of kappa x), a point force P at x_s makes the jump E I [w'''] = P
(bending) or E A [u'] = -P (bar), and a bushing is the point force P = -(k + lambda d) w(x_s). With both free-end
conditions at x = 0 built in (w'' = w''' = 0, u' = 0), the two (one) conditions at x = L give a 2 x 2 (1 x 1)
characteristic matrix without poles, so the eigenvalues are the zeros of its determinant:

* undamped natural frequencies f_0: real roots (sign changes on a fine grid, then bisection);
* damped eigenvalues lambda (Im > 0): complex Newton on det(lambda) from i omega_0 (damping is light);
* H_c(f): the response to the unit force e^{i 2 pi f t} along n, a = -omega^2 times the displacement.

Usage as a program: beam_bushings_reference.py [FMAX] prints the modes below FMAX (300 Hz) and H_c at the 20
frequencies of section 8.2. Imported: modes(), frf(), params."""
import sys
import numpy as np

L, B, HH, E, G, RHO = 1.2, 0.040, 0.010, 210e9, 81e9, 7850.0
A = B * HH
IY, IZ = B * HH**3 / 12, HH * B**3 / 12
IP = IY + IZ
XB = (0.10, 1.10)  # bushing points
N = np.array([0.2, 0.4, np.sqrt(0.8)])  # load direction
F0 = 10.0
CHANNELS = (("z06", 0.6, "z"), ("z12", 1.2, "z"), ("y12", 1.2, "y"), ("x12", 1.2, "x"))
FREQS = (5.0, 7.5, 11.0, 14.0, 26.5, 30.5, 35.5, 41.0, 62.0, 80.0, 93.5, 128.5, 139.5, 235.5, 247.0, 255.0, 265.0, 313.5, 345.0, 369.0)


def torsion_constant(a=B, c=HH):
    n = np.arange(1, 401, 2)
    return a * c**3 / 3 * (1 - 192 / np.pi**5 * (c / a) * np.sum(np.tanh(n * np.pi * a / (2 * c)) / n**5))


JT = torsion_constant()


def default_params():
    """The bushing constants of section 4 (both bushings alike) and E."""
    return {"k": {"x": (1.0e6, 1.0e6), "y": (2.0e5, 2.0e5), "z": (2.0e5, 2.0e5)}, "d": {"x": (50.0, 50.0), "y": (20.0, 20.0), "z": (20.0, 20.0)}, "E": E}


def _bending_segment(b4, l):
    """Transfer matrix of (w, w', w'', w''') over a uniform segment of length l; b4 = beta^4 (complex)."""
    beta = np.sqrt(np.sqrt(complex(b4)))  # any branch: the matrix is a series in beta^4
    z = beta * l
    if abs(z) < 1e-3:  # the series, to avoid 0/0
        S, T, U, V = 1 + z**4 / 24, z + z**5 / 120, z**2 / 2 + z**6 / 720, z**3 / 6 + z**7 / 5040
    else:
        S, T, U, V = (np.cosh(z) + np.cos(z)) / 2, (np.sinh(z) + np.sin(z)) / 2, (np.cosh(z) - np.cos(z)) / 2, (np.sinh(z) - np.sin(z)) / 2
    if abs(z) < 1e-3:
        # rows in powers of l directly (beta may be 0)
        return np.array([[1, l, l**2 / 2, l**3 / 6], [0, 1, l, l**2 / 2], [0, 0, 1, l], [0, 0, 0, 1]], dtype=complex) + b4 * np.array(
            [[l**4 / 24, l**5 / 120, l**6 / 720, l**7 / 5040], [l**3 / 6, l**4 / 24, l**5 / 120, l**6 / 720], [l**2 / 2, l**3 / 6, l**4 / 24, l**5 / 120], [l, l**2 / 2, l**3 / 6, l**4 / 24]]
        )
    return np.array([[S, T / beta, U / beta**2, V / beta**3], [beta * V, S, T / beta, U / beta**2], [beta**2 * U, beta * V, S, T / beta], [beta**3 * T, beta**2 * U, beta * V, S]])


def _bar_segment(k2, l):
    """Transfer matrix of (u, u') over a uniform segment; k2 = kappa^2 (complex); also torsion (phi, phi')."""
    kap = np.sqrt(complex(k2))
    if abs(kap * l) < 1e-6:
        return np.array([[1, l], [-k2 * l, 1]], dtype=complex)
    return np.array([[np.cos(kap * l), np.sin(kap * l) / kap], [-kap * np.sin(kap * l), np.cos(kap * l)]])


def _family(axis, p):
    """(kind, stiffness per length EI or EA, mass per length, bushing k, bushing d)."""
    e = p["E"]
    if axis == "z":
        return "bend", e * IY, RHO * A
    if axis == "y":
        return "bend", e * IZ, RHO * A
    return "bar", e * A, RHO * A


def _propagate(axis, lam, p, stations, load=0.0):
    """States at the stations (sorted x in [0, L]) for the start state's columns, plus the load's particular part.
    Returns (list of (x, Tcols, part)) where the state at x is Tcols @ c + part, c the free start unknowns."""
    kind, stiff, mu = _family(axis, p)
    kb, db = p["k"][axis], p["d"][axis]
    ns = 4 if kind == "bend" else 2
    # the free end x = 0: bending (w, w') unknown, w'' = w''' = 0; bar u unknown, u' = 0
    Tc = np.zeros((ns, 2 if kind == "bend" else 1), dtype=complex)
    Tc[0, 0] = 1
    if kind == "bend":
        Tc[1, 1] = 1
    part = np.zeros(ns, dtype=complex)
    events = sorted([(x, "b", i) for i, x in enumerate(XB)] + [(x, "s", None) for x in stations])
    out, x0 = [], 0.0
    for x, what, i in events:
        if x > x0:
            seg = _bending_segment(-mu * lam**2 / stiff, x - x0) if kind == "bend" else _bar_segment(-mu * lam**2 / stiff, x - x0)
            Tc, part, x0 = seg @ Tc, seg @ part, x
        if what == "b":  # the bushing's force P = -(k + lam d) w: E I [w'''] = P, E A [u'] = -P
            z = (kb[i] + lam * db[i]) / stiff
            if kind == "bend":
                Tc[3] -= z * Tc[0]
                part[3] -= z * part[0]
            else:
                Tc[1] += z * Tc[0]
                part[1] += z * part[0]
        else:
            out.append((x, Tc.copy(), part.copy()))
    if x0 < L:
        seg = _bending_segment(-mu * lam**2 / stiff, L - x0) if kind == "bend" else _bar_segment(-mu * lam**2 / stiff, L - x0)
        Tc, part = seg @ Tc, seg @ part
    # the conditions at x = L with the end load P: bending w'' = 0, E I w''' = -P; bar E A u' = P
    if kind == "bend":
        C, r = Tc[2:4], np.array([0.0, -load / stiff]) - part[2:4]
    else:
        C, r = Tc[1:2], np.array([load / stiff]) - part[1:2]
    return C, r, out


def char_det(axis, lam, p):
    """Determinant of the characteristic matrix (entire in lam); torsion: sin(kappa L) kappa (free-free)."""
    if axis == "t":
        k2 = -RHO * IP * lam**2 / (G * JT)
        return _bar_segment(k2, L)[1, 0]
    C, _, _ = _propagate(axis, lam, p, [])
    return np.linalg.det(C) if C.shape[0] == 2 else C[0, 0]


def undamped_frequencies(axis, p, fmax, df=0.05):
    """Real roots f_0 in (0, fmax] of the undamped system (dampers removed)."""
    q = dict(p, d={a: (0.0, 0.0) for a in "xyz"})
    f = np.arange(df, fmax + df, df)
    d = np.array([char_det(axis, 2j * np.pi * fi, q).real for fi in f])
    roots = []
    for i in np.nonzero(np.sign(d[:-1]) != np.sign(d[1:]))[0]:
        a, b, da = f[i], f[i + 1], d[i]
        for _ in range(80):
            m = 0.5 * (a + b)
            dm = char_det(axis, 2j * np.pi * m, q).real
            if np.sign(dm) == np.sign(da):
                a, da = m, dm
            else:
                b = m
        roots.append(0.5 * (a + b))
    return roots


def damped_eigenvalue(axis, f0, p):
    """The eigenvalue lambda (Im > 0) from i 2 pi f0, complex secant on det(lambda)."""
    x0, x1 = 2j * np.pi * f0, 2j * np.pi * f0 * (1 + 1e-6) - 1e-3
    d0, d1 = char_det(axis, x0, p), char_det(axis, x1, p)
    for _ in range(100):
        if d1 == d0:
            break
        x2 = x1 - d1 * (x1 - x0) / (d1 - d0)
        x0, d0, x1, d1 = x1, d1, x2, char_det(axis, x2, p)
        if abs(x1 - x0) < 1e-13 * abs(x1):
            break
    return x1


FAMILY = {"x": "axial", "y": "y-bending", "z": "z-bending", "t": "torsion"}


def modes(fmax=300.0, p=None):
    """Modes with f_0 in (0, fmax] sorted by |lambda|: list of dicts f0, lam, fn, fd, zeta, family."""
    p = p or default_params()
    res = []
    for axis in "xyzt":
        for f0 in undamped_frequencies(axis, p, fmax):
            lam = damped_eigenvalue(axis, f0, p) if axis != "t" else 2j * np.pi * f0
            res.append({"f0": f0, "lam": lam, "fn": abs(lam) / (2 * np.pi), "fd": lam.imag / (2 * np.pi), "zeta": -lam.real / abs(lam), "family": FAMILY[axis]})
    return sorted(res, key=lambda m: m["fn"])


def frf(f, p=None):
    """H_c(f) of the 4 channels (z06, z12, y12, x12), (m/s^2)/N, a = Re(F0 H e^{i 2 pi f t}) for F0 cos."""
    p = p or default_params()
    lam = 2j * np.pi * f
    H = []
    for name, x, axis in CHANNELS:
        C, r, out = _propagate(axis, lam, p, [x], load=N["xyz".index(axis)])
        c = np.linalg.solve(C, r)
        _, Tc, part = out[0]
        H.append(lam**2 * (Tc @ c + part)[0])
    return np.array(H)


def main():
    fmax = float(sys.argv[1]) if len(sys.argv) > 1 else 300.0
    print(f"J_t = {JT:.8e} m^4")
    print(f"{'mode':>4} {'f_n [Hz]':>12} {'f_d [Hz]':>12} {'zeta':>10} {'f_0 [Hz]':>12}  family")
    for i, m in enumerate(modes(fmax)):
        print(f"{i + 1:4d} {m['fn']:12.6f} {m['fd']:12.6f} {m['zeta']:10.3e} {m['f0']:12.6f}  {m['family']}")
    print(f"{'f [Hz]':>7} " + " ".join(f"{n:>26}" for n, _, _ in CHANNELS))
    for f in FREQS:
        print(f"{f:7.1f} " + " ".join(f"{h.real:12.5e} {h.imag:+12.5e}j" for h in frf(f)))


if __name__ == "__main__":
    main()
