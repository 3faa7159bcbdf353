"""Process groups give every test the verdict it gets run alone, in fewer processes:
the fake programs run several cases in one process (fake_gtest.py's `by_name`
mode), each behaving as its name says."""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Any

import pytest

from grader.core.gtest_xml import GtestCase
from grader.core.model import LabTest, Status
from grader.core.process_groups import (
    GROUP_TIMEOUT_CAP_S,
    case_output,
    group_timeout,
    groupable,
    plan,
    settled,
    timed_groups,
    unfinished,
)
from grader.core.provenance import Provenance
from grader.core.session import GradingSession
from grader.core.verdict import ProcessResult
from grader.tests.helpers import (
    FAKE_GTEST,
    FakeSpec,
    make_build,
    make_repo,
    needs_ctest,
    setup_spec,
)

# Each program's cases, in the order it runs them: one of each way a case can end
# inside a shared process, among passing neighbours before and after it. The
# variants' cases are parametrized (`variants.P/fail__1`): their variant is the mode.
PROGRAMS = {
    "clean": ["pass"] * 12,
    "fails": ["pass", "fail", "pass", "pass"],
    "first_fails": ["fail", "pass", "pass"],
    "variants": ["pass", "fail", "fail", "pass", "pass"],
    "skips": ["pass", "gtest_skip", "pass"],
    "crashes": ["pass", "segv", "pass", "pass"],
    "hangs": ["pass", "hang", "pass"],
    "blames": ["pass", "pass", "blaming_hang", "pass"],
    "exits": ["pass", "exit0_no_xml", "pass"],
    "forges": ["pass", "wrong_nonce", "pass"],
    "sticky": ["pass", "cuda_exception", "pass"],
    "unreported": ["pass", "wrong_test_xml", "pass"],
    "watchdog": ["pass", "watchdog", "pass"],
}
TIMED = ["pass", "fail", "pass", "pass"]
TIMEOUT_S = 1.5  # each test's; a hang costs this alone, the group's sum together
GRADING: dict[str, dict[str, Any] | None] = {
    "lab1_histogram": {"score": {"correctness": 1, "timing": 4}}
}


def _spec(program: str, name: str, kind: str = "correctness") -> FakeSpec:
    command = (sys.executable, str(FAKE_GTEST), "by_name", f"prog={program}")
    return FakeSpec(
        f"lab1.{name}",
        ("lab1", f"lab1.{kind}"),
        (*command, f"--gtest_filter={name}"),
        TIMEOUT_S,
        fixtures_required="lab1_data",
    )


def _specs(count_file: Path) -> list[FakeSpec]:
    specs = [setup_spec("lab1", "ok", count_file)]
    for program, modes in PROGRAMS.items():
        suite = f"{program}.P/" if program == "variants" else f"{program}."
        specs += [_spec(program, f"{suite}{mode}__{i}") for i, mode in enumerate(modes)]
    # Timed tests keep the GPU to themselves (grouped: in one process of their own).
    specs += [_spec("timed", f"timed.{mode}__{i}", kind="timing") for i, mode in enumerate(TIMED)]
    return specs


def _grade(tmp_path: Path, alone: bool, probe: str) -> tuple[dict[str, tuple[Status, str]], int]:
    """Every test's (status, reason) and how many processes the grading started:
    graded, or (`alone`) each test run by itself, one after the other."""
    root = tmp_path / ("alone" if alone else "grouped")
    build = make_build(root, _specs(root / "count"), probe=probe)
    repo = make_repo(root, GRADING)
    session = GradingSession.open(build, labs=["lab1"], repo=repo, jobs=3, sandbox="off")
    if alone:
        outcomes = {test.name: session.runner.run(test) for test in session.tests}
    else:
        outcomes = session.run_all()
    assert (root / "count").read_text().count("ran") == 1  # the dataset setup, once
    verdicts = {name: (o.status, o.reason) for name, o in outcomes.items()}
    return verdicts, session.runner.processes_started


