#!/usr/bin/python3
"""Checks an mbsid identify result file against expected parameter values.

Usage: check_result.py RESULT.h5 NAME=VALUE:RTOL ... [--max-iterations N] [--wrong NAME=VALUE:RTOL ...]
                       [--attribute GROUP:NAME=VALUE ...] [--descent F]

Each NAME=VALUE:RTOL requires |final - VALUE| <= RTOL |VALUE| for the identified parameter NAME;
--wrong requires the opposite (an identification that is expected to miss, e.g. the time-domain cost
with model error); --attribute requires the attribute NAME of GROUP to read VALUE; --descent F requires TAO to have
moved towards a minimum: at least one iteration, the final J below the initial one and the gradient norm fallen by
the factor F (so that a --wrong result is not the start left alone). Prints every value it checks; exits 1 on a
failed check.
"""
import argparse
import sys

import h5py


def parse(spec):
    name, rest = spec.split("=")
    value, rtol = rest.split(":")
    return name, float(value), float(rtol)


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("result")
    parser.add_argument("expect", nargs="*", type=parse)
    parser.add_argument("--wrong", nargs="*", type=parse, default=[])
    parser.add_argument("--max-iterations", type=int, default=None)
    parser.add_argument("--attribute", nargs="*", default=[])
    parser.add_argument("--descent", type=float, default=None)
    args = parser.parse_args()
    failed = False
    with h5py.File(args.result, "r") as f:
        names = [n.decode() if isinstance(n, bytes) else n for n in f["parameters/name"][:]]
        final = dict(zip(names, f["parameters/final"][:]))
        iterations = len(f["iterations/J"]) - 1
        print(f"{args.result}: {iterations} iterations, final J = {f['iterations/J'][-1]:.6e}, {f['iterations'].attrs['converged_reason']}")
        for (name, value, rtol), miss in [(e, False) for e in args.expect] + [(e, True) for e in args.wrong]:
            error = abs(final[name] - value) / abs(value)
            ok = (error > rtol) if miss else (error <= rtol)
            relation = ">" if miss else "<="
            print(f"{'ok  ' if ok else 'FAIL'} {name} = {final[name]:.10g}, relative error {error:.3e} (want {relation} {rtol:g} of {value:g})")
            failed |= not ok
        for spec in args.attribute:
            where, want = spec.split("=", 1)
            group, name = where.split(":")
            got = f[group].attrs.get(name, "(missing)")
            got = got.decode() if isinstance(got, bytes) else str(got)
            ok = got == want
            print(f"{'ok  ' if ok else 'FAIL'} {group} attribute {name} = {got} (want {want})")
            failed |= not ok
        if args.descent is not None:
            J0, J = f["iterations/J"][0], f["iterations/J"][-1]
            g0, g = f["iterations/gnorm"][0], f["iterations/gnorm"][-1]
            ok = iterations >= 1 and J < J0 and g * args.descent <= g0
            print(f"{'ok  ' if ok else 'FAIL'} after {iterations} iterations J fell from {J0:.6e} to {J:.6e} and |g| from {g0:.3e} to {g:.3e}, by {g0 / g if g > 0 else float('inf'):.3g} (want >= {args.descent:g})")
            failed |= not ok
        if args.max_iterations is not None:
            ok = iterations <= args.max_iterations
            print(f"{'ok  ' if ok else 'FAIL'} {iterations} TAO iterations (want <= {args.max_iterations})")
            failed |= not ok
    sys.exit(1 if failed else 0)


if __name__ == "__main__":
    main()
