#!/usr/bin/env bash
# The course's launch-configuration tables, one `scripts/sweep.py` each, on the
# reference build BUILD (default build/gpu-solutions; it must be built):
#   lab1 global over slice x threads (the exercise sheet's kernel/slice/time table),
#   lab2 sum_matrix over the block shapes (32,32) (32,16) (16,32) (16,16),
#   lab3 neighbored and lab4 register over the block size, lab5 naive and
#   naive_swapped (question 1: rows on x) over 2D blocks.
# Each writes sweep.csv and sweep.png (when matplotlib is installed) under
# LOGS/<lab>-<variant>/ (default LOGS: build/seed-sweeps). Prints a table last:
# sweep | exit | configurations | plot; exit 1 when a sweep failed.
set -uo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
source "$root/scripts/python-env.sh"
build=${BUILD:-$root/build/gpu-solutions}
logs=${LOGS:-$root/build/seed-sweeps}
mkdir -p "$logs"
cd "$root" || exit 1

sweeps=(
  "lab1 global --param slice=1,4,16,64 --param threads=128,256,512"
  "lab2 sum_matrix --param block-x=16,32 --param block-y=16,32"
  "lab3 neighbored --param threads=64,128,256,512,1024"
  "lab4 register --param threads=64,128,256,512,1024"
  "lab5 naive --param block-x=8,16,32 --param block-y=8,16,32 --param n=2048"
  "lab5 naive_swapped --param block-x=8,16,32 --param block-y=8,16,32 --param n=2048"
)
# The sweeps read the labs' largest public case: generate the datasets first.
ctest --test-dir "$build" -R '^lab[0-9]+\.datasets$' >"$logs/datasets.log" 2>&1 ||
  echo "dataset generation failed: see $logs/datasets.log"

status=0
rows=()
for sweep in "${sweeps[@]}"; do
  read -r lab variant params <<<"$sweep"
  dir=$logs/$lab-$variant
  # shellcheck disable=SC2086  # params is a list of options
  python3 scripts/sweep.py "$lab" "$variant" $params --build "$build" --out "$dir" \
    >"$dir.log" 2>&1
  code=$?
  [ $code = 0 ] || status=1
  configs=0  # one line per configuration after the header
  [ -f "$dir/sweep.csv" ] && configs=$(($(wc -l <"$dir/sweep.csv") - 1))
  plot=none
  [ -s "$dir/sweep.png" ] && plot=sweep.png
  [ $code = 0 ] || plot="none: see $dir.log"
  rows+=("$(printf '%-22s %4s %14s  %s' "$lab $variant" "$code" "$configs" "$plot")")
done
printf '%-22s %4s %14s  %s\n' sweep exit configurations plot
printf '%s\n' "${rows[@]}"
exit $status
