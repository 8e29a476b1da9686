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
import math
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
    """Transfer matrices (n x 4 x 4) of the state (w and its first three derivatives) over a uniform segment of
    length l, b4 = beta^4 (complex array of n): entry (i, j) is the Krylov function K_{(j - i) mod 4} of z = beta l
    (S, T, U, V) times beta^(i - j); by its series sum_n b4^n l^(4n + j - i) / (4n + j - i)! where |z| is small."""
    b4 = np.atleast_1d(np.asarray(b4, dtype=complex))
    beta = np.sqrt(np.sqrt(b4))  # any branch: the matrix is a series in beta^4
    small = np.abs(beta * l) < 1e-2
    bs = np.where(small, 1.0, beta)
    z = bs * l
    K = ((np.cosh(z) + np.cos(z)) / 2, (np.sinh(z) + np.sin(z)) / 2, (np.cosh(z) - np.cos(z)) / 2, (np.sinh(z) - np.sin(z)) / 2)
    M = np.empty((len(b4), 4, 4), dtype=complex)
    for i in range(4):
        for j in range(4):
            series = sum(b4**n * l ** (4 * n + j - i) / math.factorial(4 * n + j - i) for n in range(3) if 4 * n + j - i >= 0)
            M[:, i, j] = np.where(small, series, K[(j - i) % 4] * bs ** float(i - j))
    return M


def _bar_segment(k2, l):
    """Transfer matrices (n x 2 x 2) of (u, u') over a uniform segment, k2 = kappa^2 (complex array of n); also
    torsion (phi, phi')."""
    k2 = np.atleast_1d(np.asarray(k2, dtype=complex))
    kap = np.sqrt(k2)
    small = np.abs(kap * l) < 1e-6
    ks = np.where(small, 1.0, kap)
    M = np.empty((len(k2), 2, 2), dtype=complex)
    M[:, 0, 0] = M[:, 1, 1] = np.cos(kap * l)
    M[:, 0, 1] = np.where(small, l, np.sin(ks * l) / ks)
    M[:, 1, 0] = np.where(small, -k2 * l, -ks * np.sin(ks * l))
    return M


def _family(axis, p):
    """(kind, stiffness per length E I or E A, mass per length)."""
    e = p["E"]
    if axis == "z":
        return "bend", e * IY, RHO * A
    if axis == "y":
        return "bend", e * IZ, RHO * A
    return "bar", e * A, RHO * A


def _propagate(axis, lam, p, stations, load=0.0):
    """For n eigenvalues lam (or i omega): the characteristic matrices C (n x 2 x 2 bending, n x 1 x 1 bar) and right
    sides r of the conditions at x = L, and per station x (Tc, part): the state there is Tc c + part, c the free
    start unknowns, part the load's particular state."""
    lam = np.atleast_1d(np.asarray(lam, dtype=complex))
    n = len(lam)
    kind, stiff, mu = _family(axis, p)
    kb, db = p["k"][axis], p["d"][axis]
    ns = 4 if kind == "bend" else 2
    segment = _bending_segment if kind == "bend" else _bar_segment
    # the free end x = 0: bending (w, w') unknown, w'' = w''' = 0; bar u unknown, u' = 0
    Tc = np.zeros((n, ns, 2 if kind == "bend" else 1), dtype=complex)
    Tc[:, 0, 0] = 1
    if kind == "bend":
        Tc[:, 1, 1] = 1
    part = np.zeros((n, ns), dtype=complex)
    events = sorted([(x, "b", i) for i, x in enumerate(XB)] + [(x, "s", None) for x in stations]) + [(L, "end", None)]
    out, x0 = [], 0.0
    for x, what, i in events:
        if x > x0:
            seg = segment(-mu * lam**2 / stiff, x - x0)
            Tc, part, x0 = seg @ Tc, np.einsum("nij,nj->ni", seg, part), x
        if what == "b":  # the bushing's force P = -(k + lam d) w: E I [w'''] = P, E A [u'] = -P
            z = (kb[i] + lam * db[i]) / stiff
            row, sign = (3, -1) if kind == "bend" else (1, 1)
            Tc[:, row] += sign * z[:, None] * Tc[:, 0]
            part[:, row] += sign * z * part[:, 0]
        elif what == "s":
            out.append((x, Tc.copy(), part.copy()))
    # the conditions at x = L with the end load P: bending w'' = 0, E I w''' = -P; bar E A u' = P
    if kind == "bend":
        return Tc[:, 2:4], np.array([0.0, -load / stiff]) - part[:, 2:4], out
    return Tc[:, 1:2], np.array([load / stiff]) - part[:, 1:2], out


def char_det(axis, lam, p):
    """Determinant of the characteristic matrix (entire in lam; an array for an array lam); torsion: -kappa
    sin(kappa L) (free-free)."""
    if axis == "t":
        d = _bar_segment(-RHO * IP * np.asarray(lam) ** 2 / (G * JT), L)[:, 1, 0]
    else:
        d = np.linalg.det(_propagate(axis, lam, p, [])[0])
    return d if np.ndim(lam) else d[0]


def undamped_frequencies(axis, p, fmax, df=0.05):
    """Real roots f_0 in (0, fmax] of the undamped system (dampers removed)."""
    q = dict(p, d={a: (0.0, 0.0) for a in "xyz"})
    f = np.arange(df, fmax + df, df)
    d = char_det(axis, 2j * np.pi * f, q).real
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
    """H_c(f) of the 4 channels (z06, z12, y12, x12), (m/s^2)/N, a = Re(F0 H e^{i 2 pi f t}) for F0 cos(2 pi f t):
    4 values for a number f, n x 4 for an array of n frequencies."""
    p = p or default_params()
    lam = 2j * np.pi * np.atleast_1d(np.asarray(f, dtype=float))
    H = []
    for name, x, axis in CHANNELS:
        C, r, out = _propagate(axis, lam, p, [x], load=N["xyz".index(axis)])
        c = np.linalg.solve(C, r[..., None])[..., 0]
        _, Tc, part = out[0]
        H.append(lam**2 * (np.einsum("nij,nj->ni", Tc, c) + part)[:, 0])
    H = np.array(H).T
    return H[0] if np.ndim(f) == 0 else H


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
