#!/bin/bash
# Every element type the registry knows (as the error for an unknown type lists them) has its own small model
# inputs/models/elements/TYPE.yaml, which tests/CMakeLists.txt runs through the Jacobian harness and gradcheck: a new
# element type cannot land untested. Usage: check_element_models.sh MBSID MODELS_DIR UNKNOWN_TYPE_MODEL
mbsid=$1 models=$2 probe=$3
types=$("$mbsid" simulate -model_file "$probe" 2>&1 | sed -n "s/.*unknown element type '[^']*'; types: //p" | head -1)
[ -n "$types" ] || { echo "FAIL: no list of element types from $probe"; exit 1; }
status=0
for type in $types; do
  if [ -f "$models/$type.yaml" ]; then echo "ok   $type: $models/$type.yaml"; else echo "FAIL $type has no model $models/$type.yaml"; status=1; fi
done
exit $status
