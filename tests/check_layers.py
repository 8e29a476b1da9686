#!/usr/bin/env python3
"""The folders of src/ stand in layers (doc/developer.md, "Code map"); a file may include the private header of its own
layer or of one below, and call functions defined in its own layer or below. This check reads every source file
of src/ and fails, naming file and line, on an include or a call that reaches up, and on files that call each other
(directly or round a longer circle), and on a write into the private struct of another layer or a read of a field
outside that struct's read-only view: a higher layer reaches a lower one's state only through that layer's functions
(MbsModelSet..., Get...). Usage: check_layers.py SRC_DIR"""
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


def private_access(src, files):
    """Reads and writes `name->field` where name is a handle (typedef struct _p_X *X) of a struct that another layer
    defines: declared as such in this file, or as a field of a struct in a header. A write is an assignment (=, +=,
    ++, ...), an address taken (&name->field, which PetscMalloc, PetscFree or any function may write through) or a
    PetscFree*(name->field), which sets the field to NULL; any such write into another layer's struct is a fault. A
    read is a fault unless the header that defines the struct lists the field in its read-only view, a comment line
    `view _p_X: field field ...` (the fields that describe the object rather than hold its state)"""
    owner, handles, view = {}, {}, {}
    for p in files:
        text = p.read_text()
        for m in re.finditer(r"struct\s+_p_(\w+)\s*\{", text):
            owner[m.group(1)] = layer_of(p, src)
        for m in re.finditer(r"typedef\s+struct\s+_p_(\w+)\s*\*\s*(\w+)\s*;", text):
            handles[m.group(2)] = m.group(1)
        for m in re.finditer(r"\bview _p_(\w+):([\w ]*)", text):
            view[m.group(1)] = set(m.group(2).split())

    def declared(text):
        found = {}
        for handle in handles:
            for m in re.finditer(r"\b%s\s+(?:\*\s*)?(\w+)\s*[;,)=\[]" % handle, text):
                found.setdefault(m.group(1), set()).add(handle)
        return found

    fields = {}
    for p in files:
        if p.suffix == ".h":
            for name, types in declared(p.read_text()).items():
                fields.setdefault(name, set()).update(types)
    faults = []
    access = re.compile(r"\b(\w+)->(?=(\w+))")  # overlapping: a->b->c is a->b and b->c
    more = re.compile(r"(?:\[[^\]]*\]|\.\w+)*->")  # the access goes on: name->field[i].x->y
    address = re.compile(r"(?<![&\w)\]])&\s*(\w+(?:(?:->|\.)\w+|\[[^\]]*\])*)")  # &name->field[i].x->y
    assign = re.compile(r"(?:\[[^\]]*\]|\.\w+)*\s*(?:=(?!=)|\+=|-=|\*=|/=|\+\+|--)")
    freed = re.compile(r"\bPetscFree\d?\s*\([^;]*$")
    for p in files:
        mine, text = layer_of(p, src), p.read_text()
        names = dict(fields)
        names.update(declared(text))
        for number, line in enumerate(text.splitlines(), 1):
            addressed = [m.span(1) for m in address.finditer(line)]
            for m in access.finditer(line):
                for handle in sorted(names.get(m.group(1), ())):
                    struct = handles[handle]
                    if owner.get(struct, mine) == mine:
                        continue
                    # the last access of a chain (not one inside its brackets) is the one whose address is taken or
                    # that PetscFree sets to NULL; &h->field[i] is an element of what the field holds, a read of it
                    last = not more.match(line, m.end(2))
                    outer = [(a, b) for a, b in addressed if line.count("[", a, m.start()) == line.count("]", a, m.start())]
                    taken = last and line[m.end(2) : m.end(2) + 1] != "[" and any(a <= m.start() and m.end(2) <= b for a, b in outer)
                    where = "%s:%d" % (p.relative_to(src), number)
                    what = "%s->%s, private to layer %s (struct _p_%s)" % (m.group(1), m.group(2), owner[struct], struct)
                    if taken or assign.match(line, m.end(2)) or (last and freed.search(line[: m.start()])):
                        faults.append("%s writes %s: use that layer's functions" % (where, what))
                    elif m.group(2) not in view.get(struct, ()):
                        faults.append("%s reads %s and not in its view: use that layer's functions" % (where, what))
    return faults


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
    faults += private_access(src, files)
    for fault in faults:
        print(fault)
    print("%d files in layers %s: %d faults (upward references, circles, private reads and writes, unused workarounds)" % (len(files), " < ".join(LAYERS), len(faults)))
    sys.exit(1 if faults else 0)


if __name__ == "__main__":
    main()
