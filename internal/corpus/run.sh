#!/usr/bin/env bash
# run.sh tflite|tf|tfref DIR [--update]: runs the corpus of tflite.tsv
# (.tflite files) or tf.tsv (SavedModels, GraphDefs) found in DIR and prints
# one line per model: file, outcome, detail, then the counts. With TFLITE_REF
# set to TensorFlow Lite's runner, .tflite outputs are compared with its
# builtin kernels. tfref compares the TF models of tfref.tsv, converted, with
# the .tflite files TensorFlow's converter wrote for them (in $TFLRUN_TF_REFS,
# else in DIR; run by TFLITE_REF's builtin kernels when set, else by
# tflrun). --update records the outcomes in the manifest's expect column.
set -euo pipefail
cd "$(dirname "$0")"
kind=${1:?usage: run.sh tflite|tf|tfref DIR [--update]}
dir=$(cd "${2:?usage: run.sh tflite|tf|tfref DIR [--update]}" && pwd)
case $kind in
  tflite) export TFLRUN_TFLITE_CORPUS=$dir; test=TestTFLite ;;
  tf) export TFLRUN_TF_CORPUS=$dir; test=TestTF ;;
  tfref) export TFLRUN_TF_CORPUS=$dir; test=TestTFReference ;;
  *) echo "run.sh: first argument must be tflite, tf or tfref" >&2; exit 2 ;;
esac
[ "${3:-}" = "--update" ] && export TFLRUN_CORPUS_UPDATE=1
out=$(mktemp)
trap 'rm -f "$out"' EXIT
status=0
go test -count=1 -timeout 60m -run "^$test\$" -v . >"$out" 2>&1 || status=$?
grep -o 'OUTCOME.*' "$out" | cut -f2- | column -t -s $'\t' || true
grep -E -- '--- FAIL|outcomes:|^(ok|FAIL|panic)' "$out" || true
exit $status
