#!/usr/bin/env python3
"""Tables V1-V4 of powertrain_mounts.md (section 11) from the result files jobs/powertrain_tables writes into DIR.
Parts whose files are missing are said to be missing. Settings (levels, warm-ups, steps) come from the environment,
as jobs/powertrain_tables passes them. Usage: powertrain_tables.py DIR"""
import glob
import math
import os
import re
import subprocess
import sys

import h5py
import numpy as np

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "tests"))
from check_powertrain_sweep import linear_response  # noqa: E402

ACC = ["A1x", "A1y", "A1z", "A2x", "A2y", "A2z", "A3x", "A3y", "A3z"]
DISP = ["uPx", "uPy", "uPz"]


def orders(path, channels):
    """speed [rpm], order, and per channel a, b (speed x order)"""
    with h5py.File(path, "r") as f:
        speed, order = f[f"channels/{channels[0]}/orders/speed"][:], f[f"channels/{channels[0]}/orders/order"][:]
        a = np.array([f[f"channels/{c}/orders/A"][:] for c in channels])
        b = np.array([f[f"channels/{c}/orders/B"][:] for c in channels])
    return speed, order, a, b


def richardson(coarse, fine, ratio=2.0):
    """Crank-Nicolson's error is a series in h^2: the h -> 0 limit to O(h^4) from steps h and h/ratio"""
    return (ratio**2 * fine - coarse) / (ratio**2 - 1)


def v1(d):
    path = f"{d}/v1_eigen.h5"
    print("== V1: modes of the linearisation at rest (mbsid eigen; shapes mapped by mbsid to z; checked against the independent z linearisation)")
    if not os.path.exists(path):
        print("   missing: run jobs/powertrain_tables run v1")
        return
    here = os.path.dirname(os.path.abspath(__file__))
    run = subprocess.run([sys.executable, os.path.join(here, "..", "tests", "check_powertrain_modes.py"), path], capture_output=True, text=True)
    print(run.stdout, end="")
    with h5py.File(path, "r") as f:
        fn, zeta, f0 = f["eigen/frequency_hz"][:], f["eigen/damping_ratio"][:], f["eigen/undamped_frequency_hz"][:]
        lam = f["eigen/eigenvalues"][:]
        z = f["eigen/modes_z"][:, :, 0] + 1j * f["eigen/modes_z"][:, :, 1]
        z0 = f["eigen/undamped_modes_z"][:]
    upper = lam[lam[:, 1] > 0]
    fd = upper[np.argsort(np.hypot(upper[:, 0], upper[:, 1])), 1] / (2 * math.pi)
    print("mbsid's values:")
    print("mode   f_n [Hz]            f_d [Hz]            zeta                f_0 [Hz]")
    for i in range(len(fn)):
        print(f"{i + 1:4d}   {fn[i]:.12e}  {fd[i]:.12e}  {zeta[i]:.12e}  {f0[i]:.12e}")
    names = [f"{q}_{b}{c}" for b in "PS" for q in ("u", "phi") for c in "xyz"]
    print("mbsid's damped shapes in z (largest component 1), re/im:")
    print("mode " + " ".join(f"{n:>23s}" for n in names))
    for i, x in enumerate(z):
        print(f"{i + 1:4d} " + " ".join(f"{v.real:+11.8f}{v.imag:+11.8f}j" for v in x))
    print("mbsid's undamped shapes in z (phi^T M_z phi = 1):")
    print("mode " + " ".join(f"{n:>16s}" for n in names))
    for i, x in enumerate(z0):
        print(f"{i + 1:4d} " + " ".join(f"{v:+16.9e}" for v in x))


