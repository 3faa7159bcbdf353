#!/usr/bin/env bash
# Grades the sample class (submissions/sample_class.py: 22 lab1 folders) with
# `grader batch`, once for each GPU count in GPUS (default "2 1"), each from a
# fresh build root so the wall times compare, and checks every student's verdict.
# Prints last a table: GPUs, wall time, students per GPU, GPU use, as expected.
# Everything goes under LOGS (default build/class-batch). Takes about 13 minutes
# for one GPU on an H100 or H200, so start it detached on a lent machine.
# BUILD_ONCE=1 builds the fixed parts once per run (`batch --build-once`).
# A count GxS grades on G GPUs of S slots each (`batch --resource-spec`, the spec from
# scripts/gpu_resource_spec.py): GPUS="1x2 1" compares one GPU grading two students at
# once with one at a time.
set -uo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
source "$root/scripts/python-env.sh"
logs=${LOGS:-$root/build/class-batch}
rm -rf "$logs"
mkdir -p "$logs"
cd "$root" || exit 1
cmake_args=()
# A GoogleTest source tree carried along (no system package on the machine).
[ -d .deps/googletest ] && cmake_args=(--cmake-arg=-DLAB_GTEST_SOURCE_DIR="$root/.deps/googletest")

python3 submissions/sample_class.py make "$logs/class" || exit 1
# The instructor's secret lives outside the students' folders.
head -c 24 /dev/urandom | base64 >"$logs/secret"
status=0
for n in ${GPUS:-2 1}; do
  gpus=(--gpus "$n")
  if [[ $n =~ ^([0-9]+)x([0-9]+)$ ]]; then
    CUDA_VISIBLE_DEVICES=$(seq -s, 0 $((BASH_REMATCH[1] - 1))) \
      python3 scripts/gpu_resource_spec.py --slots "${BASH_REMATCH[2]}" "$logs/gpus-$n.json" ||
      status=1
    gpus=(--resource-spec "$logs/gpus-$n.json")
  fi
  python3 -m grader batch "$logs/class" --labs lab1 --secret-file "$logs/secret" "${gpus[@]}" \
    --build-root "$logs/build-$n" --build-jobs "${BUILD_JOBS:-8}" --report "$logs/report-$n" \
    ${BUILD_ONCE:+--build-once} "${cmake_args[@]}" >"$logs/batch-$n.log" 2>&1 || status=1
  python3 submissions/sample_class.py check "$logs/class" "$logs/report-$n" \
    >"$logs/check-$n.md" 2>&1 || status=1
  rm -rf "$logs/build-$n"
done

echo "== sample class, lab1, $(nvidia-smi --query-gpu=name --format=csv,noheader | sort | uniq -c |
  sed 's/^ *//' | paste -sd,)"
printf '%-5s %-70s %s\n' GPUs "batch" "as expected"
for n in ${GPUS:-2 1}; do
  done_line=$(grep -h "batch done" "$logs/batch-$n.log" | sed 's/^grader: //')
  printf '%-5s %-70s %s\n' "$n" "${done_line:-no result: see batch-$n.log}" \
    "$(tail -1 "$logs/check-$n.md")"
  grep -h "GPU use" "$logs/batch-$n.log" | sed 's/^grader: /      /'
done
exit $status
