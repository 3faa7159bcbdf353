#!/usr/bin/env bash
# Regenerates the lock files from pyproject.toml, for every supported Python and platform
# (uv's universal resolution), each package pinned with the hashes of its files:
#   requirements-dev.lock  everything: the dependencies and the extras dev and plot
#                          (what scripts/setup.sh installs in this repository);
#   requirements.lock      the dependencies only, at the same versions (what it installs
#                          in a student repository, which `export` writes without the other).
# Both also pin setuptools, which builds the editable install. Needs uv (in the dev extra:
# .venv/bin/uv after scripts/setup.sh) and PyPI. UPGRADE=1 moves every pin to the newest
# release; without it, pins already in the lock files are kept where they still fit.
set -euo pipefail
cd "$(dirname "$0")/.."
uv=${UV:-$(command -v uv || echo .venv/bin/uv)}
# pyproject.toml's [build-system] requires, one a line.
build=$(sed -n 's/^requires = \[\(.*\)\]$/\1/p' pyproject.toml | tr -d '" ' | tr , '\n')
# The oldest Python pyproject.toml supports: a universal resolution otherwise starts at uv's.
python=$(sed -n 's/^requires-python = ">=\(.*\)"$/\1/p' pyproject.toml)
args=(--universal --python-version "$python" --generate-hashes --quiet --custom-compile-command "bash scripts/lock.sh")
[ "${UPGRADE:-0}" = 0 ] || args+=(--upgrade)
echo "$build" | "$uv" pip compile pyproject.toml - --all-extras "${args[@]}" -o requirements-dev.lock
# Constrained by the first, so the two agree on every version they share.
echo "$build" | "$uv" pip compile pyproject.toml - -c requirements-dev.lock "${args[@]}" \
  -o requirements.lock
echo "lock: requirements-dev.lock and requirements.lock written"