def v2(d):
    levels, T, T_check = os.environ.get("V2_LEVELS", "100 200 400").split(), os.environ.get("V2_WARMUP", "8"), os.environ.get("V2_CHECK_WARMUP", "16")
    print(f"\n== V2: stationary order 2 from rest, warm-up >= {T} s + 4 revolutions (whole revolutions), CN with m steps per revolution, m = {', '.join(levels)}")
    channels = ACC + DISP
    # per level, speed -> (a, b) x channel x order: a level may cover some speeds only (a finer one where it is needed)
    by_level = {}
    for m in levels:
        for path in [f"{d}/v2_m{m}_T{T}.h5"] + sorted(glob.glob(f"{d}/v2_m{m}_T{T}_*.h5")):
            if os.path.exists(path):
                speed, _, a, b = orders(path, channels)
                by_level.setdefault(int(m), {}).update({N: np.stack([a[:, j], b[:, j]]) for j, N in enumerate(speed)})
    speeds = sorted({N for table in by_level.values() for N in table})
    used = {N: sorted(m for m in by_level if N in by_level[m]) for N in speeds}
    if not speeds or min(len(u) for u in used.values()) < 2:
        print("   missing: needs two levels at every speed; run jobs/powertrain_tables run v2")
        return
    best = np.stack([richardson(by_level[used[N][-2]][N], by_level[used[N][-1]][N]) for N in speeds], axis=2)
    fine = np.stack([by_level[used[N][-1]][N] for N in speeds], axis=2)
    prev = np.stack([richardson(by_level[used[N][-3]][N], by_level[used[N][-2]][N]) if len(used[N]) >= 3 else np.full_like(best[:, :, 0], np.nan) for N in speeds], axis=2)
    chmax = np.max(np.hypot(best[0, :, :, 0], best[1, :, :, 0]), axis=1)  # channel max of the order-2 amplitude
    print("   result: per speed the Richardson extrapolation of its two finest levels")
    print("   'channel max' = the largest order-2 amplitude over the speeds; convergence per channel, / channel max, largest over speeds, a and b of order 2:")
    # The transient left after the warm-up is the same on every level to O(h^2) of itself: measured on the coarsest
    # level from the longer warm-up, its difference corrects the result (what is left of it then decays e^(-sigma dT))
    check = f"{d}/v2_m{levels[0]}_T{T_check}.h5" if T_check else ""
    transient = None
    if check and os.path.exists(check) and int(levels[0]) in by_level:
        speed_c, _, a, b = orders(check, channels)
        correction = np.stack([np.stack([a[:, j], b[:, j]]) - by_level[int(levels[0])][N] for j, N in enumerate(speed_c)], axis=2)
        transient = np.max(np.abs(correction)[:, :, :, 0], axis=(0, 2)) / chmax
        best, fine, prev = best + correction, fine + correction, prev + correction
        print(f"   the result is corrected by the transient measured at m = {levels[0]}: warm-up {T_check} s minus warm-up {T} s (column 'transient')")
    print(f"   {'ch':>4s} {'channel max':>12s} {'|y_fine - R|':>13s} {'|R_prev - R|':>13s} {'transient':>10s} {'A4 max':>12s}")
    for c, name in enumerate(channels):
        e_fine = np.max(np.abs(fine - best)[:, c, :, 0]) / chmax[c]
        e_prev = np.nanmax(np.abs(prev - best)[:, c, :, 0]) / chmax[c]
        tr = f"{transient[c]:10.2e}" if transient is not None else f"{'-':>10s}"
        print(f"   {name:>4s} {chmax[c]:12.5e} {e_fine:13.3e} {e_prev:13.3e} {tr} {np.max(np.hypot(best[0, c, :, 1], best[1, c, :, 1])):12.5e}")
    print("   |y_fine - R|: the error of the finest level alone; |R_prev - R|: the extrapolation from the coarser pair against R")
    print(f"   (an upper bound of R's error; its successive differences fall 16-fold for an O(h^4) remainder, halving h); transient: warm-up {T_check} s against {T} s at m = {levels[0]}")
    print("   levels per speed: " + "; ".join(f"{N:.0f}: {','.join(str(m) for m in used[N])}" for N in speeds))
    print("\n   order 2 (nonlinear, extrapolated) and the linear frequency response of V1; diff = max(|a - a_lin|, |b - b_lin|) / channel max; A4 = order 4")
    print(f"   {'rpm':>6s} {'ch':>4s} {'a':>15s} {'b':>15s} {'A':>14s} {'a_lin':>15s} {'b_lin':>15s} {'diff':>9s} {'A4':>10s}")
    for j, N in enumerate(speeds):
        lin = linear_response(N, channels)
        for c, name in enumerate(channels):
            a, b = best[0, c, j, 0], best[1, c, j, 0]
            diff = max(abs(a - lin[c, 0]), abs(b - lin[c, 1])) / chmax[c]
            A4 = math.hypot(best[0, c, j, 1], best[1, c, j, 1])
            print(f"   {N:6.0f} {name:>4s} {a:+15.8e} {b:+15.8e} {math.hypot(a, b):14.8e} {lin[c, 0]:+15.8e} {lin[c, 1]:+15.8e} {diff:9.2e} {A4:10.3e}")


