"""How busy each GPU was during a batch: nvidia-smi sampled about once a second;
and where the grading workers' time went, from each student's own clock.

The class table says which GPU graded each student; this log says whether the
GPUs were busy at the same time, which is what spreading a batch over them is for.
"""

from __future__ import annotations

import shutil
import subprocess
import threading
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from datetime import datetime
from pathlib import Path
from types import TracebackType

from grader.classroom.batch import StudentResult
from grader.core.clocks import nvidia_smi

LOG_NAME = "gpu-usage.csv"
QUERY = "timestamp,index,utilization.gpu,memory.used"
_QUERY_TIMEOUT_S = 10


@dataclass(frozen=True)
class Usage:
    """Per GPU, the samples in which it ran a kernel; and those in which all of them did."""

    samples: int
    busy: dict[str, int]
    all_busy: int
    span_s: float | None = None  # first to last sample, by nvidia-smi's timestamps

    def line(self) -> str:
        per_gpu = ", ".join(f"GPU {gpu} busy in {n}" for gpu, n in self.busy.items())
        # A query slows down when the driver is busy: say how far apart samples really were.
        span = f" over {self.span_s:.0f} s" if self.span_s is not None else ""
        return (
            f"GPU use (nvidia-smi, {self.samples} samples{span}): {per_gpu}; "
            f"all {len(self.busy)} at once in {self.all_busy}"
        )


def _timestamp(text: str) -> datetime | None:
    try:
        return datetime.strptime(text, "%Y/%m/%d %H:%M:%S.%f")
    except ValueError:
        return None


def summarize(text: str, gpus: Sequence[str]) -> Usage:
    """Read `timestamp, index, utilization %, memory MiB` lines for the batch's GPUs.

    Each sample is one line per GPU in index order (their timestamps can differ
    by milliseconds), so a GPU seen again starts the next sample.
    """
    samples: list[dict[str, bool]] = [{}]
    starts: list[datetime | None] = [None]
    for line in text.splitlines():
        fields = [f.strip() for f in line.split(",")]
        if len(fields) != 4 or fields[1] not in gpus:
            continue
        try:
            busy = float(fields[2]) > 0
        except ValueError:  # "[N/A]" or a header
            continue
        if fields[1] in samples[-1]:
            samples.append({})
            starts.append(None)
        samples[-1][fields[1]] = busy
        starts[-1] = starts[-1] or _timestamp(fields[0])
    whole = [i for i, s in enumerate(samples) if len(s) == len(gpus)]
    first, last = (starts[whole[0]], starts[whole[-1]]) if whole else (None, None)
    span = (last - first).total_seconds() if first and last else None
    samples = [samples[i] for i in whole]
    return Usage(
        len(samples),
        {gpu: sum(s[gpu] for s in samples) for gpu in gpus},
        sum(all(s.values()) for s in samples),
        span,
    )


class UsageLog:
    """`with UsageLog(report / LOG_NAME, gpus) as log:` samples while the batch runs;
    `log.usage` is None when nvidia-smi is missing or recorded nothing.

    One `nvidia-smi --query-gpu` a second from a thread, each sample appended at
    once: its own `--loop` mode buffers its output, and a killed loop loses it.
    """

    def __init__(
        self,
        path: Path,
        gpus: Sequence[str],
        interval_s: float = 1.0,
        run: Callable[..., subprocess.CompletedProcess[str]] = subprocess.run,
    ) -> None:
        self.path = path
        self.gpus = list(gpus)
        self.interval_s = interval_s
        self.run = run
        self.usage: Usage | None = None
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None

    def __enter__(self) -> UsageLog:
        if self.run is not subprocess.run or shutil.which("nvidia-smi") is not None:
            self.path.write_text("", encoding="utf-8")
            self._thread = threading.Thread(target=self._sample, daemon=True, name="gpu-usage")
            self._thread.start()
        return self

    def _sample(self) -> None:
        args = [f"--query-gpu={QUERY}", "--format=csv,noheader,nounits"]
        while not self._stop.is_set():
            started = time.monotonic()
            sample = nvidia_smi(args, self.run, _QUERY_TIMEOUT_S)
            if sample is not None:
                with open(self.path, "a", encoding="utf-8") as log:
                    log.write(sample)
            # A steady rate: the query's own time comes out of the wait.
            self._stop.wait(max(0.0, self.interval_s - (time.monotonic() - started)))

    def __exit__(
        self,
        kind: type[BaseException] | None,
        error: BaseException | None,
        trace: TracebackType | None,
    ) -> None:
        if self._thread is None:
            return
        self._stop.set()
        self._thread.join()
        usage = summarize(self.path.read_text(encoding="utf-8", errors="replace"), self.gpus)
        self.usage = usage if usage.samples else None


# Where a worker's time goes, in the order a student's grading spends it.
PARTS = (
    "start-up",  # the child grader: Python, the sandboxed listing and GPU probe, the reports
    "untimed tests",  # side by side on the GPU (several jobs, several slots)
    "sanitizer",
    "timed tests",  # alone on the GPU
    "waiting for the GPU",  # a timed test's wait for the other workers on its GPU to finish
    "public re-runs",  # a hidden-data failure checked on the public data
    "no tests",  # a student whose labs were all rejected or did not build
    "waiting",  # for a build, or for the last students of the batch
)
# The parts a grading's own phases (session.py's phase_s) measure.
_PHASES = {
    "untimed tests": "shared",
    "sanitizer": "sanitize",
    "waiting for the GPU": "gpu_wait",
    "public re-runs": "public",
}


@dataclass(frozen=True)
class WorkerTime:
    """The grading workers' seconds, summed over workers, by part (PARTS)."""

    workers: int
    wall_s: float
    parts: dict[str, float]

    def line(self) -> str:
        total = self.workers * self.wall_s
        shares = ", ".join(
            f"{name} {s:.0f} s ({100 * s / total:.0f} %)"
            for name, s in self.parts.items()
            if s >= 0.5
        )
        return f"Worker time ({self.workers} x {self.wall_s:.0f} s = {total:.0f} s): {shares}"


def worker_time(results: Sequence[StudentResult], workers: int, wall_s: float) -> WorkerTime:
    """Split `workers` x `wall_s` by PARTS: a graded student's duration is its child's
    start-up, then its phases (results.json's phase_s; the timed tests are what its
    grading spent outside them); what no student took is waiting."""
    parts = dict.fromkeys(PARTS, 0.0)
    for result in results:
        phases = result.phase_s
        if "grading" not in phases:
            parts["no tests"] += result.duration_s
            continue
        grading = phases["grading"]
        measured = {part: phases.get(phase, 0.0) for part, phase in _PHASES.items()}
        for part, seconds in measured.items():
            parts[part] += seconds
        parts["timed tests"] += max(0.0, grading - sum(measured.values()))
        parts["start-up"] += max(0.0, result.duration_s - grading)
    parts["waiting"] = max(0.0, workers * wall_s - sum(parts.values()))
    return WorkerTime(workers, wall_s, parts)
