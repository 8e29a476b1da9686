#!/usr/bin/env python3
"""Writes a copy of an HDF5 file with one change, for bad-input tests.
Usage: edit_h5.py IN.h5 OUT.h5 scale DATASET FACTOR    (multiplies a dataset)
       edit_h5.py IN.h5 OUT.h5 set DATASET[INDEX] VALUE (sets one element, INDEX -1 the last)
       edit_h5.py IN.h5 OUT.h5 attr NAME VALUE         (sets a root attribute to a string)
       edit_h5.py IN.h5 OUT.h5 attr_array NAME V1,V2   (sets a root attribute to an array of strings)
       edit_h5.py IN.h5 OUT.h5 units - VALUE           (the output's units, on the root and on every dataset in them)"""
import shutil
import sys

import h5py

source, target, change, name, value = sys.argv[1:6]
shutil.copyfile(source, target)
with h5py.File(target, "r+") as f:
    if change == "scale":
        f[name][...] = f[name][...] * float(value)
    elif change == "set":
        dataset, index = name[:-1].split("[")
        f[dataset][int(index)] = float(value)
    elif change == "attr":
        f.attrs[name] = value
    elif change == "attr_array":
        f.attrs[name] = value.split(",")
    elif change == "units":
        old = f.attrs["units"]
        f.visititems(lambda _, obj: obj.attrs.__setitem__("units", value) if obj.attrs.get("units") == old else None)
        f.attrs["units"] = value
    else:
        sys.exit("edit_h5.py: unknown change '%s' (scale, set, attr, attr_array or units)" % change)
