"""Correctness tests share the GPU; timed tests have it to themselves.

Tests ctest may run side by side (no RUN_SERIAL) run `jobs` at a time, all
before the first timed test, which then runs alone, as does every test after
it. A failure that another process could have caused (a timeout, the harness's
deadlock watchdog, running out of GPU memory) is run again alone before it
counts: a student's hung kernel must not fail the student's other tests.
"""

from __future__ import annotations

import os
from collections.abc import Iterable, Sequence
from concurrent.futures import ThreadPoolExecutor

from grader.errors import GraderUsageError
from grader.gpu import GpuInfo
from grader.model import LabTest, Outcome, Status
from grader.runner import Runner
from grader.verdict import WATCHDOG_EXIT

MAX_JOBS = 8
# A correctness test holds a CUDA context and at most ~1.5 GB of data.
GPU_GB_PER_JOB = 3.0
_CROWDING_WORDS = ("timed out", "out of memory", "cudaErrorMemoryAllocation")


def default_jobs(gpu: GpuInfo) -> int:
    """How many correctness tests share the GPU: bounded by CPUs and GPU memory."""
    jobs = min(MAX_JOBS, os.cpu_count() or 1)
    memory = gpu.details.get("memory_gb") if gpu.present else None
    if isinstance(memory, (int, float)) and memory > 0:
        jobs = min(jobs, int(memory // GPU_GB_PER_JOB))
    return max(1, jobs)


def check_jobs(jobs: int | None) -> int | None:
    """None (automatic) or a positive count; anything else is the caller's mistake."""
    if jobs is not None and jobs < 1:
        raise GraderUsageError(f"--jobs must be at least 1, got {jobs}")
    return jobs


def may_share_gpu(test: LabTest) -> bool:
    """Untimed tests only (see LabTest.is_timed)."""
    return not test.is_timed


def crowded_out(outcome: Outcome) -> bool:
    """A failure that a busy GPU could explain, so it is confirmed alone."""
    if outcome.status is not Status.FAILED:
        return False
    if outcome.returncode == WATCHDOG_EXIT:
        return True
    text = outcome.reason + "\n" + outcome.output
    return any(word in text for word in _CROWDING_WORDS)


class Scheduler:
    """Runs a planned list of tests: the shareable ones together first, then the rest alone."""

    def __init__(self, runner: Runner, jobs: int) -> None:
        self.runner = runner
        self.jobs = max(1, jobs)
        self.rerun_alone: list[str] = []  # tests whose crowded failure was re-run alone
        self._shared: dict[str, Outcome] = {}

    def run_all(self, tests: Sequence[LabTest]) -> dict[str, Outcome]:
        """Every test's outcome, by name, in the order given."""
        self.prepare(tests)
        return {test.name: self.run(test) for test in tests}

    def prepare(self, tests: Iterable[LabTest]) -> None:
        """Run the shareable tests among `tests` now, `jobs` at a time."""
        todo = [t for t in tests if may_share_gpu(t) and t.name not in self._shared]
        if not todo:
            return
        if self.jobs == 1:
            outcomes = [self.runner.run(t) for t in todo]
        else:
            with ThreadPoolExecutor(max_workers=self.jobs) as pool:
                outcomes = list(pool.map(self.runner.run, todo))
        for test, outcome in zip(todo, outcomes):
            if self.jobs > 1 and crowded_out(outcome):
                self.rerun_alone.append(test.name)
                outcome = self.runner.run(test)
            self._shared[test.name] = outcome

    @property
    def shared(self) -> dict[str, Outcome]:
        """The outcomes of the tests run side by side so far, by name."""
        return dict(self._shared)

    def run(self, test: LabTest) -> Outcome:
        """The outcome of `test`: from the shared phase when it ran there, else run alone now."""
        outcome = self._shared.get(test.name)
        return outcome if outcome is not None else self.runner.run(test)
