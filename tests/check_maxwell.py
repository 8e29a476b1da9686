"""The 1-dof Maxwell model (inputs/models/maxwell_sdof.yaml) against its closed forms, computed here independently.

A mass m on a spring k and a damper d beside a Maxwell branch (spring k_m in series with a damper c_m, damper
deflection s): m x'' + d x' + k x + k_m (x - s) = F(t), c_m s' = k_m (x - s). With X, S the Laplace transforms,
S = k_m X / (c_m l + k_m), so (m l^2 + d l + k + k_m)(c_m l + k_m) - k_m^2 = 0, which for d = 0 is
m c_m l^3 + m k_m l^2 + c_m (k + k_m) l + k k_m = 0. Under F sin(w t) the steady state is Im(X e^{i w t}) with
X = F / (k + i w d + k_m i w c_m / (k_m + i w c_m) - m w^2) (the complex stiffness).

  check_maxwell.py eigen RESULT.h5 m k d km cm TOL        every eigenvalue of mbsid eigen against numpy.roots
  check_maxwell.py eigen2 RESULT.h5 TOL                   inputs/models/maxwell_2dof.yaml's against its equations
  check_maxwell.py frf2 RESULT.h5 TOL                     its mbsid frf against (i w I - A)^-1 b of those equations
  check_maxwell.py harmonic RESULT.h5 m k d km cm F f T0 TOL [CHANNEL]   the channels x and a on t >= T0 against the
                                                          steady state, or the one position-like CHANNEL
  check_maxwell.py frf RESULT.h5 m k d km cm TOL [CHANNEL]  mbsid frf's H of x and a (or of the one position-like
                                                          CHANNEL) per unit load against X and -w^2 X above
The torsional model (inputs/models/maxwell_torsion.yaml) is the same with m the moment of inertia J, x the angle and F
the torque (the rotational maxwell branch of branch maxrot).
"""
import sys

import h5py
import numpy


def compare(got, roots, tol):
    """Every eigenvalue of mbsid and every root paired (each within tol of the largest root of the other set)"""
    if len(got) != len(roots):
        print(f"FAIL: {len(got)} eigenvalues, the closed form has {len(roots)}")
        return 1
    scale = max(abs(roots))
    error = max(max(min(abs(g - r) for r in roots) for g in got), max(min(abs(g - r) for g in got) for r in roots)) / scale
    print("closed form:", numpy.sort_complex(roots))
    print("mbsid eigen:", numpy.sort_complex(got))
    print(f"largest distance between the sets {error:.2e} of the largest eigenvalue (tolerance {tol:g})")
    return 0 if error <= tol else 1


def two_dof():
    """The first-order matrix A (z' = A z) of inputs/models/maxwell_2dof.yaml, its 7 equations written out: z = (x1, x2, x1',
    x2', s1, s2a, s2b), e1 = x1, D = x2 - x1, e2a = c D, e2b = -s D (the turned frame's axes), f1 = k1 e1 + d1 e1' +
    km1 (e1 - s1), f2a = k2a e2a + d2a e2a' + km2a (e2a - s2a), f2b likewise, the load on D: g = c f2a - s f2b;
    m1 x1'' = -f1 + g, m2 x2'' = -g, cm s' = km (e - s) per branch."""
    m1, m2, k1, d1, km1, cm1 = 2.0, 1.5, 3000.0, 2.0, 8000.0, 60.0
    k2a, d2a, km2a, cm2a, k2b, d2b, km2b, cm2b = 1000.0, 0.0, 3000.0, 15.0, 400.0, 1.0, 2000.0, 25.0
    c, s = numpy.cos(numpy.pi / 6), numpy.sin(numpy.pi / 6)
    A = numpy.zeros((7, 7))
    # rows: derivatives of each quantity by z, as linear forms
    e1 = numpy.array([1, 0, 0, 0, 0, 0, 0.0])
    D = numpy.array([-1, 1, 0, 0, 0, 0, 0.0])
    Ddot = numpy.array([0, 0, -1, 1, 0, 0, 0.0])
    e1dot = numpy.array([0, 0, 1, 0, 0, 0, 0.0])
    unit = numpy.eye(7)
    f1 = k1 * e1 + d1 * e1dot + km1 * (e1 - unit[4])
    f2a = k2a * c * D + d2a * c * Ddot + km2a * (c * D - unit[5])
    f2b = k2b * (-s) * D + d2b * (-s) * Ddot + km2b * (-s * D - unit[6])
    g = c * f2a - s * f2b
    A[0], A[1] = unit[2], unit[3]
    A[2] = (-f1 + g) / m1
    A[3] = -g / m2
    A[4] = km1 * (e1 - unit[4]) / cm1
    A[5] = km2a * (c * D - unit[5]) / cm2a
    A[6] = km2b * (-s * D - unit[6]) / cm2b
    return A


