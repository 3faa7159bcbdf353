"""The per-GPU lock of workers sharing a GPU: real flock on files in tmp_path, held by
another process, every wait bounded so that a broken lock fails instead of hanging.
And the launcher's use of it: untimed runs shared, timed runs exclusive."""

from __future__ import annotations

import select
import subprocess
import sys
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import pytest

from grader.core.ctest_run import Runs
from grader.core.gpu_lock import LOCK_ENV, GpuLock, lock_file
from grader.core.model import LabTest
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


# --- the launcher ---------------------------------------------------------------------


def _beside(tmp_path: Path, kind: str, other: str, wait_s: float) -> tuple[bool, float]:
    """Whether a `kind` test finished within `wait_s` while another worker held the
    GPU's lock in mode `other`, and the wait it counted (the lock in the environment,
    as a batch sets it)."""
    path = lock_file(tmp_path, "0")
    test = LabTest(name=f"lab1.{kind}", lab="lab1", kind=kind, command=("true",))
    runs = Runs(gpu_present=True)
    thread = threading.Thread(target=lambda: runs.run([test]))
    with _held_elsewhere(path, other):
        thread.start()
        thread.join(wait_s)
        finished = not thread.is_alive()
    thread.join(LONG_S)
    return finished, runs.lock_wait_s


def test_a_timed_run_waits_for_every_other_worker_and_an_untimed_one_only_for_timed_ones(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv(LOCK_ENV, str(lock_file(tmp_path, "0")))
    finished, waited = _beside(tmp_path, "timing", "shared", 4 * SHORT_S)
    # The wait of a timed test is the batch's 'waiting for the GPU' (worker_time.py):
    # all of it but the start of ctest and the launcher.
    assert not finished and waited >= 2 * SHORT_S
    assert _beside(tmp_path, "correctness", "shared", LONG_S) == (True, 0.0)
    assert not _beside(tmp_path, "correctness", "exclusive", SHORT_S)[0]
