#!/usr/bin/env python3
"""Relative errors of every iterate of an identify log against the truth of a make_chain.py model file.

Reads the iteration lines "it N  J X  |g| Y  name value ..." and prints per iteration J, the largest relative error
(and its parameter), the medians over stiffnesses and dampings, and how many parameters are within 1e-3; with
--exclude NAME,... also the largest error over the others (the parameters the confidence shows determined).
With --options it prints instead the last iterate as options -p_NAME VALUE (to continue from it).
Usage: iteration_errors.py MODEL.yaml LOG [--exclude a,b,...] [--every K] [--worst K] [--options]
"""
import argparse
import re
import statistics


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("model")
    parser.add_argument("log")
    parser.add_argument("--exclude", default="")
    parser.add_argument("--every", type=int, default=1)
    parser.add_argument("--worst", type=int, default=0, help="list the K largest errors of the last iterate")
    parser.add_argument("--options", action="store_true", help="print the last iterate as -p_NAME VALUE")
    a = parser.parse_args()
    truth = {}
    for line in open(a.model):
        m = re.match(r"\s+([kd]\d+[xyz]): \{value: ([0-9.eE+-]+)", line)
        if m:
            truth[m.group(1)] = float(m.group(2))
    excluded = set(filter(None, a.exclude.split(",")))
    rows = []
    for line in open(a.log):
        m = re.match(r"\s*it\s+(\d+)\s+J\s+(\S+)\s+\|g\|\s+\S+\s+(.*?)\s+step\s", line)
        if not m:
            continue
        tokens = m.group(3).split()
        values = {tokens[i]: float(tokens[i + 1]) for i in range(0, len(tokens) - 1, 2) if tokens[i] in truth}
        errors = {n: abs(values[n] - truth[n]) / truth[n] for n in values}
        rows.append((int(m.group(1)), float(m.group(2)), errors))
        last = values
    if a.options:
        print(" ".join("-p_%s %.17g" % (n, v) for n, v in last.items()))
        return
    head = "  it  J           largest error        median k  median d  within 1e-3"
    if excluded:
        head += "  largest over the other %d" % (len(truth) - len(excluded))
    print(head)
    for i, (it, J, errors) in enumerate(rows):
        if i % a.every and i != len(rows) - 1:
            continue
        worst = max(errors, key=errors.get)
        k = statistics.median(e for n, e in errors.items() if n[0] == "k")
        d = statistics.median(e for n, e in errors.items() if n[0] == "d")
        line = "%4d  %.3e   %.2e (%-5s)     %.1e   %.1e    %3d" % (it, J, errors[worst], worst, k, d, sum(e <= 1e-3 for e in errors.values()))
        if excluded:
            line += "          %.2e" % max(e for n, e in errors.items() if n not in excluded)
        print(line)
    if a.worst and rows:
        errors = rows[-1][2]
        print("largest errors:", ", ".join("%s %.1e" % (n, errors[n]) for n in sorted(errors, key=errors.get, reverse=True)[: a.worst]))


if __name__ == "__main__":
    main()
