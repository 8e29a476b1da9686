#!/usr/bin/env python3
"""beam_bushings (../shared/models/beam_bushings.md): mbsid's results against the exact continuum solution of
beam_bushings_reference.py (section 10's checks).

  check_beam_bushings.py modes EIGEN_H5 TOL [--brief]
      V1: the modes of mbsid eigen below 300 Hz (the free roll excluded by mbsid) against the continuum's: f_n, f_d and
      the undamped f_0 to TOL (relative), zeta to 5e-2 (relative), the kinetic-energy family (/eigen/energy_share,
      the largest share) equal to the continuum's; the free roll is the 2 rigid-body zeros and no instability
      (/eigen/modes attributes). Prints the first 12 modes. --brief: one line, nothing asserted.
  check_beam_bushings.py stationary SIM_H5[,SIM_H5] F T1 T2 TOL [--frf FRF_H5 OWN_TOL]
      V3: mbsid simulate's channels under F0 w_r(t) sin(2 pi F t): the Hann coefficient c = (2/T_w) int eta a
      e^{-i 2 pi F t} dt on [T1, T2] (eta = 1 - cos(2 pi (t - T1)/T_w), trapezoid on the output's step points) and
      H_c = c / (-i F0), against the continuum's H_c(F) to TOL relative for every channel. SIM_H5 may name two runs,
      A,B, of a second-order method whose B has half A's step: H_c is then Richardson's (4 H_B - H_A) / 3 (and H_A,
      H_B are printed). --frf FRF_H5 OWN_TOL: also against the implementation's own V2 there (mbsid frf at F).
  check_beam_bushings.py sweep SIM_H5 TOL
      V4: the sweep 5 -> 400 Hz over 4 s with the 0.1 s taper: the 16 instantaneous values and RMS bins per channel
      against the continuum's transient; RMS bins with t <= 3 s to TOL (relative). The transient: the force sampled at
      FS on [0, T_PAD], continued after 4 s by a sin^2 fade over 0.05 s (the response on [0, 4] s is causal: it
      does not depend on the force after 4 s; the fade keeps the spectrum band-limited), a = irfft(H(f) rfft(F));
      FS = 4096 Hz, T_PAD = 80 s (the wrap-around of the least damped modes: 40 s of padding change a by 1.3e-4 of the
      channel max against 60 s), H up to 1500 Hz (2000 Hz: 3e-7).
  check_beam_bushings.py variant MODEL F M OUT
  check_beam_bushings.py variant MODEL sweep DT OUT
      Writes OUT: the model file MODEL over [0, 4] s for V3 at F Hz, at M steps per period, the load 10 sin(2 pi F t)
      with the sin^2 ramp of 0.5 s; or for V4 at the step DT, the sweep 5 -> 400 Hz with the 0.1 s ramp; the flexible
      body's file by its absolute path. Nothing asserted.
  check_beam_bushings.py frf FRF_H5 TOL
      V2: mbsid frf's H_c (/channels/NAME/frf/{real,imag} at /frf/frequency_hz) against the continuum's H_c to TOL
      relative for every channel at the frequencies <= 300 Hz; those above are printed for information.
  check_beam_bushings.py taper SIM_H5 TOL
      The force's ramp: tests/models/force_ramp.yaml's acceleration against the closed form of its two tapered forces
      over its mass, F w(tau), w = sin^2(pi tau / (2 T_r)) for tau < T_r, 1 after (tau from the file's t0 for the
      harmonic, from the sweep's t0 for the sweep, which is zero outside [t0, t1]), to TOL of the largest.
"""
import os
import sys
import h5py
import numpy as np
import beam_bushings_reference as R

FMAX = 300.0