def two_dof_frf(path, tol):
    """mbsid frf of maxwell_2dof.yaml (the load F on m2 along x, the output x2) against x2 of (i w I - A)^-1 e_4 / m2"""
    A, m2 = two_dof(), 1.5
    with h5py.File(path, "r") as f:
        freq = f["frf/frequency_hz"][:]
        group = f["channels/x2"] if "channels" in f else f
        H = group["frf/real"][:] + 1j * group["frf/imag"][:]
    exact = numpy.array([numpy.linalg.solve(2j * numpy.pi * fr * numpy.eye(7) - A, numpy.eye(7)[3] / m2)[1] for fr in freq])
    error = numpy.max(numpy.abs(H - exact)) / numpy.max(numpy.abs(exact))
    print(f"x2: {len(freq)} frequencies, max |H - H_exact| / max |H_exact| = {error:.2e} (tolerance {tol:g})")
    return 0 if error <= tol else 1


def main():
    mode, path = sys.argv[1], sys.argv[2]
    if mode == "eigen2":
        with h5py.File(path, "r") as f:
            got = f["eigen/eigenvalues"][:]
        return compare(got[:, 0] + 1j * got[:, 1], numpy.linalg.eigvals(two_dof()), float(sys.argv[3]))
    if mode == "frf2":
        return two_dof_frf(path, float(sys.argv[3]))
    m, k, d, km, cm = (float(a) for a in sys.argv[3:8])
    with h5py.File(path, "r") as f:
        if mode == "eigen":
            tol = float(sys.argv[8])
            char = numpy.polysub(numpy.polymul([m, d, k + km], [cm, km]), [km * km])
            print("characteristic polynomial", char)
            got = f["eigen/eigenvalues"][:]
            return compare(got[:, 0] + 1j * got[:, 1], numpy.roots(char), tol)
        if mode == "frf":
            tol = float(sys.argv[8])
            w = 2 * numpy.pi * f["frf/frequency_hz"][:]
            X = 1 / (k + 1j * w * d + km * 1j * w * cm / (km + 1j * w * cm) - m * w * w)
            channels = ((sys.argv[9], X),) if len(sys.argv) > 9 else (("x", X), ("a", -w * w * X))
            worst = 0
            for channel, exact in channels:
                H = f[f"channels/{channel}/frf/real"][:] + 1j * f[f"channels/{channel}/frf/imag"][:]
                error = numpy.max(numpy.abs(H - exact)) / numpy.max(numpy.abs(exact))
                print(f"{channel}: {len(w)} frequencies, max |H - H_exact| / max |H_exact| = {error:.2e} (tolerance {tol:g})")
                worst = max(worst, error)
            return 0 if worst <= tol else 1
        force, freq, t0, tol = (float(a) for a in sys.argv[8:12])
        w = 2 * numpy.pi * freq
        X = force / (k + 1j * w * d + km * 1j * w * cm / (km + 1j * w * cm) - m * w * w)
        worst = 0
        # the position x and the accelerometer a = x'' = Im(-w^2 X e^{i w t})
        channels = ((sys.argv[12], X),) if len(sys.argv) > 12 else (("x", X), ("a", -w * w * X))
        for channel, amplitude in channels:
            group = f[f"channels/{channel}"] if "channels" in f else f  # a model with one sensor writes /signal alone
            t, y = group["signal/t"][:], group["signal/y"][:]
            late = t >= t0
            exact = numpy.imag(amplitude * numpy.exp(1j * w * t[late]))
            error = numpy.max(numpy.abs(y[late] - exact)) / abs(amplitude)
            print(f"{channel}: steady-state amplitude {abs(amplitude):.6e}, phase {numpy.angle(amplitude):.6f} rad; {late.sum()} samples on t >= {t0:g} s;"
                  f" largest deviation {error:.2e} of it (tolerance {tol:g})")
            worst = max(worst, error)
        return 0 if worst <= tol else 1


if __name__ == "__main__":
    sys.exit(main())
