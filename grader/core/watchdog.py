"""Timeouts sized to the reference's measured time, so a hung submission costs little.

A calibration is what each test took in a grading of the reference solution on
the same kind of GPU: the `results.json` that `grade --report` wrote. With one,
a test gets the harness's kernel watchdog (LAB_KERNEL_TIMEOUT_S, a deadline for
each wait on the GPU) and a process timeout in proportion to the reference's
time, never below a floor and never above the flat values it replaces. Without
one, for a test the reference did not pass, or for a timed test, the flat values
stay. A timed test runs only variants that passed the correctness tests it needs
(lab.json's timing_needs), so it seldom hangs, and a false timeout would cost an
honest student the timing points: on an H100 x4 host, lab1_slow's
SharedBeatsTheSeedGlobalAtomics ran past its sized 10 s alone on its GPU (1.1 s
on one H100).

A test's measured time includes its process's start, its data and its CPU
reference, all of which dwarf its kernels on small data: FACTOR times that
leaves a correct but slower kernel a wide margin, while a hung one is stopped
within seconds instead of the flat 10 s per wait (and 60 s per process).
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path

from grader.core.errors import GraderUsageError
from grader.core.model import LabTest
from grader.core.reports import lab_test_name

FACTOR = 10.0
# Below these, crowding (up to MAX_JOBS processes starting at once) and a slow
# GPU could stop a correct test.
KERNEL_FLOOR_S = 1.0
PROCESS_FLOOR_S = 10.0
# A report's durations are in milliseconds: a small case settled in a group's process
# (GoogleTest's own time for it) may read 0. It ran, and faster than this.
RESOLUTION_S = 0.001
RESULTS_FILE = "results.json"
KERNEL_TIMEOUT_ENV = "LAB_KERNEL_TIMEOUT_S"
HARNESS_KERNEL_TIMEOUT_S = 10.0  # labs/common/src/sync.cu's default


@dataclass(frozen=True)
class Calibration:
    """Seconds each test (by name) took in a passing reference grading on `gpu`, and
    the figure of each timing test it passed (for the performance credit, credit.py)."""

    gpu: str
    seconds: Mapping[str, float]
    source: Path
    figures: Mapping[str, float] = field(default_factory=dict)

    @classmethod
    def read(cls, path: Path) -> Calibration:
        """From a report folder or its results.json; a usage error when unreadable."""
        file = path / RESULTS_FILE if path.is_dir() else path
        try:
            doc = json.loads(file.read_text(encoding="utf-8"))
            gpu = str(doc["extra_data"]["gpu"]["name"])
            rows = doc["tests"]
        except (OSError, ValueError, KeyError, TypeError) as exc:
            raise GraderUsageError(
                f"--calibration {path}: not the results.json of a grading ({exc})"
            ) from None
        seconds: dict[str, float] = {}
        figures: dict[str, float] = {}
        for row in rows:
            name = lab_test_name(row)
            extra = row.get("extra_data") or {}
            duration = extra.get("duration_s")
            if row.get("status") == "passed" and name is not None:
                if isinstance(duration, (int, float)) and duration >= 0:
                    seconds[name] = max(float(duration), RESOLUTION_S)
                value = (extra.get("figure") or {}).get("value")
                if isinstance(value, (int, float)) and value > 0:
                    figures[name] = float(value)
        if not seconds:
            raise GraderUsageError(f"--calibration {path}: no passed test with a duration")
        return cls(gpu, seconds, file, figures)

    def check_gpu(self, gpu: str | None) -> None:
        """Times from another GPU model size nothing here."""
        if gpu is not None and gpu != self.gpu:
            raise GraderUsageError(
                f"--calibration {self.source} was measured on {self.gpu}, this GPU is {gpu}: "
                "grade the reference solution here first"
            )

    def reference_s(self, tests: Sequence[LabTest]) -> float | None:
        """The reference's time for all of `tests` (one process), or None if any is missing."""
        times = [self.seconds.get(t.name) for t in tests]
        if not times or any(t is None for t in times):
            return None
        return sum(t for t in times if t is not None)

    def _sized_s(self, tests: Sequence[LabTest]) -> float | None:
        """The reference's time for `tests`, or None where their timeouts stay flat."""
        return None if any(t.is_timed for t in tests) else self.reference_s(tests)

    def kernel_timeout(self, tests: Sequence[LabTest], flat_s: float) -> float:
        """The wait deadline for a process running `tests`: the longest one's share."""
        longest = max((self.seconds.get(t.name, 0.0) for t in tests), default=0.0)
        if self._sized_s(tests) is None:
            return flat_s
        return min(flat_s, max(KERNEL_FLOOR_S, FACTOR * longest))

    def process_timeout(self, tests: Sequence[LabTest], flat_s: float) -> float:
        """The whole process's deadline for `tests`."""
        total = self._sized_s(tests)
        if total is None:
            return flat_s
        return min(flat_s, max(PROCESS_FLOOR_S, FACTOR * total))


def flat_kernel_timeout(env: Mapping[str, str]) -> float:
    """The watchdog the harness would use without a calibration (sync.cu's rule)."""
    try:
        value = float(env.get(KERNEL_TIMEOUT_ENV, ""))
    except ValueError:
        return HARNESS_KERNEL_TIMEOUT_S
    return value if value > 0 else HARNESS_KERNEL_TIMEOUT_S