def check_modes(path, tol, brief):
    e = h5py.File(path, "r")["eigen"]
    fn, zeta, f0 = e["frequency_hz"][:], e["damping_ratio"][:], e["undamped_frequency_hz"][:]
    share, ushare = e["energy_share"][:], e["undamped_energy_share"][:]
    families = e["energy_share"].attrs["families"]
    families = (families.decode() if isinstance(families, bytes) else str(families)).split(", ")
    attrs = {k: (v.decode() if isinstance(v, bytes) else str(v)) for k, v in e["modes"].attrs.items()}
    roll = attrs.get("rigid_body_modes") == "2" and attrs.get("unstable") == "no"
    ref = R.modes(520.0)
    n = min(12, len(fn), len(f0))
    worst = {"f_n": 0.0, "f_d": 0.0, "f_0": 0.0, "zeta": 0.0}
    ok = True
    lines = []
    for i in range(n):
        fd = fn[i] * np.sqrt(1 - zeta[i] ** 2)
        fam, ufam = families[int(np.argmax(share[i]))], families[int(np.argmax(ushare[i]))]
        m = ref[i] if i < len(ref) else None
        line = f"{i + 1:4d} {fn[i]:11.5f} {fd:11.5f} {zeta[i]:10.3e} {f0[i]:11.5f}  {fam:9s}"
        if m:
            err = {"f_n": fn[i] / m["fn"] - 1, "f_d": fd / m["fd"] - 1, "f_0": f0[i] / m["f0"] - 1, "zeta": zeta[i] / m["zeta"] - 1}
            line += f" | {m['fn']:11.5f} {m['fd']:11.5f} {m['zeta']:10.3e} {m['f0']:11.5f}  {m['family']:9s} | {err['f_n']:+.1e} {err['f_d']:+.1e} {err['f_0']:+.1e} {err['zeta']:+.1e}"
            if m["fn"] < FMAX:
                for k in worst:
                    worst[k] = max(worst[k], abs(err[k]))
                good = abs(err["f_n"]) <= tol and abs(err["f_d"]) <= tol and abs(err["f_0"]) <= tol and abs(err["zeta"]) <= 5e-2 and fam == m["family"] and ufam == m["family"]
                ok = ok and good
                line += "" if good else "  <- FAILS"
        lines.append(line)
    nbelow = sum(m["fn"] < FMAX for m in ref)
    if brief:
        print(f"modes {len(fn)}, below {FMAX:g} Hz: largest relative error f_n {worst['f_n']:.2e}, f_0 {worst['f_0']:.2e}, zeta {worst['zeta']:.2e}")
        return True
    print(f"{'mode':>4} {'f_n [Hz]':>11} {'f_d [Hz]':>11} {'zeta':>10} {'f_0 [Hz]':>11}  {'family':9s} | continuum (same columns)" + " " * 44 + "| relative errors f_n f_d f_0 zeta")
    print("\n".join(lines))
    print(f"the {nbelow} modes below {FMAX:g} Hz: largest relative error f_n {worst['f_n']:.2e}, f_d {worst['f_d']:.2e}, f_0 {worst['f_0']:.2e} (tolerance {tol:g}), zeta {worst['zeta']:.2e} (5e-2); families {'match' if ok else 'or values FAIL'}")
    print(f"rigid-body zeros {attrs.get('rigid_body_modes')} (the free roll: 2), unstable: {attrs.get('unstable')}" + ("" if roll else "  <- FAILS"))
    return ok and roll and n >= nbelow


def channels(path):
    f = h5py.File(path, "r")["channels"]
    t = f["z12/signal/t"][:]
    return t, {name: f[name + "/signal/y"][:] for name, _, _ in R.CHANNELS}


def hann_coefficients(path, freq, t1, t2):
    """H_c = c / (-i F0) of every channel, c the Hann coefficient on [t1, t2] (trapezoid on the step points)."""
    t, y = channels(path)
    sel = (t >= t1 - 1e-9) & (t <= t2 + 1e-9)
    ts, tw = t[sel], t2 - t1
    assert abs(ts[0] - t1) < 1e-9 and abs(ts[-1] - t2) < 1e-9, f"{path}: no output at t = {t1:g} and {t2:g} s"
    eta = 1 - np.cos(2 * np.pi * (ts - t1) / tw)
    h = [2 / tw * np.trapz(eta * y[name][sel] * np.exp(-2j * np.pi * freq * ts), ts) / (-1j * R.F0) for name, _, _ in R.CHANNELS]
    return np.array(h), len(ts) - 1


def own_frf(path, freq):
    with h5py.File(path, "r") as f:
        j = int(np.argmin(np.abs(f["/frf/frequency_hz"][:] - freq)))
        assert abs(f["/frf/frequency_hz"][j] - freq) < 1e-9 * freq, f"{path}: no frequency {freq:g} Hz"
        return np.array([f[f"/channels/{name}/frf/real"][j] + 1j * f[f"/channels/{name}/frf/imag"][j] for name, _, _ in R.CHANNELS])


