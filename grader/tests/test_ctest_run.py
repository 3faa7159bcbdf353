"""ctest runs a program's cases in few processes and every test gets the verdict it
gets run alone: the fake programs run several cases in one process (fake_gtest.py's
`by_name` mode), each behaving as its name says."""

from __future__ import annotations

import os
import sys
from pathlib import Path
from typing import Any

import pytest

from grader.core.ctest_run import (
    GROUP_TIMEOUT_CAP_S,
    Ran,
    Runs,
    Unit,
    case_output,
    check_jobs,
    default_jobs,
    groupable,
    plan,
    settled,
)
from grader.core.errors import GraderUsageError
from grader.core.gpu import GpuInfo
from grader.core.gtest_xml import GtestCase
from grader.core.launch import ProcessResult
from grader.core.model import LabTest, Status
from grader.core.provenance import Provenance
from grader.core.session import GradingSession
from grader.tests.helpers import (
    FAKE_GTEST,
    FAKE_SETUP,
    FakeSpec,
    fake_test,
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


def _grade(
    tmp_path: Path, alone: bool, probe: str
) -> tuple[dict[str, tuple[Status, str]], int, list[str], int]:
    """Every test's (status, reason), how many processes the grading started, the
    tests run again and the processes of the first pass: graded, or (`alone`) each
    test run by itself, one after the other."""
    root = tmp_path / ("alone" if alone else "grouped")
    build = make_build(root, _specs(root / "count"), probe=probe)
    repo = make_repo(root, GRADING)
    session = GradingSession.open(build, labs=["lab1"], repo=repo, jobs=3, sandbox="off")
    if alone:
        outcomes = {test.name: session.runs.run([test])[test.name] for test in session.tests}
    else:
        outcomes = session.run_all()
    assert (root / "count").read_text().count("ran") == 1  # the dataset setup, once
    verdicts = {name: (o.status, o.reason) for name, o in outcomes.items()}
    units = len(plan([t for t in session.tests if not t.is_timed], 3)) + 1  # + the timed
    return verdicts, session.runs.processes_started, session.runs.reruns, units


@needs_ctest
@pytest.mark.parametrize("probe", ["present", "absent"])
def test_groups_give_every_test_its_verdict_alone(tmp_path: Path, probe: str) -> None:
    per_test, alone, confirmed, _ = _grade(tmp_path, True, probe)
    per_program, shared, reruns, units = _grade(tmp_path, False, probe)
    assert per_program == per_test
    # Every way to end is there, and not everything passed by accident.
    statuses = {status for status, _ in per_test.values()}
    assert Status.PASSED in statuses and Status.FAILED in statuses
    if probe == "absent":
        assert per_test["lab1.skips.gtest_skip__1"][0] is Status.SKIPPED
    # Alone: the setup and every test.
    tests = sum(len(modes) for modes in PROGRAMS.values()) + len(TIMED)
    assert alone == 1 + tests + len(confirmed)  # and each crowded failure again alone
    # Together: the setup, three processes for the untimed cases (jobs=3) and one for
    # the timed ones; a failure GoogleTest reports in a sound process is settled
    # there. What a process did not settle runs again, each case alone: from the
    # first case that claims a skip, goes missing or names a CUDA error after the
    # first case, and every case of a process that cannot vouch for any (a crash, a
    # hang, an early exit, a forged marker, the watchdog); of the timed ones, all
    # from the first failure.
    assert shared == 1 + units + len(reruns)
    assert shared < alone
    again = {name.split(".")[1] for name in reruns}
    assert {"clean", "fails", "first_fails", "variants"}.isdisjoint(again)
    assert {"skips", "crashes", "hangs", "exits", "forges", "sticky", "watchdog"} <= again
    assert "lab1.timed.pass__0" not in reruns and "lab1.timed.pass__2" in reruns
    print(f"processes started ({probe}): alone {alone}, grouped {shared}")


def _test(name: str, program: str = "p", kind: str = "correctness", **fields: object) -> LabTest:
    command = ("prog", program, f"--gtest_filter={name}")
    return LabTest(name=f"lab1.{name}", lab="lab1", kind=kind, command=command, **fields)  # type: ignore[arg-type]


def test_only_exact_gtest_cases_are_grouped() -> None:
    assert groupable(_test("A.b"))
    assert groupable(_test("A.b", kind="timing"))  # with its program's other timed cases
    assert not groupable(_test("A.*"))
    assert not groupable(_test("A.b:A.c"))
    assert not groupable(_test("A.b", kind="sanitize"))
    assert not groupable(_test("A.b", fixtures_setup=("data",)))
    assert not groupable(LabTest(name="x", lab="lab1", kind="correctness", command=("prog",)))


def test_a_programs_timed_cases_share_one_process_and_never_an_untimed_ones() -> None:
    tests = [
        _test("T.a", kind="timing"),
        _test("C.a"),
        _test("T.b", kind="timing"),
        _test("T.c", program="q", kind="timing"),
        _test("T.*", kind="timing"),
        _test("R.a", kind="reference", run_serial=True),
        _test("R.b", kind="reference", run_serial=True),
    ]
    units = [[t.name for t in u.tests] for u in plan(tests, jobs=4)]
    assert units == [
        ["lab1.T.a", "lab1.T.b"],
        ["lab1.C.a"],
        ["lab1.T.c"],
        ["lab1.T.*"],
        ["lab1.R.a", "lab1.R.b"],
    ]


def test_processes_are_bounded_and_spread_over_the_jobs() -> None:
    tests = [_test(f"A.t{i}") for i in range(10)] + [_test("B.t", program="q")]
    tests.insert(3, _test("T.*", kind="timing"))
    units = plan(tests, jobs=1, max_cases=4)
    assert [len(u.tests) for u in units] == [4, 1, 3, 3, 1]  # the lone test in its place
    untimed = [t.name for t in tests if t.kind != "timing"]
    assert [t.name for u in units for t in u.tests] == untimed[:4] + ["lab1.T.*"] + untimed[4:]
    assert units[0].command.gtest_filter == "A.t0:A.t1:A.t2:A.t3"
    # Enough processes that `jobs` of them can run at once.
    assert len([u for u in plan(tests, jobs=4) if u.grouped]) == 4


def test_a_process_timeout_is_the_sum_of_its_tests_capped() -> None:
    def timeout(*seconds: float, scale: float = 1.0) -> float:
        tests = tuple(_test(f"A.t{i}", timeout=s) for i, s in enumerate(seconds))
        return Runs(gpu_present=True, timeout_scale=scale).timeout_s(Unit(tests[0], tests))

    assert timeout(10, 10, 10) == 30
    assert timeout(*[60] * 10) == GROUP_TIMEOUT_CAP_S
    assert timeout(600, 10) == 600  # never less than its longest test
    assert timeout(*[60] * 10, scale=2) == 2 * GROUP_TIMEOUT_CAP_S


def _case(name: str, failed: bool = False, why: str = "bin 3: expected 5, got 4") -> GtestCase:
    return GtestCase(name, ran=True, skipped=False, failures=(why,) if failed else ())


def _settled(
    tests: list[LabTest], result: ProcessResult, cases: list[GtestCase], marker: Provenance
) -> list[str]:
    return [t.name for t, _ in settled(Unit(tests[0], tuple(tests)), Ran(result, cases, marker))]


def test_a_sound_group_settles_its_failures_and_stops_at_a_broken_context() -> None:
    tests = [_test(f"A.t{i}") for i in range(4)]
    marker = Provenance("n", "n 1")
    cases = [_case("A.t1"), _case("A.t0", failed=True), _case("A.t2"), _case("A.t3")]
    kept = _settled(tests, ProcessResult(1), cases, marker)
    # Every case, in the report's order, not the filter's.
    assert kept == ["lab1.A.t1", "lab1.A.t0", "lab1.A.t2", "lab1.A.t3"]
    # Not vouched for (another result in the marker), or a CUDA error no case owns:
    # nothing is settled.
    assert _settled(tests, ProcessResult(0), [_case(f"A.t{i}") for i in range(4)], marker) == []
    sticky = ProcessResult(1, "cudaErrorIllegalAddress")
    assert _settled(tests, sticky, cases, marker) == []
    # A case that broke the context: what ran before it stands, it and the rest do not.
    in_failure = [
        _case("A.t1"),
        _case("A.t0", failed=True, why="cudaErrorIllegalAddress"),
        _case("A.t2"),
    ]
    assert _settled(tests, ProcessResult(1), in_failure, marker) == ["lab1.A.t1"]
    # A nonzero result that no failed case explains settles nothing either.
    assert _settled(tests, ProcessResult(1), [_case(f"A.t{i}") for i in range(4)], marker) == []


def test_a_timed_group_settles_only_the_passes_before_its_first_failure() -> None:
    tests = [_test(f"T.t{i}", kind="timing") for i in range(3)]
    marker = Provenance("n", "n 1")
    cases = [_case("T.t0"), _case("T.t1", failed=True), _case("T.t2")]
    assert _settled(tests, ProcessResult(1), cases, marker) == ["lab1.T.t0"]


def test_a_case_that_broke_the_context_first_is_settled_as_alone() -> None:
    tests = [_test(f"A.t{i}") for i in range(3)]
    marker = Provenance("n", "n 1")
    first = [_case("A.t0", failed=True, why="cudaErrorIllegalAddress"), _case("A.t1")]
    assert _settled(tests, ProcessResult(1), first, marker) == [
        "lab1.A.t0"  # nothing ran before it: as alone; what ran after it lost its context
    ]
    no_message = [GtestCase("A.t0", ran=False, skipped=False, failures=()), _case("A.t1")]
    assert _settled(tests, ProcessResult(1), no_message, marker) == []


def test_a_settled_case_keeps_its_own_output() -> None:
    output = "[ RUN      ] A.a\nmine\n[       OK ] A.a (1 ms)\n[ RUN      ] A.b\nnot mine\n"
    assert case_output(output, "A.a") == "[ RUN      ] A.a\nmine\n[       OK ] A.a"
    assert case_output(output, "A.c") == ""


def test_the_default_job_count_follows_gpu_memory(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr("os.cpu_count", lambda: 16)
    assert default_jobs(GpuInfo("present", {"memory_gb": 79.1})) == 8
    assert default_jobs(GpuInfo("present", {"memory_gb": 7.6})) == 2
    assert default_jobs(GpuInfo("present", {"memory_gb": 2.0})) == 1
    assert default_jobs(GpuInfo("absent")) == 8
    monkeypatch.setattr("os.cpu_count", lambda: 2)
    assert default_jobs(GpuInfo("present", {"memory_gb": 79.1})) == 2


def test_jobs_below_one_is_a_usage_error() -> None:
    assert check_jobs(None) is None
    assert check_jobs(3) == 3
    with pytest.raises(GraderUsageError, match="--jobs must be at least 1, got 0"):
        check_jobs(0)


def test_a_setup_needed_by_tests_running_together_runs_once(tmp_path: Path) -> None:
    count = tmp_path / "count"
    setup = LabTest(
        name="lab1.datasets",
        lab="lab1",
        kind="data",
        command=(sys.executable, str(FAKE_SETUP), "ok", str(count)),
        fixtures_setup=("lab1_data",),
    )
    runs = Runs(gpu_present=True, setups={"lab1_data": [setup]}, jobs=6)
    tests = [fake_test("pass", f"A.T{i}", fixtures_required=("lab1_data",)) for i in range(6)]
    assert all(o.status is Status.PASSED for o in runs.run(tests).values())
    assert all(o.status is Status.PASSED for o in runs.run(tests[:2]).values())
    assert count.read_text().count("ran") == 1


def test_untimed_tests_share_the_gpu_and_a_timed_one_has_it_to_itself(tmp_path: Path) -> None:
    """ctest's resources: an untimed test takes one of the GPU's `jobs` slots, a timed
    one all of them. Each test logs when it starts and ends."""
    log = tmp_path / "log"

    def test(name: str, kind: str) -> LabTest:
        stamp = f'echo "$(date +%s.%N) {{}} {name}" >> {log}'
        script = f"{stamp.format('start')}; sleep 0.4; {stamp.format('end')}"
        return LabTest(name=f"lab1.{name}", lab="lab1", kind=kind, command=("sh", "-c", script))

    tests = [test(f"u{i}", "correctness") for i in range(3)] + [test("t", "timing")]
    outcomes = Runs(gpu_present=True, jobs=4).run(tests)
    assert all(o.status is Status.PASSED for o in outcomes.values())
    events = sorted(
        (float(t), what, name)
        for t, what, name in (line.split() for line in log.read_text().splitlines())
    )
    running: set[str] = set()
    most = 0
    for _, what, name in events:
        running = running | {name} if what == "start" else running - {name}
        assert "t" not in running or running == {"t"}  # the timed test is alone
        most = max(most, len(running))
    assert most >= 2  # and the untimed ones ran side by side


def test_a_setup_that_exits_0_but_claims_a_skip_voids_its_tests() -> None:
    setup = LabTest(
        name="lab1.datasets",
        lab="lab1",
        kind="data",
        command=("sh", "-c", "echo 'cuda-labs: skipped: no CUDA device'"),
        fixtures_setup=("lab1_data",),
        skip_patterns=("cuda-labs: skipped",),
    )
    runs = Runs(gpu_present=True, setups={"lab1_data": [setup]})
    test = fake_test("pass", "A.T", fixtures_required=("lab1_data",))
    outcome = runs.run([test])[test.name]
    assert outcome.status is Status.FAILED
    assert outcome.reason.startswith("dataset setup failed: lab1.datasets: reported itself skipped")


def test_a_ctest_that_runs_nothing_is_one_line(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    fake = tmp_path / "ctest"
    fake.write_text("#!/bin/sh\necho 'CMake Error: Unknown argument --test-dir'\nexit 1\n")
    fake.chmod(0o755)
    monkeypatch.setenv("PATH", f"{tmp_path}{os.pathsep}{os.environ['PATH']}")
    with pytest.raises(GraderUsageError, match="ctest ran none of the tests .*Unknown argument"):
        Runs(gpu_present=True).run([fake_test("pass")])


def _stalls_once(tmp_path: Path, name: str, always: bool = False) -> LabTest:
    """A test that hits the kernel watchdog on its first run (every run: `always`),
    as one crowded off a busy GPU would, and passes after."""
    mark = tmp_path / name.replace("/", "_")
    stall = 'echo "cuda-labs: kernel timed out after 1 s: possible deadlock"; exit 124'
    script = stall if always else f'[ -e "{mark}" ] && exit 0; : > "{mark}"; {stall}'
    return LabTest(
        name=f"lab1.{name}", lab="lab1", kind="correctness", command=("sh", "-c", script)
    )


def test_a_crowded_failure_runs_again_alone_and_that_verdict_stands(tmp_path: Path) -> None:
    crowded = _stalls_once(tmp_path, "C/T.x/slow__a")
    runs = Runs(gpu_present=True, jobs=4)
    outcome = runs.run([crowded])[crowded.name]
    assert outcome.status is Status.PASSED and runs.reruns == [crowded.name]
    # One job and no batch's lock: nothing ran beside it, the first verdict stands.
    alone = Runs(gpu_present=True, jobs=1)
    crowded = _stalls_once(tmp_path, "C/T.x/slow__b")
    assert alone.run([crowded])[crowded.name].status is Status.FAILED and alone.reruns == []


def test_once_a_variant_hung_alone_its_other_cases_keep_their_verdict(tmp_path: Path) -> None:
    hung_cases = [_stalls_once(tmp_path, f"C/T.x/hung__{c}", always=True) for c in "abc"]
    runs = Runs(gpu_present=True, jobs=4)
    outcomes = runs.run(hung_cases)
    assert all(
        o.status is Status.FAILED and "possible deadlock" in o.reason for o in outcomes.values()
    )
    assert runs.reruns == ["lab1.C/T.x/hung__a"]  # its first case alone, the others not again
