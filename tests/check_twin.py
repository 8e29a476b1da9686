#!/usr/bin/python3
"""Checks that a model described in a file simulates like its hand-coded twin: the output signal /signal/y and the
amplitudes /spectrum/amplitude of two simulate result files agree to RTOL relative to the largest magnitude of each
(the twin's file is the reference), on the same time points. Files of a model with several channels hold them under
/channels/NAME/ instead: each channel of the reference is compared so (and must be in both).

Usage: check_twin.py DESCRIBED.h5 HANDCODED.h5 RTOL
"""
import sys

import h5py
import numpy as np


def main():
    described, handcoded, rtol = h5py.File(sys.argv[1], "r"), h5py.File(sys.argv[2], "r"), float(sys.argv[3])
    failed = False
    groups = [f"channels/{name}/" for name in handcoded["channels"]] if "channels" in handcoded else [""]
    if not np.array_equal(described[groups[0] + "signal/t"][:], handcoded[groups[0] + "signal/t"][:]):
        print("FAIL /signal/t: the two runs have different time points")
        failed = True
    for dataset in (g + d for g in groups for d in ("signal/y", "spectrum/amplitude")):
        if dataset not in described:
            print(f"FAIL /{dataset}: missing in {sys.argv[1]}")
            failed = True
            continue
        got, want = described[dataset][:], handcoded[dataset][:]
        error = np.max(np.abs(got - want)) / np.max(np.abs(want)) if got.shape == want.shape else np.inf
        ok = error <= rtol
        print(f"{'ok  ' if ok else 'FAIL'} /{dataset}: largest difference {error:.3e} of the largest magnitude (rtol {rtol:g})")
        failed |= not ok
    sys.exit(1 if failed else 0)


if __name__ == "__main__":
    main()
