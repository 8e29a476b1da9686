#!/usr/bin/python3
"""The shipped test-bench example (inputs/engine4_bench/) through the first two steps of jobs/engine4_bench: mbsid
import of its CSV files and mbsid track of the 6th order in the crank angle of its 60-2 tachometer.

Checked against the speed jobs/make_engine4_bench made the example with, in closed form,

    n(t) = n_trend(t) (1 + 0.01 sin(2 phi_trend(t))),   n_trend = 1000 + 1003 (t - 1)+ [rpm]:

the speed table derived from the pulses to 1e-4 at every pulse but the five whose stencil straddles the kink at
t = 1 s, where the ramp starts and the true speed has no derivative (there the error is 1.3e-4), and the ramp's slope
0.3 % above the nominal one.

Usage: check_bench_example.py MBSID SOURCE_DIR   (run in a scratch directory)
"""
import os
import subprocess
import sys

import h5py
import numpy as np

mbsid, source = sys.argv[1], sys.argv[2]
bench = os.path.join(source, "inputs", "engine4_bench")


def run(*args):
    result = subprocess.run([mbsid, *args], capture_output=True, text=True)
    print(result.stdout, end="")
    if result.returncode:
        print(result.stderr)
        sys.exit(f"FAIL: mbsid {' '.join(args)} exited with {result.returncode}")


run("import", "-csv", os.path.join(bench, "signal.csv"), "-kind", "signal", "-columns", "time,twist", "-units", "mrad", "-model", "engine4", "-o", "bench_signal.h5")
run("import", "-csv", os.path.join(bench, "tacho.csv"), "-kind", "tacho", "-o", "bench_tacho.h5")
run("track", "-measurement", "bench_signal.h5", "-tacho", "bench_tacho.h5", "-orders", "6", "-speed_rpm", "3000,6300,50", "-o", "bench_orders.h5")
with h5py.File("bench_orders.h5", "r") as f:
    t, rpm = f["/speed_profile/t"][:], f["/speed_profile/rpm"][:]
    amplitude = f["/orders/amplitude"][:, 0]
ramp = np.clip(t - 1, 0, None)
trend = 1000 + 1003 * ramp
true_rpm = trend * (1 + 0.01 * np.sin(2 * 2 * np.pi / 60 * (1000 * t + 0.5 * 1003 * ramp**2)))
smooth = np.abs(t - 1) > 2.5 * 60 / 1000 / 60  # the quartic through five pulses cannot follow the kink at t = 1 s
speed_error = np.max(np.abs(rpm / true_rpm - 1)[smooth])
ramp_rows = (t > 1.5) & (t < 6.0)
slope = np.polyfit(t[ramp_rows], rpm[ramp_rows], 1)[0]
print(f"tacho speed: {len(t)} rows, max relative error {speed_error:.2e} ({np.max(np.abs(rpm / true_rpm - 1)):.2e} at the kink); ramp slope {slope:.2f} rpm/s (nominal 1000); "
      f"order 6 at 67 speeds: {amplitude.min():.3e} to {amplitude.max():.3e} rad")
failures = []
if not speed_error < 1e-4:
    failures.append(f"tacho-derived speed off by {speed_error:.2e} (limit 1e-4)")
if not abs(slope / 1003 - 1) < 1e-3:
    failures.append(f"ramp slope {slope:.2f} rpm/s, expected 1003 (0.3 % above the nominal 1000)")
if not (amplitude.shape == (67,) and np.all(amplitude > 0)):
    failures.append("the tracked order 6 is not 67 positive amplitudes")
if failures:
    sys.exit("FAIL: " + "; ".join(failures))
print("Bench example check passed")
