"""A timed test has its GPU to itself, even where several grading workers share it.

A batch may give one GPU several slots (gpu_slots.py): several worker processes
then grade on it at once. Each takes the GPU's lock file (fcntl.flock) SHARED
around every run that may share the GPU and EXCLUSIVE around every run that must
be alone on it (a timed test, a crowded failure run again), so no other worker's
kernels run meanwhile. The batch names the lock file in LOCK_ENV to the workers
of a GPU of several slots; without it (one slot, `grade`, `repeat`, ...) no lock
is taken. A process that dies releases its locks with its files, and test
processes never inherit them.

flock grants a shared lock whenever only shared locks are held, so workers that
keep a GPU busy with untimed runs could hold a timed test off for as long as they
have untimed runs. A second file, the queue, lets a waiting exclusive taker go
first: it holds the queue while it waits and while it runs, and a shared taker
passes through the queue before it takes the lock.
"""

from __future__ import annotations

import fcntl
import os
import time
from collections.abc import Iterator, Mapping
from contextlib import contextmanager
from pathlib import Path

LOCK_ENV = "CUDA_LABS_GPU_LOCK"
LOCK_FOLDER = ".gpu-locks"  # under the batch's --build-root; no student's build is named so
_POLL_S = 0.01


def lock_file(build_root: Path, gpu: str) -> Path:
    """The lock file of GPU `gpu` (an nvidia-smi index) for the batch building in `build_root`."""
    return build_root / LOCK_FOLDER / f"gpu-{gpu}.lock"


class GpuLock:
    """One GPU's lock, shared by the worker processes grading on that GPU.

    `timeout_s`: give up with TimeoutError after that long (None: wait as long as it
    takes; the batch's --student-timeout bounds a worker).
    """

    def __init__(self, path: Path, timeout_s: float | None = None) -> None:
        self.path = path
        self.queue = path.with_name(path.name + ".queue")
        self.timeout_s = timeout_s

    @classmethod
    def from_environment(cls, env: Mapping[str, str] | None = None) -> GpuLock | None:
        """The lock the batch gave this worker in LOCK_ENV, or None outside a batch."""
        value = (os.environ if env is None else env).get(LOCK_ENV)
        return cls(Path(value)) if value else None

    @contextmanager
    def shared(self) -> Iterator[None]:
        """Held while a run may have other runs beside it on the GPU."""
        deadline = self._deadline()
        with _flocked(self.queue, fcntl.LOCK_EX, deadline):
            pass  # an exclusive taker waiting in the queue goes first
        with _flocked(self.path, fcntl.LOCK_SH, deadline):
            yield

    @contextmanager
    def exclusive(self) -> Iterator[None]:
        """Held while a run must have the GPU to itself."""
        deadline = self._deadline()
        with _flocked(self.queue, fcntl.LOCK_EX, deadline):
            with _flocked(self.path, fcntl.LOCK_EX, deadline):
                yield

    def _deadline(self) -> float | None:
        return None if self.timeout_s is None else time.monotonic() + self.timeout_s


@contextmanager
def _flocked(path: Path, operation: int, deadline: float | None) -> Iterator[None]:
    """`path` locked with `operation` (its own open file, so threads of one process
    exclude each other as processes do) until the block ends."""
    path.parent.mkdir(parents=True, exist_ok=True)
    fd = os.open(path, os.O_RDWR | os.O_CREAT, 0o644)
    try:
        if deadline is None:
            fcntl.flock(fd, operation)
        else:
            while True:
                try:
                    fcntl.flock(fd, operation | fcntl.LOCK_NB)
                    break
                except BlockingIOError:
                    if time.monotonic() >= deadline:
                        raise TimeoutError(f"{path}: not locked in time") from None
                    time.sleep(_POLL_S)
        yield
    finally:
        os.close(fd)
