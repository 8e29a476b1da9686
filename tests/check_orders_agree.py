#!/usr/bin/python3
"""Checks that the order coefficients a, b and amplitudes of a result file agree with the Richardson extrapolation
(4 X(h/2) - X(h))/3 of two second-order runs at steps h and h/2, within a tolerance relative to the largest amplitude.
The two formulations of engine4 (redundant DAE, minimal ODE) are checked this way against each other.

Usage: check_orders_agree.py RESULT.h5 STEP_H.h5 STEP_H2.h5 RTOL
"""
import sys

import h5py
import numpy as np


def main():
    result, coarse, fine = (h5py.File(path, "r")["orders"] for path in sys.argv[1:4])
    rtol = float(sys.argv[4])
    scale = np.max(np.abs(result["amplitude"][:]))
    failed = False
    for name in ("amplitude", "A", "B"):
        extrapolated = (4 * fine[name][:] - coarse[name][:]) / 3
        err = np.max(np.abs(result[name][:] - extrapolated)) / scale
        unextrapolated = np.max(np.abs(result[name][:] - fine[name][:])) / scale
        ok = err <= rtol
        failed |= not ok
        print(f"{'ok  ' if ok else 'FAIL'} orders/{name}: largest difference {err:.2e} of the largest amplitude (tolerance {rtol:.0e}; "
              f"{unextrapolated:.2e} against the finer run alone)")
    sys.exit(1 if failed else 0)


if __name__ == "__main__":
    main()
