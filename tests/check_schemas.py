#!/usr/bin/python3
"""Checks one section of doc/schemas.md against HDF5 files that mbsid wrote.

Usage: check_schemas.py SCHEMAS.md "SECTION HEADING" PREFIX FILE.h5 ... [--sensor FILE:GROUP=UNIT ...]

The section's tables name datasets in backticks (`/a/{b,c}` expands to /a/b and /a/c), with a shape column (the number
of dimensions from its " x ", integers checked) and a units column (a backticked text is compared exactly; "sensor"
and the letter y inside a backticked text stand for the unit of the loop's sensor, given per file and group by --sensor; a
plain list pairs with the row's datasets, each the unit the file's text starts with). A row `/G/...` says group G holds the datasets of PREFIX (a segment F
stands for any name). Checked:
- every dataset under PREFIX in each file is in a row whose number of dimensions and units it matches;
- every attribute under PREFIX (other than `units`) is named in backticks in the section (`controller_NAME` stands
  for any controller_...);
- every dataset the tables name occurs in at least one of the files.
"""
import re
import sys

import h5py


def section(path, heading):
    text = open(path, encoding="utf-8").read()
    start = text.index("\n## " + heading + "\n")
    end = text.find("\n## ", start + 1)
    return text[start : end if end >= 0 else len(text)]


def expand(name):
    match = re.search(r"\{([^}]*)\}", name)
    if not match:
        return [name]
    return [n for part in match.group(1).split(",") for n in expand(name[: match.start()] + part + name[match.end() :])]


def cells(line):
    return [c.strip() for c in line.strip().strip("|").split("|")]


def split_top(text):
    """Splits at ", " outside backticks and parentheses."""
    parts, depth, tick, current = [], 0, False, ""
    for i, ch in enumerate(text):
        tick ^= ch == "`"
        depth += (ch == "(") - (ch == ")")
        if ch == "," and not tick and depth == 0 and text[i + 1 : i + 2] == " ":
            parts.append(current.strip())
            current = ""
        else:
            current += ch
    return parts + [current.strip()]


def rows(text):
    """(datasets, shapes, units) per row of the dataset tables; aliases {group pattern: True}."""
    result, aliases = [], []
    for line in text.splitlines():
        if not line.startswith("| `/"):
            continue
        c = cells(line)
        names = [n for span in re.findall(r"`(/[^`]*)`", c[0]) for n in expand(span)]
        if len(names) == 1 and names[0].endswith("/..."):
            aliases.append(names[0][: -len("/...")])
            continue
        shapes = split_top(c[1]) if len(c) > 1 else []
        units = c[2] if len(c) > 3 else None
        unit_list = [units] if units is None or units.startswith("`") else split_top(units)
        for k, name in enumerate(names):
            shape = shapes[k] if len(shapes) == len(names) else c[1]
            unit = unit_list[k] if len(unit_list) == len(names) else unit_list[0]
            result.append((name, shape, unit))
    return result, aliases


def canonical(name, prefix, aliases):
    """The documented name of a dataset and the group whose sensor applies."""
    for alias in aliases:
        pattern = "^" + re.escape(alias).replace("/F", "/[^/]+") + "/"
        match = re.match(pattern, name)
        if match:
            group = match.group(0)[:-1]
            return prefix + "/" + name[match.end() :], group
    return name, prefix


def unit_matches(documented, actual, sensor):
    if documented is None:
        return True
    if documented == "sensor":
        return sensor is not None and actual == sensor
    ticks = re.findall(r"`([^`]*)`", documented)
    if not ticks:  # the unit, which the file may follow with an explanation in parentheses
        return actual == documented or actual.startswith(documented + " (")
    expected = ticks[0]
    if sensor is not None:
        y = sensor if "/" not in sensor else "(" + sensor + ")"
        expected = re.sub(r"(?<=[/ (\[])y(?=[\]) ])", lambda m: y, expected)
    return actual == expected


def main():
    args = [a for a in sys.argv[1:] if not a.startswith("--sensor")]
    sensors = {}
    for i, a in enumerate(sys.argv):
        if a == "--sensor":
            where, unit = sys.argv[i + 1].split("=", 1)
            sensors[where] = unit
            args.remove(sys.argv[i + 1])
    doc, heading, prefix, files = args[0], args[1], args[2], args[3:]
    text = section(doc, heading)
    table, aliases = rows(text)
    named = set(re.findall(r"`([A-Za-z_][A-Za-z0-9_]*)`", text))
    flat = " ".join(text.split())
    faults, seen, count = [], set(), 0
    for path in files:
        with h5py.File(path, "r") as f:
            if prefix.strip("/") not in f:
                faults.append(f"{path}: no {prefix}")
                continue

            def visit(name, obj):
                nonlocal count
                full = prefix + "/" + name
                for attr in obj.attrs:
                    if attr == "units" or attr in named or (attr.startswith("controller_") and "controller_NAME" in named):
                        continue
                    faults.append(f"{path}:{full}: attribute {attr} is not in the section")
                if not isinstance(obj, h5py.Dataset):
                    return
                count += 1
                doc_name, group = canonical(full, prefix, aliases)
                units = obj.attrs.get("units", "")
                units = units.decode() if isinstance(units, bytes) else str(units)
                candidates = [r for r in table if r[0] == doc_name]
                if not candidates:
                    faults.append(f"{path}:{full}: not in the section's tables")
                    return
                for documented, shape, unit in candidates:
                    dims = shape.split(" x ")
                    rank_ok = len(dims) == obj.ndim or (", or " in shape)
                    ints_ok = all(not d.isdigit() or int(d) == n for d, n in zip(dims, obj.shape)) if len(dims) == obj.ndim else True
                    if units.startswith("per row: "):
                        unit_ok = units in flat
                    else:
                        unit_ok = unit_matches(unit, units, sensors.get(f"{path}:{group}"))
                    if rank_ok and ints_ok and unit_ok:
                        seen.add(doc_name)
                        return
                faults.append(f"{path}:{full}: shape {obj.shape}, units '{units}' match no row of {doc_name} " + "; ".join(f"({s}; {u})" for _, s, u in candidates))

            f[prefix].visititems(visit)
    for name in sorted({r[0] for r in table} - seen):
        faults.append(f"{name}: named in the section, in none of the files")
    for fault in faults:
        print("FAIL", fault)
    print(f"{count} datasets in {len(files)} files against {len(table)} rows of '{heading}': {len(faults)} faults")
    sys.exit(1 if faults or count == 0 else 0)


main()
