"""scripts/compare_verdicts.py: two gradings of one build agree test by test, or say
where they do not (status, score, or a test only one of them has)."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path
from typing import Any

SCRIPT = Path(__file__).resolve().parents[2] / "scripts" / "compare_verdicts.py"


def _report(folder: Path, tests: list[dict[str, Any]], seconds: int) -> Path:
    folder.mkdir()
    (folder / "results.json").write_text(json.dumps({"tests": tests, "execution_time": seconds}))
    return folder


def _compare(a: Path, b: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, str(SCRIPT), str(a), str(b)], capture_output=True, text=True, check=False
    )


PASSED = {"name": "lab1.A (correctness)", "status": "passed", "score": 1}
FAILED = {"name": "lab1.B (correctness)", "status": "failed", "score": 0}


def test_identical_verdicts_exit_0(tmp_path: Path) -> None:
    a = _report(tmp_path / "a", [PASSED, FAILED], 90)
    b = _report(tmp_path / "b", [FAILED, PASSED], 40)
    proc = _compare(a, b)
    assert proc.returncode == 0
    assert proc.stdout.splitlines() == ["2 tests, 0 different verdicts; execution 90 s vs 40 s"]


def test_a_different_status_or_a_missing_test_exits_1_and_names_it(tmp_path: Path) -> None:
    a = _report(tmp_path / "a", [PASSED, FAILED], 90)
    b = _report(tmp_path / "b", [{**FAILED, "status": "passed", "score": 1}], 40)
    proc = _compare(a, b)
    assert proc.returncode == 1
    assert proc.stdout.splitlines() == [
        "2 tests, 2 different verdicts; execution 90 s vs 40 s",
        "  lab1.A (correctness): ('passed', 1) vs missing",
        "  lab1.B (correctness): ('failed', 0) vs ('passed', 1)",
    ]


def test_a_missing_report_is_named_not_a_traceback(tmp_path: Path) -> None:
    a = _report(tmp_path / "a", [PASSED], 90)
    proc = _compare(a, tmp_path / "none")
    assert proc.returncode == 1 and "Traceback" not in proc.stderr
    assert f"{tmp_path / 'none'}: no grading results" in proc.stderr
