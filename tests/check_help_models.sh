#!/usr/bin/env bash
# Runs "COMMAND -model MODEL -help" for every command mbsid lists and every model -model lists (and the model files
# given), and checks that no option is listed twice in one output: an option read in two places (a model's options
# block and a command's) is listed twice, with two defaults of which only one applies.
# Usage: check_help_models.sh MBSID [MODEL_FILE...]
mbsid=$1
shift
check=$(dirname "$0")/check_help.sh
commands=$("$mbsid" 2>&1 | sed -n 's/^Commands: //p')
models=$("$mbsid" simulate -help 2>&1 | sed -n 's/^  -model <.*(one of) \(.*\) (MbsModelSetType)$/\1/p')
[ -n "$commands" ] && [ -n "$models" ] || { echo "check_help_models: cannot read the commands ('$commands') or models ('$models')" >&2; exit 1; }
runs=0
fault=0
for command in $commands; do
  cases=()
  for model in $models; do
    case $model in described | linearized) ;; *) cases+=("-model $model") ;; esac
  done
  for file in "$@"; do cases+=("-model_file $file"); done
  for args in "${cases[@]}"; do
    # shellcheck disable=SC2086
    bash "$check" "" "$mbsid" "$command" $args >/dev/null 2>"check_help_models.err" || {
      echo "check_help_models: mbsid $command $args -help: $(tr '\n' ' ' <check_help_models.err)" >&2
      fault=1
    }
    runs=$((runs + 1))
  done
done
rm -f check_help_models.err
[ "$fault" -eq 0 ] && echo "check_help_models: $runs listings (commands: $commands; models: $models $*), no option twice in one"
exit "$fault"