def check_stationary(paths, freq, t1, t2, tol, frf=None, own_tol=None):
    runs = [hann_coefficients(p, freq, t1, t2) for p in paths.split(",")]
    h, steps = runs[-1]
    if len(runs) == 2:
        h = (4 * runs[1][0] - runs[0][0]) / 3
    href, hown = R.frf(freq), own_frf(frf, freq) if frf else None
    ok, worst, worst_own = True, 0.0, 0.0
    for c, (name, _, _) in enumerate(R.CHANNELS):
        err = abs(h[c] - href[c]) / abs(href[c])
        worst = max(worst, err)
        ok = ok and err <= tol
        line = f"{freq:7.2f} Hz {name}: H = {h[c].real:+.6e} {h[c].imag:+.6e}i, continuum {href[c].real:+.6e} {href[c].imag:+.6e}i, relative error {err:.2e}"
        if frf:
            own = abs(h[c] - hown[c]) / abs(hown[c])
            worst_own = max(worst_own, own)
            ok = ok and own <= own_tol
            line += f"; against own V2 {own:.2e}" + "".join(f" (run {k + 1}: {abs(r[0][c] - hown[c]) / abs(hown[c]):.2e})" for k, r in enumerate(runs) if len(runs) > 1)
        print(line)
    how = "Richardson of 2 runs, " if len(runs) == 2 else ""
    print(f"{freq:7.2f} Hz: largest relative error {worst:.2e} (tolerance {tol:g})" + (f", against own V2 {worst_own:.2e} (tolerance {own_tol:g})" if frf else "") + f", {how}window [{t1:g}, {t2:g}] s, {steps} steps in it")
    return ok


def sweep_force(t, taper=0.1, t_end=4.0, fade=0.05):
    f0, f1, T = 5.0, 400.0, 4.0
    phase = 2 * np.pi * (f0 * t + (f1 - f0) * t**2 / (2 * T))
    w = np.where(t < taper, np.sin(np.pi * t / (2 * taper)) ** 2, 1.0)
    w = np.where(t > t_end, np.where(t < t_end + fade, np.cos(np.pi * (t - t_end) / (2 * fade)) ** 2, 0.0), w)
    return R.F0 * w * np.sin(phase)


def sweep_reference(fs=4096, t_pad=80.0, fcut=1500.0):
    """The continuum's accelerations of the 4 channels on t = k / fs, k = 0 .. 4 fs (see the module's doc)."""
    n = int(round(t_pad * fs))
    t = np.arange(n) / fs
    F = np.fft.rfft(sweep_force(t))
    freq = np.fft.rfftfreq(n, 1 / fs)
    H = np.zeros((len(freq), 4), dtype=complex)
    band = (freq > 0) & (freq <= fcut)
    H[band] = R.frf(freq[band])
    a = np.fft.irfft(H * F[:, None], n, axis=0)
    keep = t <= 4.0 + 1e-12
    return t[keep], a[keep]


def bins(t, y, width=0.25, count=16):
    """Instantaneous values at width * (1..count) and RMS per bin, trapezoid on the samples."""
    inst, rms = [], []
    for k in range(count):
        lo, hi = k * width, (k + 1) * width
        sel = (t >= lo - 1e-9) & (t <= hi + 1e-9)
        inst.append(np.interp(hi, t, y))
        rms.append(np.sqrt(np.trapz(y[sel] ** 2, t[sel]) / width))
    return np.array(inst), np.array(rms)


def check_sweep(path, tol):
    t, y = channels(path)
    tr, ar = sweep_reference()
    ok = True
    for c, (name, _, _) in enumerate(R.CHANNELS):
        inst, rms = bins(t, y[name])
        rinst, rrms = bins(tr, ar[:, c])
        rel = np.abs(rms - rrms) / rrms
        print(f"{name}: t [s]       a (mbsid)     a (continuum)  | RMS bin (mbsid) RMS (continuum) relative")
        for k in range(16):
            print(f"     {0.25 * (k + 1):5.2f}  {inst[k]:+13.6e}  {rinst[k]:+13.6e}  | {rms[k]:13.6e}  {rrms[k]:13.6e}  {rel[k]:.2e}")
        early = rel[:12].max()
        ok = ok and early <= tol
        print(f"{name}: largest relative RMS error of the bins t <= 3 s {early:.2e} (tolerance {tol:g}); later bins {rel[12:].max():.2e} (information)")
    return ok


