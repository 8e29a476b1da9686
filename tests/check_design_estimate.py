#!/usr/bin/python3
"""The argmin of E_RMS without noise is the truth: every input's /design/<input>/error/sigma0/estimate of a design
result file equals the parameters the measurement was simulated with (E_RMS vanishes there), to an absolute tolerance.
Used for a design parameter at 0 (a joint's point on an axis), whose Newton iteration once never met its relative test.
"""
import argparse
import sys

import h5py
import numpy as np


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("file")
    parser.add_argument("--truth", required=True, help="b_1[,b_2]: the design parameters' values")
    parser.add_argument("--atol", type=float, default=1e-10)
    args = parser.parse_args()
    truth = np.array([float(x) for x in args.truth.split(",")])
    checked = 0
    with h5py.File(args.file, "r") as f:
        for name, group in f["design"].items():
            if "error/sigma0/estimate" not in group:
                continue
            estimate = group["error/sigma0/estimate"][()]
            sigma = group["error/sigma0/sigma"][()]
            ok = np.all(sigma == 0) and estimate.shape == truth.shape and np.all(np.abs(estimate - truth) <= args.atol)
            print(f"{'ok  ' if ok else 'FAIL'} {name}: argmin E_RMS at sigma {sigma} = {estimate}, truth {truth}")
            checked += 1
            if not ok:
                sys.exit(1)
    if checked == 0:
        sys.exit(f"FAIL {args.file}: no /design/<input>/error/sigma0/estimate")


if __name__ == "__main__":
    main()
