"""Points from grading.json weights; every lost point keeps its reason."""

from __future__ import annotations

from pathlib import Path

import pytest

from grader.errors import GraderUsageError
from grader.model import LabTest, Outcome, Status
from grader.scoring import load_policy, score_lab
from grader.tests.helpers import make_repo


def _test(name: str, kind: str, lab: str = "lab1") -> LabTest:
    return LabTest(name=f"{lab}.{name}", lab=lab, kind=kind)


PASS = Outcome(Status.PASSED)


def test_weights_come_from_grading_json(tmp_path: Path) -> None:
    repo = make_repo(
        tmp_path,
        {
            "lab1_histogram": {
                "lab": "lab1",
                "title": "Histogram",
                "points": {"correctness": 1, "timing": 4},
            }
        },
    )
    policy = load_policy("lab1", repo / "labs" / "lab1_histogram")
    assert policy.title == "Histogram" and not policy.notes
    lab = score_lab(
        policy,
        [
            (_test("A", "correctness"), PASS),
            (_test("B", "correctness"), Outcome(Status.FAILED, "bin 3: expected 1, got 0")),
            (_test("T", "timing"), PASS),
            (
                _test("U", "timing"),
                Outcome(Status.FAILED, "timed out after 10 s: possible deadlock"),
            ),
            (_test("R", "reference"), Outcome(Status.FAILED, "2.1x slower than the reference")),
        ],
    )
    assert (lab.score, lab.max_score) == (5, 10)
    lost = {
        t.test.name: (t.max_points - t.points, t.lost_reason)
        for t in lab.tests
        if t.points < t.max_points
    }
    assert lost == {
        "lab1.B": (1, "bin 3: expected 1, got 0"),
        "lab1.U": (4, "timed out after 10 s: possible deadlock"),
    }
    reference = [t for t in lab.tests if t.test.kind == "reference"][0]
    assert reference.max_points == 0 and reference.lost_reason  # reported, worth nothing


def test_a_lab_without_grading_json_gets_default_weights_and_a_note(tmp_path: Path) -> None:
    repo = make_repo(tmp_path, {"lab3_reduction": None})
    policy = load_policy("lab3", repo / "labs" / "lab3_reduction")
    assert policy.title == "reduction"
    assert policy.notes == (
        "lab3 has no labs/lab3_reduction/grading.json: default weights used "
        "(correctness 1, timing 2).",
    )
    lab = score_lab(
        policy, [(_test("A", "correctness", "lab3"), PASS), (_test("T", "timing", "lab3"), PASS)]
    )
    assert (lab.score, lab.max_score) == (3, 3)
    assert "default weights" in lab.notes[0]


def test_a_skipped_test_scores_zero_and_says_it_was_not_graded(tmp_path: Path) -> None:
    policy = load_policy("lab1", None)
    skipped = Outcome(Status.SKIPPED, "no CUDA device")
    lab = score_lab(policy, [(_test("A", "correctness"), skipped)])
    assert (lab.score, lab.max_score) == (0, 1)
    assert lab.tests[0].lost_reason == "skipped, not graded: no CUDA device"


def test_a_build_failure_carries_the_expected_maximum(tmp_path: Path) -> None:
    repo = make_repo(
        tmp_path, {"lab1_histogram": {"points": {"correctness": 1, "timing": 4}, "max_score": 12}}
    )
    policy = load_policy("lab1", repo / "labs" / "lab1_histogram")
    lab = score_lab(policy, [(_test("build", "build"), Outcome(Status.FAILED, "did not build"))])
    assert (lab.score, lab.max_score) == (0, 12)
    unknown = score_lab(
        load_policy("lab1", None),
        [(_test("build", "build"), Outcome(Status.FAILED, "did not build"))],
    )
    assert unknown.max_score == 0
    assert any("maximum is unknown" in note for note in unknown.notes)


def test_a_mismatch_with_the_expected_maximum_is_noted(tmp_path: Path) -> None:
    repo = make_repo(tmp_path, {"lab1_histogram": {"points": {"correctness": 1}, "max_score": 3}})
    lab = score_lab(
        load_policy("lab1", repo / "labs" / "lab1_histogram"), [(_test("A", "correctness"), PASS)]
    )
    assert any("expects max_score 3" in note for note in lab.notes)


def test_an_invalid_grading_json_is_a_usage_error(tmp_path: Path) -> None:
    repo = make_repo(tmp_path, {"lab1_histogram": None})
    (repo / "labs" / "lab1_histogram" / "grading.json").write_text("{not json")
    with pytest.raises(GraderUsageError, match="not a valid grading.json"):
        load_policy("lab1", repo / "labs" / "lab1_histogram")
