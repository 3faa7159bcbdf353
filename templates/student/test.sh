#!/usr/bin/env bash
# Everything that can be checked without a GPU: the skeletons build for one
# architecture, every CTest test runs (GPU tests report themselves skipped), the
# dataset generator's tests pass, and the sources are formatted.
set -euo pipefail
cd "$(dirname "$0")/.."
source scripts/python-env.sh
export CMAKE_BUILD_PARALLEL_LEVEL=${CMAKE_BUILD_PARALLEL_LEVEL:-$(nproc)}

echo "== ci-skeletons: configure, build, ctest"
cmake --workflow --preset ci-skeletons

echo "== a GPU test without a GPU is skipped, never passed"
python3 scripts/check_skips.py build/ci-skeletons

echo "== formatting"
mapfile -t files < <(git ls-files '*.cu' '*.cuh' '*.cpp' '*.hpp' 2>/dev/null ||
  find labs skeletons -name '*.cu*' -o -name '*.[ch]pp')
clang-format --dry-run --Werror "${files[@]}"

echo "== Python unit tests"
python3 -m pytest -q datasets/tests
