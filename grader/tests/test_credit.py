"""Performance credit: a passed timing test's share on the lab's curve, against the
reference's figure for the same test from a calibration grading."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from grader.core.calibration import Calibration
from grader.core.credit import CreditCurve, read_curve
from grader.core.errors import GraderUsageError
from grader.core.model import Figure, LabTest, Outcome, Status
from grader.core.scoring import LabPolicy, load_policy, score_lab
from grader.tests.helpers import make_repo

CURVE = CreditCurve(full_within=1.2, zero_at=2.0)
POLICY = LabPolicy("lab3", "Reduction", {"correctness": 60, "timing": 40}, credit=CURVE)
TIMED = LabTest(name="lab3.Timing.InterleavedBeatsNeighbored", lab="lab3", kind="timing")
OTHER = LabTest(name="lab3.Timing.Unrolling8BeatsInterleaved", lab="lab3", kind="timing")
REFERENCE = {TIMED.name: 2.4, OTHER.name: 3.0}


def _passed(value: float) -> Outcome:
    return Outcome(Status.PASSED, figure=Figure("interleaved / neighbored", value, 1.5))


@pytest.mark.parametrize(
    ("value", "fraction"),
    [
        (2.4, 1.0),  # as fast as the reference
        (3.1, 1.0),  # faster: capped, never more than full marks
        (2.0, 1.0),  # 1.2x slower: the edge of full credit
        (1.5, 0.5),  # 1.6x slower: half way down the line
        (1.2, 0.0),  # 2x slower: nothing
        (1.0, 0.0),
    ],
)
def test_the_curve_is_full_within_then_a_line_to_zero(value: float, fraction: float) -> None:
    assert CURVE.fraction(value, 2.4) == pytest.approx(fraction)


def test_a_passed_timing_test_earns_its_share_on_the_curve() -> None:
    lab = score_lab(POLICY, [(TIMED, _passed(1.5)), (OTHER, _passed(3.0))], REFERENCE)
    slow, fast = lab.tests
    assert slow.points == pytest.approx(10) and slow.max_points == 20
    assert slow.credit is not None and slow.credit.as_data() == {
        "fraction": 0.5,
        "reference": 2.4,
        "slowdown": 1.6,
        "full_within": 1.2,
        "zero_at": 2.0,
    }
    assert fast.points == 20 and fast.credit is not None and fast.credit.fraction == 1


def test_a_failed_timing_test_earns_nothing_whatever_its_figure() -> None:
    failed = Outcome(Status.FAILED, "speedup 1.4 (needed >= 1.5)", figure=Figure("x", 2.4, 1.5))
    lab = score_lab(POLICY, [(TIMED, failed)], REFERENCE)
    assert lab.tests[0].points == 0 and lab.tests[0].credit is None


def test_without_a_reference_figure_a_passed_test_earns_its_whole_share() -> None:
    figures: dict[str, float] | None
    for figures in (None, {}):
        lab = score_lab(POLICY, [(TIMED, _passed(1.0))], figures)
        assert lab.tests[0].points == 40 and lab.tests[0].credit is None
    no_curve = LabPolicy("lab3", "", {"timing": 40})
    assert score_lab(no_curve, [(TIMED, _passed(1.0))], REFERENCE).tests[0].points == 40


def test_correctness_tests_never_go_on_the_curve() -> None:
    test = LabTest(name=TIMED.name, lab="lab3", kind="correctness")
    assert score_lab(POLICY, [(test, _passed(0.1))], REFERENCE).tests[0].points == 60


def test_lab_json_sets_the_curve(tmp_path: Path) -> None:
    repo = make_repo(
        tmp_path,
        {"lab3_reduction": {"score": {"timing": 40}, "credit": {"full_within": 1.1, "zero_at": 3}}},
    )
    assert load_policy("lab3", repo / "labs" / "lab3_reduction").credit == CreditCurve(1.1, 3.0)


@pytest.mark.parametrize(
    ("credit", "why"),
    [
        ({"full_within": 1.2}, "must be"),
        ({"full_within": "fast", "zero_at": 2}, "must be"),
        ({"full_within": 2, "zero_at": 1.5}, "1 <= full_within < zero_at"),
        ({"full_within": 0.5, "zero_at": 2}, "1 <= full_within < zero_at"),
    ],
)
def test_a_bad_curve_is_a_usage_error_naming_the_file(credit: object, why: str) -> None:
    with pytest.raises(GraderUsageError, match=why) as error:
        read_curve({"credit": credit}, "labs/lab3_reduction/lab.json")
    assert "labs/lab3_reduction/lab.json" in str(error.value)


def test_the_calibration_reads_each_passed_timing_tests_figure(tmp_path: Path) -> None:
    def row(name: str, status: str, figure: dict[str, object] | None) -> dict[str, object]:
        extra: dict[str, object] = {"kind": "timing", "duration_s": 1.5}
        if figure is not None:
            extra["figure"] = figure
        return {"name": f"{name} (timing)", "status": status, "extra_data": extra}

    doc = {
        "extra_data": {"gpu": {"name": "NVIDIA H100 80GB HBM3"}},
        "tests": [
            row(TIMED.name, "passed", {"name": "a / b", "value": 2.4, "needed": 1.5}),
            row(OTHER.name, "failed", {"name": "c / d", "value": 9.0, "needed": 2}),
            row("lab3.Timing.Old", "passed", None),  # a report from before figures were data
        ],
    }
    (tmp_path / "results.json").write_text(json.dumps(doc), encoding="utf-8")
    calibration = Calibration.read(tmp_path)
    assert calibration.figures == {TIMED.name: 2.4}


def _results(path: Path, rows: list[tuple[str, str]], gpu: str = "NVIDIA H100 80GB HBM3") -> Path:
    """A results.json as `grade --report` writes it: (name, status) of timing tests."""
    tests = [
        {
            "name": f"{name} (timing)",
            "status": status,
            "extra_data": {"lab": "lab3", "kind": "timing"},
        }
        for name, status in rows
    ]
    doc = {"tests": tests, "extra_data": {"gpu": {"name": gpu}}}
    path.mkdir(parents=True, exist_ok=True)
    (path / "results.json").write_text(json.dumps(doc), encoding="utf-8")
    return path


@pytest.mark.parametrize("content", ["", "{}", '{"tests": [], "extra_data": {"gpu": {}}}'])
def test_a_file_that_is_not_a_grading_is_a_usage_error(tmp_path: Path, content: str) -> None:
    (tmp_path / "results.json").write_text(content, encoding="utf-8")
    with pytest.raises(GraderUsageError, match="--calibration"):
        Calibration.read(tmp_path)


def test_a_missing_file_and_a_grading_with_no_pass_are_usage_errors(tmp_path: Path) -> None:
    with pytest.raises(GraderUsageError, match="not the results.json"):
        Calibration.read(tmp_path / "absent")
    failed = _results(tmp_path / "f", [("lab3.A.b", "failed")])
    with pytest.raises(GraderUsageError, match="no passed test"):
        Calibration.read(failed)


def test_another_gpu_model_is_refused(tmp_path: Path) -> None:
    calibration = Calibration.read(_results(tmp_path / "ref", [("lab3.A.b", "passed")]))
    calibration.check_gpu("NVIDIA H100 80GB HBM3")
    calibration.check_gpu(None)  # no GPU name known: nothing to compare
    with pytest.raises(GraderUsageError, match="measured on NVIDIA H100.*this GPU is Tesla T4"):
        calibration.check_gpu("Tesla T4")
