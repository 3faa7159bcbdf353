"""`grade`: build (optionally), run the chosen labs' tests, report.

With a secret (hidden data) the grading is the instructor's: --report is the
instructor's folder, and results.json shows hidden-data tests after the due date.

`batch` grades each student with `grade --build`, in a child process per student
(a grader that crashes or hangs on one student takes down only its child), adding
`--request` (core/worker_request.py).

Exit status: 0 every selected test passed; 1 any failed (a failed build
included); 2 usage error; 3 tests were skipped for lack of a GPU (0 with
--allow-skips); 130 interrupted (Ctrl-C): no report written, the last one kept.
"""

from __future__ import annotations

import argparse
import os
import re
import sys
from pathlib import Path
from typing import NamedTuple

from grader.command import Command
from grader.core.build import (
    IMPL_WORDS,
    BuildFailure,
    build_checked,
    checked_build_target,
    configured_impl,
    decide_build,
    print_progress,
)
from grader.core.discovery import (
    checked_repo,
    lab_dirs,
    repo_root,
    require_known_labs,
)
from grader.core.errors import EXIT_INTERRUPTED, EXIT_NO_GPU, GraderUsageError, exit_status
from grader.core.model import Status
from grader.core.reports import (
    SUMMARY_NAME,
    append_step_summary,
    console_summary,
    write_all,
)
from grader.core.sandbox import Decision, warn
from grader.core.scoring import Grade
from grader.core.session import GradingSession
from grader.core.worker_request import WorkerRequest
from grader.options import (
    add_build_dir_argument,
    add_calibration_argument,
    add_cmake_arg_argument,
    add_grading_arguments,
    add_labs_argument,
    add_report_dir_argument,
    add_request_argument,
    add_timeout_scale_argument,
    impl_folder,
    impl_labs,
    read_secret,
    removed_if_left_empty,
    resolve_impl,
    writable_dir,
)
from grader.trust.submission_check import check_submission, rejected_labs


def _add_arguments(parser: argparse.ArgumentParser) -> None:
    source = parser.add_mutually_exclusive_group(required=True)
    source.add_argument(
        "--build", type=Path, metavar="BUILD", help="an already built CMake build directory"
    )
    source.add_argument(
        "--impl",
        metavar="DIR",
        help="configure and build the labs against DIR "
        f"({' or '.join(IMPL_WORDS)}, or a student's folder)",
    )
    add_build_dir_argument(parser, "build directory for --impl (default: ./build-grade-<name>)")
    add_cmake_arg_argument(
        parser,
        "extra configure argument for --impl, e.g. "
        "--cmake-arg=-DLAB_GTEST_SOURCE_DIR=/src/googletest (repeatable)",
    )
    add_labs_argument(parser, "every lab built")
    add_report_dir_argument(
        parser,
        "folder for results.json, summary.md (default: %(default)s)",
        default=Path("grading-report"),
    )
    add_timeout_scale_argument(parser)
    add_calibration_argument(parser)
    parser.add_argument(
        "--allow-skips",
        action="store_true",
        help="exit 0 when tests were skipped for lack of a GPU",
    )
    add_grading_arguments(
        parser,
        secret="grade on hidden data drawn from the secret in PATH (keep it "
        "outside the students' tree; default: $LAB_SECRET_SEED, if set)",
        sanitize="default: on with a secret (instructor grading), else off",
        calibration=False,
    )
    add_request_argument(parser)


class _Graded(NamedTuple):
    """A grading that ran to its end, and what its reports need."""

    report: Path
    grade: Grade
    build_log: str | None  # with --impl


def _run(args: argparse.Namespace) -> int:
    try:
        with removed_if_left_empty(args.report):  # a failed grade leaves no empty report folder
            graded = _grade(args)
    except KeyboardInterrupt:  # a part of a grading is none: the last reports stay whole
        print(
            f"grader: interrupted: no report written, {args.report} left as it was", file=sys.stderr
        )
        return EXIT_INTERRUPTED
    return _write_reports(graded, args.allow_skips)


