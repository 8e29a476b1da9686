#!/usr/bin/python3
"""Order tracking of a raw signal against a synthetic truth (issue 17).

The crank angle of a run-up that is no straight line is known in closed form,

    phi(t) = phi_trend(t) + a sin(2 phi_trend(t)),   n_trend(t) = n0 + (n1 - n0) (t/T)^1.5 [rpm],

a ripple of 2a = 1 % of the speed at engine order 2. A 60-2 wheel gives the pulse times (phi = 2 pi k/60, teeth 58
and 59 of every revolution missing; solved by Newton, rounded to 1 ns like a counter card), the signal
y = sum_o Y_o cos(o phi + psi_o) is sampled at 5 kHz. Both go through the user's path: CSV files, mbsid import,
mbsid track. Checked: the speed table derived from the pulses against the true speed at its times (1e-4), and the
tracked amplitudes and phases against Y_o, psi_o (1e-3); the same with the speed channel as the source; and two
channels of one table (mbsid import -channels), each tracked against the one tachometer, against their own truths.

Usage: check_tracking.py MBSID [MPIEXEC_PREFIX...]   (run in a scratch directory)
"""
import subprocess
import sys

import h5py
import numpy as np

mbsid, prefix = sys.argv[1], sys.argv[2:]
T, n0, n1, a, fs = 4.0, 1000.0, 6000.0, 0.005, 5000.0
orders, amplitude, phase = np.array([2.0, 6.0]), np.array([1e-3, 3e-4]), np.array([0.4, -1.1])
speeds = np.arange(1500.0, 5501.0, 500.0)


def trend_angle(t):
    return 2 * np.pi / 60 * (n0 * t + (n1 - n0) * T / 2.5 * (t / T) ** 2.5)


def trend_rate(t):
    return 2 * np.pi / 60 * (n0 + (n1 - n0) * (t / T) ** 1.5)


def angle(t):
    return trend_angle(t) + a * np.sin(2 * trend_angle(t))


def speed_rpm(t):
    return 60 / (2 * np.pi) * trend_rate(t) * (1 + 2 * a * np.cos(2 * trend_angle(t)))


def run(*args):
    result = subprocess.run(prefix + [mbsid, *args], capture_output=True, text=True)
    print(result.stdout, end="")
    if result.returncode:
        print(result.stderr)
        sys.exit(f"FAIL: mbsid {' '.join(args)} exited with {result.returncode}")
    return result.stdout


# pulses: every tooth angle 2 pi k/60 inside the run, the two after tooth 57 of each revolution missing
teeth = np.arange(1, int(angle(T) / (2 * np.pi / 60)))
teeth = teeth[teeth % 60 < 58]
target = teeth * 2 * np.pi / 60
t = target / trend_rate(T / 2)
for _ in range(60):
    t = np.clip(t - (angle(t) - target) / (2 * np.pi / 60 * speed_rpm(t)), 0, T)
assert np.max(np.abs(angle(t) - target)) < 1e-12
pulses = np.round(t, 9)
np.savetxt("tacho.csv", pulses, fmt="%.9f", header="pulse time [s]", comments="# 60-2 wheel\n")

ts = np.arange(0, int(T * fs) + 1) / fs
y = sum(A * np.cos(o * angle(ts) + p) for o, A, p in zip(orders, amplitude, phase))
with open("signal.csv", "w") as f:  # milliradians and rev/s, as a test bench might export them
    f.write("time;twist_mrad;speed_Hz\n")
    for row in zip(ts, 1e3 * y, speed_rpm(ts) / 60):
        f.write("%.6f;%.12e;%.12e\n" % row)