def taper(tau, tr):
    return np.where(tau < 0, 0.0, np.where(tau < tr, np.sin(np.pi * np.clip(tau, 0, None) / (2 * tr)) ** 2, 1.0))


def check_taper(path, tol):
    f = h5py.File(path, "r")["signal"]
    t, a = f["t"][:], f["y"][:]
    harmonic = 3 * taper(t, 0.25) * np.sin(2 * np.pi * 7 * t + 0.4)
    tau = t - 0.1
    sweep = np.where((tau >= 0) & (t <= 0.5), 5 * taper(tau, 0.15) * np.sin(2 * np.pi * (4 * tau + 16 * tau**2 / (2 * 0.4))), 0.0)
    expect = (harmonic + sweep) / 2
    err = np.max(np.abs(a - expect)) / np.max(np.abs(expect))
    print(f"tapered harmonic + sweep on a 2 kg mass: largest difference of the acceleration {err:.2e} of its largest (tolerance {tol:g}), {len(t)} samples")
    return err <= tol


def check_frf(path, tol):
    with h5py.File(path, "r") as f:
        freq = f["/frf/frequency_hz"][:]
        H = np.array([f[f"/channels/{name}/frf/real"][:] + 1j * f[f"/channels/{name}/frf/imag"][:] for name, _, _ in R.CHANNELS]).T
    error = np.abs(H - R.frf(freq)) / np.abs(R.frf(freq))
    band = freq <= FMAX
    for j, fj in enumerate(freq):
        print(f"{fj:7.1f} Hz " + " ".join(f"{name} {error[j, c]:.2e}" for c, (name, _, _) in enumerate(R.CHANNELS)) + ("" if band[j] else "  (information)"))
    worst = error[band].max()
    print(f"V2: largest relative error of H_c at or below {FMAX:g} Hz {worst:.2e} (tolerance {tol:g}); above: {error[~band].max() if (~band).any() else 0:.2e}")
    return worst <= tol


def write_variant(model, what, steps, out):
    """what: the frequency of V3 (steps per period), or 'sweep' (steps: the step)"""
    folder = os.path.dirname(os.path.abspath(model))
    if what == "sweep":
        dt, law = float(steps), "sweep: linear, amplitude: 10, frequencies: [5, 400], sweep_time: [0, 4], ramp: 0.1"
    else:
        dt, law = 1 / (float(what) * int(steps)), f"amplitudes: [10], frequencies: [{float(what)!r}], ramp: 0.5"
    lines = []
    for line in open(model).read().splitlines():
        if line.startswith("time:"):
            line = f"time: {{tf: 4, dt: {dt!r}}}"
        elif line.startswith("  load:"):
            line = f"  load: {{type: force, body: beam, node: 24, direction: [0.2, 0.4, 0.894427191], {law}}}"
        lines.append(line.replace("flexible: flexible/", f"flexible: {folder}/flexible/"))
    with open(out, "w") as f:
        f.write("\n".join(lines) + "\n")
    return True


def main():
    what, path = sys.argv[1], sys.argv[2]
    if what == "modes":
        ok = check_modes(path, float(sys.argv[3]), "--brief" in sys.argv)
    elif what == "stationary":
        frf = sys.argv[sys.argv.index("--frf") + 1 :][:2] if "--frf" in sys.argv else [None, None]
        ok = check_stationary(path, float(sys.argv[3]), float(sys.argv[4]), float(sys.argv[5]), float(sys.argv[6]), frf[0], float(frf[1]) if frf[1] else None)
    elif what == "sweep":
        ok = check_sweep(path, float(sys.argv[3]))
    elif what == "variant":
        ok = write_variant(path, sys.argv[3], sys.argv[4], sys.argv[5])
    elif what == "frf":
        ok = check_frf(path, float(sys.argv[3]))
    elif what == "taper":
        ok = check_taper(path, float(sys.argv[3]))
    else:
        sys.exit(f"check_beam_bushings.py: unknown check '{what}' (modes, stationary, sweep, variant, frf, taper)")
    sys.exit(0 if ok else 1)


if __name__ == "__main__":
    main()
