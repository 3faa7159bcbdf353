"""The per-GPU lock of workers sharing a GPU: real flock on files in tmp_path, held by
another process, every wait bounded so that a broken lock fails instead of hanging.
And the scheduler's use of it: untimed runs shared, runs that must be alone exclusive."""

from __future__ import annotations

import select
import subprocess
import sys
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import replace
from pathlib import Path

from grader.core.gpu_lock import LOCK_ENV, GpuLock, lock_file
from grader.core.model import LabTest, Outcome, Status
from grader.core.process_groups import GroupRun
from grader.core.schedule import Scheduler
from grader.tests.helpers import PACKAGE_PARENT

SHORT_S = 0.3  # long enough to show a lock is refused, short enough to keep tests quick
LONG_S = 10.0  # what a lock that should be granted may take at most

_HOLDER = """
import sys
from pathlib import Path
from grader.core.gpu_lock import GpuLock
lock = GpuLock(Path(sys.argv[1]), timeout_s=float(sys.argv[3]))
with getattr(lock, sys.argv[2])():
    print("held", flush=True)
    sys.stdin.readline()
"""


@contextmanager
def _held_elsewhere(path: Path, mode: str) -> Iterator[None]:
    """Another process holds `path`'s lock in `mode` (shared or exclusive) for the block."""
    proc = subprocess.Popen(
        [sys.executable, "-c", _HOLDER, str(path), mode, str(LONG_S)],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        text=True,
        env={"PYTHONPATH": PACKAGE_PARENT},
    )
    assert proc.stdin is not None and proc.stdout is not None
    try:
        ready, _, _ = select.select([proc.stdout], [], [], LONG_S)
        assert ready and proc.stdout.readline() == "held\n", "the other process got no lock"
        yield
    finally:
        proc.stdin.close()
        try:
            proc.wait(timeout=LONG_S)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()


def _granted(lock: GpuLock, mode: str) -> bool:
    """Whether `lock` could be taken in `mode` before its timeout."""
    try:
        with getattr(lock, mode)():
            return True
    except TimeoutError:
        return False


def test_exclusive_excludes_shared_and_exclusive(tmp_path: Path) -> None:
    path = lock_file(tmp_path, "0")
    with _held_elsewhere(path, "exclusive"):
        assert not _granted(GpuLock(path, SHORT_S), "shared")
        assert not _granted(GpuLock(path, SHORT_S), "exclusive")
    assert _granted(GpuLock(path, LONG_S), "exclusive")  # released with the holder


def test_shared_admits_shared_but_not_exclusive(tmp_path: Path) -> None:
    path = lock_file(tmp_path, "0")
    with _held_elsewhere(path, "shared"):
        assert _granted(GpuLock(path, LONG_S), "shared")
        assert not _granted(GpuLock(path, SHORT_S), "exclusive")
    assert _granted(GpuLock(path, LONG_S), "exclusive")


def test_each_gpu_has_its_own_lock(tmp_path: Path) -> None:
    with _held_elsewhere(lock_file(tmp_path, "0"), "exclusive"):
        assert _granted(GpuLock(lock_file(tmp_path, "1"), LONG_S), "exclusive")


def test_threads_of_one_process_exclude_each_other_too(tmp_path: Path) -> None:
    path = lock_file(tmp_path, "0")
    with GpuLock(path, LONG_S).shared():
        assert not _granted(GpuLock(path, SHORT_S), "exclusive")
        assert _granted(GpuLock(path, LONG_S), "shared")


def test_a_waiting_exclusive_taker_goes_before_new_shared_ones(tmp_path: Path) -> None:
    """Workers that keep a GPU busy with untimed runs must not hold a timed test off."""
    path = lock_file(tmp_path, "0")
    got_it = threading.Event()

    def timed_test() -> None:
        with GpuLock(path, LONG_S).exclusive():
            got_it.set()

    with _held_elsewhere(path, "shared"):
        waiter = threading.Thread(target=timed_test, daemon=True)
        waiter.start()
        deadline = time.monotonic() + LONG_S
        while not path.with_name(path.name + ".queue").exists() and time.monotonic() < deadline:
            time.sleep(0.01)
        time.sleep(0.1)  # the waiter holds the queue and waits for the lock
        assert not got_it.is_set()
        assert not _granted(GpuLock(path, SHORT_S), "shared")
    waiter.join(LONG_S)
    assert got_it.is_set()


def test_the_lock_comes_from_the_environment_only_in_a_batch(tmp_path: Path) -> None:
    assert GpuLock.from_environment({}) is None
    lock = GpuLock.from_environment({LOCK_ENV: str(tmp_path / "gpu-0.lock")})
    assert lock is not None and lock.path == tmp_path / "gpu-0.lock"


# --- the scheduler ------------------------------------------------------------------------


