#!/usr/bin/python3
"""Writes the malformed measurement files of the bad-input corpus (tests/bad_inputs/README.md), each a copy of a
good measurement with one fault, into the current directory.

Usage: make_h5.py SPECTRUM.h5 ORDERS.h5 CHANNELS.h5   (measurements with /spectrum, with /orders, and with the
       channels /channels/{v2,x1,x2} of inputs/models/bushing2_channels.yaml, made by mbsid simulate)
"""
import shutil
import sys

import h5py
import numpy as np


def edited(source, name, change):
    target = "bad_input_%s.h5" % name
    shutil.copyfile(source, target)
    with h5py.File(target, "r+") as f:
        change(f)


def replace(f, path, data, units):
    del f[path]
    f[path] = data
    if units is not None:
        f[path].attrs["units"] = units


def main():
    spectrum, orders, channels = sys.argv[1:4]
    s = {
        # a dataset of the wrong type or shape
        "frequency_strings": lambda f: replace(f, "/spectrum/frequency", np.array([b"one", b"two"] * 12 + [b"x"]), "Hz"),
        "frequency_integers_huge": lambda f: replace(f, "/spectrum/frequency", np.full(25, 2**62, dtype=np.int64), "Hz"),
        "amplitude_rank3": lambda f: replace(f, "/spectrum/amplitude", np.zeros((5, 5, 1)), "rad"),
        "amplitude_scalar": lambda f: replace(f, "/spectrum/amplitude", np.float64(1.0), "rad"),
        "frequency_empty": lambda f: replace(f, "/spectrum/frequency", np.zeros(0), "Hz"),
        "amplitude_complex": lambda f: replace(f, "/spectrum/amplitude", np.zeros(25, dtype=np.complex128), "rad"),
        "spectrum_is_dataset": lambda f: (f.__delitem__("/spectrum"), f.__setitem__("/spectrum", np.zeros(3))),
        "frequency_is_group": lambda f: (f.__delitem__("/spectrum/frequency"), f.create_group("/spectrum/frequency")),
        # values
        "amplitude_inf": lambda f: f["/spectrum/amplitude"].__setitem__(3, np.inf),
        "amplitude_negative": lambda f: f["/spectrum/amplitude"].__setitem__(3, -1e-3),
        "frequency_unsorted": lambda f: f["/spectrum/frequency"].__setitem__(slice(2, 4), f["/spectrum/frequency"][2:4][::-1]),
        "frequency_duplicate": lambda f: f["/spectrum/frequency"].__setitem__(4, f["/spectrum/frequency"][3]),
        "signal_time_unsorted": lambda f: f["/signal/t"].__setitem__(10, 0.0),
        "signal_length_mismatch": lambda f: replace(f, "/signal/y", f["/signal/y"][:-1], "rad"),
        # units and attributes
        "units_missing": lambda f: f.attrs.__delitem__("units"),
        "units_unknown": lambda f: [o.attrs.__setitem__("units", "furlong") for o in (f, f["/spectrum/amplitude"], f["/spectrum/A"], f["/spectrum/B"], f["/signal/y"])],
        "units_integer": lambda f: f.attrs.__setitem__("units", 7),
        "dataset_units_missing": lambda f: f["/spectrum/amplitude"].attrs.__delitem__("units"),
        "frequency_in_rpm": lambda f: f["/spectrum/frequency"].attrs.__setitem__("units", "rpm"),
        "spectrum_coefficients_missing": lambda f: (f.__delitem__("/spectrum/A"), f.__delitem__("/spectrum/B")),
    }
    o = {
        "orders_missing": lambda f: f.__delitem__("/orders/order"),
        "speed_unsorted": lambda f: f["/orders/speed"].__setitem__(slice(0, 2), f["/orders/speed"][0:2][::-1]),
        "speed_duplicate": lambda f: f["/orders/speed"].__setitem__(1, f["/orders/speed"][0]),
        "speed_negative": lambda f: f["/orders/speed"].__setitem__(0, -900.0),
        "order_zero": lambda f: f["/orders/order"].__setitem__(0, 0.0),
        "order_amplitude_nan": lambda f: f["/orders/amplitude"].__setitem__((2, 1), np.nan),
        "order_amplitude_transposed": lambda f: replace(f, "/orders/amplitude", f["/orders/amplitude"][()].T.copy(), "m"),
        "order_coefficients_missing": lambda f: (f.__delitem__("/orders/A"), f.__delitem__("/orders/B")),
        "order_b_missing": lambda f: f.__delitem__("/orders/B"),
        "order_a_transposed": lambda f: replace(f, "/orders/A", f["/orders/A"][()].T.copy(), "m"),
        "order_b_nan": lambda f: f["/orders/B"].__setitem__((1, 2), np.nan),
    }
    for name, change in s.items():
        edited(spectrum, name, change)
    for name, change in o.items():
        edited(orders, name, change)
    # huge dimensions: a chunked dataset of 10^12 entries that is never written (a few bytes on disk)
    shutil.copyfile(spectrum, "bad_input_amplitude_huge.h5")
    with h5py.File("bad_input_amplitude_huge.h5", "r+") as f:
        del f["/spectrum/amplitude"]
        f.create_dataset("/spectrum/amplitude", shape=(10**12,), dtype="f8", chunks=(1024,))
        f["/spectrum/amplitude"].attrs["units"] = "rad"
    # raw signals, tachometer pulses and speed tables (mbsid track, -speed_profile), written from scratch
    def write(name, datasets, attrs=None):
        with h5py.File("bad_input_%s.h5" % name, "w") as f:
            f.attrs.update(model="spring_chain", output="x_n", units="m", created_by="make_h5.py")
            for path, (data, units) in datasets.items():
                f[path] = data
                f[path].attrs["units"] = units
            for path, (key, value) in (attrs or {}).items():
                f[path].attrs[key] = value

    t = np.arange(2001) / 1000.0
    profile_t, profile_rpm = np.linspace(0, 2, 11), np.linspace(900, 1100, 11)
    write("raw_signal", {"/signal/t": (t, "s"), "/signal/y": (1e-3 * np.sin(2 * np.pi * 30 * t), "m")})
    write("tacho_no_gap", {"/tacho/t": (np.arange(1, 2001) / 1000.0, "s")})
    write("tacho_short", {"/tacho/t": (np.arange(1, 51) / 1000.0, "s")})
    write("profile_zero_speed", {"/speed_profile/t": (profile_t, "s"), "/speed_profile/rpm": (np.where(np.arange(11) == 3, 0.0, profile_rpm), "rpm")})
    write("profile_angle_decreasing", {"/speed_profile/t": (profile_t, "s"), "/speed_profile/rpm": (profile_rpm, "rpm"), "/speed_profile/angle": (np.where(np.arange(11) == 5, 0.0, 10.0 + profile_t), "rad")})
    write("profile_one_row", {"/speed_profile/t": (profile_t[:1], "s"), "/speed_profile/rpm": (profile_rpm[:1], "rpm")})
    write("profile_length_mismatch", {"/speed_profile/t": (profile_t, "s"), "/speed_profile/rpm": (profile_rpm[:-1], "rpm")})
    edited(orders, "orders_domain_unknown", lambda f: f["/orders"].attrs.__setitem__("domain", "crank"))
    extra = 8

    # several channels (/channels/NAME): a channel the model lacks, a channel whose tables disagree, units missing or
    # wrong, a channel group without tables
    c = {
        "channel_unknown": lambda f: f.move("/channels/x1", "/channels/x9"),
        "channel_signal_length": lambda f: replace(f, "/channels/v2/signal/y", f["/channels/v2/signal/y"][:-1], "m/s"),
        "channel_units_missing": lambda f: f["/channels/x1"].attrs.__delitem__("units"),
        "channel_units_wrong": lambda f: f["/channels/v2"].visititems(lambda name, obj: obj.attrs.__setitem__("units", "m") if obj.attrs.get("units") in (b"m/s", "m/s") else None) or f["/channels/v2"].attrs.__setitem__("units", "m"),
        "channel_empty": lambda f: (f.__delitem__("/channels/x2"), f.create_group("/channels/x2"), f["/channels/x2"].attrs.__setitem__("units", "m")),
    }
    for name, change in c.items():
        edited(channels, name, change)
    extra += len(c)

    # frequency responses (/frf, mbsid frf; inputs/models/bushing2_frf.yaml), written from scratch: a dataset missing, a
    # frequency not above 0, a channel the model lacks, parts of different lengths, a file without /frf
    def write_frf(name, frequency=(1.0, 3.0, 6.5), channel="x2", imag=True, length=3):
        with h5py.File("bad_input_%s.h5" % name, "w") as f:
            f.attrs.update(model="described", created_by="make_h5.py")
            f["/frf/frequency_hz"] = np.array(frequency)
            f["/frf/frequency_hz"].attrs.update(units="Hz", load="F")
            f.create_group("/channels/%s" % channel).attrs["units"] = "m"
            for part in ("real", "imag") if imag else ("real",):
                f["/channels/%s/frf/%s" % (channel, part)] = np.full(length if part == "real" else 3, 1e-4)
                f["/channels/%s/frf/%s" % (channel, part)].attrs["units"] = "m/N"

    write_frf("frf_imag_missing", imag=False)
    write_frf("frf_frequency_zero", frequency=(0.0, 3.0, 6.5))
    write_frf("frf_channel_unknown", channel="x9")
    write_frf("frf_real_length", length=2)
    write_frf("frf_valid")  # well formed: for options that do not fit the cost
    extra += 5

    # not HDF5 at all, and an empty file
    with open("bad_input_not_hdf5.h5", "w") as f:
        f.write("frequency,amplitude\n0.2,0.03\n")
    open("bad_input_zero_bytes.h5", "w").close()
    print("Wrote %d malformed measurements" % (len(s) + len(o) + 3 + extra))


main()
