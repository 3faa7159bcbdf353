"""Grading a whole class: find the submissions, build them, grade them over the GPUs.

Two stages run side by side. Builds need CPUs only, so a pool builds ahead;
grading needs a GPU, so there is one grading worker per GPU slot (one slot per
GPU unless a resource spec gives it more: gpu_slots.py) and each worker grades
one submission at a time. Where workers share a GPU, its lock (gpu_lock.py) keeps
every timed test alone on it.
The build and grade steps are passed in as functions, which keeps the
scheduling testable without a compiler or a GPU, and every exception a step
raises becomes that student's reason instead of stopping the batch.
"""

from __future__ import annotations

import queue
import re
import subprocess
import sys
import threading
import time
from collections.abc import Callable, Mapping, Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Generic, TextIO, TypeVar

from grader.core.clocks import Run, nvidia_smi
from grader.core.discovery import lab_folders
from grader.core.errors import GraderUsageError
from grader.core.gpu_slots import gpu_indices
from grader.core.model import lab_number
from grader.core.scoring import points_cell

_NVIDIA_SMI_TIMEOUT_S = 60


@dataclass(frozen=True)
class Submission:
    """One student's folder; `problem` says why it cannot be graded, if it cannot."""

    name: str
    path: Path
    labs: tuple[str, ...] = ()
    problem: str | None = None


@dataclass(frozen=True)
class LabResult:
    """A lab's points for one student."""

    lab: str
    score: float
    max_score: float


@dataclass(frozen=True)
class StudentResult:
    """What the class table says about one student.

    `status` is `graded`, `broken` (could not be graded: the grader crashed,
    hung or found no GPU) or `not a submission`.
    """

    name: str
    status: str
    labs: tuple[LabResult, ...] = ()
    failures: tuple[str, ...] = ()
    reason: str = ""
    gpu: str = ""
    graded_on: str = ""  # the GPU's model and the host, from results.json
    duration_s: float = 0.0
    # The child's own clock (results.json): "grading" (tests run to grade) and its phases.
    phase_s: Mapping[str, float] = field(default_factory=dict)

    @property
    def score(self) -> float:
        return sum(lab.score for lab in self.labs)

    @property
    def max_score(self) -> float:
        return sum(lab.max_score for lab in self.labs)

    @property
    def why(self) -> str:
        """The reason, led by the status: `broken: grader crashed: ...`."""
        reason = self.reason
        return reason if reason.startswith(self.status) else f"{self.status}: {reason}"


def safe_name(name: str) -> str:
    """A folder name for reports and builds: no separators or odd characters."""
    return re.sub(r"[^A-Za-z0-9_.-]", "_", name).strip(".") or "student"


def find_submissions(root: Path) -> list[Submission]:
    """Every subfolder of `root`, in name order; a folder without labN_* is flagged.

    Raises GraderUsageError when `root` is not a folder or has no subfolder.
    """
    if not root.exists():
        raise GraderUsageError(f"{root}: no such folder")
    if not root.is_dir():
        raise GraderUsageError(
            f"{root} is not a folder: give the folder holding one subfolder per student"
        )
    found = []
    for path in sorted(p for p in root.iterdir() if p.is_dir() and not p.name.startswith(".")):
        labs = tuple(sorted(lab_folders(path), key=lab_number))
        problem = (
            None
            if labs
            else (
                "not a submission: no labN_* folder (expected a tree laid "
                "out like skeletons/, e.g. lab1_histogram/)"
            )
        )
        found.append(Submission(path.name, path.resolve(), labs, problem))
    if not found:
        raise GraderUsageError(f"{root} holds no submission folders (one subfolder per student)")
    return found


def list_gpus(run: Run = subprocess.run) -> list[str]:
    """The GPU indices `nvidia-smi -L` lists; none when it is missing or fails."""
    return gpu_indices(nvidia_smi(["-L"], run, _NVIDIA_SMI_TIMEOUT_S) or "")


def choose_gpus(request: str, available: Sequence[str]) -> list[str]:
    """`auto` takes every GPU listed; N takes the first N (checked when the list is known)."""
    if request == "auto":
        return list(available)
    try:
        count = int(request)
    except ValueError:
        raise GraderUsageError(f"--gpus takes a number or auto, not {request!r}") from None
    if count < 1:
        raise GraderUsageError(f"--gpus must be at least 1, got {count}")
    if available and count > len(available):
        raise GraderUsageError(f"--gpus {count}: nvidia-smi lists only {len(available)} GPU(s)")
    return list(available[:count]) if available else [str(i) for i in range(count)]