def _grade(args: argparse.Namespace) -> _Graded:
    if (args.build_dir is not None or args.cmake_arg) and args.impl is None:
        raise GraderUsageError("--build-dir and --cmake-arg go with --impl")
    labs = args.labs
    repo = (args.repo or repo_root()).resolve()
    request = WorkerRequest.read(args.request) if args.request else None
    report = writable_dir(args.report)
    build, failure, log = args.build, None, None  # log: of the build made here
    if request and request.build_stage:  # batch's build of this student
        failed = Path(request.build_log).read_text(encoding="utf-8") if request.build_log else ""
        failure = BuildFailure(request.build_stage, failed)
    secret = read_secret(args.secret_file)
    sanitize = args.sanitize if args.sanitize is not None else secret is not None
    hidden = [p for p in (report, args.secret_file) if p]
    sandbox: Decision | str | None = args.sandbox
    if args.impl is not None:
        repo = repo_for_building(repo, labs)
        labs = impl_labs(resolve_impl(args.impl, repo), args.impl, labs, repo)
        build = checked_build_target(
            args.build_dir or default_build_dir(args.impl), resolve_impl(args.impl, repo), repo
        )
        build = writable_dir(build, "build")
        # One decision for the compile and the tests (and one warning).
        sandbox = decide_build(args.sandbox, repo, args.impl, build, args.cmake_arg, hidden)
        warn(sandbox)
        print(f"grader: building {', '.join(labs)} against {args.impl} in {build}", flush=True)
        impl = args.impl
        log, failure, rejected = build_checked(
            repo,
            impl,
            build,
            labs,
            [
                *args.cmake_arg,
                f"-DLAB_ONLY={';'.join(labs)}",
                *(["-DLAB_SANITIZE=ON"] if sanitize else []),
            ],
            lambda chosen, log: submission_rejections(repo, impl, build, list(chosen), log),
            progress=print_progress,
            sandbox=sandbox,
        )
        if failure is not None:
            print(
                f"grader: the {failure.stage} step failed; labs that did not build are graded "
                f"as failed (log: {report / 'build.log'})",
                file=sys.stderr,
                flush=True,
            )
    else:
        rejected = submission_rejections(repo, None, build, labs, failure.log if failure else "")
    for lab, findings in rejected.items():
        print(
            f"grader: {lab} rejected by the static check (sources and objects), scored 0: "
            f"{findings[0]}",
            file=sys.stderr,
            flush=True,
        )
    session = GradingSession.open(
        build,
        labs=labs,
        repo=repo,
        timeout_scale=args.timeout_scale,
        build_failure=failure,
        secret=secret,
        jobs=args.jobs,
        rejected=rejected,
        sandbox=sandbox,
        hidden=hidden,
        sanitize=sanitize,
        calibration=args.calibration,
        data_root=Path(request.data_root) if request and request.data_root else None,
    )
    session.run_all()
    return _Graded(report, session.grade(), log)


def _write_reports(graded: _Graded, allow_skips: bool) -> int:
    """Write and print the reports of a finished grading; its exit status."""
    report, grade = graded.report, graded.grade
    if graded.build_log is not None:
        (report / "build.log").write_text(graded.build_log, encoding="utf-8")
    write_all(report, grade)
    for line in console_summary(grade):
        print(f"grader: {line}")
    print(f"grader: reports in {report}")
    # In GitHub Actions the job summary is the page students read; batch's children
    # grade many students in one job, and are started without it.
    problem = append_step_summary(report / SUMMARY_NAME, os.environ)
    if problem:
        print(f"grader: warning: job summary not written: {problem}", file=sys.stderr)
    status = exit_status((t.outcome.status for t in grade.all_tests()), allow_skips)
    if status == EXIT_NO_GPU:
        skipped, passed = grade.count(Status.SKIPPED), grade.count(Status.PASSED)
        tail = "nothing graded" if not passed else f"only {passed} graded"
        print(f"grader: no GPU: {skipped} tests skipped, {tail}", file=sys.stderr)
    return status


def repo_for_building(repo: Path, labs: list[str] | None) -> Path:
    """`repo` (checked as every command's --repo), once it is known to build the
    labs asked for: checked before minutes of building."""
    repo = checked_repo(repo)
    if not (repo / "CMakeLists.txt").is_file():
        raise GraderUsageError(f"--repo {repo}: no CMakeLists.txt to build the labs with")
    require_known_labs(labs or (), lab_dirs(repo))
    return repo


def submission_rejections(
    repo: Path, impl: str | None, build: Path, labs: list[str] | None, log: str = ""
) -> dict[str, list[str]]:
    """lab -> the findings of the checks before any test (source rules and the
    object check of `build`'s student objects; `log`, the build's output, holds the
    compiler's errors on a file that did not compile), for each lab they reject.

    The same checks as `grader check`, so a submission that calls CUB, copies
    the answer to the host or replaces a harness function cannot pass by being
    graded without them. `impl` None: the folder the build was configured with.
    """
    folder = impl_folder(impl, repo) if impl is not None else configured_impl(build, repo)
    if folder is None or not folder.is_dir():
        return {}  # the configure step says what is missing
    return rejected_labs(check_submission(repo, folder, labs, build=build, log=log))


def default_build_dir(impl: str) -> Path:
    """./build-grade-<name>: one build per implementation graded."""
    name = impl if impl in IMPL_WORDS else Path(impl).resolve().name
    return Path.cwd() / f"build-grade-{re.sub(r'[^A-Za-z0-9_.-]', '_', name) or 'impl'}"


COMMAND = Command(
    "grade", "build (optional), run and score the labs' tests, write reports", _add_arguments, _run
)
