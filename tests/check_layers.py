#!/usr/bin/env python3
"""The folders of src/ stand in layers (README, "Code map"); a file may include the private header of its own
layer or of one below, and call functions defined in its own layer or below. This check reads every source file
of src/ and fails, naming file and line, on an include or a call that reaches up, and on files that call each other
(directly or round a longer circle). Usage: check_layers.py SRC_DIR"""
import pathlib
import re
import sys

LAYERS = ["util", "controllers", "models", "core", "costs", "identification", "commands"]
HEADERS = {"mbsid.h": "util", "mbsidimpl.h": "util", "mbs_controller.h": "controllers"}  # installed headers, included by name


def layer_of(path, src):
    rel = path.relative_to(src)
    return rel.parts[0] if len(rel.parts) > 1 else "main"


def rank(layer):
    return len(LAYERS) if layer == "main" else LAYERS.index(layer)


def circles(calls, src):
    """Every file that can reach itself through calls of other files"""
    found = []
    for start in calls:
        path, seen, stack = {start: [start]}, {start}, [start]
        while stack:
            here = stack.pop()
            for there in calls[here]:
                if there == start:
                    found.append("circle: " + " -> ".join(str(p.relative_to(src)) for p in path[here] + [start]))
                elif there not in seen:
                    seen.add(there)
                    path[there] = path[here] + [there]
                    stack.append(there)
    return found


def unused_workarounds(src):
    """Each workaround of util/petsc_workarounds.h is tested where its list entry says, so the list cannot go stale"""
    header = (src / "util" / "petsc_workarounds.h").read_text()
    faults = []
    for name, where in re.findall(r"X\((MBS_PETSC_\w+), \"src/([^\"]+)\"\)", header):
        if not re.search(r"\b%s\b" % name, (src / where).read_text()):
            faults.append("util/petsc_workarounds.h lists %s in %s, which does not use it" % (name, where))
    return faults


def main():
    src = pathlib.Path(sys.argv[1]).resolve()
    files = sorted(p for p in src.rglob("*") if p.suffix in (".c", ".h"))
    unknown = [str(p.relative_to(src)) for p in files if layer_of(p, src) not in LAYERS + ["main"]]
    if unknown:
        sys.exit("check_layers: files outside the layers %s: %s" % (", ".join(LAYERS), ", ".join(unknown)))
    definition = {}
    define = re.compile(r"^(?:static\s+)?[A-Za-z_][\w \*]*?\b(Mbs\w+)\s*\([^;{]*\)\s*\{", re.M)
    for p in files:
        if p.suffix == ".c":
            for m in define.finditer(p.read_text()):
                if "static" not in m.group(0).split("(")[0]:
                    definition[m.group(1)] = p
    faults, calls = [], {p: set() for p in files}
    for p in files:
        mine = layer_of(p, src)
        for number, line in enumerate(p.read_text().splitlines(), 1):
            inc = re.match(r'\s*#include\s+"([^"]+)"', line)
            if inc:
                name = inc.group(1)
                target = HEADERS.get(name, name.split("/")[0])
                if target not in LAYERS or rank(target) > rank(mine):
                    faults.append("%s:%d includes %s (layer %s above %s)" % (p.relative_to(src), number, name, target, mine))
            for call in re.findall(r"\b(Mbs\w+)\s*\(", line):
                if call not in definition:
                    continue
                target = layer_of(definition[call], src)
                if definition[call] != p:
                    calls[p].add(definition[call])
                if rank(target) > rank(mine):
                    faults.append("%s:%d calls %s of layer %s, above %s" % (p.relative_to(src), number, call, target, mine))
    faults += circles(calls, src)
    faults += unused_workarounds(src)
    for fault in faults:
        print(fault)
    print("%d files in layers %s: %d upward references or circles" % (len(files), " < ".join(LAYERS), len(faults)))
    sys.exit(1 if faults else 0)


if __name__ == "__main__":
    main()
