#!/usr/bin/env bash
# The SLURM scripts parse (bash -n) and every #SBATCH line names a real sbatch option (tests/sbatch_options.txt,
# the long options of sbatch --help); then identify.sbatch runs unmodified outside SLURM in a scratch copy of the
# project layout (build, inputs, jobs), making its virtual measurement and identifying bushing2.
# Usage: sbatch_check.sh SOURCE_DIR BUILD_DIR
set -euo pipefail
src=$1 build=$2
status=0
for script in "$src"/jobs/*.sbatch; do
  bash -n "$script" || { echo "FAIL syntax: $script"; status=1; }
  while read -r option; do
    name=${option%%=*}; name=${name#--}
    if grep -qx "$name" <(grep -v '^#' "$src/tests/sbatch_options.txt"); then echo "ok   $(basename "$script"): --$name"
    else echo "FAIL $(basename "$script"): --$name is not an sbatch option"; status=1; fi
  done < <(sed -n 's/^#SBATCH[[:space:]]\+\(--[^[:space:]]*\).*/\1/p' "$script")
done
scratch=$(mktemp -d)
trap 'rm -rf "$scratch"' EXIT
ln -s "$build" "$scratch/build"
ln -s "$src/inputs" "$scratch/inputs"
ln -s "$src/jobs" "$scratch/jobs"
(cd "$scratch" && MBSID_NPROCS=2 bash jobs/identify.sbatch inputs/bushing2.yaml -o results/sbatch_identify.h5) || status=1
[ -f "$scratch/results/sbatch_identify.h5" ] && echo "ok   identify.sbatch wrote results/sbatch_identify.h5 outside SLURM" || { echo "FAIL identify.sbatch wrote no result"; status=1; }
exit $status
