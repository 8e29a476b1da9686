#!/usr/bin/python3
"""Checks that identify result files from runs on different numbers of ranks are bitwise identical in what the
identification computed: /parameters/final, /iterations/J, /iterations/params, the iteration count and the
confidence (/confidence/gauss_newton, and /confidence/std when the statistics were formed).

Usage: compare_results.py A.h5 B.h5 ...
"""
import sys

import h5py
import numpy as np


def main():
    files = [h5py.File(path, "r") for path in sys.argv[1:]]
    failed = False
    for dataset in ("parameters/final", "iterations/J", "iterations/params", "confidence/gauss_newton", "confidence/std"):
        if dataset.startswith("confidence") and dataset not in files[0]:
            continue
        reference = files[0][dataset][:]
        for path, f in zip(sys.argv[2:], files[1:]):
            same = f[dataset].shape == reference.shape and np.array_equal(f[dataset][:], reference)
            print(f"{'ok  ' if same else 'FAIL'} {dataset}: {path} {'equals' if same else 'differs from'} {sys.argv[1]}")
            failed |= not same
    ranks = [f.attrs["mpi_size"] for f in files]
    its = [len(f["iterations/J"]) - 1 for f in files]
    print(f"iterations {its} on {ranks} ranks; final parameters {files[0]['parameters/final'][:]}")
    sys.exit(1 if failed else 0)


if __name__ == "__main__":
    main()
