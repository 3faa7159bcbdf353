"""`batch SUBMISSIONS_DIR --report OUT`: grade every student's folder over the GPUs.

With --secret-file the batch is the instructor's: OUT holds hidden-data results whole.

Exit status: 0 the batch ran and the class table is written (students' own
failures included); 2 usage error (not a folder, empty, unknown lab,
unwritable report folder, no compute-sanitizer for the sanitizer stage); 3 no GPU.
A batch that fails leaves no empty report folder it made.
"""

from __future__ import annotations

import argparse
import os
import sys
import tempfile
import time
from collections.abc import Sequence
from dataclasses import replace
from functools import partial
from pathlib import Path

from grader.classroom.batch import Submission, choose_gpus, find_submissions, list_gpus, run_batch
from grader.classroom.batch_steps import (
    BatchConfig,
    build_fixed_parts,
    build_submission,
    grade_submission,
    lab_maxima,
    require_compute_sanitizer,
)
from grader.classroom.class_table import write_class_table
from grader.classroom.worker_time import worker_time
from grader.classroom.written_answers import summary
from grader.command import Command
from grader.core.build import decide_build, print_progress
from grader.core.ctest_run import check_jobs
from grader.core.discovery import lab_dirs, repo_root, require_known_labs
from grader.core.errors import EXIT_NO_GPU, EXIT_OK, GraderUsageError
from grader.core.gpu_slots import (
    GpuSlots,
    check_listed,
    describe,
    one_slot_each,
    read_resource_spec,
    worker_gpus,
)
from grader.core.model import lab_number
from grader.core.sandbox import HIDE_ENV, MODE_ENV, Decision, hide_targets, warn
from grader.options import (
    add_build_jobs_argument,
    add_cmake_arg_argument,
    add_grading_arguments,
    add_labs_argument,
    add_report_dir_argument,
    add_submissions_argument,
    add_timeout_scale_argument,
    removed_if_left_empty,
    writable_dir,
)


def _add_arguments(parser: argparse.ArgumentParser) -> None:
    add_submissions_argument(parser)
    add_report_dir_argument(parser, "folder for one report folder per student, class.csv, class.md")
    gpus = parser.add_mutually_exclusive_group()
    gpus.add_argument(
        "--gpus",
        metavar="N|auto",
        help="grading workers, one per GPU (default: every GPU nvidia-smi -L lists)",
    )
    gpus.add_argument(
        "--resource-spec",
        type=Path,
        metavar="FILE",
        help="ctest's resource spec JSON (scripts/gpu_resource_spec.py): one grading worker "
        "per slot of each of its gpus, so a GPU of 2 slots grades 2 students at once",
    )
    add_labs_argument(parser, "every lab")
    parser.add_argument(
        "--build-root",
        type=Path,
        metavar="DIR",
        help="where each student's build goes (default: ./build-batch)",
    )
    add_build_jobs_argument(parser, "submissions built at once, ahead of the GPUs (default: 2)")
    parser.add_argument(
        "--build-once",
        action="store_true",
        help="build the harness, references and test programs once for the class "
        "(in BUILD_ROOT/.fixed-parts); each student's build then compiles only their "
        "own files and links",
    )
    add_cmake_arg_argument(parser, "extra configure argument for every build (repeatable)")
    add_timeout_scale_argument(parser)
    parser.add_argument(
        "--student-timeout",
        type=float,
        default=3 * 3600,
        metavar="S",
        help="limit on one student's whole grading run (default: 3 h)",
    )
    add_grading_arguments(
        parser,
        secret="grade on hidden data drawn from the secret in PATH",
        sanitize="default: on",
        calibration=True,
    )


def _labs(requested: list[str] | None, repo: Path) -> tuple[str, ...]:
    dirs = lab_dirs(repo)
    built = sorted(
        (lab for lab, d in dirs.items() if (d / "CMakeLists.txt").is_file()), key=lab_number
    )
    require_known_labs(requested or (), built)
    return tuple(requested or built)


def _run(args: argparse.Namespace) -> int:
    with removed_if_left_empty(args.report):  # a failed batch leaves no empty report folder
        return _grade_batch(args)


