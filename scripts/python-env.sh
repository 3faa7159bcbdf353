# Sourced by the scripts that run Python. Puts the virtual environment that
# scripts/setup.sh makes (.venv) first on the PATH, so that `python3` and the tools
# (pytest, ruff, mypy, actionlint) are its own, and CMake's find_package(Python3) takes
# it too (VIRTUAL_ENV). Where there is none (a grading runner, a GPU machine provisioned
# with Debian's packages and no network), the system's python3 runs, with the
# pure-Python packages carried in .deps/python (copydetect for `grader.classroom similarity`)
# first on its path.
_root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
if [ -x "$_root/.venv/bin/python3" ]; then
  export VIRTUAL_ENV="$_root/.venv" PATH="$_root/.venv/bin:$PATH"
elif [ -d "$_root/.deps/python" ]; then
  export PYTHONPATH="$_root/.deps/python${PYTHONPATH:+:$PYTHONPATH}"
fi
unset _root