@needs_ctest
@pytest.mark.parametrize("probe", ["present", "absent"])
def test_groups_give_every_test_its_verdict_alone(tmp_path: Path, probe: str) -> None:
    per_test, alone = _grade(tmp_path, True, probe)
    per_program, shared = _grade(tmp_path, False, probe)
    assert per_program == per_test
    # Every way to end is there, and not everything passed by accident.
    statuses = {status for status, _ in per_test.values()}
    assert Status.PASSED in statuses and Status.FAILED in statuses
    if probe == "absent":
        assert per_test["lab1.skips.gtest_skip__1"][0] is Status.SKIPPED
    # Alone: the setup and every test.
    tests = sum(len(modes) for modes in PROGRAMS.values()) + len(TIMED)
    assert alone == 1 + tests
    # Grouped: the setup, one process per program and one for the timed tests. A
    # failure GoogleTest reports in a sound process is settled there. What a group
    # did not settle (a skip, a missing case, a CUDA error after the first case) runs
    # again: the first unsettled case's variant alone and the other cases as a group
    # again (one process, or alone when only one is left); where its process cannot
    # vouch for any case (a crash, hang, early exit, forged marker, watchdog), the
    # case it never finished alone and the others as a group again; a hang that
    # names another case costs a round per lie, and its verdicts are still its own;
    # then the crowded failures (watchdog, hangs) confirmed alone.
    after_first = {"skips": 2, "unreported": 2, "sticky": 2}
    unvouched = ("crashes", "hangs", "exits", "forges", "watchdog")
    blames = 2 + len(PROGRAMS["blames"])  # groups of 3 and 2, then each case alone
    reruns = sum(after_first.values()) + 2 * len(unvouched) + blames
    timed_reruns = len(TIMED) - TIMED.index("fail")
    assert shared == 1 + len(PROGRAMS) + 1 + reruns + timed_reruns + 3
    assert shared < alone
    print(f"processes started ({probe}): alone {alone}, grouped {shared}")


def _test(name: str, program: str = "p", kind: str = "correctness", **fields: object) -> LabTest:
    command = ("prog", program, f"--gtest_filter={name}")
    return LabTest(name=f"lab1.{name}", lab="lab1", kind=kind, command=command, **fields)  # type: ignore[arg-type]


def test_only_untimed_exact_gtest_cases_are_grouped() -> None:
    assert groupable(_test("A.b"))
    assert not groupable(_test("A.b", kind="timing"))
    assert not groupable(_test("A.b", run_serial=True))
    assert not groupable(_test("A.*"))
    assert not groupable(_test("A.b:A.c"))
    assert not groupable(_test("A.b", kind="sanitize"))
    assert not groupable(_test("A.b", fixtures_setup=("data",)))
    assert not groupable(LabTest(name="x", lab="lab1", kind="correctness", command=("prog",)))


def test_a_programs_timed_tests_form_one_group_and_a_lone_one_none() -> None:
    tests = [
        _test("T.a", kind="timing"),
        _test("C.a"),
        _test("T.b", kind="timing"),
        _test("T.c", program="q", kind="timing"),
        _test("T.*", kind="timing"),
        _test("R.a", kind="reference", run_serial=True),
        _test("R.b", kind="reference", run_serial=True),
    ]
    groups = timed_groups(tests)
    assert [[t.name for t in g] for g in groups] == [
        ["lab1.T.a", "lab1.T.b"],
        ["lab1.R.a", "lab1.R.b"],
    ]


def test_groups_are_bounded_and_spread_over_the_jobs() -> None:
    tests = [_test(f"A.t{i}") for i in range(10)] + [_test("B.t", program="q")]
    tests.insert(3, _test("T.t", kind="timing"))
    units = plan(tests, jobs=1, max_size=4)
    assert [len(u) for u in units] == [4, 1, 3, 3, 1]  # the timed test alone, in its place
    assert [t.name for u in units for t in u] == [t.name for t in tests if t.kind != "timing"][
        :4
    ] + ["lab1.T.t"] + [t.name for t in tests if t.kind != "timing"][4:]
    # Enough groups that `jobs` of them can run at once.
    assert len([u for u in plan(tests, jobs=4) if len(u) > 1]) == 4


