"""Correctness tests share the GPU; timed tests have it to themselves.

Tests ctest may run side by side (no RUN_SERIAL) run `jobs` at a time, all
before the first timed test, which then runs alone, as does every test after
it. A failure that another process could have caused (a timeout, the harness's
deadlock watchdog, running out of GPU memory) is run again alone before it
counts: a student's hung kernel must not fail the student's other tests.

The shareable tests of one program run in groups, one process per group
(process_groups.py), and only a test the group cannot settle is run alone, as
above. A program's timed tests run in one process of
their own, with the GPU to itself, when the first of them is asked for.

Where a batch puts several workers on one GPU (gpu_slots.py), "alone" also means
alone on the GPU: every run here holds the GPU's lock (gpu_lock.py), shared when
it may have neighbours, exclusive when it must have none.

`ctest -j` with RUN_SERIAL orders the same way but cannot run a failure again
alone, nor hold a lock that other graders' processes on the GPU respect.
"""

from __future__ import annotations

import math
import os
import time
from collections.abc import Callable, Iterable, Sequence
from concurrent.futures import ThreadPoolExecutor
from contextlib import AbstractContextManager, nullcontext
from typing import TypeVar

from grader.core.errors import GraderUsageError
from grader.core.gpu import GpuInfo
from grader.core.gpu_lock import GpuLock
from grader.core.model import LabTest, Outcome, Status, variant_of
from grader.core.process_groups import GroupRun, plan, timed_groups
from grader.core.runner import Runner
from grader.core.verdict import hung

MAX_JOBS = 8
# A correctness test holds a CUDA context and at most ~1.5 GB of data.
GPU_GB_PER_JOB = 3.0
T = TypeVar("T")
R = TypeVar("R")
_MEMORY_WORDS = ("out of memory", "cudaErrorMemoryAllocation")


