#!/usr/bin/env python3
"""The design result of the described bushing2 (inputs/models/bushing2.yaml) against the hand-coded bushing2's (branch
design): both integrated by the same fixed Crank-Nicolson steps, the twins are equal models, so J, Tr M and the
Fisher matrix of every input (initial, sine, nodal sine, and the input after the same optimiser iterations) agree
within the Newton tolerance of the described DAE, and so does that input itself.

Usage: check_design_twins.py HAND.h5 DESCRIBED.h5 [--rtol R]
"""
import argparse
import sys

import h5py
import numpy as np


def main():
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("hand")
    parser.add_argument("described")
    parser.add_argument("--rtol", type=float, default=1e-8)
    args = parser.parse_args()
    worst = 0.0
    with h5py.File(args.hand, "r") as hand, h5py.File(args.described, "r") as desc:
        for case in ("initial", "sine", "sine_nodal", "optimal"):
            for name in ("J", "trace", "fisher", "force"):
                path = f"/design/{case}/{name}"
                if path not in hand:
                    continue
                a = np.asarray(hand[path][()], dtype=float)
                b = np.asarray(desc[path][()], dtype=float)
                scale = np.max(np.abs(a))
                if not scale > 0:
                    sys.exit(f"{path}: the hand-coded result is zero")
                rel = np.max(np.abs(a - b)) / scale
                worst = max(worst, rel)
                print(f"{path}: hand-coded max |.| {scale:.10e}, relative difference {rel:.2e}")
    print(f"largest relative difference {worst:.2e} (tolerance {args.rtol:g})")
    if not worst <= args.rtol:
        sys.exit("check_design_twins: the twins' designs differ")


if __name__ == "__main__":
    main()
