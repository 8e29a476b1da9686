#!/usr/bin/python3
"""Checks the provenance attributes of a result file against the source tree it was built from.

Usage: check_provenance.py RESULT.h5 SOURCE_DIR [MBSID]

With MBSID, `MBSID --version` must name the same version and commit ("mbsid V (commit C[, modified]; ...").

mbsid_version must be the VERSION of project() in SOURCE_DIR/CMakeLists.txt (the only place the version is defined);
git_commit a commit of SOURCE_DIR and git_dirty "yes" or "no". When git_commit is HEAD (mbsid built after the last
commit, as jobs/test does), git_dirty must be "yes" exactly when tracked files differ from it (git status); a file of
a binary built at an earlier commit only gets its commit checked against the history.
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


head = git("rev-parse", "--short=12", "HEAD")
dirty = "yes" if git("status", "--porcelain", "--untracked-files=no") else "no"
with h5py.File(result, "r") as f:
    attrs = {k: (v.decode() if isinstance(v, bytes) else str(v)) for k, v in f.attrs.items()}
commit = attrs.get("git_commit", "(missing)")
known = subprocess.run(["git", "-C", source, "cat-file", "-e", commit + "^{commit}"], capture_output=True).returncode == 0
checks = [("mbsid_version", attrs.get("mbsid_version", "(missing)"), version, None),
          ("git_commit", commit, "a commit of the source tree", known)]
if commit == head:
    checks.append(("git_dirty", attrs.get("git_dirty", "(missing)"), dirty, None))
else:
    checks.append(("git_dirty", attrs.get("git_dirty", "(missing)"), "yes or no (built before HEAD " + head + ")", attrs.get("git_dirty") in ("yes", "no")))
if len(sys.argv) > 3:
    line = subprocess.run([sys.argv[3], "--version"], capture_output=True, text=True).stdout.strip()
    want = f"mbsid {version} (commit {commit}{', modified' if attrs.get('git_dirty') == 'yes' else ''}; PETSc "
    checks.append(("--version", line, want + "...", line.startswith(want)))
failed = False
for name, got, want, ok in checks:
    ok = got == want if ok is None else ok
    failed |= not ok
    print(f"{'ok  ' if ok else 'FAIL'} {name} = {got} (want {want})")
sys.exit(1 if failed else 0)