def default_jobs(gpu: GpuInfo) -> int:
    """How many correctness tests share the GPU: bounded by CPUs and GPU memory."""
    jobs = min(MAX_JOBS, os.cpu_count() or 1)
    memory = gpu.details.get("memory_gb") if gpu.present else None
    if isinstance(memory, (int, float)) and memory > 0:
        jobs = min(jobs, int(memory // GPU_GB_PER_JOB))
    return max(1, jobs)


def check_timeout_scale(scale: float) -> float:
    """A positive, finite factor; anything else (nan and inf too) is the caller's mistake."""
    if not 0 < scale < math.inf:
        raise GraderUsageError(f"--timeout-scale must be a positive finite number, got {scale:g}")
    return scale


def check_jobs(jobs: int | None) -> int | None:
    """None (automatic) or a positive count; anything else is the caller's mistake."""
    if jobs is not None and jobs < 1:
        raise GraderUsageError(f"--jobs must be at least 1, got {jobs}")
    return jobs


def _failing_variant(group: Sequence[LabTest], run: GroupRun) -> str | None:
    """The variant of `group`'s first test its process did not settle, or, where it
    settled none, of the test it never finished (None: it settled every test, or none
    and finished every case it started): the case that crashed, hung or broke the
    context is likely among its cases."""
    if not run.settled:
        return variant_of(run.unfinished) if run.unfinished is not None else None
    for test in group:
        if test.name not in run.settled:
            return variant_of(test.name)
    return None


def may_share_gpu(test: LabTest) -> bool:
    """Untimed tests only (see LabTest.is_timed)."""
    return not test.is_timed


def crowded_out(outcome: Outcome) -> bool:
    """A failure that a busy GPU could explain, so it is confirmed alone: a timeout
    (even one sized to the reference, watchdog.py: four GPUs' worth of graders on
    one host stretched correct lab1 cases past it, H100 x4) or running out of memory."""
    if outcome.status is not Status.FAILED:
        return False
    if hung(outcome):
        return True
    text = outcome.reason + "\n" + outcome.output
    return any(word in text for word in ("timed out", *_MEMORY_WORDS))


class Scheduler:
    """Runs a planned list of tests: the shareable ones together first, then the rest alone."""

    def __init__(
        self,
        runner: Runner,
        jobs: int,
        gpu_lock: GpuLock | None = None,
    ) -> None:
        self.runner = runner
        self.jobs = max(1, jobs)
        self.gpu_lock = gpu_lock  # None: this process is the GPU's only grader
        self.rerun_alone: list[str] = []  # tests whose crowded failure was re-run alone
        self.alone_wait_s = 0.0  # waiting for the GPU's lock to run alone (other workers)
        self.grouped = 0  # tests run in a group's shared process, once per process
        self.group_processes = 0
        self.group_reruns: list[str] = []  # tests a group did not settle, so run alone
        self._shared: dict[str, Outcome] = {}
        self._timed_group: dict[str, list[LabTest]] = {}  # a timed test's group, by name
        self._timed: dict[str, Outcome] = {}  # outcomes a timed group settled

    def run_all(self, tests: Sequence[LabTest]) -> dict[str, Outcome]:
        """Every test's outcome, by name, in the order given."""
        self.prepare(tests)
        return {test.name: self.run(test) for test in tests}

    def prepare(self, tests: Iterable[LabTest]) -> None:
        """Run the shareable tests among `tests` now, `jobs` at a time; note the
        timed ones' groups, which run when first asked for."""
        tests = list(tests)
        for group in timed_groups([t for t in tests if t.name not in self._timed_group]):
            self._timed_group.update((t.name, group) for t in group)
        todo = [t for t in tests if may_share_gpu(t) and t.name not in self._shared]
        if not todo:
            return
        ran = self.run_units(todo)
        outcomes = [ran[t.name] for t in todo]
        confirmed = self.confirm_alone(self.runner.run, todo, outcomes, self.rerun_alone)
        for test, outcome in zip(todo, confirmed):
            self._shared[test.name] = outcome

    def confirm_alone(
        self,
        run: Callable[[LabTest], Outcome],
        tests: Sequence[LabTest],
        outcomes: Sequence[Outcome],
        rerun: list[str] | None = None,
    ) -> list[Outcome]:
        """`outcomes` of `tests` run side by side, with each failure a busy GPU could
        explain (crowded_out) replaced by `run` again with the GPU to itself, one at a
        time, its name added to `rerun`; as they are where nothing ran beside them
        (another worker on this GPU, its lock, is a neighbour too). Once a variant hung
        alone, its other timeouts stand: a hung variant costs one more timeout, not one
        per case."""
        if self.jobs == 1 and self.gpu_lock is None:
            return list(outcomes)
        confirmed = []
        hung_alone: set[tuple[str, str]] = set()
        for test, outcome in zip(tests, outcomes):
            variant = (test.lab, variant_of(test.name))
            if crowded_out(outcome) and not (hung(outcome) and variant in hung_alone):
                outcome = self.alone(run, test)
                if rerun is not None:
                    rerun.append(test.name)
                if hung(outcome):
                    hung_alone.add(variant)
            confirmed.append(outcome)
        return confirmed

    def run_units(
        self, todo: Sequence[LabTest], runner: Runner | None = None
    ) -> dict[str, Outcome]:
        """Each test's outcome by `runner` (default: the scheduler's), by name: alone, or
        from a group's process. What a group did not settle runs again: the first
        unsettled case's variant alone (its other cases are likely to break too), the
        other tests as a group, round after round (of a group that settled nothing,
        the variant of the case it never finished); a group that settled nothing and
        left no case unfinished runs its tests alone."""
        runner = self.runner if runner is None else runner
        units = plan(todo, self.jobs)
        # Longest first, so that no long group starts last and runs alone at the end.
        groups = sorted(
            (unit for unit in units if len(unit) > 1), key=self._expected_s, reverse=True
        )
        in_group = {t.name for g in groups for t in g}
        ran: dict[str, Outcome] = {}
        while groups:
            again: list[list[LabTest]] = []
            for group, run in zip(groups, self.side_by_side(runner.run_group, groups)):
                ran.update(run.settled)
                rest = [t for t in group if t.name not in run.settled]
                failing = _failing_variant(group, run)
                if failing is not None:
                    others = [t for t in rest if variant_of(t.name) != failing]
                    if len(others) > 1:
                        again.append(others)
            self.grouped += sum(len(g) for g in groups)
            self.group_processes += len(groups)
            groups = again
        alone = [t for t in todo if t.name not in ran]
        self.group_reruns += [t.name for t in alone if t.name in in_group]
        ran.update(zip((t.name for t in alone), self.side_by_side(runner.run, alone)))
        return ran

    def _expected_s(self, tests: Sequence[LabTest]) -> float:
        """How long `tests` should take in one process: the calibration's time for
        them, else their count (a group's tests are one program's, of like cost)."""
        calibration = self.runner.calibration
        known = calibration.reference_s(tests) if calibration is not None else None
        return known if known is not None else float(len(tests))

    def side_by_side(self, work: Callable[[T], R], items: Sequence[T]) -> list[R]:
        """`work` over `items`, `jobs` at a time, results in order, each run holding
        the GPU's lock shared."""

        def shared(item: T) -> R:
            with self._held(exclusive=False):
                return work(item)

        if self.jobs == 1 or len(items) < 2:
            return [shared(item) for item in items]
        with ThreadPoolExecutor(max_workers=self.jobs) as pool:
            return list(pool.map(shared, items))

    def alone(self, work: Callable[[T], R], item: T) -> R:
        """`work(item)` with the GPU to itself: this worker runs nothing beside it, and
        the GPU's lock keeps every other worker's runs off the GPU meanwhile (the wait
        for it adds to `alone_wait_s`)."""
        asked = time.monotonic()
        with self._held(exclusive=True):
            self.alone_wait_s += time.monotonic() - asked
            return work(item)

    def _held(self, *, exclusive: bool) -> AbstractContextManager[None]:
        if self.gpu_lock is None:
            return nullcontext()
        return self.gpu_lock.exclusive() if exclusive else self.gpu_lock.shared()

    @property
    def shared(self) -> dict[str, Outcome]:
        """The outcomes of the tests run side by side so far, by name."""
        return dict(self._shared)

    def run(self, test: LabTest) -> Outcome:
        """The outcome of `test`: from the shared phase when it ran there, else from
        its timed group, else run alone now."""
        outcome = self._shared.get(test.name)
        if outcome is not None:
            return outcome
        group = self._timed_group.pop(test.name, None)
        if group is not None:
            for other in group:
                self._timed_group.pop(other.name, None)
            settled = self.alone(self.runner.run_group, group).settled
            self._timed.update(settled)
            self.grouped += len(group)
            self.group_processes += 1
            self.group_reruns += [t.name for t in group if t.name not in settled]
        outcome = self._timed.pop(test.name, None)
        return outcome if outcome is not None else self.alone(self.runner.run, test)
