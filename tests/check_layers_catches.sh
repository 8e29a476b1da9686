#!/usr/bin/env bash
# The layer check is itself checked: on a copy of src/ with deliberate accesses to the model's private struct from the
# identification and core layers, check_layers.py must fail and name the file, the line and the field of each fault:
# an assignment, a read of a field outside the model's read-only view, PetscFree(h->field), an address &h->field passed
# to a function; and it must not report a read of a field in the view.
# Usage: check_layers_catches.sh SRC_DIR CHECK_LAYERS_PY
set -uo pipefail
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
cp -r "$1" "$work/src"

# insert_after FILE ANCHOR LINE...: the lines after the anchor's; prints the anchor's line number
insert_after() {
  local file=$1 anchor=$2 at
  shift 2
  at=$(grep -nF "$anchor" "$file" | head -1 | cut -d: -f1)
  [ -n "$at" ] || { echo "check_layers_catches: the anchor '$anchor' is gone from $file" >&2; exit 1; }
  for ((k = $#; k >= 1; k--)); do sed -i "${at}a\\${!k}" "$file"; done
  echo "$at"
}

objective=$(insert_after "$work/src/identification/objective.c" "PetscCall(MbsModelFreezeSteps(obj->exp[e].model, freeze));" \
  "    obj->exp[e].model->nfrozen = 0;" \
  "    (void)obj->exp[e].model->jacobian_lag;" \
  "    PetscCall(PetscMalloc1(1, &obj->exp[e].model->sample_t));" \
  "    (void)obj->exp[e].model->np;") || exit 1
simulate=$(insert_after "$work/src/core/simulate.c" "PetscCall(MbsModelGetJacobianWork(model, &work));" \
  "      PetscCall(PetscFree(model->jacobian_work));") || exit 1

[ "$(sed -n "$((objective + 4))p" "$work/src/identification/objective.c")" = "    (void)obj->exp[e].model->np;" ] || { echo "check_layers_catches: the view read is not where it was put" >&2; exit 1; }
output=$(/usr/bin/python3 "$2" "$work/src")
status=$?
echo "$output" | tail -6
[ $status -ne 0 ] || { echo "check_layers_catches: the private accesses were not caught" >&2; exit 1; }
expect() {
  echo "$output" | grep -q "^$1" || { echo "check_layers_catches: not reported: $1" >&2; exit 1; }
}
expect "identification/objective.c:$((objective + 1)) writes model->nfrozen, private to layer models"
expect "identification/objective.c:$((objective + 2)) reads model->jacobian_lag, private to layer models (struct _p_MbsModel) and not in its view"
expect "identification/objective.c:$((objective + 3)) writes model->sample_t, private to layer models"
expect "core/simulate.c:$((simulate + 1)) writes model->jacobian_work, private to layer models"
! echo "$output" | grep -q "^identification/objective.c:$((objective + 4)) " || { echo "check_layers_catches: a read of model->np, in the model's view, was reported" >&2; exit 1; }
faults=$(echo "$output" | grep -c "^[a-z_/]*\.[ch]:[0-9]* ")
[ "$faults" -eq 4 ] || { echo "check_layers_catches: $faults faults reported, the 4 deliberate ones expected" >&2; exit 1; }
echo "check_layers_catches: the deliberate private write is caught, and so are the private read, the &h->field and PetscFree(h->field) writes; the view read is not reported"
