#!/usr/bin/env bash
# How fast the grader grades, on a machine with a CUDA GPU: a benchmark, not a test.
#   1. builds the class's fixed parts once (the harness, references and test
#      programs, against the skeletons), then three submissions against them, each
#      compiling only its own files: the reference solution handed in as a
#      student's folder, the skeletons, and the reference with lab1's deadlock
#      (submissions/known_wrong/make_lab1.py's `hang`); then rebuilds one after
#      touching one of its files;
#   2. grades the reference once: its results.json is the calibration (grade
#      --calibration), the performance credit's yardstick in every later grading;
#   3. grades each submission, all labs, on hidden data with the sanitizer stage;
#   4. grades the sample class (submissions/sample_class.py: 22 lab1 folders) with
#      `grader.classroom batch --build-once` on one GPU of CLASS_SLOTS slots (default 2;
#      CLASS_SANITIZE=1 adds the sanitizer stage), and checks every verdict;
#   5. prints a table last (scripts/bench_summary.py): wall times, test processes
#      started, and each figure against its bound.
# Logs and reports go to OUT (default build/bench-grading); builds to build/bench.
# LABS (default every lab) limits the labs of steps 1-3. Takes about 15 minutes
# on an H100: start it detached on a lent machine.
set -uo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
source "$root/scripts/python-env.sh"
source "$root/scripts/bubblewrap-env.sh"
out=${OUT:-$root/build/bench-grading}
work=$root/build/bench
labs=${LABS:-$(cd "$root/labs" && ls -d lab*_* | sed 's/_.*//' | sort -u | paste -sd,)}
source "$root/scripts/owned-dirs.sh"
owned_dir "$out" && owned_dir "$work" || exit 2
cmake_args=(-G Ninja -DCMAKE_BUILD_TYPE=Release "-DLAB_ONLY=${labs//,/;}")
gtest=()
[ -d "$root/.deps/googletest" ] && gtest=(-DLAB_GTEST_SOURCE_DIR="$root/.deps/googletest")
cmake_args+=("${gtest[@]}")
secret=$work/secret
python3 -c 'import secrets; print(secrets.token_hex(16))' >"$secret"
cd "$root" || exit 1

# step NAME COMMAND...: runs it, logs to OUT/NAME.log, records "NAME status milliseconds".
step() {
  local name=$1 start status
  shift
  start=$(date +%s%N)
  "$@" >"$out/$name.log" 2>&1
  status=$?
  echo "$name $status $(( ($(date +%s%N) - start) / 1000000 ))" >>"$out/steps.txt"
  return $status
}
build() {  # build folder, implementation folder, more cmake arguments
  cmake -S "$root" -B "$1" "${cmake_args[@]}" -DLAB_IMPL="$2" "${@:3}" && cmake --build "$1"
}
grade() {  # report name, build, more grade arguments
  python3 -m grader grade --build "$2" --labs "$labs" --secret-file "$secret" \
    --report "$out/$1" "${@:3}"
}

step fixed-parts build "$work/fixed" skeletons
students=$work/students
mkdir -p "$students"
cp -r solutions "$students/reference"
cp -r skeletons "$students/skeletons"
cp -r solutions "$students/hung"
python3 submissions/known_wrong/make_lab1.py "$work/known-wrong" >/dev/null &&
  cp "$work/known-wrong/lab1_hang/lab1_histogram/histogram_kernels.cu" "$students/hung/lab1_histogram/"
for student in reference skeletons hung; do
  step "build-$student" build "$work/build-$student" "$students/$student" \
    -DLAB_PREBUILT="$work/fixed" -DLAB_SANITIZE=ON
done
# A student's edit: one source file of the first lab benchmarked.
touch "$(find "$students/reference/${labs%%,*}_"* -name '*.cu' | sort | head -1)"
step rebuild-one-file cmake --build "$work/build-reference"

step calibration grade calibration "$work/build-reference" --no-sanitize
for student in reference skeletons hung; do
  step "grade-$student" grade "grade-$student" "$work/build-$student" --sanitize \
    --calibration "$out/calibration/results.json"
done

class=$work/class
python3 submissions/sample_class.py make "$class" >/dev/null
sanitize=--no-sanitize
[ "${CLASS_SANITIZE:-0}" = 1 ] && sanitize=--sanitize
# One GPU as CLASS_SLOTS slots (default 2): that many students graded at once,
# their timed tests still alone on it (batch --resource-spec, grader/core/gpu_lock.py).
CUDA_VISIBLE_DEVICES=0 step class-spec python3 scripts/gpu_resource_spec.py \
  --slots "${CLASS_SLOTS:-2}" "$work/gpus.json"
step class python3 -m grader.classroom batch "$class" --labs lab1 --secret-file "$secret" \
  --resource-spec "$work/gpus.json" \
  --build-root "$work/class-build" --build-jobs "$(nproc)" --build-once "$sanitize" \
  --calibration "$out/calibration/results.json" \
  --report "$out/class" "${gtest[@]/#/--cmake-arg=}"
step class-check python3 submissions/sample_class.py check "$class" "$out/class"

python3 scripts/bench_summary.py "$out" | tee "$out/summary.txt"
exit "${PIPESTATUS[0]}"
