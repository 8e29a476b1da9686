#!/usr/bin/env python3
"""A point mass m on one bushing to the ground (tests/models/bushing_frame_eigen.yaml) whose axes' entries (1, 2), (2, 3)
and (3, 1) are the parameters a, b, g: at any values the frame is the polar factor R of the nine entries A (computed here
from numpy's SVD, A = U S V^T, R = U V^T), the mass's stiffness matrix R^T diag(k) R, so its undamped frequencies are
sqrt(k_i / m) / (2 pi) whatever the turn and its mode i lies along the frame's axis i (row i of R). Checks `mbsid eigen
-o FILE` run at a, b, g: the three frequencies to 1e-10 relative and each undamped mode's direction to 1e-9 (1 - |cos|).
Usage: check_bushing_frame_eigen.py EIGEN_H5 a b g"""
import sys

import h5py
import numpy as np

M = 2.0
K = np.array([800.0, 1800.0, 3200.0])


def main(path, a, b, g):
    A = np.array([[0.9076733711903687, a, -0.2588190451025208], [-0.2071903852167601, 0.8890614689411865, b],
                  [g, -0.316903694077568, 0.875426098065593]])
    U, _, Vt = np.linalg.svd(A)
    R = U @ Vt
    failures = 0
    with h5py.File(path, "r") as f:
        f0 = f["eigen/undamped_frequency_hz"][:]
        modes = f["eigen/undamped_modes_z"][:]
    want = np.sqrt(K / M) / (2 * np.pi)
    err = np.max(np.abs(f0 - want) / want)
    print(f"frequencies [Hz] mbsid {f0}, sqrt(k/m)/(2 pi) {want}: largest relative error {err:.2e} (tolerance 1e-10)")
    failures += err > 1e-10
    file_frame = A.copy()  # the file's values: a rotation
    file_frame[0, 1], file_frame[1, 2], file_frame[2, 0] = 0.3303660895493522, 0.4082178936767349, 0.36496738964685843
    turn = np.max(np.abs(R - file_frame))
    print(f"the polar factor's axes differ from the file's frame by up to {turn:.3f} per entry (at least 0.05 needed)")
    failures += turn < 0.05
    for i in range(3):
        shape = modes[i] / np.linalg.norm(modes[i])
        off = 1 - abs(shape @ R[i])
        print(f"mode {i + 1}: {shape}, frame axis {R[i]}: 1 - |cos| = {off:.2e} (tolerance 1e-9)")
        failures += off > 1e-9
    print(f"{failures} failed")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1], *map(float, sys.argv[2:5])))
