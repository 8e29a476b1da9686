#!/usr/bin/python3
"""Checks that every numeric dataset of the given HDF5 result files has a non-empty 'units' attribute (doc/schemas.md).

Usage: check_units.py FILE.h5 ...
"""
import sys

import h5py

missing, count = [], 0
for path in sys.argv[1:]:
    def visit(name, obj):
        global count
        if isinstance(obj, h5py.Dataset) and obj.dtype.kind in "fiu":
            count += 1
            units = obj.attrs.get("units")
            if units is None or len(units) == 0:
                missing.append(f"{path}:/{name}")

    with h5py.File(path, "r") as f:
        f.visititems(visit)
for name in missing:
    print(f"FAIL no units: {name}")
print(f"{count} numeric datasets in {len(sys.argv) - 1} files, {len(missing)} without units")
sys.exit(1 if missing or count == 0 else 0)
