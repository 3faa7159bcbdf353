"""`similarity SUBMISSIONS_DIR --report OUT`: pairs of students with alike kernels.

Writes OUT/similarity.md (the ranked pairs at or above --threshold) and
OUT/similarity.html (copydetect's report: the pairs' code side by side, the shared
parts marked). Exit status: 0 the report is written (flagged pairs
included); 2 usage error (not a class folder, unknown lab, copydetect missing).
"""

from __future__ import annotations

import argparse

from grader.classroom.batch import find_submissions
from grader.classroom.similarity import compare_class, markdown
from grader.command import Command
from grader.core.discovery import (
    checked_repo,
    lab_dirs,
    repo_root,
    require_known_labs,
)
from grader.core.errors import EXIT_OK, GraderUsageError
from grader.options import (
    add_labs_argument,
    add_repo_argument,
    add_report_dir_argument,
    add_submissions_argument,
    writable_dir,
)


def _add_arguments(parser: argparse.ArgumentParser) -> None:
    add_submissions_argument(parser)
    add_report_dir_argument(parser, "folder for the reports")
    add_labs_argument(parser, "every lab")
    parser.add_argument(
        "--threshold",
        type=float,
        default=0.5,
        metavar="F",
        help="flag pairs sharing at least this fraction of a file (default: %(default)s)",
    )
    add_repo_argument(parser, "whose skeletons/ is the boilerplate")


def _run(args: argparse.Namespace) -> int:
    if not 0 < args.threshold <= 1:
        raise GraderUsageError(f"--threshold must be in (0, 1], got {args.threshold:g}")
    repo = checked_repo((args.repo or repo_root()).resolve())
    dirs = lab_dirs(repo)
    if args.labs is not None:
        require_known_labs(args.labs, dirs)
    chosen = [dirs[lab].name for lab in (args.labs or sorted(dirs))]
    students = [s.name for s in find_submissions(args.submissions) if s.problem is None]
    if len(students) < 2:
        raise GraderUsageError(f"{args.submissions}: fewer than two submissions to compare")
    report = writable_dir(args.report)
    html = report / "similarity.html"
    pairs = compare_class(
        args.submissions.resolve(), students, repo / "skeletons", chosen, args.threshold, html
    )
    (report / "similarity.md").write_text(markdown(pairs, args.threshold), encoding="utf-8")
    top = f"; first: {pairs[0].first} and {pairs[0].second} ({pairs[0].score:.0%})" if pairs else ""
    print(
        f"grader: {len(pairs)} pairs at or above {args.threshold:.0%}{top}; "
        f"reports {report / 'similarity.md'} and {html}"
    )
    return EXIT_OK


COMMAND = Command(
    "similarity",
    "rank pairs of students whose kernels are alike (skeleton excluded), Markdown and HTML",
    _add_arguments,
    _run,
)
