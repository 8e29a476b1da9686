#!/usr/bin/env python3
"""Runs the examples of the manual, so that it cannot rot (doc/developer.md, "Examples in the manual").

A runnable example is a fenced block with the info string `console`; each of its lines that starts with `$ ` is a
command (continued by lines while it ends in a backslash), every other line is output shown to the reader and not
checked. Any other fence (`sh`, `yaml`, `text`, ...) is not run. A command shown to fail (a refusal) is written
`$ ! command`: bash inverts its status. The commands of one page run top to bottom in one fresh directory, as a
user types them in the project root: `build` links to the build tree, `jobs` to the scripts, and `inputs` is a copy
of the shipped inputs (so no example can write into the source tree). Every mbsid run gets -unused_options_error
(through PETSC_OPTIONS), so a command that names an option mbsid does not read fails (a `! ` command too: its
output must not report an unused option), as does a command that exits non-zero or runs out of time. A failure is
reported as PAGE:LINE with the command and the end of its output; the page stops there (its later commands may need
what the failed one makes) and the others go on. A relative link (`[text](page.md#heading)`) must name an existing
file and, in a Markdown file, one of its headings.

Usage: check_doc_examples.py --source SOURCE_DIR --build BUILD_DIR [--timeout SECONDS] [--list] PAGE.md...
"""
import argparse
import os
import re
import shutil
import subprocess
import sys
import tempfile
import time

NOISE = re.compile(r"PETSC ERROR: (#[0-9]+ |Configure options|Petsc Release|See https)")  # PETSc's stack, not the message
UNUSED = re.compile(r"^Unused option -|option\(s\) were given but not used", re.M)
FENCE = re.compile(r"^(\s*)(```+|~~~+)\s*([^\s`]*)")


def examples(path):
    """The commands of the page's runnable blocks, as (line, command)."""
    commands, fence, runnable, pending = [], None, False, None
    with open(path, encoding="utf-8") as f:
        for number, line in enumerate(f, start=1):
            line = line.rstrip("\n")
            match = FENCE.match(line)
            if fence is None:
                if match:
                    fence, runnable = match.group(2), match.group(3) == "console"
                continue
            if match and line.strip().startswith(fence) and not match.group(3):
                if pending:
                    raise SystemExit(f"{path}:{pending[0]}: the command's last line ends in a backslash")
                fence = None
                continue
            if not runnable:
                continue
            text = line.strip()
            if pending:
                pending[1].append(text)
            elif text.startswith("$ "):
                pending = (number, [text[2:]])
            else:
                continue
            if not text.endswith("\\"):
                commands.append((pending[0], "\n".join(pending[1])))
                pending = None
    if fence is not None:
        raise SystemExit(f"{path}: a fenced block is not closed")
    return commands


def slug(heading):
    """The anchor GitHub gives a heading."""
    text = re.sub(r"[^\w\- ]", "", heading.strip().lower())
    return text.replace(" ", "-")


def anchors(path):
    with open(path, encoding="utf-8") as f:
        return {slug(line.lstrip("#")) for line in f if re.match(r"#+ ", line)}


def broken_links(page, shown):
    """Relative links of the page whose file or heading does not exist, as reports."""
    reports, fenced = [], False
    with open(page, encoding="utf-8") as f:
        for number, line in enumerate(f, start=1):
            if FENCE.match(line):
                fenced = not fenced
            if fenced:
                continue
            for target in re.findall(r"\]\(([^)\s]+)\)", re.sub(r"`[^`]*`", "", line)):  # not in code spans
                if re.match(r"[a-z]+:", target):
                    continue
                path, _, anchor = target.partition("#")
                path = os.path.normpath(os.path.join(os.path.dirname(page), path)) if path else page
                if not os.path.exists(path):
                    reports.append(f"{shown}:{number}: the link {target} names no file")
                elif anchor and path.endswith(".md") and anchor not in anchors(path):
                    reports.append(f"{shown}:{number}: the link {target} names no heading of {os.path.basename(path)}")
    return reports


def run_page(page, shown, args, environment):
    """Runs the page's commands in a fresh directory; returns the failures' reports."""
    work = tempfile.mkdtemp(prefix="mbsid-doc-")
    try:
        os.symlink(os.path.abspath(args.build), os.path.join(work, "build"))
        os.symlink(os.path.join(os.path.abspath(args.source), "jobs"), os.path.join(work, "jobs"))
        shutil.copytree(os.path.join(args.source, "inputs"), os.path.join(work, "inputs"))
        for line, command in examples(page):
            start = time.monotonic()
            try:
                result = subprocess.run(["bash", "-o", "pipefail", "-c", command], cwd=work, env=environment,
                                        stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True,
                                        timeout=args.timeout, start_new_session=True)
                status, output = result.returncode, result.stdout
            except subprocess.TimeoutExpired as expired:
                status = f"no end within {args.timeout:g} s"
                output = expired.stdout.decode(errors="replace") if expired.stdout else ""
            seconds = time.monotonic() - start
            if status == 0 and UNUSED.search(output):  # a refusal shown with `! ` must not pass by a misspelt option
                status = "0, but mbsid names an option it did not read"
            if status == 0:
                print(f"{shown}:{line}: ok ({seconds:.1f} s): {command.splitlines()[0]}", flush=True)
                continue
            lines = [text for text in output.rstrip().splitlines() if not NOISE.search(text)]
            tail = "\n".join("    " + text for text in lines[-25:])
            return [f"{shown}:{line}: the example failed (exit status {status}, {seconds:.1f} s):\n    $ {command}\n"
                    f"  its output ends with:\n{tail}"]
        return []
    finally:
        shutil.rmtree(work, ignore_errors=True)


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--source", required=True, help="the project's source tree (inputs/, jobs/)")
    parser.add_argument("--build", required=True, help="the build tree holding mbsid")
    parser.add_argument("--timeout", type=float, default=120, help="seconds one command may take")
    parser.add_argument("--list", action="store_true", help="list the commands instead of running them")
    parser.add_argument("pages", nargs="+")
    args = parser.parse_args()

    environment = dict(os.environ)
    environment.update({"PETSC_OPTIONS": (environment.get("PETSC_OPTIONS", "") + " -unused_options_error").strip(),
                        "PATH": os.path.abspath(args.build) + os.pathsep + environment.get("PATH", ""),
                        "OMP_NUM_THREADS": "1", "OMPI_MCA_rmaps_base_oversubscribe": "1", "MPLBACKEND": "Agg"})
    if os.getuid() == 0:
        environment.update({"OMPI_ALLOW_RUN_AS_ROOT": "1", "OMPI_ALLOW_RUN_AS_ROOT_CONFIRM": "1"})

    failures, count = [], 0
    for page in args.pages:
        shown = os.path.relpath(page, args.source)
        if args.list:
            for line, command in examples(page):
                print(f"{shown}:{line}: {command}")
            continue
        count += len(examples(page))
        failures += broken_links(page, shown)
        failures += run_page(page, shown, args, environment)
    if failures:
        print("\n".join(failures), flush=True)
        sys.exit(f"{len(failures)} failure(s): failing examples or broken links")
    if not args.list:
        print(f"every example ran: {count} command(s) on {len(args.pages)} page(s)")


if __name__ == "__main__":
    main()
