#!/usr/bin/env bash
# Everything that can be checked without a GPU, as CI runs it:
#   each skeleton is what its master in solutions/ generates (scripts/make_skeletons.sh);
#   both trees (skeletons, solutions) build for one architecture, the skeletons' build
#   linking the fixed parts the solutions' build compiled (LAB_PREBUILT, as
#   `batch --build-once` does), and the solutions' student files for sm_75 too; every CTest test
#   runs (GPU tests report themselves skipped, the harness's own tests pass); both
#   trees pass the static and object checks (`grader check`); a lab
#   made from the template by scripts/new_lab.py builds and passes its checks
#   (scripts/check-new-lab.sh, in a copy of the tree); the grader's and the dataset
#   generator's unit tests (not the known-wrong corpus, nor the real class on Slurm: .ci/run
#   runs them after this);
#   formatting; the Python linters. Each stage's duration last.
set -euo pipefail
cd "$(dirname "$0")/.."
source scripts/python-env.sh
export CMAKE_BUILD_PARALLEL_LEVEL=${CMAKE_BUILD_PARALLEL_LEVEL:-$(nproc)}

# Each stage's duration, printed at the end with the whole run's.
start=$SECONDS mark=$SECONDS name="" times=()
stage() {
  [ -z "$name" ] || times+=("$(printf '%5d s  %s' $((SECONDS - mark)) "$name")")
  name=$1 mark=$SECONDS
  [ -z "$name" ] || echo "== $name"
}

stage "skeletons: each is what its master in solutions/ generates"
bash scripts/make_skeletons.sh --check
stage "each lab README's table of bars is what lab.json and calibration.json say"
python3 scripts/readme_bars.py --check

stage "ci-solutions: configure, build, ctest"
cmake --workflow --preset ci-solutions
stage "ci-skeletons: configure, build (the fixed parts linked from ci-solutions), ctest"
cmake --preset ci-skeletons -DLAB_PREBUILT="$PWD/build/ci-solutions" >/dev/null
cmake --build --preset ci-skeletons
ctest --preset ci-skeletons

stage "both trees pass the static and object checks, on the objects just built"
python3 -m grader check --impl solutions --build build/ci-solutions
python3 -m grader check --impl skeletons --build build/ci-skeletons

stage "the reference's student files compile for sm_75 too (a T4, the oldest GPU CUDA 13 builds for)"
# Only the labN_impl targets: the solutions' sm_80 instructions need their fallbacks.
cmake --preset ci-solutions -B build/ci-sm75 -DCMAKE_CUDA_ARCHITECTURES=75-real >/dev/null
impl_targets=()
for lab in labs/lab*_*/; do
  lab=${lab#labs/}
  impl_targets+=("${lab%%_*}_impl")
done
cmake --build build/ci-sm75 --target "${impl_targets[@]}"

stage "a GPU test without a GPU is skipped, never passed"
python3 scripts/check_skips.py build/ci-solutions

stage "a new lab from the template (scripts/new_lab.py) builds and passes its checks"
bash scripts/check-new-lab.sh

stage "formatting"
# grader/tests/data holds fixtures whose line numbers the static-check tests rely on.
files=$(git ls-files '*.cu' '*.cuh' '*.cpp' '*.hpp' ':!grader/tests/data')
clang-format --dry-run --Werror $files

stage "Python: ruff (the rules and the format pyproject.toml sets), mypy --strict"
ruff check .
ruff format --check .
mypy  # the files and flags are pyproject.toml's

stage "workflows: actionlint (with ShellCheck) on the committed ones and on an export's; the student's test.sh"
actionlint
exported=$(mktemp -d)
trap 'rm -rf "$exported"' EXIT
python3 -m grader.classroom export --instructor-repo course/cuda-labs --ref v1 "$exported/student" >/dev/null
actionlint -config-file .github/actionlint.yaml "$exported"/student/.github/workflows/*.yml
shellcheck -x templates/student/test.sh templates/slurm/*.sbatch scripts/slurm-node.sh

stage "Python unit tests, one process per core"
# A file's tests stay in one process: a module's fixture runs once. The known-wrong corpus's
# static entries (-m corpus) and a real class through the one-node Slurm (-m cluster),
# minutes of compiling each, run after this script in .ci/run.
python3 -m pytest -q -n "$(nproc)" --dist loadfile -m "not corpus and not cluster" \
  grader/tests datasets/tests

stage ""
printf '%s\n' "${times[@]}"
echo "test.sh: passed in $((SECONDS - start)) s"
