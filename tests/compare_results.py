#!/usr/bin/python3
"""Checks that identify result files from runs on different numbers of ranks are bitwise identical in what the
identification computed: /parameters/final, /iterations/J, /iterations/params, the iteration count, the
confidence (/confidence/gauss_newton, and /confidence/std when the statistics were formed) and the scan (/scan/J,
/scan/gradient, whoever evaluated which point); and that /J of each file is the identified cost, the last /iterations/J to 1e-13 relative.

Usage: compare_results.py A.h5 B.h5 ...
"""
import sys

import h5py
import numpy as np


def main():
    files = [h5py.File(path, "r") for path in sys.argv[1:]]
    failed = False
    for dataset in ("parameters/final", "iterations/J", "iterations/params", "confidence/gauss_newton", "confidence/std", "scan/J", "scan/gradient"):
        if dataset.split("/")[0] in ("confidence", "scan") and dataset not in files[0]:
            continue
        reference = files[0][dataset][:]
        for path, f in zip(sys.argv[2:], files[1:]):
            same = f[dataset].shape == reference.shape and np.array_equal(f[dataset][:], reference)
            print(f"{'ok  ' if same else 'FAIL'} {dataset}: {path} {'equals' if same else 'differs from'} {sys.argv[1]}")
            failed |= not same
    for path, f in zip(sys.argv[1:], files):
        # the result's J, solved again and summed by the cost, against TAO's last f: the same solve to the last bits
        if "J" in f and not abs(f["J"][0] - f["iterations/J"][-1]) <= 1e-13 * abs(f["J"][0]):
            print(f"FAIL /J of {path} is {f['J'][0]!r}, not the identified cost {f['iterations/J'][-1]!r} (to 1e-13)")
            failed = True
    ranks = [f.attrs["mpi_size"] for f in files]
    its = [len(f["iterations/J"]) - 1 for f in files]
    print(f"iterations {its} on {ranks} ranks; final parameters {files[0]['parameters/final'][:]}")
    sys.exit(1 if failed else 0)


if __name__ == "__main__":
    main()
