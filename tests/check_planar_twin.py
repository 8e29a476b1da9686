#!/usr/bin/python3
"""Checks a planar run of a model file against the same file's 3D run (-model_planar none), where the 3D motion stays
in the plane (no load and no initial velocity out of it), so the plane changes nothing of what both have.

Usage: check_planar_twin.py eigen PLANAR.h5 3D.h5 RTOL [EXTRA ...]
         every eigenvalue of the planar run (/eigen/eigenvalues, re and im) is one of the 3D run's, or one of the real
         EXTRA (the relaxation -k_m/c_m of a Maxwell branch along the normal, whose state a planar model keeps while
         the plane holds its motion), to RTOL of its modulus; the 3D run has more (the out-of-plane modes); the root
         attribute planar names the plane (x, y or z) and none
       check_planar_twin.py frf PLANAR.h5 3D.h5 RTOL
         the frequency responses of every channel (/channels/NAME/frf/{real,imag}, or /frf/{real,imag}) agree to RTOL
         of the largest modulus of the 3D run's, on the same frequencies
"""
import sys

import h5py
import numpy as np


def eigen(planar, full, rtol, extra):
    got, want = planar["eigen/eigenvalues"][:], full["eigen/eigenvalues"][:]
    got, want = got[:, 0] + 1j * got[:, 1], np.concatenate((want[:, 0] + 1j * want[:, 1], extra))
    worst = max(np.min(np.abs(want - z)) / max(abs(z), 1e-300) for z in got)
    ok = worst <= rtol and len(want) - len(extra) > len(got)
    print(f"{'ok  ' if ok else 'FAIL'} {len(got)} planar eigenvalues among the {len(want) - len(extra)} of 3D and {len(extra)} given: largest distance {worst:.3e} of the modulus (rtol {rtol:g})")
    planes = (planar.attrs.get("planar"), full.attrs.get("planar"))
    named = planes[0] in ("x", "y", "z") and planes[1] == "none"
    print(f"{'ok  ' if named else 'FAIL'} attribute planar: {planes[0]} and {planes[1]}")
    return ok and named


def frf(planar, full, rtol, extra):
    groups = [f"channels/{name}/" for name in full["channels"]] if "channels" in full else [""]
    ok = np.array_equal(planar["frf/frequency_hz"][:], full["frf/frequency_hz"][:])
    for g in groups:
        got = planar[g + "frf/real"][:] + 1j * planar[g + "frf/imag"][:]
        want = full[g + "frf/real"][:] + 1j * full[g + "frf/imag"][:]
        error = np.max(np.abs(got - want)) / np.max(np.abs(want))
        print(f"{'ok  ' if error <= rtol else 'FAIL'} /{g}frf: largest difference {error:.3e} of the largest modulus (rtol {rtol:g})")
        ok &= error <= rtol
    return ok


def main():
    check, planar, full, rtol = sys.argv[1], h5py.File(sys.argv[2], "r"), h5py.File(sys.argv[3], "r"), float(sys.argv[4])
    extra = np.array([float(x) for x in sys.argv[5:]])
    sys.exit(0 if {"eigen": eigen, "frf": frf}[check](planar, full, rtol, extra) else 1)


if __name__ == "__main__":
    main()