def v3(d):
    steps = os.environ.get("V3_DT", "2e-5 1e-5").split()
    have = [os.path.exists(f"{d}/v3_dt{h}.h5") for h in steps]
    steps = [h for h, ok in zip(steps, have) if ok]
    files = [f"{d}/v3_dt{h}.h5" for h in steps]
    print(f"\n== V3: run-up 900 -> 6000 rpm in 12 s, orders 2 and 4, Hann windows of 4 revolutions, CN on fixed steps {', '.join(steps)} s (trapezoid on the step points)")
    if len(files) < 2:
        print("   missing: needs two steps; run jobs/powertrain_tables run v3")
        return
    channels = ACC + DISP
    data = [orders(p, channels) for p in files]
    speed = data[0][0]
    ys = [np.stack([x[2], x[3]]) for x in data]
    ratios = [float(steps[i]) / float(steps[i + 1]) for i in range(len(steps) - 1)]
    best = richardson(ys[-2], ys[-1], ratios[-1])
    chmax = np.max(np.hypot(best[0, :, :, 0], best[1, :, :, 0]), axis=1)
    window = 4 / (speed[-1] / 60)
    print(f"   intervals per window at {speed[-1]:.0f} rpm: {window / float(steps[-1]):.0f} (finest step); result: Richardson extrapolation of the two finest steps")
    prev = richardson(ys[-3], ys[-2], ratios[-2]) if len(ys) >= 3 else None
    print(f"   {'ch':>4s} {'channel max':>12s} {'o2 |y_fine - R|':>16s} {'o4 |y_fine - R|':>16s}" + (f" {'o2 |R_prev - R|':>16s} {'o4 |R_prev - R|':>16s}" if prev is not None else "") + "   (largest over speeds, / channel max of order 2)")
    for c, name in enumerate(channels):
        line = f"   {name:>4s} {chmax[c]:12.5e}"
        for y in [ys[-1]] + ([prev] if prev is not None else []):
            line += f" {np.max(np.abs(y - best)[:, c, :, 0]) / chmax[c]:16.3e} {np.max(np.abs(y - best)[:, c, :, 1]) / chmax[c]:16.3e}"
        print(line)
    print(f"\n   {'rpm':>6s} {'ch':>4s} {'a2':>15s} {'b2':>15s} {'A2':>14s} {'a4':>15s} {'b4':>15s} {'A4':>14s}")
    for j, N in enumerate(speed):
        for c, name in enumerate(channels):
            a2, b2, a4, b4 = best[0, c, j, 0], best[1, c, j, 0], best[0, c, j, 1], best[1, c, j, 1]
            print(f"   {N:6.0f} {name:>4s} {a2:+15.8e} {b2:+15.8e} {math.hypot(a2, b2):14.8e} {a4:+15.8e} {b4:+15.8e} {math.hypot(a4, b4):14.8e}")
    print("\n   spot values, extrapolated from the two finest steps (the channels of the model file: 9 accelerations [m/s^2], u_P [m]);")
    print("   conv = |fine - R| / the largest |value| of that channel over the three times")
    spots = []
    for path in files[-3:]:
        with h5py.File(path, "r") as f:
            spots.append(np.array([[np.interp(t, f[f"channels/{n}/signal/t"][:], f[f"channels/{n}/signal/y"][:]) for n in channels] for t in (0.5, 3.0, 12.0)]))
    spot = richardson(spots[-2], spots[-1], ratios[-1])
    conv = np.abs(spots[-1] - spot) / np.max(np.abs(spot), axis=0)
    for i, t in enumerate((0.5, 3.0, 12.0)):
        print(f"   t = {t:4.1f} s: " + " ".join(f"{n}={v:+.8e}" for n, v in zip(channels, spot[i])))
    print("   conv, largest over the times: " + " ".join(f"{n}={v:.1e}" for n, v in zip(channels, np.max(conv, axis=0))))
    if len(spots) == 3:
        spot_prev = richardson(spots[0], spots[1], ratios[-2])
        print("   |R_prev - R| likewise: " + " ".join(f"{n}={v:.1e}" for n, v in zip(channels, np.max(np.abs(spot_prev - spot) / np.max(np.abs(spot), axis=0), axis=0))))


