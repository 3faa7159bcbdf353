"""Points from lab.json groups, split evenly; every lost point keeps its reason."""

from __future__ import annotations

import re
import sys
from collections.abc import Sequence
from pathlib import Path

import pytest

from grader.core.ctest_run import Runs
from grader.core.discovery import lab_dirs
from grader.core.errors import GraderUsageError
from grader.core.gpu import GpuInfo
from grader.core.model import LabTest, Outcome, Status
from grader.core.scoring import (
    NOT_COMPUTED,
    LabPolicy,
    ScoredTest,
    load_policy,
    number,
    score_lab,
)
from grader.core.session import GradingSession
from grader.tests.helpers import FAKE_SETUP, fake_test, histogram_lab, make_repo


def _test(name: str, kind: str, lab: str = "lab1") -> LabTest:
    return LabTest(name=f"{lab}.{name}", lab=lab, kind=kind)


PASS = Outcome(Status.PASSED)


def test_each_group_of_lab_json_is_split_evenly_among_its_tests(tmp_path: Path) -> None:
    repo = make_repo(tmp_path, histogram_lab(correctness=2, timing=8))
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
        ('{"score": {"correctness": 1}, "timing_needs": "Correctness/"}', "timing_needs"),
        ('{"score": {"correctness": 1}, "timing_needs": {"tests": "("}}', "timing_needs"),
    ],
)
def test_an_invalid_lab_json_is_a_usage_error(tmp_path: Path, text: str, why: str) -> None:
    repo = make_repo(tmp_path, {"lab1_histogram": None})
    (repo / "labs" / "lab1_histogram" / "lab.json").write_text(text)
    with pytest.raises(GraderUsageError, match=why):
        load_policy("lab1", repo / "labs" / "lab1_histogram")


REPO = Path(__file__).resolve().parents[2]
HISTOGRAM = re.compile(r"Correctness/Histogram\.")
WRONG = Outcome(Status.FAILED, "bin 3: expected 1, got 0")


def _case(variant: str, case: str, outcome: Outcome = PASS) -> tuple[LabTest, Outcome]:
    return _test(f"Correctness/Histogram.M/{variant}__{case}", "correctness"), outcome


def _lost(tests: Sequence[ScoredTest]) -> dict[str, str]:
    """Each test that earned nothing (its case, or its name): its reason's first line."""
    return {
        t.test.name.rsplit("/", 1)[-1]: t.outcome.reason.splitlines()[0]
        for t in tests
        if t.points == 0
    }


def test_a_timing_test_stands_only_while_the_variants_it_may_time_are_right() -> None:
    policy = LabPolicy("lab1", "", {"correctness": 2, "timing": 2}, timing_needs=HISTOGRAM)
    timing = (_test("Timing.Fastest", "timing"), PASS)
    atomics = _test("Correctness/Atomics.M/n1", "correctness")
    # A failed test timing_needs does not name (an untimed exercise) costs the timing nothing.
    assert score_lab(policy, [_case("best", "prime"), (atomics, WRONG), timing]).score == 3
    lab = score_lab(policy, [_case("best", "prime", WRONG), (atomics, PASS), timing])
    assert lab.score == 1 and lab.count(Status.PASSED) == 1
    assert _lost(lab.tests) == {
        "best__prime": "bin 3: expected 1, got 0",
        "lab1.Timing.Fastest": "not counted: lab1.Correctness/Histogram.M/best__prime failed, "
        "one of the correctness tests this lab's timing tests need (lab.json timing_needs): "
        "the time of a wrong answer measures nothing",
    }


