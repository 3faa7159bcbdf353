"""Where the grading workers' time went in a batch, from each student's own clock: the
last line of the class table. How busy the GPUs were is nvidia-smi's to log
(scripts/class-batch.sh keeps its samples beside the class).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from grader.classroom.batch import StudentResult

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
