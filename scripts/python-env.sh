# Sourced by the scripts that run Python. Puts the virtual environment that
# scripts/setup.sh makes (.venv) first on the PATH, so that `python3` and the tools
# (pytest, ruff, mypy, actionlint) are its own, and CMake's find_package(Python3) takes
# it too (VIRTUAL_ENV). Where there is none (a grading runner, a GPU machine provisioned
# with Debian's packages and no network), nothing changes: the system's python3 runs.
_venv="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)/.venv"
if [ -x "$_venv/bin/python3" ]; then
  export VIRTUAL_ENV="$_venv" PATH="$_venv/bin:$PATH"
fi
unset _venv
