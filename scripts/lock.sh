#!/usr/bin/env bash
# Regenerates the lock files from pyproject.toml, for every supported Python and platform
# (uv's universal resolution), each package pinned with the hashes of its files:
#   requirements-dev.lock  everything: the dependencies and the extras dev and plot
#                          (what scripts/setup.sh installs in this repository);
#   requirements.lock      the dependencies only, at the same versions (what it installs
#                          in a student repository, which `export` writes without the other).
# Both also pin setuptools, which builds the editable install. Needs PyPI and uv (the dev
# extra's, in .venv after scripts/setup.sh; UV=PATH for another). UPGRADE=1 moves every pin
# to the newest release; without it, the pins in the lock files stay where they still fit.
set -euo pipefail
cd "$(dirname "$0")/.."
source scripts/python-env.sh  # uv, from the dev extra
uv=${UV:-uv}
# pyproject.toml's [build-system] requires, one a line.
build=$(sed -n 's/^requires = \[\(.*\)\]$/\1/p' pyproject.toml | tr -d '" ' | tr , '\n')
# The oldest Python pyproject.toml supports: a universal resolution otherwise starts at uv's.
python=$(sed -n 's/^requires-python = ">=\(.*\)"$/\1/p' pyproject.toml)
args=(--universal --python-version "$python" --generate-hashes --quiet
      --custom-compile-command "bash scripts/lock.sh")
[ "${UPGRADE:-0}" = 0 ] || args+=(--upgrade)
echo "$build" | "$uv" pip compile pyproject.toml - --all-extras "${args[@]}" -o requirements-dev.lock
# Constrained by the first, so the two agree on every version they share.
echo "$build" | "$uv" pip compile pyproject.toml - -c requirements-dev.lock "${args[@]}" \
  -o requirements.lock
echo "lock: requirements-dev.lock and requirements.lock written"
