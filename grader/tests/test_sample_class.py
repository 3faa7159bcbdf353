"""The sample class's expectations and the check of a class table against them."""

from __future__ import annotations

import csv
import importlib.util
import json
from pathlib import Path

import pytest

from grader.classroom.gradebook import read_roster

_SCRIPT = Path(__file__).resolve().parents[2] / "submissions" / "sample_class.py"
_spec = importlib.util.spec_from_file_location("sample_class", _SCRIPT)
assert _spec is not None and _spec.loader is not None
sample_class = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(sample_class)


def _row(status: str = "graded", score: str = "100", failures: str = "") -> dict[str, str]:
    return {"student": "s", "status": status, "lab1": score, "failures": failures}


@pytest.mark.parametrize(
    "expect, row, ok",
    [
        ("full", _row(), True),
        ("full", _row(score="98.5"), False),
        ("zero", _row(score="0"), True),
        ("passes", _row(score="96.42"), True),  # the performance credit's share
        ("passes", _row(score="90", failures="lab1.Timing.X: speedup"), False),
        ("passes", _row(score="0"), False),
        (
            "fails:shared__",
            _row(score="90", failures="lab1.Correctness/x/shared__u: bins differ"),
            True,
        ),
        ("fails:shared__", _row(score="90", failures="lab1.Timing.X: speedup"), False),
        ("fails:shared__", _row(failures="lab1.Correctness/x/shared__u: flaky"), False),
        (  # the flag scoring.py gives a variant right on public data only
            f"fails:{sample_class.KNOWN_WRONG['lab1_hardcoded']}",
            _row(
                score="54.47",
                failures="lab1.Correctness/.../best__uniform_2p25__seed_launch: answer not "
                "computed: right on public data only (variant best: 4 case(s) ...)",
            ),
            True,
        ),
        (
            f"fails:{sample_class.KNOWN_WRONG['lab1_hardcoded']}",
            _row(score="98.42", failures="lab1.Correctness/.../best__uniform_2p25: bins differ"),
            False,
        ),
        ("not a submission", _row(status="not a submission", score=""), True),
        ("zero", _row(status="broken", score=""), False),
        ("full", None, False),
    ],
)
def test_a_row_is_judged_against_its_expectation(
    expect: str, row: dict[str, str] | None, ok: bool
) -> None:
    assert sample_class.verdict(expect, row)[1] is ok


def test_make_writes_every_kind_of_student(tmp_path: Path) -> None:
    out = tmp_path / "class"
    expected = sample_class.make(out)
    assert len(expected) == 22
    assert json.loads((out / "expected.json").read_text()) == expected
    assert sorted(p.name for p in out.iterdir() if p.is_dir()) == sorted(expected)
    assert (out / "lab1_hang" / "lab1_histogram" / "histogram_kernels.cu").is_file()
    assert "not C++" in (out / "broken_compile/lab1_histogram/histogram_kernels.cu").read_text()
    assert not any((out / "notes_only").glob("lab*"))
    roster = read_roster(out / "roster.csv")  # the gradebook's, with one pair
    assert len(roster) == 23 and [e.folder for e in roster].count("ref01") == 2


def test_check_reports_a_mismatch(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    out, report = tmp_path / "class", tmp_path / "report"
    out.mkdir()
    report.mkdir()
    (out / "expected.json").write_text(json.dumps({"ref01": "full", "skel01": "zero"}))
    with open(report / "class.csv", "w", newline="", encoding="utf-8") as f:
        writer = csv.DictWriter(f, ["student", "status", "lab1", "failures"])
        writer.writeheader()
        writer.writerow({"student": "ref01", "status": "graded", "lab1": "100", "failures": ""})
        writer.writerow({"student": "skel01", "status": "graded", "lab1": "3", "failures": "x"})
    assert sample_class.check(out, report) == 1
    assert "1 of 2 as expected" in capsys.readouterr().out


def test_a_larger_class_is_mostly_honest_and_every_folder_differs(tmp_path: Path) -> None:
    out = tmp_path / "class"
    expected = sample_class.make(out, 42)
    added = list(expected)[22:]
    assert len(expected) == 42 and len(added) == 20
    assert sum(expected[n] == "full" for n in added) == 8
    assert sum(expected[n] == "passes" for n in added) == 8
    assert {n.rsplit("_", 1)[0] for n in added if expected[n] not in ("full", "passes")} == {
        "lab1_race",
        "lab1_tail",
        "lab1_oob_write",
        "lab1_hang",
    }
    files = [(out / n / sample_class.LAB_FILE).read_text() for n in expected if n != "notes_only"]
    assert len(set(files)) == len(files) - 3 - 7  # the base class's eight reference copies agree
    assert sample_class.main(["make", str(tmp_path / "small"), "21"]) == 2
