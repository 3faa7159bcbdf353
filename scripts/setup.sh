#!/usr/bin/env bash
# Installs what cuda-labs needs on a Debian/Ubuntu machine that already has the
# CUDA toolkit (nvcc): CMake, Ninja, GoogleTest, bubblewrap (the grader's sandbox) and
# Python's venv from Debian's packages; then a virtual environment, .venv, with the Python
# packages at the versions and hashes of the lock file (numpy, pytest) and this project
# installed editable (the `cuda-labs` command). In the instructor's repository the lock is
# requirements-dev.lock, which adds the maintainers' checks (actionlint, ruff, mypy) and
# matplotlib; there ShellCheck comes too, for the workflows, unifdef, which writes
# the skeletons from the solutions, and Debian's munge and slurm-wlm, a Slurm to test
# the cluster's job scripts on. Not for a grading runner: that one is provisioned
# once by an admin (scripts/provision-runner.sh) and uses the system's Python. Safe to
# run again: it installs only what is missing.
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
# unifdef writes skeletons/ from the masters in solutions/ (scripts/make_skeletons.sh):
# the instructor's repository only.
[ ! -d "$root/solutions" ] || command -v unifdef >/dev/null || missing+=(unifdef)
[ -f /usr/include/gtest/gtest.h ] || missing+=(libgtest-dev)
# venv needs ensurepip, which Debian ships apart from python3 (python3-venv).
command -v python3 >/dev/null && python3 -c 'import ensurepip, venv' 2>/dev/null ||
  missing+=(python3 python3-venv)
lock="$root/requirements.lock"
[ ! -f "$root/requirements-dev.lock" ] || lock="$root/requirements-dev.lock"
if [ "$lock" != "$root/requirements.lock" ]; then
  # actionlint runs ShellCheck on the workflows' run: blocks when it is installed.
  command -v shellcheck >/dev/null || missing+=(shellcheck)
  # The one-node Slurm of scripts/slurm-node.sh, which grader/tests/test_slurm.py starts.
  ls /usr/sbin/munged /usr/sbin/slurmctld /usr/sbin/slurmd >/dev/null 2>&1 ||
    missing+=(munge slurm-wlm)
fi
if [ ${#missing[@]} -gt 0 ]; then
  sudo=""
  [ "$(id -u)" -eq 0 ] || sudo="sudo"
  $sudo apt-get update -q
  DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -q "${missing[@]}"
fi

venv="$root/.venv"
# A new one when there is none, or when the Python it was made from is gone (an upgrade).
"$venv/bin/python3" -c '' 2>/dev/null || python3 -m venv --clear "$venv"
# Every package pinned and checked against the lock's hashes; nothing else is resolved.
"$venv/bin/python3" -m pip install -q --require-hashes --no-deps -r "$lock"
# The project itself, editable, built with the setuptools the lock just installed.
"$venv/bin/python3" -m pip install -q --no-deps --no-build-isolation -e "$root"
echo "setup: ready ($(cmake --version | head -1), $(nvcc --version | tail -1)," \
  "$("$venv/bin/python3" --version) in .venv from ${lock##*/})"
