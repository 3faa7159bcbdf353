"""`sanitize`: run the labs' small correctness cases under compute-sanitizer.

    python3 -m grader sanitize --build BUILD [--labs lab1,lab3] [--report FILE]

The build must be configured with -DLAB_SANITIZE=ON (cmake/LabSanitize.cmake).
Each `labN.sanitize.<tool>` test fails with the tool's first report quoted. The
results never count in a grade. Exit 0 all passed, 1 any failed, 2 usage error
(no sanitize tests), 3 no GPU.
"""

from __future__ import annotations

import argparse
from collections.abc import Sequence

from grader.command import Command
from grader.core.errors import GraderUsageError, exit_status
from grader.core.model import LabTest, Outcome, lab_number
from grader.core.reports import markdown_table, one_line
from grader.core.sanitize import sanitize_tests
from grader.core.schedule import check_jobs, check_timeout_scale
from grader.core.session import GradingSession
from grader.options import (
    add_build_argument,
    add_jobs_argument,
    add_labs_argument,
    add_report_file_argument,
    add_timeout_scale_argument,
)


def _add_arguments(parser: argparse.ArgumentParser) -> None:
    add_build_argument(parser, "a build configured with -DLAB_SANITIZE=ON and built")
    add_labs_argument(parser, "every lab built")
    add_timeout_scale_argument(parser)
    add_report_file_argument(parser)
    add_jobs_argument(parser)


def table(rows: Sequence[tuple[LabTest, Outcome]]) -> str:
    """test | verdict | reason (the tool's first report, on one line)."""
    cells = [(t.name, o.status.value, one_line(o.reason)) for t, o in rows]
    return "\n".join(markdown_table(("test", "verdict", "reason"), cells))


def _run(args: argparse.Namespace) -> int:
    check_timeout_scale(args.timeout_scale)
    labs = args.labs
    check_jobs(args.jobs)
    # The grading session's runner and scheduler (its sandbox: $LAB_SANDBOX, else auto),
    # given the sanitize tests alone: the labs' graded tests do not run.
    session = GradingSession.open(
        args.build, labs=labs, timeout_scale=args.timeout_scale, jobs=args.jobs
    )
    tests = sanitize_tests(session.listing, labs)
    if not tests:
        which = f" of {','.join(labs)}" if labs else ""
        raise GraderUsageError(
            f"{args.build} has no sanitize tests{which}: "
            "configure it with -DLAB_SANITIZE=ON (compute-sanitizer must be "
            "found in the CUDA toolkit) and build it"
        )
    tests.sort(key=lambda t: (lab_number(t.lab), t.name))
    outcomes = session.scheduler.run_all(tests)
    rows = [(test, outcomes[test.name]) for test in tests]
    for test, outcome in rows:
        print(f"grader: {test.name}: {outcome.status.value}", flush=True)
    text = table(rows)
    print(text)
    if args.report is not None:
        args.report.write_text(text + "\n", encoding="utf-8")
    return exit_status(o.status for _, o in rows)


COMMAND = Command(
    "sanitize",
    "run the labs' small correctness cases under compute-sanitizer "
    "(memcheck, racecheck, synccheck)",
    _add_arguments,
    _run,
)
