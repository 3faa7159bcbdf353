"""The batch's worker time: each student's duration split by the phases of its grading."""

from __future__ import annotations

from grader.classroom.batch import StudentResult
from grader.classroom.worker_time import worker_time


def test_worker_time_splits_each_students_duration_by_its_phases() -> None:
    graded = StudentResult(
        "ann",
        "graded",
        duration_s=24.0,
        phase_s={"grading": 21.0, "shared": 5.0, "sanitize": 8.0, "gpu_wait": 2.0, "public": 1.0},
    )
    rejected = StudentResult("bob", "graded", duration_s=2.0)  # no child: no phases
    spent = worker_time([graded, rejected, StudentResult("cy", "not a submission")], 2, 20.0)
    assert spent.parts == {
        "start-up": 3.0,
        "untimed tests": 5.0,
        "sanitizer": 8.0,
        "timed tests": 5.0,
        "waiting for the GPU": 2.0,
        "public re-runs": 1.0,
        "no tests": 2.0,
        "waiting": 14.0,
    }
    assert spent.line().startswith("Worker time (2 x 20 s = 40 s): start-up 3 s (8 %), ")
    assert spent.line().endswith("waiting 14 s (35 %)")
