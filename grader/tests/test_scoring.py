"""Points from lab.json groups, split evenly; every lost point keeps its reason."""

from __future__ import annotations

from pathlib import Path

import pytest

from grader.core.errors import GraderUsageError
from grader.core.model import LabTest, Outcome, Status
from grader.core.scoring import LabPolicy, load_policy, number, score_lab
from grader.tests.helpers import make_repo


def _test(name: str, kind: str, lab: str = "lab1") -> LabTest:
    return LabTest(name=f"{lab}.{name}", lab=lab, kind=kind)


PASS = Outcome(Status.PASSED)


def test_each_group_of_lab_json_is_split_evenly_among_its_tests(tmp_path: Path) -> None:
    repo = make_repo(
        tmp_path,
        {
            "lab1_histogram": {
                "lab": "lab1",
                "title": "Histogram",
                "score": {"correctness": 2, "timing": 8},
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
        t.test.name: (t.max_points - t.points, t.outcome.reason)
        for t in lab.tests
        if t.points < t.max_points
    }
    assert lost == {
        "lab1.B": (1, "bin 3: expected 1, got 0"),
        "lab1.U": (4, "timed out after 10 s: possible deadlock"),
    }
    reference = [t for t in lab.tests if t.test.kind == "reference"][0]
    assert reference.max_points == 0 and reference.outcome.reason  # reported, worth nothing


def test_adding_a_case_changes_no_total_only_each_tests_share() -> None:
    policy = LabPolicy("lab1", "Histogram", {"correctness": 60, "timing": 40})
    for cases in (3, 180, 181):
        results = [(_test(f"C{i}", "correctness"), PASS) for i in range(cases)]
        lab = score_lab(policy, [*results, (_test("T", "timing"), PASS)])
        assert number(lab.score) == number(lab.max_score) == 100
        assert lab.tests[0].max_points == pytest.approx(60 / cases)
    assert number(sum([60 / 180] * 180)) == 60  # no 59.99999 in a report


def test_a_lab_without_lab_json_gets_the_default_groups_and_a_note(tmp_path: Path) -> None:
    repo = make_repo(tmp_path, {"lab3_reduction": None})
    policy = load_policy("lab3", repo / "labs" / "lab3_reduction")
    assert policy.title == "reduction"
    assert policy.notes == (
        "lab3 has no labs/lab3_reduction/lab.json: default groups used "
        "(correctness 60, timing 40).",
    )
    lab = score_lab(
        policy, [(_test("A", "correctness", "lab3"), PASS), (_test("T", "timing", "lab3"), PASS)]
    )
    assert (lab.score, lab.max_score) == (100, 100)
    assert "default groups" in lab.notes[0]


def test_a_skipped_test_scores_zero(tmp_path: Path) -> None:
    policy = load_policy("lab1", None)
    skipped = Outcome(Status.SKIPPED, "no CUDA device")
    lab = score_lab(policy, [(_test("A", "correctness"), skipped)])
    assert (lab.score, lab.max_score) == (0, 60)
    assert lab.tests[0].outcome.status is Status.SKIPPED and lab.tests[0].points == 0


def test_a_build_failure_carries_the_labs_full_mark(tmp_path: Path) -> None:
    repo = make_repo(tmp_path, {"lab1_histogram": {"score": {"correctness": 7, "timing": 5}}})
    policy = load_policy("lab1", repo / "labs" / "lab1_histogram")
    lab = score_lab(policy, [(_test("build", "build"), Outcome(Status.FAILED, "did not build"))])
    assert (lab.score, lab.max_score) == (0, 12)


def test_a_kind_lab_json_gives_no_group_is_worth_nothing(tmp_path: Path) -> None:
    policy = LabPolicy("lab1", "", {"correctness": 3})
    lab = score_lab(policy, [(_test("A", "correctness"), PASS), (_test("T", "timing"), PASS)])
    assert (lab.score, lab.max_score) == (3, 3)


@pytest.mark.parametrize(
    ("text", "why"),
    [
        ("{not json", "not a valid lab.json"),
        ("[]", "not a JSON object"),
        ('{"score": {"correctness": "many"}}', "score:"),
        ('{"score": {}}', "score must give each group"),
        ('{"score": {"correctness": -1}}', "score must give each group"),
    ],
)
def test_an_invalid_lab_json_is_a_usage_error(tmp_path: Path, text: str, why: str) -> None:
    repo = make_repo(tmp_path, {"lab1_histogram": None})
    (repo / "labs" / "lab1_histogram" / "lab.json").write_text(text)
    with pytest.raises(GraderUsageError, match=why):
        load_policy("lab1", repo / "labs" / "lab1_histogram")