def test_a_variant_right_on_public_data_only_scores_nothing_and_is_flagged() -> None:
    policy = LabPolicy("lab1", "", {"correctness": 5, "timing": 2}, timing_needs=HISTOGRAM)
    results = [
        _case("best", "uniform", WRONG),
        _case("best", "prime"),
        _case("shared", "uniform", WRONG),
        _case("shared", "prime"),
        (_test("Correctness/Atomics.M/n1", "correctness"), PASS),
        (_test("Timing.Fastest", "timing"), PASS),
    ]
    # The session ran the failed cases again on the public data: best's passed, shared's not.
    public = {"lab1.Correctness/Histogram.M/best__uniform": PASS}
    lab = score_lab(policy, results, public=public)
    flag = (
        f"{NOT_COMPUTED} (variant best: 1 case(s) failed on the hidden data and passed on "
        "the public data of the same sizes, e.g. lab1.Correctness/Histogram.M/best__uniform)"
    )
    assert _lost(lab.tests) == {
        "best__uniform": flag,
        "best__prime": flag,
        "shared__uniform": "bin 3: expected 1, got 0",
        "lab1.Timing.Fastest": flag,
    }
    assert lab.score == 2  # shared__prime and the atomics
    assert lab.tests[0].outcome.reason == f"{flag}\nbin 3: expected 1, got 0"
    assert all(t.outcome.status is Status.FAILED for t in lab.tests if t.points == 0)
    # On public data only (no rerun), nothing is flagged.
    assert NOT_COMPUTED not in str(_lost(score_lab(policy, results).tests))


ILP = ("ilp__uniform", "ilp__prime", "ilp__one")


def test_the_session_runs_a_failed_variant_again_on_the_public_data(tmp_path: Path) -> None:
    setup = LabTest(
        name="lab1.datasets",
        lab="lab1",
        kind="data",
        command=(sys.executable, str(FAKE_SETUP), "ok", str(tmp_path / "ran"))
        + ("datasets.generate", "--out", str(tmp_path / "data")),  # read by the runner only
        fixtures_setup=("lab1_data",),
    )

    def case(mode: str, name: str) -> LabTest:
        return fake_test(mode, f"Correctness/Histogram.M/{name}", fixtures_required=("lab1_data",))

    tests = [
        case("public_only", "best__uniform"),
        case("pass", "best__prime"),
        case("fail", "shared__uniform"),
        case("pass", "shared__prime"),
        # Both baked: the first runs alone on the public data, then the rest.
        case("public_only", "banks__uniform"),
        case("public_only", "banks__prime"),
        # Its first failure fails on the public data too: the second does not run there.
        case("fail", "inverse__uniform"),
        case("public_only", "inverse__prime"),
        # Baked too, but its process crashes when it runs several cases on the public
        # data: what that group did not settle runs alone, and the flag still comes.
        case("public_only_crashing_grouped", "ilp__uniform"),
        case("public_only_crashing_grouped", "ilp__prime"),
        case("public_only_crashing_grouped", "ilp__one"),
        fake_test("pass", "Timing.Fastest", kind="timing"),
    ]
    policy = LabPolicy("lab1", "", {"correctness": 4, "timing": 2}, timing_needs=HISTOGRAM)
    session = GradingSession(
        tests=tests,
        policies={"lab1": policy},
        gpu=GpuInfo("present", {"name": "H100"}),
        runs=Runs(gpu_present=True, setups={"lab1_data": [setup]}, secret="s"),
        hidden_data=True,
    )
    session.run_all()
    assert set(session.public) == {
        f"lab1.Correctness/Histogram.M/{name}"
        for name in ("best__uniform", "banks__uniform", "banks__prime", *ILP)
    }
    lab = session.grade().labs[0]
    lost = _lost(lab.tests)
    assert set(lost) == {
        "best__uniform",
        "best__prime",
        "shared__uniform",
        "banks__uniform",
        "banks__prime",
        "inverse__uniform",
        "inverse__prime",
        *ILP,
        "lab1.Timing.Fastest",
    }
    assert [n for n, why in lost.items() if why.startswith(NOT_COMPUTED)] == [
        "best__uniform",
        "best__prime",
        "banks__uniform",
        "banks__prime",
        *ILP,
    ]
    # A needed correctness test failed: the timing test did not take the GPU at all.
    assert lost["lab1.Timing.Fastest"].startswith("not run: lab1.Correctness/Histogram.M/")
    assert lab.score == pytest.approx(4 / 11)  # shared__prime: 4 points over 11 tests


def test_every_lab_names_the_correctness_tests_its_timing_tests_need() -> None:
    for lab, folder in lab_dirs(REPO).items():
        assert load_policy(lab, folder).timing_needs is not None, lab
    needs = load_policy("lab1", lab_dirs(REPO)["lab1"]).timing_needs
    assert needs is not None
    assert needs.search("lab1.Correctness/Histogram.MatchesTheCpuHistogramExactly/best__single")
    assert not needs.search("lab1.Correctness/Atomics.CasBuiltMultiplyMatchesTheCpuExactly/n1")