def gradcheck_log(path):
    """J, and per parameter (name, value, adjoint dJ/dp, FD dJ/dp or None, relative error or None)"""
    text = open(path).read()
    J = float(re.search(r"Cost spectrum: J = (\S+)", text).group(1))
    rows = []
    for line in text.splitlines():
        m = re.match(r"([MB][0-9]_[kd][xyz])\s+(\S+)\s+(\S+)\s+(\S+)\s*(\S*)", line)
        if m:
            fd = None if m.group(4) == "-" else float(m.group(4))
            rows.append((m.group(1), float(m.group(2)), float(m.group(3)), fd, float(m.group(5)) if fd is not None else None))
    return J, rows


def linear_cost(form):
    """J at p_08 and p_i dJ/dp_i (central differences of log p_i, step 1e-4) of the linear frequency response of V1,
    against the same response at the true parameters: the nonlinear model's order 2 lies within 5e-7 of it (V2)"""
    import check_powertrain_modes as modes

    true = [(b[5], b[6]) for b in modes.BUSHINGS]

    def cost(scale):  # scale: 42 factors on (k, d) of the bushings in section 3.3's order
        saved = list(modes.BUSHINGS)
        try:
            modes.BUSHINGS[:] = [b[:5] + (tuple(np.array(k) * scale[3 * i:3 * i + 3]), tuple(np.array(dd) * scale[21 + 3 * i:24 + 3 * i])) for i, (b, (k, dd)) in enumerate(zip(saved, true))]
            y = np.array([linear_response(N, ACC) for N in range(900, 6001, 300)])
        finally:
            modes.BUSHINGS[:] = saved
        return y

    ybar = cost(np.ones(42))
    p08 = np.r_[0.8 * np.ones(21), np.ones(21)]

    def J(scale):
        y = cost(scale)
        if form == "coefficients":
            return 0.5 * np.sum((y - ybar) ** 2)
        return 0.25 * np.sum((np.sum(y**2, axis=2) - np.sum(ybar**2, axis=2)) ** 2)

    h = 1e-4
    grad = np.array([(J(p08 * np.exp(h * np.eye(42)[i])) - J(p08 * np.exp(-h * np.eye(42)[i]))) / (2 * h) for i in range(42)])
    return J(p08), grad


def forward_cost(d, form, m):
    """J of the forward sweeps of level m (p_08 against the truth), as the cost defines it; None if missing"""
    paths = [f"{d}/v4_{w}_m{m}.h5" for w in ("p08", "truth")]
    if not all(os.path.exists(p) for p in paths):
        return None
    (_, _, a, b), (_, _, a0, b0) = (orders(p, ACC) for p in paths)
    if form == "coefficients":
        return 0.5 * np.sum((a - a0) ** 2 + (b - b0) ** 2)
    return 0.25 * np.sum((a**2 + b**2 - a0**2 - b0**2) ** 2)


