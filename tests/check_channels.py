#!/usr/bin/python3
"""Checks the sum over measured channels of the time and spectrum costs (src/costs/cost.c) against independent
numbers, for a measurement of several channels (/channels/NAME):

  1. J with weights a, b on channels A, B equals a J_A + b J_B, the single-channel costs of separate runs;
  2. J with the default weights equals sum_c J_c / P_c, where P_c, the cost of a zero model output, is computed here
     from the file: time  P_c = sum_i w_i y_i^2 (w_i the trapezoid weights of /signal/t), spectrum (squared form)
     P_c = 1/4 sum_k |X_k|^4 over the lines of -band_hz, (coefficients form) P_c = 1/2 sum_k (A_k^2 + B_k^2).

  3. a CSV table of channels A and B (A in mm) imported with mbsid import -channels has the J of the file it was
     written from.

All to RTOL = 1e-10: each J is a sum of a few thousand positive terms computed in double precision (relative
rounding ~ 1e-13), printed with 13 significant digits.

Usage: check_channels.py MBSID MEASUREMENT.h5 A B -- ARGS...   (ARGS: the model and its parameters, for gradcheck)
"""
import re
import subprocess
import sys

import h5py
import numpy as np

RTOL = 1e-10


def cost(mbsid, args, cost_name, extra):
    """J of one gradcheck run (one parameter, so that its differences are few)"""
    out = subprocess.run([mbsid, "gradcheck", *args, "-cost", cost_name, *extra], capture_output=True, text=True)
    match = re.search(r"Cost \w+: J = ([-+0-9.eE]+)", out.stdout)
    if out.returncode or not match:
        sys.exit(f"FAIL gradcheck {' '.join(extra)} did not give J:\n{out.stdout}\n{out.stderr}")
    return float(match.group(1))


def zero_output(f, channel, cost_name, band, form):
    if cost_name == "time":
        t, y = f[f"channels/{channel}/signal/t"][:], f[f"channels/{channel}/signal/y"][:]
        w = np.zeros_like(t)
        w[1:] += 0.5 * np.diff(t)
        w[:-1] += 0.5 * np.diff(t)
        return np.sum(w * y**2)
    freq, amp = f[f"channels/{channel}/spectrum/frequency"][:], f[f"channels/{channel}/spectrum/amplitude"][:]
    inside = (freq >= band[0]) & (freq <= band[1])
    if form == "coefficients":
        A, B = f[f"channels/{channel}/spectrum/A"][:], f[f"channels/{channel}/spectrum/B"][:]
        return 0.5 * np.sum(A[inside] ** 2 + B[inside] ** 2)
    return 0.25 * np.sum(amp[inside] ** 4)


def check(label, got, want):
    error = abs(got - want) / abs(want)
    ok = error <= RTOL
    print(f"{'ok  ' if ok else 'FAIL'} {label}: {got:.12e} against {want:.12e}, relative difference {error:.2e} (rtol {RTOL:g})")
    return ok


def main():
    mbsid, path, a, b = sys.argv[1:5]
    base = sys.argv[sys.argv.index("--") + 1 :] + ["-identify", "d2"]
    args = base + ["-measurement", path]
    band = (0.0, 8.0)
    ok = True
    with h5py.File(path, "r") as f:
        for cost_name, form in (("time", None), ("spectrum", "squared"), ("spectrum", "coefficients")):
            extra = ["-band_hz", f"{band[0]:g},{band[1]:g}", "-cost_form", form] if cost_name == "spectrum" else []
            J_a = cost(mbsid, args, cost_name, extra + ["-channels", a, "-channel_weights", f"{a}:1"])
            J_b = cost(mbsid, args, cost_name, extra + ["-channels", b, "-channel_weights", f"{b}:1"])
            J_ab = cost(mbsid, args, cost_name, extra + ["-channels", f"{a},{b}", "-channel_weights", f"{a}:0.3,{b}:2.5"])
            J_default = cost(mbsid, args, cost_name, extra + ["-channels", f"{a},{b}"])
            ok &= check(f"{cost_name} {form or ''}: J(0.3 {a} + 2.5 {b}) = 0.3 J_{a} + 2.5 J_{b}", J_ab, 0.3 * J_a + 2.5 * J_b)
            P_a, P_b = zero_output(f, a, cost_name, band, form), zero_output(f, b, cost_name, band, form)
            ok &= check(f"{cost_name} {form or ''}: J(default weights) = J_{a}/P_{a} + J_{b}/P_{b} (P_{a} = {P_a:.6e}, P_{b} = {P_b:.6e})", J_default, J_a / P_a + J_b / P_b)
        t, y_a, y_b = f[f"channels/{a}/signal/t"][:], f[f"channels/{a}/signal/y"][:], f[f"channels/{b}/signal/y"][:]
        unit_b = f[f"channels/{b}"].attrs["units"]
        unit_b = unit_b.decode() if isinstance(unit_b, bytes) else unit_b
    with open("channels_import.csv", "w") as table:
        table.write(f"time;{a} [mm];{b}\n")
        for row in zip(t, 1e3 * y_a, y_b):
            table.write(";".join("%.17g" % v for v in row) + "\n")
    imported = subprocess.run([mbsid, "import", "-csv", "channels_import.csv", "-kind", "signal", "-channels", f"{a},{b}", "-channel_units", f"mm,{unit_b}", "-o", "channels_import.h5"], capture_output=True, text=True)
    if imported.returncode:
        sys.exit(f"FAIL mbsid import:\n{imported.stdout}\n{imported.stderr}")
    both = ["-channels", f"{a},{b}"]
    J_file = cost(mbsid, args, "time", both)
    J_imported = cost(mbsid, base + ["-measurement", "channels_import.h5"], "time", both)
    ok &= check(f"time: J of the imported table = J of {path}", J_imported, J_file)
    sys.exit(0 if ok else 1)


if __name__ == "__main__":
    main()
