"""The 1-dof Maxwell model (inputs/models/maxwell_sdof.yaml) against its closed forms, computed here independently.

A mass m on a spring k and a damper d beside a Maxwell branch (spring k_m in series with a damper c_m, damper
deflection s): m x'' + d x' + k x + k_m (x - s) = F(t), c_m s' = k_m (x - s). With X, S the Laplace transforms,
S = k_m X / (c_m l + k_m), so (m l^2 + d l + k + k_m)(c_m l + k_m) - k_m^2 = 0, which for d = 0 is
m c_m l^3 + m k_m l^2 + c_m (k + k_m) l + k k_m = 0. Under F sin(w t) the steady state is Im(X e^{i w t}) with
X = F / (k + i w d + k_m i w c_m / (k_m + i w c_m) - m w^2) (the complex stiffness).

  check_maxwell.py eigen RESULT.h5 m k d km cm TOL        every eigenvalue of mbsid eigen against numpy.roots
  check_maxwell.py harmonic RESULT.h5 m k d km cm F f T0 TOL   the channels x and a on t >= T0 against the steady state
"""
import sys

import h5py
import numpy


def main():
    mode, path = sys.argv[1], sys.argv[2]
    m, k, d, km, cm = (float(a) for a in sys.argv[3:8])
    with h5py.File(path, "r") as f:
        if mode == "eigen":
            tol = float(sys.argv[8])
            char = numpy.polysub(numpy.polymul([m, d, k + km], [cm, km]), [km * km])
            roots = numpy.roots(char)
            got = f["eigen/eigenvalues"][:]
            got = got[:, 0] + 1j * got[:, 1]
            if len(got) != len(roots):
                print(f"FAIL: {len(got)} eigenvalues, the characteristic polynomial has {len(roots)} roots")
                return 1
            error = max(min(abs(g - r) for r in roots) for g in got) / max(abs(roots))
            print("roots of", char, ":", numpy.sort_complex(roots))
            print("mbsid eigen:", numpy.sort_complex(got))
            print(f"largest distance to a root {error:.2e} of the largest root (tolerance {tol:g})")
            return 0 if error <= tol else 1
        force, freq, t0, tol = (float(a) for a in sys.argv[8:12])
        w = 2 * numpy.pi * freq
        X = force / (k + 1j * w * d + km * 1j * w * cm / (km + 1j * w * cm) - m * w * w)
        worst = 0
        # the position x and the accelerometer a = x'' = Im(-w^2 X e^{i w t})
        for channel, amplitude in (("x", X), ("a", -w * w * X)):
            t, y = f[f"channels/{channel}/signal/t"][:], f[f"channels/{channel}/signal/y"][:]
            late = t >= t0
            exact = numpy.imag(amplitude * numpy.exp(1j * w * t[late]))
            error = numpy.max(numpy.abs(y[late] - exact)) / abs(amplitude)
            print(f"{channel}: steady-state amplitude {abs(amplitude):.6e}, phase {numpy.angle(amplitude):.6f} rad; {late.sum()} samples on t >= {t0:g} s;"
                  f" largest deviation {error:.2e} of it (tolerance {tol:g})")
            worst = max(worst, error)
        return 0 if worst <= tol else 1


if __name__ == "__main__":
    sys.exit(main())
