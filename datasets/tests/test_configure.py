"""Configure stops at once, in one line, when the dataset generator cannot run with the
Python it found: a build without scripts/setup.sh's .venv once ran 807 s and ended with
999 tests "Not Run" (cmake/LabTesting.cmake, lab_require_generator)."""

from __future__ import annotations

import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]


@pytest.mark.skipif(shutil.which("cmake") is None, reason="cmake needed")
def test_configure_refuses_a_python_without_numpy_in_one_line(tmp_path: Path) -> None:
    # A virtual environment of this interpreter's base, without this one's packages.
    subprocess.run([sys.executable, "-m", "venv", "--without-pip", str(tmp_path / "venv")],
                   check=True, timeout=120)  # fmt: skip
    python = tmp_path / "venv" / "bin" / "python3"
    build = tmp_path / "build"
    proc = subprocess.run(
        ["cmake", "-S", str(REPO), "-B", str(build), "-G", "Ninja", "-DLAB_ONLY=lab3",
         "-DCMAKE_CUDA_ARCHITECTURES=86-real", f"-DPython3_EXECUTABLE={python}"],
        capture_output=True, text=True, timeout=600, check=False,
    )  # fmt: skip
    assert proc.returncode != 0, proc.stdout[-2000:]
    line = (
        f"cuda-labs: the dataset generator cannot run with {python} (datasets.generate: "
        "numpy is required: bash scripts/setup.sh installs it in .venv): run "
        "`bash scripts/setup.sh`, then configure again"
    )
    assert line in [text.strip() for text in proc.stderr.splitlines()], proc.stderr
    # Dropped from the cache: the next configure looks again (and finds .venv).
    cache = (build / "CMakeCache.txt").read_text(encoding="utf-8")
    assert not re.findall(r"^_?Python3_EXECUTABLE:\w+=(.+)$", cache, re.M)
