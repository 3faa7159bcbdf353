"""The real build and grade steps of a batch (the scheduler in batch.py takes any).

Build: `configure_and_build` (the code behind `grade --impl`) on the labs the
student handed in, with its log kept in the student's report folder.
Grade: `python3 -m grader.batch_worker` in a child process whose only visible
GPU is the worker's (CUDA_VISIBLE_DEVICES), under a whole-run time limit.
"""

from __future__ import annotations

import os
import subprocess
import sys
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Mapping, Sequence

from grader.batch import LabResult, StudentResult, Submission, safe_name
from grader.build import configure_and_build
from grader.class_table import result_from_report
from grader.discovery import lab_dirs
from grader.errors import EXIT_NO_GPU
from grader.scoring import load_policy

_PACKAGE_PARENT = Path(__file__).resolve().parent.parent
_TAIL_LINES = 6


@dataclass(frozen=True)
class BuiltTree:
    """A student's build folder, the labs it holds and why the build failed, if it did."""

    build_dir: Path
    labs: tuple[str, ...]
    failure_stage: str | None = None
    failure_log: Path | None = None


@dataclass(frozen=True)
class BatchConfig:
    """What every student's build and grade share."""

    repo: Path
    labs: tuple[str, ...]
    report_root: Path
    build_root: Path
    lab_max: Mapping[str, float]
    cmake_args: tuple[str, ...] = ()
    timeout_scale: float = 1.0
    secret_file: Path | None = None
    student_timeout_s: float = 3 * 3600

    def report_dir(self, sub: Submission) -> Path:
        return self.report_root / safe_name(sub.name)


def build_submission(config: BatchConfig, sub: Submission) -> BuiltTree:
    """Configure and build the labs `sub` handed in; a failure is recorded, not raised."""
    labs = tuple(lab for lab in config.labs if lab in sub.labs)
    build_dir = config.build_root / safe_name(sub.name)
    report = config.report_dir(sub)
    report.mkdir(parents=True, exist_ok=True)
    if not labs:
        return BuiltTree(build_dir, ())
    args = (*config.cmake_args, f"-DLAB_ONLY={';'.join(labs)}")
    log, failure = configure_and_build(config.repo, str(sub.path), build_dir, args)
    (report / "build.log").write_text(log, encoding="utf-8")
    if failure is None:
        return BuiltTree(build_dir, labs)
    failure_log = report / "build-failure.log"
    failure_log.write_text(failure.log, encoding="utf-8")
    return BuiltTree(build_dir, labs, failure.stage, failure_log)


def worker_command(config: BatchConfig, built: BuiltTree, report: Path) -> list[str]:
    """The child's argv: grade the built tree into `report`."""
    argv = [sys.executable, "-m", "grader.batch_worker", "--build", str(built.build_dir),
            "--report", str(report), "--repo", str(config.repo), "--labs", ",".join(built.labs),
            "--timeout-scale", str(config.timeout_scale)]
    if built.failure_stage:
        argv += ["--build-stage", built.failure_stage, "--build-log", str(built.failure_log)]
    if config.secret_file is not None:
        argv += ["--secret-file", str(config.secret_file)]
    return argv


def grade_submission(config: BatchConfig, sub: Submission, built: BuiltTree,
                     gpu: str) -> StudentResult:
    """Grade in a child pinned to `gpu`; read its results.json into the class row."""
    report = config.report_dir(sub)
    start = time.monotonic()
    if not built.labs:
        missing = StudentResult(sub.name, "graded", gpu=gpu)
        return _all_missing(config, missing)
    env = {**os.environ, "CUDA_VISIBLE_DEVICES": gpu,
           "PYTHONPATH": os.pathsep.join(filter(None, [str(_PACKAGE_PARENT),
                                                       os.environ.get("PYTHONPATH")]))}
    try:
        proc = subprocess.run(worker_command(config, built, report), env=env,
                              stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True,
                              errors="replace", timeout=config.student_timeout_s, check=False)
    except subprocess.TimeoutExpired:
        return StudentResult(sub.name, "broken", gpu=gpu, duration_s=time.monotonic() - start,
                             reason=f"grading did not finish in {config.student_timeout_s:.0f} s",
                             report=report)
    (report / "grade.log").write_text(proc.stdout, encoding="utf-8")
    duration = time.monotonic() - start
    if proc.returncode == EXIT_NO_GPU:
        return StudentResult(sub.name, "broken", gpu=gpu, duration_s=duration, report=report,
                             reason=f"no GPU visible on GPU {gpu}: tests were skipped")
    result = result_from_report(sub.name, report, gpu=gpu, expected_labs=config.labs,
                                missing_max=config.lab_max, duration_s=duration)
    if result is None:
        tail = " | ".join(proc.stdout.strip().splitlines()[-_TAIL_LINES:])
        return StudentResult(sub.name, "broken", gpu=gpu, duration_s=duration, report=report,
                             reason=f"grader exited {proc.returncode} without a report: {tail}")
    return result


def _all_missing(config: BatchConfig, result: StudentResult) -> StudentResult:
    labs = tuple(LabResult(lab, 0.0, float(config.lab_max.get(lab, 0.0))) for lab in config.labs)
    return StudentResult(result.name, "graded", labs,
                         tuple(f"{lab}: not submitted" for lab in config.labs), gpu=result.gpu)


def lab_maxima(repo: Path, labs: Sequence[str]) -> dict[str, float]:
    """Each lab's full mark from its grading.json `max_score` (0 when it has none)."""
    dirs = lab_dirs(repo)
    return {lab: load_policy(lab, dirs.get(lab)).expected_max or 0.0 for lab in labs}
