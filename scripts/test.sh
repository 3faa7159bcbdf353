#!/usr/bin/env bash
# Everything that can be checked without a GPU, as CI runs it:
#   each skeleton is what its master in solutions/ generates (scripts/make_skeletons.sh);
#   both trees (skeletons, solutions) build for one architecture; every CTest test
#   runs (GPU tests report themselves skipped, the harness's own tests pass); a lab
#   made from the template by scripts/new_lab.py builds and passes its checks
#   (scripts/check-new-lab.sh, in a copy of the tree); the grader's and the dataset
#   generator's unit tests; formatting; the Python linters.
set -euo pipefail
cd "$(dirname "$0")/.."
source scripts/python-env.sh
export CMAKE_BUILD_PARALLEL_LEVEL=${CMAKE_BUILD_PARALLEL_LEVEL:-$(nproc)}

echo "== skeletons: each is what its master in solutions/ generates"
bash scripts/make_skeletons.sh --check
echo "== each lab README's table of bars is what lab.json and calibration.json say"
python3 scripts/readme_bars.py --check

for tree in ci-skeletons ci-solutions; do
  echo "== $tree: configure, build, ctest"
  cmake --workflow --preset "$tree"
done

echo "== a GPU test without a GPU is skipped, never passed"
python3 scripts/check_skips.py build/ci-solutions

echo "== a new lab from the template (scripts/new_lab.py) builds and passes its checks"
bash scripts/check-new-lab.sh

echo "== formatting"
# grader/tests/data holds fixtures whose line numbers the static-check tests rely on.
files=$(git ls-files '*.cu' '*.cuh' '*.cpp' '*.hpp' ':!grader/tests/data')
clang-format --dry-run --Werror $files

echo "== Python: ruff (the rules and the format pyproject.toml sets), mypy --strict"
ruff check .
ruff format --check .
mypy  # the files and flags are pyproject.toml's

echo "== workflows: actionlint (with ShellCheck) on the committed ones and on an export's"
actionlint
exported=$(mktemp -d)
trap 'rm -rf "$exported"' EXIT
python3 -m grader export --instructor-repo course/cuda-labs --ref v1 "$exported/student" >/dev/null
actionlint -config-file .github/actionlint.yaml "$exported"/student/.github/workflows/*.yml

echo "== static check of both trees"
python3 -m grader check --impl skeletons
python3 -m grader check --impl solutions

echo "== Python unit tests"
python3 -m pytest -q grader/tests datasets/tests
