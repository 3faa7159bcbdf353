"""Untimed tests share the GPU, timed tests run alone, crowded failures are confirmed alone."""

from __future__ import annotations

import sys
import threading
import time
from dataclasses import dataclass
from pathlib import Path

import pytest

from grader.core.errors import GraderUsageError
from grader.core.gpu import GpuInfo
from grader.core.model import LabTest, Outcome, Status
from grader.core.process_groups import GroupRun
from grader.core.runner import Runner
from grader.core.schedule import Scheduler, check_jobs, crowded_out, default_jobs, may_share_gpu
from grader.tests.helpers import FAKE_SETUP, fake_test


class RecordingRunner:
    """Stands in for Runner: records how many tests ran at once and in which order."""

    def __init__(
        self, results: dict[str, list[Outcome]] | None = None, calibration: object = None
    ) -> None:
        self.results = results or {}
        self.calibration = calibration
        self.lock = threading.Lock()
        self.running = 0
        self.most_at_once = 0
        self.log: list[tuple[str, int]] = []  # (test, how many ran beside it, itself included)

    def run(self, test: LabTest) -> Outcome:
        with self.lock:
            self.running += 1
            self.most_at_once = max(self.most_at_once, self.running)
            self.log.append((test.name, self.running))
            queue = self.results.get(test.name)
            outcome = queue.pop(0) if queue else Outcome(Status.PASSED)
        time.sleep(0.05)
        with self.lock:
            self.running -= 1
        return outcome

    def run_group(self, tests: list[LabTest]) -> GroupRun:
        """Tests with exact GoogleTest names share a process: here, each runs alone."""
        return GroupRun({test.name: self.run(test) for test in tests})


def _test(name: str, kind: str = "correctness", serial: bool = False) -> LabTest:
    return LabTest(name=name, lab="lab1", kind=kind, run_serial=serial)


def test_untimed_tests_run_side_by_side_and_timed_tests_alone_after_them() -> None:
    runner = RecordingRunner()
    tests = [_test(f"c{i}") for i in range(4)] + [_test("t0", "timing", serial=True)]
    tests += [_test(f"c{i}") for i in range(4, 8)] + [_test("r0", "reference", serial=True)]
    outcomes = Scheduler(runner, jobs=4).run_all(tests)  # type: ignore[arg-type]
    assert list(outcomes) == [t.name for t in tests]
    assert all(o.status is Status.PASSED for o in outcomes.values())
    assert runner.most_at_once == 4
    order = [name for name, _ in runner.log]
    assert order[-2:] == ["t0", "r0"]  # after every untimed test, even those listed later
    assert all(at_once == 1 for name, at_once in runner.log if name in ("t0", "r0"))


def test_a_timed_test_without_run_serial_still_runs_alone() -> None:
    assert not may_share_gpu(_test("t", "timing"))
    assert not may_share_gpu(_test("r", "reference"))
    assert not may_share_gpu(_test("c", "correctness", serial=True))
    assert may_share_gpu(_test("c"))


def test_one_job_runs_everything_one_at_a_time() -> None:
    runner = RecordingRunner()
    Scheduler(runner, jobs=1).run_all([_test(f"c{i}") for i in range(5)])  # type: ignore[arg-type]
    assert runner.most_at_once == 1


def test_a_crowded_failure_is_run_again_alone_and_the_second_verdict_stands() -> None:
    timed_out = Outcome(Status.FAILED, "timed out after 60 s: possible deadlock")
    watchdog = Outcome(Status.FAILED, "exited with status 124", returncode=124)
    wrong = Outcome(Status.FAILED, "bin 3: expected 5, got 4", returncode=1)
    runner = RecordingRunner(
        {
            "slow": [timed_out, Outcome(Status.PASSED)],
            "hung": [watchdog, watchdog],
            "wrong": [wrong, Outcome(Status.PASSED)],
        }
    )
    scheduler = Scheduler(runner, jobs=3)  # type: ignore[arg-type]
    tests = [_test("slow"), _test("hung"), _test("wrong"), _test("fine")]
    outcomes = scheduler.run_all(tests)
    assert outcomes["slow"].status is Status.PASSED
    assert outcomes["hung"].returncode == 124
    assert outcomes["wrong"] is wrong  # a wrong answer is not the neighbours' doing
    assert scheduler.rerun_alone == ["slow", "hung"]
    reruns = [at_once for name, at_once in runner.log[len(tests) :]]
    assert reruns == [1, 1]


@pytest.mark.parametrize(
    "outcome, crowded",
    [
        (
            Outcome(Status.FAILED, "x", "cudaErrorMemoryAllocation: out of memory", returncode=3),
            True,
        ),
        (Outcome(Status.FAILED, "timed out after 10 s"), True),
        (Outcome(Status.FAILED, "bins differ", returncode=1), False),
        (Outcome(Status.PASSED, "", "timed out"), False),
    ],
)
def test_which_failures_a_busy_gpu_could_explain(outcome: Outcome, crowded: bool) -> None:
    assert crowded_out(outcome) is crowded


