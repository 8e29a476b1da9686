#!/usr/bin/python3
"""Checks the provenance attributes of a result file against the source tree it was built from.

Usage: check_provenance.py RESULT.h5 SOURCE_DIR

mbsid_version must be the VERSION of project() in SOURCE_DIR/CMakeLists.txt (the only place the version is defined);
git_commit the commit of SOURCE_DIR (git rev-parse --short=12 HEAD) and git_dirty "yes" when its tracked files differ
from that commit (git status), else "no". Run it right after the build and the run that wrote RESULT.h5 (an edit in
between would change the tree the file is compared with).
"""
import re
import subprocess
import sys

import h5py

result, source = sys.argv[1], sys.argv[2]
with open(f"{source}/CMakeLists.txt") as f:
    version = re.search(r"project\(mbsid VERSION ([0-9.]+)", f.read()).group(1)


def git(*args):
    return subprocess.run(["git", "-C", source, *args], capture_output=True, text=True, check=True).stdout.strip()


commit = git("rev-parse", "--short=12", "HEAD")
dirty = "yes" if git("status", "--porcelain", "--untracked-files=no") else "no"
with h5py.File(result, "r") as f:
    attrs = {k: (v.decode() if isinstance(v, bytes) else str(v)) for k, v in f.attrs.items()}
failed = False
for name, want in [("mbsid_version", version), ("git_commit", commit), ("git_dirty", dirty)]:
    got = attrs.get(name, "(missing)")
    ok = got == want
    failed |= not ok
    print(f"{'ok  ' if ok else 'FAIL'} {name} = {got} (want {want})")
sys.exit(1 if failed else 0)
