#!/usr/bin/python3
"""Checks the sum over measured channels of the time and spectrum costs (src/costs/cost.c) against independent
numbers, for a measurement of several channels (/channels/NAME):

  1. J with weights a, b on channels A, B equals a J_A + b J_B, the single-channel costs of separate runs;
  2. J with the default weights equals sum_c J_c / P_c, where P_c, the cost of a zero model output, is computed here
     from the file: time  P_c = sum_i w_i y_i^2 (w_i the trapezoid weights of /signal/t), spectrum (squared form)
     P_c = 1/4 sum_k |X_k|^4 over the lines of -band_hz.

Both to RTOL = 1e-10: each J is a sum of a few thousand positive terms computed in double precision (relative
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


def zero_output(f, channel, cost_name, band):
    if cost_name == "time":
        t, y = f[f"channels/{channel}/signal/t"][:], f[f"channels/{channel}/signal/y"][:]
        w = np.zeros_like(t)
        w[1:] += 0.5 * np.diff(t)
        w[:-1] += 0.5 * np.diff(t)
        return np.sum(w * y**2)
    freq, amp = f[f"channels/{channel}/spectrum/frequency"][:], f[f"channels/{channel}/spectrum/amplitude"][:]
    inside = (freq >= band[0]) & (freq <= band[1])
    return 0.25 * np.sum(amp[inside] ** 4)


def check(label, got, want):
    error = abs(got - want) / abs(want)
    ok = error <= RTOL
    print(f"{'ok  ' if ok else 'FAIL'} {label}: {got:.12e} against {want:.12e}, relative difference {error:.2e} (rtol {RTOL:g})")
    return ok


def main():
    mbsid, path, a, b = sys.argv[1:5]
    args = sys.argv[sys.argv.index("--") + 1 :] + ["-measurement", path, "-identify", "d2"]
    band = (0.0, 8.0)
    ok = True
    with h5py.File(path, "r") as f:
        for cost_name in ("time", "spectrum"):
            extra = ["-band_hz", f"{band[0]:g},{band[1]:g}"] if cost_name == "spectrum" else []
            J_a = cost(mbsid, args, cost_name, extra + ["-channels", a, "-channel_weights", f"{a}:1"])
            J_b = cost(mbsid, args, cost_name, extra + ["-channels", b, "-channel_weights", f"{b}:1"])
            J_ab = cost(mbsid, args, cost_name, extra + ["-channels", f"{a},{b}", "-channel_weights", f"{a}:0.3,{b}:2.5"])
            J_default = cost(mbsid, args, cost_name, extra + ["-channels", f"{a},{b}"])
            ok &= check(f"{cost_name}: J(0.3 {a} + 2.5 {b}) = 0.3 J_{a} + 2.5 J_{b}", J_ab, 0.3 * J_a + 2.5 * J_b)
            P_a, P_b = zero_output(f, a, cost_name, band), zero_output(f, b, cost_name, band)
            ok &= check(f"{cost_name}: J(default weights) = J_{a}/P_{a} + J_{b}/P_{b} (P_{a} = {P_a:.6e}, P_{b} = {P_b:.6e})", J_default, J_a / P_a + J_b / P_b)
    sys.exit(0 if ok else 1)


if __name__ == "__main__":
    main()