class _RecordingLock(GpuLock):
    """Stands in for the GPU's lock: which mode each thread holds while a test runs."""

    def __init__(self) -> None:
        super().__init__(Path("unused"))
        self.held = threading.local()

    @contextmanager
    def shared(self) -> Iterator[None]:
        self.held.mode = "shared"
        yield
        self.held.mode = None

    @contextmanager
    def exclusive(self) -> Iterator[None]:
        self.held.mode = "exclusive"
        yield
        self.held.mode = None


class _Runner:
    """Stands in for Runner: records the lock mode each test and group ran under."""

    calibration = None  # flat timeouts: a timeout while sharing is confirmed alone

    def __init__(self, lock: _RecordingLock, results: dict[str, list[Outcome]]) -> None:
        self.lock = lock
        self.results = results
        self.log: list[tuple[str, str | None]] = []
        self.mutex = threading.Lock()

    def run(self, test: LabTest) -> Outcome:
        with self.mutex:
            self.log.append((test.name, getattr(self.lock.held, "mode", None)))
            queue = self.results.get(test.name)
            return queue.pop(0) if queue else Outcome(Status.PASSED)

    def run_group(self, tests: list[LabTest]) -> GroupRun:
        with self.mutex:
            self.log.append(("group of " + str(len(tests)), getattr(self.lock.held, "mode", None)))
        return GroupRun({test.name: Outcome(Status.PASSED) for test in tests})


def _test(name: str, kind: str = "correctness") -> LabTest:
    return LabTest(
        name=f"lab1.{name}",
        lab="lab1",
        kind=kind,
        command=("prog", f"--gtest_filter=Suite.{name}"),
        run_serial=kind != "correctness",
    )


def test_untimed_runs_share_the_gpu_lock_and_lone_runs_hold_it_alone() -> None:
    lock = _RecordingLock()
    hung = Outcome(Status.FAILED, "timed out after 60 s: possible deadlock")
    runner = _Runner(lock, {"lab1.hangs": [hung, hung]})
    tests = [_test(n) for n in "abcd"] + [_test("t", "timing"), _test("r", "reference")]
    # No exact GoogleTest name, so no group: run alone, and its crowded failure again.
    tests.append(replace(_test("hangs"), command=("prog", "--gtest_filter=Suite.hangs*")))
    scheduler = Scheduler(runner, jobs=2, gpu_lock=lock)  # type: ignore[arg-type]
    scheduler.run_all(tests)
    held = dict(runner.log)
    assert held["lab1.t"] == "exclusive" and held["lab1.r"] == "exclusive"
    assert [m for name, m in runner.log if name == "group of 2"] == ["shared", "shared"]
    assert [m for name, m in runner.log if name == "lab1.hangs"] == ["shared", "exclusive"]


def test_without_a_lock_nothing_is_taken() -> None:
    lock = _RecordingLock()  # the runner looks, but the scheduler was given none
    runner = _Runner(lock, {})
    Scheduler(runner, jobs=2).run_all([_test("a"), _test("t", "timing")])  # type: ignore[arg-type]
    assert [mode for _, mode in runner.log] == [None, None]


def test_with_a_lock_one_job_still_confirms_a_crowded_failure_alone() -> None:
    """Other workers on the GPU are neighbours even when this one runs one test at a time."""
    lock = _RecordingLock()
    hung = Outcome(Status.FAILED, "timed out after 60 s: possible deadlock")
    runner = _Runner(lock, {"lab1.hangs": [hung, Outcome(Status.PASSED)]})
    scheduler = Scheduler(runner, jobs=1, gpu_lock=lock)  # type: ignore[arg-type]
    assert scheduler.run_all([_test("hangs")])["lab1.hangs"].status is Status.PASSED
    assert runner.log == [("lab1.hangs", "shared"), ("lab1.hangs", "exclusive")]
    assert scheduler.rerun_alone == ["lab1.hangs"]


def test_the_wait_to_run_alone_is_counted(tmp_path: Path) -> None:
    """What a timed test waited for the other workers on its GPU: the batch's 'waiting
    for the GPU' (grader/classroom/worker_time.py)."""
    path = lock_file(tmp_path, "0")
    runner = _Runner(_RecordingLock(), {})
    scheduler = Scheduler(runner, jobs=1, gpu_lock=GpuLock(path, timeout_s=LONG_S))  # type: ignore[arg-type]
    scheduler.run(_test("t", "timing"))  # no other worker on the GPU: no wait
    assert scheduler.alone_wait_s < SHORT_S
    thread = threading.Thread(target=lambda: scheduler.run(_test("u", "timing")))
    with _held_elsewhere(path, "shared"):  # another worker's untimed run, for SHORT_S
        thread.start()
        time.sleep(SHORT_S)
    thread.join(LONG_S)
    assert scheduler.alone_wait_s >= SHORT_S * 0.8
