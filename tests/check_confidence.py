#!/usr/bin/env python3
"""Checks the confidence that mbsid identify reports (/confidence of its result file) on seeded noisy measurements.

  check_confidence.py design --mbsid PATH --optimal FILE [--seeds N] [--sigma s]
      oscillator2, c2 from the time cost on noisy x2 (1 ms samples), for the initial input F0 and the optimised input
      of a design result (its /input). Per input and seed: a virtual measurement with -noise_sigma and -noise_seed,
      an identification from c2 = 1000 N/m. Checks, against independent truth:
        - the Gauss-Newton matrix against sum_i w_i (dx2/dc2)(t_i)^2 over the measured samples, w_i their trapezoid
          weights (the time cost's), with dx2/dc2 from the exact solution (check_design.py), relative 1e-6; Van Loan's
          Tr M = int (dx2/dc2)^2 dt is printed beside it (the trapezoid rule on 1 ms samples is 2e-5 off it);
        - the standard deviation against the Gauss-Newton one of these weights, sigma sqrt(sum_i w_i^2 (dx2/dc2)(t_i)^2)
          / sum_i w_i (dx2/dc2)(t_i)^2 (the textbook sigma / sqrt(sum_i (dx2/dc2)(t_i)^2) but for the end samples'
          half weights), relative 1e-6;
        - the noise estimate within 10 % of -noise_sigma;
      and that the optimised input's parameter errors are smaller (RMS over the seeds, by at least a factor 3).
  check_confidence.py coverage --mbsid PATH [--truth-options FILE] [--identify-options FILE] --truth name=value,...
                       [--trials N] [--sigma s | --channel-noise NAME:s,...] [--min-coverage c] [--args "..."]
                       [--truth-args "..."] [--identify-args "..."]
      N seeded virtual measurements at the truth and identifications from them: every parameter's reported 95 %
      interval must contain the truth in at least the fraction c of the trials (intervals too narrow), and its mean
      reported standard deviation must agree with the scatter of the N estimates (intervals too wide, or too
      narrow): (N - 1) s^2 / std^2 is chi-square with N - 1 degrees of freedom, so mean std / s must lie within the
      two-sided 99.9 % range of that law (0.64 to 1.99 for N = 20). --args go to both commands, --truth-args to
      simulate only, --identify-args to identify only. With --channel-noise each measured channel has its own noise
      (simulate -channel_noise), and in every trial identify's estimate of each channel's noise (/confidence/channels/
      NAME/sigma) must lie within 10 % of it: a channel's 2000 samples estimate it to about 2 %.
  check_confidence.py jacobian --mbsid PATH --truth name=value,... [--truth-options FILE] [--identify-options FILE]
                       [--sigma s] [--args "..."] [--rtol r]
      One seeded virtual measurement at the truth and one confidence at the truth (identify -tao_max_it 0) with dr/dp
      from forward sensitivities, one with -confidence_differences (central differences of the same discrete
      residuals, on the same steps): the Gauss-Newton matrices must agree within rtol (default 1e-7) of the largest
      entry, and the first must say it took 1 solve by forward sensitivities and take it: with -log_view, the time
      steps the confidence adds to identify -confidence false are those of the forward sensitivities (TSStep grows
      by TSForwardStep: no other solve).
"""
import argparse
import math
import os
import shlex
import subprocess
import sys
import tempfile

import h5py
import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from check_design import oscillator2_output, oscillator2_truth  # noqa: E402

TSIT5_1MS = ["-ts_type", "rk", "-ts_rk_type", "tsit5", "-ts_adapt_type", "none", "-ts_dt", "1e-3"]


