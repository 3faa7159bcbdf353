"""One student's grading run inside a batch, as its own process.

`python3 -m grader.instructor.batch_worker --build B --report R [--build-log LOG
--build-stage S] ...`

The batch builds in its own process and grades here, in a child pinned to one
GPU by CUDA_VISIBLE_DEVICES: a pytest session is process-wide state, so two
cannot run in one process, and a grader that crashes or hangs on one student
takes down only this child. `grade --build` cannot do this job because it does
not know why a lab failed to build; this entry point is given the build log.
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Sequence
from pathlib import Path

from grader.core.build import BuildFailure
from grader.core.discovery import parse_lab_list
from grader.core.errors import EXIT_FAILED, EXIT_USAGE, GraderUsageError
from grader.core.grading_run import exit_status, run_pytest
from grader.core.outcome_cache import OutcomeCache
from grader.core.process_mode import DEFAULT_PROCESS_MODE, PROCESS_MODES
from grader.core.release import decision_from_args
from grader.core.session import GradingSession
from grader.options import add_decision_arguments, read_secret


def main(argv: Sequence[str] | None = None) -> int:
    """Grade a built tree into --report; exit statuses as `grade`'s."""
    parser = argparse.ArgumentParser(prog="python3 -m grader.instructor.batch_worker")
    parser.add_argument("--build", type=Path, required=True)
    parser.add_argument("--report", type=Path, required=True)
    parser.add_argument("--repo", type=Path, required=True)
    parser.add_argument("--labs")
    parser.add_argument("--build-log", type=Path)
    parser.add_argument("--build-stage")
    parser.add_argument("--timeout-scale", type=float, default=1.0)
    parser.add_argument("--secret-file", type=Path)
    parser.add_argument("--jobs", type=int)
    parser.add_argument("--sanitize", action="store_true")
    parser.add_argument("--process-mode", choices=PROCESS_MODES, default=DEFAULT_PROCESS_MODE)
    parser.add_argument("--calibration", type=Path)
    # The batch's folder of shared verdicts and this submission's digest (outcome_cache.py).
    parser.add_argument("--outcome-cache", type=Path)
    parser.add_argument("--submission-digest")
    parser.add_argument("--data-root", type=Path)  # the class's datasets, written once
    add_decision_arguments(parser)
    args = parser.parse_args(argv)
    failure = None
    if args.build_stage:
        log = args.build_log.read_text(encoding="utf-8") if args.build_log else ""
        failure = BuildFailure(args.build_stage, log)
    try:
        session = GradingSession.open(
            args.build,
            labs=parse_lab_list(args.labs) if args.labs else None,
            repo=args.repo,
            timeout_scale=args.timeout_scale,
            build_failure=failure,
            secret=read_secret(args.secret_file),
            jobs=args.jobs,
            sanitize=args.sanitize,
            process_mode=args.process_mode,
            calibration=args.calibration,
            outcome_cache=(
                OutcomeCache(args.outcome_cache, args.submission_digest)
                if args.outcome_cache and args.submission_digest
                else None
            ),
            data_root=args.data_root,
        )
    except GraderUsageError as exc:
        print(f"grader: error: {exc}", file=sys.stderr)
        return EXIT_USAGE
    grade = run_pytest(session, args.report, decision_from_args(args))
    if grade is None:
        print("grader: error: the grading session did not finish", file=sys.stderr)
        return EXIT_FAILED
    return exit_status(grade, allow_skips=False)


if __name__ == "__main__":
    raise SystemExit(main())
