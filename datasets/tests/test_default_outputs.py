"""What the commands write by default into the repository is ignored by git, so a
report made afterwards does not say "uncommitted changes": the dataset a lab program
reads by default (data.bin) and its sidecar, `grader grade`'s report folder and
`scripts/sweep.py`'s (grader/commands/grade.py, scripts/sweep.py)."""

from __future__ import annotations

import subprocess
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]
DEFAULT_OUTPUTS = ["data.bin", "data.json", "grading-report/results.json", "sweep/sweep.csv"]


@pytest.mark.parametrize("path", DEFAULT_OUTPUTS)
def test_a_default_output_is_ignored(path: str) -> None:
    proc = subprocess.run(
        ["git", "-C", str(REPO), "check-ignore", "--no-index", "-q", path],
        capture_output=True, text=True, timeout=60, check=False,
    )  # fmt: skip
    assert proc.returncode == 0, f"{path} is not in .gitignore: {proc.stderr}"