def run(command, log):
    result = subprocess.run(command, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    if result.returncode != 0:
        sys.stdout.write(result.stdout)
        sys.exit("FAILED (exit %d): %s" % (result.returncode, " ".join(command)))
    if log:
        for line in result.stdout.splitlines():
            if line.startswith("Confidence") or line.startswith("  noise"):
                print("    " + line)
    return result.stdout


def confidence(path):
    with h5py.File(path, "r") as f:
        g = f["confidence"]
        if "std" not in g:
            sys.exit("%s: no statistics: %s" % (path, g.attrs.get("not_computed")))
        return {
            "estimate": g["estimate"][()],
            "std": g["std"][()],
            "lower": g["lower_95"][()],
            "upper": g["upper_95"][()],
            "gauss_newton": g["gauss_newton"][()],
            "sigma": float(g.attrs["sigma"]) if "sigma" in g.attrs else float("nan"),
            "channel_sigma": {c: float(g["channels"][c]["sigma"][0]) for c in g["channels"]} if "channels" in g else {},
        }


def check_design(args, tmp):
    faults, errors = [], {}
    with h5py.File(args.optimal, "r") as f:
        inputs = {"initial": (np.full(101, 5.0), np.linspace(0, 1, 101), []), "optimal": (f["input/force"][()], f["input/time"][()], ["-input_file", args.optimal])}
    for name, (force, t_nodes, input_args) in inputs.items():
        errors[name], covered = [], 0
        for seed in range(1, args.seeds + 1):
            meas, result = os.path.join(tmp, "m_%s_%d.h5" % (name, seed)), os.path.join(tmp, "id_%s_%d.h5" % (name, seed))
            run([args.mbsid, "simulate", "-model", "oscillator2"] + TSIT5_1MS + input_args + ["-noise_sigma", repr(args.sigma), "-noise_seed", str(seed), "-save_measurement", meas, "-o", os.path.join(tmp, "s.h5")], False)
            run([args.mbsid, "identify", "-model", "oscillator2"] + TSIT5_1MS + input_args + ["-cost", "time", "-measurement", meas, "-identify", "c2", "-p_c2", "1000", "-o", result], False)
            c = confidence(result)
            c2 = c["estimate"][0]
            errors[name].append(c2 - 1100.0)
            covered += c["lower"][0] <= 1100.0 <= c["upper"][0]
            print("%-8s seed %2d: c2 = %.6f N/m, error %+.4f, std %.4f, 95 %% interval [%.4f, %.4f], sigma %.4e" % (name, seed, c2, c2 - 1100, c["std"][0], c["lower"][0], c["upper"][0], c["sigma"]))
            if seed > 1:
                continue
            trace = oscillator2_truth("nodal", force, t_nodes, 1.0, 10.0, [], c2=c2)[0]
            h = 1e-3
            yp = (oscillator2_output(force, t_nodes, c2 + h) - oscillator2_output(force, t_nodes, c2 - h)) / (2 * h)
            w = np.full(len(yp), h)  # the trapezoid weights of the 1 ms samples
            w[0] = w[-1] = h / 2
            gn, expected = c["gauss_newton"][0, 0], np.sum(w * yp**2)
            print("    Gauss-Newton %.12e m^4 s/N^2, sum_i w_i y_c2(t_i)^2 %.12e, rel. error %.2e (Van Loan's int y_c2^2 dt %.12e)" % (gn, expected, abs(gn / expected - 1), trace))
            if abs(gn / expected - 1) > 1e-6:
                faults.append("%s: Gauss-Newton matrix %.12e, sum_i w_i y_c2(t_i)^2 %.12e" % (name, gn, expected))
            textbook = c["sigma"] * math.sqrt(np.sum(w**2 * yp**2)) / expected
            print("    std %.8e N/m, sigma sqrt(sum_i w_i^2 y_c2(t_i)^2) / sum_i w_i y_c2(t_i)^2 %.8e, rel. error %.2e" % (c["std"][0], textbook, abs(c["std"][0] / textbook - 1)))
            if abs(c["std"][0] / textbook - 1) > 1e-6:
                faults.append("%s: std %.8e, textbook %.8e" % (name, c["std"][0], textbook))
            if abs(c["sigma"] / args.sigma - 1) > 0.1:
                faults.append("%s: noise estimate %.4e, -noise_sigma %.4e" % (name, c["sigma"], args.sigma))
        print("%-8s RMS error %.4e N/m; 95 %% intervals cover c2 = 1100 in %d of %d" % (name, math.sqrt(np.mean(np.square(errors[name]))), covered, args.seeds))
    rms = {name: math.sqrt(np.mean(np.square(e))) for name, e in errors.items()}
    print("RMS parameter error: initial input %.4e N/m, optimised input %.4e N/m (%.1f times smaller)" % (rms["initial"], rms["optimal"], rms["initial"] / rms["optimal"]))
    if not rms["optimal"] * 3 < rms["initial"]:
        faults.append("the optimised input does not reduce the RMS error of c2 by a factor 3")
    return faults


def chi2_quantile(p, k):
    """The p quantile of the chi-square law with k degrees of freedom (Wilson and Hilferty, 1931: for k = 19 at
    p = 0.0005 and 0.9995, 4.81 and 46.14 where the exact values are 4.91 and 45.97)."""
    # the standard normal quantile by bisection of erf
    lo, hi = -10.0, 10.0
    for _ in range(200):
        mid = 0.5 * (lo + hi)
        lo, hi = (mid, hi) if 0.5 * (1 + math.erf(mid / math.sqrt(2))) < p else (lo, mid)
    z = 0.5 * (lo + hi)
    return k * (1 - 2 / (9 * k) + z * math.sqrt(2 / (9 * k))) ** 3


def check_coverage(args, tmp):
    truth = {k: float(v) for k, v in (item.split("=") for item in args.truth.split(","))}
    covered, joint, extra, truth_extra = {k: 0 for k in truth}, 0, shlex.split(args.args), shlex.split(args.truth_args)
    estimates, stds = {k: [] for k in truth}, {k: [] for k in truth}
    identify_extra, faults = shlex.split(args.identify_args), []
    channel_noise = {k: float(v) for k, v in (item.split(":") for item in args.channel_noise.split(","))} if args.channel_noise else {}
    noise = ["-channel_noise", args.channel_noise] if args.channel_noise else ["-noise_sigma", repr(args.sigma)]
    for seed in range(1, args.trials + 1):
        meas, result = os.path.join(tmp, "m_%d.h5" % seed), os.path.join(tmp, "id_%d.h5" % seed)
        truth_options = ["-options_file", args.truth_options] if args.truth_options else []
        identify_options = ["-options_file", args.identify_options] if args.identify_options else []
        run([args.mbsid, "simulate"] + truth_options + extra + truth_extra + noise + ["-noise_seed", str(seed), "-save_measurement", meas, "-o", os.path.join(tmp, "s.h5")], False)
        run([args.mbsid, "identify"] + identify_options + extra + identify_extra + ["-measurement", meas, "-o", result], False)
        c = confidence(result)
        for name, given in channel_noise.items():
            estimated = c["channel_sigma"].get(name, float("nan"))
            if not abs(estimated / given - 1) <= 0.1:
                faults.append("trial %d: noise of channel %s estimated %.4e, simulated with %.4e" % (seed, name, estimated, given))
        with h5py.File(result, "r") as f:
            names = [n.decode() if isinstance(n, bytes) else n for n in f["parameters/name"][()]]
        inside = {n: c["lower"][i] <= truth[n] <= c["upper"][i] for i, n in enumerate(names) if n in truth}
        for n, ok in inside.items():
            covered[n] += ok
        for i, n in enumerate(names):
            if n in truth:
                estimates[n].append(c["estimate"][i])
                stds[n].append(c["std"][i])
        joint += all(inside.values())
        noise_text = ", ".join("%s %.4e" % item for item in sorted(c["channel_sigma"].items())) or "%.3e" % c["sigma"]
        print("trial %2d: " % seed + "  ".join("%s %.8g +- %.3g %s" % (n, c["estimate"][i], c["std"][i], "covers" if inside[n] else "MISSES") for i, n in enumerate(names) if n in truth) + "  (sigma %s)" % noise_text)
    need = math.ceil(args.min_coverage * args.trials - 1e-9)
    for n, count in covered.items():
        print("%s: the 95 %% intervals cover the truth %g in %d of %d trials (at least %d required)" % (n, truth[n], count, args.trials, need))
        if count < need:
            faults.append("%s covered in %d of %d trials" % (n, count, args.trials))
    print("all parameters at once: %d of %d trials" % (joint, args.trials))
    k = args.trials - 1
    low, high = math.sqrt(k / chi2_quantile(0.9995, k)), math.sqrt(k / chi2_quantile(0.0005, k))
    for n in truth:
        scatter = float(np.std(estimates[n], ddof=1))
        ratio = float(np.mean(stds[n])) / scatter
        ok = low <= ratio <= high
        print("%s %s: mean reported std %.4g, scatter of the %d estimates %.4g, ratio %.3f (want %.3f to %.3f)" % ("ok  " if ok else "FAIL", n, np.mean(stds[n]), args.trials, scatter, ratio, low, high))
        if not ok:
            faults.append("%s: mean reported std %.4g against a scatter of %.4g" % (n, np.mean(stds[n]), scatter))
    return faults


def log_view_count(out, event):
    """The count of a -log_view event (0 when it is not listed)."""
    for line in out.splitlines():
        fields = line.split()
        if fields and fields[0] == event:
            return int(fields[1])
    return 0


def check_jacobian(args, tmp):
    extra, faults, gauss_newton = shlex.split(args.args), [], {}
    start = [item for name, value in (item.split("=") for item in args.truth.split(",")) for item in ("-p_" + name, value)]
    meas = os.path.join(tmp, "m.h5")
    truth_options = ["-options_file", args.truth_options] if args.truth_options else []
    identify_options = ["-options_file", args.identify_options] if args.identify_options else []
    run([args.mbsid, "simulate"] + truth_options + extra + ["-noise_sigma", repr(args.sigma), "-noise_seed", "1", "-save_measurement", meas, "-o", os.path.join(tmp, "s.h5")], False)
    identify = [args.mbsid, "identify"] + identify_options + extra + start + ["-identify", ",".join(start[::2]).replace("-p_", ""), "-measurement", meas, "-tao_max_it", "0"]
    without = run(identify + ["-confidence", "false", "-log_view", "-o", os.path.join(tmp, "n.h5")], False)
    for differences in ("0", "1"):
        result = os.path.join(tmp, "c%s.h5" % differences)
        out = run(identify + ["-confidence_differences", differences, "-o", result] + (["-log_view"] if differences == "0" else []), True)
        if differences == "0":
            added, forward = log_view_count(out, "TSStep") - log_view_count(without, "TSStep"), log_view_count(out, "TSForwardStep")
            print("%s the confidence's time steps %d, its forward sensitivity steps %d" % ("ok  " if added == forward > 0 else "FAIL", added, forward))
            if not added == forward > 0:
                faults.append("the confidence takes %d time steps, %d of them with forward sensitivities" % (added, forward))
        gauss_newton[differences] = confidence(result)["gauss_newton"]
        with h5py.File(result, "r") as f:
            method = f["confidence"].attrs["method"]
        method = method.decode() if isinstance(method, bytes) else method
        want = "central differences" if differences == "1" else "forward sensitivities"
        if want not in method or (differences == "0" and "1 forward solve per experiment" not in out):
            faults.append("-confidence_differences %s: method '%s', want %s" % (differences, method, want))
    error = float(np.abs(gauss_newton["0"] - gauss_newton["1"]).max() / np.abs(gauss_newton["1"]).max())
    print("%s Gauss-Newton matrix by forward sensitivities against central differences: %.2e of its largest entry (rtol %.0e)" % ("ok  " if error <= args.rtol else "FAIL", error, args.rtol))
    if not error <= args.rtol:
        faults.append("Gauss-Newton matrices differ by %.2e" % error)
    return faults


def finish(faults):
    """Lists the failed checks and exits with the verdict."""
    for fault in faults:
        print("FAIL " + fault)
    print("PASS" if not faults else "FAILED: %d checks" % len(faults))
    sys.exit(1 if faults else 0)


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("mode", choices=["design", "coverage", "jacobian"])
    parser.add_argument("--mbsid", required=True)
    parser.add_argument("--optimal")
    parser.add_argument("--seeds", type=int, default=10)
    parser.add_argument("--sigma", type=float, default=1e-4)
    parser.add_argument("--truth-options")
    parser.add_argument("--identify-options")
    parser.add_argument("--truth")
    parser.add_argument("--trials", type=int, default=20)
    parser.add_argument("--min-coverage", type=float, default=0.9)
    parser.add_argument("--args", default="")
    parser.add_argument("--truth-args", default="")
    parser.add_argument("--identify-args", default="")
    parser.add_argument("--rtol", type=float, default=1e-7)
    parser.add_argument("--channel-noise", default="", help="NAME:sigma,...: per-channel noise of the measurements, and each trial's estimate of it must lie within 10 %%")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        finish({"design": check_design, "coverage": check_coverage, "jacobian": check_jacobian}[args.mode](args, tmp))


if __name__ == "__main__":
    main()