def test_a_group_timeout_is_the_sum_of_its_tests_capped() -> None:
    assert group_timeout([10, 10, 10]) == 30
    assert group_timeout([60] * 10) == GROUP_TIMEOUT_CAP_S
    assert group_timeout([600, 10]) == 600  # never less than its longest test
    assert group_timeout([60] * 10, scale=2) == 2 * GROUP_TIMEOUT_CAP_S


def _case(name: str, failed: bool = False, why: str = "bin 3: expected 5, got 4") -> GtestCase:
    return GtestCase(name, ran=True, skipped=False, failures=(why,) if failed else ())


def test_a_sound_group_settles_its_failures_and_stops_at_a_broken_context() -> None:
    tests = [_test(f"A.t{i}") for i in range(4)]
    marker = Provenance("n", "n 1")
    cases = [_case("A.t1"), _case("A.t0", failed=True), _case("A.t2"), _case("A.t3")]
    kept = settled(tests, ProcessResult(1), cases, marker)
    # Every case, in the report's order, not the filter's.
    assert [t.name for t, _ in kept] == ["lab1.A.t1", "lab1.A.t0", "lab1.A.t2", "lab1.A.t3"]
    # Not vouched for (another result in the marker), or a CUDA error no case owns:
    # nothing is settled.
    assert settled(tests, ProcessResult(0), [_case(f"A.t{i}") for i in range(4)], marker) == []
    sticky = ProcessResult(1, "cudaErrorIllegalAddress")
    assert settled(tests, sticky, cases, marker) == []
    # A case that broke the context: what ran before it stands, it and the rest do not.
    in_failure = [
        _case("A.t1"),
        _case("A.t0", failed=True, why="cudaErrorIllegalAddress"),
        _case("A.t2"),
    ]
    assert [t.name for t, _ in settled(tests, ProcessResult(1), in_failure, marker)] == [
        "lab1.A.t1"
    ]
    # A nonzero result that no failed case explains settles nothing either.
    assert settled(tests, ProcessResult(1), [_case(f"A.t{i}") for i in range(4)], marker) == []


def test_a_timed_group_settles_only_the_passes_before_its_first_failure() -> None:
    tests = [_test(f"T.t{i}", kind="timing") for i in range(3)]
    marker = Provenance("n", "n 1")
    cases = [_case("T.t0"), _case("T.t1", failed=True), _case("T.t2")]
    assert [t.name for t, _ in settled(tests, ProcessResult(1), cases, marker)] == ["lab1.T.t0"]


def test_a_case_that_broke_the_context_first_is_settled_as_alone() -> None:
    tests = [_test(f"A.t{i}") for i in range(3)]
    marker = Provenance("n", "n 1")
    first = [_case("A.t0", failed=True, why="cudaErrorIllegalAddress"), _case("A.t1")]
    assert [t.name for t, _ in settled(tests, ProcessResult(1), first, marker)] == [
        "lab1.A.t0"  # nothing ran before it: as alone; what ran after it lost its context
    ]
    no_message = [GtestCase("A.t0", ran=False, skipped=False, failures=()), _case("A.t1")]
    assert settled(tests, ProcessResult(1), no_message, marker) == []


def test_a_settled_case_keeps_its_own_output() -> None:
    output = "[ RUN      ] A.a\nmine\n[       OK ] A.a (1 ms)\n[ RUN      ] A.b\nnot mine\n"
    assert case_output(output, "A.a") == "[ RUN      ] A.a\nmine\n[       OK ] A.a"
    assert case_output(output, "A.c") == ""


def test_the_case_a_process_never_finished_is_its_last_run_line_without_an_end() -> None:
    tests = [_test("S.a"), _test("S.b"), _test("S.c")]
    ran = "[==========] 3 tests\n[ RUN      ] S.a\n[       OK ] S.a (1 ms)\n[ RUN      ] S.b\n"
    assert unfinished(ran + "cuda-labs: timed out", tests) == "lab1.S.b"
    assert unfinished(ran + "[  SKIPPED ] S.b\n", tests) is None  # it ended
    assert unfinished(ran.replace("S.b", "S.x"), tests) is None  # not one of the group's
    assert unfinished("[==========] 3 tests\n", tests) is None
