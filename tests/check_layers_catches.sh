#!/usr/bin/env bash
# The layer check is itself checked: on a copy of src/ with a deliberate write into the model's private struct from
# the identification layer, check_layers.py must fail and name the file, the line and the field.
# Usage: check_layers_catches.sh SRC_DIR CHECK_LAYERS_PY
set -uo pipefail
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
cp -r "$1" "$work/src"
target="$work/src/identification/objective.c"
line=$(grep -n "PetscCall(MbsModelFreezeSteps(obj->exp\[e\].model, freeze));" "$target" | cut -d: -f1)
[ -n "$line" ] || { echo "check_layers_catches: the line to break is gone from objective.c" >&2; exit 1; }
sed -i "${line}a\\    obj->exp[e].model->nfrozen = 0;" "$target"
output=$(/usr/bin/python3 "$2" "$work/src")
status=$?
echo "$output" | tail -3
[ $status -ne 0 ] || { echo "check_layers_catches: a private write was not caught" >&2; exit 1; }
echo "$output" | grep -q "^identification/objective.c:$((line + 1)) writes model->nfrozen, private to layer models" || { echo "check_layers_catches: the fault is not named by file, line and field" >&2; exit 1; }
echo "check_layers_catches: the deliberate private write is caught"
