#!/usr/bin/env bash
# Installs what cuda-labs needs on a Debian/Ubuntu machine that already has the
# CUDA toolkit (nvcc): CMake, Ninja, GoogleTest, bubblewrap (the grader's sandbox),
# Python's numpy and pytest; in the instructor's repository (requirements-dev.txt)
# also actionlint and ShellCheck, for the workflows. Not for a grading runner: that one
# is provisioned once by an admin (scripts/provision-runner.sh).
# Safe to run again: it installs only what is missing.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)

if ! command -v nvcc >/dev/null && [ ! -x /usr/local/cuda/bin/nvcc ]; then
  echo "setup: nvcc not found: install the CUDA Toolkit first (https://developer.nvidia.com/cuda-downloads)" >&2
  exit 1
fi
missing=()
command -v cmake >/dev/null || missing+=(cmake)
command -v ninja >/dev/null || missing+=(ninja-build)
command -v clang-format >/dev/null || missing+=(clang-format)
command -v bwrap >/dev/null || missing+=(bubblewrap)
[ -f /usr/include/gtest/gtest.h ] || missing+=(libgtest-dev)
command -v python3 >/dev/null || missing+=(python3 python3-pip)
dev="$root/requirements-dev.txt"
# actionlint runs ShellCheck on the workflows' run: blocks when it is installed.
[ ! -f "$dev" ] || command -v shellcheck >/dev/null || missing+=(shellcheck)
if [ ${#missing[@]} -gt 0 ]; then
  sudo=""
  [ "$(id -u)" -eq 0 ] || sudo="sudo"
  $sudo apt-get update -q
  DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -q "${missing[@]}"
fi
requirements=(-r "$root/requirements.txt")
[ ! -f "$dev" ] || requirements+=(-r "$dev")
python3 -m pip install -q "${requirements[@]}" 2>/dev/null ||
  python3 -m pip install -q --break-system-packages "${requirements[@]}"
echo "setup: ready ($(cmake --version | head -1), $(nvcc --version | tail -1))"