def v4(d):
    levels = os.environ.get("V4_LEVELS", "50 100").split()
    j_levels = os.environ.get("V4_J_LEVELS", "200").split()
    print(f"\n== V4: costs at p_08 (stiffnesses x 0.8) over 9 accelerometers x 18 speeds (weight 1 each), truth made on the same steps; m = {', '.join(levels)} steps per revolution (adjoint), {', '.join(j_levels) or 'none'} (J alone)")
    for form, name in (("coefficients", "J_id = 1/2 sum (a - abar)^2 + (b - bbar)^2 [(m/s^2)^2]"), ("squared", "J_amp = 1/4 sum (A^2 - Abar^2)^2 [(m/s^2)^4]")):
        done = [m for m in levels if os.path.exists(f"{d}/v4_{form}_m{m}.log") and "Cost spectrum: J" in open(f"{d}/v4_{form}_m{m}.log").read()]
        if not done:
            print(f"   {name}: missing (run jobs/powertrain_tables run v4)")
            continue
        runs = [gradcheck_log(f"{d}/v4_{form}_m{m}.log") for m in done]
        costs = {int(m): r[0] for m, r in zip(done, runs)}
        costs.update({int(m): J for m in j_levels if (J := forward_cost(d, form, m)) is not None})
        levels = done
        print(f"   {name}")
        if len(runs) == 1:  # no extrapolation of the gradient: the one level twice, its distance 0
            runs = runs * 2
            print(f"     (one adjoint level only, m = {done[0]}: gradient not extrapolated)")
        steps = sorted(costs) * (2 if len(costs) == 1 else 1)
        J = [costs[m] for m in steps]
        R = [richardson(J[i], J[i + 1], steps[i + 1] / steps[i]) for i in range(len(J) - 1)]
        print("     J per level: " + ", ".join(f"m={m}: {costs[m]:.10e}" for m in steps) + f"; extrapolated from the two finest {R[-1]:.10e} (|J_fine - J_R| / J_R = {abs(J[-1] - R[-1]) / R[-1]:.2e})")
        if len(R) > 1:
            print("     extrapolations of successive pairs: " + ", ".join(f"{r:.10e}" for r in R) + f"; |R_prev - R| / R = {abs(R[-2] - R[-1]) / R[-1]:.2e} (R's error about 1/15 of it)")
        g = [np.array([row[2] for row in r[1]]) for r in runs]
        p = np.array([row[1] for row in runs[-1][1]])
        lg = [p * gi for gi in g]
        lgr = richardson(lg[-2], lg[-1])
        scale = np.max(np.abs(lgr))
        print(f"     log gradients p_i dJ/dp_i (adjoint), extrapolated; conv = |fine - R| / max_i |R_i| (max {np.max(np.abs(lg[-1] - lgr)) / scale:.2e}); FD: central differences of the same discrete cost")
        J_lin, lg_lin = linear_cost(form)
        print(f"     the same cost of the linear frequency response (independent, section 8.1's model at p_08 and p_true): J = {J_lin:.10e} ((R - J_lin) / J_lin = {(R[-1] - J_lin) / J_lin:.2e})")
        print(f"     {'param':8s} {'p_i':>12s} {'p_i dJ/dp_i':>16s} {'conv':>9s} {'linear':>16s}   FD check (level: rel. error)")
        for i, row in enumerate(runs[-1][1]):
            checks = [f"m={m}: {r[1][i][4]:.1e}" for m, r in zip(levels, runs) if r[1][i][3] is not None]
            print(f"     {row[0]:8s} {row[1]:12.6g} {lgr[i]:+16.8e} {abs(lg[-1][i] - lgr[i]) / scale:9.2e} {lg_lin[i]:+16.8e}   {' '.join(checks)}")
        print(f"     max_i |p_i dJ/dp_i - linear_i| / max_i |p_i dJ/dp_i| = {np.max(np.abs(lgr - lg_lin)) / scale:.2e} (spec: 1e-3)")


def main(d):
    v1(d)
    v2(d)
    v3(d)
    v4(d)
    times = f"{d}/times.txt"
    if os.path.exists(times):
        print("\n== wall times (2 cores shared)")
        print(open(times).read(), end="")


if __name__ == "__main__":
    main(sys.argv[1])
