#!/usr/bin/env python3
"""Writes a copy of an HDF5 file with one dataset multiplied by a factor, for bad-input tests.
Usage: scale_h5.py IN.h5 OUT.h5 DATASET FACTOR"""
import shutil
import sys

import h5py

source, target, dataset, factor = sys.argv[1], sys.argv[2], sys.argv[3], float(sys.argv[4])
shutil.copyfile(source, target)
with h5py.File(target, "r+") as f:
    f[dataset][...] = f[dataset][...] * factor
