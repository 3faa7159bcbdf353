#!/usr/bin/env bash
# The lab template still makes a working lab: in a copy of this working tree (its
# tracked files as they are now, and the untracked ones git does not ignore; no
# build folders), scripts/new_lab.py makes lab<next>_demo, which must then
#   - come out formatted (clang-format) with its skeleton what make_skeletons.sh
#     generates from its master,
#   - configure, build (that lab alone, for CI's one architecture) and pass
#     `ctest --preset demo` (the preset named by its topic; GPU tests skipped) and
#     the harness's tests (the program's answers to bad options), against the
#     skeleton and the solution,
#   - pass the static check, skeleton and solution.
# Only the copy is written, and it is removed at the end.
#
#   bash scripts/check-new-lab.sh
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
source "$root/scripts/python-env.sh"
start=$(date +%s)

work=$(mktemp -d "${TMPDIR:-/tmp}/check-new-lab.XXXXXX")
trap 'rm -rf "$work"' EXIT
copy=$work/repo
mkdir "$copy"
cd "$root"
# A file deleted but not yet committed is still listed: copy only those that exist.
git ls-files -z --cached --others --exclude-standard |
  while IFS= read -r -d '' f; do
    if [ -e "$f" ] || [ -L "$f" ]; then printf '%s\0' "$f"; fi
  done |
  xargs -0 cp --parents --no-dereference -t "$copy"
cd "$copy"

topic=demo
echo "== new_lab.py $topic"
python3 scripts/new_lab.py "$topic" >"$work/new_lab.log" || {
  cat "$work/new_lab.log"
  exit 1
}
lab=$(sed -n 's/^new_lab: added the test presets \(lab[0-9]*\), .*/\1/p' "$work/new_lab.log")
folder=$(cd labs && ls -d "${lab}_$topic")
echo "made $lab (labs/$folder)"

echo "== $lab: formatted, skeleton generated from its master"
find "labs/$folder" "solutions/$folder" "skeletons/$folder" \
  \( -name '*.cu' -o -name '*.cuh' -o -name '*.cpp' -o -name '*.hpp' \) -print0 |
  xargs -0 clang-format --dry-run --Werror
bash scripts/make_skeletons.sh --check

# The same architecture as the ci-* presets; GoogleTest carried in .deps/ where the
# system has none (as scripts/gpu-suite.sh does).
arch=$(python3 -c 'import json, sys
presets = json.load(open("CMakePresets.json"))["configurePresets"]
print(next(p for p in presets if p["name"] == "ci-skeletons")["cacheVariables"]["CMAKE_CUDA_ARCHITECTURES"])')
cmake_args=(-DLAB_ONLY="$lab" -DCMAKE_CUDA_ARCHITECTURES="$arch")
[ -d "$root/.deps/googletest" ] && cmake_args+=(-DLAB_GTEST_SOURCE_DIR="$root/.deps/googletest")
build=build/student  # the student preset's, which the lab's test presets use
export CUDA_LABS_EXPECT_NO_GPU=1  # as the ci-* test presets: no GPU here is expected

# The skeleton first; then the solution in the same build, which recompiles only the
# student's file.
for impl in skeletons solutions; do
  echo "== $lab against $impl: configure, build, ctest --preset $topic, harness tests, static check"
  cmake --preset student "${cmake_args[@]}" -DLAB_IMPL="$impl" >"$work/configure.log" || {
    cat "$work/configure.log"
    exit 1
  }
  cmake --build --preset student
  if [ "$impl" = skeletons ] && "$build/bin/lab_gpu_info" >/dev/null 2>&1; then
    # With a GPU the skeleton's tests run, and fail, as they must.
    if ctest --preset "$topic" >"$work/skeleton-ctest.log" 2>&1; then
      cat "$work/skeleton-ctest.log"
      echo "check-new-lab: the skeleton of $lab passed its tests on a GPU" >&2
      exit 1
    fi
    echo "a GPU is visible: the skeleton's $lab tests ran and failed, as they must"
  else
    ctest --preset "$topic"
  fi
  ctest --test-dir "$build" --output-on-failure -L '^harness$' -R "^harness\\.$lab\\."
  python3 scripts/check_skips.py "$build"
  python3 -m grader check --impl "$impl" --labs "$lab" --build "$build"
done

echo "check-new-lab: $lab from the template built and passed its checks in" \
  "$(($(date +%s) - start)) s"
