#!/usr/bin/env python3
"""Writes a copy of an HDF5 file with one change, for bad-input tests.
Usage: edit_h5.py IN.h5 OUT.h5 scale DATASET FACTOR    (multiplies a dataset)
       edit_h5.py IN.h5 OUT.h5 set DATASET[INDEX] VALUE (sets one element, INDEX -1 the last)
       edit_h5.py IN.h5 OUT.h5 set_log DATASET[INDEX] VALUE (in a checkpoint: sets one element of the log and
                                                      rewrites the log's checksum, as mbsid computes it)
       edit_h5.py IN.h5 OUT.h5 attr NAME VALUE         (sets a root attribute to a string)
       edit_h5.py IN.h5 OUT.h5 attr_array NAME V1,V2   (sets a root attribute to an array of strings)
       edit_h5.py IN.h5 OUT.h5 units - VALUE           (the output's units, on the root and on every dataset in them)"""
import shutil
import sys

import h5py
import numpy as np


def log_checksum(f):
    """64-bit FNV-1a of the checkpoint's log: /evaluations/{x,J,gradient,ok,time} as doubles, in that order"""
    value = 14695981039346656037
    for name in ("x", "J", "gradient", "ok", "time"):
        for byte in np.ascontiguousarray(f["/evaluations/" + name][()], dtype="<f8").tobytes():
            value = ((value ^ byte) * 1099511628211) & 0xFFFFFFFFFFFFFFFF
    return "%016x" % value


source, target, change, name, value = sys.argv[1:6]
shutil.copyfile(source, target)
with h5py.File(target, "r+") as f:
    if change == "scale":
        f[name][...] = f[name][...] * float(value)
    elif change == "set":
        dataset, index = name[:-1].split("[")
        f[dataset][int(index)] = float(value)
    elif change == "set_log":
        dataset, index = name[:-1].split("[")
        f[dataset][int(index)] = float(value)
        f.attrs["log_checksum"] = log_checksum(f)
    elif change == "attr":
        f.attrs[name] = value
    elif change == "attr_array":
        f.attrs[name] = value.split(",")
    elif change == "units":
        old = f.attrs["units"]
        f.visititems(lambda _, obj: obj.attrs.__setitem__("units", value) if obj.attrs.get("units") == old else None)
        f.attrs["units"] = value
    else:
        sys.exit("edit_h5.py: unknown change '%s' (scale, set, set_log, attr, attr_array or units)" % change)