B = TypeVar("B")
BuildFn = Callable[[Submission], B]
GradeFn = Callable[[Submission, B, str], StudentResult]


@dataclass
class _Progress:
    total: int
    stream: TextIO
    done: int = 0
    started: float = field(default_factory=time.monotonic)
    lock: threading.Lock = field(default_factory=threading.Lock)

    def report(self, result: StudentResult) -> None:
        with self.lock:
            self.done += 1
            width = 20
            bar = "#" * (width * self.done // self.total)
            score = (
                f"{points_cell(result.score)}/{points_cell(result.max_score)}"
                if result.status == "graded"
                else " / ".join(result.why.splitlines())  # whole, on one line
            )
            where = f", gpu {result.gpu}" if result.gpu else ""
            wait = result.phase_s.get("gpu_wait", 0.0)
            where += f", {wait:.0f} s of it waiting to have the GPU alone" if wait >= 1 else ""
            elapsed = time.monotonic() - self.started
            print(
                f"[{bar:<{width}}] {self.done}/{self.total} {elapsed:6.0f} s  {result.name}: "
                f"{score} ({result.duration_s:.0f} s{where})",
                file=self.stream,
                flush=True,
            )


class _Failed(Generic[B]):
    """A build step that raised: carried to a grading worker only to be reported."""

    def __init__(self, reason: str) -> None:
        self.reason = reason


def run_batch(
    submissions: Sequence[Submission],
    gpus: Sequence[str],
    build: BuildFn[B],
    grade: GradeFn[B],
    *,
    build_jobs: int = 2,
    progress: TextIO | None = None,
) -> list[StudentResult]:
    """Build with `build_jobs` threads and grade with one worker per entry of `gpus`
    (a GPU listed twice, two slots, grades two submissions at once).

    Results come back in the submissions' order. A submission with a `problem`
    is neither built nor graded. Nothing a step raises stops the batch.
    """
    if not gpus:
        raise GraderUsageError("no GPU to grade on")
    ticker = _Progress(len(submissions), progress or sys.stdout)
    results: dict[str, StudentResult] = {}
    ready: queue.Queue[tuple[Submission, B | _Failed[B]] | None] = queue.Queue()

    def build_one(sub: Submission) -> None:
        try:
            built: B | _Failed[B] = build(sub)
        except Exception as exc:  # noqa: BLE001 - a student's build must not stop the batch
            built = _Failed(f"build step crashed: {type(exc).__name__}: {exc}")
        ready.put((sub, built))

    def grade_worker(gpu: str) -> None:
        while True:
            item = ready.get()
            if item is None:
                return
            sub, built = item
            start = time.monotonic()
            if isinstance(built, _Failed):
                result = StudentResult(sub.name, "broken", reason=built.reason)
            else:
                try:
                    result = grade(sub, built, gpu)
                except Exception as exc:  # noqa: BLE001 - one crash must not stop the others
                    result = StudentResult(
                        sub.name,
                        "broken",
                        gpu=gpu,
                        reason=f"grader crashed: {type(exc).__name__}: {exc}",
                    )
            if not result.duration_s:
                result = replace(result, duration_s=time.monotonic() - start)
            results[sub.name] = result
            ticker.report(result)

    workers = [
        threading.Thread(target=grade_worker, args=(gpu,), name=f"gpu-{gpu}-{i}", daemon=True)
        for i, gpu in enumerate(gpus)
    ]
    for worker in workers:
        worker.start()
    gradable = [s for s in submissions if s.problem is None]
    for sub in submissions:
        if sub.problem is not None:
            results[sub.name] = StudentResult(sub.name, "not a submission", reason=sub.problem)
            ticker.report(results[sub.name])
    with ThreadPoolExecutor(max_workers=max(1, build_jobs), thread_name_prefix="build") as pool:
        for sub in gradable:
            pool.submit(build_one, sub)
    for _ in workers:
        ready.put(None)
    for worker in workers:
        worker.join()
    return [results[s.name] for s in submissions]
