"""`grader.classroom leaderboard` over a made-up batch report: the class's best figures first,
pseudonyms when anonymised, students without a report left out."""

from __future__ import annotations

import importlib.util
import json
import subprocess
from pathlib import Path

from grader.tests.helpers import run_grader

FIGURES = {
    "ann": {"lab3 fastest variant / copy ceiling": 0.61, "lab1 shared / seed global atomics": 9.0},
    "bob": {"lab3 fastest variant / copy ceiling": 0.83},
    "cid": {"lab3 fastest variant / copy ceiling": 0.72},
}


def _report(tmp_path: Path) -> Path:
    report = tmp_path / "report"
    report.mkdir()
    rows = ["student,status,lab1,lab3,total,max,failures,gpu,seconds"]
    for student, figures in FIGURES.items():
        rows.append(f"{student},graded,1,1,2,2,,H100,1")
        board = [{"name": n, "value": v, "order": "desc"} for n, v in figures.items()]
        (report / student).mkdir()
        (report / student / "results.json").write_text(json.dumps({"leaderboard": board}))
    rows.append("dee,build failed,0,0,0,2,,H100,1")  # no results.json
    (report / "class.csv").write_text("\n".join(rows) + "\n")
    return report


def _leaderboard(*args: str, cwd: Path) -> subprocess.CompletedProcess[str]:
    return run_grader("leaderboard", *args, cwd=cwd)


def test_each_figure_ranks_the_class_best_first(tmp_path: Path) -> None:
    report = _report(tmp_path)
    proc = _leaderboard("--class-report", str(report), cwd=tmp_path)
    assert proc.returncode == 0, proc.stderr
    board = json.loads((report / "leaderboard.json").read_text())
    assert list(board) == [
        "lab1 shared / seed global atomics",
        "lab3 fastest variant / copy ceiling",
    ]
    lab3 = board["lab3 fastest variant / copy ceiling"]
    assert [(r["rank"], r["student"], r["value"]) for r in lab3] == [
        (1, "bob", 0.83),
        (2, "cid", 0.72),
        (3, "ann", 0.61),
    ]
    text = (report / "leaderboard.md").read_text()
    assert "| 1 | bob | 0.83 |" in text and "dee" not in text
    if importlib.util.find_spec("matplotlib") is not None:
        assert (report / "leaderboard.png").read_bytes().startswith(b"\x89PNG")
    else:
        assert "no leaderboard.png" in proc.stderr


def test_anonymised_names_are_pseudonyms_stable_for_one_salt(tmp_path: Path) -> None:
    report = _report(tmp_path)
    args = ["--class-report", str(report), "--anonymise", "--salt", "k"]
    assert _leaderboard(*args, cwd=tmp_path).returncode == 0
    first = (report / "leaderboard.json").read_text()
    assert _leaderboard(*args, cwd=tmp_path).returncode == 0
    assert (report / "leaderboard.json").read_text() == first
    assert not any(name in first for name in FIGURES)
    assert '"student": "anon-' in first


def test_a_salt_without_anonymise_is_a_usage_error(tmp_path: Path) -> None:
    report = _report(tmp_path)
    proc = _leaderboard("--class-report", str(report), "--salt", "k", cwd=tmp_path)
    assert proc.returncode == 2 and "--salt goes with --anonymise" in proc.stderr
