#!/usr/bin/env bash
# The performance credit on a machine with a CUDA GPU (grader/core/credit.py):
#   1. grades submissions/typical once: its results.json is the calibration, the
#      typical solution's figures measured on this GPU in this job;
#   2. grades the typical solution again, the second one (submissions/typical2), the
#      reference, and a deliberately slow but correct submission
#      (submissions/slow/make_slow.py: lab3's unrolling8 about 30 % slower), each
#      against that calibration;
#   3. checks that each passed timing test's credit is the lab's curve applied to
#      its figure and the calibration's, and prints the table last
#      (scripts/credit_table.py; exit 1 on any mismatch).
# Logs and reports go to OUT (default build/credit-check); builds to build/credit.
# LABS (default every lab) limits the labs. About 4 minutes on an H100.
set -uo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
source "$root/scripts/python-env.sh"
source "$root/scripts/bubblewrap-env.sh"
source "$root/scripts/owned-dirs.sh"
out=${OUT:-$root/build/credit-check}
work=$root/build/credit
owned_dir "$out" && owned_dir "$work" || exit 2
labs=${LABS:-$(cd "$root/labs" && ls -d lab*_* | sed 's/_.*//' | sort -u | paste -sd,)}
cmake_args=()
[ -d "$root/.deps/googletest" ] && cmake_args=(--cmake-arg=-DLAB_GTEST_SOURCE_DIR="$root/.deps/googletest")
cd "$root" || exit 1

python3 submissions/slow/make_slow.py "$work/slow" >/dev/null || exit 1
grade() {  # report name, implementation, more grade arguments
  echo "== grade $1"
  python3 -m grader grade --impl "$2" --build-dir "$work/build-${2##*/}" --labs "$labs" \
    --no-sanitize --report "$out/$1" "${cmake_args[@]}" "${@:3}" >"$out/$1.log" 2>&1
  echo "   exit $? ($out/$1.log)"
}
grade calibration submissions/typical
grade typical submissions/typical --calibration "$out/calibration/results.json"
grade typical2 submissions/typical2 --calibration "$out/calibration/results.json"
grade reference solutions --calibration "$out/calibration/results.json"
grade slow "$work/slow" --calibration "$out/calibration/results.json"
# The grader's modules from this checkout: a GPU machine has no .venv that installs them.
PYTHONPATH="$root${PYTHONPATH:+:$PYTHONPATH}" python3 scripts/credit_table.py --calibration "$out/calibration/results.json" \
  "$out/typical/results.json" "$out/typical2/results.json" "$out/reference/results.json" \
  "$out/slow/results.json"
