#!/usr/bin/python3
"""mbsid import of every kind of table against the values written into it (issue 17).

Each table is written here from known values in the units and layouts test benches use: a decimal comma, ';', tabs,
blanks, quoted and commented headers, columns in another order than the schema's, times in ms, speeds in Hz, angles
and phases in degrees. The measurement file must hold the same values in the schema's units: s, rpm, rad (or m),
and for phases the coefficients a = X cos psi, b = -X sin psi.

Usage: check_import.py MBSID   (run in a scratch directory)
"""
import subprocess
import sys

import h5py
import numpy as np

mbsid = sys.argv[1]
rng = np.random.default_rng(3)
failures = []


def run(*args):
    result = subprocess.run([mbsid, "import", *args], capture_output=True, text=True)
    print(result.stdout, end="")
    if result.returncode:
        print(result.stderr)
        sys.exit(f"FAIL: mbsid import {' '.join(args)} exited with {result.returncode}")


def check(name, got, want, rtol=1e-12):
    error = np.max(np.abs(np.asarray(got) - want) / np.maximum(np.abs(want), 1e-300))
    print(f"{name:28s} max relative error {error:.1e}")
    if not error <= rtol:
        failures.append(f"{name}: relative error {error:.1e} above {rtol:.0e}")


def attr(f, path, name):
    value = f[path].attrs[name]
    return value.decode() if isinstance(value, bytes) else value


# order cuts with a decimal comma: speed in Hz, orders 2 and 4,5 named in the header (a name with a comma is chosen by
# its index), phases in degrees
speed_hz = np.arange(50.0, 101.0, 5.0)
amplitude = rng.uniform(0.01, 2.0, (len(speed_hz), 2))  # mrad
phase = rng.uniform(-180, 180, (len(speed_hz), 2))  # deg
with open("orders.csv", "w") as f:
    f.write("# order cuts exported with a decimal comma\n\"speed [Hz]\";\"order 2\";phase 2 [deg];Order 4,5;phase 4,5 [deg]\n")
    for s, x, p in zip(speed_hz, amplitude, phase):
        f.write(";".join(("%.15g" % v).replace(".", ",") for v in (s, x[0], p[0], x[1], p[1])) + "\n")
run("-kind", "orders", "-csv", "orders.csv", "-csv_decimal_comma", "-columns", "speed [Hz],order 2,4", "-speed_units", "Hz", "-units", "mrad",
    "-phase_columns", "PHASE 2 [deg],5", "-phase_units", "deg", "-model", "engine4", "-o", "orders.h5")
with h5py.File("orders.h5", "r") as f:
    check("orders: speed [rpm]", f["/orders/speed"][:], 60 * speed_hz)
    check("orders: order", f["/orders/order"][:], [2.0, 4.5])
    check("orders: amplitude [rad]", f["/orders/amplitude"][:], 1e-3 * amplitude)
    check("orders: a [rad]", f["/orders/A"][:], 1e-3 * amplitude * np.cos(np.radians(phase)))
    check("orders: b [rad]", f["/orders/B"][:], -1e-3 * amplitude * np.sin(np.radians(phase)))
    for key, want in (("domain", "angle"),):
        if attr(f, "/orders", key) != want:
            failures.append(f"/orders attribute {key} is {attr(f, '/orders', key)}, expected {want}")
    for key, want in (("units", "rad"), ("model", "engine4"), ("output", "twist")):
        if attr(f, "/", key) != want:
            failures.append(f"root attribute {key} is {attr(f, '/', key)}, expected {want}")

# a spectrum in columns separated by blanks, without header, frequency second
freq = np.linspace(0.5, 40, 80)
amp = rng.uniform(0, 3, len(freq))  # mm
np.savetxt("spectrum.txt", np.column_stack((amp, freq)), fmt="%.17g", delimiter="   ")
run("-kind", "spectrum", "-csv", "spectrum.txt", "-columns", "2,1", "-units", "mm", "-o", "spectrum.h5")
with h5py.File("spectrum.h5", "r") as f:
    check("spectrum: frequency [Hz]", f["/spectrum/frequency"][:], freq)
    check("spectrum: amplitude [m]", f["/spectrum/amplitude"][:], 1e-3 * amp)
    if attr(f, "/", "units") != "m":
        failures.append("spectrum: units are not m")

# a speed profile, tab-separated: time in ms, speed in rad/s, crank angle in degrees, with comments between rows
t_ms = np.linspace(0, 2000, 41)
omega = 100 + 0.2 * t_ms  # rad/s
angle_deg = np.degrees(100 * t_ms / 1e3 + 0.1 * (t_ms / 1e3) ** 2 * 1e3)
with open("profile.tsv", "w") as f:
    f.write("t [ms]\tomega [rad/s]\tangle [deg]\n")
    for i, row in enumerate(zip(t_ms, omega, angle_deg)):
        f.write("\t".join("%.17g" % v for v in row) + "\n")
        if i == 10:
            f.write("\n# the bench paused its export here\n")
run("-kind", "speed_profile", "-csv", "profile.tsv", "-columns", "1,2,3", "-time_units", "ms", "-speed_units", "rad/s", "-angle_units", "deg", "-o", "profile.h5")
with h5py.File("profile.h5", "r") as f:
    check("speed_profile: t [s]", f["/speed_profile/t"][:], 1e-3 * t_ms)
    check("speed_profile: rpm", f["/speed_profile/rpm"][:], omega * 30 / np.pi)
    check("speed_profile: angle [rad]", f["/speed_profile/angle"][:], np.radians(angle_deg))

# a signal with a speed channel, columns chosen by name in another case and order
ts = np.arange(0, 1000) / 5000
y_deg = 0.3 * np.sin(2 * np.pi * 35 * ts)
rpm = 1000 + 500 * ts
with open("signal.csv", "w") as f:
    f.write("rpm,angle_deg,t_s\n")
    for row in zip(rpm, y_deg, ts):
        f.write(",".join("%.17g" % v for v in row) + "\n")
run("-kind", "signal", "-csv", "signal.csv", "-columns", "T_S,Angle_Deg,RPM", "-units", "deg", "-o", "signal.h5")
with h5py.File("signal.h5", "r") as f:
    check("signal: t [s]", f["/signal/t"][:], ts)
    check("signal: y [rad]", f["/signal/y"][:], np.radians(y_deg))
    check("signal: speed [rpm]", f["/signal/speed"][:], rpm)

if failures:
    sys.exit("FAIL: " + "; ".join(failures))
print("Import check passed")