def test_a_sized_timeout_is_confirmed_alone_once_per_variant() -> None:
    """On an H100 x4 host, correct lab1 cases of honest students ran past timeouts
    sized to the reference: a timeout beside others is run again alone, and once a
    variant hung alone its other timeouts stand."""

    def timeout() -> Outcome:
        return Outcome(Status.FAILED, "timed out after 1.5 s: possible deadlock", returncode=124)

    results = {
        "C/T.x/slow__a": [timeout()],
        "C/T.x/hung__a": [timeout(), timeout()],
        "C/T.x/hung__b": [timeout()],
        "C/T.x/hung__c": [Outcome(Status.FAILED, "bins differ", returncode=1)],
    }
    runner = RecordingRunner(results, calibration=object())
    tests = [_test(name) for name in results]
    outcomes = Scheduler(runner, jobs=3).run_all(tests)  # type: ignore[arg-type]
    assert outcomes["C/T.x/slow__a"].status is Status.PASSED  # crowded out: alone it passes
    assert outcomes["C/T.x/hung__a"].returncode == 124  # hung alone too
    assert outcomes["C/T.x/hung__b"].returncode == 124  # its variant hung alone: it stands
    assert outcomes["C/T.x/hung__c"].reason == "bins differ"
    assert runner.log[len(tests) :] == [("C/T.x/slow__a", 1), ("C/T.x/hung__a", 1)]


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
    runner = Runner(gpu_present=True, setups={"lab1_data": [setup]})
    tests = [fake_test("pass", f"A.T{i}", fixtures_required=("lab1_data",)) for i in range(6)]
    outcomes = Scheduler(runner, jobs=6).run_all(tests)
    assert all(o.status is Status.PASSED for o in outcomes.values())
    assert count.read_text().count("ran") == 1


class GroupRecordingRunner(RecordingRunner):
    """Also runs groups (mode per-program): records each group's tests, in start order."""

    def __init__(self, calibration: object = None) -> None:
        super().__init__(calibration=calibration)
        self.groups: list[list[str]] = []

    def run_group(self, tests: list[LabTest]) -> GroupRun:
        with self.lock:
            self.groups.append([t.name for t in tests])
        return GroupRun({t.name: Outcome(Status.PASSED) for t in tests})


def _gtest(name: str, program: str, kind: str = "correctness") -> LabTest:
    command = ("prog", program, f"--gtest_filter={name}")
    return LabTest(name=f"lab1.{name}", lab="lab1", kind=kind, command=command)


@dataclass(frozen=True)
class _Seconds:
    seconds: dict[str, float]

    def reference_s(self, tests: list[LabTest]) -> float | None:
        times = [self.seconds.get(t.name) for t in tests]
        return None if None in times else sum(t for t in times if t is not None)


def test_the_longest_groups_start_first_by_the_calibration_else_by_size() -> None:
    small = [_gtest(f"S.c{i}", "small") for i in range(2)]
    big = [_gtest(f"B.c{i}", "big") for i in range(3)]
    slow = [_gtest(f"L.c{i}", "slow") for i in range(2)]
    tests = small + big + slow
    runner = GroupRecordingRunner()
    Scheduler(runner, jobs=1).run_all(tests)  # type: ignore[arg-type]
    assert [g[0] for g in runner.groups] == ["lab1.B.c0", "lab1.S.c0", "lab1.L.c0"]
    seconds = {t.name: 1.0 for t in tests} | {t.name: 9.0 for t in slow}
    runner = GroupRecordingRunner(calibration=_Seconds(seconds))
    Scheduler(runner, jobs=1).run_all(tests)  # type: ignore[arg-type]
    assert [g[0] for g in runner.groups] == ["lab1.L.c0", "lab1.B.c0", "lab1.S.c0"]


def test_a_programs_timed_tests_share_one_process_after_the_untimed_ones() -> None:
    timed = [_gtest(f"T.t{i}", "p", kind="timing") for i in range(3)]
    untimed = [_gtest(f"C.c{i}", "p") for i in range(2)]
    lone = _gtest("U.t0", "q", kind="timing")
    runner = GroupRecordingRunner()
    tests = [timed[0], *untimed, timed[1], lone, timed[2]]
    outcomes = Scheduler(runner, jobs=1).run_all(tests)  # type: ignore[arg-type]
    assert all(o.status is Status.PASSED for o in outcomes.values())
    assert runner.groups == [[t.name for t in untimed], [t.name for t in timed]]
    assert [name for name, _ in runner.log] == [lone.name]  # a lone timed test runs alone
