"""scripts/bench_summary.py: the grading benchmark's figures against their bounds."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path
from typing import Any

SCRIPT = Path(__file__).resolve().parents[2] / "scripts" / "bench_summary.py"


def _report(
    out: Path, name: str, seconds: float, labs: dict[str, tuple[int, int]], **extra: Any
) -> None:
    folder = out / name
    folder.mkdir(parents=True)
    doc = {
        "score": sum(s for s, _ in labs.values()),
        "extra_data": {
            "max_score": sum(m for _, m in labs.values()),
            "execution_time_s": seconds,
            "processes_started": 40,
            "phase_s": extra.get("phase_s", {"shared": 1.0}),
            "gpu": {"description": "NVIDIA H100 80GB HBM3"},
            "labs": [{"lab": lab, "score": s, "max_score": m} for lab, (s, m) in labs.items()],
        },
        "tests": [
            {"name": name, "extra_data": {"duration_s": seconds}}
            for name, seconds in extra.get("tests", {}).items()
        ],
    }
    (folder / "results.json").write_text(json.dumps(doc), encoding="utf-8")


def _bench(out: Path, *, hung_s: float = 70.0, class_done_s: int = 150) -> None:
    """A run whose figures are all within bounds unless told otherwise."""
    out.mkdir()
    steps = {"fixed-parts": 25000, "build-reference": 7000, "rebuild-one-file": 3000}
    steps["class"] = 200000
    (out / "steps.txt").write_text(
        "".join(f"{name} 0 {ms}\n" for name, ms in steps.items()), encoding="utf-8"
    )
    full = {"lab1": (10, 10), "lab2": (5, 5)}
    _report(out, "calibration", 60.0, full)
    _report(
        out,
        "grade-reference",
        95.0,
        full,
        phase_s={"shared": 20.0, "sanitize": 45.0},
        tests={"lab1.A (correctness)": 0.5, "lab2.T (timing)": 7.25},
    )
    _report(out, "grade-skeletons", 30.0, {"lab1": (0, 10), "lab2": (0, 5)})
    _report(out, "grade-hung", hung_s, {"lab1": (6, 10), "lab2": (5, 5)})
    (out / "class.log").write_text(
        "grader: 22 folders (21 submissions), labs lab1, 2 GPU worker(s) on GPU 0 (2 slots), "
        f"16 build(s) at once\ngrader: batch done in {class_done_s} s\n",
        encoding="utf-8",
    )
    (out / "class-check.log").write_text("| a |\n\n22 of 22 as expected\n", encoding="utf-8")
    _report(out / "class", "ref01", 5.0, {"lab1": (10, 10)})


def _summary(out: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, str(SCRIPT), str(out)], capture_output=True, text=True, check=False
    )


def test_figures_within_their_bounds_exit_0(tmp_path: Path) -> None:
    _bench(tmp_path / "out")
    proc = _summary(tmp_path / "out")
    assert proc.returncode == 0, proc.stdout + proc.stderr
    lines = proc.stdout.splitlines()
    assert "== grading benchmark (NVIDIA H100 80GB HBM3) ==" in lines
    longest = lines.index("== the reference's longest tests (s) ==")
    assert lines[longest + 1 : longest + 3] == [
        "    7.25  lab2.T (timing)",
        "    0.50  lab1.A (correctness)",
    ]
    row = next(line for line in lines if line.startswith("one submission"))
    assert "50.0" in row and "15/15" in row and row.endswith("yes")  # 95 s less its 45 s stage
    assert any(line.startswith("  its sanitizer stage (reference)") for line in lines)
    assert "NO" not in proc.stdout.split()
    # 50 s outside the batch's grading, plus 200 students at 150/22 s each.
    row = next(line for line in lines if line.startswith("  200 students"))
    assert f"{50 + 150 / 22 * 200:8.1f}" in row
    assert any(
        line.startswith("the sample class: 22 lab1 folders, 2 workers on GPU 0 (2 slots)")
        for line in lines
    )


def test_a_hung_submission_costing_more_than_twice_a_correct_one_fails(tmp_path: Path) -> None:
    _bench(tmp_path / "out", hung_s=101.0)
    proc = _summary(tmp_path / "out")
    assert proc.returncode == 1
    row = next(line for line in proc.stdout.splitlines() if line.startswith("a hung submission"))
    assert row.endswith("NO") and "(100 s)" in row


def test_a_slow_class_and_a_missing_report_fail(tmp_path: Path) -> None:
    _bench(tmp_path / "out", class_done_s=300)
    (tmp_path / "out" / "grade-skeletons" / "results.json").unlink()
    proc = _summary(tmp_path / "out")
    assert proc.returncode == 1
    assert "no report" in proc.stdout
    row = next(line for line in proc.stdout.splitlines() if line.startswith("  200 students"))
    assert row.endswith("NO")
