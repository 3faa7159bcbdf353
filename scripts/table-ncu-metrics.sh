#!/usr/bin/env bash
# A course table from Nsight Compute: METRICS (comma-separated ncu metric names) for
# each kernel of one run of PROGRAM ARGS..., each kernel once. A table test's command
# (cmake lab_table): exit 4, "skipped", without ncu, without a GPU (the lab_gpu_info
# beside PROGRAM says) or when ncu does not know one of the metrics.
#
#   bash scripts/table-ncu-metrics.sh METRICS PROGRAM [ARG...]
set -uo pipefail
metrics=$1 program=$2
shift 2
command -v ncu >/dev/null || { echo "no ncu on the PATH: skipped"; exit 4; }
"$(dirname "$program")/lab_gpu_info" >/dev/null 2>&1 || { echo "no GPU: skipped"; exit 4; }
pattern="^  .*\(|ERR|$(echo "$metrics" | tr ',' '|')"
output=$(timeout 120 ncu --metrics "$metrics" "$program" "$@" 2>&1)
status=$?
# A metric this ncu or this GPU does not know is no failure of the lab: say which.
if grep -q "Failed to find metric" <<<"$output"; then
  grep "Failed to find metric" <<<"$output" | head -3
  echo "a metric unknown to this ncu or GPU: skipped"
  exit 4
fi
grep -E "$pattern" <<<"$output" | sed 's/, Context.*//' | awk '/^  [^ ]/{show = !seen[$0]++} show'
exit "$status"