def _grade_batch(args: argparse.Namespace) -> int:
    repo = (args.repo or repo_root()).resolve()
    labs = _labs(args.labs, repo)
    submissions = find_submissions(args.submissions)
    if args.secret_file is not None and not args.secret_file.is_file():
        raise GraderUsageError(f"--secret-file {args.secret_file}: no such file")
    if args.build_jobs < 1:
        raise GraderUsageError("--build-jobs must be at least 1")
    slots = _gpu_slots(args)
    if not slots:
        print(
            "grader: no GPU: nvidia-smi lists none (or is missing); nothing graded. "
            "Give --gpus N to use N GPUs anyway.",
            file=sys.stderr,
        )
        return EXIT_NO_GPU
    if args.sanitize is not False:  # before the first build: without it no grade could run
        require_compute_sanitizer(args.cmake_arg)
    report = writable_dir(args.report).resolve()
    config = BatchConfig(
        repo=repo,
        labs=labs,
        report_root=report,
        build_root=(args.build_root or Path.cwd() / "build-batch").resolve(),
        lab_max=lab_maxima(repo, labs),
        cmake_args=tuple(args.cmake_arg),
        timeout_scale=args.timeout_scale,
        secret_file=args.secret_file.resolve() if args.secret_file else None,
        student_timeout_s=args.student_timeout,
        jobs=check_jobs(args.jobs),
        sanitize=args.sanitize is not False,
        calibration=args.calibration.resolve() if args.calibration else None,
        shared_gpus=tuple(s.gpu for s in slots if s.slots > 1),
    )
    # Removed after the batch: a shared dataset never outlives its secret or harness.
    # Shared only in the sandbox, where student code cannot write it.
    config.build_root.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory(prefix=".datasets-", dir=config.build_root) as data:
        os.chmod(data, 0o755)  # read by the sandbox's user
        decision = _sandbox_workers(args, config)
        config = replace(config, sandbox=decision)
        if decision.sandbox is not None:
            config = replace(config, data_root=Path(data))
        return _grade_class(args, config, submissions, slots)


def _grade_class(
    args: argparse.Namespace,
    config: BatchConfig,
    submissions: Sequence[Submission],
    slots: Sequence[GpuSlots],
) -> int:
    """Build and grade every submission; write the class table."""
    repo, report = config.repo, config.report_root
    gpus = [s.gpu for s in slots]
    workers = worker_gpus(slots)
    if args.build_once:
        print(f"grader: building the fixed parts once in {config.build_root}", flush=True)
        config = build_fixed_parts(config, print_progress)
    gradable = sum(1 for s in submissions if s.problem is None)
    print(
        f"grader: {len(submissions)} folders ({gradable} submissions), labs "
        f"{','.join(config.labs)}, {len(workers)} GPU worker(s) on {describe(slots)}, "
        f"{args.build_jobs} build(s) at once",
        flush=True,
    )
    start = time.monotonic()
    graded = run_batch(
        submissions,
        workers,
        partial(build_submission, config),
        partial(grade_submission, config),
        build_jobs=args.build_jobs,
    )
    by_name = {r.name: r for r in graded}
    results = [by_name[s.name] for s in submissions]
    written = {s.name: summary(repo / "skeletons", s.path) for s in submissions if not s.problem}
    elapsed = time.monotonic() - start
    per_gpu = {gpu: sum(1 for r in results if r.gpu == gpu) for gpu in gpus}
    # Only the students graded count: a batch whose every student broke (no GPU
    # visible, say) measured no throughput.
    count = sum(1 for r in results if r.status == "graded")
    rate = (
        f"{3600 * count / (len(gpus) * elapsed):.0f} students per GPU-hour"
        if count and elapsed > 0
        else "no student graded"
    )
    done = f"Batch done in {elapsed:.0f} s ({rate}); graded per GPU: " + ", ".join(
        f"GPU {g}: {n}" for g, n in per_gpu.items()
    )
    spent = worker_time(results, len(workers), elapsed).line()
    csv_path, md_path = write_class_table(
        results, report, written, labs=config.labs, footer=(f"{done}.", f"{spent}.")
    )
    print(f"grader: {done[0].lower()}{done[1:]}\ngrader: {spent}")
    print(
        f"grader: class table {csv_path} and {md_path}; one report folder per student in "
        f"{report}{os.sep}"
    )
    return EXIT_OK


def _gpu_slots(args: argparse.Namespace) -> list[GpuSlots]:
    """The GPUs to grade on and their slots: the resource spec's, else --gpus's."""
    if args.resource_spec is None:
        return one_slot_each(choose_gpus(args.gpus or "auto", list_gpus()))
    slots = read_resource_spec(args.resource_spec)
    check_listed(slots, list_gpus())
    return slots


def _sandbox_workers(args: argparse.Namespace, config: BatchConfig) -> Decision:
    """Try the sandbox here (require fails before any build), then hand the mode and
    what to hide (every submission, the reports, the secret) to the workers, which
    take it from their environment. The builds take the decision itself."""
    hidden = [args.submissions, config.report_root]
    hidden += [args.secret_file] if args.secret_file else []
    students = str(args.submissions.resolve())
    decision = decide_build(
        args.sandbox, config.repo, students, config.build_root, config.cmake_args, hidden
    )
    warn(decision)
    os.environ[MODE_ENV] = decision.mode
    os.environ[HIDE_ENV] = os.pathsep.join(hide_targets(hidden))
    return decision


COMMAND = Command(
    "batch",
    "grade every student's folder, one worker per GPU (or GPU slot); class table",
    _add_arguments,
    _run,
)