run("import", "-csv", "signal.csv", "-kind", "signal", "-columns", "time,twist_mrad,speed_Hz", "-units", "mrad", "-speed_units", "Hz", "-o", "signal.h5")
run("import", "-csv", "tacho.csv", "-kind", "tacho", "-o", "tacho.h5")
failures = []
for source, extra in (("tacho", ["-tacho", "tacho.h5"]), ("channel", ["-speed_source", "channel"])):
    out = f"tracked_{source}.h5"
    run("track", "-measurement", "signal.h5", *extra, "-orders", "2,6", "-speed_rpm", "1500,5500,500", "-o", out)
    with h5py.File(out, "r") as f:
        assert f["/orders"].attrs["domain"] in (b"angle", "angle"), f["/orders"].attrs["domain"]
        assert np.array_equal(f["/orders/speed"][:], speeds)
        amp, ca, cb = (f["/orders/" + k][:] for k in ("amplitude", "A", "B"))
        tp, rpm = f["/speed_profile/t"][:], f["/speed_profile/rpm"][:]
    speed_error = np.max(np.abs(rpm / speed_rpm(tp) - 1))
    amp_error = np.max(np.abs(amp / amplitude - 1))
    phase_error = np.max(np.abs(np.angle(np.exp(1j * (np.arctan2(-cb, ca) - phase)))))
    print(f"{source}: speed table {len(tp)} rows, max relative speed error {speed_error:.2e}; "
          f"orders {orders} at {len(speeds)} speeds: max relative amplitude error {amp_error:.2e}, max phase error {phase_error:.2e} rad")
    if source == "tacho" and not speed_error < 1e-4:
        failures.append(f"tacho-derived speed off by {speed_error:.2e} (limit 1e-4)")
    if not amp_error < 1e-3 or not phase_error < 1e-3:
        failures.append(f"{source}: tracked orders off by {amp_error:.2e} in amplitude, {phase_error:.2e} rad in phase (limit 1e-3)")

# two channels of one table (mbsid import -channels) tracked against the one tachometer, each against its own truth
amplitude2, phase2 = np.array([2e-4, 5e-4]), np.array([-0.3, 0.9])
y2 = sum(A * np.cos(o * angle(ts) + p) for o, A, p in zip(orders, amplitude2, phase2))
with open("channels.csv", "w") as f:
    f.write("time;twist_mrad;x_mm\n")
    for row in zip(ts, 1e3 * y, 1e3 * y2):
        f.write("%.6f;%.12e;%.12e\n" % row)
run("import", "-csv", "channels.csv", "-kind", "signal", "-channels", "twist,x", "-channel_units", "mrad,mm", "-o", "channels.h5")
run("track", "-measurement", "channels.h5", "-tacho", "tacho.h5", "-orders", "2,6", "-speed_rpm", "1500,5500,500", "-o", "tracked_channels.h5")
with h5py.File("tracked_channels.h5", "r") as f:
    for channel, units, amp_true, phase_true in (("twist", "rad", amplitude, phase), ("x", "m", amplitude2, phase2)):
        group = f["/channels/" + channel]
        got_units = group.attrs["units"].decode() if isinstance(group.attrs["units"], bytes) else group.attrs["units"]
        amp, ca, cb = (group["orders/" + k][:] for k in ("amplitude", "A", "B"))
        amp_error = np.max(np.abs(amp / amp_true - 1))
        phase_error = np.max(np.abs(np.angle(np.exp(1j * (np.arctan2(-cb, ca) - phase_true)))))
        print(f"channel {channel} [{got_units}]: max relative amplitude error {amp_error:.2e}, max phase error {phase_error:.2e} rad")
        if got_units != units or not amp_error < 1e-3 or not phase_error < 1e-3:
            failures.append(f"channel {channel} [{got_units}, want {units}]: tracked orders off by {amp_error:.2e} in amplitude, {phase_error:.2e} rad in phase (limit 1e-3)")
    if "speed_profile/rpm" not in f:
        failures.append("the tracked channels have no shared /speed_profile")

# a tacho with one pulse lost is refused where it is lost (an interval of 2 pitches on a 60-2 wheel)
np.savetxt("tacho_lost.csv", np.delete(pulses, 500), fmt="%.9f")
run("import", "-csv", "tacho_lost.csv", "-kind", "tacho", "-o", "tacho_lost.h5")
result = subprocess.run(prefix + [mbsid, "track", "-measurement", "signal.h5", "-tacho", "tacho_lost.h5", "-orders", "2", "-speed_rpm", "1500,5500,500", "-o", "lost.h5"], capture_output=True, text=True)
if result.returncode == 0 or "spans 2 tooth pitches of its neighbours (a gap of 1), but the 60-2 wheel" not in result.stdout + result.stderr:
    failures.append("a tacho with a lost pulse was not refused with the gap's place")
if failures:
    sys.exit("FAIL: " + "; ".join(failures))
print("Tracking check passed")
